//! Deleting the copies the rewrite left dead: `x = id y` whose `x` is not live after it, and
//! the copies the rewrite turned into `x = id x`.
//!
//! Liveness is the classic backward may-problem (dragon book §9.2.5): `in = use ∪ (out −
//! def)`, meet = union, nothing live after an exit. Only copies are deleted — any other dead
//! instruction is left for dead code elimination, so this pass never changes what DCE would
//! say about the rest of the program. Self-copies `x = id x` are not copies and stay.
//!
//! Deleting a copy removes a use of its source, which may make an earlier copy dead, so the
//! deletion repeats until a round deletes nothing. Within one round a block is walked
//! backwards and a deleted copy's operand is not counted as a use, so a chain of dead copies
//! inside one block goes in one round; chains across blocks take one round per link.
//!
//! A copy `x = id y` becomes `x = id x` when a copy `y ← x` reaches it (`y = id x; …; x = id
//! y`). It does nothing, yet `x` stays live, so liveness would keep it. It goes first, in
//! round 0: `x` was read by the copy `y = id x` on every path to it, so `x` is defined there
//! and dropping the self-copy cannot turn a run that failed on an undefined `x` into one that
//! does not. A self-copy already in the input carries no such guarantee and stays.

use super::avail::as_copy;
use super::trace::{apply_event, Event, ReplayError};
use crate::cfg::Cfg;
use crate::dataflow::{Analysis, Direction};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, InstId, ValueId};

/// Live variables, on the dataflow framework: the definition. The pass computes the same
/// live-out sets sparsely ([`live_outs`]); a test checks that they agree.
pub struct Liveness;

impl Analysis for Liveness {
    type Fact = EntitySet<ValueId>;

    fn direction(&self) -> Direction {
        Direction::Backward
    }
    fn init(&self, f: &Function) -> Self::Fact {
        EntitySet::new_empty(f.values.len())
    }
    /// Nothing is live once the function returns: a Bril variable dies with its frame.
    fn boundary(&self, f: &Function) -> Self::Fact {
        EntitySet::new_empty(f.values.len())
    }
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact) {
        into.union_with(other);
    }
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact {
        let mut live = input.clone();
        for i in f.blocks[block].all_insts().rev() {
            live_step(f, &mut live, i);
        }
        live
    }
}

/// `x = id x`.
fn is_self_copy(i: &crate::ir::Inst) -> bool {
    i.op == crate::ir::Op::Bril(crate::ir::BrilOp::Id) && i.args.len() == 1 && i.results.first() == i.args.first()
}

/// Live before `i` from live after it.
fn live_step(f: &Function, live: &mut EntitySet<ValueId>, i: InstId) {
    let inst = &f.insts[i];
    for &r in &inst.results {
        live.remove(r);
    }
    for v in inst.uses() {
        live.insert(v);
    }
}

/// The variables live at the end of each block (sorted), the least solution of
/// [`Liveness`] computed one variable at a time: from the blocks that read it before any
/// assignment backwards through predecessors, stopping at blocks that assign it. The cost is
/// the program's size plus the total size of the answer, where the dense solution took
/// blocks × variables bits per table and recorded every flipped bit (issue 17: 662 MiB at
/// 10^4 blocks, out of memory at 10^5).
pub(crate) fn live_outs(f: &Function, cfg: &Cfg) -> EntityVec<BlockId, Vec<ValueId>> {
    const NONE: u32 = u32::MAX;
    let (nb, nv) = (f.blocks.len(), f.values.len());
    // Per variable: the blocks reading it before assigning it, and the blocks assigning it.
    let mut exposed: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(nv, Vec::new());
    let mut assigned: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(nv, Vec::new());
    // `defined_in[v]`: the layout position of the last block seen assigning `v`.
    let mut defined_in: EntityVec<ValueId, u32> = EntityVec::filled(nv, NONE);
    for (pos, &b) in f.layout.iter().enumerate() {
        let mark = pos as u32;
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            for v in inst.uses() {
                if defined_in[v] != mark && exposed[v].last() != Some(&b) {
                    exposed[v].push(b);
                }
            }
            for &r in &inst.results {
                if defined_in[r] != mark {
                    defined_in[r] = mark;
                    assigned[r].push(b);
                }
            }
        }
    }
    let mut outs: EntityVec<BlockId, Vec<ValueId>> = EntityVec::filled(nb, Vec::new());
    // Stamps: the variable being propagated that last marked the block.
    let mut kills: EntityVec<BlockId, u32> = EntityVec::filled(nb, NONE);
    let mut live_in: EntityVec<BlockId, u32> = EntityVec::filled(nb, NONE);
    let mut live_out: EntityVec<BlockId, u32> = EntityVec::filled(nb, NONE);
    let mut work: Vec<BlockId> = Vec::new();
    for (v, blocks) in exposed.iter() {
        let stamp = v.index() as u32;
        for &b in &assigned[v] {
            kills[b] = stamp;
        }
        for &b in blocks {
            live_in[b] = stamp;
            work.push(b);
        }
        while let Some(b) = work.pop() {
            for &p in cfg.preds(b) {
                if live_out[p] != stamp {
                    live_out[p] = stamp;
                    outs[p].push(v);
                    if kills[p] != stamp && live_in[p] != stamp {
                        live_in[p] = stamp;
                        work.push(p);
                    }
                }
            }
        }
    }
    outs
}

/// Deletes dead copies from `g` until none is left; returns the events (with their rounds).
/// `cfg` is the graph of `g` (the rewrite and the deletions do not change control flow).
/// `first_index` is the number of events before these, for error positions. `original` is
/// the function before the rewrite: a self-copy the rewrite made is deleted, one it had is
/// not.
pub fn delete_dead_copies(g: &mut Function, original: &Function, cfg: &Cfg, first_index: usize) -> Result<Vec<Event>, ReplayError> {
    let mut events = Vec::new();
    let made_self: Vec<(InstId, BlockId)> = g
        .placed_insts()
        .filter(|&(_, i)| is_self_copy(&g.insts[i]) && original.insts.get(i).is_some_and(|o| !is_self_copy(o)))
        .map(|(b, i)| (i, b))
        .collect();
    for (inst, block) in made_self {
        let e = Event::Delete { inst, block, round: 0 };
        apply_event(g, first_index + events.len(), &e)?;
        events.push(e);
    }
    // Each round deletes at least one instruction, so there are at most as many rounds as
    // instructions; the bound only guards against a bug looping forever.
    for round in 1..=g.insts.len() as u32 + 1 {
        let outs = live_outs(g, cfg);
        // In program order, so the trace reads top to bottom: blocks in layout order, each
        // block's deletions (found walking backwards) reversed.
        let mut dead = Vec::new();
        // One scratch set for every block's walk, cleared of what the walk set.
        let mut live: EntitySet<ValueId> = EntitySet::new_empty(g.values.len());
        for &b in &g.layout {
            for &v in &outs[b] {
                live.insert(v);
            }
            let first = dead.len();
            for i in g.blocks[b].all_insts().rev() {
                if let Some((d, _)) = as_copy(&g.insts[i]) {
                    if !live.contains(d) {
                        // Deleted: it neither defines nor uses anything any more.
                        dead.push((i, b));
                        continue;
                    }
                }
                live_step(g, &mut live, i);
            }
            for &v in &outs[b] {
                live.remove(v);
            }
            for i in g.blocks[b].all_insts() {
                for v in g.insts[i].uses() {
                    live.remove(v);
                }
            }
            dead[first..].reverse();
        }
        if dead.is_empty() {
            break;
        }
        for (inst, block) in dead {
            let e = Event::Delete { inst, block, round };
            apply_event(g, first_index + events.len(), &e)?;
            events.push(e);
        }
    }
    Ok(events)
}
