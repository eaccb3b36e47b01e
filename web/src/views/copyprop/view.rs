//! The copy propagation view's component: the summary, the available-copies table of the
//! step, the program at the step and why the selected instruction changed. It renders core's
//! run of the pass at the shared step bar's step and dispatches actions; its only state of
//! its own is exercise mode's "Show".

use super::code::{code_html, lines};
use super::exercise::{question, Reveal};
use super::step::{event_inst, At};
use super::table::{caption, rows, table_html};
use super::why::{why, Item, What, Why};
use crate::state::{Action, StepCmd};
use crate::views::ViewProps;
use optlab_core::passes::copyprop::CopyPropOutput;
use optlab_core::passes::Detail;
use optlab_core::InstId;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(CopyPropView)]
pub fn copyprop_view(props: &ViewProps) -> Html {
    let reveal = use_state(Reveal::default);
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let Some(run) = a.run("copyprop") else {
        return html! { <p class="empty" role="status">{ "Copy propagation is not available in this build." }</p> };
    };
    if let Some(problem) = run.problem() {
        return html! { <div class="copyprop"><p class="cp-problem" role="status">{ problem.to_string() }</p></div> };
    }
    let Detail::CopyProp(out) = &run.detail else { return html! {} };
    let out: &CopyPropOutput = out;
    let (f, t) = (&a.function, &out.trace);
    let k = s.step(s.tab);
    let at = At::of(t, k);
    let key = (Rc::as_ptr(a) as usize, k);
    let ask = if s.exercise { question(at) } else { None };
    let hide = ask.is_some() && !reveal.shown(key);

    // The table: a hidden round shows the table it starts from.
    let rounds_done = match at {
        At::Round(r) if hide => r - 1,
        _ => at.rounds_done(t),
    };
    let table = table_html(
        &rows(f, t, rounds_done, matches!(at, At::Round(_)) && !hide),
        &caption(t, rounds_done, matches!(at, At::Event(_))),
    );

    let code = lines(f, t, at, hide && matches!(at, At::Event(_)));
    let onselect = props.dispatch.reform(Action::SelectInst);
    let current = at.event().and_then(|i| t.events.get(i)).map(event_inst);
    let placed = |i: InstId| f.placed_insts().any(|(_, x)| x == i);
    let focus = s.inst.filter(|&i| placed(i)).or(current);
    let explained = focus.map(|i| why(f, t, i, k, s.exercise, reveal.shown(key)));

    let on_show = {
        let reveal = reveal.clone();
        Callback::from(move |_: MouseEvent| reveal.set(Reveal::show(key)))
    };
    let exercise_box = ask.map(|q| {
        html! {
            <section class="cp-exercise" aria-live="polite">
                <p class="prompt">{ q }</p>
                if hide {
                    <button class="cp-show" id="cp-show" onclick={on_show} aria-label="Show this step's result">{ "Show" }</button>
                } else {
                    <p class="shown">{ "Shown: compare with your prediction." }</p>
                }
            </section>
        }
    });

    html! {
        <div class={classes!("copyprop", hide.then_some("exercising"))}>
            <div class="cp-head">
                <h2 class="cp-summary">{ run.summary() }</h2>
                <span class="cp-legend" aria-hidden="true">
                    <span class="lg current">{ "this step" }</span>
                    <span class="lg rewritten">{ "rewritten" }</span>
                    <span class="lg deleted">{ "deleted" }</span>
                    <span class="lg changed">{ "changed set" }</span>
                </span>
            </div>
            { for exercise_box }
            <div class="cp-main">
                <section class="cp-avail" aria-label="Available copies">{ table }</section>
                <section class="cp-program">
                    <h3>{ "Program at this step" }</h3>
                    { code_html(&code, s.inst, &onselect) }
                </section>
                <section class="cp-why" id="cp-why" aria-live="polite">
                    <h3>{ "Why?" }</h3>
                    { why_html(explained.as_ref(), &props.dispatch) }
                </section>
            </div>
        </div>
    }
}

fn select_button(p: &super::why::Place, dispatch: &Callback<Action>) -> Html {
    let i = p.inst;
    let onclick = dispatch.reform(move |_: MouseEvent| Action::SelectInst(Some(i)));
    html! {
        <button class="cp-place" {onclick} aria-label={format!("select the instruction in {}", p.block)}>{ p.block.clone() }</button>
    }
}

fn item_html(item: &Item, dispatch: &Callback<Action>) -> Html {
    let step = item.step;
    let go = dispatch.reform(move |_: MouseEvent| Action::Step(StepCmd::To(step)));
    let body = match &item.what {
        What::Rewrite { from, to, links, more } => {
            // A counted tail of a long chain is the list's last item.
            let tail = (*more > 0).then(|| format!("{more} more"));
            let n = links.len() + usize::from(tail.is_some());
            let (noun, verb) = if n == 1 { ("copy", "reaches") } else { ("copies", "reach") };
            let links = links.iter().enumerate().map(|(j, l)| {
                let sep = match n - 1 - j {
                    0 => "",
                    1 => " and ",
                    _ => ", ",
                };
                html! {
                    <>
                        <code>{ l.copy.clone() }</code>
                        { " (" }
                        { for l.made_by.iter().enumerate().map(|(m, p)| html! {
                            <>{ if m > 0 { ", " } else { "" } }{ select_button(p, dispatch) }</>
                        }) }
                        { ")" }{ sep }
                    </>
                }
            });
            html! {
                <>
                    <code>{ from.clone() }</code>{ " → " }<code>{ to.clone() }</code>
                    { format!(": because {noun} ") }{ for links }{ for tail }{ format!(" {verb} it on every path") }
                </>
            }
        }
        What::Delete { reason } => html! { <>{ "deleted: " }{ reason.clone() }</> },
        What::Justifies { target, code, from, to } => html! {
            <>
                { "makes " }<code>{ from.clone() }</code>{ " → " }<code>{ to.clone() }</code>
                { " possible in " }<code>{ code.clone() }</code>{ " (" }{ select_button(target, dispatch) }{ ")" }
            </>
        },
        What::Recompute { from, expr, made_by } => html! {
            <>
                { "recomputes " }<code>{ expr.clone() }</code>{ " instead of copying " }<code>{ from.clone() }</code>
                { ", which holds it on every path (" }
                { for made_by.iter().enumerate().map(|(k, p)| html! { <>{ if k > 0 { ", " } else { "" } }{ select_button(p, dispatch) }</> }) }
                { "): the copy could not go, and a recomputation costs the same" }
            </>
        },
    };
    html! {
        <li class={classes!(item.later.then_some("later"))}>
            <button class="cp-step" onclick={go} aria-label={format!("go to step {step}")}>{ format!("step {step}") }</button>
            { " " }{ body }
        </li>
    }
}

fn why_html(w: Option<&Why>, dispatch: &Callback<Action>) -> Html {
    let Some(w) = w else {
        return html! { <p class="hint">{ "Select an instruction in the program to see what copy propagation did to it, and why." }</p> };
    };
    html! {
        <>
            <p class="cp-focus"><code>{ w.code.clone() }</code>{ format!(" ({})", w.block) }</p>
            if !w.items.is_empty() {
                <ol class="cp-reasons">{ for w.items.iter().map(|i| item_html(i, dispatch)) }</ol>
            }
            if w.hidden {
                <p class="cp-hidden">{ "This step's result is hidden: predict it, then click Show." }</p>
            }
            if let Some(u) = &w.untouched {
                <p class="cp-untouched">{ u.clone() }</p>
            }
        </>
    }
}
