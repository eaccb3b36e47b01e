//! A use's `: $T` against its value's type.
//!
//! Swift's SIL parser rejects `%0 : $B` when `%0` was defined as `$A`. The passes read
//! types from either place — AddressLowering, for one, types a `destructure_tuple`'s
//! results from the annotation — so a file where the two disagree would be lowered by
//! whichever one a pass happened to read, and a wrong annotation would turn into wrong
//! output instead of a message. Only values whose type the text states or the instruction
//! implies are checked (block arguments, and results the parser typed); others have no
//! type to compare.

use super::scan::type_end;
use crate::ir::Piece;

/// The type written after the operand at `pieces[at]` (`%0 : $T, …` gives `T`), if any. The
/// caller locates every operand among the pieces in one pass: searching the pieces for each
/// operand was quadratic in an instruction's operands.
pub(super) fn annotation_at(pieces: &[Piece], at: usize) -> Option<&str> {
    let Some(Piece::Text(t)) = pieces.get(at + 1) else { return None };
    let t = t.trim_start().strip_prefix(':')?.trim_start();
    let start = t.strip_prefix('$').map(|_| 1)?;
    Some(t[start..type_end(t, start)].trim_end())
}

/// Whether two written SIL types are the same type, up to spacing, the `any` of an
/// existential (`$P` and `$any P` are one type; Swift prints either, by version) and the
/// names of generic parameters a function type declares: Swift's own tests write a
/// `function_ref` as `<T> (@in T) -> ()` and the `apply` of it as
/// `<τ_0_0> (@in τ_0_0) -> ()`, and both are one type as long as the renaming is one to one.
pub(super) fn same_type(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (wa, wb): (Vec<&str>, Vec<&str>) = (words(a).collect(), words(b).collect());
    if wa.len() != wb.len() {
        return false;
    }
    let (da, db) = (declared(&wa), declared(&wb));
    let mut renamed: Vec<(&str, &str)> = Vec::new();
    wa.iter().zip(&wb).all(|(&x, &y)| match (da.contains(&x), db.contains(&y)) {
        (false, false) => x == y,
        (true, true) => match renamed.iter().find(|&&(p, q)| p == x || q == y) {
            Some(&(p, q)) => p == x && q == y,
            None => {
                renamed.push((x, y));
                true
            }
        },
        _ => false,
    })
}

fn is_name(w: &str) -> bool {
    w.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The generic parameters the type's generic clauses declare: a `<` at the start, after an
/// attribute (`@callee_guaranteed <T>`, `@substituted <A>`) or after `)` (`@convention(thin)
/// <T>`) opens a clause; `Optional<T>` (after a name) applies one. In a clause, the name
/// after `<` or `,` (past a pack's `each`) is a parameter, up to `where`.
fn declared<'a>(w: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < w.len() {
        let opens = w[i] == "<"
            && (i == 0 || !is_name(w[i - 1]) || (i >= 2 && w[i - 2] == "@"))
            && !(i >= 1 && w[i - 1] == "-");
        if !opens {
            i += 1;
            continue;
        }
        let (mut depth, mut listing, mut expect) = (0usize, true, true);
        while i < w.len() {
            match w[i] {
                "<" => depth += 1,
                ">" if i == 0 || w[i - 1] != "-" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                "," if depth == 1 => expect = listing,
                "where" if depth == 1 => listing = false,
                "each" if expect => {}
                t if expect && depth == 1 && is_name(t) => {
                    out.push(t);
                    expect = false;
                }
                _ => expect = false,
            }
            i += 1;
        }
        i += 1;
    }
    out
}

/// The type's tokens: runs of name characters, and single punctuation (`.` too, so that
/// `τ_0_0.Index` names its parameter); `any` before a name is dropped.
fn words(t: &str) -> impl Iterator<Item = &str> {
    let name = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut rest = t;
    std::iter::from_fn(move || loop {
        rest = rest.trim_start();
        let c = rest.chars().next()?;
        let len = if name(c) { rest.find(|c| !name(c)).unwrap_or(rest.len()) } else { c.len_utf8() };
        let (w, tail) = rest.split_at(len);
        rest = tail;
        if w == "any" && rest.trim_start().starts_with(|c: char| name(c) || c == '(') {
            continue;
        }
        return Some(w);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_and_any_do_not_matter_but_names_do() {
        assert!(same_type("(Int,  Int)", "(Int, Int)"));
        assert!(same_type("any P", "P"));
        assert!(same_type("Optional<any P & Q>", "Optional<P & Q>"));
        assert!(same_type("@callee_guaranteed (@guaranteed any P) -> ()", "@callee_guaranteed(@guaranteed P)->()"));
        assert!(!same_type("(SI<Element>, I)", "(SI<Element>, %4)"));
        assert!(!same_type("*T", "T"));
        assert!(!same_type("Int", "Int32"));
        assert!(!same_type("any", "Any"));
    }

    #[test]
    fn declared_generic_parameters_may_be_renamed_one_to_one() {
        let f = "@convention(thin) <T where T : P> (@in T, @guaranteed Optional<T>) -> @out T";
        assert!(same_type(f, "@convention(thin) <τ_0_0 where τ_0_0 : P> (@in τ_0_0, @guaranteed Optional<τ_0_0>) -> @out τ_0_0"));
        assert!(same_type("@callee_guaranteed <each A, B> (@in B) -> ()", "@callee_guaranteed <each X, Y> (@in Y) -> ()"));
        assert!(same_type("<T> (@in T.Index) -> ()", "<τ_0_0> (@in τ_0_0.Index) -> ()"));
        // Not one to one: two parameters folded into one, or one split in two.
        assert!(!same_type("<A, B> (@in A, @in B) -> ()", "<X, Y> (@in X, @in X) -> ()"));
        assert!(!same_type("<A, B> (@in A, @in A) -> ()", "<X, Y> (@in X, @in Y) -> ()"));
        // A parameter is not a concrete type, and an applied argument is not a parameter.
        assert!(!same_type("<T> (@in T) -> @out T.Index", "<T> (@in T) -> @out end_access"));
        assert!(!same_type("Optional<T>", "Optional<U>"));
        assert!(!same_type("@convention(thin) <T> (@in T) -> ()", "@convention(thin) <T> (@in Int) -> ()"));
        // A requirement's protocol is not renamed.
        assert!(!same_type("<T where T : P> (@in T) -> ()", "<T where T : Q> (@in T) -> ()"));
    }

    #[test]
    fn the_annotation_ends_where_the_operand_does() {
        let p = |t: &str| vec![Piece::Text("x ".into()), Piece::Arg(0), Piece::Text(t.into())];
        fn annotation(pieces: &[Piece], piece: Piece) -> Option<&str> {
            annotation_at(pieces, pieces.iter().position(|q| *q == piece)?)
        }
        assert_eq!(annotation(&p(" : $*T"), Piece::Arg(0)), Some("*T"));
        assert_eq!(annotation(&p(" : $S, #S.x"), Piece::Arg(0)), Some("S"));
        assert_eq!(annotation(&p(" : $A to $B"), Piece::Arg(0)), Some("A"));
        assert_eq!(annotation(&p(" : $(A, B) // x"), Piece::Arg(0)), Some("(A, B)"));
        assert_eq!(annotation(&p(" : $@callee_guaranteed () -> Int on %1"), Piece::Arg(0)), Some("@callee_guaranteed () -> Int"));
        assert_eq!(annotation(&p(" : $Optional<Int>)"), Piece::Arg(0)), Some("Optional<Int>"));
        assert_eq!(annotation(&p(", %1"), Piece::Arg(0)), None);
        assert_eq!(annotation(&p(" : $T"), Piece::Arg(1)), None);
    }
}
