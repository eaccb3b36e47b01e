//! The SSA construction view's component.

use super::model::{decor, into_model, IntoModel, Phase};
use crate::cfg_graph::cfg_graph;
use crate::graph_view::GraphView;
use crate::state::Action;
use crate::views::ViewProps;
use optlab_core::passes::ssa::Form;
use optlab_core::passes::Detail;
use std::rc::Rc;
use yew::prelude::*;

fn list(items: &[String]) -> Html {
    if items.is_empty() {
        return html! { <span class="none">{ "—" }</span> };
    }
    html! { <>{ for items.iter().map(|b| html! { <code class="ssa-item">{ b.clone() }</code> }) }</> }
}

fn side_panel(m: &IntoModel) -> Html {
    match m.phase {
        Phase::Placement => html! {
            <table class="ssa-table" aria-label="φ placement">
                <tr><th>{ "variable" }</th><td><code>{ m.placing.clone().unwrap_or_default() }</code></td></tr>
                <tr><th>{ "worklist" }</th><td>{ list(&m.worklist) }</td></tr>
                <tr><th>{ "taken" }</th><td>{ list(&m.taken) }</td></tr>
                <tr><th>{ "φ at (live)" }</th><td>{ list(&m.phi_blocks) }</td></tr>
                <tr><th>{ "no φ (dead)" }</th><td>{ list(&m.dead_blocks) }</td></tr>
            </table>
        },
        Phase::Renaming | Phase::Writing => html! {
            <>
                <p class="ssa-walk">{ "dominator-tree path: " }{ list(&m.path) }</p>
                <table class="ssa-table ssa-stacks" aria-label="Stacks">
                    <thead><tr><th>{ "variable" }</th><th>{ "stack (top last)" }</th></tr></thead>
                    <tbody>
                        { for m.stacks.iter().map(|(v, st)| html! {
                            <tr>
                                <th><code>{ v.clone() }</code></th>
                                <td>{ for st.iter().enumerate().map(|(i, x)| html! {
                                    <code class={classes!("ssa-item", (i + 1 == st.len()).then_some("top"))}>{ x.clone() }</code>
                                }) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </>
        },
        Phase::Start => html! {
            <p class="hint">{ "Step through: φ placement for each variable (its worklist on the CFG), then the renaming walk (its stacks), then the φs written out." }</p>
        },
    }
}

#[function_component(SsaView)]
pub fn ssa_view(props: &ViewProps) -> Html {
    let phi_form = use_state(|| false);
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let Some(run) = a.run("ssa") else {
        return html! { <p class="empty" role="status">{ "SSA construction is not available in this build." }</p> };
    };
    if let Some(problem) = run.problem() {
        return html! { <div class="ssa"><p class="ssa-problem" role="status">{ problem.to_string() }</p></div> };
    }
    let Detail::IntoSsa(out) = &run.detail else { return html! {} };
    let k = s.step(s.tab);
    let form = if *phi_form { Form::Phi } else { Form::SetGet };
    let m = into_model(out, k, form);
    let cg = cfg_graph(&m.function);
    let d = decor(&cg, &m.marks, &m.phis, m.current);
    let toggle = {
        let phi_form = phi_form.clone();
        Callback::from(move |_: Event| phi_form.set(!*phi_form))
    };
    let onselect = props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)));
    html! {
        <div class="ssa">
            <div class="ssa-head">
                <h2 class="ssa-summary">{ run.summary() }</h2>
                <label class="ssa-form">
                    <input type="checkbox" id="ssa-phi-form" checked={*phi_form} onchange={toggle} />
                    { " write φs as " }<code>{ "phi" }</code>{ " (Bril's deprecated form) instead of " }<code>{ "set" }</code>{ "/" }<code>{ "get" }</code>
                </label>
            </div>
            <p class="ssa-phase" role="status">
                { m.phase.title() }
                if m.phase == Phase::Placement {
                    <span class="ssa-legend" aria-hidden="true">
                        <span class="lg def">{ "assigns it" }</span>
                        <span class="lg work">{ "on the worklist" }</span>
                        <span class="lg phi">{ "φ" }</span>
                        <span class="lg dead">{ "dead: no φ" }</span>
                    </span>
                }
                if m.phase == Phase::Renaming {
                    <span class="ssa-legend" aria-hidden="true"><span class="lg path">{ "the walk's path" }</span></span>
                }
            </p>
            <div class="ssa-main">
                <section class="ssa-graph">
                    <GraphView graph={cg.graph.clone()} decor={Rc::new(d)} {onselect} title={format!("ssa-{}", a.function.name)} />
                </section>
                <section class="ssa-side" aria-live="polite">{ side_panel(&m) }</section>
            </div>
        </div>
    }
}
