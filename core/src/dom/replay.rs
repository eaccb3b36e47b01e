//! What a Lengauer–Tarjan run has established after its first `k` events: the numbers, parents,
//! semidominators and immediate dominators the table and the drawings show at step `k`.
//!
//! It only replays the [`DomEvent`] trace of [`super::DomTree::build_traced`] (nothing is
//! recomputed), so what the lab shows at a step is exactly what the algorithm had done by then,
//! in its order. The step texts ([`super::steps`]) are written during the same replay.

use super::{DomEvent, DomNode, ExitKind};
use crate::ir::BlockId;

/// What the run has said about a node's immediate dominator so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Idom {
    #[default]
    Unknown,
    /// Step 3 found a vertex on the path with a smaller semidominator: the idom is the same as
    /// that vertex's, which step 4 fills in.
    SameAs(DomNode),
    /// Known for good: in step 3 when it equals the semidominator, otherwise in step 4.
    Final(DomNode),
}

impl Idom {
    pub fn final_node(self) -> Option<DomNode> {
        match self {
            Idom::Final(n) => Some(n),
            Idom::Unknown | Idom::SameAs(_) => None,
        }
    }
}

/// A semidominator and where step 2 found it: `from = EVAL(pred)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Semi {
    pub sdom: DomNode,
    pub pred: DomNode,
    pub from: DomNode,
}

/// One vertex's row of the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub dfs: Option<u32>,
    /// The DFS-tree parent (`None` for the root and for vertices not numbered yet).
    pub parent: Option<DomNode>,
    pub semi: Option<Semi>,
    pub idom: Idom,
}

/// The table column an event fills (the cell the view highlights).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Dfs,
    Sdom,
    Idom,
}

/// The step of Lengauer–Tarjan an event belongs to: 0 for building the reverse graph of
/// post-dominance, then the paper's steps 1–4.
pub fn phase(e: &DomEvent) -> u8 {
    match e {
        DomEvent::VirtualEdge { .. } => 0,
        DomEvent::Dfs { .. } => 1,
        DomEvent::Semi { .. } => 2,
        DomEvent::IdomIsSdom { .. } | DomEvent::IdomDeferred { .. } => 3,
        DomEvent::Idom { .. } => 4,
    }
}

/// The vertex an event is about, and the column it fills (`None` for a virtual edge).
pub fn subject(e: &DomEvent) -> (DomNode, Option<Column>) {
    match *e {
        DomEvent::VirtualEdge { block, .. } => (DomNode::Block(block), None),
        DomEvent::Dfs { node, .. } => (node, Some(Column::Dfs)),
        DomEvent::Semi { node, .. } => (node, Some(Column::Sdom)),
        DomEvent::IdomIsSdom { node, .. } | DomEvent::IdomDeferred { node, .. } | DomEvent::Idom { node, .. } => {
            (node, Some(Column::Idom))
        }
    }
}

/// The state of a run after a prefix of its trace.
#[derive(Clone, Debug, PartialEq)]
pub struct LtState {
    nblocks: usize,
    /// By node key: block `i` is `i`, the virtual exit is `nblocks`.
    facts: Vec<Facts>,
    virtual_edges: Vec<(BlockId, ExitKind)>,
    last: Option<DomEvent>,
    applied: usize,
}

impl LtState {
    /// Nothing known yet, for a function whose block arena has `nblocks` entries.
    pub fn new(nblocks: usize) -> LtState {
        LtState { nblocks, facts: vec![Facts::default(); nblocks + 1], virtual_edges: Vec::new(), last: None, applied: 0 }
    }

    /// The state after the first `k` events (all of them if `k` is larger).
    pub fn at(nblocks: usize, events: &[DomEvent], k: usize) -> LtState {
        let mut s = LtState::new(nblocks);
        for e in &events[..k.min(events.len())] {
            s.apply(e);
        }
        s
    }

    fn key(&self, n: DomNode) -> Option<usize> {
        match n {
            DomNode::Block(b) => (b.0 as usize) < self.nblocks,
            DomNode::VirtualExit => true,
        }
        .then(|| n.block().map_or(self.nblocks, |b| b.0 as usize))
    }

    fn facts_mut(&mut self, n: DomNode) -> Option<&mut Facts> {
        let k = self.key(n)?;
        self.facts.get_mut(k)
    }

    /// Records one event. Events about nodes outside the function are counted but ignored.
    pub fn apply(&mut self, e: &DomEvent) {
        self.applied += 1;
        self.last = Some(*e);
        match *e {
            DomEvent::VirtualEdge { block, kind } => self.virtual_edges.push((block, kind)),
            DomEvent::Dfs { node, num, parent } => {
                if let Some(f) = self.facts_mut(node) {
                    f.dfs = Some(num);
                    f.parent = parent;
                }
            }
            DomEvent::Semi { node, sdom, pred, from } => {
                if let Some(f) = self.facts_mut(node) {
                    f.semi = Some(Semi { sdom, pred, from });
                }
            }
            DomEvent::IdomIsSdom { node, idom } | DomEvent::Idom { node, idom } => {
                if let Some(f) = self.facts_mut(node) {
                    f.idom = Idom::Final(idom);
                }
            }
            DomEvent::IdomDeferred { node, same_as } => {
                if let Some(f) = self.facts_mut(node) {
                    f.idom = Idom::SameAs(same_as);
                }
            }
        }
    }

    /// What is known about `n` (nothing, for a node outside the function).
    pub fn facts(&self, n: DomNode) -> Facts {
        self.key(n).and_then(|k| self.facts.get(k)).copied().unwrap_or_default()
    }

    /// The DFS number of `n`, if the search has reached it.
    pub fn dfs(&self, n: DomNode) -> Option<u32> {
        self.facts(n).dfs
    }

    /// How many events have been applied: the step number.
    pub fn step(&self) -> usize {
        self.applied
    }

    /// The event of the current step (`None` at step 0).
    pub fn last_event(&self) -> Option<&DomEvent> {
        self.last.as_ref()
    }

    /// The vertex the current step is about.
    pub fn current(&self) -> Option<DomNode> {
        self.last.as_ref().map(|e| subject(e).0)
    }

    /// The table cell the current step filled.
    pub fn changed(&self) -> Option<(DomNode, Column)> {
        let (n, c) = subject(self.last.as_ref()?);
        Some((n, c?))
    }

    /// The edges to the virtual exit added so far (post-dominators only).
    pub fn virtual_edges(&self) -> &[(BlockId, ExitKind)] {
        &self.virtual_edges
    }

    /// Whether the DFS is over (a later step has started): vertices without a number by then
    /// are not reachable from the root.
    pub fn dfs_done(&self) -> bool {
        self.last.as_ref().is_some_and(|e| phase(e) >= 2)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cfg::Cfg;
    use crate::dom::{DomKind, DomTree};
    use crate::{parse_module, Function, Lang};

    pub(crate) fn bril(text: &str) -> Function {
        let m = parse_module(Lang::Bril, "t.bril", text).expect("parses");
        let f = m.bodies().next().expect("a body").clone();
        f
    }

    /// A loop with a branch inside, an unreachable block, and an infinite loop after `done`.
    pub(crate) const LOOPY: &str = "@main {\n.entry:\n  n: int = const 4;\n  jmp .head;\n.head:\n  c: bool = lt n n;\n  br c .body .done;\n.body:\n  br c .a .b;\n.a:\n  jmp .latch;\n.b:\n  jmp .latch;\n.latch:\n  jmp .head;\n.dead:\n  jmp .done;\n.done:\n  br c .spin .out;\n.spin:\n  jmp .spin;\n.out:\n  ret;\n}\n";

    #[test]
    fn nothing_is_known_at_step_zero_and_everything_at_the_end() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        for kind in [DomKind::Dominators, DomKind::PostDominators] {
            let (tree, events) = DomTree::build_traced(&f, &cfg, kind);
            let n = f.blocks.len();
            let start = LtState::at(n, &events, 0);
            assert_eq!(start.step(), 0);
            assert!(start.current().is_none() && start.changed().is_none());
            for &b in &f.layout {
                assert_eq!(start.facts(DomNode::Block(b)), Facts::default(), "{kind:?}");
            }
            let end = LtState::at(n, &events, events.len() + 5);
            assert_eq!(end.step(), events.len());
            for &b in &f.layout {
                let facts = end.facts(DomNode::Block(b));
                assert_eq!(facts.idom.final_node(), tree.parent(b), "{kind:?} {}", f.blocks[b].name);
                assert_eq!(facts.semi.map(|s| s.sdom), tree.semidominator(b), "{kind:?} {}", f.blocks[b].name);
                let dfs = tree.dfs_order().iter().position(|&x| x == DomNode::Block(b)).map(|i| i as u32);
                assert_eq!(facts.dfs, dfs, "{kind:?} {}", f.blocks[b].name);
            }
            let edges: Vec<(BlockId, ExitKind)> = tree.virtual_exit_edges().iter().map(|e| (e.block, e.kind)).collect();
            assert_eq!(end.virtual_edges(), edges.as_slice());
        }
    }

    #[test]
    fn each_step_fills_one_cell_of_its_vertex() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let (_, events) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
        let mut s = LtState::new(f.blocks.len());
        let mut phases = Vec::new();
        for e in &events {
            let before = s.clone();
            s.apply(e);
            let (node, col) = s.changed().expect("forward events all fill a cell");
            assert_eq!(s.current(), Some(node));
            let (was, now) = (before.facts(node), s.facts(node));
            match col {
                Column::Dfs => assert!(was.dfs.is_none() && now.dfs.is_some()),
                Column::Sdom => assert!(was.semi.is_none() && now.semi.is_some() && now.dfs.is_some()),
                Column::Idom => assert_ne!(now.idom, Idom::Unknown),
            }
            phases.push(phase(e));
        }
        // Step 1 comes first and step 4 last; steps 2 and 3 interleave between them.
        let first_non_dfs = phases.iter().position(|&p| p != 1).unwrap();
        assert!(phases[first_non_dfs..].iter().all(|&p| p != 1));
        let first_4 = phases.iter().position(|&p| p == 4).unwrap();
        assert!(phases[first_4..].iter().all(|&p| p == 4));
        assert!(s.dfs_done());
        // `dead` is never numbered.
        let dead = f.layout.iter().copied().find(|&b| f.blocks[b].name == "dead").unwrap();
        assert_eq!(s.dfs(DomNode::Block(dead)), None);
    }

    #[test]
    fn events_about_unknown_blocks_are_ignored() {
        let mut s = LtState::new(2);
        s.apply(&DomEvent::Dfs { node: DomNode::Block(BlockId(9)), num: 0, parent: None });
        s.apply(&DomEvent::Idom { node: DomNode::Block(BlockId(9)), idom: DomNode::VirtualExit });
        assert_eq!(s.step(), 2);
        assert_eq!(s.facts(DomNode::Block(BlockId(9))), Facts::default());
        assert_eq!(s.facts(DomNode::Block(BlockId(1))), Facts::default());
    }
}
