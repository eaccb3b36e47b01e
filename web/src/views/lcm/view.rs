//! The LCM view's component: expression picker, stage strip, what the step computed, the
//! predicate table and the CFG with the same bits. It renders [`State`] at its LCM step and
//! dispatches actions; the only state of its own is the exercise's guesses.

use super::decor::{decor, DecorInput, LcmGraphs};
use super::exercise::{score, Guesses, Key};
use super::model::{changes_line, edits_line, export_file_name, pick_expr, sets_line};
use super::table::{PredTable, TableProps};
use crate::download::download_text;
use crate::graph::Style;
use crate::graph_view::GraphView;
use crate::program::Analysis;
use crate::state::{Action, Notice, State, StepCmd, Tab};
use crate::views::ViewProps;
use optlab_core::passes::lcm::report::{self, TableFormat};
use optlab_core::passes::lcm::{fixpoint, stage_info, ExprId, LcmOutput, LcmSteps, Pos, Snapshot, Step};
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Says why there is nothing to show (SIL, a malformed function), else the view.
#[function_component(LcmView)]
pub fn lcm_view(props: &ViewProps) -> Html {
    let Ok(a) = &props.state.analysis else { return html! {} };
    match super::output(a) {
        Err(why) => html! { <p class="empty lcm-refused">{ why.clone() }</p> },
        Ok(_) => html! { <LcmBody ..props.clone() /> },
    }
}

/// The parts of the state this view reads, unwrapped.
struct Ctx<'a> {
    a: &'a Rc<Analysis>,
    out: &'a LcmOutput,
    steps: &'a LcmSteps,
    k: usize,
    pos: Pos,
}

impl<'a> Ctx<'a> {
    fn new(s: &'a State) -> Option<Ctx<'a>> {
        let a = s.analysis.as_ref().ok()?;
        let (out, steps) = super::run(a).ok()?;
        let k = s.step(Tab::pass("lcm"));
        Some(Ctx { a, out, steps, k, pos: steps.pos(k) })
    }
}

#[function_component(LcmBody)]
fn lcm_body(props: &ViewProps) -> Html {
    let s = &props.state;
    let analysis = s.analysis.as_ref().ok().cloned();
    // Drawings and counts are per analysis; stepping only changes the decor.
    let graphs = use_memo(analysis.clone(), |a| {
        a.as_ref().and_then(|a| super::output(a).ok().map(|out| LcmGraphs::new(&a.function, out)))
    });
    let counts = use_memo(analysis, |a| a.as_ref().and_then(|a| super::output(a).ok().map(LcmOutput::occurrence_counts)));
    let guesses = use_state(Guesses::default);
    let (Some(c), Some(graphs)) = (Ctx::new(s), graphs.as_ref()) else { return html! {} };
    let out = c.out;
    let expr = pick_expr(out, s.expr.as_deref());

    let picker = expr_picker(out, expr, counts.as_ref().as_ref().map_or(&[][..], Vec::as_slice), &props.dispatch);
    let stages = stage_strip(&c, &props.dispatch);
    let Some(e) = expr else {
        let graph = graphs.graph_at(out, c.pos);
        return html! {
            <div class="lcm">
                <div class="lcm-bar">{ picker }</div>
                { stages }
                <p class="lcm-note">{ format!("@{} has no expression LCM could move: no pure computation with operands.", out.name) }</p>
                <GraphView {graph} style={graph_style(s.lecture)} title={format!("lcm-{}", out.name)}
                    onselect={props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)))} />
            </div>
        };
    };

    let snap = Rc::new(out.snapshot(c.pos, e));
    let key: Key = (c.k, e);
    let exercise = s.exercise && !snap.current.is_empty();
    let revealed = guesses.revealed(key);
    let hide = exercise && !revealed;
    let hidden = |row: usize, p| hide && snap.is_current(row, p);
    let d = decor(out, graphs, c.pos, &snap, &DecorInput { selected: s.block.as_deref(), hidden: &hidden });
    let graph = graphs.graph_at(out, c.pos);
    let expr_text = out.trace.exprs.get(e.0 as usize).cloned().unwrap_or_default();

    let on_toggle = {
        let guesses = guesses.clone();
        Callback::from(move |(row, p)| guesses.set(guesses.toggle(key, row, p)))
    };
    let on_reveal = {
        let guesses = guesses.clone();
        Callback::from(move |_: MouseEvent| guesses.set(guesses.reveal(key)))
    };
    let table = TableProps {
        analysis: c.a.clone(),
        snapshot: snap.clone(),
        stage: c.pos.stage(),
        exercise,
        revealed,
        guesses: (*guesses).clone(),
        guess_key: key,
        selected: s.block.clone(),
        ontoggle: on_toggle,
        onselect: props.dispatch.reform(|b: String| Action::SelectBlock(Some(b))),
    };

    html! {
        <div class={classes!("lcm", exercise.then_some("exercising"))}>
            <div class="lcm-bar">
                { picker }
                { exports(c.a, &expr_text, &props.dispatch) }
            </div>
            { stages }
            { caption(out, &c, e, &snap, s.exercise, revealed, &guesses, key, on_reveal) }
            <div class="lcm-main">
                <div class="lcm-table-wrap"><PredTable ..table /></div>
                <GraphView {graph} decor={Rc::new(d)} style={graph_style(s.lecture)} class="lcm-graph"
                    title={format!("lcm-{}-{}", out.name, expr_text.replace(' ', "_"))}
                    onselect={props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)))} />
            </div>
        </div>
    }
}

/// Room for a row of badges above and below every box, the same at every step so stepping
/// never moves a box; larger type in lecture mode, for the back of the room.
pub(crate) fn graph_style(lecture: bool) -> Style {
    let mut style = Style { id_prefix: "lcm".into(), ..Style::with_badges() };
    if lecture {
        let k = LECTURE_SCALE;
        style.font_size *= k;
        style.badge_band = (style.badge_band * k).ceil();
    }
    style
}

/// How much larger the drawing's type is in lecture mode.
const LECTURE_SCALE: f64 = 1.3;

fn expr_picker(out: &LcmOutput, current: Option<ExprId>, counts: &[usize], dispatch: &Callback<Action>) -> Html {
    let onchange = dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::SelectExpr(Some(select.value()))
    });
    let moved = out.moved();
    html! {
        <label class="lcm-expr-label">
            { "Expression " }
            <select id="lcm-expr" {onchange} disabled={out.exprs.is_empty()}>
                if out.exprs.is_empty() {
                    <option value="" selected=true>{ "none" }</option>
                }
                { for out.exprs.keys().map(|e| {
                    let text = out.trace.exprs.get(e.0 as usize).cloned().unwrap_or_default();
                    let n = counts.get(e.0 as usize).copied().unwrap_or(0);
                    let label = format!(
                        "{text} — {n} computation{}{}",
                        if n == 1 { "" } else { "s" },
                        if moved.contains(&e) { ", moves" } else { "" }
                    );
                    html! { <option value={text} selected={Some(e) == current}>{ label }</option> }
                }) }
            </select>
        </label>
    }
}

/// One button per step of the seed; a click goes to the stage's first step.
fn stage_strip(c: &Ctx, dispatch: &Callback<Action>) -> Html {
    let current = c.pos.stage();
    let items = c.out.trace.steps.iter().enumerate().map(|(i, step)| {
        let info = stage_info(step);
        let Some(first) = c.steps.first_of(i) else { return html! {} };
        let state = match current {
            Some(cur) if cur == i => "active",
            Some(cur) if cur > i => "done",
            _ => "todo",
        };
        let rounds = match (fixpoint(step), c.pos) {
            (Some(fp), Pos::Stage { stage, round: Some(r) }) if stage == i => {
                format!("round {}/{}", r + 1, fp.rounds.len())
            }
            (Some(fp), _) => format!("{} round{}", fp.rounds.len(), if fp.rounds.len() == 1 { "" } else { "s" }),
            (None, _) => String::new(),
        };
        let onclick = dispatch.reform(move |_| Action::Step(StepCmd::To(first)));
        html! {
            <li>
                <button class={classes!("lcm-stage", state)} data-stage={i.to_string()} title={step.title()}
                    aria-current={(state == "active").then_some("step")} {onclick}>
                    <span class="num">{ info.number }</span>
                    <span class="name">{ info.name }</span>
                    if !rounds.is_empty() { <span class="rounds">{ rounds }</span> }
                </button>
            </li>
        }
    });
    html! { <ol class="lcm-stages" aria-label="LCM steps">{ for items }</ol> }
}

/// What this step did for the selected expression, in the seed's set notation — or, in
/// exercise mode (`exercise`: the app's toggle), the question and after the reveal the score.
#[allow(clippy::too_many_arguments)]
fn caption(
    out: &LcmOutput,
    c: &Ctx,
    e: ExprId,
    snap: &Snapshot,
    exercise: bool,
    revealed: bool,
    guesses: &Guesses,
    key: Key,
    on_reveal: Callback<MouseEvent>,
) -> Html {
    let step = c.pos.stage().and_then(|i| out.trace.steps.get(i));
    let mut lines: Vec<Html> = Vec::new();
    if exercise && snap.current.is_empty() {
        lines.push(html! { <span class="lcm-hint">{ "Exercise: steps 2 to 6 ask for your prediction first" }</span> });
    }
    let exercise = exercise && !snap.current.is_empty();
    if exercise && !revealed {
        let preds: Vec<&str> = snap.current.iter().map(|p| p.name()).collect();
        return html! {
            <p class="lcm-caption exercise">
                { format!("Which cells of {} are true after this step? Click them, then ", preds.join(", ")) }
                <button id="reveal" onclick={on_reveal}>{ "Reveal" }</button>
            </p>
        };
    }
    if exercise {
        let sc = score(snap, guesses, key);
        lines.push(html! {
            <span class="lcm-score">{ format!(
                "{} of {} cells right · {} true cell{} found, {} wrong guess{}, {} missed",
                sc.correct(), sc.cells, sc.right, if sc.right == 1 { "" } else { "s" },
                sc.wrong, if sc.wrong == 1 { "" } else { "es" }, sc.missed
            ) }</span>
        });
    }
    match step {
        None => {}
        Some(Step::SplitEdges { .. }) => {
            let new: Vec<&str> = out.trace.blocks.iter().filter(|b| b.new).map(|b| b.name.as_str()).collect();
            if !new.is_empty() {
                lines.push(html! { <span>{ format!("New blocks (dashed): {}", new.join(", ")) }</span> });
            }
        }
        Some(Step::Transform { .. }) => lines.push(html! { <span>{ edits_line(out, e) }</span> }),
        Some(_) => {
            lines.push(html! { <span class="lcm-sets">{ sets_line(out, snap) }</span> });
            let changed = changes_line(out, snap);
            if !changed.is_empty() {
                lines.push(html! { <span class="lcm-changed">{ format!("changed: {changed}") }</span> });
            }
        }
    }
    if lines.is_empty() {
        return html! { <p class="lcm-caption empty" /> };
    }
    html! { <p class="lcm-caption">{ for lines }</p> }
}

/// The table of the shown expression as Markdown, LaTeX or CSV: the text `optlab lcm --format
/// … --expr …` prints (core's report module writes both).
fn exports(a: &Rc<Analysis>, expr: &str, dispatch: &Callback<Action>) -> Html {
    let button =
        |class: &'static str, label: &'static str, format: TableFormat, ext: &'static str, mime: &'static str| {
            let title = format!("Download the final predicate table of {expr} as {label} (what optlab lcm prints)");
            let (a, expr, dispatch) = (a.clone(), expr.to_string(), dispatch.clone());
            let onclick = Callback::from(move |_: MouseEvent| {
                let Ok(out) = super::output(&a) else { return };
                let saved = report::table(std::slice::from_ref(out), format, Some(&expr))
                    .map_err(|e| e.to_string())
                    .and_then(|text| download_text(&export_file_name(&out.name, &expr, ext), mime, &text));
                if let Err(why) = saved {
                    dispatch.emit(Action::Notify(Notice { error: true, text: why.into() }));
                }
            });
            html! {
                <button class={class} {onclick} {title}>
                    { label }
                </button>
            }
        };
    html! {
        <span class="lcm-export">
            { "Table: " }
            { button("export-md", "Markdown", TableFormat::Markdown, "md", "text/markdown") }
            { button("export-tex", "LaTeX", TableFormat::Latex, "tex", "application/x-tex") }
            { button("export-csv", "CSV", TableFormat::Csv, "csv", "text/csv") }
        </span>
    }
}
