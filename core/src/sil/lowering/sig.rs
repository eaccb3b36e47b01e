//! What a function type says about indirection: which parameters are passed by address and
//! which results are returned through an `@out` address. Before AddressLowering an `@in T`
//! parameter is an SSA value in the body; after it, the SIL argument is an address — the
//! convention (the ABI) did not change, only the SIL representation (seed 001's "formal" vs
//! "SIL" indirection).

use crate::sil::types::ty::{self, FnTy, Ty};
use std::collections::HashMap;

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamConv {
    /// `@in`, `@in_constant`: an address whose value the callee consumes.
    In,
    /// `@in_guaranteed`: an address the callee only reads.
    InGuaranteed,
    /// `@inout`, `@inout_aliasable`: an address in every SIL stage.
    Inout,
    /// `@owned`, `@guaranteed`, `@unowned`, or none: an object value.
    Direct,
}

impl ParamConv {
    fn of(conv: Option<&str>) -> ParamConv {
        match conv {
            Some("in" | "in_constant" | "in_cxx") => ParamConv::In,
            Some("in_guaranteed") => ParamConv::InGuaranteed,
            Some("inout" | "inout_aliasable") => ParamConv::Inout,
            _ => ParamConv::Direct,
        }
    }

    pub fn is_indirect(self) -> bool {
        self != ParamConv::Direct
    }
}

/// A function type's parameters and results, with generic parameters substituted.
#[derive(Clone, Debug)]
pub struct Sig {
    pub params: Vec<(ParamConv, Ty)>,
    /// `(indirect, type)` per formal result, error result excluded.
    pub results: Vec<(bool, Ty)>,
    pub error: Option<Ty>,
    /// A coroutine (`@yields`): not lowered here.
    pub yields: bool,
}

impl Sig {
    /// The signature of a function type text (with or without `$`), its generic parameters
    /// bound to `subs` in order (none: left as written).
    /// `None` also when `subs` is not empty and does not bind every generic parameter once.
    pub fn of_text(text: &str, subs: &[Ty]) -> Option<Sig> {
        let text = text.trim();
        let text = text.strip_prefix('$').unwrap_or(text);
        match ty::parse(text).ok()? {
            Ty::Function(f) if subs.is_empty() || subs.len() == f.generics.len() => Some(Sig::of(&f, subs)),
            _ => None,
        }
    }

    pub fn of(f: &FnTy, subs: &[Ty]) -> Sig {
        let map: HashMap<&str, &Ty> = f.generics.iter().map(|g| g.name.as_str()).zip(subs.iter()).collect();
        let s = |t: &Ty| if map.is_empty() { t.clone() } else { t.subst(&|n| map.get(n).map(|t| (*t).clone())) };
        let mut sig = Sig { params: Vec::new(), results: Vec::new(), error: None, yields: false };
        for p in &f.params {
            sig.params.push((ParamConv::of(p.conv.as_deref()), s(&p.ty)));
        }
        for r in &f.results {
            match r.conv.as_deref() {
                Some("error" | "error_indirect" | "error_unowned") => sig.error = Some(s(&r.ty)),
                Some(c) if c.starts_with("yields") => sig.yields = true,
                Some("out") => sig.results.push((true, s(&r.ty))),
                _ => sig.results.push((false, s(&r.ty))),
            }
        }
        sig
    }

    pub fn indirect_results(&self) -> usize {
        self.results.iter().filter(|r| r.0).count()
    }
}

/// Per value a coroutine yields (`@yields @in_guaranteed τ_0_0`), whether it is yielded by
/// address (`@in`, `@in_guaranteed`, `@inout`, …); `None` if the type does not read.
pub fn yields_indirect(text: &str) -> Option<Vec<bool>> {
    let text = text.trim();
    let text = text.strip_prefix('$').unwrap_or(text);
    let Ty::Function(f) = ty::parse(text).ok()? else { return None };
    Some(f.results.iter().filter(|r| r.conv.as_deref() == Some("yields")).map(|r| r.ty.to_string().starts_with("@in")).collect())
}

/// The substitution list of an `apply %f<A, B>(…)`: the text between `<` and its `>`;
/// `None` when it does not read as types (an empty list would leave the callee's generic
/// parameters unsubstituted, and the call's results typed `τ_0_0` in a function that has no
/// such parameter: fuzz seed 20261127, input 663755).
pub fn parse_subs(text: &str) -> Option<Vec<Ty>> {
    let t = text.trim();
    if t.is_empty() {
        return Some(Vec::new());
    }
    match ty::parse(&format!("({t})")).ok()? {
        Ty::Tuple(es) => Some(es.into_iter().map(|e| e.ty).collect()),
        one => Some(vec![one]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indirection_follows_the_conventions_and_substitutions_apply() {
        let s = Sig::of_text("$@convention(thin) <τ_0_0> (@in τ_0_0, @owned C) -> (@out τ_0_0, @owned C, @error Error)", &parse_subs("Builtin.Int64").unwrap()).unwrap();
        assert_eq!(s.params[0].0, ParamConv::In);
        assert_eq!(s.params[0].1.to_string(), "Builtin.Int64");
        assert_eq!(s.params[1].0, ParamConv::Direct);
        assert_eq!(s.results.len(), 2);
        assert!(s.results[0].0 && !s.results[1].0);
        assert_eq!(s.indirect_results(), 1);
        assert!(s.error.is_some());
        assert_eq!(parse_subs("Int, T").map(|s| s.len()), Some(2));
        assert_eq!(parse_subs("In\u{202e}t"), None, "a substitution that is not a type");
        assert_eq!(parse_subs(""), Some(Vec::new()));
    }
}
