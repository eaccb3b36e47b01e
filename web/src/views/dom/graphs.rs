//! The drawings of the dominator views as [`Graph`]s: the graph Lengauer–Tarjan searches (the
//! CFG, or the reverse CFG with the virtual exit), the finished (post-)dominator tree, and
//! the control-dependence graph.
//!
//! Their text never changes while stepping (only the [`Decor`](crate::graph::Decor) does), so
//! each is laid out once per program.

use crate::graph::{Edge, EdgeKind, Graph, Node};
use optlab_core::cfg::Cfg;
use optlab_core::dom::{ControlDeps, DomKind, DomNode, DomTree, ExitKind};
use optlab_core::{BlockId, Function};
use std::collections::HashMap;
use std::rc::Rc;

/// Node class of the virtual exit (styled in static/css/dom.css).
pub const VIRTUAL_CLASS: &str = "virtual";

/// A graph whose nodes are tree vertices, and the way back from a vertex to its node.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexGraph {
    pub graph: Rc<Graph>,
    /// The vertex of each node.
    pub vertices: Vec<DomNode>,
    index: HashMap<DomNode, usize>,
    /// The first edge between two nodes, and the first edge into each node: decorating a step
    /// looks an edge up per vertex, which must not scan all edges on large functions.
    edge_ix: HashMap<(usize, usize), usize>,
    first_in: Vec<Option<usize>>,
}

impl VertexGraph {
    fn new(nodes: Vec<(DomNode, Node)>, edges: impl FnOnce(&dyn Fn(DomNode) -> Option<usize>) -> Vec<Edge>) -> VertexGraph {
        let index: HashMap<DomNode, usize> = nodes.iter().enumerate().map(|(i, (v, _))| (*v, i)).collect();
        let edges = edges(&|v| index.get(&v).copied());
        let (vertices, nodes): (Vec<_>, Vec<_>) = nodes.into_iter().unzip();
        let mut edge_ix = HashMap::with_capacity(edges.len());
        let mut first_in = vec![None; nodes.len()];
        for (k, e) in edges.iter().enumerate() {
            edge_ix.entry((e.from, e.to)).or_insert(k);
            if let Some(slot @ None) = first_in.get_mut(e.to) {
                *slot = Some(k);
            }
        }
        VertexGraph { graph: Rc::new(Graph { nodes, edges }), vertices, index, edge_ix, first_in }
    }

    /// The node showing `v`.
    pub fn node(&self, v: DomNode) -> Option<usize> {
        self.index.get(&v).copied()
    }

    /// The first edge `from → to`.
    pub fn edge(&self, from: DomNode, to: DomNode) -> Option<usize> {
        self.edge_ix.get(&(self.node(from)?, self.node(to)?)).copied()
    }

    /// The first edge into node `i` (in a tree, the edge from its parent).
    pub fn edge_into(&self, i: usize) -> Option<usize> {
        self.first_in.get(i).copied().flatten()
    }
}

fn vertex_node(f: &Function, v: DomNode, lines: Vec<String>) -> Node {
    let name = v.name(f);
    let mut n = Node::new(name.clone(), name, lines);
    if v == DomNode::VirtualExit {
        n.class = VIRTUAL_CLASS.to_string();
    }
    n
}

/// The kind of the `k`-th edge out of a block with `n` successors: the two sides of a
/// two-way branch are coloured as in the CFG view.
fn branch_kind(n: usize, k: usize) -> EdgeKind {
    match (n, k) {
        (2, 0) => EdgeKind::True,
        (2, _) => EdgeKind::False,
        _ => EdgeKind::Normal,
    }
}

/// The graph the search runs on, one titled box per vertex: for dominators the CFG from the
/// entry; for post-dominators the reverse CFG, whose root is the virtual exit with an edge to
/// every block joined to it (dashed for the infinite-loop rule's).
pub fn search_graph(f: &Function, cfg: &Cfg, tree: &DomTree) -> VertexGraph {
    let blocks = cfg.blocks().iter().map(|&b| (DomNode::Block(b), vertex_node(f, b.into(), Vec::new())));
    match tree.kind() {
        DomKind::Dominators => VertexGraph::new(blocks.collect(), |ix| {
            let mut edges = Vec::new();
            for &b in cfg.blocks() {
                let succs = cfg.succs(b);
                for (k, &s) in succs.iter().enumerate() {
                    if let (Some(i), Some(j)) = (ix(b.into()), ix(s.into())) {
                        edges.push(Edge { kind: branch_kind(succs.len(), k), ..Edge::new(i, j) });
                    }
                }
            }
            edges
        }),
        DomKind::PostDominators => {
            let exit = (DomNode::VirtualExit, vertex_node(f, DomNode::VirtualExit, Vec::new()));
            VertexGraph::new(std::iter::once(exit).chain(blocks).collect(), |ix| {
                let mut edges = Vec::new();
                for e in tree.virtual_exit_edges() {
                    if let (Some(i), Some(j)) = (ix(DomNode::VirtualExit), ix(e.block.into())) {
                        edges.push(match e.kind {
                            ExitKind::Exit => Edge::new(i, j),
                            // Dashed, without a label: a label is drawn apart from its edge and
                            // would show while the edge is still hidden.
                            ExitKind::NoExitPath => Edge { kind: EdgeKind::Dashed, ..Edge::new(i, j) },
                        });
                    }
                }
                for &b in cfg.blocks() {
                    for &p in cfg.preds(b) {
                        if let (Some(i), Some(j)) = (ix(b.into()), ix(p.into())) {
                            edges.push(Edge::new(i, j));
                        }
                    }
                }
                edges
            })
        }
    }
}

/// The finished tree, root first (an edge per immediate (post-)dominator). The view hides
/// the edges the run has not established yet, so the drawing does not move while stepping.
pub fn tree_graph(f: &Function, tree: &DomTree) -> VertexGraph {
    let nodes = tree.preorder().into_iter().map(|v| (v, vertex_node(f, v, Vec::new()))).collect();
    let rule: Vec<BlockId> =
        tree.virtual_exit_edges().iter().filter(|e| e.kind == ExitKind::NoExitPath).map(|e| e.block).collect();
    VertexGraph::new(nodes, |ix| {
        let mut edges = Vec::new();
        for v in tree.preorder() {
            for &c in tree.children(v) {
                if let (Some(i), Some(j)) = (ix(v), ix(c.into())) {
                    let by_rule = v == DomNode::VirtualExit && rule.contains(&c);
                    let kind = if by_rule { EdgeKind::Dashed } else { EdgeKind::Normal };
                    edges.push(Edge { kind, ..Edge::new(i, j) });
                }
            }
        }
        edges
    })
}

/// The control-dependence graph: an edge `x → y` when `y` is control dependent on `x`,
/// coloured by the side of `x`'s branch that commits to `y` (core's
/// [`ControlDeps::deciding_edges`]). Each box shows the block's terminator (the branch that
/// decides).
pub fn cdg_graph(f: &Function, cfg: &Cfg, cdg: &ControlDeps) -> VertexGraph {
    let code = crate::cfg_graph::block_code(f);
    let nodes = cfg
        .blocks()
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let has_term = f.blocks.get(b).is_some_and(|blk| blk.term.is_some());
            let last = code.get(i).and_then(|(lines, _)| lines.last()).filter(|_| has_term);
            let line = last.map_or_else(|| "(falls through)".to_string(), |l| l.trim().to_string());
            (DomNode::Block(b), vertex_node(f, b.into(), vec![line]))
        })
        .collect();
    VertexGraph::new(nodes, |ix| {
        cdg.edges()
            .filter_map(|(x, y)| {
                let (i, j) = (ix(x.into())?, ix(y.into())?);
                let succs = cfg.succs(x);
                let side = cdg.deciding_edges(x, y).first().and_then(|s| succs.iter().position(|t| t == s));
                let kind = side.map_or(EdgeKind::Normal, |k| branch_kind(succs.len(), k));
                Some(Edge { kind, ..Edge::new(i, j) })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use optlab_core::dom::VIRTUAL_EXIT_NAME as VIRTUAL_EXIT;
    use super::super::fixtures::{bril, LOOPY};
    use super::*;

    fn names(g: &VertexGraph) -> Vec<&str> {
        g.graph.nodes.iter().map(|n| n.id.as_str()).collect()
    }

    fn edge_names(g: &VertexGraph) -> Vec<(String, String, EdgeKind)> {
        let id = |i: usize| g.graph.nodes[i].id.clone();
        g.graph.edges.iter().map(|e| (id(e.from), id(e.to), e.kind)).collect()
    }

    #[test]
    fn the_forward_search_graph_is_the_cfg() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let g = search_graph(&f, &cfg, &DomTree::dominators(&f, &cfg));
        assert_eq!(names(&g), ["entry", "head", "body", "a", "b", "latch", "dead", "done", "spin", "out"]);
        assert_eq!(g.graph.edges.len(), cfg.num_edges());
        let e = edge_names(&g);
        assert!(e.contains(&("head".into(), "body".into(), EdgeKind::True)));
        assert!(e.contains(&("head".into(), "done".into(), EdgeKind::False)));
        assert!(e.contains(&("latch".into(), "head".into(), EdgeKind::Normal)));
        let (head, body) = (g.vertices[1], g.vertices[2]);
        assert_eq!(g.edge(head, body), Some(g.graph.edge_index(1, 2).unwrap()));
        assert_eq!(g.edge(body, head), None);
    }

    #[test]
    fn the_reverse_search_graph_starts_at_the_virtual_exit() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let g = search_graph(&f, &cfg, &DomTree::post_dominators(&f, &cfg));
        assert_eq!(g.graph.nodes[0].id, VIRTUAL_EXIT);
        assert_eq!(g.graph.nodes[0].class, VIRTUAL_CLASS);
        assert_eq!(g.node(DomNode::VirtualExit), Some(0));
        let e = edge_names(&g);
        // out returns; spin is joined by the infinite-loop rule; every CFG edge is reversed.
        assert!(e.contains(&(VIRTUAL_EXIT.into(), "out".into(), EdgeKind::Normal)));
        assert!(e.contains(&(VIRTUAL_EXIT.into(), "spin".into(), EdgeKind::Dashed)));
        assert_eq!(g.graph.edges.iter().filter(|e| e.kind == EdgeKind::Dashed).count(), 1);
        assert!(e.contains(&("head".into(), "latch".into(), EdgeKind::Normal)));
        assert!(!e.contains(&("latch".into(), "head".into(), EdgeKind::Normal)));
        assert_eq!(g.graph.edges.len(), cfg.num_edges() + 2);
    }

    #[test]
    fn tree_graphs_have_an_edge_per_parent() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        for tree in [DomTree::dominators(&f, &cfg), DomTree::post_dominators(&f, &cfg)] {
            let g = tree_graph(&f, &tree);
            assert_eq!(Some(g.vertices[0]), tree.root());
            let mut expected = 0;
            for &b in cfg.blocks() {
                match tree.parent(b) {
                    Some(p) => {
                        expected += 1;
                        assert!(g.edge(p, b.into()).is_some(), "{}", f.blocks[b].name);
                        assert_eq!(g.edge_into(g.node(b.into()).unwrap()), g.edge(p, b.into()));
                    }
                    None => assert!(tree.root() == Some(b.into()) || !tree.contains(b)),
                }
            }
            assert_eq!(g.graph.edges.len(), expected);
        }
        let pdom = DomTree::post_dominators(&f, &cfg);
        let g = tree_graph(&f, &pdom);
        let e = edge_names(&g);
        assert!(e.contains(&(VIRTUAL_EXIT.into(), "spin".into(), EdgeKind::Dashed)), "{e:?}");
        // dead is unreachable: not in the dominator tree, but post-dominated like any block.
        assert!(!names(&tree_graph(&f, &DomTree::dominators(&f, &cfg))).contains(&"dead"));
        assert!(names(&g).contains(&"dead"));
    }

    #[test]
    fn the_cdg_has_an_edge_per_dependence_coloured_by_branch_side() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let pdom = DomTree::post_dominators(&f, &cfg);
        let cdg = ControlDeps::new(&f, &cfg, &pdom);
        let g = cdg_graph(&f, &cfg, &cdg);
        assert_eq!(g.graph.edges.len(), cdg.edges().count());
        let e = edge_names(&g);
        // a runs when body's branch goes its true way, b its false way.
        assert!(e.contains(&("body".into(), "a".into(), EdgeKind::True)), "{e:?}");
        assert!(e.contains(&("body".into(), "b".into(), EdgeKind::False)), "{e:?}");
        let body = g.node(DomNode::Block(f.layout[2])).unwrap();
        assert_eq!(g.graph.nodes[body].lines, ["br c .a .b;"]);
        let latch = &g.graph.nodes[g.node(DomNode::Block(f.layout[5])).unwrap()];
        assert_eq!(latch.lines, ["jmp .head;"]);
    }
}
