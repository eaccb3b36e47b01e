//! Memory to registers on SIL: Swift's Mem2Reg (`lib/SILOptimizer/Transforms/
//! SILMem2Reg.cpp`), which is SSA construction after Cytron, Ferrante, Rosen, Wegman, Zadeck,
//! "Efficiently Computing Static Single Assignment Form and the Control Dependence Graph"
//! (TOPLAS 13(4), 1991), with a stack slot in the role of a variable: its stores are the
//! assignments, its loads the reads, and SIL's block arguments its φs.
//!
//! - `slots.rs`: which `alloc_stack`s can be promoted (trivial type, address used only by
//!   loads, stores, `debug_value` and `dealloc_stack`), and why the others cannot;
//! - `place.rs`: block arguments at the iterated dominance frontier of the stores, pruned
//!   where the slot is not live (the liveness of `ssa/live.rs`, as Swift prunes);
//! - `rename.rs`: the walk along the dominator tree replacing loads and deleting stores;
//! - `trace.rs`: the events, [`apply_event`] (shared by the pass and the replay) and
//!   [`replay_to`]; `steps.rs`: one sentence per event.
//!
//! Where Swift splits a critical edge whose terminator cannot take arguments
//! (`switch_enum`, `checked_cast_br`, …), this pass leaves the slot in memory and says why:
//! it keeps the CFG as it is, so the view's drawings before and after are the same graph.

mod pass;
mod place;
mod rename;
mod slots;
mod steps;
mod trace;

#[cfg(test)]
mod tests;

pub use pass::{Mem2Reg, MEM2REG_PASS};
pub use steps::step_texts;
pub use trace::{apply_event, replay_to, state_at, Event, Frontier, Hole, Reason, ReplayError, SlotInfo, State, Trace};

use crate::entity::{EntityRef, EntityVec};
use crate::ir::{BlockId, Function, Lang, Op, SilOp, ValueId};
use crate::passes::Analyses;
use serde::Serialize;
use std::sync::Arc;

/// Why the pass produced nothing. The messages are for users.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mem2RegError {
    #[error("`{function}` is Bril, whose variables are not memory: use SSA construction (`ssa`)")]
    NotSil { function: String },
    #[error("Mem2Reg does not run on `{function}`: {message}")]
    NotSsa { function: String, message: String },
    #[error("internal error in Mem2Reg on `{function}`: {message}")]
    Internal { function: String, message: String },
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub insts_before: usize,
    pub insts_after: usize,
    /// `alloc_stack`s looked at.
    pub slots: usize,
    pub promoted: usize,
    /// Block arguments added (φs).
    pub args: usize,
    /// Frontier blocks where a slot is dead (no argument: pruned).
    pub pruned: usize,
    pub loads: usize,
    pub stores: usize,
    /// `undef`s written where nothing was stored on the way.
    pub undefs: usize,
}

#[derive(Clone, Debug)]
pub struct Mem2RegOutput {
    pub function: Arc<Function>,
    pub trace: Trace,
    pub stats: Stats,
}

/// Promotes the trivial, non-escaping `alloc_stack` slots of `f` to SSA values. `f` must
/// verify and `a` be its analyses.
pub fn mem2reg(f: &Function, a: &Analyses) -> Result<Mem2RegOutput, Mem2RegError> {
    if f.lang != Lang::Sil {
        return Err(Mem2RegError::NotSil { function: f.name.clone() });
    }
    let internal = |message: String| Mem2RegError::Internal { function: f.name.clone(), message };
    // Its output is checked for SSA dominance; an input that already breaks it (a value used
    // before its definition) is the user's to fix, not the pass's failure.
    if let Err(d) = crate::dom::verify_ssa(f, &a.cfg, &a.dom) {
        let message = d.iter().next().map_or_else(|| "a value is used where its definition does not dominate".to_string(), |d| d.message.clone());
        return Err(Mem2RegError::NotSsa { function: f.name.clone(), message });
    }
    let cands = slots::candidates(f, a.types(f));
    let mut trace = Trace { slots: cands.iter().map(|c| c.info.clone()).collect(), events: Vec::new() };
    let mut g = f.clone();
    let preds = all_preds(f);
    let mut placer = place::Placer::new(f);
    let mut names = crate::ir::NumberedNames::new(f);
    let mut args_at: EntityVec<BlockId, Vec<(u32, ValueId)>> = EntityVec::filled(f.blocks.len(), Vec::new());
    let mut promoted: Vec<rename::Promoted> = Vec::new();
    let mut pruned = 0;
    for (k, c) in cands.into_iter().enumerate() {
        let slot = k as u32;
        let uses = match c.verdict {
            Err(reason) => {
                trace.events.push(Event::Rejected { slot, reason });
                continue;
            }
            Ok(uses) => uses,
        };
        trace.events.push(Event::Chosen { slot, loads: uses.loads.len() as u32, stores: uses.stores.len() as u32 });
        let start = trace.events.len();
        let blocks = placer.place(f, a, slot, &uses, &mut trace.events);
        if let Some(reason) = blocks.iter().find_map(|&b| refuses_argument(f, &preds, b)) {
            trace.events.push(Event::Rejected { slot, reason });
            continue;
        }
        pruned += trace.events[start..].iter().filter(|e| matches!(e, Event::Frontier { outcome: Frontier::Dead, .. })).count();
        let p = promoted.len() as u32;
        for b in blocks {
            let value = ValueId::new(g.values.len());
            let e = Event::AddArg { slot, block: b, value, name: names.fresh() };
            apply_event(&mut g, &trace, &e).map_err(|e| internal(e.to_string()))?;
            trace.events.push(e);
            args_at[b].push((p, value));
        }
        promoted.push(rename::Promoted { slot, block: c.block, uses });
    }
    rename::rename(&mut g, &a.dom, &mut trace, &promoted, &args_at).map_err(|e| internal(e.to_string()))?;
    // What is left of each slot: the `debug_value`s and `dealloc_stack`s of its address, and
    // the `alloc_stack` itself.
    for p in &promoted {
        let info = &trace.slots[p.slot as usize];
        let mut dels: Vec<(BlockId, crate::ir::InstId)> = p.uses.others.clone();
        dels.push((p.block, info.alloc));
        for (block, inst) in dels {
            let e = Event::Delete { slot: p.slot, block, inst };
            apply_event(&mut g, &trace, &e).map_err(|e| internal(e.to_string()))?;
            trace.events.push(e);
        }
    }
    crate::passes::shrink(&mut g);
    if let Err(d) = crate::ir::verify(&g) {
        return Err(internal(format!("the result does not verify ({})", crate::passes::first_message(&d))));
    }
    let cfg = crate::cfg::Cfg::new(&g);
    let dom = crate::dom::DomTree::dominators(&g, &cfg);
    if let Err(d) = crate::dom::verify_ssa(&g, &cfg, &dom) {
        return Err(internal(format!("a use is not dominated by its definition ({})", crate::passes::first_message(&d))));
    }
    let count = |f: &Function| f.placed_insts().count();
    let ev = |pred: fn(&Event) -> bool| trace.events.iter().filter(|e| pred(e)).count();
    let undefs = trace
        .events
        .iter()
        .map(|e| match e {
            Event::ReplaceLoad { value: None, uses, .. } => uses.len(),
            Event::PassArg { value: None, .. } => 1,
            _ => 0,
        })
        .sum();
    let stats = Stats {
        insts_before: count(f),
        insts_after: count(&g),
        slots: trace.slots.len(),
        promoted: promoted.len(),
        args: ev(|e| matches!(e, Event::AddArg { .. })),
        pruned,
        loads: ev(|e| matches!(e, Event::ReplaceLoad { .. })),
        stores: ev(|e| matches!(e, Event::RemoveStore { .. })),
        undefs,
    };
    Ok(Mem2RegOutput { function: Arc::new(g), trace, stats })
}

/// Per block, the blocks whose terminators branch to it (each once), over every placed
/// block — also those the entry does not reach, whose branches must pass arguments too.
fn all_preds(f: &Function) -> EntityVec<BlockId, Vec<BlockId>> {
    let mut preds: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(f.blocks.len(), Vec::new());
    for &b in &f.layout {
        let Some(t) = f.blocks.get(b).and_then(|blk| blk.term) else { continue };
        for s in &f.insts[t].succs {
            if s.block.index() < f.blocks.len() && !preds[s.block].contains(&b) {
                preds[s.block].push(b);
            }
        }
    }
    preds
}

/// Why `block` cannot get a new argument, if it cannot: it is the entry, or an edge into it
/// comes from a terminator other than `br` and `cond_br`.
fn refuses_argument(f: &Function, preds: &EntityVec<BlockId, Vec<BlockId>>, block: BlockId) -> Option<Reason> {
    if f.entry() == Some(block) {
        return Some(Reason::Entry { block });
    }
    for &p in preds.get(block)? {
        let Some(t) = f.blocks[p].term else { continue };
        let inst = &f.insts[t];
        let ok = match inst.op {
            Op::Sil(SilOp::Br) => inst.succs.len() == 1,
            Op::Sil(SilOp::CondBr) => inst.succs.len() == 2 && !inst.args.is_empty(),
            _ => false,
        };
        if !ok {
            return Some(Reason::Edge { block, pred: p, op: inst.op.name().to_string() });
        }
    }
    None
}

