//! Natural loops and their nesting (Aho, Lam, Sethi, Ullman §9.6.6): an edge `t → h` whose
//! target dominates its source is a back edge; the natural loop of `h` is `h` with every block
//! that reaches a source of one of its back edges without passing through `h` (back edges into
//! one header make one loop, as in LLVM's `LoopInfo`). Two natural loops are nested or
//! disjoint, so they form a forest.
//!
//! A retreating edge (against the depth-first order) whose target does not dominate its source
//! enters a cycle at more than one block: the graph is irreducible there, which no natural
//! loop describes; such edges are reported, not turned into loops.

use super::DomTree;
use crate::cfg::Cfg;
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function};
use serde::Serialize;

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Loop {
    pub header: BlockId,
    /// The sources of its back edges, in layout order.
    pub latches: Vec<BlockId>,
    /// Every block of the loop, the header first, then in layout order.
    pub body: Vec<BlockId>,
    /// The innermost loop that contains this one (an index into [`LoopForest::loops`]).
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopForest {
    /// Outer loops before the loops they contain; among loops of one nesting, layout order of
    /// their headers.
    pub loops: Vec<Loop>,
    /// Per block, how many loops contain it (0 outside every loop).
    #[serde(skip)]
    pub depth: EntityVec<BlockId, u32>,
    /// Retreating edges whose target does not dominate their source: where the graph is
    /// irreducible.
    pub irreducible: Vec<(BlockId, BlockId)>,
}

impl LoopForest {
    /// The loops of `f` (`dom` is its forward dominator tree).
    pub fn new(f: &Function, cfg: &Cfg, dom: &DomTree) -> LoopForest {
        let n = f.blocks.len();
        let pos = |b: BlockId| cfg.layout_pos(b).unwrap_or(usize::MAX);
        // Back edges by header, headers in layout order.
        let mut latches: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(n, Vec::new());
        let mut irreducible = Vec::new();
        for (t, h) in cfg.edges() {
            if !cfg.is_reachable(t) {
                continue;
            }
            if dom.dominates(h, t) {
                if !latches[h].contains(&t) {
                    latches[h].push(t);
                }
            } else if cfg.rpo_index(h).zip(cfg.rpo_index(t)).is_some_and(|(rh, rt)| rh <= rt) {
                irreducible.push((t, h));
            }
        }
        let mut headers: Vec<BlockId> = cfg.blocks().iter().copied().filter(|&h| !latches[h].is_empty()).collect();
        headers.sort_by_key(|&h| pos(h));

        // Each loop's body: backwards from its latches, stopping at the header.
        let mut mark: EntityVec<BlockId, u32> = EntityVec::filled(n, 0);
        let mut loops: Vec<Loop> = Vec::with_capacity(headers.len());
        for (k, &h) in headers.iter().enumerate() {
            let stamp = k as u32 + 1;
            mark[h] = stamp;
            let mut body = vec![h];
            let mut work: Vec<BlockId> = Vec::new();
            for &t in &latches[h] {
                if mark[t] != stamp {
                    mark[t] = stamp;
                    work.push(t);
                }
            }
            while let Some(b) = work.pop() {
                body.push(b);
                for &p in cfg.preds(b) {
                    if mark[p] != stamp && cfg.is_reachable(p) {
                        mark[p] = stamp;
                        work.push(p);
                    }
                }
            }
            body[1..].sort_by_key(|&b| pos(b));
            let mut l = latches[h].clone();
            l.sort_by_key(|&b| pos(b));
            loops.push(Loop { header: h, latches: l, body, parent: None, depth: 0 });
        }

        // Nesting: largest loops first, each block remembering the innermost loop seen so far;
        // a loop's parent is the one its header was in when it came.
        let mut by_size: Vec<usize> = (0..loops.len()).collect();
        by_size.sort_by_key(|&k| std::cmp::Reverse(loops[k].body.len()));
        let mut innermost: EntityVec<BlockId, Option<usize>> = EntityVec::filled(n, None);
        for &k in &by_size {
            loops[k].parent = innermost[loops[k].header];
            for i in 0..loops[k].body.len() {
                let b = loops[k].body[i];
                innermost[b] = Some(k);
            }
        }
        // Depths from the parents (parents are larger, so they come first in `by_size`).
        for &k in &by_size {
            loops[k].depth = loops[k].parent.map_or(1, |p| loops[p].depth + 1);
        }
        let mut depth: EntityVec<BlockId, u32> = EntityVec::filled(n, 0);
        for (b, inner) in innermost.iter() {
            depth[b] = inner.map_or(0, |k| loops[k].depth);
        }
        // Outer loops first, then layout order of headers; parents renumbered.
        let mut order: Vec<usize> = (0..loops.len()).collect();
        order.sort_by_key(|&k| (loops[k].depth, pos(loops[k].header)));
        let mut new_index = vec![0; loops.len()];
        for (i, &k) in order.iter().enumerate() {
            new_index[k] = i;
        }
        let loops = order
            .iter()
            .map(|&k| {
                let mut l = loops[k].clone();
                l.parent = l.parent.map(|p| new_index[p]);
                l
            })
            .collect();
        irreducible.sort_by_key(|&(t, h)| (pos(t), pos(h)));
        LoopForest { loops, depth, irreducible }
    }

    /// The loop depth of `b` (0 outside every loop).
    pub fn depth_of(&self, b: BlockId) -> u32 {
        self.depth.get(b).copied().unwrap_or(0)
    }
}
