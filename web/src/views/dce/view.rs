//! The DCE view component: the graph at the current step, the list of marked instructions,
//! the selected instruction's why-live chain and, in exercise mode, the question.

use super::exercise::{question_at, Ask, Grade, Question};
use super::model::{marked, why, Model, Overlay};
use optlab_core::passes::dce::words;
use crate::graph_view::GraphView;
use crate::program::Analysis;
use crate::state::{Action, StepCmd, Tab};
use crate::views::ViewProps;
use optlab_core::passes::dce::Node;
use optlab_core::InstId;
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::prelude::*;

/// At most this many entries of the marked list are drawn (a 1,000-block function marks
/// thousands; the newest matter).
const LIST_LIMIT: usize = 200;

/// The student's guesses for one question; they belong to the step and the analysis they
/// were made at, and count for nothing anywhere else.
#[derive(Clone, Debug, Default, PartialEq)]
struct Guesses {
    key: (usize, usize),
    picked: BTreeSet<InstId>,
    revealed: bool,
}

fn analysis_key(a: &Rc<Analysis>, k: usize) -> (usize, usize) {
    (Rc::as_ptr(a) as usize, k)
}

/// What the student does to the guesses; each carries the key of the question it is about.
/// A reducer (not a plain state) so two quick clicks both count.
enum Guess {
    Toggle((usize, usize), InstId),
    Reveal((usize, usize)),
    Clear((usize, usize)),
}

impl Reducible for Guesses {
    type Action = Guess;
    fn reduce(self: Rc<Self>, action: Guess) -> Rc<Self> {
        let key = match action {
            Guess::Toggle(k, _) | Guess::Reveal(k) | Guess::Clear(k) => k,
        };
        let mut g = if self.key == key { (*self).clone() } else { Guesses { key, ..Guesses::default() } };
        match action {
            Guess::Toggle(_, i) if !g.revealed => {
                if !g.picked.remove(&i) {
                    g.picked.insert(i);
                }
            }
            Guess::Toggle(..) => {}
            Guess::Reveal(_) => g.revealed = true,
            Guess::Clear(_) => g = Guesses { key, ..Guesses::default() },
        }
        Rc::new(g)
    }
}

#[function_component(DceView)]
pub fn dce_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let a = match &s.analysis {
        Ok(a) => a.clone(),
        Err(_) => return html! {},
    };
    // Before any hook, as the analysis check above: a refused function has no result.
    let Some(run) = a.run("dce") else { return html! {} };
    if super::result(&a).is_none() {
        return html! { <p class="empty dce-refused" role="status">{ run.summary() }</p> };
    }
    let k = s.step(Tab::pass("dce"));
    let model = use_memo(a.clone(), |a| super::result(a).map(|r| Model::new(&a.function, r)));
    let guesses = use_reducer(Guesses::default);
    let key = analysis_key(&a, k);
    let mine = if guesses.key == key { (*guesses).clone() } else { Guesses { key, ..Guesses::default() } };

    let (Some(model), Some(r)) = (model.as_ref(), super::result(&a)) else { return html! {} };
    let f = &a.function;
    let question = s.exercise.then(|| question_at(f, &r.trace, k)).flatten();
    let grade = question.as_ref().filter(|_| mine.revealed).map(|q| Grade::new(&q.answer, &mine.picked));
    let overlay = Overlay {
        inst: s.inst,
        block: s.block.as_ref().map(|b| b.to_string()),
        visitor: question.as_ref().and_then(|q| if let Ask::Visit(n) = q.ask { Some(n) } else { None }),
        guesses: if mine.revealed { BTreeSet::new() } else { mine.picked.clone() },
        grade: grade.clone(),
    };
    let graph = model.graph(k);
    let decor = Rc::new(model.decor(f, r, k, &overlay));

    let onselect = props.dispatch.reform(|id: String| Action::SelectBlock(Some(id)));
    let onselectline = {
        let (model, graph, dispatch, guesses) = (model.clone(), graph.clone(), props.dispatch.clone(), guesses.dispatcher());
        let guessing = question.is_some() && !mine.revealed;
        let selected = s.inst;
        Callback::from(move |(id, line): (String, usize)| {
            let Some(inst) = graph.node_index(&id).and_then(|n| model.inst_at(k, n, line)) else { return };
            if guessing {
                guesses.dispatch(Guess::Toggle(key, inst));
            } else {
                dispatch.emit(Action::SelectInst((selected != Some(inst)).then_some(inst)));
            }
        })
    };

    let stats = &r.stats;
    let header = html! {
        <div class="dce-head">
            <h2>
                { format!(
                    "DCE of @{} · {} → {} instruction{}",
                    f.name, stats.insts_before, stats.insts_after, if stats.insts_after == 1 { "" } else { "s" }
                ) }
                if stats.branches_rewritten > 0 {
                    { format!(" · {} branch{} rewritten", stats.branches_rewritten, if stats.branches_rewritten == 1 { "" } else { "es" }) }
                }
            </h2>
            <span class="dce-legend">
                <span class="lg live">{ "live" }</span>
                <span class="lg current">{ "this step" }</span>
                <span class="lg dead">{ "dead" }</span>
                <span class="lg deleted">{ "deleted" }</span>
                <span class="lg inserted">{ "new" }</span>
            </span>
        </div>
    };

    html! {
        <div class="dce-view">
            { header }
            if let Some(why) = &r.trace.skipped {
                <p class="dce-skipped" role="status">{ format!("DCE did not run: {why}") }</p>
            }
            <div class="dce-body">
                <GraphView graph={graph} decor={decor} {onselect} {onselectline} class="dce-graph" title={format!("dce-{}-step{k}", f.name)} />
                <aside class="dce-side">
                    if let Some(q) = &question {
                        { exercise_box(q, &mine, grade.as_ref(), f, guesses.dispatcher(), props.dispatch.clone()) }
                    } else if s.exercise {
                        <section class="dce-exercise done"><p>{ "Nothing left to predict: the run is over." }</p></section>
                    }
                    { why_box(&a, k, s.inst, s.exercise) }
                    { marked_box(&a, k, s.inst, props.dispatch.clone()) }
                </aside>
            </div>
        </div>
    }
}

fn exercise_box(
    q: &Question,
    mine: &Guesses,
    grade: Option<&Grade>,
    f: &optlab_core::Function,
    guesses: UseReducerDispatcher<Guesses>,
    dispatch: Callback<Action>,
) -> Html {
    let prompt = match q.ask {
        Ask::Roots => "Which instructions are live by themselves (returns, side effects)? Click them in the graph.".to_string(),
        Ask::Visit(Node::Inst(i)) => format!(
            "The worklist takes `{}`. Which instructions does it make live? Click them.",
            words::code(f, i)
        ),
        Ask::Visit(Node::Arg(v)) => format!(
            "The worklist takes argument {}. Which instructions does it make live? Click them.",
            f.value_in_code(v)
        ),
        Ask::Sweep => "Marking is over. Which instructions will the sweep delete or replace? Click them.".to_string(),
    };
    let key = mine.key;
    let reveal = {
        let guesses = guesses.clone();
        Callback::from(move |_: MouseEvent| guesses.dispatch(Guess::Reveal(key)))
    };
    let clear = Callback::from(move |_: MouseEvent| guesses.dispatch(Guess::Clear(key)));
    let end = q.end;
    let cont = dispatch.reform(move |_: MouseEvent| Action::Step(StepCmd::To(end)));
    html! {
        <section class="dce-exercise" aria-live="polite">
            <h3>{ "Predict" }</h3>
            <p class="prompt">{ prompt }</p>
            if let Some(g) = grade {
                <p class={classes!("verdict", g.perfect().then_some("perfect"))}>
                    { format!("{} right · {} wrong · {} missed", g.right.len(), g.wrong.len(), g.missed.len()) }
                    if q.answer.is_empty() { { " — nothing was to be marked here." } }
                </p>
                <p class="key"><span class="right">{ "right" }</span><span class="wrong">{ "wrong" }</span><span class="missed">{ "missed" }</span></p>
                <button class="continue" onclick={cont}>{ "Continue →" }</button>
            } else {
                <p class="picked">{ format!("{} picked", mine.picked.len()) }</p>
                <p class="key"><span class="guess">{ "your guess" }</span></p>
                <button class="reveal" id="dce-reveal" onclick={reveal}>{ "Reveal" }</button>
                <button class="clear" onclick={clear} disabled={mine.picked.is_empty()}>{ "Clear" }</button>
            }
        </section>
    }
}

fn why_box(a: &Rc<Analysis>, k: usize, inst: Option<InstId>, exercise: bool) -> Html {
    let body = match inst {
        None => html! { <p class="hint">{ "Click an instruction in the graph to see why it is live." }</p> },
        Some(i) => html! {
            <ol class="chain">
                { for super::result(a).map(|r| why(&a.function, r, k, i, exercise)).unwrap_or_default().into_iter().map(|line| html! { <li>{ line }</li> }) }
            </ol>
        },
    };
    html! {
        <section class="dce-why" id="dce-why">
            <h3>{ "Why is it live?" }</h3>
            { body }
        </section>
    }
}

/// The "Marked live" list: one tab stop (the selected line's button, else the first), ↑/↓
/// (and Home/End) move between the lines' buttons, Enter or Space selects one — as the graph's
/// roving focus does for blocks.
fn marked_box(a: &Rc<Analysis>, k: usize, selected: Option<InstId>, dispatch: Callback<Action>) -> Html {
    let Some(r) = super::result(a) else { return html! {} };
    let (list, n) = marked(&a.function, r, k, LIST_LIMIT);
    let current = k.checked_sub(1);
    let stop = list.iter().position(|m| m.inst.is_some() && m.inst == selected).or_else(|| list.iter().position(|m| m.inst.is_some()));
    html! {
        <section class="dce-marked">
            <h3 id="dce-marked-title">{ format!("Marked live ({n})") }</h3>
            <ol class="marked-list" reversed=true aria-labelledby="dce-marked-title" data-own-keys="arrows home-end" onkeydown={Callback::from(rove)}>
                { for list.into_iter().enumerate().map(|(j, m)| {
                    let class = classes!(
                        "marked",
                        (Some(m.event) == current).then_some("current"),
                        (m.inst.is_some() && m.inst == selected).then_some("selected"),
                    );
                    let body = html! {
                        <>
                            <code>{ m.code }</code>
                            <span class="where">{ format!(" ({})", m.block) }</span>
                            <span class="reason">{ m.reason }</span>
                        </>
                    };
                    html! {
                        <li {class} data-event={m.event.to_string()}>
                            if let Some(i) = m.inst {
                                <button class="marked-pick" tabindex={if stop == Some(j) { "0" } else { "-1" }}
                                    aria-pressed={(Some(i) == selected).to_string()}
                                    onclick={dispatch.reform(move |_: MouseEvent| Action::SelectInst(Some(i)))}>{ body }</button>
                            } else {
                                { body }
                            }
                        </li>
                    }
                }) }
            </ol>
            if n > LIST_LIMIT {
                <p class="more">{ format!("… and {} earlier", n - LIST_LIMIT) }</p>
            }
        </section>
    }
}

/// ↑/↓/Home/End on a line of the "Marked live" list: the focus moves to the previous / next /
/// first / last line's button.
fn rove(e: KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(from) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) else { return };
    let Some(list) = from.closest("ol").ok().flatten() else { return };
    let Ok(nodes) = list.query_selector_all("button.marked-pick") else { return };
    let buttons: Vec<web_sys::HtmlElement> =
        (0..nodes.length()).filter_map(|i| nodes.item(i)).filter_map(|n| n.dyn_into().ok()).collect();
    let Some(at) = buttons.iter().position(|b| *b == from) else { return };
    let to = match e.key().as_str() {
        "ArrowDown" => (at + 1).min(buttons.len() - 1),
        "ArrowUp" => at.saturating_sub(1),
        "Home" => 0,
        "End" => buttons.len() - 1,
        _ => return,
    };
    e.prevent_default();
    // The tab stop itself stays on the selected line (the state's), so it never disagrees
    // with what the list renders.
    let _ = buttons[to].focus();
}
