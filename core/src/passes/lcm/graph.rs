//! The graph LCM's equations range over: the CFG of the function after step 1, restricted to
//! the blocks reachable from the start node `s`.
//!
//! The seed's `G(N, E, s, e)` has every node on a path from `s` to `e`. Real functions do
//! not, so two conventions make the equations mean what the seed means:
//!
//! * **Unreachable blocks take no part.** They get no global predicate (all false) and no
//!   edits, and edges out of them are not predecessors of anything: no execution passes
//!   through them, and the greatest fixpoint would otherwise make every predicate vacuously
//!   true there and scatter insertions over dead code.
//! * **Blocks that cannot reach an exit** (a loop with no way out) behave as if they had an
//!   edge to `e`: their `XdSafe` is just `XComp`. Down-safety quantifies over paths *to `e`*;
//!   with none, the greatest fixpoint would call every expression down-safe inside the loop
//!   and LCM would insert computations — possibly trapping ones — that the program never
//!   performed.
//!
//! Successor and predecessor lists are sets (duplicates of `br c .a .a` removed): the
//! equations quantify over `succ(B)` and `pred(B)` as sets.

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet, EntityVec, Rows};
use crate::ir::{BlockId, Function};

/// Successors, reachable predecessors and visit orders of a function's blocks.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The start node `s` (first block in layout).
    pub entry: Option<BlockId>,
    /// Distinct successors of every placed block, in terminator order (in compressed rows:
    /// every fixpoint round reads them, see [`Rows`]).
    pub succs: Rows<BlockId, BlockId>,
    /// Distinct *reachable* predecessors of every placed block, in layout order.
    pub preds: Rows<BlockId, BlockId>,
    /// Number of distinct predecessors of every placed block, unreachable ones included.
    pub all_preds: EntityVec<BlockId, usize>,
    /// Reachable blocks in reverse postorder (the order of the forward problems).
    pub rpo: Vec<BlockId>,
    pub reachable: EntitySet<BlockId>,
    /// Reachable blocks from which some path leads to a function exit.
    pub reaches_exit: EntitySet<BlockId>,
}

impl Graph {
    pub fn new(f: &Function) -> Graph {
        Graph::with_cfg(f, &Cfg::new(f))
    }

    /// [`Graph::new`] from the control-flow graph of `f`, already built.
    pub fn with_cfg(f: &Function, cfg: &Cfg) -> Graph {
        let n = f.blocks.len();
        let succs = distinct_rows(n, |b| cfg.succs(b), |_| true);
        // Distinct predecessors among all placed blocks, reachable or not: what step 1's
        // syntactic definition of a critical edge counts.
        let all_preds: EntityVec<BlockId, usize> =
            distinct_rows(n, |b| cfg.preds(b), |_| true).values().map(<[BlockId]>::len).collect();
        let preds = distinct_rows(n, |b| cfg.preds(b), |p| cfg.is_reachable(p));
        let rpo: Vec<BlockId> = cfg.reverse_postorder().collect();
        let mut reachable = EntitySet::new_empty(n);
        for &b in &rpo {
            reachable.insert(b);
        }

        let mut reaches_exit = EntitySet::new_empty(n);
        let mut work: Vec<BlockId> =
            rpo.iter().copied().filter(|&b| succs[b].is_empty() || f.is_exit_block(b)).collect();
        for &b in &work {
            reaches_exit.insert(b);
        }
        while let Some(b) = work.pop() {
            for &p in &preds[b] {
                if reaches_exit.insert(p) {
                    work.push(p);
                }
            }
        }

        Graph { entry: cfg.entry(), succs, preds, all_preds, rpo, reachable, reaches_exit }
    }

    /// Reachable blocks in postorder (the order of the backward problem).
    pub fn postorder(&self) -> Vec<BlockId> {
        self.rpo.iter().rev().copied().collect()
    }

    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }
}

/// Each block's row of `row` without repeats, in first-appearance order, keeping only what
/// `keep` keeps: linear in the entries (a mark per block says which row last took it), so a
/// join with tens of thousands of predecessors costs what they number, not their square.
fn distinct_rows<'a>(n: usize, row: impl Fn(BlockId) -> &'a [BlockId], keep: impl Fn(BlockId) -> bool) -> Rows<BlockId, BlockId> {
    let mut taken_by = vec![u32::MAX; n];
    let mut rows = Rows::with_capacity(n, (0..n).map(|b| row(BlockId::new(b)).len()).sum());
    for b in 0..n {
        let entries = row(BlockId::new(b)).iter().copied().filter(|x| {
            let fresh = taken_by.get(x.index()).is_some_and(|&t| t != b as u32);
            if fresh {
                taken_by[x.index()] = b as u32;
            }
            fresh && keep(*x)
        });
        rows.extend_row(entries);
        rows.end_row();
    }
    rows
}
