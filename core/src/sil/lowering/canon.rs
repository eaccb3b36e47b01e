//! Types as `sil-opt` prints them after lowering, so the output can be checked against
//! Swift's own FileCheck lines: a file's `typealias`es are looked through (`Int` declared as
//! `Builtin.Int64` prints as `Builtin.Int64`) and a protocol used as a type is an existential
//! (`C` prints as `any C`). `AnyObject` stays sugar, as Swift prints it.

use crate::sil::types::decl::{Found, Kind};
use crate::sil::types::ty::{self, Elem, FnTy, Req, Seg, Ty};
use crate::sil::types::Decls;
use std::cell::RefCell;

/// How deep typealiases may refer to each other before we stop looking through them.
const MAX_ALIAS_DEPTH: usize = 16;

pub struct Canon<'d> {
    decls: &'d Decls,
    /// Answers already given, by input text: [`Canon::text`] and [`Canon::inst_text`]. A
    /// function has a handful of distinct types but asks about one for nearly every line it
    /// writes, and parsing and printing the type each time was a fifth of AddressLowering's
    /// rewrite at 10^5 blocks (issue 17). The answer depends on the text and the
    /// declarations only, which do not change while a `Canon` lives.
    memo: RefCell<Memo>,
}

#[derive(Default)]
struct Memo {
    text: super::FastMap<String, String>,
    inst: super::FastMap<String, String>,
}

impl<'d> Canon<'d> {
    pub fn new(decls: &'d Decls) -> Canon<'d> {
        Canon { decls, memo: RefCell::default() }
    }

    /// A type text (without `$`) in printed form; text that does not read is kept as it is.
    pub fn text(&self, text: &str) -> String {
        if let Some(t) = self.memo.borrow().text.get(text) {
            return t.clone();
        }
        let out = match ty::parse(text.trim()) {
            Ok(t) => self.ty(&t, &[], 0).to_string(),
            Err(_) => text.trim().to_string(),
        };
        self.memo.borrow_mut().text.insert(text.to_string(), out.clone());
        out
    }

    /// A type inside an instruction: as [`Canon::text`], and a function type's generic
    /// parameters get their canonical names (`<T> (@in T)` prints as `<τ_0_0> (@in τ_0_0)`,
    /// as SIL prints the callee types of `function_ref` and `apply`).
    pub fn inst_text(&self, text: &str) -> String {
        let mut out = String::new();
        self.push_inst_text(text, &mut out);
        out
    }

    /// [`Canon::inst_text`] appended to `out` (no string of its own: the rewrite writes a
    /// type into nearly every line).
    fn push_inst_text(&self, text: &str, out: &mut String) {
        if let Some(t) = self.memo.borrow().inst.get(text) {
            out.push_str(t);
            return;
        }
        let t = match ty::parse(text.trim()) {
            Ok(t) => canonical_generics(&self.ty(&t, &[], 0)).to_string(),
            Err(_) => text.trim().to_string(),
        };
        out.push_str(&t);
        self.memo.borrow_mut().inst.insert(text.to_string(), t);
    }

    /// Every `$type` in a printed instruction fragment, canonical.
    pub fn fragment(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        self.fragment_to(text, &mut out);
        out
    }

    /// [`Canon::fragment`] appended to `out`: the rewrite writes every unchanged line this
    /// way, straight into its buffer (a string per line, and another for the member type
    /// nearly no line has, were an allocation each at 10^5 blocks).
    pub fn fragment_to(&self, text: &str, out: &mut String) {
        let start = out.len();
        let mut last = 0;
        for r in crate::sil::types::function::dollar_type_spans(text) {
            let t = &text[r.clone()];
            out.push_str(&text[last..r.start]);
            self.push_inst_text(t, out);
            out.push_str(&t[t.trim_end().len()..]);
            last = r.end;
        }
        out.push_str(&text[last..]);
        if let Some(m) = self.member_type(&out[start..]) {
            out.truncate(start);
            out.push_str(&m);
        }
    }

    /// The formal type of a declaration reference (`witness_method $T, #P.m : <Self where
    /// Self : P> (Self.Type) -> () -> Bool : $…`), canonical too; its generic parameters
    /// keep their names.
    fn member_type(&self, text: &str) -> Option<String> {
        let h = text.find(" #")?;
        let colon = text[h + 1..].find(' ').filter(|&c| text[h + 1 + c..].starts_with(" : "))?;
        let start = h + 1 + colon + 3;
        // Up to the instruction's own type: ` : $` (witness_method) or `, $` (class_method).
        let len = [" : $", ", $"].iter().filter_map(|e| text[start..].find(e)).min()?;
        let member = &text[start..start + len];
        let t = ty::parse(member.trim()).ok()?;
        // A member of a generic type is written with that type's own generic parameters
        // (`#TestGeneric.x!read : <T> (TestGeneric<T>) -> …` whatever the input named them).
        let owner = text[h + 2..].split(['.', ' ']).next().unwrap_or("");
        let t = match (&t, self.decls.nominal(owner)) {
            (Ty::Function(f), Some(n)) if !n.params.is_empty() && f.generics.len() == n.params.len() && f.groups.is_empty() => {
                let names: Vec<(String, String)> = f.generics.iter().zip(&n.params).map(|(g, p)| (g.name.clone(), p.name.clone())).collect();
                renamed(f, &names)
            }
            _ => t,
        };
        Some(format!("{}{}{}", &text[..start], self.ty(&t, &[], 0), &text[start + len..]))
    }

    fn ty(&self, t: &Ty, shadow: &[String], depth: usize) -> Ty {
        let go = |t: &Ty| self.ty(t, shadow, depth);
        match t {
            Ty::Named(segs) if segs.len() == 1 && !shadow.contains(&segs[0].name) => {
                let s = &segs[0];
                let args: Vec<Ty> = s.args.iter().map(go).collect();
                match self.decls.lookup(&s.name) {
                    Some(Found::Alias(a)) if a.name != "AnyObject" && a.params.is_empty() && depth < MAX_ALIAS_DEPTH => {
                        self.ty(&a.ty, shadow, depth + 1)
                    }
                    Some(Found::Nominal(n)) if n.kind == Kind::Protocol && s.args.is_empty() => {
                        Ty::Existential(vec![Ty::Named(vec![Seg { name: s.name.clone(), args }])])
                    }
                    _ => Ty::Named(vec![Seg { name: s.name.clone(), args }]),
                }
            }
            Ty::Named(segs) => Ty::Named(segs.iter().map(|s| Seg { name: s.name.clone(), args: s.args.iter().map(go).collect() }).collect()),
            Ty::Address(x) => Ty::Address(Box::new(go(x))),
            Ty::Tuple(es) => Ty::Tuple(es.iter().map(|e| Elem { ty: go(&e.ty), ..e.clone() }).collect()),
            Ty::Function(func) => {
                let mut inner: Vec<String> = shadow.to_vec();
                inner.extend(func.generics.iter().map(|g| g.name.clone()));
                let go2 = |t: &Ty| self.ty(t, &inner, depth);
                Ty::Function(Box::new(FnTy {
                    params: func.params.iter().map(|e| Elem { ty: go2(&e.ty), ..e.clone() }).collect(),
                    results: func.results.iter().map(|e| Elem { ty: go2(&e.ty), ..e.clone() }).collect(),
                    // Requirements name protocols as constraints, not as existential types.
                    reqs: func
                        .reqs
                        .iter()
                        .map(|r| match r {
                            Req::Same(a, b) => Req::Same(go2(a), go2(b)),
                            c => c.clone(),
                        })
                        .collect(),
                    ..(**func).clone()
                }))
            }
            Ty::Metatype { repr, instance } => Ty::Metatype { repr: repr.clone(), instance: Box::new(go(instance)) },
            Ty::Existential(ps) => Ty::Existential(ps.iter().map(|p| match self.ty(p, shadow, depth) {
                Ty::Existential(mut one) if one.len() == 1 => one.remove(0),
                other => other,
            }).collect()),
            Ty::Storage(k, x) => Ty::Storage(*k, Box::new(go(x))),
            // `@opened("…", P) Self`: the constraint is an existential (`any P`).
            Ty::Opened { id, proto } => Ty::Opened { id: id.clone(), proto: Box::new(go(proto)) },
            Ty::Opaque(x) => Ty::Opaque(Box::new(go(x))),
            Ty::MoveOnly(x) => Ty::MoveOnly(Box::new(go(x))),
            Ty::Attributed(a, x) => Ty::Attributed(a.clone(), Box::new(go(x))),
            other => other.clone(),
        }
    }
}

/// `<T, U> (@in T) -> @out U` as `<τ_0_0, τ_0_1> (@in τ_0_0) -> @out τ_0_1`.
fn canonical_generics(t: &Ty) -> Ty {
    let Ty::Function(f) = t else { return t.clone() };
    if f.generics.is_empty() || f.generics.iter().all(|g| g.name.starts_with('τ')) {
        return t.clone();
    }
    // `τ_depth_index`: a group's depth is its position among the groups.
    let names: Vec<(String, String)> = f
        .generics
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let depth = f.groups.iter().filter(|&&(start, _)| start <= i).count();
            let first = f.groups.iter().rev().map(|&(start, _)| start).find(|&start| start <= i).unwrap_or(0);
            (g.name.clone(), format!("τ_{depth}_{}", i - first))
        })
        .collect();
    renamed(f, &names)
}

/// `f` with its generic parameters renamed (`(old, new)` pairs) in its signature, requirements,
/// parameters and results.
fn renamed(f: &FnTy, names: &[(String, String)]) -> Ty {
    let map = |n: &str| names.iter().find(|(a, _)| a == n).map(|(_, b)| Ty::name(b));
    let sub = |t: &Ty| t.subst(&map);
    Ty::Function(Box::new(FnTy {
        generics: f.generics.iter().zip(names).map(|(g, (_, b))| ty::GenericParam { name: b.clone(), bounds: g.bounds.clone() }).collect(),
        reqs: f
            .reqs
            .iter()
            .map(|r| match r {
                Req::Conforms(a, b) => Req::Conforms(sub(a), b.clone()),
                Req::Same(a, b) => Req::Same(sub(a), sub(b)),
            })
            .collect(),
        params: f.params.iter().map(|e| Elem { ty: sub(&e.ty), ..e.clone() }).collect(),
        results: f.results.iter().map(|e| Elem { ty: sub(&e.ty), ..e.clone() }).collect(),
        ..f.clone()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls() -> Decls {
        Decls::parse(
            "typealias AnyObject = Builtin.AnyObject\ntypealias Int = Builtin.Int64\ntypealias Bool = Builtin.Int1\npublic protocol C : AnyObject {}\nprotocol Error {}\nprotocol Comparable {}\nstruct SI<T> { var element: T }\n",
        )
    }

    #[test]
    fn aliases_and_existentials_print_as_sil_opt_prints_them() {
        let d = decls();
        let c = Canon::new(&d);
        assert_eq!(c.text("Int"), "Builtin.Int64");
        assert_eq!(c.text("(Int, Int)"), "(Builtin.Int64, Builtin.Int64)");
        assert_eq!(c.text("*C"), "*any C");
        assert_eq!(c.text("SI<AnyObject>"), "SI<AnyObject>");
        assert_eq!(
            c.text("@convention(thin) <T>(@in T, @owned C) -> (@out T, @error Error)"),
            "@convention(thin) <T> (@in T, @owned any C) -> (@out T, @error any Error)"
        );
        assert_eq!(
            c.text("@convention(thin) <T where T : Comparable> (@in_guaranteed T) -> @out T"),
            "@convention(thin) <T where T : Comparable> (@in_guaranteed T) -> @out T"
        );
        assert_eq!(c.fragment("%1 : $C, %2 : $Int"), "%1 : $any C, %2 : $Builtin.Int64");
        assert_eq!(
            c.fragment("%2 = witness_method $T, #Comparable.\"<\" : <Self where Self : Comparable> (Self.Type) -> (Self, Self) -> Bool : $@convention(witness_method: Comparable) <τ_0_0 where τ_0_0 : Comparable> (@in_guaranteed τ_0_0) -> Bool"),
            "%2 = witness_method $T, #Comparable.\"<\" : <Self where Self : Comparable> (Self.Type) -> (Self, Self) -> Builtin.Int1 : $@convention(witness_method: Comparable) <τ_0_0 where τ_0_0 : Comparable> (@in_guaranteed τ_0_0) -> Builtin.Int1"
        );
        assert_eq!(c.text("Optional<@opened(\"E\", C) Self>"), "Optional<@opened(\"E\", any C) Self>");
        assert_eq!(
            c.fragment("%2 = class_method %0 : $SI<Int>, #SI.element!read : <X> (SI<X>) -> () -> Int, $@yield_once @convention(method) <τ_0_0> (@guaranteed SI<τ_0_0>) -> @yields @in_guaranteed τ_0_0"),
            "%2 = class_method %0 : $SI<Builtin.Int64>, #SI.element!read : <T> (SI<T>) -> () -> Builtin.Int64, $@yield_once @convention(method) <τ_0_0> (@guaranteed SI<τ_0_0>) -> @yields @in_guaranteed τ_0_0"
        );
        // Two generic parameter groups print as two, each with its own requirements.
        let two = "@convention(thin) <τ_0_0 where τ_0_0 : Comparable><τ_1_0> (@inout τ_0_0) -> (@out Optional<τ_1_0>, @error any Error)";
        assert_eq!(c.inst_text(two), two);
        assert_eq!(
            c.inst_text("@convention(thin) <A where A : Comparable><B, C> (@in A, @in C) -> @out B"),
            "@convention(thin) <τ_0_0 where τ_0_0 : Comparable><τ_1_0, τ_1_1> (@in τ_0_0, @in τ_1_1) -> @out τ_1_0"
        );
        assert_eq!(c.fragment("function_ref @$s4main1fyyF : $@convention(thin) () -> ()"), "function_ref @$s4main1fyyF : $@convention(thin) () -> ()");
    }

    /// The remembered answers are the ones a fresh `Canon` gives, whatever was asked before
    /// and in which of the two forms: `text` and `inst_text` of the same generic function
    /// type differ, so one form's answer must never be handed out for the other.
    #[test]
    fn remembered_answers_are_fresh_answers() {
        let d = decls();
        let types = [
            "Int",
            " Int ",
            "(Int, C)",
            "@convention(thin) <A where A : Comparable><B, C> (@in A, @in C) -> @out B",
            "<T> (@in T) -> @out T",
            "SI<Int>",
            "not a type (",
            "*C",
        ];
        let warm = Canon::new(&d);
        for round in 0..3 {
            for (k, t) in types.iter().enumerate() {
                // Alternate the order of the two forms between rounds.
                let (a, b) = if (k + round) % 2 == 0 {
                    let a = warm.text(t);
                    (a, warm.inst_text(t))
                } else {
                    let b = warm.inst_text(t);
                    (warm.text(t), b)
                };
                assert_eq!(a, Canon::new(&d).text(t), "text of {t:?}, round {round}");
                assert_eq!(b, Canon::new(&d).inst_text(t), "inst_text of {t:?}, round {round}");
            }
        }
        let generic = types[3];
        assert_ne!(warm.text(generic), warm.inst_text(generic), "the two forms differ on a generic function type");
    }
}
