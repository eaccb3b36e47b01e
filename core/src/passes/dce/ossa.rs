//! OSSA repairs: deleting a dead instruction must not leak what it consumed.
//!
//! In ownership SSA every `@owned` value is consumed exactly once. When the sweep deletes a
//! dead instruction that consumed a value which stays live (Swift's test
//! `nested_destructure_tuple`: a dead `destructure_tuple` of a live tuple element), the value
//! would leak, so a `destroy_value` takes the deleted instruction's place — Swift's
//! `endLifetimeOfLiveValue`. A dead `load [take]` moved a value out of memory; deleting it
//! leaves the value in memory, so a `destroy_addr` of the address takes its place (Swift's
//! `InstructionDeleter`, test `keep_new_destroy_addr`).
//!
//! The ownership of a value is inferred from its definition, conservatively: a repair is
//! made only when the value is known to be `@owned`. Not done (Swift does them): erasing dead
//! phi arguments and destroying their live incoming values, ending borrow scopes of
//! reborrows.

use super::classify::{is_trivial_type, operand_type};
use crate::ir::{Function, Inst, Op, SilOp, Type, ValueDef, ValueId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// Trivial values, addresses, `undef`.
    None,
    Owned,
    Guaranteed,
    /// Anything the rules below do not cover.
    Unknown,
}

pub(crate) fn ownership(f: &Function, v: ValueId) -> Ownership {
    ownership_at(f, v, 0)
}

fn trivial_or_address(t: &str) -> bool {
    t.starts_with('*') || is_trivial_type(t)
}

fn ownership_at(f: &Function, v: ValueId, depth: u32) -> Ownership {
    use Ownership::*;
    if depth > 64 {
        return Unknown;
    }
    let Some(d) = f.values.get(v) else { return Unknown };
    if let Some(Type::Sil(t)) = &d.ty {
        if trivial_or_address(t) {
            return None;
        }
    }
    match d.def {
        ValueDef::Undef => None,
        ValueDef::Var => Unknown,
        ValueDef::Param { .. } => match d.ownership.as_deref() {
            Some("owned") => Owned,
            Some("guaranteed") => Guaranteed,
            _ => Unknown,
        },
        ValueDef::Result { inst, index } => {
            let Some(i) = f.insts.get(inst) else { return Unknown };
            let Op::Sil(op) = &i.op else { return Unknown };
            let arg = |k: usize| i.args.get(k).map_or(Unknown, |&a| ownership_at(f, a, depth + 1));
            match op {
                SilOp::CopyValue | SilOp::MoveValue | SilOp::Apply => Owned,
                SilOp::Load if i.attrs.iter().any(|a| a == "copy" || a == "take") => Owned,
                SilOp::BeginBorrow | SilOp::LoadBorrow => Guaranteed,
                SilOp::DestructureTuple => {
                    // An element the operand's tuple type shows to be trivial owns nothing.
                    let elem = i
                        .args
                        .first()
                        .and_then(|&a| operand_type(f, i, 0, a))
                        .and_then(|t| tuple_element(&t, index as usize));
                    if elem.as_deref().is_some_and(trivial_or_address) {
                        return None;
                    }
                    arg(0)
                }
                SilOp::DestructureStruct
                | SilOp::StructExtract
                | SilOp::TupleExtract
                | SilOp::MarkDependence
                | SilOp::DropDeinit => arg(0),
                SilOp::Struct | SilOp::Tuple | SilOp::Enum => {
                    let mut acc = None;
                    for k in 0..i.args.len() {
                        match (acc, arg(k)) {
                            (_, Unknown) | (Unknown, _) => return Unknown,
                            (_, None) => {}
                            (None, o) => acc = o,
                            (a, o) if a == o => {}
                            _ => return Unknown,
                        }
                    }
                    acc
                }
                _ => Unknown,
            }
        }
    }
}

/// The `k`-th element type of a tuple type text `(A, B, …)`.
fn tuple_element(t: &str, k: usize) -> Option<String> {
    let inner = t.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut depth = 0i32;
    let mut start = 0;
    let mut elems = Vec::new();
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                elems.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    elems.push(&inner[start..]);
    let e = elems.get(k)?.trim();
    let e = match e.split_once(':') {
        Some((l, r)) if l.chars().all(|c| c.is_alphanumeric() || c == '_') => r.trim(),
        _ => e,
    };
    Some(e.to_string())
}

/// How a repair ends a lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// `destroy_value %v` of an owned value.
    DestroyValue,
    /// `destroy_addr %a` of memory a deleted `load [take]` would have emptied.
    DestroyAddr,
}

/// The repairs deleting `inst` needs: `(kind, value)` pairs, in operand order.
pub(crate) fn repairs(f: &Function, inst: &Inst) -> Vec<(EndKind, ValueId)> {
    let Op::Sil(op) = &inst.op else { return Vec::new() };
    match op {
        SilOp::Load if inst.attrs.iter().any(|a| a == "take") => {
            inst.args.first().map(|&a| (EndKind::DestroyAddr, a)).into_iter().collect()
        }
        SilOp::Struct
        | SilOp::Tuple
        | SilOp::Enum
        | SilOp::DestructureStruct
        | SilOp::DestructureTuple
        | SilOp::MoveValue
        | SilOp::DropDeinit => owned_operands(f, &inst.args),
        // Only the forwarded value is consumed, not the base it depends on.
        SilOp::MarkDependence => owned_operands(f, &inst.args[..inst.args.len().min(1)]),
        _ => Vec::new(),
    }
}

fn owned_operands(f: &Function, args: &[ValueId]) -> Vec<(EndKind, ValueId)> {
    let mut out: Vec<(EndKind, ValueId)> = Vec::new();
    for &a in args {
        if ownership(f, a) == Ownership::Owned && !out.iter().any(|(_, v)| *v == a) {
            out.push((EndKind::DestroyValue, a));
        }
    }
    out
}

/// The instruction a repair inserts, printed `destroy_value %v : $T`.
pub(crate) fn make_end(f: &Function, kind: EndKind, v: ValueId, ty: Option<String>, span: crate::diag::Span) -> Inst {
    let (op, name) = match kind {
        EndKind::DestroyValue => (SilOp::DestroyValue, "destroy_value "),
        EndKind::DestroyAddr => (SilOp::DestroyAddr, "destroy_addr "),
    };
    let mut inst = Inst::new(Op::Sil(op));
    inst.args.push(v);
    inst.sil.push(crate::ir::Piece::Text(name.into()));
    inst.sil.push(crate::ir::Piece::Arg(0));
    let ty = ty.or_else(|| match f.values.get(v).and_then(|d| d.ty.as_ref()) {
        Some(Type::Sil(t)) => Some(t.clone()),
        _ => None,
    });
    if let Some(t) = ty {
        inst.sil.push(crate::ir::Piece::Text(format!(" : ${t}")));
    }
    inst.span = span;
    inst
}

#[cfg(test)]
mod tests {
    use super::tuple_element;

    #[test]
    fn tuple_elements_split_at_top_level_commas() {
        assert_eq!(tuple_element("(String, (Int, Int, String))", 1).as_deref(), Some("(Int, Int, String)"));
        assert_eq!(tuple_element("(a: Int, b: S)", 1).as_deref(), Some("S"));
        assert_eq!(tuple_element("Int", 0), None);
    }
}
