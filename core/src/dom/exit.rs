//! Which blocks the post-dominator construction joins to the virtual exit.
//!
//! Post-dominance needs every block to reach a single exit. The virtual exit is joined to
//! every block that leaves the function ([`Cfg::exits`]); blocks that can reach none of them
//! (an infinite loop, or a block that is a dead end without being an exit) are handled by
//! **LLVM's rule** (`SemiNCAInfo::FindRoots` and `RemoveRedundantRoots` in
//! `llvm/include/llvm/Support/GenericDomTreeConstruction.h`), which Swift's post-dominator
//! tree — and so its ADCE, the subject of seed 000 — inherits:
//!
//! 1. Mark every block that can reach an exit.
//! 2. Scan the layout. At each unmarked block `I`, run a forward DFS from `I` over unmarked
//!    blocks (successors tried in operand order, recursive visit order) and take the block it
//!    numbers **last**, `F`. `F` becomes a candidate; mark every block that can reach `F`.
//! 3. Drop a candidate from which another candidate is forward-reachable (it already reaches
//!    the virtual exit through that one). Candidates only ever reach later candidates, so
//!    what remains is exactly the candidates that reach no other candidate, whatever the
//!    order of removal.
//!
//! Why this rule: it is deterministic (layout and operand order only), every block ends up
//! reaching the virtual exit, and the block chosen is "as far along as control can get"
//! inside the region — for a loop entered from above, that is its bottom, so the loop's body
//! is post-dominated by its latch the way it would be if the loop had an exit there. It is
//! also what GCC does, and matching LLVM means the lab's post-dominator trees agree with the
//! Swift optimizer's on the same CFG (up to its successor-order canonicalisation).
//!
//! Cost: linear when every block reaches an exit; a forward DFS may revisit blocks it did not
//! mark, and step 3 is one DFS per candidate, so O(k·n) for k infinite-loop regions.

use super::ExitKind;
use super::VirtualEdge;
use crate::cfg::Cfg;
use crate::entity::{EntitySet, EntityVec};
use crate::ir::BlockId;

/// The virtual exit's predecessors: the exit blocks in layout order (`ExitKind::Exit`), then
/// the blocks joined by the infinite-loop rule in the order the layout scan found them
/// (`ExitKind::NoExitPath`).
pub fn virtual_exit_edges(cfg: &Cfg) -> Vec<VirtualEdge> {
    let n = cfg.num_blocks();
    let mut edges: Vec<VirtualEdge> =
        cfg.exits().iter().map(|&block| VirtualEdge { block, kind: ExitKind::Exit }).collect();
    let mut marked = EntitySet::new_empty(n);
    let mut stack = Vec::new();
    for &e in cfg.exits() {
        mark_reaching(cfg, e, &mut marked, &mut stack);
    }
    if cfg.blocks().iter().all(|&b| marked.contains(b)) {
        return edges;
    }

    // A visit stamp per block so each forward DFS starts clean without clearing a set.
    let mut stamp: EntityVec<BlockId, u32> = EntityVec::filled(n, 0);
    let mut round = 0u32;
    let mut cursor: Vec<(BlockId, usize)> = Vec::new();
    let mut candidates = Vec::new();
    for &i in cfg.blocks() {
        if marked.contains(i) {
            continue;
        }
        round += 1;
        let mut last = i;
        stamp[i] = round;
        cursor.clear();
        cursor.push((i, 0));
        while let Some(top) = cursor.last_mut() {
            let (b, k) = *top;
            let Some(&s) = cfg.succs(b).get(k) else {
                cursor.pop();
                continue;
            };
            top.1 += 1;
            if !marked.contains(s) && stamp[s] != round {
                stamp[s] = round;
                last = s;
                cursor.push((s, 0));
            }
        }
        candidates.push(last);
        mark_reaching(cfg, last, &mut marked, &mut stack);
    }

    let mut is_candidate = EntitySet::new_empty(n);
    for &c in &candidates {
        is_candidate.insert(c);
    }
    for &c in &candidates {
        round += 1;
        stamp[c] = round;
        stack.clear();
        stack.push(c);
        let mut redundant = false;
        'dfs: while let Some(b) = stack.pop() {
            for &s in cfg.succs(b) {
                if stamp[s] != round {
                    stamp[s] = round;
                    if is_candidate.contains(s) {
                        redundant = true;
                        break 'dfs;
                    }
                    stack.push(s);
                }
            }
        }
        if !redundant {
            edges.push(VirtualEdge { block: c, kind: ExitKind::NoExitPath });
        }
    }
    edges
}

/// Marks every unmarked block that can reach `from` (including `from`).
fn mark_reaching(cfg: &Cfg, from: BlockId, marked: &mut EntitySet<BlockId>, stack: &mut Vec<BlockId>) {
    if !marked.insert(from) {
        return;
    }
    stack.clear();
    stack.push(from);
    while let Some(b) = stack.pop() {
        for &p in cfg.preds(b) {
            if marked.insert(p) {
                stack.push(p);
            }
        }
    }
}
