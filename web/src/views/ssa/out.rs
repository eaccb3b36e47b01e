//! The view of the translation out of SSA: the program at the step, the copies the φs became
//! and whether each was coalesced away or kept (and why), and the merged classes.

use super::model::{decor, out_model};
use crate::cfg_graph::cfg_graph;
use crate::graph_view::GraphView;
use crate::state::Action;
use crate::views::ViewProps;
use optlab_core::passes::Detail;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(OutOfSsaView)]
pub fn out_of_ssa_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let Some(run) = a.run("out-of-ssa") else {
        return html! { <p class="empty" role="status">{ "The translation out of SSA is not available in this build." }</p> };
    };
    if let Some(problem) = run.problem() {
        return html! { <div class="ssa"><p class="ssa-problem" role="status">{ problem.to_string() }</p></div> };
    }
    let Detail::OutOfSsa(out) = &run.detail else { return html! {} };
    let k = s.step(s.tab);
    let m = out_model(&a.function, out, k);
    let cg = cfg_graph(&m.function);
    let d = decor(&cg, &[], &[], m.current);
    let onselect = props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)));
    let empty = m.copies.is_empty();
    html! {
        <div class="ssa out-of-ssa">
            <div class="ssa-head"><h2 class="ssa-summary">{ run.summary() }</h2></div>
            <div class="ssa-main">
                <section class="ssa-graph">
                    <GraphView graph={cg.graph.clone()} decor={Rc::new(d)} {onselect} title={format!("out-of-ssa-{}", a.function.name)} />
                </section>
                <section class="ssa-side" aria-live="polite">
                    if empty {
                        <p class="hint">{ "No φ: the program has no set, get or phi, so there is nothing to translate. Run “Into SSA” first, or a pipeline ssa,…,out-of-ssa." }</p>
                    } else {
                        <table class="ssa-table ssa-copies" aria-label="Copies">
                            <thead><tr><th>{ "copy" }</th><th>{ "coalescing" }</th></tr></thead>
                            <tbody>
                                { for m.copies.iter().map(|c| html! {
                                    <tr class={classes!(c.current.then_some("current"), c.kept.then_some("kept"))}>
                                        <td><code>{ c.copy.clone() }</code></td><td>{ c.status.clone() }</td>
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                        <h3>{ "Classes (one variable each after renaming)" }</h3>
                        <ul class="ssa-classes">
                            { for m.classes.iter().map(|c| html! { <li>{ for c.iter().map(|v| html! { <code class="ssa-item">{ v.clone() }</code> }) }</li> }) }
                        </ul>
                    }
                </section>
            </div>
        </div>
    }
}
