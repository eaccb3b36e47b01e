//! The copy elimination view's component: the candidates (one per step), the selected one's
//! precondition and three facts with ✓/✗, the verdict, the CFG and the code with the facts'
//! blocks and instructions highlighted, and the output function. Its only state of its own is
//! which fact is focused (a view detail, not part of a link).

use super::model::{decor, default_focus, facts, inst_marks, verdict, FACT_NAMES};
use crate::graph_view::GraphView;
use crate::state::{Action, StepCmd};
use crate::views::lowering::listing::{lines, listing_html, rich};
use crate::views::ViewProps;
use optlab_core::passes::dce::inst_text;
use optlab_core::sil::lowering::copyelim::Candidate;
use optlab_core::Function;
use std::rc::Rc;
use yew::prelude::*;

const SUBTITLE: &str = "Copy elimination on opaque values, from the SIL opaque-values proposal: in SSA form the \
redundant copy shows. `%copy = copy_value %arg` and `destroy_value %arg` go, and %copy's consumer takes %arg itself, \
when three facts hold — %arg cannot be mutated, it is consumed in scope by its destroy_value, and it is not used after \
%copy is consumed. Each fact is proved on the CFG from the ownership analysis.";

/// The focused fact, for the candidate of one step of one analysis.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Focus {
    key: (usize, usize),
    fact: Option<usize>,
}

#[function_component(CopyElimView)]
pub fn copy_elim_view(props: &ViewProps) -> Html {
    let focus = use_state(Focus::default);
    let s = &props.state;
    let Ok(a) = &s.analysis else { return html! {} };
    let f = &a.function;
    let Some(run) = a.run("copy-elim") else {
        return html! { <p class="empty" role="status">{ "Copy elimination is not available in this build." }</p> };
    };
    let head = html! {
        <div class="ce-head">
            <h2>{ format!("Copy elimination on @{}", f.name) }</h2>
            <p class="lw-subtitle">{ rich(SUBTITLE) }</p>
            <p class="ce-summary" role="status">{ rich(&run.summary()) }</p>
        </div>
    };
    let Some(r) = super::result(a) else {
        return html! { <div class="ce-view">{ head }<p class="lw-refused" role="alert">{ run.problem().unwrap_or("not run").to_string() }</p></div> };
    };
    if r.candidates.is_empty() {
        return html! {
            <div class="ce-view">
                { head }
                <p class="lw-empty" role="status">{ format!("@{} has no copy_value: nothing to eliminate.", f.name) }</p>
            </div>
        };
    }
    let k = s.step(s.tab).min(r.candidates.len() - 1);
    let key = (Rc::as_ptr(a) as usize, k);
    let c = &r.candidates[k];
    let focused = if focus.key == key { focus.fact } else { default_focus(c) };
    let copy_name = f.value_in_code(c.value);

    let list = html! {
        <ol class="ce-candidates" aria-label="copy_value instructions, one per step">
            { for r.candidates.iter().enumerate().map(|(i, cand)| {
                let selected = i == k;
                let onclick = props.dispatch.reform(move |_: MouseEvent| Action::Step(StepCmd::To(i)));
                let word = if cand.eliminated { "removed" } else { "kept" };
                html! {
                    <li class={classes!("ce-candidate", word, selected.then_some("selected"))} data-copy={f.value_in_code(cand.value)}>
                        <button class="ce-pick" aria-pressed={selected.to_string()} {onclick}
                            aria-label={format!("step {i}: {} ({word})", inst_text(f, cand.copy))}>
                            <code>{ inst_text(f, cand.copy) }</code>
                            <span class={classes!("ce-verdict", word)}>{ word }</span>
                        </button>
                    </li>
                }
            }) }
        </ol>
    };

    let fact_items = facts(c).into_iter().enumerate().map(|(i, fact)| {
        let on = focused == Some(i);
        let onclick = {
            let focus = focus.clone();
            Callback::from(move |_: MouseEvent| focus.set(Focus { key, fact: if on { None } else { Some(i) } }))
        };
        let (mark, word) = if fact.holds { ("✓", "holds") } else { ("✗", "fails") };
        let name = if i == 0 { format!("Precondition: {}", FACT_NAMES[0]) } else { format!("{i}. {}", FACT_NAMES[i]) };
        html! {
            <li class={classes!("ce-fact", word, on.then_some("focused"))} data-fact={i.to_string()}>
                <button class="ce-fact-pick" aria-pressed={on.to_string()} {onclick}
                    title="show where this fact is decided on the CFG and in the code">
                    <span class={classes!("ce-mark", word)} role="img" aria-label={word}>{ mark }</span>
                    <span class="ce-fact-name">{ name }</span>
                </button>
                <p class="ce-fact-text">{ rich(&fact.text) }</p>
            </li>
        }
    });

    let cg = &a.cfg_graph;
    let decor = Rc::new(decor(cg, c, focused, &copy_name));
    let marks = inst_marks(c, focused);
    let verdict_class = if c.eliminated { "removed" } else { "kept" };
    html! {
        <div class="ce-view">
            { head }
            { list }
            <div class="ce-main">
                <section class="ce-detail" aria-labelledby="ce-facts-title">
                    <h3 id="ce-facts-title">{ format!("Why {copy_name} is {verdict_class}") }</h3>
                    <ol class="ce-facts" start="0">{ for fact_items }</ol>
                    <p class={classes!("ce-verdict-text", verdict_class)} role="status">
                        <code>{ copy_name.clone() }</code>{ format!(" {}", verdict(c)) }
                    </p>
                    <p class="lw-note">{ "Pick a fact to see where it is decided; pick it again to see them all." }</p>
                </section>
                { code(f, &run.function, &marks, c) }
            </div>
            <figure class="ce-cfg" role="group" aria-label={format!("The CFG of @{} with the facts' blocks and instructions highlighted", f.name)}>
                <figcaption>
                    { "On the CFG: " }
                    <span class="lw-key ce-holds">{ "fact holds" }</span>
                    <span class="lw-key ce-fails">{ "fact fails" }</span>
                    <span class="lw-key ce-copy">{ "the copy" }</span>
                    { " — the shown facts' blocks are outlined, their instructions coloured." }
                </figcaption>
                <GraphView graph={cg.graph.clone()} {decor} class="ce-graph" title={format!("copy-elim-{}", f.name)} />
            </figure>
        </div>
    }
}

fn code(f: &Function, out: &Function, marks: &std::collections::BTreeMap<optlab_core::InstId, String>, c: &Candidate) -> Html {
    html! {
        <section class="ce-code" aria-labelledby="ce-code-title">
            <h3 id="ce-code-title">{ "The code: input and output" }</h3>
            <div class="ce-code-panes">
                <div class="lw-pane">
                    <h4>{ "Input (the facts' instructions marked)" }</h4>
                    { listing_html(&lines(f, marks), "the input function", "ce-input") }
                </div>
                <div class="lw-pane">
                    <h4>{ if c.eliminated { "Output (the copy and the destroy are gone)" } else { "Output" } }</h4>
                    { listing_html(&lines(out, &Default::default()), "the output function", "ce-output") }
                </div>
            </div>
        </section>
    }
}
