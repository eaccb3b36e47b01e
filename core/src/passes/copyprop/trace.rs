//! The copy propagation trace: the copy table, every round of the available-copies fixpoint
//! and every edit — and the replayer that rebuilds any step's program from the original.
//!
//! As for DCE, the pass makes its edits through [`apply_event`], so replaying the whole trace
//! on the original function gives exactly the pass's output (checked by the tests). The UI
//! never re-runs the analysis: [`Trace::avail_at_round`] rebuilds the table of any round from
//! the recorded changes.

use super::avail::CopyId;
use super::deferred::Deferred;
use crate::entity::{EntityRef, EntitySet};
use crate::ir::{BlockId, BrilOp, Function, Imm, InstId, Op, ValueId};
use serde::{Deserialize, Serialize};

/// One copy pair, for display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyInfo {
    pub id: CopyId,
    pub dest: ValueId,
    pub src: ValueId,
    /// `x = id y`.
    pub text: String,
    /// The instructions that make it.
    pub insts: Vec<InstId>,
}

crate::entity_id!(
    /// A held expression `t = OP a b` (every instruction computing it into `t`; see
    /// `remat.rs`). Displays as `h3`. Defined here, with the events that name it, so that
    /// the trace does not depend on the analysis.
    HeldId,
    "h"
);

/// One held expression, for display (see `remat.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldInfo {
    pub id: HeldId,
    /// The variable holding it.
    pub var: ValueId,
    /// `t = div n two`.
    pub text: String,
    /// The instructions that compute it (in the program after the rewrite and deletions).
    pub insts: Vec<InstId>,
}

/// One block's set changing in one round, as the copies the round removed from it (sets only
/// shrink, from ⊤). Round 1 lists none: it starts from ⊤, so what it removed is every copy
/// not in the set after it — the fixpoint plus what later rounds removed. Recording round 1's
/// removals, or whole old and new sets, costs blocks × copies (issue 17: out of memory at
/// 10^5 blocks).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetChange {
    pub block: BlockId,
    pub removed: Vec<CopyId>,
}

/// One round of the fixpoint: the blocks whose in-set and whose out-set changed. The engine
/// iterates the out-sets (in reverse postorder, listed in that order); the in-sets are the
/// meets of them at the end of the round (listed in layout order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AvailRound {
    pub ins: Vec<SetChange>,
    pub outs: Vec<SetChange>,
}

/// Per-block sets (indexed by block id, deleted blocks included).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSets {
    pub ins: Vec<EntitySet<CopyId>>,
    pub outs: Vec<EntitySet<CopyId>>,
}

/// Per-block lists of copies in increasing order (indexed by block id, deleted blocks
/// included): the fixpoint. A block the trace does not list as reachable has ⊤ (every copy)
/// and an empty list here.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockLists {
    pub ins: Vec<Vec<CopyId>>,
    pub outs: Vec<Vec<CopyId>>,
}

/// One link of a rewrite's justification: the copy and the instructions of it that reach the
/// rewritten use (each path's last assignment of its two variables is one of them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Via {
    pub copy: CopyId,
    pub insts: Vec<InstId>,
}

/// One edit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// Operand `operand` of `inst` (in `block`) reads `to` instead of `from`: the chain of
    /// copies `via` (`from ← …`, …, `… ← to`) is available just before `inst`. Of a long
    /// chain only the first [`super::rewrite::VIA_SHOWN`] links are recorded and `more`
    /// counts the rest, so a chain of n copies costs O(n) and not O(n²) across its uses.
    Rewrite {
        inst: InstId,
        block: BlockId,
        operand: u32,
        from: ValueId,
        to: ValueId,
        via: Vec<Via>,
        #[serde(default, skip_serializing_if = "is_zero")]
        more: u32,
    },
    /// The copy `inst` (in `block`) is deleted: its destination is not live after it. `round`
    /// counts the liveness rounds from 1; a copy deleted in round 2 or later became dead
    /// because an earlier deletion removed its last use.
    Delete { inst: InstId, block: BlockId, round: u32 },
    /// The copy `inst` (in `block`), `v = id from`, becomes `v = op args`: `from` holds
    /// `op args` on every path to it (the held expression `held`, computed by the
    /// instructions `via` that reach it) and none of them was assigned since. It comes after
    /// all rewrites and deletions (`remat.rs`).
    Rematerialize { inst: InstId, block: BlockId, held: HeldId, from: ValueId, op: BrilOp, args: Vec<ValueId>, via: Vec<InstId> },
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Event {
    /// The instruction the event edits.
    pub fn inst(&self) -> InstId {
        match self {
            Event::Rewrite { inst, .. } | Event::Delete { inst, .. } | Event::Rematerialize { inst, .. } => *inst,
        }
    }

    /// The block of that instruction.
    pub fn block(&self) -> BlockId {
        match self {
            Event::Rewrite { block, .. } | Event::Delete { block, .. } | Event::Rematerialize { block, .. } => *block,
        }
    }
}

/// The record of copy propagation on one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub function: String,
    /// Indexed by `CopyId`.
    pub copies: Vec<CopyInfo>,
    /// The blocks in layout order, with whether they are reachable (unreachable blocks are
    /// never rewritten; their sets are ⊤).
    pub blocks: Vec<(BlockId, bool)>,
    /// The sets at the fixpoint. Before the first round every set is ⊤ but the entry's
    /// in-set, ∅; each round's removals lead from the sets after it to the sets before it.
    pub fixpoint: Deferred<BlockLists>,
    pub rounds: Deferred<Vec<AvailRound>>,
    pub events: Vec<Event>,
    /// The held expressions of the program after the rewrite and the deletions, indexed by
    /// `HeldId` (what [`Event::Rematerialize`] refers to). Absent in traces from before
    /// rematerialisation existed.
    #[serde(default)]
    pub held: Vec<HeldInfo>,
}

impl Trace {
    /// The in- and out-sets after round `k` (`0`: before the first round; past the last
    /// round: the fixpoint).
    /// Built backwards: the fixpoint, plus what every round after `k` removed.
    pub fn avail_at_round(&self, k: usize) -> BlockSets {
        let (m, nb) = (self.copies.len(), self.fixpoint.ins.len().max(self.fixpoint.outs.len()));
        let full = EntitySet::new_full(m);
        let mut t = BlockSets { ins: vec![full.clone(); nb], outs: vec![full; nb] };
        let entry = self.blocks.first().map(|&(b, _)| b.index());
        if k == 0 {
            if let Some(s) = entry.and_then(|e| t.ins.get_mut(e)) {
                s.clear();
            }
            return t;
        }
        let fill = |s: &mut EntitySet<CopyId>, list: Option<&Vec<CopyId>>| {
            s.clear();
            for &c in list.into_iter().flatten() {
                if c.index() < m {
                    s.insert(c);
                }
            }
        };
        for &(b, reachable) in &self.blocks {
            let i = b.index();
            if reachable && i < nb {
                fill(&mut t.ins[i], self.fixpoint.ins.get(i));
                fill(&mut t.outs[i], self.fixpoint.outs.get(i));
            }
        }
        for r in self.rounds.iter().skip(k) {
            for (changes, sets) in [(&r.ins, &mut t.ins), (&r.outs, &mut t.outs)] {
                for ch in changes {
                    if let Some(s) = sets.get_mut(ch.block.index()) {
                        for &c in ch.removed.iter().filter(|c| c.index() < m) {
                            s.insert(c);
                        }
                    }
                }
            }
        }
        t
    }

    /// Which trace step shows which program: steps `0..=rounds` show the original, each later
    /// step one more event applied.
    pub fn events_at_step(&self, step: usize) -> usize {
        step.saturating_sub(self.rounds.len())
    }
}

/// A trace that does not fit the function it is replayed on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index} of the copy propagation trace does not apply: {problem}")]
pub struct ReplayError {
    pub index: usize,
    pub problem: String,
}

fn fail<T>(index: usize, problem: impl Into<String>) -> Result<T, ReplayError> {
    Err(ReplayError { index, problem: problem.into() })
}

/// Applies one event (`index` is its position, for errors). Checks that the event fits:
/// the instruction is where the event says and reads what it says.
pub fn apply_event(f: &mut Function, index: usize, e: &Event) -> Result<(), ReplayError> {
    match e {
        Event::Rewrite { inst, block, operand, from, to, .. } => {
            if f.blocks.get(*block).is_none_or(|b| !b.all_insts().any(|i| i == *inst)) {
                return fail(index, format!("{inst} is not in {block}"));
            }
            if to.index() >= f.values.len() {
                return fail(index, format!("no value {to}"));
            }
            match f.insts[*inst].args.get_mut(*operand as usize) {
                Some(v) if v == from => {
                    *v = *to;
                    Ok(())
                }
                _ => fail(index, format!("operand {operand} of {inst} is not {from}")),
            }
        }
        Event::Delete { inst, block, .. } => {
            let Some(b) = f.blocks.get_mut(*block) else { return fail(index, format!("no block {block}")) };
            let Some(pos) = b.insts.iter().position(|i| i == inst) else {
                return fail(index, format!("{inst} is not in {block}"));
            };
            b.insts.remove(pos);
            Ok(())
        }
        Event::Rematerialize { inst, block, from, op, args, .. } => {
            if f.blocks.get(*block).is_none_or(|b| !b.all_insts().any(|i| i == *inst)) {
                return fail(index, format!("{inst} is not in {block}"));
            }
            if let Some(v) = args.iter().find(|v| v.index() >= f.values.len()) {
                return fail(index, format!("no value {v}"));
            }
            let x = &mut f.insts[*inst];
            if x.op != Op::Bril(BrilOp::Id) || x.args.as_slice() != [*from] {
                return fail(index, format!("{inst} is not a copy of {from}"));
            }
            x.op = Op::Bril(op.clone());
            x.args = args[..].into();
            x.imm = Imm::None;
            Ok(())
        }
    }
}

/// The function after the first `k` events (all if `k` is larger).
pub fn try_replay_to(original: &Function, trace: &Trace, k: usize) -> Result<Function, ReplayError> {
    let mut g = original.clone();
    for (n, e) in trace.events.iter().take(k).enumerate() {
        apply_event(&mut g, n, e)?;
    }
    Ok(g)
}

/// [`try_replay_to`] that never fails: it stops before the first event that does not fit
/// (a trace of another function) and returns the function as it was there.
pub fn replay_to(original: &Function, trace: &Trace, k: usize) -> Function {
    match try_replay_to(original, trace, k) {
        Ok(g) => g,
        Err(e) => try_replay_to(original, trace, e.index).unwrap_or_else(|_| original.clone()),
    }
}
