//! The Control dependence tab: the CDG (an edge `X → Y` when `Y` is control dependent on
//! `X`), and for the selected block why, in terms of its post-dominance frontier.

use super::decor::FRONTIER;
use super::graphs::{cdg_graph, VertexGraph};
use crate::graph::{Decor, Style};
use crate::graph_view::GraphView;
use crate::program::Analysis;
use crate::state::Action;
use crate::views::rows::{spacer, use_reveal, use_row_window};
use crate::views::ViewProps;
use super::table::clicked_row;
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
    let onselect: Callback<String> = {
        let (dispatch, current) = (props.dispatch.clone(), s.block.clone());
        Callback::from(move |id: String| {
            let again = current.as_deref() == Some(id.as_str());
            dispatch.emit(Action::SelectBlock((!again).then_some(id)));
        })
    };
    let f = &a.function;
    let list = |v: &[BlockId]| AttrValue::from(v.iter().map(|&x| f.block_name(x)).collect::<Vec<_>>().join(", "));
    let rows: Vec<CdgRow> = a
        .cfg
        .blocks()
        .iter()
        .map(|&b| CdgRow {
            block: AttrValue::from(f.block_name(b)),
            deps: list(a.cdg.deps(b)),
            controls: list(a.cdg.dependents(b)),
            selected: selected == Some(b),
        })
        .collect();
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
                    <GraphView graph={graph.graph.clone()} {decor} {style} onselect={onselect.clone()}
                        title={AttrValue::from(format!("{}-cdg", a.function.name))} />
                </section>
            </div>
            <div class="dom-side">
                <div id="cdg-note" class="frontier-note">{ note }</div>
                <CdgTable {rows} {onselect} />
            </div>
        </div>
    }
}

/// One row of the CDG's table, as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct CdgRow {
    pub block: AttrValue,
    /// The blocks it is control dependent on (its PDF), and those its branch controls.
    pub deps: AttrValue,
    pub controls: AttrValue,
    pub selected: bool,
}

#[derive(Properties, PartialEq)]
struct CdgTableProps {
    rows: Vec<CdgRow>,
    onselect: Callback<String>,
}

/// `#cdg-table`: every block's dependences, drawn a window at a time when long
/// ([`crate::views::rows`]), with one click listener for the whole body.
#[function_component(CdgTable)]
fn cdg_table(props: &CdgTableProps) -> Html {
    let n = props.rows.len();
    let body = use_node_ref();
    let (win, row_px) = use_row_window(n, body.clone());
    use_reveal(props.rows.iter().position(|r| r.selected), row_px, body.clone());
    let onclick = {
        let onselect = props.onselect.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(id) = clicked_row(&e) {
                onselect.emit(id);
            }
        })
    };
    let row = |(i, r): (usize, &CdgRow)| {
        let class = classes!(r.selected.then_some("selected"));
        html! {
            <tr key={r.block.as_str()} {class} data-block={r.block.clone()} aria-rowindex={(win.start + i + 2).to_string()}>
                <th scope="row">{ r.block.clone() }</th>
                <td class="deps">{ r.deps.clone() }</td>
                <td class="controls">{ r.controls.clone() }</td>
            </tr>
        }
    };
    // Drawn a window at a time, the columns are as wide as their widest cell in any row, so
    // they keep their width as the table scrolls.
    let widths = win.partial(n).then(|| {
        let widest = |f: fn(&CdgRow) -> &AttrValue| props.rows.iter().map(|r| f(r).chars().count()).max().unwrap_or(0);
        [widest(|r| &r.block), widest(|r| &r.deps), widest(|r| &r.controls)]
    });
    let head = |k: usize, name: &'static str| {
        let style = widths.map(|w| format!("width: {}ch", w[k]));
        html! { <th scope="col" {style}>{ name }</th> }
    };
    html! {
        <table id="cdg-table" class="lt-table" aria-rowcount={(n + 1).to_string()}>
            <thead><tr aria-rowindex="1">{ head(0, "block") }{ head(1, "control dependent on (PDF)") }
                { head(2, "controls") }</tr></thead>
            <tbody {onclick} ref={body}>
                { spacer(win.start, row_px, 3) }
                { for props.rows[win.start..win.end].iter().enumerate().map(row) }
                { spacer(n - win.end, row_px, 3) }
            </tbody>
        </table>
    }
}
