//! A dataflow framework: an analysis is a direction, a meet, a transfer and a boundary
//! (after Bril's `df.py` and rustc's `rustc_mir_dataflow`); one engine iterates any of them to
//! a fixpoint and records every round's changes so the lab can replay the iteration.
//!
//! Two layers:
//! - [`iterate`] is the bare engine: round-robin over a block order, re-evaluating each
//!   block's value in place from the current table until nothing changes, and handing each
//!   change to the caller; [`solve`] records the changes as diffs ([`Lattice`]).
//!   [`iterate_rows`] is the same engine over bit rows of one flat vector of words: LCM's
//!   node-form equations (two mutually recursive predicates per block) use it directly and
//!   record their own trace.
//! - [`Analysis`] + [`run`] is the classic formulation on top of it: per block an entry and an
//!   exit fact, the meet over CFG neighbours, and a block transfer function.

mod reaching;

pub use reaching::{Def, DefId, DefSite, ReachingDefs};

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Forward,
    Backward,
}

/// A value the engine can record changes of as a diff rather than as copies: a trace of a
/// fixpoint over a function of `n` blocks would otherwise keep two whole values per change,
/// which for a bit set over the program's definitions is quadratic (issue 17: 2.86 GiB at
/// 3×10^4 blocks).
pub trait Lattice: PartialEq {
    /// What a recorded change keeps.
    type Delta: Clone + std::fmt::Debug + PartialEq;
    /// The change that turns `old` into `new`.
    fn delta(old: &Self, new: &Self) -> Self::Delta;
    /// Applies a change recorded from a value equal to `self`.
    fn apply(&mut self, delta: &Self::Delta);
}

/// A bit set's change is the list of the bits that flipped (in increasing order): applying
/// it toggles them, so the old and the new value can both be rebuilt from the start value.
impl<K: EntityRef> Lattice for EntitySet<K> {
    type Delta = Vec<K>;
    fn delta(old: &Self, new: &Self) -> Vec<K> {
        old.symmetric_difference(new).collect()
    }
    fn apply(&mut self, delta: &Vec<K>) {
        for &k in delta {
            self.toggle(k);
        }
    }
}

/// A boolean changes only by flipping.
impl Lattice for bool {
    type Delta = ();
    fn delta(_old: &Self, _new: &Self) {}
    fn apply(&mut self, _delta: &()) {
        *self = !*self;
    }
}

/// One block's value changing in one round: `delta` turns the value it had into the value it
/// got (see [`Lattice`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change<T> {
    pub block: BlockId,
    pub delta: T,
}

/// One pass over all blocks; `changes` lists the blocks whose value changed, in visit order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round<T> {
    pub changes: Vec<Change<T>>,
}

/// The fixpoint and how it was reached. The last round always has no changes (it is the
/// round that proved the fixpoint), so `rounds.len() >= 1`. Replaying the rounds' deltas on
/// the start table, in order, gives every intermediate table.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution<D: Lattice> {
    pub values: EntityVec<BlockId, D>,
    pub rounds: Vec<Round<D::Delta>>,
}

/// How an in-place iteration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iterated {
    /// Rounds run, the last one included.
    pub rounds: usize,
    /// Whether the last round changed nothing.
    pub converged: bool,
}

/// The engine, in place: round-robin over `order`, each block's new value written by
/// `update(block, table, out)` into a scratch value (which sees the values updated earlier
/// in the same round, as Gauss–Seidel iteration does, and must overwrite all of `out`),
/// until a round changes nothing. A changed value is swapped into the table — no copy, no
/// allocation per visit — and `on_change(round, block, old, new)` decides what to record.
///
/// `max_rounds` guards against an `update` that is not monotone: past it the engine stops
/// (the result then says `converged: false`).
pub fn iterate<D: PartialEq>(
    order: &[BlockId],
    values: &mut EntityVec<BlockId, D>,
    mut scratch: D,
    max_rounds: usize,
    mut update: impl FnMut(BlockId, &EntityVec<BlockId, D>, &mut D),
    mut on_change: impl FnMut(usize, BlockId, &D, &D),
) -> Iterated {
    for round in 0..max_rounds.max(1) {
        let mut changed = false;
        for &b in order {
            update(b, values, &mut scratch);
            if scratch != values[b] {
                std::mem::swap(&mut values[b], &mut scratch);
                on_change(round, b, &scratch, &values[b]);
                changed = true;
            }
        }
        if !changed {
            return Iterated { rounds: round + 1, converged: true };
        }
    }
    Iterated { rounds: max_rounds.max(1), converged: false }
}

/// [`iterate`] over a table of bit rows in one flat vector of words: block `b`'s value is
/// `table[b·stride .. (b+1)·stride]` (LCM's two node-form predicates of a block side by side).
///
/// Why a second engine: with a value per block on the heap (`EntitySet`) every visit follows
/// a pointer per operand and every equation is a call per set operation; here a block's
/// neighbours are rows of one vector and `update` writes its new row with plain word loops.
/// The new row goes into `scratch` (`stride` words, wholly overwritten), is compared with
/// the old one word by word, and copied over it when it differs — after
/// `on_change(round, block, old, new)` has recorded what it wants.
///
/// `dependents(b)` are the blocks whose `update` reads `b`'s row (every one of them: the
/// predecessors for a backward problem, the successors for a forward one). A block none of
/// whose inputs changed since its last visit is skipped, since `update` would give its row
/// again: the rounds, the changes and their order are round-robin's, but after the first
/// round a visit costs only where something changed (LCM's later rounds change a few blocks
/// in a hundred).
pub fn iterate_rows<'d>(
    order: &[BlockId],
    table: &mut [u64],
    stride: usize,
    max_rounds: usize,
    dependents: impl Fn(BlockId) -> &'d [BlockId],
    mut update: impl FnMut(BlockId, &[u64], &mut [u64]),
    mut on_change: impl FnMut(usize, BlockId, &[u64], &[u64]),
) -> Iterated {
    let mut scratch = vec![0u64; stride];
    let blocks = order.iter().map(|b| b.index() + 1).max().unwrap_or(0).max(table.len() / stride.max(1));
    // `stale[b]`: some input of `b` changed since `b` was last visited (all, before round 1).
    let mut stale = vec![true; blocks];
    for round in 0..max_rounds.max(1) {
        let mut changed = false;
        for &b in order {
            if !std::mem::replace(&mut stale[b.index()], false) {
                continue;
            }
            update(b, table, &mut scratch);
            let row = &mut table[b.index() * stride..][..stride];
            if row.iter().zip(&scratch).fold(0, |acc, (x, y)| acc | (x ^ y)) != 0 {
                on_change(round, b, row, &scratch);
                row.copy_from_slice(&scratch);
                changed = true;
                for &d in dependents(b) {
                    if let Some(s) = stale.get_mut(d.index()) {
                        *s = true;
                    }
                }
            }
        }
        if !changed {
            return Iterated { rounds: round + 1, converged: true };
        }
    }
    Iterated { rounds: max_rounds.max(1), converged: false }
}

/// [`iterate`] from `init`, recording every round's changes as diffs.
pub fn solve<D: Lattice + Clone>(
    order: &[BlockId],
    init: EntityVec<BlockId, D>,
    max_rounds: usize,
    update: impl FnMut(BlockId, &EntityVec<BlockId, D>, &mut D),
) -> Solution<D> {
    let mut values = init;
    let Some(scratch) = order.first().map(|&b| values[b].clone()) else {
        return Solution { values, rounds: vec![Round { changes: Vec::new() }] };
    };
    let mut rounds: Vec<Round<D::Delta>> = Vec::new();
    let it = iterate(order, &mut values, scratch, max_rounds, update, |r, block, old, new| {
        if rounds.len() <= r {
            rounds.resize_with(r + 1, || Round { changes: Vec::new() });
        }
        rounds[r].changes.push(Change { block, delta: D::delta(old, new) });
    });
    rounds.resize_with(it.rounds, || Round { changes: Vec::new() });
    Solution { values, rounds }
}

/// A classic block-level analysis.
pub trait Analysis {
    /// A lattice element; usually an `EntitySet`.
    type Fact: Clone + Lattice;

    fn direction(&self) -> Direction;
    /// The value every block starts from (⊥ for may-analyses, ⊤ for must-analyses).
    fn init(&self, f: &Function) -> Self::Fact;
    /// The value flowing into the entry (forward) or out of the exits (backward).
    fn boundary(&self, f: &Function) -> Self::Fact;
    /// `into ⊓= other`.
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact);
    /// The fact after `block` given the fact before it (in the analysis direction).
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact;
    /// [`Analysis::transfer`] into `out` (whose old content is to be overwritten); an
    /// analysis overrides it to spare the engine an allocation per visit.
    fn transfer_into(&self, f: &Function, block: BlockId, input: &Self::Fact, out: &mut Self::Fact) {
        *out = self.transfer(f, block, input);
    }
}

/// Entry and exit facts of every block, in program order (`ins[b]` holds at the start of `b`
/// whatever the direction), and the rounds of the iteration over the transfer outputs, as
/// diffs from `init` (see [`Solution`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Facts<F: Lattice> {
    pub ins: EntityVec<BlockId, F>,
    pub outs: EntityVec<BlockId, F>,
    pub rounds: Vec<Round<F::Delta>>,
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
    // neighbours' outputs (or the boundary), built in `acc` in place.
    let input_of = |b: BlockId, outs: &EntityVec<BlockId, A::Fact>, acc: &mut A::Fact| {
        let neighbours: &[BlockId] = if forward { cfg.preds(b) } else { cfg.succs(b) };
        let is_boundary = if forward { Some(b) == f.entry() } else { f.is_exit_block(b) };
        let mut first = true;
        if is_boundary {
            acc.clone_from(&boundary);
            first = false;
        }
        for &m in neighbours {
            if first {
                acc.clone_from(&outs[m]);
                first = false;
            } else {
                a.meet(acc, &outs[m]);
            }
        }
        if first {
            acc.clone_from(&init);
        }
    };
    let mut input = init.clone();
    let sol = solve(&order, EntityVec::filled(n, init.clone()), 10 * n + 10, |b, outs, out| {
        input_of(b, outs, &mut input);
        a.transfer_into(f, b, &input, out);
    });
    let inputs: EntityVec<BlockId, A::Fact> = (0..n)
        .map(|i| {
            let mut acc = init.clone();
            input_of(BlockId(i as u32), &sol.values, &mut acc);
            acc
        })
        .collect();
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
        let sol = solve(&order, init, 100, |b, v, out| *out = if b.0 == 0 { true } else { v[BlockId(b.0 - 1)] });
        assert_eq!(sol.values.as_slice(), &[true, true, true]);
        // Round 1 sets block 1, round 2 sets block 2, round 3 proves the fixpoint.
        assert_eq!(sol.rounds.len(), 3);
        assert_eq!(sol.rounds[0].changes.len(), 1);
        assert_eq!(sol.rounds[0].changes[0].block, BlockId(1));
        assert!(sol.rounds[2].changes.is_empty());
    }

    /// The row engine against the value engine on the same problem: a two-word row per
    /// block (so the stride is exercised) propagating "reached" along a chain visited in the
    /// worst order; the same rounds, the same changes in the same order, the same result.
    #[test]
    fn iterate_rows_matches_iterate() {
        for n in 1..7u32 {
            let order: Vec<BlockId> = (0..n).rev().map(BlockId).collect();
            let mut init = EntityVec::filled(n as usize, false);
            init[BlockId(0)] = true;
            let step = |b: BlockId, v: &dyn Fn(BlockId) -> bool| if b.0 == 0 { true } else { v(BlockId(b.0 - 1)) };
            let mut want = Vec::new();
            let mut values = init.clone();
            let a = iterate(&order, &mut values, false, 100, |b, v, out| *out = step(b, &|p| v[p]), |r, b, _, _| want.push((r, b)));
            let mut table = vec![0u64; 2 * n as usize];
            table[1] = 1;
            let mut got = Vec::new();
            let row = |t: &[u64], b: BlockId| t[b.index() * 2 + 1] == 1;
            let next: Vec<[BlockId; 1]> = (0..n).map(|b| [BlockId(b + 1)]).collect();
            let r = iterate_rows(
                &order,
                &mut table,
                2,
                100,
                |b| &next[b.index()][..],
                |b, t, out| {
                    out[0] = 0;
                    out[1] = step(b, &|p| row(t, p)) as u64;
                },
                |round, b, old, new| {
                    assert_ne!(old, new);
                    got.push((round, b));
                },
            );
            assert_eq!((r.rounds, r.converged), (a.rounds, a.converged), "{n} blocks");
            assert_eq!(got, want, "{n} blocks");
            assert!((0..n).all(|b| row(&table, BlockId(b)) == values[BlockId(b)]));
        }
    }

    proptest::proptest! {
        /// Skipping the blocks whose inputs did not change is exact: on random graphs (self
        /// loops and repeated edges included), visit orders and transfer functions, the row
        /// engine gives round-robin's rounds, changes in order, and result — round-robin being
        /// [`iterate`], which visits every block every round.
        #[test]
        fn iterate_rows_skips_only_what_round_robin_would_not_change(
            n in 1usize..10,
            edges in proptest::collection::vec((0usize..10, 0usize..10), 0..30),
            keys in proptest::collection::vec(0u32..1000, 10),
            gen in proptest::collection::vec(0u64..16, 10),
            pass in proptest::collection::vec(0u64..16, 10),
        ) {
            let edges: Vec<(usize, usize)> = edges.into_iter().filter(|&(a, b)| a < n && b < n).collect();
            let preds: Vec<Vec<BlockId>> = (0..n).map(|b| edges.iter().filter(|e| e.1 == b).map(|e| BlockId(e.0 as u32)).collect()).collect();
            let succs: Vec<Vec<BlockId>> = (0..n).map(|b| edges.iter().filter(|e| e.0 == b).map(|e| BlockId(e.1 as u32)).collect()).collect();
            let mut order: Vec<BlockId> = (0..n as u32).map(BlockId).collect();
            order.sort_by_key(|b| keys[b.index()]);
            // A greatest fixpoint from all ones: gen ∨ (pass ∧ ∀ predecessors).
            let step = |b: BlockId, row: &dyn Fn(BlockId) -> u64| {
                gen[b.index()] | (pass[b.index()] & preds[b.index()].iter().fold(15, |m, &p| m & row(p)))
            };
            let mut values = EntityVec::filled(n, 15u64);
            let mut want = Vec::new();
            let a = iterate(&order, &mut values, 0, 100, |b, v, out| *out = step(b, &|p| v[p]), |r, b, _, new| want.push((r, b, *new)));
            let mut table = vec![15u64; n];
            let mut got = Vec::new();
            let r = iterate_rows(&order, &mut table, 1, 100, |b| &succs[b.index()][..], |b, t, out| out[0] = step(b, &|p| t[p.index()]), |round, b, _, new| got.push((round, b, new[0])));
            proptest::prop_assert_eq!((r.rounds, r.converged), (a.rounds, a.converged));
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(&table[..], values.as_slice());
        }
    }

    #[test]
    fn solve_gives_up_after_max_rounds_on_a_non_monotone_update() {
        let order = [BlockId(0)];
        let sol = solve(&order, EntityVec::filled(1, false), 5, |b, v, out| *out = !v[b]);
        assert_eq!(sol.rounds.len(), 5);
        assert!(!sol.rounds.last().unwrap().changes.is_empty());
    }
}
