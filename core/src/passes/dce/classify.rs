//! Which instructions are live by themselves (roots), which are live only if a value is
//! (reverse dependencies), and which need a live user.
//!
//! The roots are the article's condition 1 (seed 000: "関数からの戻り、副作用を生じる可能性
//! がある文") refined the way Swift's `seemsUseful` and `DCE::markLive` refine it; the
//! reverse dependencies are the seed's "Reverse dependency" section, which the seed's own
//! implementation skipped and Swift's test files check.

use super::trace::RootKind;
use crate::sil::types::operand::operand_type;
use crate::sil::types::FunctionTypes;
use crate::ir::{BrilOp, Function, Inst, InstId, Op, SilOp, ValueDef, ValueId};

/// What marking needs to know about one instruction before propagation starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Live by itself.
    Root(RootKind),
    /// Live if and only if this value (its defining instruction or parameter) is live.
    Reverse(ValueId),
    /// Live only if something live needs it.
    Normal,
}

pub(crate) use crate::sil::ownership::is_ossa;

pub(crate) fn classify(f: &Function, i: InstId, ossa: bool, types: &FunctionTypes) -> Class {
    let inst = &f.insts[i];
    match &inst.op {
        Op::Bril(op) => classify_bril(op, inst),
        Op::Sil(op) => classify_sil(f, op, inst, ossa, types),
    }
}

fn classify_bril(op: &BrilOp, inst: &Inst) -> Class {
    match op {
        BrilOp::Ret => Class::Root(RootKind::FunctionExit),
        // Branches live only through control dependence; `jmp` is never deleted by itself.
        BrilOp::Jmp | BrilOp::Br => Class::Normal,
        // A guard may roll the variables back and jump: an effect, whatever its condition.
        BrilOp::Guard => Class::Root(RootKind::SideEffect),
        BrilOp::Other(_) => Class::Root(RootKind::Unknown),
        _ => match inst.effect() {
            crate::ir::Effect::SideEffect => Class::Root(RootKind::SideEffect),
            _ => Class::Normal,
        },
    }
}

fn classify_sil(f: &Function, op: &SilOp, inst: &Inst, ossa: bool, types: &FunctionTypes) -> Class {
    let arg0 = inst.args.first().copied();
    // The result of a lexical lifetime must stay (Swift: `result->isLexical()`).
    if inst.attrs.iter().any(|a| a == "lexical") {
        return Class::Root(RootKind::Lexical);
    }
    match op {
        SilOp::Return | SilOp::Throw | SilOp::Unreachable => Class::Root(RootKind::FunctionExit),
        // A call: its effects are unknown.
        SilOp::TryApply => Class::Root(RootKind::SideEffect),
        SilOp::Br | SilOp::CondBr | SilOp::SwitchEnum => Class::Normal,
        SilOp::CondFail => match arg0.and_then(|c| overflow_producer(f, c)) {
            // `cond_fail` of `tuple_extract` of a builtin's result checks that builtin's
            // overflow: without the arithmetic there is nothing to check.
            Some(result) => Class::Reverse(result),
            None => Class::Root(RootKind::SideEffect),
        },
        SilOp::FixLifetime => match arg0 {
            Some(v) if operand_is_trivial_scalar(f, inst, 0, v, types) => Class::Reverse(v),
            _ => Class::Root(RootKind::FixLifetime),
        },
        SilOp::EndLifetime => match arg0 {
            Some(v) if !operand_is_address(f, inst, 0, v) => Class::Reverse(v),
            _ => Class::Root(RootKind::AddressEndLifetime),
        },
        // Scope and lifetime ends live exactly as long as what they end.
        SilOp::EndAccess | SilOp::DestroyValue | SilOp::EndBorrow => match arg0 {
            Some(v) => Class::Reverse(v),
            None => Class::Root(RootKind::SideEffect),
        },
        SilOp::DebugValue => match arg0 {
            Some(v) if is_function_argument_or_undef(f, v) => Class::Root(RootKind::DebugOfArgument),
            Some(v) => Class::Reverse(v),
            None => Class::Normal,
        },
        SilOp::BeginAccess if !ossa => Class::Root(RootKind::AccessScope),
        // Swift's `seemsUseful` exceptions: side-effecting on paper, but removable when
        // nothing live depends on them.
        SilOp::BeginAccess | SilOp::CopyValue | SilOp::UnconditionalCheckedCast => Class::Normal,
        SilOp::Load if inst.attrs.iter().any(|a| a == "copy") => Class::Normal,
        SilOp::Other(_) => Class::Root(RootKind::Unknown),
        _ => match inst.effect() {
            crate::ir::Effect::SideEffect | crate::ir::Effect::Terminator => Class::Root(RootKind::SideEffect),
            _ => Class::Normal,
        },
    }
}

/// `%c` = `tuple_extract %r, n` with `%r` the result of a `builtin`: returns `%r`.
fn overflow_producer(f: &Function, cond: ValueId) -> Option<ValueId> {
    let ValueDef::Result { inst: te, .. } = f.values.get(cond)?.def else { return None };
    let te = f.insts.get(te)?;
    if te.op != Op::Sil(SilOp::TupleExtract) {
        return None;
    }
    let r = *te.args.first()?;
    let ValueDef::Result { inst: b, .. } = f.values.get(r)?.def else { return None };
    (f.insts.get(b)?.op == Op::Sil(SilOp::Builtin)).then_some(r)
}

fn is_function_argument_or_undef(f: &Function, v: ValueId) -> bool {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Undef) => true,
        Some(ValueDef::Param { block, .. }) => f.entry() == Some(block),
        _ => false,
    }
}

fn operand_is_address(f: &Function, inst: &Inst, k: usize, v: ValueId) -> bool {
    // Unknown types count as addresses: the conservative side (the instruction stays).
    operand_type(f, inst, k, v).is_none_or(|t| t.trim_start().starts_with('*'))
}

fn operand_is_trivial_scalar(f: &Function, inst: &Inst, k: usize, v: ValueId, types: &FunctionTypes) -> bool {
    operand_type(f, inst, k, v).is_some_and(|t| types.is_trivial(&t))
}

/// Whether the terminator may be replaced by a jump when dead (the others are roots, or,
/// for `br`/`jmp`, never deleted on their own).
pub(crate) fn is_conditional_branch(op: &Op) -> bool {
    matches!(op, Op::Bril(BrilOp::Br) | Op::Sil(SilOp::CondBr | SilOp::SwitchEnum))
}

/// Whether the instruction is an unconditional branch (kept even when dead).
pub(crate) fn is_jump(op: &Op) -> bool {
    matches!(op, Op::Bril(BrilOp::Jmp) | Op::Sil(SilOp::Br))
}
