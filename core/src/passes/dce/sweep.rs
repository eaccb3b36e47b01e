//! The sweep: delete what marking left dead, keep the control flow that live code needs.
//!
//! In order (each step one kind of event, so the trace reads as phases):
//! 1. each dead conditional branch becomes a jump to its nearest post-dominator holding a
//!    live instruction (seed 000, "cond_brをbrに置き換える"), passing `undef` for that block's
//!    parameters — Swift's `replaceBranchWithJump`; then, in OSSA, dead block arguments with
//!    ownership are dealt with ([`super::ossa`]);
//! 2. dead instructions of the blocks still reachable are deleted (`br`/`jmp` never are);
//! 3. a live instruction that still reads a deleted value, and an edge passing a value to a
//!    dead block argument, get a fresh `undef` instead (seed 000, "使われていない引数を
//!    undefに置き換える");
//! 4. Bril: a block that falls through to a block that no longer follows it gets a `jmp`;
//! 5. blocks no longer reachable from the entry are removed.
//!
//! Every edit goes through [`apply_event`], the function the replayer uses.

use super::classify::{is_conditional_branch, is_ossa};
use super::types::operand_type;
use super::ossa::{is_local_borrow, is_phi, ownership, param_ownership, repairs, EndKind, Ownership};
use super::mark::{nearest_live_post_dominator, Liveness};
use super::trace::{apply_event, Event, Phase, ReplayError, Slot};
use crate::passes::Analyses;
use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet};
use crate::ir::{BlockId, Function, Lang, ValueDef, ValueId};

struct Sweeper<'a> {
    f: &'a mut Function,
    events: &'a mut Vec<Event>,
}

impl Sweeper<'_> {
    fn emit(&mut self, e: Event) -> Result<(), ReplayError> {
        apply_event(self.f, self.events.len(), &e)?;
        self.events.push(e);
        Ok(())
    }
}

pub(crate) fn sweep(
    f: &mut Function,
    a: &Analyses,
    live: &Liveness,
    events: &mut Vec<Event>,
) -> Result<(), ReplayError> {
    let mut s = Sweeper { f, events };
    s.events.push(Event::Phase { phase: Phase::Sweep });

    // 1. Dead conditional branches → jumps.
    for &b in a.cfg.blocks() {
        if !a.cfg.is_reachable(b) {
            continue;
        }
        let Some(t) = s.f.blocks[b].term else { continue };
        if live.insts.contains(t) || !is_conditional_branch(&s.f.insts[t].op) {
            continue;
        }
        let Some(target) = nearest_live_post_dominator(a, live, b) else { continue };
        let nparams = match s.f.lang {
            Lang::Sil => s.f.blocks[target].params.len(),
            Lang::Bril => 0,
        };
        let first = s.f.values.len();
        let undefs = (first..first + nparams).map(ValueId::new).collect();
        let new = s.f.insts.next_key();
        s.emit(Event::RewriteBranch { block: b, old: t, new, target, undefs })?;
    }

    // Reachability after the rewrites; it only shrinks (a rewrite jumps to a post-dominator,
    // which was reachable).
    let reachable = {
        let cfg = Cfg::new(s.f);
        let mut set = EntitySet::new_empty(s.f.blocks.len());
        for &b in cfg.blocks() {
            if cfg.is_reachable(b) {
                set.insert(b);
            }
        }
        set
    };
    let kept: Vec<BlockId> = s.f.layout.iter().copied().filter(|&b| reachable.contains(b)).collect();

    let ossa = is_ossa(s.f);
    if ossa {
        ossa_dead_arguments(&mut s, live, &reachable, &kept)?;
    }

    // 2. Dead instructions (in OSSA, ending the lifetimes they consumed first).
    for &b in &kept {
        // Only original instructions: the repairs inserted above are not in `live`.
        let dead: Vec<_> = s.f.blocks[b]
            .insts
            .iter()
            .copied()
            .filter(|&i| i.index() < live.block_of.len() && !live.insts.contains(i))
            .collect();
        for inst in dead {
            if ossa {
                let data = &s.f.insts[inst];
                let mut ends = Vec::new();
                for (kind, value) in repairs(s.f, data) {
                    if value_stays(s.f, live, value) {
                        let k = data.args.iter().position(|&a| a == value).unwrap_or(0);
                        let ty = operand_type(s.f, data, k, value).map(|t| match kind {
                            EndKind::DestroyAddr if !t.starts_with('*') => format!("*{t}"),
                            _ => t,
                        });
                        ends.push((kind, value, ty));
                    }
                }
                for (kind, value, ty) in ends {
                    let new = s.f.insts.next_key();
                    s.emit(Event::EndLifetime { block: b, before: Some(inst), new, value, kind, ty })?;
                }
            }
            s.emit(Event::Delete { inst, block: b })?;
        }
    }

    // 3. Reads of deleted values, and values passed to dead block arguments.
    if s.f.lang == Lang::Sil {
        for &b in &kept {
            let insts: Vec<_> = s.f.blocks[b].all_insts().collect();
            for i in insts {
                let mut slots = Vec::new();
                let inst = &s.f.insts[i];
                for (k, &v) in inst.args.iter().enumerate() {
                    if is_gone(s.f, live, &reachable, v) {
                        slots.push((Slot::Arg { index: k as u32 }, v));
                    }
                }
                for (si, succ) in inst.succs.iter().enumerate() {
                    let params = &s.f.blocks[succ.block].params;
                    for (k, &v) in succ.args.iter().enumerate() {
                        let param_dead = params.get(k).is_none_or(|&p| !live.args.contains(p));
                        if (param_dead || is_gone(s.f, live, &reachable, v)) && !is_undef(s.f, v) {
                            slots.push((Slot::SuccArg { succ: si as u32, index: k as u32 }, v));
                        }
                    }
                }
                for (slot, old) in slots {
                    let new = s.f.values.next_key();
                    s.emit(Event::Undef { inst: i, slot, old, new })?;
                }
            }
        }
    }

    // 4. Bril fall-through whose next block changes when unreachable blocks go.
    if s.f.lang == Lang::Bril {
        for (k, &b) in s.f.layout.clone().iter().enumerate() {
            if !reachable.contains(b) || s.f.blocks[b].term.is_some() {
                continue;
            }
            let old_next = s.f.layout.get(k + 1).copied();
            let new_next = kept.iter().position(|&x| x == b).and_then(|p| kept.get(p + 1).copied());
            if let Some(target) = old_next {
                if Some(target) != new_next {
                    let new = s.f.insts.next_key();
                    s.emit(Event::ExplicitJump { block: b, new, target })?;
                }
            }
        }
    }

    // 5. Unreachable blocks.
    for b in s.f.layout.clone() {
        if !reachable.contains(b) {
            s.emit(Event::RemoveBlock { block: b })?;
        }
    }
    Ok(())
}

/// Whether the value will not exist after the sweep: the result of a dead instruction, or a
/// parameter of a removed block.
fn is_gone(f: &Function, live: &Liveness, reachable: &EntitySet<BlockId>, v: ValueId) -> bool {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result { inst, .. }) => !live.insts.contains(inst),
        Some(ValueDef::Param { block, .. }) => !reachable.contains(block),
        _ => false,
    }
}

/// OSSA, for dead block arguments with ownership (see [`super::ossa`]): an owned non-phi gets
/// a `destroy_value` at the top of its block; a phi is erased after each predecessor ends the
/// lifetime of the live value it passed.
fn ossa_dead_arguments(
    s: &mut Sweeper<'_>,
    live: &Liveness,
    reachable: &EntitySet<BlockId>,
    kept: &[BlockId],
) -> Result<(), ReplayError> {
    for &b in kept {
        // The current predecessors (rewrites may have added some): placed blocks branching here.
        let preds: Vec<BlockId> = s
            .f
            .layout
            .iter()
            .copied()
            .filter(|&p| s.f.blocks[p].term.is_some_and(|t| s.f.insts[t].succs.iter().any(|x| x.block == b)))
            .collect();
        let phi = is_phi(s.f, &preds, b);
        let params = s.f.blocks[b].params.clone();
        // Highest index first, so each erasure leaves the indices still to visit unchanged.
        for (k, &p) in params.iter().enumerate().rev() {
            if live.args.contains(p) {
                continue;
            }
            let own = param_ownership(s.f, p);
            if !phi {
                if own == Ownership::Owned {
                    let before = s.f.blocks[b].insts.first().copied();
                    let ty = value_type(s.f, p);
                    let new = s.f.insts.next_key();
                    s.emit(Event::EndLifetime { block: b, before, new, value: p, kind: EndKind::DestroyValue, ty })?;
                }
                continue;
            }
            if own == Ownership::None || own == Ownership::Unknown {
                continue;
            }
            for &pred in &preds {
                if !reachable.contains(pred) {
                    continue;
                }
                let Some(t) = s.f.blocks[pred].term else { continue };
                let incoming: Vec<ValueId> = s.f.insts[t]
                    .succs
                    .iter()
                    .filter(|x| x.block == b)
                    .filter_map(|x| x.args.get(k).copied())
                    .collect();
                for x in incoming {
                    if !value_stays(s.f, live, x) {
                        continue;
                    }
                    let kind = match own {
                        Ownership::Owned if ownership(s.f, x) == Ownership::Owned => EndKind::DestroyValue,
                        Ownership::Guaranteed if is_local_borrow(s.f, x) => EndKind::EndBorrow,
                        _ => continue,
                    };
                    let ty = value_type(s.f, x).or_else(|| value_type(s.f, p));
                    let new = s.f.insts.next_key();
                    s.emit(Event::EndLifetime { block: pred, before: None, new, value: x, kind, ty })?;
                }
            }
            s.emit(Event::ErasePhi { block: b, index: k as u32, arg: p })?;
        }
    }
    Ok(())
}

fn value_type(f: &Function, v: ValueId) -> Option<String> {
    match f.values.get(v).and_then(|d| d.ty.as_ref()) {
        Some(crate::ir::Type::Sil(t)) => Some(t.clone()),
        _ => None,
    }
}

/// Whether a value survives the sweep and so needs its lifetime ended: a live instruction's
/// result or a live block argument.
fn value_stays(f: &Function, live: &Liveness, v: ValueId) -> bool {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result { inst, .. }) => live.insts.contains(inst),
        Some(ValueDef::Param { .. }) => live.args.contains(v),
        _ => false,
    }
}

fn is_undef(f: &Function, v: ValueId) -> bool {
    f.values.get(v).is_some_and(|d| d.def == ValueDef::Undef)
}
