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

/// The type written after the operand `piece` (`%0 : $T, …` gives `T`), if any.
pub(super) fn annotation(pieces: &[Piece], piece: Piece) -> Option<&str> {
    let at = pieces.iter().position(|p| *p == piece)?;
    let Some(Piece::Text(t)) = pieces.get(at + 1) else { return None };
    let t = t.trim_start().strip_prefix(':')?.trim_start();
    let start = t.strip_prefix('$').map(|_| 1)?;
    Some(t[start..type_end(t, start)].trim_end())
}

/// Whether two written SIL types are the same type, up to spacing and the `any` of an
/// existential (`$P` and `$any P` are one type; Swift prints either, by version).
pub(super) fn same_type(a: &str, b: &str) -> bool {
    a == b || words(a).eq(words(b))
}

/// The type's tokens: runs of name characters, and single punctuation; `any` before a
/// name is dropped.
fn words(t: &str) -> impl Iterator<Item = &str> {
    let name = |c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '$';
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
    fn the_annotation_ends_where_the_operand_does() {
        let p = |t: &str| vec![Piece::Text("x ".into()), Piece::Arg(0), Piece::Text(t.into())];
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
