//! The graphs the other views will draw, so that the layout worker can lay them out while the
//! page is idle ([`crate::graph::web::prefetch_layout`]): opening a view then finds its
//! layouts cached instead of waiting for the worker (about 300 ms for the two dominator trees
//! of a 1,000-block function).
//!
//! Each view builds its own graphs again when it opens (in a few ms); the cache matches them
//! by content. The lists here must follow what the views draw: the browser test "a view opened
//! after the prefetch draws its graph in the first frame" (tests/browser/dom.test.mjs) fails
//! if they drift.

use super::dom::graphs::{cdg_graph, search_graph, tree_graph};
use crate::graph::{Graph, Style};
use crate::program::Analysis;
use crate::state::{State, Tab};
use optlab_core::dom::DomKind;
use std::rc::Rc;

/// The graphs of `tab`'s view on `a` with their styles: first the one its current step shows,
/// then the others its steps show.
pub fn graphs(s: &State, a: &Analysis, tab: Tab) -> Vec<(Rc<Graph>, Style)> {
    match tab {
        Tab::DOM | Tab::PDOM => {
            let tree = if tab == Tab::DOM { &a.dom } else { &a.pdom };
            debug_assert_eq!(tree.kind(), if tab == Tab::DOM { DomKind::Dominators } else { DomKind::PostDominators });
            let style = Style::with_badges();
            vec![
                (search_graph(&a.function, &a.cfg, tree).graph, style.clone()),
                (tree_graph(&a.function, tree).graph, style),
            ]
        }
        Tab::CDG => vec![(cdg_graph(&a.function, &a.cfg, &a.cdg).graph, Style::default())],
        t if t == Tab::pass("dce") => {
            let Some(r) = super::dce::result(a) else { return Vec::new() };
            let model = super::dce::model::Model::new(&a.function, r);
            let k = s.step(t);
            let now = model.graph(k);
            let other = model.graph(if model.in_sweep(k) { 0 } else { usize::MAX });
            let style = Style::default();
            let mut out = vec![(now.clone(), style.clone())];
            if !Rc::ptr_eq(&now, &other) {
                out.push((other, style));
            }
            out
        }
        t if t == Tab::pass("lcm") => {
            let Ok((out, steps)) = super::lcm::run(a) else { return Vec::new() };
            let graphs = super::lcm::decor::LcmGraphs::new(&a.function, out);
            let now = graphs.graph_at(out, steps.pos(s.step(t)));
            let style = super::lcm::graph_style(s.lecture);
            let mut list = vec![now];
            for g in [graphs.before.graph.clone(), graphs.split.graph.clone(), graphs.after.clone()] {
                if !list.iter().any(|x| Rc::ptr_eq(x, &g)) {
                    list.push(g);
                }
            }
            list.into_iter().map(|g| (g, style.clone())).collect()
        }
        _ => Vec::new(),
    }
}

/// The tabs to prefetch while `current` is shown: the others, nearest first.
pub fn order(current: Tab) -> Vec<Tab> {
    let all = Tab::all();
    let at = all.iter().position(|&t| t == current).unwrap_or(0) as isize;
    let mut rest: Vec<(isize, Tab)> =
        all.iter().enumerate().filter(|(_, &t)| t != current).map(|(i, &t)| ((i as isize - at).abs(), t)).collect();
    rest.sort_by_key(|&(d, _)| d);
    rest.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_tabs_first_and_never_the_current_one() {
        let o = order(Tab::CFG);
        assert_eq!(&o[..3], [Tab::DOM, Tab::PDOM, Tab::CDG]);
        assert!(!o.contains(&Tab::CFG));
        assert_eq!(o.len(), Tab::all().len() - 1);
        let o = order(Tab::CDG);
        assert_eq!(&o[..2], [Tab::PDOM, Tab::TYPES]);
    }
}
