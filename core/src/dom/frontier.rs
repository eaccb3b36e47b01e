//! Dominance frontiers: Cytron, Ferrante, Rosen, Wegman & Zadeck, "Efficiently Computing
//! Static Single Assignment Form and the Control Dependence Graph", TOPLAS 13(4), 1991, §4.2,
//! computed with the "runner" walk of Cooper, Harvey & Kennedy, "A Simple, Fast Dominance
//! Algorithm" (2001), §4, Figure 5.
//!
//! `DF(a) = { b | a dominates a predecessor of b, and a does not strictly dominate b }`.
//! For each predecessor `p` of `b`, every node from `p` up the tree to just below `idom(b)`
//! dominates `p` without strictly dominating `b`, so `b` is added to each of their frontiers.
//!
//! Cost: one step per (block, frontier member) pair plus one per edge — linear in the edges
//! and the size of the answer, whatever the tree's depth or a join's number of predecessors:
//! a walk stops at a block whose frontier already holds `b` (every block above it, up to
//! `idom(b)`, got `b` from the walk that put it there).
//!
//! Unlike the paper's figure we do not skip blocks with a single predecessor: with the walk
//! stopping at `idom(b)` it is a no-op for them anyway, *except* at the root, which has no
//! idom — an entry block that is its own predecessor (`b0: jmp b0`) is in its own frontier by
//! the definition, and the walk finds it.
//!
//! For a post-dominator tree the same walk runs on the reverse graph the tree was built on:
//! a block's "predecessors" are its CFG successors plus the virtual exit if it is joined to
//! it. The virtual exit is the root and post-dominates every block, so a walk starting there
//! stops at once, and it never appears in a frontier: the result is the post-dominance
//! frontier, `PDF(a) = { b | a post-dominates a successor of b, and a does not strictly
//! post-dominate b }`.

use super::{DomKind, DomNode, DomTree};
use crate::cfg::Cfg;
use crate::entity::EntityVec;
use crate::ir::BlockId;

/// The dominance frontier and the post-dominance frontier of one function.
///
/// Every view of a function (the dominator tabs' "frontier of the selected block", the CDG,
/// SSA placement) reads the same two relations; building them once beside the trees keeps
/// the UI from calling [`frontier`] per view and per redraw. The post-dominance frontier is
/// also what [`ControlDeps`](super::ControlDeps) is made of ([`ControlDeps::from_frontiers`]
/// (super::ControlDeps::from_frontiers) reuses it instead of walking the tree again).
#[derive(Clone, Debug, PartialEq)]
pub struct Frontiers {
    /// `DF(b)` for every block, from the dominator tree.
    pub dom: EntityVec<BlockId, Vec<BlockId>>,
    /// `PDF(b)` for every block, from the post-dominator tree.
    pub pdom: EntityVec<BlockId, Vec<BlockId>>,
}

impl Frontiers {
    /// Both frontiers of the function `cfg` was built from.
    ///
    /// # Panics
    /// If `dom` is not a dominator tree or `pdom` not a post-dominator tree (a programming
    /// error, not an input error).
    pub fn new(cfg: &Cfg, dom: &DomTree, pdom: &DomTree) -> Frontiers {
        assert_eq!(dom.kind(), DomKind::Dominators, "`dom` must be the dominator tree");
        assert_eq!(pdom.kind(), DomKind::PostDominators, "`pdom` must be the post-dominator tree");
        Frontiers { dom: frontier(cfg, dom), pdom: frontier(cfg, pdom) }
    }

    /// The frontier of every block for the tree of `kind`.
    pub fn of(&self, kind: DomKind) -> &EntityVec<BlockId, Vec<BlockId>> {
        match kind {
            DomKind::Dominators => &self.dom,
            DomKind::PostDominators => &self.pdom,
        }
    }

    /// The frontier of `b` for the tree of `kind`, in layout order (empty for a block the
    /// function does not have).
    pub fn get(&self, kind: DomKind, b: BlockId) -> &[BlockId] {
        self.of(kind).get(b).map_or(&[], Vec::as_slice)
    }
}

/// The (post-)dominance frontier of every block, each list in layout order without
/// duplicates. Blocks outside the tree (unreachable ones, for dominators) have an empty
/// frontier and appear in none.
pub fn frontier(cfg: &Cfg, tree: &DomTree) -> EntityVec<BlockId, Vec<BlockId>> {
    let mut df: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(cfg.num_blocks(), Vec::new());
    for &b in cfg.blocks() {
        if !tree.contains(b) {
            continue;
        }
        let stop = tree.parent(b);
        let preds = match tree.kind() {
            DomKind::Dominators => cfg.preds(b),
            DomKind::PostDominators => cfg.succs(b),
        };
        for &p in preds {
            if !tree.contains(p) {
                continue;
            }
            let mut runner = Some(DomNode::Block(p));
            while runner != stop {
                let Some(DomNode::Block(x)) = runner else { break };
                // An earlier predecessor's walk came through `x` and went on up to `stop`:
                // the rest of this walk would only add `b` again. Without this, a join with
                // many predecessors below a deep tree (a long `else if` chain) cost
                // predecessors × depth.
                if df[x].last() == Some(&b) {
                    break;
                }
                df[x].push(b);
                runner = tree.parent(x);
            }
        }
        // The edge b → virtual exit: the walk would start at the root, which is `stop`.
        debug_assert!(!tree.has_virtual_edge(b) || stop == Some(DomNode::VirtualExit));
    }
    let pos = |b: BlockId| cfg.layout_pos(b).unwrap_or(usize::MAX);
    for list in df.values_mut() {
        list.sort_unstable_by_key(|&b| pos(b));
        list.dedup();
    }
    df
}
