//! The dominator views over the whole example gallery: every function's replay ends in the
//! core's trees, its step texts name only what is known, and every drawing lays out.

use super::cdg_view::{cdg_decor, explain};
use super::decor::{search_decor, tree_decor, Selection};
use super::graphs::{cdg_graph, search_graph, tree_graph, VertexGraph};
use super::lt_view::{selection, table_order};
use optlab_core::dom::replay::LtState;
use crate::examples::EXAMPLES;
use crate::graph::{layout, Style};
use crate::program::{Analysis, Program};
use optlab_core::dom::{DomKind, DomNode};

/// Every analysable function of the gallery, with its example's id.
fn gallery() -> Vec<(String, Analysis)> {
    let mut out = Vec::new();
    for ex in EXAMPLES {
        let program = Program::parse(ex.lang, ex.file, &ex.text()).unwrap_or_else(|e| panic!("{}: {}", ex.id, e.text));
        for name in program.function_names() {
            let f = program.function(&name).expect("listed");
            if let Ok(a) = Analysis::new(f, program.type_env(&Default::default())) {
                out.push((format!("{}/@{name}", ex.id), a));
            }
        }
    }
    assert!(out.len() >= EXAMPLES.len(), "every example has a function to show");
    out
}

fn lays_out(what: &str, g: &VertexGraph, style: &Style) {
    let l = layout(&g.graph, style);
    assert_eq!(l.nodes.len(), g.graph.nodes.len(), "{what}");
    assert!(l.nodes.iter().all(Option::is_some), "{what}: a node was not placed");
}

#[test]
fn the_last_step_of_every_gallery_function_is_the_core_tree() {
    for (what, a) in gallery() {
        for (kind, tree, events, steps) in [
            (DomKind::Dominators, &a.dom, &a.dom_events, &a.dom_steps),
            (DomKind::PostDominators, &a.pdom, &a.pdom_events, &a.pdom_steps),
        ] {
            let n = a.function.blocks.len();
            assert_eq!(steps.len(), events.len() + 1, "{what} {kind:?}");
            let start = LtState::at(n, events, 0);
            let end = LtState::at(n, events, steps.len() - 1);
            for v in table_order(&a, kind) {
                assert_eq!(start.facts(v), Default::default(), "{what} {kind:?}: nothing known at step 0");
                let facts = end.facts(v);
                let want = v.block().and_then(|b| tree.parent(b));
                assert_eq!(facts.idom.final_node(), want, "{what} {kind:?} {v:?}");
            }
            for k in 0..steps.len() {
                assert!(!steps.describe(k).contains('?'), "{what} {kind:?} step {k}: {}", steps.describe(k));
            }
        }
    }
}

#[test]
fn every_gallery_drawing_lays_out_and_decorates() {
    let style = Style::with_badges();
    for (what, a) in gallery() {
        let f = &a.function;
        let fr = &a.frontiers;
        for (kind, tree, events) in
            [(DomKind::Dominators, &a.dom, &a.dom_events), (DomKind::PostDominators, &a.pdom, &a.pdom_events)]
        {
            let (sg, tg) = (search_graph(f, &a.cfg, tree), tree_graph(f, tree));
            lays_out(&format!("{what} {kind:?} search"), &sg, &style);
            lays_out(&format!("{what} {kind:?} tree"), &tg, &style);
            let df = fr.of(kind);
            let last = f.layout.last().map(|&b| f.blocks[b].name.clone());
            let sel = selection(&a, df, last.as_deref());
            let mid = LtState::at(f.blocks.len(), events, events.len() / 2);
            assert!(!search_decor(&sg, &mid, &sel).is_empty() || events.is_empty(), "{what}");
            let _ = tree_decor(f, &tg, &mid, &sel);
        }
        let cg = cdg_graph(f, &a.cfg, &a.cdg);
        lays_out(&format!("{what} cdg"), &cg, &Style::default());
        for &b in &f.layout {
            let d = cdg_decor(&a, &cg, Some(b));
            assert!(d.node(cg.node(DomNode::Block(b)).unwrap()).is_some_and(|n| n.class.contains("selected")));
            let text = explain(&a, b);
            assert!(text.len() > a.cdg.deps(b).len(), "{what}: {text:?}");
        }
    }
}

#[test]
fn an_unknown_selected_name_selects_nothing() {
    let (_, a) = gallery().swap_remove(0);
    let fr = &a.frontiers;
    let df = fr.of(DomKind::Dominators);
    assert_eq!(selection(&a, df, Some("no such block")), Selection::default());
    assert_eq!(selection(&a, df, Some(optlab_core::dom::VIRTUAL_EXIT_NAME)), Selection::default());
    assert_eq!(selection(&a, df, None), Selection::default());
}
