//! Where each variable is live on entry, one variable at a time: what prunes φ placement.
//!
//! A variable is live into block `b` when some path from `b`'s top reads it before any
//! assignment (dragon book §9.2.5). Computed backwards from the blocks that read it before
//! assigning it, through predecessors, stopping at blocks that assign it. The cost per
//! variable is the size of its live region and the edges into it, not blocks × variables.

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{BlockId, Function, ValueId};

/// Per variable, what liveness needs of the program: the blocks that read it before any
/// assignment in the block (upward-exposed uses) and the blocks that assign it.
pub struct Mentions {
    pub exposed: EntityVec<ValueId, Vec<BlockId>>,
    pub assigns: EntityVec<ValueId, Vec<BlockId>>,
}

impl Mentions {
    pub fn new(f: &Function, cfg: &Cfg) -> Mentions {
        let n = f.values.len();
        let mut exposed: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(n, Vec::new());
        let mut assigns: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(n, Vec::new());
        // The last block that marked each variable, so a block is listed once per variable.
        let mut seen_use: EntityVec<ValueId, u32> = EntityVec::filled(n, u32::MAX);
        let mut seen_def: EntityVec<ValueId, u32> = EntityVec::filled(n, u32::MAX);
        for &b in cfg.blocks() {
            let stamp = b.index() as u32;
            for i in f.blocks[b].all_insts() {
                let inst = &f.insts[i];
                for v in inst.uses() {
                    if v.index() < n && seen_def[v] != stamp && seen_use[v] != stamp {
                        seen_use[v] = stamp;
                        exposed[v].push(b);
                    }
                }
                for &r in &inst.results {
                    if r.index() < n && seen_def[r] != stamp {
                        seen_def[r] = stamp;
                        assigns[r].push(b);
                    }
                }
            }
        }
        Mentions { exposed, assigns }
    }
}

/// Reusable marks for [`LiveIn::compute`], so that asking about every variable of a big
/// function allocates nothing per variable.
pub struct LiveIn {
    live: EntityVec<BlockId, u32>,
    kills: EntityVec<BlockId, u32>,
    stamp: u32,
    work: Vec<BlockId>,
    /// The blocks of the last computation, in the order they were found.
    blocks: Vec<BlockId>,
}

impl LiveIn {
    pub fn new(blocks: usize) -> LiveIn {
        LiveIn { live: EntityVec::filled(blocks, 0), kills: EntityVec::filled(blocks, 0), stamp: 0, work: Vec::new(), blocks: Vec::new() }
    }

    /// Computes where `v` is live on entry; ask with [`LiveIn::is_live_in`] until the next call.
    pub fn compute(&mut self, m: &Mentions, cfg: &Cfg, v: ValueId) {
        self.stamp += 1;
        let s = self.stamp;
        for &b in &m.assigns[v] {
            self.kills[b] = s;
        }
        self.work.clear();
        self.blocks.clear();
        for &b in &m.exposed[v] {
            if self.live[b] != s {
                self.live[b] = s;
                self.work.push(b);
            }
        }
        while let Some(b) = self.work.pop() {
            self.blocks.push(b);
            for &p in cfg.preds(b) {
                // Live out of `p`; live into it unless `p` assigns `v` first (then `v` is
                // in `exposed` already if `p` also reads it before assigning).
                if self.kills[p] != s && self.live[p] != s {
                    self.live[p] = s;
                    self.work.push(p);
                }
            }
        }
    }

    /// The blocks the last computed variable is live into.
    pub fn blocks(&self) -> &[BlockId] {
        &self.blocks
    }

    pub fn is_live_in(&self, b: BlockId) -> bool {
        self.live.get(b).is_some_and(|&x| x == self.stamp)
    }
}
