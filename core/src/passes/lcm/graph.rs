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

use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, Function};

/// Successors, reachable predecessors and visit orders of a function's blocks.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The start node `s` (first block in layout).
    pub entry: Option<BlockId>,
    /// Distinct successors of every placed block, in terminator order.
    pub succs: EntityVec<BlockId, Vec<BlockId>>,
    /// Distinct *reachable* predecessors of every placed block, in layout order.
    pub preds: EntityVec<BlockId, Vec<BlockId>>,
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
        let n = f.blocks.len();
        let mut placed = EntitySet::new_empty(n);
        for &b in &f.layout {
            if (b.0 as usize) < n {
                placed.insert(b);
            }
        }
        let mut succs: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(n, Vec::new());
        for (pos, &b) in f.layout.iter().enumerate() {
            if !placed.contains(b) {
                continue;
            }
            // Bril fall-through: a block without terminator continues with the next in layout.
            let targets: Vec<BlockId> = match f.blocks[b].term {
                Some(t) => f.insts.get(t).map(|i| i.succs.iter().map(|s| s.block).collect()).unwrap_or_default(),
                None => f.layout.get(pos + 1).copied().into_iter().collect(),
            };
            let mut list = Vec::new();
            for s in targets {
                if placed.contains(s) && !list.contains(&s) {
                    list.push(s);
                }
            }
            succs[b] = list;
        }
        // Distinct predecessors among all placed blocks, reachable or not: what step 1's
        // syntactic definition of a critical edge counts.
        let mut all_preds: EntityVec<BlockId, usize> = EntityVec::filled(n, 0);
        for &b in &f.layout {
            if placed.contains(b) {
                for &s in &succs[b] {
                    all_preds[s] += 1;
                }
            }
        }

        let entry = f.layout.first().copied().filter(|&b| placed.contains(b));
        let mut reachable = EntitySet::new_empty(n);
        let mut postorder = Vec::new();
        if let Some(e) = entry {
            // Iterative DFS (a 10,000-block function must not overflow the native stack).
            let mut stack: Vec<(BlockId, usize)> = vec![(e, 0)];
            reachable.insert(e);
            while let Some(top) = stack.last_mut() {
                let (b, i) = *top;
                if let Some(&s) = succs[b].get(i) {
                    top.1 += 1;
                    if reachable.insert(s) {
                        stack.push((s, 0));
                    }
                } else {
                    postorder.push(b);
                    stack.pop();
                }
            }
        }
        let rpo: Vec<BlockId> = postorder.into_iter().rev().collect();

        let mut preds: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(n, Vec::new());
        for &b in &f.layout {
            if reachable.contains(b) {
                for &s in &succs[b] {
                    preds[s].push(b);
                }
            }
        }

        let mut reaches_exit = EntitySet::new_empty(n);
        let mut work: Vec<BlockId> = rpo.iter().copied().filter(|&b| succs[b].is_empty() || is_exit(f, b)).collect();
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

        Graph { entry, succs, preds, all_preds, rpo, reachable, reaches_exit }
    }

    /// Reachable blocks in postorder (the order of the backward problem).
    pub fn postorder(&self) -> Vec<BlockId> {
        self.rpo.iter().rev().copied().collect()
    }

    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }
}

/// Whether control can leave the function at the end of `b` (`ret`, or falling off the end).
fn is_exit(f: &Function, b: BlockId) -> bool {
    match f.blocks[b].term {
        Some(t) => f.insts.get(t).is_some_and(|i| i.op.is_function_exit()),
        None => f.layout.last() == Some(&b),
    }
}
