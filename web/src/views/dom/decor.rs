//! What the two drawings of a Lengauer–Tarjan step show, as [`Decor`]: DFS numbers and the
//! DFS tree on the searched graph, the vertices the current step reads (its predecessor, the
//! vertex EVAL returned, the semidominator), and on the tree the facts known so far, with the
//! tree edges hidden until the idom they stand for is final.
//!
//! Classes beyond graph.css's are styled in static/css/dom.css.

use super::graphs::VertexGraph;
use optlab_core::dom::replay::{Column, Idom, LtState};
use crate::graph::{Badge, Decor};
use optlab_core::dom::{DomEvent, DomNode};
use optlab_core::Function;
use std::collections::HashSet;

/// Edge classes: part of the DFS spanning tree; the edge the current step used; an edge not
/// established yet (invisible); the edge the current step added.
pub const TREE_EDGE: &str = "lt-tree";
pub const VIA_EDGE: &str = "lt-via";
pub const HIDDEN_EDGE: &str = "lt-hidden";
pub const NEW_EDGE: &str = "lt-new";
/// Node classes: a vertex the current step reads; a block in the selected block's frontier;
/// a vertex whose idom waits for step 4.
pub const ROLE: &str = "lt-role";
pub const FRONTIER: &str = "frontier";
pub const DEFERRED: &str = "lt-deferred";

/// The selected block and its (post-)dominance frontier, drawn on both panes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    pub block: Option<DomNode>,
    pub frontier: Vec<DomNode>,
}

fn mark_selection(d: &mut Decor, g: &VertexGraph, sel: &Selection) {
    if let Some(i) = sel.block.and_then(|b| g.node(b)) {
        d.node_class(i, "selected");
    }
    for &v in &sel.frontier {
        if let Some(i) = g.node(v) {
            d.node_class(i, FRONTIER);
        }
    }
}

/// The vertices the current step reads, with the part each plays.
fn roles(e: &DomEvent) -> Vec<(DomNode, &'static str)> {
    match *e {
        DomEvent::Semi { sdom, pred, from, .. } => vec![(pred, "pred"), (from, "EVAL"), (sdom, "sdom")],
        DomEvent::IdomIsSdom { idom, .. } | DomEvent::Idom { idom, .. } => vec![(idom, "idom")],
        DomEvent::IdomDeferred { same_as, .. } => vec![(same_as, "EVAL")],
        DomEvent::VirtualEdge { .. } | DomEvent::Dfs { .. } => Vec::new(),
    }
}

/// The searched graph at a step: numbers, the DFS tree so far, the current vertex and what
/// its step reads; vertices left unnumbered once the DFS is over are unreachable.
pub fn search_decor(g: &VertexGraph, st: &LtState, sel: &Selection) -> Decor {
    let mut d = Decor::new();
    for (i, &v) in g.vertices.iter().enumerate() {
        let facts = st.facts(v);
        match facts.dfs {
            Some(k) => {
                d.entry_badge(i, Badge::new(format!("dfs {k}"), "lt-num"));
            }
            None if st.dfs_done() => {
                d.node_class(i, "unreachable");
            }
            None => {}
        }
        if let Some(e) = facts.parent.and_then(|p| g.edge(p, v)) {
            d.edge_class(e, "highlight").edge_class(e, TREE_EDGE);
        }
    }
    // The virtual exit's edges exist once their step has added them.
    if let Some(x) = g.node(DomNode::VirtualExit) {
        let added: HashSet<usize> = st.virtual_edges().iter().filter_map(|&(b, _)| g.node(b.into())).collect();
        for (e, edge) in g.graph.edges.iter().enumerate().filter(|(_, e)| e.from == x) {
            if !added.contains(&edge.to) {
                d.edge_class(e, HIDDEN_EDGE);
            }
        }
    }
    if let Some(e) = st.last_event() {
        if let Some(i) = st.current().and_then(|v| g.node(v)) {
            d.node_class(i, "current");
        }
        let new_edge = match *e {
            DomEvent::VirtualEdge { block, .. } => g.edge(DomNode::VirtualExit, block.into()),
            DomEvent::Dfs { node, parent: Some(p), .. } => g.edge(p, node),
            _ => None,
        };
        if let Some(k) = new_edge {
            d.edge_class(k, NEW_EDGE);
        }
        if let DomEvent::Semi { node, pred, .. } = *e {
            if let Some(k) = g.edge(pred, node) {
                d.edge_class(k, VIA_EDGE);
            }
        }
        for (v, role) in roles(e) {
            if let Some(i) = g.node(v) {
                d.node_class(i, ROLE).exit_badge(i, Badge::new(role, ROLE));
            }
        }
    }
    mark_selection(&mut d, g, sel);
    d
}

/// The tree at a step: each vertex's DFS number and semidominator, a deferred idom, the edges
/// of final idoms (the others hidden), vertices not reached yet dimmed.
pub fn tree_decor(f: &Function, g: &VertexGraph, st: &LtState, sel: &Selection) -> Decor {
    let mut d = Decor::new();
    let changed = st.changed();
    let fresh = |v: DomNode, c: Column| if changed == Some((v, c)) { " changed" } else { "" };
    for (i, &v) in g.vertices.iter().enumerate() {
        let facts = st.facts(v);
        match facts.dfs {
            Some(k) => {
                d.entry_badge(i, Badge::new(format!("dfs {k}"), format!("lt-num{}", fresh(v, Column::Dfs))));
            }
            None => {
                d.node_class(i, "dim");
            }
        }
        if let Some(s) = facts.semi {
            let text = format!("sdom {}", s.sdom.short_name(f));
            d.exit_badge(i, Badge::new(text, format!("lt-sdom{}", fresh(v, Column::Sdom))));
        }
        // A final idom is the edge to the parent (shown from then on, and in the table); a
        // deferred one has no edge yet, so it gets a pill. One pill per side at most keeps
        // neighbouring boxes' pills apart.
        if let Idom::SameAs(u) = facts.idom {
            let text = format!("= idom({})", u.short_name(f));
            d.node_class(i, DEFERRED).exit_badge(i, Badge::new(text, format!("{DEFERRED}{}", fresh(v, Column::Idom))));
        }
        if let Some(e) = g.edge_into(i) {
            if facts.idom.final_node().is_none() {
                d.edge_class(e, HIDDEN_EDGE);
            } else if changed == Some((v, Column::Idom)) {
                d.edge_class(e, "highlight").edge_class(e, NEW_EDGE);
            }
        }
    }
    if let Some(i) = st.current().and_then(|v| g.node(v)) {
        d.node_class(i, "current");
    }
    mark_selection(&mut d, g, sel);
    d
}

#[cfg(test)]
mod tests {
    use super::super::graphs::{search_graph, tree_graph};
    use super::super::fixtures::{bril, LOOPY};
    use super::*;
    use optlab_core::cfg::Cfg;
    use optlab_core::dom::{DomKind, DomTree};

    fn classes_of(d: &Decor, i: usize) -> String {
        d.node(i).map_or(String::new(), |n| n.class.clone())
    }

    fn badges(d: &Decor, i: usize) -> Vec<String> {
        d.node(i).map_or(Vec::new(), |n| n.entry.iter().chain(&n.exit).map(|b| b.text.clone()).collect())
    }

    fn edge_has(d: &Decor, e: usize, class: &str) -> bool {
        d.edges.get(&e).is_some_and(|c| c.split_whitespace().any(|x| x == class))
    }

    #[test]
    fn at_step_zero_the_drawings_show_nothing_learnt() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        for kind in [DomKind::Dominators, DomKind::PostDominators] {
            let (tree, _) = DomTree::build_traced(&f, &cfg, kind);
            let st = LtState::new(f.blocks.len());
            let (sg, tg) = (search_graph(&f, &cfg, &tree), tree_graph(&f, &tree));
            let sd = search_decor(&sg, &st, &Selection::default());
            assert!((0..sg.graph.nodes.len()).all(|i| badges(&sd, i).is_empty()));
            assert!(!sd.edges.values().any(|c| c.contains("highlight")));
            let td = tree_decor(&f, &tg, &st, &Selection::default());
            for i in 0..tg.graph.nodes.len() {
                assert!(badges(&td, i).is_empty() && classes_of(&td, i) == "dim", "{kind:?} {i}");
            }
            assert!((0..tg.graph.edges.len()).all(|e| edge_has(&td, e, HIDDEN_EDGE)));
        }
    }

    #[test]
    fn at_the_end_every_tree_edge_shows_and_the_dfs_tree_is_highlighted() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let (tree, events) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
        let st = LtState::at(f.blocks.len(), &events, events.len());
        let (sg, tg) = (search_graph(&f, &cfg, &tree), tree_graph(&f, &tree));
        let td = tree_decor(&f, &tg, &st, &Selection::default());
        assert!(!(0..tg.graph.edges.len()).any(|e| edge_has(&td, e, HIDDEN_EDGE)));
        let latch = tg.node(DomNode::Block(f.layout[5])).unwrap();
        assert_eq!(badges(&td, latch), ["dfs 4", "sdom body"], "{:?}", td.node(latch));
        let sd = search_decor(&sg, &st, &Selection::default());
        let tree_edges = (0..sg.graph.edges.len()).filter(|&e| edge_has(&sd, e, TREE_EDGE)).count();
        let numbered = tree.dfs_order().len();
        assert_eq!(tree_edges, numbered - 1, "a spanning tree of the numbered vertices");
        let dead = sg.node(DomNode::Block(f.layout[6])).unwrap();
        assert!(classes_of(&sd, dead).contains("unreachable"));
    }

    #[test]
    fn a_semi_step_marks_what_it_read() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let (tree, events) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
        let k = events.iter().position(|e| matches!(e, DomEvent::Semi { .. })).unwrap() + 1;
        let DomEvent::Semi { node, pred, .. } = events[k - 1] else { unreachable!() };
        let st = LtState::at(f.blocks.len(), &events, k);
        let sg = search_graph(&f, &cfg, &tree);
        let sd = search_decor(&sg, &st, &Selection::default());
        assert!(classes_of(&sd, sg.node(node).unwrap()).contains("current"));
        assert!(badges(&sd, sg.node(pred).unwrap()).contains(&"pred".to_string()));
        assert!(edge_has(&sd, sg.edge(pred, node).unwrap(), VIA_EDGE));
        let tg = tree_graph(&f, &tree);
        let td = tree_decor(&f, &tg, &st, &Selection::default());
        let n = td.node(tg.node(node).unwrap()).unwrap();
        assert!(n.exit.iter().any(|b| b.text.starts_with("sdom ") && b.class.contains("changed")), "{n:?}");
    }

    #[test]
    fn post_dominator_virtual_edges_appear_one_step_at_a_time() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let (tree, events) = DomTree::build_traced(&f, &cfg, DomKind::PostDominators);
        let sg = search_graph(&f, &cfg, &tree);
        let hidden = |k: usize| {
            let sd = search_decor(&sg, &LtState::at(f.blocks.len(), &events, k), &Selection::default());
            (0..sg.graph.edges.len()).filter(|&e| edge_has(&sd, e, HIDDEN_EDGE)).count()
        };
        assert_eq!(hidden(0), 2);
        assert_eq!(hidden(1), 1);
        assert_eq!(hidden(2), 0);
        assert_eq!(hidden(events.len()), 0);
        // Under the tree, the virtual exit has a short name: its children sit side by side.
        let tg = tree_graph(&f, &tree);
        let td = tree_decor(&f, &tg, &LtState::at(f.blocks.len(), &events, events.len()), &Selection::default());
        let out = tg.node(DomNode::Block(f.layout[9])).unwrap();
        assert!(badges(&td, out).contains(&"sdom (exit)".to_string()), "{:?}", td.node(out));
    }

    #[test]
    fn the_selection_and_its_frontier_are_marked_on_both_panes() {
        let f = bril(LOOPY);
        let cfg = Cfg::new(&f);
        let tree = DomTree::dominators(&f, &cfg);
        let (a, latch) = (DomNode::Block(f.layout[3]), DomNode::Block(f.layout[5]));
        let sel = Selection { block: Some(a), frontier: vec![latch] };
        let st = LtState::new(f.blocks.len());
        let (sg, tg) = (search_graph(&f, &cfg, &tree), tree_graph(&f, &tree));
        for (g, dec) in [(&sg, search_decor(&sg, &st, &sel)), (&tg, tree_decor(&f, &tg, &st, &sel))] {
            assert!(classes_of(&dec, g.node(a).unwrap()).contains("selected"));
            assert!(classes_of(&dec, g.node(latch).unwrap()).contains(FRONTIER));
        }
    }

    #[test]
    fn a_deferred_idom_shows_as_a_pill_until_step_4_draws_its_edge() {
        // DFS r, a, b, c: step 3 defers idom(c) to idom(b) (see steps.rs).
        let text = "@main {\n.r:\n  c: bool = const true;\n  br c .a .b;\n.a:\n  br c .b .c;\n.b:\n  jmp .c;\n.c:\n  ret;\n}\n";
        let f = bril(text);
        let cfg = Cfg::new(&f);
        let (tree, events) = DomTree::build_traced(&f, &cfg, DomKind::Dominators);
        let tg = tree_graph(&f, &tree);
        let c = DomNode::Block(f.layout[3]);
        let i = tg.node(c).unwrap();
        let into_c = tg.edge_into(i).unwrap();
        let k = events.iter().position(|e| matches!(e, DomEvent::IdomDeferred { .. })).unwrap() + 1;
        let td = tree_decor(&f, &tg, &LtState::at(f.blocks.len(), &events, k), &Selection::default());
        assert!(badges(&td, i).contains(&"= idom(b)".to_string()), "{:?}", td.node(i));
        assert!(classes_of(&td, i).contains(DEFERRED));
        assert!(edge_has(&td, into_c, HIDDEN_EDGE));
        let resolved = events.iter().position(|e| matches!(e, DomEvent::Idom { node, .. } if *node == c)).unwrap() + 1;
        let td = tree_decor(&f, &tg, &LtState::at(f.blocks.len(), &events, resolved), &Selection::default());
        assert!(!badges(&td, i).iter().any(|b| b.starts_with('=')), "{:?}", td.node(i));
        assert!(edge_has(&td, into_c, NEW_EDGE) && !edge_has(&td, into_c, HIDDEN_EDGE));
        assert_eq!(tg.graph.nodes[tg.graph.edges[into_c].from].id, "r");
    }
}
