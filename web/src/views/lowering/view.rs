//! The AddressLowering view's component: the three steps of core's run at the step bar's
//! step — the table of opaque values, the storage tree with the `alloc_stack`s on the lowered
//! CFG, the rewritten lines side by side — and the input beside the lowered function. It
//! renders and dispatches step changes; it keeps no state of its own.

use super::listing::{block_of, lines, listing_html, mark_texts, rich};
use super::model::{rewrite_rows, rows, stack_decor, storage_tree, Phase, RewriteRow, Row, TreeNode, LEGEND};
use crate::cfg_graph::cfg_graph;
use crate::graph_view::GraphView;
use crate::state::{Action, StepCmd};
use crate::views::ViewProps;
use optlab_core::passes::address_lowering::FIRST_REWRITE_STEP;
use optlab_core::passes::dce::inst_text;
use optlab_core::sil::lowering::Lowering;
use optlab_core::{Function, InstId};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

const SUBTITLE: &str = "AddressLowering (Swift's, from the SIL opaque-values proposal): address-only values are \
SSA values until this pass gives each one storage — an argument, the @out result, an alloc_stack, or a part of \
another value's storage — and rewrites every instruction into its address form. Three steps: assignment, \
allocation, rewriting.";

#[function_component(LoweringView)]
pub fn lowering_view(props: &ViewProps) -> Html {
    let s = &props.state;
    // Hooks first, unconditionally: the lowered function's CFG drawing, and why a refused
    // function was refused (core's refusal names the instruction; the pass contract keeps
    // only the message).
    let analysis = s.analysis.clone().ok();
    let lowered = use_memo(analysis.clone(), |a| {
        let a = a.as_ref()?;
        super::result(a)?;
        Some(cfg_graph(&a.run("address-lowering")?.function))
    });
    let refused_at = use_memo(analysis, |a| a.as_ref().and_then(|a| super::model::refused_at(a)));

    let Ok(a) = &s.analysis else { return html! {} };
    let f = &a.function;
    let Some(run) = a.run("address-lowering") else {
        return html! { <p class="empty" role="status">{ "AddressLowering is not available in this build." }</p> };
    };
    let head = html! {
        <div class="lw-head">
            <h2>{ format!("AddressLowering of @{}", f.name) }</h2>
            <p class="lw-subtitle">{ SUBTITLE }</p>
            <p class="lw-summary" role="status">{ rich(&run.summary()) }</p>
        </div>
    };
    let Some(l) = super::result(a) else {
        return html! { <div class="lw-view">{ head }{ refusal(f, run.problem().unwrap_or("not lowered"), *refused_at) }</div> };
    };
    let k = s.step(s.tab);
    let phase = Phase::of(l, k);
    let go = |step: usize| props.dispatch.reform(move |_: MouseEvent| Action::Step(StepCmd::To(step)));
    let has_rewrites = run.steps.len() > FIRST_REWRITE_STEP;
    let phase_button = |n: usize, step: usize, label: &str, enabled: bool| {
        let current = phase.number() == n;
        html! {
            <button class={classes!("lw-phase", current.then_some("current"))} id={format!("lw-phase-{n}")}
                aria-current={current.then_some("step")} disabled={!enabled} onclick={go(step)}>
                <span class="lw-phase-n">{ n }</span>{ label.to_string() }
            </button>
        }
    };
    let nav = html! {
        <nav class="lw-phases" aria-label="AddressLowering's three steps">
            { phase_button(1, 0, "Storage assignment", true) }
            { phase_button(2, 1, "Storage allocation", true) }
            { phase_button(3, FIRST_REWRITE_STEP, "Rewriting", has_rewrites) }
        </nav>
    };
    let body = match phase {
        Phase::Assignment => assignment(f, l),
        Phase::Allocation => allocation(f, l, (*lowered).as_ref()),
        Phase::Rewrite(r) => rewriting(l, r, &props.dispatch),
    };
    let current_inst = match phase {
        Phase::Rewrite(r) => l.rewrites.get(r).and_then(|x| x.inst),
        _ => None,
    };
    let marks: BTreeMap<InstId, String> = current_inst.map(|i| (i, "lw-current".to_string())).into_iter().collect();
    let mut out_lines = lines(&run.function, &BTreeMap::new());
    if let Phase::Rewrite(r) = phase {
        if let Some(rw) = l.rewrites.get(r) {
            mark_texts(&mut out_lines, &rw.block, &rw.after, "lw-current");
        }
    }
    html! {
        <div class={classes!("lw-view", format!("lw-phase-{}", phase.number()))}>
            { head }
            { nav }
            { body }
            <section class="lw-before-after" aria-labelledby="lw-ba-title">
                <h3 id="lw-ba-title">{ "Before and after" }</h3>
                <div class="lw-panes">
                    <div class="lw-pane">
                        <h4>{ "Opaque values (the input)" }</h4>
                        { listing_html(&lines(f, &marks), "the input function, with opaque values", "lw-input") }
                    </div>
                    <div class="lw-pane">
                        <h4>{ "Lowered (addresses)" }</h4>
                        { listing_html(&out_lines, "the lowered function", "lw-output") }
                    </div>
                </div>
            </section>
        </div>
    }
}

fn refusal(f: &Function, problem: &str, at: Option<InstId>) -> Html {
    let marks: BTreeMap<InstId, String> = at.map(|i| (i, "lw-refused-line".to_string())).into_iter().collect();
    html! {
        <section class="lw-refusal">
            <p class="lw-refused" role="alert">
                <strong>{ format!("@{} is not lowered: ", f.name) }</strong>{ rich(problem) }
            </p>
            if let Some(i) = at {
                <p class="lw-refused-at">
                    { "The instruction that stopped it" }
                    { for block_of(f, i).map(|b| format!(" (in {b})")) }
                    { ": " }<code>{ inst_text(f, i) }</code>
                </p>
            }
            <p class="lw-note">{ "AddressLowering gives up on the whole function rather than lower part of it: the output would mix values and addresses. Pick a function with opaque values in the function menu." }</p>
            { listing_html(&lines(f, &marks), "the function as written", "lw-input") }
        </section>
    }
}

fn row_html(r: &Row) -> Html {
    html! {
        <tr class={classes!("lw-row", r.class)} data-value={r.name.clone()}>
            <td class="lw-order">{ r.order }</td>
            <th scope="row"><code>{ r.name.clone() }</code></th>
            <td><code>{ format!("${}", r.ty) }</code></td>
            <td>{ r.def.clone() }</td>
            <td><span class={classes!("lw-kind", r.class)}>{ r.kind }</span></td>
            <td class="lw-where">{ rich(&r.detail) }</td>
            <td class="lw-why">{ rich(&r.why) }</td>
        </tr>
    }
}

fn assignment(f: &Function, l: &Lowering) -> Html {
    let rows = rows(f, l);
    html! {
        <section class="lw-step lw-assign" aria-labelledby="lw-step1-title">
            <h3 id="lw-step1-title">{ "Step 1 · Storage assignment: every opaque value gets storage" }</h3>
            <p class="lw-note">
                { "An opaque value is an SSA value of an address-only type (a generic " }<code>{ "$T" }</code>
                { ", a resilient type): its size is unknown here, so after lowering it must live in memory. The values are visited in reverse postorder, definitions before uses." }
            </p>
            if rows.is_empty() {
                <p class="lw-empty" role="status">
                    { format!("@{} has no opaque values: nothing needs storage. Step 3 still rewrites its signature and its returns to the lowered conventions.", f.name) }
                </p>
            } else {
                <table class="lw-values" id="lw-values">
                    <caption>{ format!("{} opaque value{} in reverse postorder, and where each one lives", rows.len(), if rows.len() == 1 { "" } else { "s" }) }</caption>
                    <thead>
                        <tr>
                            <th scope="col">{ "#" }</th>
                            <th scope="col">{ "value" }</th>
                            <th scope="col">{ "type" }</th>
                            <th scope="col">{ "defined by" }</th>
                            <th scope="col">{ "storage" }</th>
                            <th scope="col">{ "where" }</th>
                            <th scope="col">{ "why" }</th>
                        </tr>
                    </thead>
                    <tbody>{ for rows.iter().map(row_html) }</tbody>
                </table>
            }
        </section>
    }
}

fn tree_html(nodes: &[TreeNode]) -> Html {
    html! {
        <ul class="lw-tree-level">
            { for nodes.iter().map(|n| html! {
                <li class="lw-tree-item" data-value={n.name.clone()}>
                    <span class={classes!("lw-node", n.class)}>
                        <code class="lw-node-name">{ n.name.clone() }</code>
                        <span class={classes!("lw-kind", n.class)}>{ n.kind }</span>
                        <span class="lw-node-detail">{ rich(&n.detail) }</span>
                    </span>
                    if !n.children.is_empty() { { tree_html(&n.children) } }
                </li>
            }) }
        </ul>
    }
}

fn legend() -> Html {
    html! {
        <dl class="lw-legend" aria-label="Storage kinds">
            { for LEGEND.iter().map(|(class, word, means)| html! {
                <div class="lw-legend-item">
                    <dt><span class={classes!("lw-kind", *class)}>{ *word }</span></dt>
                    <dd>{ *means }</dd>
                </div>
            }) }
        </dl>
    }
}

fn allocation(f: &Function, l: &Lowering, lowered: Option<&crate::cfg_graph::CfgGraph>) -> Html {
    let tree = storage_tree(f, l);
    let graph = lowered.map(|g| {
        let decor = Rc::new(stack_decor(g, l));
        html! {
            <figure class="lw-cfg" role="group" aria-label="The lowered function's CFG: alloc_stack lines and their dealloc_stack marked">
                <figcaption>
                    { "The lowered CFG: " }<span class="lw-key lw-alloc">{ "alloc_stack" }</span>{ " and " }
                    <span class="lw-key lw-dealloc">{ "dealloc_stack" }</span>
                    { " lines, and a badge where each slot is allocated and freed. Slots nest: the last allocated is freed first, on every path." }
                </figcaption>
                <GraphView graph={g.graph.clone()} {decor} class="lw-graph" title={format!("address-lowering-{}", f.name)} />
            </figure>
        }
    });
    html! {
        <section class="lw-step lw-alloc-step" aria-labelledby="lw-step2-title">
            <h3 id="lw-step2-title">{ "Step 2 · Storage allocation: which values share storage" }</h3>
            <p class="lw-note">
                { "Users before definitions: a value is built directly inside its user's storage where it can be (a use-projection), is a part of its operand's (a def-projection), or reuses it; what is left is a root — an argument, the @out result, or a new alloc_stack." }
            </p>
            <div class="lw-alloc-body">
                <div class="lw-tree-box">
                    <h4 id="lw-tree-title">{ "The storage tree" }</h4>
                    if tree.is_empty() {
                        <p class="lw-empty">{ "No opaque values: no storage." }</p>
                    } else {
                        <div class="lw-tree" id="lw-tree" role="group" aria-labelledby="lw-tree-title">{ tree_html(&tree) }</div>
                    }
                    <h4>{ "Stack slots" }</h4>
                    if l.stacks.is_empty() {
                        <p class="lw-empty lw-no-stacks">{ "No alloc_stack: every opaque value lives in an argument, the @out result, or another value's storage." }</p>
                    } else {
                        <ol class="lw-stacks">
                            { for l.stacks.iter().map(|st| html! {
                                <li class="lw-stack" data-slot={st.name.clone()}>
                                    <code>{ format!("{} = alloc_stack{} ${}", st.name, if st.lexical { " [lexical]" } else { "" }, st.ty) }</code>
                                    { format!(" holds {}", if st.values.is_empty() { "nothing".to_string() } else { st.values.join(", ") }) }
                                </li>
                            }) }
                        </ol>
                    }
                </div>
                { legend() }
            </div>
            { for graph }
        </section>
    }
}

fn rewrite_row_html(r: &RewriteRow, dispatch: &Callback<Action>) -> Html {
    let step = r.step.map(|k| {
        let onclick = dispatch.reform(move |_: MouseEvent| Action::Step(StepCmd::To(k)));
        html! { <button class="lw-step-link" {onclick} aria-label={format!("go to step {k}")}>{ format!("step {k}") }</button> }
    });
    let class = classes!(
        "lw-rw",
        r.current.then_some("current"),
        r.step.is_none().then_some("unchanged"),
        r.label.then_some("label"),
    );
    html! {
        <tr {class} data-rewrite={r.index.to_string()} aria-current={r.current.then_some("step")}>
            <td class="lw-rw-step">{ step.unwrap_or_else(|| html! { <span class="lw-same" title="unchanged">{ "=" }</span> }) }</td>
            <td class="lw-old"><code>{ r.before.clone() }</code></td>
            <td class="lw-arrow" aria-hidden="true">{ "→" }</td>
            <td class="lw-new">
                if r.after.is_empty() {
                    <em class="lw-deleted">{ "deleted" }</em>
                } else {
                    { for r.after.iter().map(|a| html! { <code class="lw-new-line">{ a.clone() }</code> }) }
                }
            </td>
            <td class="lw-why">{ rich(&r.why) }</td>
        </tr>
    }
}

fn rewriting(l: &Lowering, current: usize, dispatch: &Callback<Action>) -> Html {
    let rows = rewrite_rows(l, Some(current));
    let now = rows.get(current).map(|r| {
        let after = if r.after.is_empty() { "nothing".to_string() } else { r.after.join("; ") };
        html! {
            <p class="lw-now" aria-live="polite">
                { format!("In {}: ", r.block) }<code>{ r.before.clone() }</code>{ " becomes " }<code>{ after }</code>
                { " — " }{ rich(&r.why) }
            </p>
        }
    });
    html! {
        <section class="lw-step lw-rewrite-step" aria-labelledby="lw-step3-title">
            <h3 id="lw-step3-title">{ "Step 3 · Rewriting: each instruction into its address form" }</h3>
            <p class="lw-note">
                { "Copies only where the input copied (" }<code>{ "copy_value" }</code>{ " → " }<code>{ "copy_addr" }</code>
                { "), moves only to build a value into storage it was not built in. Step with ← and →." }
            </p>
            { for now }
            <table class="lw-rewrites" id="lw-rewrites">
                <caption>{ "Old line → new lines, in program order (= marks an unchanged line)" }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ "step" }</th>
                        <th scope="col">{ "opaque values" }</th>
                        <th scope="col"><span class="lw-sr-only">{ "becomes" }</span></th>
                        <th scope="col">{ "lowered" }</th>
                        <th scope="col">{ "why" }</th>
                    </tr>
                </thead>
                <tbody>{ for rows.iter().map(|r| rewrite_row_html(r, dispatch)) }</tbody>
            </table>
        </section>
    }
}
