//! The Dominators and Post-dominators tabs: Lengauer–Tarjan at the current step, as two
//! drawings (the graph searched and the tree being built) and the table of what is known
//! about every vertex ([`super::table`]); beside it, the selected block's (post-)dominance
//! frontier.

use super::decor::{search_decor, tree_decor, Selection};
use super::graphs::{search_graph, tree_graph, VertexGraph};
use optlab_core::dom::replay::LtState;
use super::table::{rows, LtTable};
use crate::graph::Style;
use crate::graph_view::GraphView;
use crate::program::Analysis;
use crate::state::{Action, Tab};
use crate::views::ViewProps;
use optlab_core::dom::{DomEvent, DomKind, DomNode, DomTree};
use optlab_core::entity::EntityVec;
use optlab_core::BlockId;
use std::rc::Rc;
use yew::prelude::*;

/// Which tree a tab shows.
pub fn kind_of(tab: Tab) -> DomKind {
    match tab {
        Tab::PDOM => DomKind::PostDominators,
        _ => DomKind::Dominators,
    }
}

fn tree_and_events(a: &Analysis, kind: DomKind) -> (&DomTree, &[DomEvent]) {
    match kind {
        DomKind::Dominators => (&a.dom, &a.dom_events),
        DomKind::PostDominators => (&a.pdom, &a.pdom_events),
    }
}

/// The drawings of one tree: built once per analysis.
struct Drawings {
    search: VertexGraph,
    tree: VertexGraph,
}

/// The vertices in table order: the root of a post-dominator tree (the virtual exit) first,
/// then every block in layout order, so rows never move while stepping.
pub fn table_order(a: &Analysis, kind: DomKind) -> Vec<DomNode> {
    let exit = (kind == DomKind::PostDominators).then_some(DomNode::VirtualExit);
    exit.into_iter().chain(a.cfg.blocks().iter().map(|&b| DomNode::Block(b))).collect()
}

/// The selected block (if the function has it) and its frontier in `frontier`.
pub fn selection(a: &Analysis, frontier: &EntityVec<BlockId, Vec<BlockId>>, name: Option<&str>) -> Selection {
    let Some(b) = name.and_then(|n| a.function.block_by_name(n)) else { return Selection::default() };
    let frontier = frontier.get(b).map_or(Vec::new(), |v| v.iter().map(|&x| DomNode::Block(x)).collect());
    Selection { block: Some(DomNode::Block(b)), frontier }
}

/// A click on a vertex: select its block, or clear the selection if it was selected (or is
/// the virtual exit, which is no block).
fn select(dispatch: &Callback<Action>, current: Option<AttrValue>, a: Rc<Analysis>) -> Callback<String> {
    let dispatch = dispatch.clone();
    Callback::from(move |id: String| {
        let again = current.as_deref() == Some(id.as_str());
        let is_block = a.function.block_by_name(&id).is_some();
        dispatch.emit(Action::SelectBlock((is_block && !again).then_some(id)));
    })
}

#[function_component(LtView)]
pub fn lt_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let kind = kind_of(s.tab);
    let Ok(a) = &s.analysis else { return html! {} };
    let drawings = use_memo((a.clone(), kind), |(a, kind)| {
        let (tree, _) = tree_and_events(a, *kind);
        Drawings { search: search_graph(&a.function, &a.cfg, tree), tree: tree_graph(&a.function, tree) }
    });
    let k = s.step(s.tab);
    let state = use_memo((a.clone(), kind, k), |(a, kind, k)| {
        LtState::at(a.function.blocks.len(), tree_and_events(a, *kind).1, *k)
    });
    let sel = selection(a, a.frontiers.of(kind), s.block.as_deref());
    let search = Rc::new(search_decor(&drawings.search, &state, &sel));
    let tree = Rc::new(tree_decor(&a.function, &drawings.tree, &state, &sel));
    let onselect = select(&props.dispatch, s.block.clone(), a.clone());
    let order = use_memo((a.clone(), kind), |(a, kind)| table_order(a, *kind));

    let (slug, search_title, tree_title) = match kind {
        DomKind::Dominators => ("dom", format!("CFG, searched from {}", entry_name(a)), "Dominator tree"),
        DomKind::PostDominators => {
            ("pdom", "Reverse CFG, searched from the virtual exit".to_string(), "Post-dominator tree")
        }
    };
    let style = |pane: &str| Style { id_prefix: format!("{slug}-{pane}"), ..Style::with_badges() };
    html! {
        <div class={classes!("dom-view", format!("dom-{slug}"))}>
            <div class="dom-panes">
                <section class="dom-pane dom-search">
                    <h3>{ search_title }</h3>
                    <GraphView graph={drawings.search.graph.clone()} decor={search} style={style("search")}
                        onselect={onselect.clone()} title={AttrValue::from(format!("{}-{slug}-search", a.function.name))} />
                </section>
                <section class="dom-pane dom-tree">
                    <h3>{ tree_title }{ legend(kind) }</h3>
                    <GraphView graph={drawings.tree.graph.clone()} decor={tree} style={style("tree")}
                        onselect={onselect.clone()} title={AttrValue::from(format!("{}-{slug}-tree", a.function.name))} />
                </section>
            </div>
            <div class="dom-side">
                <LtTable rows={rows(&a.function, &order, &state, &sel)} {onselect} id={format!("{slug}-lt-table")} />
                { frontier_note(a, kind, &sel, slug) }
            </div>
        </div>
    }
}

fn entry_name(a: &Analysis) -> String {
    a.cfg.entry().map_or_else(|| "the entry".to_string(), |b| a.function.block_name(b))
}

fn legend(kind: DomKind) -> Html {
    let rule = (kind == DomKind::PostDominators).then(|| html! { <span class="key key-rule">{ "dashed: infinite-loop rule" }</span> });
    html! {
        <span class="dom-legend">
            <span class="key key-current">{ "current" }</span>
            <span class="key key-role">{ "read by this step" }</span>
            <span class="key key-frontier">{ "frontier of the selected block" }</span>
            { for rule }
        </span>
    }
}

/// The selected block's (post-)dominance frontier, in words (`#<slug>-frontier-note`: one per
/// view, as both trees' views can be in the page).
fn frontier_note(a: &Analysis, kind: DomKind, sel: &Selection, slug: &str) -> Html {
    let id = format!("{slug}-frontier-note");
    let f = &a.function;
    let Some(b) = sel.block else {
        let what = match kind {
            DomKind::Dominators => "dominance frontier DF",
            DomKind::PostDominators => "post-dominance frontier PDF (the blocks it is control dependent on)",
        };
        return html! { <p {id} class="frontier-note muted">{ format!("Click a block to see its {what}.") }</p> };
    };
    let b = b.name(f);
    let members: Vec<String> = sel.frontier.iter().map(|&v| v.name(f)).collect();
    let text = match (kind, members.is_empty()) {
        (DomKind::Dominators, true) => {
            format!("DF({b}) is empty: no block has a predecessor that {b} dominates without {b} strictly dominating it.")
        }
        (DomKind::PostDominators, true) => {
            format!("PDF({b}) is empty: no branch decides whether {b} runs; it is control dependent on nothing.")
        }
        (DomKind::Dominators, false) => format!(
            "DF({b}) = {{{}}}: {b} dominates a predecessor of each, but does not strictly dominate it.",
            members.join(", ")
        ),
        (DomKind::PostDominators, false) => format!(
            "PDF({b}) = {{{}}}: {b} post-dominates a successor of each, but does not strictly post-dominate it — so {b} is control dependent on {}.",
            members.join(", "),
            if members.len() == 1 { "it" } else { "them" }
        ),
    };
    html! { <p {id} class="frontier-note">{ text }</p> }
}
