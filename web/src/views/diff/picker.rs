//! The pipeline picker: one-pass shortcuts for every registered pass and the default
//! pipeline, the pipeline as removable chips with a menu to append a pass, and the two stages
//! the view compares. Everything it offers comes from core's pass registry.

use crate::state::{Action, State};
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::REGISTRY;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PickerProps {
    pub state: Rc<State>,
    pub dispatch: Callback<Action>,
}

/// `LCM → Copy propagation → DCE`.
fn arrowed(p: &Pipeline) -> String {
    let titles: Vec<&str> = p.passes.iter().map(|x| x.info().title).collect();
    if titles.is_empty() {
        "no pass".to_string()
    } else {
        titles.join(" → ")
    }
}

#[function_component(PipelinePicker)]
pub fn pipeline_picker(props: &PickerProps) -> Html {
    let s = &props.state;
    let Some(staged) = &s.staged else { return html! {} };
    let current = &s.pipeline;
    let preset = |id: String, label: String, title: String, p: Pipeline| {
        let pressed = *current == p;
        html! {
            <button {id} class={classes!("pass", pressed.then_some("active"))} aria-pressed={pressed.to_string()} {title}
                onclick={props.dispatch.reform(move |_| Action::SetPipeline(p.clone()))}>{ label }</button>
        }
    };
    let singles = REGISTRY.iter().map(|pass| {
        let i = pass.info();
        let p = Pipeline { passes: vec![*pass] };
        preset(format!("pass-{}", i.slug), i.title.to_string(), format!("{}: {}", i.name, i.summary), p)
    });
    let default = Pipeline::default_pipeline();
    let default_button =
        preset("pipeline-default".into(), arrowed(&default), "The default pipeline".into(), default.clone());

    let on_add = props.dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let slug = select.value();
        select.set_value("");
        Action::AddPass(slug)
    });
    let (from, to) = s.compared_stages();
    let stage_options = |selected: usize| {
        html! {
            { for (0..staged.num_stages()).map(|k| html! {
                <option value={k.to_string()} selected={k == selected}>{ staged.stage_name(k) }</option>
            }) }
        }
    };
    let pick = |which_from: bool| {
        props.dispatch.reform(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let k: usize = select.value().parse().unwrap_or(0);
            if which_from {
                Action::SelectStages(k, to)
            } else {
                Action::SelectStages(from, k)
            }
        })
    };
    html! {
        <div class="pipeline-picker">
            <div class="pass-switch" role="group" aria-label="pipeline shortcuts">
                { for singles }
                { default_button }
            </div>
            <div class="pipeline" role="group" aria-label="pipeline">
                <span class="label">{ "Pipeline" }</span>
                <ol class="pipeline-chips" id="pipeline">
                    { for current.passes.iter().enumerate().map(|(k, p)| {
                        let title = p.info().title;
                        let problem = staged.stages.get(k).and_then(|r| r.problem()).map(str::to_string);
                        let refused = problem.is_some().then_some("refused");
                        html! {
                            <li class={classes!("chip", refused)} title={problem.unwrap_or_default()}>
                                <span class="chip-name">{ title }</span>
                                <button class="chip-remove" aria-label={format!("remove {title} (pass {})", k + 1)}
                                    onclick={props.dispatch.reform(move |_| Action::RemovePass(k))}>{ "×" }</button>
                            </li>
                        }
                    }) }
                </ol>
                <select id="add-pass" aria-label="add a pass" onchange={on_add}>
                    <option value="" selected=true disabled=true>{ "+ add a pass" }</option>
                    { for REGISTRY.iter().map(|p| html! { <option value={p.info().slug}>{ p.info().title }</option> }) }
                </select>
            </div>
            <div class="compare-stages">
                <label>{ "Compare " }<select id="stage-from" onchange={pick(true)}>{ stage_options(from) }</select></label>
                <label>{ " with " }<select id="stage-to" onchange={pick(false)}>{ stage_options(to) }</select></label>
            </div>
        </div>
    }
}
