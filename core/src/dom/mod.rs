//! Dominators, post-dominators, dominance frontiers and control dependence.
//!
//! Steps 2–4 of the ADCE article (seed 000): the post-dominator tree by Lengauer–Tarjan
//! ([`lt`], Lengauer & Tarjan, TOPLAS 1979), the dominance frontier ([`frontier`], Cytron,
//! Ferrante, Rosen, Wegman & Zadeck, TOPLAS 13(4), 1991, §4.2, in the "runner" formulation
//! of Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm", 2001, §4) and the
//! control-dependence graph as the post-dominance frontier ([`cdg`], Ferrante, Ottenstein &
//! Warren, TOPLAS 9(3), 1987; Cytron et al. §6).
//!
//! **One construction for both directions.** [`DomTree::dominators`] runs Lengauer–Tarjan on
//! the CFG from the entry; [`DomTree::post_dominators`] runs the same code on the reverse CFG
//! from a *virtual exit* joined to every exit block and, for blocks that cannot reach an exit,
//! to blocks chosen by LLVM's infinite-loop rule ([`exit`]). The virtual exit is a tree node
//! ([`DomNode::VirtualExit`]) but never a block: [`DomTree::idom`] answers in blocks and
//! [`DomTree::parent`] in nodes, so the UI can draw it.
//!
//! Forward trees hold the blocks reachable from the entry; post-dominator trees hold every
//! block in the layout (the rule connects all of them to the virtual exit).
//!
//! **Stepping through a run.** [`DomTree::build_traced`] records the run's events
//! ([`trace`]); [`replay`] says what is known after the first `k` of them and [`steps`]
//! ([`lt_steps`]) describes each one, so the UI only draws what these return. People read the
//! virtual exit as [`VIRTUAL_EXIT_NAME`] everywhere ([`DomNode::name`]).

pub mod cdg;
pub mod exit;
pub mod frontier;
pub mod loops;
mod lt;
pub mod replay;
mod ssa;
pub mod steps;
pub mod trace;

pub use cdg::ControlDeps;
pub use frontier::{frontier, Frontiers};
pub use loops::{Loop, LoopForest};
pub use ssa::{verify_ssa, verify_ssa_on_tree};
pub use steps::lt_steps;
pub use trace::DomEvent;

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet, Rows};
use crate::ir::{BlockId, Function};
use lt::NONE;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A node of a dominator tree: a block, or the virtual exit at the root of a post-dominator
/// tree. Serialized as the block's index, or the string `"exit"`, to keep traces small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DomNode {
    Block(BlockId),
    VirtualExit,
}

/// The virtual exit's name wherever a person reads it: drawings, tables, step texts, the
/// CLI's trees. It cannot be a block's name (labels have no spaces), so it can also serve as a
/// node id in a drawing and as a selection in the UI's state without colliding with a block.
pub const VIRTUAL_EXIT_NAME: &str = "exit (virtual)";

/// The virtual exit's name where room is short (a pill under a tree node): still no block's
/// name, so the exit's many children's pills do not run into each other.
pub const VIRTUAL_EXIT_SHORT_NAME: &str = "(exit)";

impl DomNode {
    /// The block, unless this is the virtual exit.
    pub fn block(self) -> Option<BlockId> {
        match self {
            DomNode::Block(b) => Some(b),
            DomNode::VirtualExit => None,
        }
    }

    /// How people see the node: the block's label ([`Function::block_name`]) or
    /// [`VIRTUAL_EXIT_NAME`].
    pub fn name(self, f: &Function) -> String {
        match self {
            DomNode::Block(b) => f.block_name(b),
            DomNode::VirtualExit => VIRTUAL_EXIT_NAME.to_string(),
        }
    }

    /// [`DomNode::name`] with [`VIRTUAL_EXIT_SHORT_NAME`] for the virtual exit.
    pub fn short_name(self, f: &Function) -> String {
        match self {
            DomNode::Block(b) => f.block_name(b),
            DomNode::VirtualExit => VIRTUAL_EXIT_SHORT_NAME.to_string(),
        }
    }
}

impl std::fmt::Display for DomNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DomNode::Block(b) => write!(f, "{b}"),
            DomNode::VirtualExit => f.write_str("exit"),
        }
    }
}

impl From<BlockId> for DomNode {
    fn from(b: BlockId) -> DomNode {
        DomNode::Block(b)
    }
}

impl Serialize for DomNode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DomNode::Block(b) => s.serialize_u32(b.0),
            DomNode::VirtualExit => s.serialize_str("exit"),
        }
    }
}

impl<'de> Deserialize<'de> for DomNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DomNode, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Block(u32),
            Name(String),
        }
        match Repr::deserialize(d)? {
            Repr::Block(b) => Ok(DomNode::Block(BlockId(b))),
            Repr::Name(n) if n == "exit" => Ok(DomNode::VirtualExit),
            Repr::Name(n) => Err(serde::de::Error::custom(format!("expected a block index or \"exit\", got {n:?}"))),
        }
    }
}

/// Which relation a [`DomTree`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DomKind {
    /// Rooted at the entry, built on the CFG.
    Dominators,
    /// Rooted at the virtual exit, built on the reverse CFG.
    PostDominators,
}

/// Why a block is joined to the virtual exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitKind {
    /// Control leaves the function at the end of the block.
    Exit,
    /// Chosen by the infinite-loop rule ([`exit`]): the block cannot reach an exit.
    NoExitPath,
}

/// An edge from `block` to the virtual exit in the reverse graph of post-dominance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VirtualEdge {
    pub block: BlockId,
    pub kind: ExitKind,
}

/// A dominator or post-dominator tree.
///
/// Internally every table is indexed by a node number: block `i` is node `i`, the virtual
/// exit is node `num_blocks` (present only in post-dominator trees). Dominance queries are
/// O(1) through preorder/postorder numbers of the tree.
#[derive(Clone, Debug)]
pub struct DomTree {
    kind: DomKind,
    nblocks: usize,
    root: u32,
    idom: Vec<u32>,
    semi: Vec<u32>,
    /// Row `v`: the children of node `v`, in layout order.
    children: Rows<usize, BlockId>,
    depth: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    dfs_order: Vec<DomNode>,
    virtual_edges: Vec<VirtualEdge>,
    /// The blocks of `virtual_edges`, for O(1) lookup.
    joined: EntitySet<BlockId>,
}

impl DomTree {
    /// The dominator tree of the blocks reachable from the entry.
    pub fn dominators(f: &Function, cfg: &Cfg) -> DomTree {
        Self::build(f, cfg, DomKind::Dominators)
    }

    /// The post-dominator tree of all placed blocks, rooted at the virtual exit.
    pub fn post_dominators(f: &Function, cfg: &Cfg) -> DomTree {
        Self::build(f, cfg, DomKind::PostDominators)
    }

    /// Either tree, without a trace.
    pub fn build(f: &Function, cfg: &Cfg, kind: DomKind) -> DomTree {
        Self::construct(f, cfg, kind, None)
    }

    /// Either tree, and the Lengauer–Tarjan steps that built it (see [`trace`]).
    pub fn build_traced(f: &Function, cfg: &Cfg, kind: DomKind) -> (DomTree, Vec<DomEvent>) {
        let mut events = Vec::new();
        let t = Self::construct(f, cfg, kind, Some(&mut events));
        (t, events)
    }

    fn construct(f: &Function, cfg: &Cfg, kind: DomKind, mut trace: Option<&mut Vec<DomEvent>>) -> DomTree {
        debug_assert_eq!(f.blocks.len(), cfg.num_blocks(), "the CFG was built from another function");
        let (graph, virtual_edges) = match kind {
            DomKind::Dominators => (lt::Graph::forward(cfg), Vec::new()),
            DomKind::PostDominators => {
                let edges = exit::virtual_exit_edges(cfg);
                if let Some(t) = trace.as_deref_mut() {
                    t.extend(edges.iter().map(|e| DomEvent::VirtualEdge { block: e.block, kind: e.kind }));
                }
                let roots: Vec<BlockId> = edges.iter().map(|e| e.block).collect();
                (lt::Graph::reverse(cfg, &roots), edges)
            }
        };
        let res = lt::run(&graph, trace);
        let mut joined = EntitySet::new_empty(cfg.num_blocks());
        for e in &virtual_edges {
            joined.insert(e.block);
        }
        let n = graph.len();
        let root = res.order.first().copied().unwrap_or(NONE);

        // Children lists in layout order, one row per parent.
        let children: Rows<usize, BlockId> = Rows::grouped(
            n,
            cfg.blocks().iter().filter(|&&b| res.idom[b.index()] != NONE).map(|&b| (res.idom[b.index()] as usize, b)),
        );

        // Preorder/postorder numbers and depths of the tree itself.
        let mut pre = vec![NONE; n];
        let mut post = vec![NONE; n];
        let mut depth = vec![NONE; n];
        if root != NONE {
            let (mut pc, mut qc) = (0u32, 0u32);
            // (node, how many of its children were entered)
            let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
            pre[root as usize] = pc;
            pc += 1;
            depth[root as usize] = 0;
            while let Some(top) = stack.last_mut() {
                let (v, i) = *top;
                if let Some(&c) = children[v as usize].get(i) {
                    top.1 += 1;
                    let c = c.0;
                    pre[c as usize] = pc;
                    pc += 1;
                    depth[c as usize] = depth[v as usize] + 1;
                    stack.push((c, 0));
                } else {
                    post[v as usize] = qc;
                    qc += 1;
                    stack.pop();
                }
            }
        }

        DomTree {
            kind,
            nblocks: cfg.num_blocks(),
            root,
            idom: res.idom,
            semi: res.semi,
            children,
            depth,
            pre,
            post,
            dfs_order: res.order.iter().map(|&v| graph.node(v)).collect(),
            joined,
            virtual_edges,
        }
    }

    fn node_ix(&self, n: DomNode) -> Option<usize> {
        match n {
            DomNode::Block(b) => (b.index() < self.nblocks).then_some(b.index()),
            DomNode::VirtualExit => (self.kind == DomKind::PostDominators).then_some(self.nblocks),
        }
    }

    fn node_of(&self, v: u32) -> DomNode {
        if (v as usize) < self.nblocks {
            DomNode::Block(BlockId(v))
        } else {
            DomNode::VirtualExit
        }
    }

    fn in_tree(&self, v: usize) -> bool {
        self.pre.get(v).is_some_and(|&p| p != NONE)
    }

    pub fn kind(&self) -> DomKind {
        self.kind
    }

    /// The root: the entry, or the virtual exit; `None` for a function without blocks.
    pub fn root(&self) -> Option<DomNode> {
        (self.root != NONE).then(|| self.node_of(self.root))
    }

    /// Whether `b` is in the tree (reachable from the entry, for dominators).
    pub fn contains(&self, b: BlockId) -> bool {
        self.in_tree(b.index())
    }

    /// The tree parent of `b`: its immediate (post-)dominator, possibly the virtual exit.
    /// `None` for the root and for blocks not in the tree.
    pub fn parent(&self, b: BlockId) -> Option<DomNode> {
        let p = *self.idom.get(b.index())?;
        (p != NONE).then(|| self.node_of(p))
    }

    /// The parent of any node (`None` for the root and the virtual exit).
    pub fn parent_of(&self, n: DomNode) -> Option<DomNode> {
        n.block().and_then(|b| self.parent(b))
    }

    /// The immediate (post-)dominator of `b` as a block: `None` for the root, for a child of
    /// the virtual exit, and for blocks not in the tree.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.parent(b).and_then(DomNode::block)
    }

    /// The semidominator Lengauer–Tarjan computed for `b` (shown beside the idom in the UI).
    pub fn semidominator(&self, b: BlockId) -> Option<DomNode> {
        let s = *self.semi.get(b.index())?;
        (s != NONE).then(|| self.node_of(s))
    }

    /// The children of `n` in the tree, in layout order.
    pub fn children(&self, n: DomNode) -> &[BlockId] {
        match self.node_ix(n) {
            Some(v) => &self.children[v],
            None => &[],
        }
    }

    /// Depth in the tree: the root (entry or virtual exit) is 0.
    pub fn depth(&self, b: BlockId) -> Option<u32> {
        let d = *self.depth.get(b.index())?;
        (d != NONE).then_some(d)
    }

    /// Whether `a` (post-)dominates `b`; reflexive. False if either is not in the tree.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.dominates_node(DomNode::Block(a), DomNode::Block(b))
    }

    /// [`dominates`](Self::dominates) on nodes; the virtual exit post-dominates every block.
    pub fn dominates_node(&self, a: DomNode, b: DomNode) -> bool {
        let (Some(a), Some(b)) = (self.node_ix(a), self.node_ix(b)) else { return false };
        self.in_tree(a) && self.in_tree(b) && self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// `a` (post-)dominates `b` and `a != b`.
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }

    /// `b` and its (post-)dominators up the tree, nearest first, blocks only.
    pub fn ancestors(&self, b: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        let start = self.contains(b).then_some(b);
        std::iter::successors(start, move |&x| self.idom(x))
    }

    /// The deepest node dominating both `a` and `b`; `None` if either is not in the tree.
    pub fn nearest_common_dominator(&self, a: BlockId, b: BlockId) -> Option<DomNode> {
        let (mut x, mut y) = (DomNode::Block(a), DomNode::Block(b));
        let (mut dx, mut dy) = (self.depth(a)?, self.depth(b)?);
        while dx > dy {
            x = self.parent_of(x)?;
            dx -= 1;
        }
        while dy > dx {
            y = self.parent_of(y)?;
            dy -= 1;
        }
        while x != y {
            x = self.parent_of(x)?;
            y = self.parent_of(y)?;
        }
        Some(x)
    }

    /// The tree's blocks in preorder of the tree (parents before children, children in
    /// layout order) — a good order for drawing it.
    pub fn preorder(&self) -> Vec<DomNode> {
        let mut v: Vec<(u32, DomNode)> =
            (0..self.pre.len()).filter(|&i| self.in_tree(i)).map(|i| (self.pre[i], self.node_of(i as u32))).collect();
        v.sort_unstable();
        v.into_iter().map(|(_, n)| n).collect()
    }

    /// The nodes in the order the Lengauer–Tarjan DFS numbered them (the root first).
    pub fn dfs_order(&self) -> &[DomNode] {
        &self.dfs_order
    }

    /// Post-dominator trees: the edges to the virtual exit, exits first (see [`exit`]).
    pub fn virtual_exit_edges(&self) -> &[VirtualEdge] {
        &self.virtual_edges
    }

    /// Whether `b` is joined directly to the virtual exit (a predecessor of it in the CFG
    /// the post-dominator tree was built on).
    pub(crate) fn has_virtual_edge(&self, b: BlockId) -> bool {
        self.joined.contains(b)
    }
}

#[cfg(test)]
mod tests;
