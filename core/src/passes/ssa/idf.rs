//! The iterated dominance frontier by worklist, pruned by liveness (Cytron et al. 1991, §5.1,
//! figure 11): a block taken off the worklist puts a φ at every block of its dominance
//! frontier, and a block met for the first time joins the worklist, since a φ there defines
//! the value too. The walk is the minimal form's — a block where the value is dead still joins
//! the worklist — and a φ is kept only where the value is live, so the kept φs are exactly the
//! minimal form's live ones.
//!
//! One walk for what SSA construction places for a variable and what Mem2Reg places for a
//! stack slot; each records the steps as its own events, and [`Placement`] folds them back
//! into what a view shows.

use crate::dom::{DomKind, Frontiers};
use crate::entity::EntityVec;
use crate::ir::BlockId;

/// One step of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// `block` is taken off the worklist; `frontier` is its dominance frontier.
    Take { block: BlockId, frontier: &'a [BlockId] },
    /// `to`, in the frontier of `from`, is met for the first time: a φ is kept there when the
    /// value is `live`; it `joins` the worklist unless it was on it.
    Frontier { from: BlockId, to: BlockId, live: bool, joins: bool },
}

/// Marks shared by the walks of all the values of a function, so a walk allocates nothing.
pub struct FrontierWalk {
    on_list: EntityVec<BlockId, u32>,
    has_phi: EntityVec<BlockId, u32>,
    stamp: u32,
}

impl FrontierWalk {
    pub fn new(blocks: usize) -> FrontierWalk {
        FrontierWalk { on_list: EntityVec::filled(blocks, 0), has_phi: EntityVec::filled(blocks, 0), stamp: 0 }
    }

    /// Starts the walk of one value from the blocks that define it: the worklist, each block
    /// once, or `None` when no block of it has a frontier (a single definition in straight-line
    /// code, say: there is nothing to place, and nothing to show).
    pub fn start(&mut self, frontiers: &Frontiers, defs: impl IntoIterator<Item = BlockId>) -> Option<Vec<BlockId>> {
        self.stamp += 1;
        let s = self.stamp;
        let mut work = Vec::new();
        for b in defs {
            if self.on_list[b] != s {
                self.on_list[b] = s;
                work.push(b);
            }
        }
        (!work.iter().all(|&b| frontiers.get(DomKind::Dominators, b).is_empty())).then_some(work)
    }

    /// Walks from the worklist [`FrontierWalk::start`] gave, handing every step to `on`;
    /// returns the blocks that keep a φ, in the order they were found.
    pub fn walk(&mut self, frontiers: &Frontiers, mut work: Vec<BlockId>, live: impl Fn(BlockId) -> bool, mut on: impl FnMut(Step)) -> Vec<BlockId> {
        let s = self.stamp;
        let mut kept = Vec::new();
        // Taken in the order the definitions come (a queue reads like the paper's example).
        let mut next = 0;
        while next < work.len() {
            let b = work[next];
            next += 1;
            let df = frontiers.get(DomKind::Dominators, b);
            on(Step::Take { block: b, frontier: df });
            for &y in df {
                if self.has_phi[y] == s {
                    continue;
                }
                self.has_phi[y] = s;
                let is_live = live(y);
                if is_live {
                    kept.push(y);
                }
                let joins = self.on_list[y] != s;
                if joins {
                    self.on_list[y] = s;
                    work.push(y);
                }
                on(Step::Frontier { from: b, to: y, live: is_live, joins });
            }
        }
        kept
    }
}

/// A walk as a view shows it at a step: what is still on the worklist, the blocks taken off
/// it, where a φ is kept and where the value is dead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    pub worklist: Vec<BlockId>,
    pub taken: Vec<BlockId>,
    pub kept: Vec<BlockId>,
    pub dead: Vec<BlockId>,
}

impl Placement {
    /// A new walk from these definitions.
    pub fn start(&mut self, defs: &[BlockId]) {
        *self = Placement { worklist: defs.to_vec(), ..Placement::default() };
    }

    pub fn take(&mut self, block: BlockId) {
        self.worklist.retain(|&b| b != block);
        self.taken.push(block);
    }

    pub fn frontier(&mut self, to: BlockId, live: bool, joins: bool) {
        if live {
            self.kept.push(to);
        } else {
            self.dead.push(to);
        }
        if joins {
            self.worklist.push(to);
        }
    }
}
