//! The local value numbering view: the program at the step (core's replay) on the CFG, the
//! step's instruction marked, beside the value table of its block as it stands after it —
//! number, canonical expression, home — with the rows the step added and the homes it moved.

use crate::cfg_graph::cfg_graph;
use crate::graph_view::GraphView;
use crate::state::Action;
use crate::views::ssa::model::decor;
use crate::views::ViewProps;
use optlab_core::passes::lvn::{self, Event, Outcome};
use optlab_core::passes::Detail;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(LvnView)]
pub fn lvn_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let Some(run) = a.run("lvn") else {
        return html! { <p class="empty" role="status">{ "Local value numbering is not available in this build." }</p> };
    };
    if let Some(problem) = run.problem() {
        return html! { <div class="ssa"><p class="ssa-problem" role="status">{ problem.to_string() }</p></div> };
    }
    let Detail::Lvn(out) = &run.detail else { return html! {} };
    let t = &out.trace;
    let k = s.step(s.tab).min(t.events.len());
    let g = lvn::replay_to(&a.function, t, k);
    let (block, rows) = lvn::table_at(t, k);
    let last = k.checked_sub(1).and_then(|i| t.events.get(i));
    let (current, new_rows, moved): (_, Vec<u32>, Vec<u32>) = match last {
        Some(Event::Inst { inst, added, moved, .. }) => (Some(*inst), added.iter().map(|r| r.num).collect(), moved.iter().map(|m| m.0).collect()),
        _ => (None, Vec::new(), Vec::new()),
    };
    let reused = match last {
        Some(Event::Inst { outcome: Outcome::Reuse { num } | Outcome::Copy { num }, .. }) => Some(*num),
        _ => None,
    };
    let cg = cfg_graph(&g);
    let marks: Vec<_> = block.map(|b| (b, "current")).into_iter().collect();
    let d = decor(&cg, &marks, &[], current);
    let onselect = props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)));
    let caption = match block {
        Some(b) => format!("The table of {}", g.block_in_code(b)),
        None => "The table (each block starts with an empty one)".to_string(),
    };
    html! {
        <div class="ssa lvn">
            <div class="ssa-head"><h2 class="ssa-summary">{ run.summary() }</h2></div>
            <div class="ssa-main">
                <section class="ssa-graph">
                    <GraphView graph={cg.graph.clone()} decor={Rc::new(d)} {onselect} title={format!("lvn-{}", a.function.name)} />
                </section>
                <section class="ssa-side" aria-live="polite">
                    <table class="ssa-table lvn-table" aria-label="Value table">
                        <caption>{ caption }</caption>
                        <thead><tr><th>{ "#" }</th><th>{ "expression" }</th><th>{ "home" }</th></tr></thead>
                        <tbody>
                            { for rows.iter().map(|(r, home)| {
                                let class = classes!(
                                    new_rows.contains(&r.num).then_some("current"),
                                    (reused == Some(r.num)).then_some("current"),
                                    moved.contains(&r.num).then_some("kept"),
                                );
                                html! {
                                    <tr {class}>
                                        <td>{ format!("#{}", r.num) }</td>
                                        <td><code>{ r.expr.clone() }</code></td>
                                        <td>{ match home {
                                            Some(h) => html! { <code>{ g.value_in_code(*h) }</code> },
                                            None => html! { <span class="none">{ "— no variable holds it" }</span> },
                                        } }</td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </section>
            </div>
        </div>
    }
}
