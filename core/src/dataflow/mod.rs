//! A dataflow framework: an analysis is a direction, a meet, a transfer and a boundary
//! (after Bril's `df.py` and rustc's `rustc_mir_dataflow`); one engine iterates any of them to
//! a fixpoint and records every round's changes so the lab can replay the iteration.
//!
//! Two layers:
//! - [`solve`] is the bare engine: round-robin over a block order, re-evaluating each block's
//!   value from the current table until nothing changes. LCM's node-form equations (two
//!   mutually recursive predicates per block) use it directly.
//! - [`Analysis`] + [`run`] is the classic formulation on top of it: per block an entry and an
//!   exit fact, the meet over CFG neighbours, and a block transfer function.

mod reaching;

pub use reaching::{Def, DefId, DefSite, ReachingDefs};

use crate::cfg::Cfg;
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Forward,
    Backward,
}

/// One block's value changing in one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change<D> {
    pub block: BlockId,
    pub old: D,
    pub new: D,
}

/// One pass over all blocks; `changes` lists the blocks whose value changed, in visit order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round<D> {
    pub changes: Vec<Change<D>>,
}

/// The fixpoint and how it was reached. The last round always has no changes (it is the
/// round that proved the fixpoint), so `rounds.len() >= 1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution<D> {
    pub values: EntityVec<BlockId, D>,
    pub rounds: Vec<Round<D>>,
}

/// Round-robin iteration: starting from `init`, visit the blocks of `order` and replace each
/// block's value by `update(block, table)` (which sees the values updated earlier in the same
/// round, as Gauss–Seidel iteration does), until a round changes nothing.
///
/// `max_rounds` guards against an `update` that is not monotone: past it the engine stops and
/// returns what it has (the last round then has changes, which callers can detect).
pub fn solve<D: Clone + PartialEq>(
    order: &[BlockId],
    init: EntityVec<BlockId, D>,
    max_rounds: usize,
    mut update: impl FnMut(BlockId, &EntityVec<BlockId, D>) -> D,
) -> Solution<D> {
    let mut values = init;
    let mut rounds = Vec::new();
    for _ in 0..max_rounds.max(1) {
        let mut changes = Vec::new();
        for &b in order {
            let new = update(b, &values);
            if new != values[b] {
                let old = std::mem::replace(&mut values[b], new.clone());
                changes.push(Change { block: b, old, new });
            }
        }
        let done = changes.is_empty();
        rounds.push(Round { changes });
        if done {
            break;
        }
    }
    Solution { values, rounds }
}

/// A classic block-level analysis.
pub trait Analysis {
    /// A lattice element; usually an `EntitySet`.
    type Fact: Clone + PartialEq;

    fn direction(&self) -> Direction;
    /// The value every block starts from (⊥ for may-analyses, ⊤ for must-analyses).
    fn init(&self, f: &Function) -> Self::Fact;
    /// The value flowing into the entry (forward) or out of the exits (backward).
    fn boundary(&self, f: &Function) -> Self::Fact;
    /// `into ⊓= other`.
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact);
    /// The fact after `block` given the fact before it (in the analysis direction).
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact;
}

/// Entry and exit facts of every block, in program order (`ins[b]` holds at the start of `b`
/// whatever the direction), and the rounds of the iteration over the transfer outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts<F> {
    pub ins: EntityVec<BlockId, F>,
    pub outs: EntityVec<BlockId, F>,
    pub rounds: Vec<Round<F>>,
}

/// Runs `a` to its fixpoint: forward problems visit blocks in reverse postorder, backward
/// ones in postorder, so most facts settle in one or two rounds on reducible graphs.
/// Unreachable blocks are visited too (after the others), so every block gets a fact.
pub fn run<A: Analysis>(a: &A, f: &Function, cfg: &Cfg) -> Facts<A::Fact> {
    let n = f.blocks.len();
    let forward = a.direction() == Direction::Forward;
    let mut order: Vec<BlockId> = cfg.reverse_postorder().collect();
    order.extend(f.layout.iter().copied().filter(|&b| !cfg.is_reachable(b)));
    if !forward {
        order.reverse();
    }
    let init = a.init(f);
    let boundary = a.boundary(f);

    // The iterated value is each block's transfer output; its input is the meet over the
    // neighbours' outputs (or the boundary).
    let input_of = |b: BlockId, outs: &EntityVec<BlockId, A::Fact>| -> A::Fact {
        let neighbours: &[BlockId] = if forward { cfg.preds(b) } else { cfg.succs(b) };
        let is_boundary = if forward { Some(b) == f.entry() } else { f.is_exit_block(b) };
        let mut acc: Option<A::Fact> = is_boundary.then(|| boundary.clone());
        for &m in neighbours {
            match &mut acc {
                None => acc = Some(outs[m].clone()),
                Some(x) => a.meet(x, &outs[m]),
            }
        }
        acc.unwrap_or_else(|| init.clone())
    };
    let sol = solve(&order, EntityVec::filled(n, init.clone()), 10 * n + 10, |b, outs| {
        a.transfer(f, b, &input_of(b, outs))
    });
    let inputs: EntityVec<BlockId, A::Fact> =
        (0..n).map(|i| input_of(BlockId(i as u32), &sol.values)).collect();
    let (ins, outs) = if forward { (inputs, sol.values) } else { (sol.values, inputs) };
    Facts { ins, outs, rounds: sol.rounds }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_records_rounds_and_stops_at_the_fixpoint() {
        // A chain 0 → 1 → 2 propagating "reached" forward, visited in the worst order.
        let order = [BlockId(2), BlockId(1), BlockId(0)];
        let mut init = EntityVec::filled(3, false);
        init[BlockId(0)] = true;
        let sol = solve(&order, init, 100, |b, v| if b.0 == 0 { true } else { v[BlockId(b.0 - 1)] });
        assert_eq!(sol.values.as_slice(), &[true, true, true]);
        // Round 1 sets block 1, round 2 sets block 2, round 3 proves the fixpoint.
        assert_eq!(sol.rounds.len(), 3);
        assert_eq!(sol.rounds[0].changes.len(), 1);
        assert_eq!(sol.rounds[0].changes[0].block, BlockId(1));
        assert!(sol.rounds[2].changes.is_empty());
    }

    #[test]
    fn solve_gives_up_after_max_rounds_on_a_non_monotone_update() {
        let order = [BlockId(0)];
        let sol = solve(&order, EntityVec::filled(1, false), 5, |b, v| !v[b]);
        assert_eq!(sol.rounds.len(), 5);
        assert!(!sol.rounds.last().unwrap().changes.is_empty());
    }
}
