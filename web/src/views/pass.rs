//! The view of a registered pass that has no view of its own yet: what the contract gives
//! every pass — its name and source, the summary of its run, the sentence of every step
//! (the current one marked) and the function it produced. A new pass is usable on the page
//! the moment it is registered; its own view replaces this one when it is written.

use super::ViewProps;
use crate::state::Action;
use crate::state::StepCmd;
use optlab_core::print::{print_function, Naming};
use yew::prelude::*;

#[function_component(PassView)]
pub fn pass_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let (Ok(a), Some(pass)) = (&s.analysis, s.tab.as_pass()) else { return html! {} };
    let Some(run) = a.run(pass.info().slug) else { return html! {} };
    let k = s.step(s.tab);
    let info = pass.info();
    let step = |i: usize| props.dispatch.reform(move |_| Action::Step(StepCmd::To(i)));
    html! {
        <div class="pass-view">
            <h2>{ info.name }</h2>
            <p class="pass-summary" role="status">{ run.summary() }</p>
            if run.problem().is_none() {
                <ol class="pass-steps" start="0">
                    { for run.steps.texts().iter().enumerate().map(|(i, t)| html! {
                        <li class={classes!((i == k).then_some("current"))}>
                            <button class="step-link" onclick={step(i)}>{ t.clone() }</button>
                        </li>
                    }) }
                </ol>
                <pre class="pass-output">{ print_function(&run.function, Naming::User) }</pre>
            }
        </div>
    }
}
