//! Dominance frontiers: Cytron, Ferrante, Rosen, Wegman & Zadeck, "Efficiently Computing
//! Static Single Assignment Form and the Control Dependence Graph", TOPLAS 13(4), 1991, §4.2,
//! computed with the "runner" walk of Cooper, Harvey & Kennedy, "A Simple, Fast Dominance
//! Algorithm" (2001), §4, Figure 5.
//!
//! `DF(a) = { b | a dominates a predecessor of b, and a does not strictly dominate b }`.
//! For each predecessor `p` of `b`, every node from `p` up the tree to just below `idom(b)`
//! dominates `p` without strictly dominating `b`, so `b` is added to each of their frontiers.
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
