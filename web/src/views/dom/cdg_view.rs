//! The Control dependence tab: the CDG (an edge `X → Y` when `Y` is control dependent on
//! `X`), and for the selected block why, in terms of its post-dominance frontier.

use super::decor::FRONTIER;
use super::graphs::{cdg_graph, VertexGraph};
use crate::graph::{Decor, Style};
use crate::graph_view::GraphView;
use crate::program::Analysis;
use crate::state::Action;
use crate::views::ViewProps;
use optlab_core::BlockId;
use yew::prelude::*;

/// The selected block, its controllers (its PDF) highlighted, and the edges into it.
pub fn cdg_decor(a: &Analysis, g: &VertexGraph, selected: Option<BlockId>) -> Decor {
    let mut d = Decor::new();
    let Some(y) = selected else { return d };
    if let Some(i) = g.node(y.into()) {
        d.node_class(i, "selected");
    }
    for &x in a.cdg.deps(y) {
        if let Some(i) = g.node(x.into()) {
            d.node_class(i, FRONTIER);
        }
        if let Some(e) = g.edge(x.into(), y.into()) {
            d.edge_class(e, "highlight");
        }
    }
    d
}

/// Why `y` depends on what it depends on: one sentence per controlling block, naming the
/// branch edge that commits to `y`.
pub fn explain(a: &Analysis, y: BlockId) -> Vec<String> {
    let f = &a.function;
    let name = |b: BlockId| f.block_name(b);
    let deps = a.cdg.deps(y);
    let (yn, set) = (name(y), deps.iter().map(|&b| name(b)).collect::<Vec<_>>().join(", "));
    let mut out = Vec::new();
    if deps.is_empty() {
        out.push(format!(
            "PDF({yn}) is empty: no branch decides whether {yn} runs, so it is control dependent on nothing."
        ));
    } else {
        let on = if deps.len() == 1 { set.clone() } else { "each of them".to_string() };
        out.push(format!("PDF({yn}) = {{{set}}}: {yn} is control dependent on {on}."));
    }
    for &x in deps {
        let xn = name(x);
        let line = match a.cdg.deciding_edges(x, y).first().copied() {
            Some(s) if x == y => format!(
                "{xn} → {}: {yn} post-dominates {} — {yn}'s own branch decides whether it runs again.",
                name(s),
                name(s)
            ),
            Some(s) => format!(
                "{xn} → {}: {yn} post-dominates {}, but not {xn}: taking this edge commits to {yn}, another edge may avoid it.",
                name(s),
                name(s)
            ),
            // The virtual exit is the successor (the infinite-loop rule's extra edge "out").
            None => format!("{xn}: its edge to the virtual exit avoids {yn}, its other edges commit to it."),
        };
        out.push(line);
    }
    let controls: Vec<String> = a.cdg.dependents(y).iter().map(|&b| name(b)).collect();
    if !controls.is_empty() {
        out.push(format!("{yn}'s own branch controls: {}.", controls.join(", ")));
    }
    out
}

#[function_component(CdgView)]
pub fn cdg_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let graph = use_memo(a.clone(), |a| cdg_graph(&a.function, &a.cfg, &a.cdg));
    let selected = s.block.as_deref().and_then(|n| a.function.block_by_name(n));
    let decor = std::rc::Rc::new(cdg_decor(a, &graph, selected));
    let onselect = {
        let (dispatch, current) = (props.dispatch.clone(), s.block.clone());
        Callback::from(move |id: String| {
            let again = current.as_deref() == Some(id.as_str());
            dispatch.emit(Action::SelectBlock((!again).then_some(id)));
        })
    };
    let f = &a.function;
    let rows = a.cfg.blocks().iter().map(|&b| {
        let list = |v: &[BlockId]| v.iter().map(|&x| f.block_name(x)).collect::<Vec<_>>().join(", ");
        let id = f.block_name(b);
        let onclick = onselect.reform({
            let id = id.clone();
            move |_: MouseEvent| id.clone()
        });
        let class = classes!((selected == Some(b)).then_some("selected"));
        html! {
            <tr {class} data-block={id.clone()} {onclick}>
                <th scope="row">{ id }</th>
                <td class="deps">{ list(a.cdg.deps(b)) }</td>
                <td class="controls">{ list(a.cdg.dependents(b)) }</td>
            </tr>
        }
    });
    let rows: Html = rows.collect();
    let note = match selected {
        Some(y) => explain(a, y).into_iter().map(|t| html! { <p>{ t }</p> }).collect::<Html>(),
        None => html! { <p class="muted">{ "Click a block to see why it depends on what it depends on." }</p> },
    };
    let style = Style { id_prefix: "cdg".into(), ..Style::default() };
    html! {
        <div class="dom-view dom-cdg">
            <div class="dom-panes single">
                <section class="dom-pane">
                    <h3>
                        { "Control dependence: an edge X → Y when Y is control dependent on X (X ∈ PDF(Y)); green/red: the branch's true/false side" }
                    </h3>
                    <GraphView graph={graph.graph.clone()} {decor} {style} {onselect}
                        title={AttrValue::from(format!("{}-cdg", a.function.name))} />
                </section>
            </div>
            <div class="dom-side">
                <div id="cdg-note" class="frontier-note">{ note }</div>
                <table id="cdg-table" class="lt-table">
                    <thead><tr><th scope="col">{ "block" }</th><th scope="col">{ "control dependent on (PDF)" }</th>
                        <th scope="col">{ "controls" }</th></tr></thead>
                    <tbody>{ rows }</tbody>
                </table>
            </div>
        </div>
    }
}
