//! Which `alloc_stack` slots can become SSA values: Swift's `isCaptured` and
//! `isLoadableType` checks, made conservative. A slot is promoted when it is not
//! `[dynamic_lifetime]`, holds a trivial type, and its address is used only by `load`
//! (`[trivial]` or unqualified), `store` to it (`[trivial]` or unqualified), `debug_value`
//! of the address and `dealloc_stack`. Any other use may read or write the slot where the
//! pass cannot see it, so the slot stays in memory.

use super::trace::{Reason, SlotInfo};
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{BlockId, Function, InstId, Op, SilOp, Type, ValueDef, ValueId};
use crate::sil::types::FunctionTypes;

/// What a slot's address is used by, each with its block (in layout order).
#[derive(Clone, Debug, Default)]
pub struct Uses {
    pub loads: Vec<(BlockId, InstId)>,
    pub stores: Vec<(BlockId, InstId)>,
    /// `debug_value`s of the address and `dealloc_stack`s: deleted with the slot.
    pub others: Vec<(BlockId, InstId)>,
}

/// A slot and, when it can be promoted, its uses; otherwise why not.
pub struct Candidate {
    pub info: SlotInfo,
    pub block: BlockId,
    pub verdict: Result<Uses, Reason>,
}

/// Every placed `alloc_stack` of `f`, in layout order, with its verdict.
pub fn candidates(f: &Function, types: &FunctionTypes) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    // Per value: the candidate whose address it is (index + 1; 0 for none).
    let mut slot_of: EntityVec<ValueId, u32> = EntityVec::filled(f.values.len(), 0);
    for (b, i) in f.placed_insts() {
        let inst = &f.insts[i];
        if inst.op != Op::Sil(SilOp::AllocStack) {
            continue;
        }
        let Some(&addr) = inst.results.first() else { continue };
        if addr.index() >= f.values.len() || f.values[addr].def != (ValueDef::Result { inst: i, index: 0 }) {
            continue;
        }
        let text = match &inst.ty {
            Some(Type::Sil(t)) => Some(t.as_str().trim().to_string()),
            _ => None,
        };
        let verdict = match &text {
            _ if inst.attrs.iter().any(|a| a == "dynamic_lifetime") => Err(Reason::DynamicLifetime),
            None => Err(Reason::NoType),
            Some(t) if t.starts_with('*') || !types.is_trivial(t) => {
                Err(Reason::NotTrivial { ty: t.clone(), class: types.class_of(t).word().to_string() })
            }
            Some(_) => Ok(Uses::default()),
        };
        out.push(Candidate {
            info: SlotInfo { alloc: i, addr, ty: text.map(|t| Type::Sil(t.into())) },
            block: b,
            verdict,
        });
        slot_of[addr] = out.len() as u32;
    }
    if out.is_empty() {
        return out;
    }
    for (b, i) in f.placed_insts() {
        let inst = &f.insts[i];
        let mentions = |v: ValueId| slot_of.get(v).copied().unwrap_or(0);
        for (k, v) in inst.uses().enumerate() {
            let s = mentions(v);
            if s == 0 {
                continue;
            }
            let c = &mut out[s as usize - 1];
            let Ok(uses) = &mut c.verdict else { continue };
            let as_operand = k < inst.args.len();
            let only_attr = |allowed: &str| inst.attrs.iter().find(|a| a.as_str() != allowed).cloned();
            let op = inst.op.name().to_string();
            let verdict = match inst.op {
                Op::Sil(SilOp::Load) if as_operand && k == 0 && inst.args.len() == 1 => match only_attr("trivial") {
                    Some(attr) => Err(Reason::Qualifier { inst: i, op, attr }),
                    None => Ok(&mut uses.loads),
                },
                // The destination of a store; an address stored as a value escapes.
                Op::Sil(SilOp::Store) if as_operand && k == 1 && inst.args.len() == 2 && inst.args[0] != v => {
                    match only_attr("trivial") {
                        Some(attr) => Err(Reason::Qualifier { inst: i, op, attr }),
                        None => Ok(&mut uses.stores),
                    }
                }
                Op::Sil(SilOp::DebugValue | SilOp::DeallocStack) if as_operand && k == 0 && inst.args.len() == 1 => {
                    Ok(&mut uses.others)
                }
                _ => Err(Reason::Escapes { inst: i, op }),
            };
            match verdict {
                Ok(list) => list.push((b, i)),
                Err(r) => c.verdict = Err(r),
            }
        }
    }
    out
}
