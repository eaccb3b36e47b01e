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
//! Dead block arguments with ownership are handled as Swift's `removeDead` does: a dead
//! `@owned` argument that is not a phi (a function argument, a `try_apply` result, a
//! `switch_enum` payload) gets a `destroy_value` at the top of its block, since its consuming
//! users are deleted; a dead phi with ownership is erased, and each predecessor that passed
//! it a live value ends that value's lifetime before its branch (`destroy_value` of an owned
//! value, `end_borrow` of a borrow scope it reborrowed).
//!
//! The ownership of a value is inferred from its definition, conservatively: a repair is
//! made only when the value is known to be `@owned` (or, for `end_borrow`, a local borrow
//! scope). Not done (Swift does them): keeping borrow scopes alive across reborrows and
//! guaranteed phis (`processBorrow`, `guaranteedPhiDependencies`), lifetime completion.

use super::types::{is_trivial_type, operand_type};
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
    /// `end_borrow %b` of a borrow scope a dead phi would have ended.
    EndBorrow,
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
        EndKind::EndBorrow => (SilOp::EndBorrow, "end_borrow "),
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

/// Whether the parameter `index` of `block` is a phi: every predecessor passes it explicitly
/// with `br`/`cond_br` (not the entry's function arguments, not a terminator's result).
pub(crate) fn is_phi(f: &Function, preds: &[crate::ir::BlockId], block: crate::ir::BlockId) -> bool {
    f.entry() != Some(block)
        && !preds.is_empty()
        && preds.iter().all(|&p| {
            f.blocks[p].term.is_some_and(|t| matches!(f.insts[t].op, Op::Sil(SilOp::Br | SilOp::CondBr)))
        })
}

/// The ownership a block parameter is annotated with.
pub(crate) fn param_ownership(f: &Function, v: ValueId) -> Ownership {
    let Some(d) = f.values.get(v) else { return Ownership::Unknown };
    if let Some(Type::Sil(t)) = &d.ty {
        if trivial_or_address(t) {
            return Ownership::None;
        }
    }
    match d.ownership.as_deref() {
        Some("owned") => Ownership::Owned,
        Some("guaranteed") => Ownership::Guaranteed,
        None => Ownership::None,
        Some(_) => Ownership::Unknown,
    }
}

/// Whether `v` opens a borrow scope of its own that an `end_borrow` closes (Swift's
/// `BorrowedValue::isLocalScope`): a `begin_borrow` or `load_borrow` result, or a reborrow.
pub(crate) fn is_local_borrow(f: &Function, v: ValueId) -> bool {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result { inst, .. }) => {
            f.insts.get(inst).is_some_and(|i| matches!(i.op, Op::Sil(SilOp::BeginBorrow | SilOp::LoadBorrow)))
        }
        _ => false,
    }
}

/// The branch's printed form rebuilt from its operands (after a phi argument is erased):
/// `br bb1(%a : $T, …)`, `cond_br %c, bb1(…), bb2(…)`. Types are the target parameters'.
pub(crate) fn branch_pieces(f: &Function, inst: &Inst) -> Option<Vec<crate::ir::Piece>> {
    use crate::ir::Piece;
    let mut out = Vec::new();
    let push_succ = |out: &mut Vec<Piece>, s: u32| {
        out.push(Piece::Succ(s));
        let Some(succ) = inst.succs.get(s as usize) else { return };
        if succ.args.is_empty() {
            return;
        }
        out.push(Piece::Text("(".into()));
        for j in 0..succ.args.len() {
            if j > 0 {
                out.push(Piece::Text(", ".into()));
            }
            out.push(Piece::SuccArg(s, j as u32));
            let ty = f.blocks.get(succ.block).and_then(|b| b.params.get(j)).and_then(|&p| f.values[p].ty.as_ref());
            if let Some(ty) = ty {
                out.push(Piece::Text(format!(" : {ty}")));
            }
        }
        out.push(Piece::Text(")".into()));
    };
    match inst.op {
        Op::Sil(SilOp::Br) if inst.succs.len() == 1 => {
            out.push(Piece::Text("br ".into()));
            push_succ(&mut out, 0);
        }
        Op::Sil(SilOp::CondBr) if inst.succs.len() == 2 && !inst.args.is_empty() => {
            out.push(Piece::Text("cond_br ".into()));
            out.push(Piece::Arg(0));
            out.push(Piece::Text(", ".into()));
            push_succ(&mut out, 0);
            out.push(Piece::Text(", ".into()));
            push_succ(&mut out, 1);
        }
        _ => return None,
    }
    Some(out)
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
