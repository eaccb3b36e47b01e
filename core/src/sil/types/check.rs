//! What the instructions claim about types, checked against the classification: the
//! `[trivial]` qualifier of `load`/`store` on a type the rules call non-trivial, `load [copy]`
//! of a trivial type, and an object-typed value of an address-only type outside
//! opaque-values SIL. Swift's verifier rejects each; here each is a warning with its position,
//! because the classification itself may be what is wrong (an undeclared assumption).

use super::classify::Class;
use super::operand::{object_type, operand_type};
use crate::diag::Span;
use crate::ir::{Function, Op, SilOp};
use serde::Serialize;

/// A place where an instruction's qualifier contradicts the classification.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Warning {
    pub span: Span,
    pub message: String,
}

/// The warnings of one function (SIL only; empty for Bril). `class_of` classifies a type text
/// in the function's context; `opaque_values` says whether address-only object values are
/// expected.
pub fn warnings(f: &Function, class_of: &dyn Fn(&str) -> Class, opaque_values: bool) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut warn = |span, message: String| out.push(Warning { span, message });
    for &b in &f.layout {
        for &i in f.blocks[b].insts.iter().chain(f.blocks[b].term.iter()) {
            let inst = &f.insts[i];
            let has = |a: &str| inst.attrs.iter().any(|x| x == a);
            // The address operand: `load [q] %addr : $*T`, `store %v to [q] %addr : $*T`.
            let addr = match inst.op {
                Op::Sil(SilOp::Load) => 0,
                Op::Sil(SilOp::Store) => 1,
                _ => continue,
            };
            let Some(&v) = inst.args.get(addr) else { continue };
            let Some(t) = operand_type(f, inst, addr, v) else { continue };
            let Some(obj) = t.trim().strip_prefix('*') else { continue };
            let class = class_of(obj);
            let op = inst.op.to_string();
            if has("trivial") && matches!(class, Class::Loadable | Class::AddressOnly) {
                warn(
                    inst.span,
                    format!("`{op} [trivial]` of `${obj}`, which is {class}: a trivial copy would skip the retain it needs"),
                );
            }
            if op == "load" && has("copy") && class == Class::Trivial {
                warn(inst.span, format!("`load [copy]` of `${obj}`, which is trivial: `load [trivial]` says the same without implying a retain"));
            }
        }
    }
    if !opaque_values && f.sil.is_some() {
        let mut seen = std::collections::HashSet::new();
        for (v, d) in f.values.iter() {
            let Some(t) = object_type(f, v) else { continue };
            if class_of(t) == Class::AddressOnly && seen.insert(t.to_string()) {
                warn(
                    d.span,
                    format!(
                        "`%{}` has object type `${t}`, which is address-only: outside opaque-values SIL (`-enable-sil-opaque-values`) it must be handled through an address `$*{t}`",
                        d.name
                    ),
                );
            }
        }
    }
    out.sort_by_key(|w| w.span.lo);
    out
}
