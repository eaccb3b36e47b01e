//! The before/after view: a pipeline of registered passes (`lcm,copyprop,dce`), any two of
//! its stages side by side with the diff coloured, a button that runs both in the
//! interpreter (outputs and dynamic instruction counts), and the later stage as a file.
//!
//! - [`lines`]: the side-by-side line diff;
//! - [`compare`]: the two stages as text (and modules to run);
//! - [`run`]: running both with a low step limit;
//! - [`picker`]: the pipeline and the two stages.

pub mod compare;
pub mod lines;
mod picker;
pub mod run;

use crate::download::download_text;
use crate::state::{Action, Notice};
use crate::views::ViewProps;
use compare::{compare, export_name, Compare};
use picker::PipelinePicker;
use lines::Row;
use optlab_core::SourceFile;
use run::{default_args, parse_args, run_both, run_stages, whole_program, Outcome, Runs, StageRun};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[function_component(DiffView)]
pub fn diff_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let (Ok(a), Some(p), Some(staged)) = (&s.analysis, &s.program, &s.staged) else { return html! {} };
    let (from, to) = s.compared_stages();
    let cmp = use_memo((p.clone(), staged.clone(), from, to), |(p, staged, from, to)| compare(p, staged, *from, *to));
    let name = a.function.name.clone();
    // The arguments field and the last runs belong to the comparison they were made for.
    let key = Rc::as_ptr(&cmp) as usize;
    let args = use_state(|| None::<(usize, String)>);
    let args_text = match &*args {
        Some((k, t)) if *k == key => t.clone(),
        _ => default_args(&p.module, &p.source, &name),
    };
    let runs = use_state(|| None::<(usize, Rc<Runs>)>);
    let shown = runs.as_ref().filter(|(k, _)| *k == key).map(|(_, r)| r.clone());
    // "Run every stage" belongs to the pipeline run it was made for.
    let stage_key = Rc::as_ptr(staged) as usize;
    let stage_runs = use_state(|| None::<(usize, Rc<Vec<StageRun>>)>);
    let stages_shown = stage_runs.as_ref().filter(|(k, _)| *k == stage_key).map(|(_, r)| r.clone());

    let on_args = {
        let args = args.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            args.set(Some((key, input.value())));
        })
    };
    let on_run = {
        let (cmp, runs, args_text, p, name) = (cmp.clone(), runs.clone(), args_text.clone(), p.clone(), name.clone());
        Callback::from(move |_: MouseEvent| {
            let file = SourceFile::new(&p.file, &p.source);
            let before = whole_program(&cmp.before_module, &name, &cmp.before_passes);
            let after = whole_program(&cmp.after_module, &name, &cmp.after_passes);
            let r = run_both(&before, &after, &name, &parse_args(&args_text), &file);
            runs.set(Some((key, Rc::new(r))));
        })
    };
    let on_run_stages = {
        let (staged, stage_runs, args_text, p) = (staged.clone(), stage_runs.clone(), args_text.clone(), p.clone());
        Callback::from(move |_: MouseEvent| {
            let file = SourceFile::new(&p.file, &p.source);
            let rows = run_stages(&p.module, &staged, &parse_args(&args_text), &file);
            stage_runs.set(Some((stage_key, Rc::new(rows))));
        })
    };
    let on_export = {
        let (cmp, file, dispatch) = (cmp.clone(), p.file.clone(), props.dispatch.clone());
        Callback::from(move |_: MouseEvent| {
            if let Err(why) = download_text(&export_name(&file, &cmp.slug), "text/plain", &cmp.after) {
                dispatch.emit(Action::Notify(Notice { error: true, text: why.into() }));
            }
        })
    };
    let c = &cmp.counts;
    html! {
        <div class="diff-view">
            <PipelinePicker state={props.state.clone()} dispatch={props.dispatch.clone()} />
            <div class="diff-head">
                <h2>{ format!("@{name}: {} and {}", cmp.from_name, cmp.to_name) }</h2>
                <span class="diff-counts">
                    <span class="deleted">{ format!("−{} deleted", c.deleted) }</span>
                    <span class="inserted">{ format!("+{} inserted", c.inserted) }</span>
                    <span class="rewritten">{ format!("~{} rewritten", c.rewritten) }</span>
                </span>
                <button class="export-after" title="Save the later stage as a file" onclick={on_export}>
                    { "Save after-code" }
                </button>
            </div>
            if !cmp.passes.is_empty() {
                <ul class="diff-passes" aria-label="what the passes between the two stages did">
                    { for cmp.passes.iter().map(|(line, problem)| html! {
                        <li class={classes!(problem.then_some("problem"))}>{ line.clone() }</li>
                    }) }
                </ul>
            }
            <DiffPanes cmp={cmp.clone()} />
            <div class="run-bar">
                <label>
                    { "Arguments " }
                    <input id="run-args" type="text" spellcheck="false" value={args_text} oninput={on_args}
                        placeholder={if p.lang == optlab_core::Lang::Sil { "one value per parameter" } else { "for @main" }} />
                </label>
                <button id="run-both" onclick={on_run}>{ "Run both" }</button>
                <button id="run-stages" onclick={on_run_stages} title="Run the program at every stage of the pipeline">{ "Run every stage" }</button>
                <span class="run-note">{ format!("at most {} M steps each", run::STEP_LIMIT / 1_000_000) }</span>
                if let Some(r) = &shown {
                    { verdict(r) }
                }
            </div>
            if let Some(rows) = &stages_shown {
                { stages_table(rows) }
            }
            <div class="run-results">
                { outcome_box("run-before", &capitalized(&cmp.from_name), shown.as_ref().map(|r| &r.before)) }
                { outcome_box("run-after", &capitalized(&cmp.to_name), shown.as_ref().map(|r| &r.after)) }
            </div>
        </div>
    }
}

/// `After LCM`, `Input`: a stage's name as a heading.
fn capitalized(name: &str) -> String {
    let mut c = name.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// Every stage's executed instructions, the change from the stage before, and whether it
/// behaves as the input did.
fn stages_table(rows: &[StageRun]) -> Html {
    let first = rows.first().map_or(0, |r| r.outcome.dyn_inst);
    html! {
        <table class="stage-runs" id="stage-runs">
            <caption>{ "Every stage, run with these arguments" }</caption>
            <thead><tr>
                <th scope="col">{ "stage" }</th>
                <th scope="col">{ "executed" }</th>
                <th scope="col">{ "change" }</th>
                <th scope="col">{ "against the input" }</th>
            </tr></thead>
            <tbody>
                { for rows.iter().enumerate().map(|(k, r)| {
                    let n = r.outcome.dyn_inst;
                    let change = match k.checked_sub(1).map(|j| rows[j].outcome.dyn_inst) {
                        None => String::new(),
                        Some(prev) if n == prev => "±0".to_string(),
                        Some(prev) if n > prev => format!("+{}", n - prev),
                        Some(prev) => format!("−{}", prev - n),
                    };
                    let verdict = if r.outcome.limited {
                        "hit a limit".to_string()
                    } else if !r.agrees {
                        "behaves differently!".to_string()
                    } else if k == 0 {
                        String::new()
                    } else if r.outcome.failure.is_some() {
                        "fails as the input does".to_string()
                    } else if n == first {
                        "same behaviour, as many".to_string()
                    } else if n < first {
                        format!("same behaviour, {:.0}% fewer", 100.0 * (first - n) as f64 / first as f64)
                    } else {
                        format!("same behaviour, {} more", n - first)
                    };
                    html! {
                        <tr class={classes!((!r.agrees).then_some("differ"))}>
                            <th scope="row">{ r.name.clone() }</th>
                            <td class="num">{ n }</td>
                            <td class="num">{ change }</td>
                            <td>{ verdict }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

fn verdict(r: &Runs) -> Html {
    let (kind, text) = r.verdict();
    html! { <span class={classes!("verdict", kind)}>{ text }</span> }
}

fn outcome_box(id: &'static str, title: &str, o: Option<&Outcome>) -> Html {
    let body = match o {
        None => html! { <p class="hint">{ "Not run yet." }</p> },
        Some(o) => html! {
            <>
                <p class="count">
                    <span class="dyn">{ format!("{} instruction{} executed", o.dyn_inst, if o.dyn_inst == 1 { "" } else { "s" }) }</span>
                    if let Some(v) = &o.returned { <span class="returned">{ format!(" · returned {v}") }</span> }
                </p>
                <pre class="stdout">{ if o.stdout.is_empty() { "(no output)".to_string() } else { o.stdout.clone() } }</pre>
                if let Some(e) = &o.error {
                    <pre class={classes!("run-error", o.limited.then_some("limit"))}>{ e.clone() }</pre>
                }
            </>
        },
    };
    html! {
        <section {id} class="run-out">
            <h3>{ title.to_string() }</h3>
            { body }
        </section>
    }
}

/// Lines per chunk of a column (see [`DiffPanes`]).
const CHUNK: usize = 64;

#[derive(Properties, PartialEq)]
struct PanesProps {
    cmp: Rc<Compare>,
}

/// The two columns; a component of its own so typing arguments or running does not rebuild
/// thousands of lines.
#[function_component(DiffPanes)]
fn diff_panes(props: &PanesProps) -> Html {
    let c = &props.cmp;
    let line = |row: &Row, before: bool| {
        let side = if before { &row.before } else { &row.after };
        let class = classes!("dl", row.change.class(), side.is_none().then_some("gap"));
        match side {
            Some(s) => html! { <div {class}><span class="ln">{ s.line }</span><span class="code">{ s.text.clone() }</span></div> },
            None => html! { <div {class}><span class="ln" /><span class="code" /></div> },
        }
    };
    // Lines in chunks the page skips while they are out of view (`content-visibility: auto`,
    // static/css/dce.css): a 1,000-block function's 4,000 lines are styled and laid out only
    // where the panes show them, which took most of the view's first opening.
    let side = |before: bool| {
        html! {
            { for c.rows.chunks(CHUNK).map(|rows| {
                let style = format!("--n: {}", rows.len());
                html! { <div class="dl-chunk" {style}>{ for rows.iter().map(|r| line(r, before)) }</div> }
            }) }
        }
    };
    let (before, after) = (side(true), side(false));
    html! {
        <div class="diff-panes" tabindex="0" role="region" aria-label="the two programs, side by side">
            <div class="diff-col" id="before-code" aria-label="before">
                <h3>{ capitalized(&c.from_name) }</h3>
                { before }
            </div>
            <div class="diff-col" id="after-code" aria-label="after">
                <h3>{ capitalized(&c.to_name) }</h3>
                { after }
            </div>
        </div>
    }
}
