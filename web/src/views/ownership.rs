//! The Ownership view: OSSA ownership (seed 003; Swift's `docs/SIL/Ownership.md`) and Swift's
//! ownership verifier (`SILOwnershipVerifier.cpp`, `LinearLifetimeChecker.cpp`), as core's
//! `optlab_core::sil::ownership` computed them. The view lays out the analysis — the selected
//! value's lifetime or borrow scope on the CFG, the values with their kinds, the operands of
//! the selected value with their constraints, the verifier's findings — and dispatches:
//! selecting a value, revealing a span in the editor, the "break it" teaching edits.

use super::ViewProps;
use crate::cfg_graph::CfgGraph;
use crate::graph::{Badge, Decor};
use crate::graph_view::GraphView;
use crate::program::Ownership;
use crate::state::{Action, Break};
use optlab_core::passes::dce::inst_text;
use optlab_core::sil::ownership::query::{step_findings, step_value};
use optlab_core::sil::ownership::{Accepts, FunctionOwnership, Kind, Names, Verdict};
use optlab_core::{BlockId, Function, InstId, SourceFile, Span, ValueId};
use optlab_core::ir::ValueDef;
use std::rc::Rc;
use yew::prelude::*;

/// What a kind badge says to a screen reader.
pub fn kind_label(k: Kind) -> &'static str {
    match k {
        Kind::None => "none: trivial or an address, no ownership rules",
        Kind::Owned => "owned: must be consumed exactly once on every path",
        Kind::Guaranteed => "guaranteed: borrowed, used only inside a borrow scope",
        Kind::Unowned => "unowned: must be copied before an owned or guaranteed use",
    }
}

fn kind_badge(k: Kind) -> Html {
    html! {
        <span class={classes!("own-badge", k.word())} role="img" aria-label={kind_label(k)} title={kind_label(k)}>{ k.word() }</span>
    }
}

/// Text with `code` spans between backticks, as core's reasons write instructions and types.
fn rich(text: &str) -> Html {
    html! {
        { for text.split('`').enumerate().map(|(k, part)| {
            if k % 2 == 1 { html! { <code>{ part.to_string() }</code> } } else { html! { { part.to_string() } } }
        }) }
    }
}

/// The (node, line) where `v` is defined: its instruction's line, or the header line of the
/// block whose parameter it is.
fn def_line(f: &Function, cg: &CfgGraph, v: ValueId) -> Option<(usize, usize)> {
    match f.values.get(v)?.def {
        ValueDef::Result { inst, .. } => cg.line_of(inst),
        ValueDef::Param { block, .. } => {
            let n = *cg.node_of.get(&block)?;
            (cg.inst_at(n, 0).is_none() && !cg.insts.get(n)?.is_empty()).then_some((n, 0))
        }
        _ => None,
    }
}

/// The decorations of the graph: the shown value's lifetime or borrow scope, the dead-end
/// blocks, the findings of the current step (or all of them at the first step).
pub fn decor(f: &Function, cg: &CfgGraph, o: &Ownership, v: Option<ValueId>, step: usize) -> Decor {
    let fo = &o.fo;
    let mut d = Decor::new();
    let node = |b: BlockId| cg.node_of.get(&b).copied();
    let mark_line = |d: &mut Decor, i: InstId, class: &str| {
        if let Some((n, l)) = cg.line_of(i) {
            d.line_class(n, l, class);
        }
    };
    for &b in &fo.dead_end_blocks {
        if let Some(n) = node(b) {
            d.node_class(n, "own-dead-end");
            d.node_mut(n).exit.push(
                Badge::new("dead end", "own-dead-end-badge")
                    .with_title("no return is reachable from here: owned values need not be consumed"),
            );
        }
    }
    if let Some(v) = v {
        let vi = fo.value(v);
        let name = vi.map_or_else(String::new, |i| i.name.clone());
        if let Some(n) = vi.and_then(|i| i.block).and_then(node) {
            d.node_class(n, "own-def");
            d.node_mut(n).entry.push(Badge::new(format!("def {name}"), "own-def-badge").with_title(format!("{name} is defined here")));
        }
        if let Some((n, l)) = def_line(f, cg, v) {
            d.line_class(n, l, "own-def");
        }
        if let Some(l) = fo.lifetime(v) {
            for &b in &l.live_blocks {
                if let Some(n) = node(b) {
                    d.node_class(n, "own-live");
                }
            }
            for &i in &l.uses {
                mark_line(&mut d, i, "own-use");
            }
            for &i in &l.consuming {
                mark_line(&mut d, i, "own-consume");
                if let Some((n, _)) = cg.line_of(i) {
                    d.node_class(n, "own-end");
                    d.node_mut(n).exit.push(Badge::new(format!("{name} consumed"), "own-consume-badge").with_title(inst_text(f, i)));
                }
            }
        }
        if let Some(s) = fo.scope(v) {
            for &b in &s.live_blocks {
                if let Some(n) = node(b) {
                    d.node_class(n, "own-live").node_class(n, "own-scope");
                }
            }
            for &i in &s.uses {
                mark_line(&mut d, i, "own-use");
            }
            for &i in &s.ends {
                mark_line(&mut d, i, "own-consume");
                if let Some((n, _)) = cg.line_of(i) {
                    d.node_class(n, "own-end");
                    d.node_mut(n).exit.push(Badge::new("end_borrow", "own-end-borrow-badge").with_title(inst_text(f, i)));
                }
            }
            for &(br, phi) in &s.reborrows {
                mark_line(&mut d, br, "own-reborrow");
                let from = cg.line_of(br).map(|(n, _)| n);
                let to = fo.value(phi).and_then(|p| p.block).and_then(node);
                if let (Some(from), Some(to)) = (from, to) {
                    if let Some(e) = cg.graph.edges.iter().position(|e| e.from == from && e.to == to) {
                        d.edge_class(e, "own-reborrow");
                    }
                    let phi_name = fo.value(phi).map_or_else(String::new, |p| p.name.clone());
                    d.node_mut(to).entry.push(
                        Badge::new(format!("reborrow → {phi_name}"), "own-reborrow-badge")
                            .with_title(format!("the scope of {name} continues as the @guaranteed phi {phi_name}")),
                    );
                }
            }
        }
    }
    // The findings of the current step; at the first step, every finding.
    let shown: Vec<usize> =
        if step == 0 { (0..o.verdict.findings.len()).collect() } else { step_findings(fo, &o.verdict, step) };
    for k in shown {
        let fd = &o.verdict.findings[k];
        for b in fd.block.iter().chain(&fd.blocks) {
            if let Some(n) = node(*b) {
                d.node_class(n, "own-failing");
            }
        }
        for i in fd.user.iter().chain(&fd.other_user) {
            mark_line(&mut d, *i, "own-error");
        }
    }
    if let Some((n, l)) = step_value(fo, &o.verdict, step).and_then(|sv| def_line(f, cg, sv)) {
        d.line_class(n, l, "current");
    }
    d
}

/// The 1-based source lines of the verifier's findings (the editor highlights them in this
/// view: the parse-error markers are for errors that stop the analysis, these do not).
pub fn finding_lines(a: &crate::program::Analysis, source: &str) -> Vec<u32> {
    let Some(o) = &a.ownership else { return Vec::new() };
    let sf = SourceFile::new("", source);
    let mut lines: Vec<u32> = o
        .verdict
        .findings
        .iter()
        .filter(|f| !f.span.is_empty() && (f.span.hi as usize) <= source.len())
        .map(|f| sf.line_col(f.span.lo).line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The verifier's one-line summary.
pub fn summary(v: &Verdict) -> String {
    match v.findings.len() {
        0 => "Swift's ownership verifier: no errors.".into(),
        1 => "Swift's ownership verifier: 1 error.".into(),
        n => format!("Swift's ownership verifier: {n} errors."),
    }
}

fn accepts_word(a: Accepts) -> String {
    format!("accepts {a}")
}

#[function_component(OwnershipView)]
pub fn ownership_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let (Ok(a), Some(p)) = (&s.analysis, &s.program) else { return html! {} };
    let f = &a.function;
    let head = html! {
        <div class="own-head">
            <h2>{ format!("Ownership of @{}", f.name) }</h2>
            <p class="own-subtitle">
                { "OSSA ownership and borrow scopes — Swift's ownership verifier (" }
                <cite>{ "docs/SIL/Ownership.md" }</cite>{ ", " }<cite>{ "SILOwnershipVerifier.cpp" }</cite>
                { "). Ownership SSA: an owned value has a single consumer; a borrow has static scope." }
            </p>
        </div>
    };
    let Some(o) = a.ownership.as_ref().filter(|o| o.fo.ossa) else {
        let why = a.ownership.as_ref().and_then(|o| o.verdict.note.clone());
        return html! {
            <div class="own-view">
                { head }
                <p class="own-note own-not-ossa" role="status">
                    { "not OSSA: ownership is not checked" }
                    { for why.map(|w| html! { <span class="own-why">{ " — " }{ rich(&w) }</span> }) }
                    { if a.ownership.is_none() { " — Bril values have no ownership." } else { "" } }
                </p>
            </div>
        };
    };
    let fo: &FunctionOwnership = &o.fo;
    let cg = &a.cfg_graph;
    let sf = Rc::new(SourceFile::new(&p.file, &p.source));
    let loc = {
        let sf = sf.clone();
        move |span: Span| {
            let lc = sf.line_col(span.lo);
            format!("{}:{}", lc.line, lc.col)
        }
    };
    let reveal = |span: Span| props.dispatch.reform(move |_| Action::Reveal(span));
    let v = s.ownership_value();
    let step = s.step(s.tab);
    let decor = Rc::new(decor(f, cg, o, v, step));
    let names = Names::user(f);
    let vname = v.and_then(|v| fo.value(v)).map(|i| i.name.clone());

    let breaks = {
        let del = s.broken(Break::DeleteDestroy).is_some();
        let mv = s.broken(Break::MoveEndBorrowUp).is_some();
        let n = vname.clone().unwrap_or_default();
        html! {
            <div class="own-breaks" role="group" aria-label="Break it: teaching edits">
                <span class="own-note">{ "Break it (an edit you can undo): " }</span>
                if del {
                    <button class="own-break own-break-destroy" aria-label={format!("delete the first destroy_value of {n}")}
                        title="removes the line from the program text; the verifier then reports the leak"
                        onclick={props.dispatch.reform(|_| Action::BreakIt(Break::DeleteDestroy))}>
                        { "Delete a destroy_value" }
                    </button>
                }
                if mv {
                    <button class="own-break own-break-end-borrow" aria-label={format!("move the end_borrow of {n} above a use")}
                        title="moves the end_borrow line above a use inside the scope; the verifier then reports a use outside the lifetime"
                        onclick={props.dispatch.reform(|_| Action::BreakIt(Break::MoveEndBorrowUp))}>
                        { "Move end_borrow up" }
                    </button>
                }
                if !del && !mv {
                    <span class="own-note">{ format!("nothing to break for {n}: select an owned value with a destroy_value, or a borrow") }</span>
                }
            </div>
        }
    };

    let findings = html! {
        <section class="own-findings" aria-label="Verifier findings">
            <h3 class={if o.verdict.findings.is_empty() { "own-ok" } else { "own-bad" }} role="status">{ summary(&o.verdict) }</h3>
            <ul>
                { for o.verdict.findings.iter().map(|fd| {
                    let lines = fd.lines(f, &names);
                    html! {
                        <li class="own-finding" data-category={format!("{:?}", fd.category)}>
                            <button class="finding-at" aria-label={format!("go to {} in the editor", loc(fd.span))} onclick={reveal(fd.span)}>{ loc(fd.span) }</button>
                            { " " }<strong class="own-message">{ fd.message }</strong>
                            <pre class="own-finding-lines">{ lines.iter().skip(1).cloned().collect::<Vec<_>>().join("\n") }</pre>
                            <p class="own-explain">{ rich(fd.category.explain()) }</p>
                        </li>
                    }
                }) }
            </ul>
        </section>
    };

    let operands = v.map(|v| {
        let ops: Vec<_> = fo.operands.iter().filter(|op| op.value == v).collect();
        html! {
            <section class="own-operands" aria-label="Uses of the selected value">
                <h3>{ format!("Uses of {} and their constraints", vname.clone().unwrap_or_default()) }</h3>
                if ops.is_empty() { <p class="own-note">{ "no uses" }</p> }
                <ul>
                    { for ops.iter().map(|op| {
                        let span = f.insts.get(op.inst).map_or(Span::DUMMY, |i| i.span);
                        html! {
                            <li class={classes!("own-operand", op.constraint.ending.then_some("ending"), (!op.compatible).then_some("incompatible"))}>
                                <button class="use-at" aria-label={format!("go to the use at {}", loc(span))} onclick={reveal(span)}>{ loc(span) }</button>
                                { " " }<code>{ inst_text(f, op.inst) }</code>
                                <span class="own-constraint">
                                    { format!(" — {:?}, {}, {}", op.constraint.role, accepts_word(op.constraint.accepts),
                                        if op.constraint.ending { "lifetime-ending" } else { "not lifetime-ending" }) }
                                    if !op.compatible { <strong>{ " — incompatible" }</strong> }
                                </span>
                            </li>
                        }
                    }) }
                </ul>
            </section>
        }
    });

    let table = html! {
        <table class="own-values" aria-label="Values and their ownership kinds">
            <thead><tr><th scope="col">{ "value" }</th><th scope="col">{ "kind" }</th><th scope="col">{ "why" }</th></tr></thead>
            <tbody>
                { for fo.values.iter().map(|vi| {
                    let sel = v == Some(vi.value);
                    let name = vi.name.clone();
                    let onclick = props.dispatch.reform(move |_| Action::SelectValue(Some(name.clone())));
                    html! {
                        <tr class={classes!("own-row", vi.kind.word(), sel.then_some("selected"))} data-value={vi.name.clone()}>
                            <td><button class="own-value" aria-pressed={sel.to_string()} title="show its lifetime on the CFG" {onclick}>
                                <code>{ vi.name.clone() }</code>
                            </button></td>
                            <td>{ kind_badge(vi.kind) }{ if vi.reborrow { " reborrow" } else { "" } }</td>
                            <td class="own-why">{ rich(&vi.why) }{ if vi.assumed { " (assumed; not verified)" } else { "" } }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    };

    let legend = html! {
        <p class="own-legend">
            <span class="own-key live">{ "live" }</span>
            <span class="own-key def">{ "definition" }</span>
            <span class="own-key use">{ "use" }</span>
            <span class="own-key consume">{ "consume / end_borrow" }</span>
            <span class="own-key reborrow">{ "reborrow edge" }</span>
            <span class="own-key dead">{ "dead end" }</span>
            <span class="own-key failing">{ "failing block" }</span>
        </p>
    };
    let onselect = {
        let (cg, dispatch) = (cg.clone(), props.dispatch.clone());
        Callback::from(move |id: String| {
            let _ = &cg;
            dispatch.emit(Action::SelectBlock(Some(id)));
        })
    };
    html! {
        <div class="own-view">
            { head }
            { findings }
            <h3 class="own-graph-title">
                { match &vname { Some(n) => format!("Lifetime of {n} on the CFG"), None => "The CFG (no value with ownership)".into() } }
            </h3>
            { legend }
            <GraphView graph={cg.graph.clone()} {decor} {onselect} title={format!("ownership-{}", f.name)} />
            { breaks }
            { for operands }
            { table }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Action, State, StepCmd, Tab};

    fn state(func: &str) -> State {
        State::default().apply(Action::LoadExample("ownership".into())).apply(Action::SelectFunction(func.into()))
    }

    #[test]
    fn the_lifetime_of_a_copy_covers_both_arms_of_the_diamond() {
        let s = state("copy_diamond");
        let a = s.analysis.as_ref().unwrap();
        let o = a.ownership.as_ref().unwrap();
        assert!(o.verdict.findings.is_empty());
        let s = s.apply(Action::SelectValue(Some("%2".into())));
        let d = decor(&a.function, &a.cfg_graph, o, s.ownership_value(), 0);
        let live: Vec<&str> = d.nodes.iter().filter(|(_, n)| n.class.contains("own-live")).map(|(&i, _)| a.cfg_graph.graph.nodes[i].id.as_str()).collect();
        assert_eq!(live, ["bb0", "bb1", "bb2"]);
        assert!(d.nodes[&0].class.contains("own-def"));
    }

    #[test]
    fn a_reborrow_marks_its_edge_and_the_verifier_steps() {
        let s = state("reborrow_phi").apply(Action::SelectValue(Some("%1".into())));
        let a = s.analysis.as_ref().unwrap();
        let o = a.ownership.as_ref().unwrap();
        let d = decor(&a.function, &a.cfg_graph, o, s.ownership_value(), 0);
        assert_eq!(d.edges.values().filter(|c| c.contains("own-reborrow")).count(), 1);
        let s = s.apply(Action::SelectTab(Tab::OWNERSHIP)).apply(Action::Step(StepCmd::Next));
        assert_eq!(s.step(Tab::OWNERSHIP), 1);
        assert!(!s.step_text().is_empty());
    }

    #[test]
    fn over_consume_is_reported_and_bril_is_not_checked() {
        let s = state("over_consume");
        let o = s.analysis.as_ref().unwrap().ownership.as_ref().unwrap();
        assert_eq!(o.verdict.findings.len(), 1);
        assert_eq!(o.verdict.findings[0].message, "Found over consume?!");
        let a = s.analysis.as_ref().unwrap();
        let at = s.doc.source.rfind("%3 = apply %2(%1)").unwrap();
        let line = s.doc.source[..at].matches('\n').count() as u32 + 1;
        assert_eq!(finding_lines(a, &s.doc.source), [line], "the consuming user's line");
        let b = State::default();
        assert!(b.analysis.as_ref().unwrap().ownership.is_none());
        assert_eq!(b.step_count(Tab::OWNERSHIP), 1);
    }
}
