//! The step-by-step record of a Lengauer–Tarjan run, for the UI's step-through view.
//!
//! The events follow the four steps of Lengauer & Tarjan, "A Fast Algorithm for Finding
//! Dominators in a Flowgraph" (TOPLAS 1(1), 1979), §2–3: (1) DFS numbering, (2)
//! semidominators through LINK/EVAL, (3) the implicit definition of each immediate dominator
//! when its semidominator's bucket is emptied, (4) the final pass in DFS order. The same
//! events describe the forward run (from the entry) and the reverse run (from the virtual
//! exit); a post-dominator trace starts with the [`DomEvent::VirtualEdge`]s that built the
//! reverse graph.
//!
//! Events hold ids only — a block is its arena index, the virtual exit is `"exit"` — so a
//! 1,000-block function's trace is a few thousand small records.

use super::{DomNode, ExitKind};
use crate::ir::BlockId;
use serde::{Deserialize, Serialize};

/// One step of the construction. Serialized internally tagged (`{"e":"semi", …}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum DomEvent {
    /// Post-dominators only, before the DFS: `block` was joined to the virtual exit, because
    /// it leaves the function or by the infinite-loop rule (see [`super::exit`]).
    VirtualEdge { block: BlockId, kind: ExitKind },
    /// Step 1: the DFS reached `node` and gave it preorder number `num`; `parent` is its
    /// parent in the DFS spanning tree (`None` for the root).
    Dfs { node: DomNode, num: u32, parent: Option<DomNode> },
    /// Step 2: `sdom` is the semidominator of `node`. It came from the predecessor `pred`:
    /// `from = EVAL(pred)` is the vertex whose semidominator was the smallest seen. Right
    /// after it, LINK adds `node` below its DFS parent in the forest EVAL searches (not
    /// recorded separately: the parent is in the node's `Dfs` event).
    Semi { node: DomNode, sdom: DomNode, pred: DomNode, from: DomNode },
    /// Step 3: emptying the bucket of `idom`, EVAL found nothing with a smaller
    /// semidominator on the path, so `idom(node) = sdom(node) = idom` — final already.
    IdomIsSdom { node: DomNode, idom: DomNode },
    /// Step 3: `idom(node) = idom(same_as)`, a vertex numbered lower; resolved in step 4.
    IdomDeferred { node: DomNode, same_as: DomNode },
    /// Step 4: the immediate dominator of `node` is fixed (one event per non-root node, in
    /// DFS order).
    Idom { node: DomNode, idom: DomNode },
}

/// Recomputes every immediate dominator from the step-3 events alone, the way step 4 does:
/// in DFS order, a deferred node takes the (already final) idom of its `same_as`. Returns
/// `(node, idom)` in DFS order. The UI uses it to show step 4 before it has happened; the
/// tests use it to check that a trace is self-sufficient.
pub fn replay_idoms(events: &[DomEvent]) -> Vec<(DomNode, DomNode)> {
    #[derive(Clone, Copy)]
    enum Step3 {
        Known(DomNode),
        Same(DomNode),
    }
    let mut order: Vec<DomNode> = Vec::new();
    let mut step3: Vec<(DomNode, Step3)> = Vec::new();
    for e in events {
        match *e {
            DomEvent::Dfs { node, parent: Some(_), .. } => order.push(node),
            DomEvent::IdomIsSdom { node, idom } => step3.push((node, Step3::Known(idom))),
            DomEvent::IdomDeferred { node, same_as } => step3.push((node, Step3::Same(same_as))),
            _ => {}
        }
    }
    // Dense lookup by a node key: blocks by index, the virtual exit last.
    let key = |n: DomNode| match n {
        DomNode::Block(b) => b.0 as usize + 1,
        DomNode::VirtualExit => 0,
    };
    let size = order.iter().chain(step3.iter().map(|(n, _)| n)).map(|&n| key(n) + 1).max().unwrap_or(0);
    let mut pending: Vec<Option<Step3>> = vec![None; size];
    for (n, s) in step3 {
        pending[key(n)] = Some(s);
    }
    let mut idom: Vec<Option<DomNode>> = vec![None; size];
    let mut out = Vec::with_capacity(order.len());
    for n in order {
        let d = match pending[key(n)] {
            Some(Step3::Known(d)) => Some(d),
            Some(Step3::Same(s)) => idom.get(key(s)).copied().flatten(),
            None => None,
        };
        if let Some(d) = d {
            idom[key(n)] = Some(d);
            out.push((n, d));
        }
    }
    out
}
