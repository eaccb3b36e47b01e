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
//! The ownership of a value comes from the ownership analysis ([`crate::sil::ownership`]) of
//! the function as it was before the sweep, conservatively: a repair is made only when the
//! value is known to be `@owned` (a kind the analysis had to assume for an unmodelled
//! instruction counts as unknown), or, for `end_borrow`, a local borrow scope. Not done (Swift
//! does them): keeping borrow scopes alive across reborrows and guaranteed phis
//! (`processBorrow`, `guaranteedPhiDependencies`), lifetime completion.

use crate::ir::{Function, Inst, Op, SilOp, Type, ValueDef, ValueId};
use crate::passes::Analyses;
use crate::sil::ownership::{self, FunctionOwnership, Kind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// Trivial values, addresses, `undef`.
    None,
    Owned,
    Guaranteed,
    /// Unowned values, and kinds the analysis could only assume.
    Unknown,
}

/// The ownership of the values of the function being swept, computed once before the sweep
/// (the sweep deletes instructions and adds `undef`s, but never redefines a value, so what it
/// asks about keeps the kind it had).
pub(crate) struct Kinds<'a>(Option<&'a FunctionOwnership>);

impl<'a> Kinds<'a> {
    pub(crate) fn new(f: &Function, a: &'a Analyses) -> Kinds<'a> {
        Kinds(if ownership::is_ossa(f) { a.ownership(f).map(|o| &**o) } else { None })
    }

    pub(crate) fn of(&self, v: ValueId) -> Ownership {
        let Some(fo) = self.0 else { return Ownership::Unknown };
        match fo.value(v) {
            // A value the analysis never saw: an `undef` a rewritten branch passes.
            None => Ownership::None,
            Some(info) if info.assumed => Ownership::Unknown,
            Some(info) => match info.kind {
                Kind::None => Ownership::None,
                Kind::Owned => Ownership::Owned,
                Kind::Guaranteed => Ownership::Guaranteed,
                Kind::Unowned => Ownership::Unknown,
            },
        }
    }
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
pub(crate) fn repairs(kinds: &Kinds, inst: &Inst) -> Vec<(EndKind, ValueId)> {
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
        | SilOp::DropDeinit => owned_operands(kinds, &inst.args),
        // Only the forwarded value is consumed, not the base it depends on.
        SilOp::MarkDependence => owned_operands(kinds, &inst.args[..inst.args.len().min(1)]),
        _ => Vec::new(),
    }
}

fn owned_operands(kinds: &Kinds, args: &[ValueId]) -> Vec<(EndKind, ValueId)> {
    let mut out: Vec<(EndKind, ValueId)> = Vec::new();
    for &a in args {
        if kinds.of(a) == Ownership::Owned && !out.iter().any(|(_, v)| *v == a) {
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
        Some(Type::Sil(t)) => Some(t.to_string()),
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


