//! The CFG view: the selected function's blocks with their code. Click a block to select it,
//! a line to select its instruction.

use super::ViewProps;
use crate::graph::{Decor, EdgeKind};
use crate::graph_view::GraphView;
use crate::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(CfgView)]
pub fn cfg_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let cg = &a.cfg_graph;
    let mut decor = Decor::new();
    if let Some(n) = s.block.as_deref().and_then(|b| cg.graph.node_index(b)) {
        decor.node_class(n, "selected");
    }
    if let Some((n, line)) = s.inst.and_then(|i| cg.line_of(i)) {
        decor.line_class(n, line, "selected");
    }
    for (n, &b) in cg.blocks.iter().enumerate() {
        if !a.cfg.is_reachable(b) {
            decor.node_class(n, "unreachable");
        }
    }
    let onselect = props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)));
    let onselectline = {
        let (cg, dispatch) = (cg.clone(), props.dispatch.clone());
        Callback::from(move |(id, line): (String, usize)| {
            let inst = cg.graph.node_index(&id).and_then(|n| cg.inst_at(n, line));
            dispatch.emit(Action::SelectInst(inst));
        })
    };
    let blocks = a.function.layout.len();
    // The legend says what the edges of this function are: true/false sides of conditional
    // branches, and labels on the edges of multi-way terminators (cases, normal/error).
    let two_way = cg.graph.edges.iter().any(|e| e.kind == EdgeKind::True);
    let named = cg.graph.edges.iter().any(|e| !e.label.is_empty());
    html! {
        <>
            <h2>
                { format!("CFG of @{} · {blocks} block{}", a.function.name, if blocks == 1 { "" } else { "s" }) }
                if two_way {
                    { " · branch edges: " }
                    <span class="legend-true">{ "true" }</span>{ " / " }<span class="legend-false">{ "false" }</span>
                }
                if named {
                    <span class="legend-named">{ " · switch, cast, try and guard edges: labelled with their case or outcome" }</span>
                }
            </h2>
            <GraphView graph={cg.graph.clone()} decor={Rc::new(decor)} {onselect} {onselectline}
                title={format!("cfg-{}", a.function.name)} />
        </>
    }
}
