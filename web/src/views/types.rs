//! The Types view: Swift type lowering (docs/SIL/Types.md, `lib/SIL/IR/TypeLowering.cpp`)
//! asked of every type of the selected function — trivial, loadable or address-only, with the
//! why-chain core computed (`optlab_core::sil::types`). The view only lays out
//! [`FunctionTypes`] and dispatches: selecting a row, going to a declaration or a use in the
//! editor, the what-if substitution of a generic parameter, the resilient and opaque-values
//! switches, inserting a stub for an undeclared type.

use super::ViewProps;
use crate::program::Analysis;
use crate::state::Action;
use crate::type_tips::{descriptions, value_tokens};
use optlab_core::sil::types::decl::Kind;
use optlab_core::sil::types::query::generic_names;
use optlab_core::sil::types::{Category, Class, FunctionTypes, Row, Source, Step};
use optlab_core::{Lang, SourceFile, Span};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// What the what-if offers for a generic parameter: one trivial, one class, one opaque
/// existential, one thick function — the four outcomes of seed 002's Box/Transform/Phantom.
pub const SUGGESTIONS: [&str; 4] = ["Int", "NSObject", "Any", "() -> ()"];

/// The CSS class and slug of a class's badge.
pub fn class_slug(c: Class) -> &'static str {
    match c {
        Class::Trivial => "trivial",
        Class::Loadable => "loadable",
        Class::AddressOnly => "address-only",
        Class::Unknown => "unknown",
    }
}

/// What a badge says to a screen reader.
pub fn class_label(c: Class) -> String {
    let what = match c {
        Class::Trivial => "copies are bit copies",
        Class::Loadable => "lives in SSA values, copies retain",
        Class::AddressOnly => "must live in memory",
        Class::Unknown => "the text does not decide it",
    };
    format!("{}: {what}", c.word())
}

/// Where a step's fact comes from, in one word.
pub fn source_word(s: Source) -> &'static str {
    match s {
        Source::Rule => "rule",
        Source::Declared => "declared",
        Source::Stdlib => "stdlib",
        Source::Assumption => "assumed",
        Source::WhatIf => "what-if",
    }
}

/// `ty` as the row shows it: `$Box<Any>` or `$*Box<Any>` in SIL, the type alone in Bril.
pub fn shown(lang: Lang, text: &str) -> String {
    match lang {
        Lang::Sil => format!("${text}"),
        Lang::Bril => text.to_string(),
    }
}

/// The 1-based source lines of a row's uses (the editor highlights them).
pub fn use_lines(source: &str, row: &Row) -> Vec<u32> {
    let sf = SourceFile::new("", source);
    let mut lines: Vec<u32> =
        row.uses.iter().filter(|u| (u.span.hi as usize) <= source.len()).map(|u| sf.line_col(u.span.lo).line).collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// Tooltips for the editor: every `%value` of the function, as a byte span of `source`, with
/// its type and class (`` `%3 : $Box<Any>` — address-only ``). SIL only; empty for Bril.
pub fn value_tips(a: &Analysis, source: &str) -> Vec<(u32, u32, String)> {
    let f = &a.function;
    if f.lang != Lang::Sil {
        return Vec::new();
    }
    let by_name = descriptions(f, a.types(f));
    let (lo, hi) = (f.span.lo as usize, (f.span.hi as usize).min(source.len()));
    let Some(text) = source.get(lo..hi) else { return Vec::new() };
    value_tokens(text)
        .into_iter()
        .filter_map(|(i, end)| by_name.get(&text[i..end]).map(|tip| ((lo + i) as u32, (lo + end) as u32, tip.clone())))
        .collect()
}

/// Text with `code` spans between backticks, as the why-chains write types.
fn rich(text: &str) -> Html {
    html! {
        { for text.split('`').enumerate().map(|(k, part)| {
            if k % 2 == 1 { html! { <code>{ part.to_string() }</code> } } else { html! { { part.to_string() } } }
        }) }
    }
}

fn badge(c: Class) -> Html {
    html! {
        <span class={classes!("type-badge", class_slug(c))} role="img" aria-label={class_label(c)} title={class_label(c)}>
            { c.word() }
        </span>
    }
}

#[function_component(TypesView)]
pub fn types_view(props: &ViewProps) -> Html {
    let s = &props.state;
    let (Ok(a), Some(p)) = (&s.analysis, &s.program) else { return html! {} };
    let f = &a.function;
    let ft: &FunctionTypes = a.types(f);
    let sf = Rc::new(SourceFile::new(&p.file, &p.source));
    let loc = {
        let sf = sf.clone();
        move |span: Span| {
            let lc = sf.line_col(span.lo);
            format!("{}:{}", lc.line, lc.col)
        }
    };
    let reveal = |span: Span| props.dispatch.reform(move |_| Action::Reveal(span));
    let selected = s.types.row.as_deref();
    let counts = ft.counts();
    let sil = f.lang == Lang::Sil;

    let summary = html! {
        <p class="types-summary" role="status">
            { format!("{} type{}: ", ft.rows.len(), if ft.rows.len() == 1 { "" } else { "s" }) }
            { for counts.iter().map(|(c, n)| html! {
                <span class="types-count">{ badge(*c) }{ format!(" {n}") }</span>
            }) }
        </p>
    };

    let whatif = sil.then(|| {
        let names = generic_names(f);
        if names.is_empty() {
            return html! {
                <p class="types-note types-not-generic">
                    { format!("@{} is not generic: its types are concrete, there is no parameter to substitute.", f.name) }
                </p>
            };
        }
        html! {
            <section class="types-generics" aria-label="Generic parameters">
                <h3>{ "Generic parameters — what if one were a concrete type?" }</h3>
                { for names.iter().enumerate().map(|(k, name)| {
                    let shown_param = ft.generics.get(k).cloned().unwrap_or_else(|| name.clone());
                    let current = s.types.assume.subst.get(name).cloned();
                    let onchange = {
                        let name = name.clone();
                        props.dispatch.reform(move |e: Event| {
                            let input: HtmlInputElement = e.target_unchecked_into();
                            Action::SetWhatIf { param: name.clone(), ty: Some(input.value()) }
                        })
                    };
                    let set = |ty: Option<&'static str>| {
                        let name = name.clone();
                        props.dispatch.reform(move |_| Action::SetWhatIf { param: name.clone(), ty: ty.map(String::from) })
                    };
                    html! {
                        <div class="whatif" data-param={name.clone()}>
                            <code class="generic">{ shown_param }</code>
                            <label class="whatif-label">
                                { format!("what if {name} :=") }
                                <input id={format!("whatif-{name}")} class="whatif-input" list="whatif-suggestions"
                                    placeholder="as declared" value={current.clone().unwrap_or_default()}
                                    aria-label={format!("substitute {name} by a type")} {onchange} />
                            </label>
                            { for SUGGESTIONS.iter().map(|t| html! {
                                <button class="whatif-suggest" aria-pressed={(current.as_deref() == Some(*t)).to_string()}
                                    onclick={set(Some(t))}>{ *t }</button>
                            }) }
                            <button class="whatif-clear" disabled={current.is_none()} onclick={set(None)}>{ "as declared" }</button>
                        </div>
                    }
                }) }
                <datalist id="whatif-suggestions">
                    { for SUGGESTIONS.iter().map(|t| html! { <option value={*t} /> }) }
                </datalist>
            </section>
        }
    });

    let switches = sil.then(|| {
        let declared: Vec<&str> = p
            .decls
            .nominals
            .iter()
            .filter(|n| matches!(n.kind, Kind::Struct | Kind::Enum))
            .map(|n| n.name.as_str())
            .collect();
        let opaque = s.types.assume.opaque_values;
        let opaque_now = opaque.unwrap_or(p.decls.opaque_values);
        html! {
            <section class="types-assume" aria-label="Assumptions">
                <h3>{ "Assumptions the text cannot decide" }</h3>
                if !declared.is_empty() {
                    <div class="resilient-switches">
                        <span class="types-note">{ "resilient (library evolution, used from another module): " }</span>
                        { for declared.iter().map(|name| {
                            let on = s.types.assume.resilient.contains(*name);
                            let name_owned = name.to_string();
                            html! {
                                <button class="resilient-switch" role="switch" aria-checked={on.to_string()}
                                    data-type={name_owned.clone()}
                                    title={format!("treat {name} as resilient: its layout is known only at run time, so it is address-only")}
                                    onclick={props.dispatch.reform(move |_| Action::SetResilient { name: name_owned.clone(), on: !on })}>
                                    { *name }
                                </button>
                            }
                        }) }
                    </div>
                }
                <div class="opaque-switch">
                    <button id="opaque-values" role="switch" aria-checked={opaque_now.to_string()}
                        title="opaque-values SIL (-enable-sil-opaque-values) keeps address-only values as $T objects"
                        onclick={props.dispatch.reform(move |_| Action::SetOpaqueValues(Some(!opaque_now)))}>
                        { "opaque values" }
                    </button>
                    <span class="types-note">
                        { if opaque.is_none() { " as the file says" } else { " set by you " } }
                    </span>
                    if opaque.is_some() {
                        <button class="opaque-reset" onclick={props.dispatch.reform(|_| Action::SetOpaqueValues(None))}>{ "as the file says" }</button>
                    }
                </div>
            </section>
        }
    });

    let step_html = |st: &Step| {
        html! {
            <li class={classes!("why-step", format!("source-{}", source_word(st.source)))}>
                <span class="step-source">{ source_word(st.source) }</span>
                <span class="why-text">{ rich(&st.text) }</span>
                if let Some(at) = st.at {
                    <button class="step-at" title="select the declaration in the editor"
                        aria-label={format!("go to the declaration at {}", loc(at))} onclick={reveal(at)}>{ loc(at) }</button>
                }
            </li>
        }
    };

    let rows = html! {
        <ul class="type-rows" aria-label="Types of the function">
            { for ft.rows.iter().map(|r| {
                let is_sel = selected == Some(r.text.as_str());
                let text = r.text.clone();
                let onselect = props.dispatch.reform(move |_| Action::SelectType((!is_sel).then(|| text.clone())));
                let cat = match r.category {
                    Category::Object => "object",
                    Category::Address => "address",
                };
                html! {
                    <li class={classes!("type-row", class_slug(r.verdict.class), is_sel.then_some("selected"))} data-type={r.text.clone()}>
                        <div class="type-row-head">
                            <button class="type-name" aria-pressed={is_sel.to_string()} title="select: highlight its uses in the editor" onclick={onselect}>
                                <code>{ shown(f.lang, &r.text) }</code>
                            </button>
                            { badge(r.verdict.class) }
                            <span class={classes!("type-cat", cat)} title={if cat == "address" { "an address ($*T): the class is the pointee's" } else { "an object ($T): a value" }}>{ cat }</span>
                            if r.verdict.move_only { <span class="type-flag">{ "move-only" }</span> }
                            <span class="type-uses-count">{ format!("{} use{}", r.uses.len(), if r.uses.len() == 1 { "" } else { "s" }) }</span>
                        </div>
                        <ol class="why" aria-label="why">
                            { for r.verdict.why.iter().map(&step_html) }
                        </ol>
                        if let Some(stub) = &r.verdict.stub {
                            <div class="type-stub">
                                <span class="types-note">{ "declare it: " }</span>
                                <code>{ stub.clone() }</code>
                                if s.doc.lang == Lang::Sil && !s.is_stale() {
                                    <button class="insert-stub" onclick={{ let stub = stub.clone(); props.dispatch.reform(move |_| Action::InsertDecl(stub.clone())) }}>
                                        { "insert after the imports" }
                                    </button>
                                }
                            </div>
                        }
                        if is_sel {
                            <ul class="type-uses" aria-label="uses">
                                { for r.uses.iter().map(|u| html! {
                                    <li>
                                        <button class="use-at" aria-label={format!("go to {} at {}", u.what, loc(u.span))} onclick={reveal(u.span)}>{ loc(u.span) }</button>
                                        { " " }{ rich(&u.what) }
                                    </li>
                                }) }
                            </ul>
                        }
                    </li>
                }
            }) }
        </ul>
    };

    let warnings = (!ft.warnings.is_empty()).then(|| {
        html! {
            <section class="types-warnings" aria-label="Warnings">
                <h3>{ format!("Warnings ({}): qualifiers that contradict the classification", ft.warnings.len()) }</h3>
                <ul>
                    { for ft.warnings.iter().map(|w| html! {
                        <li>
                            <button class="warning-at" aria-label={format!("go to {}", loc(w.span))} onclick={reveal(w.span)}>{ loc(w.span) }</button>
                            { " " }{ rich(&w.message) }
                        </li>
                    }) }
                </ul>
            </section>
        }
    });

    html! {
        <div class="types-view">
            <div class="types-head">
                <h2>{ format!("Types of @{}", f.name) }</h2>
                <p class="types-subtitle">
                    { "Swift type lowering: trivial, loadable, address-only — the rules of " }
                    <cite>{ "docs/SIL/Types.md" }</cite>{ " and " }<cite>{ "TypeLowering.cpp" }</cite>
                    { ". An aggregate is address-only if a stored field is, trivial if all are." }
                </p>
            </div>
            if !sil {
                <p class="types-note types-bril">{ "Bril has no type lowering: every value is a machine scalar or a pointer, copied bit for bit, so every type is trivial." }</p>
            }
            { summary }
            if sil && !s.types.assume.subst.is_empty() {
                <p class="types-whatif-note" role="status">
                    { "Classified under the what-if " }
                    <code>{ s.types.assume.subst.iter().map(|(k, v)| format!("{k} := {v}")).collect::<Vec<_>>().join(", ") }</code>
                    { ": every row below substitutes it for the generic parameter." }
                </p>
            }
            { for whatif }
            { for switches }
            { for warnings }
            { rows }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;

    const SRC: &str = "import Swift\nstruct Box<T> {\n  var value: T\n}\nsil @f : $@convention(thin) (Box<Int>) -> () {\nbb0(%0 : $Box<Int>):\n  %1 = tuple ()\n  return %1 : $()\n}\n";

    #[test]
    fn tips_name_every_value_use_with_its_class_and_rows_their_lines() {
        let p = Program::parse(Lang::Sil, "t.sil", SRC).expect("parses");
        let a = crate::program::analyse(&p, "f", &Default::default()).expect("analysed");
        let tips = value_tips(&a, SRC);
        let at = |lo: u32| tips.iter().find(|t| t.0 == lo).map(|t| t.2.as_str());
        let first = SRC.find("%0").unwrap() as u32;
        assert_eq!(at(first), Some("`%0 : $Box<Int>` — trivial"));
        assert_eq!(tips.iter().filter(|t| t.2.starts_with("`%1")).count(), 2, "a definition and a use: {tips:?}");
        let ft = a.types(&a.function);
        assert_eq!(use_lines(SRC, ft.row("Box<Int>").unwrap()), [5, 6]);
        assert_eq!(shown(Lang::Sil, "*Box<T>"), "$*Box<T>");
        assert!(class_label(Class::AddressOnly).starts_with("address-only"));
        // The CFG's code lines carry the same descriptions as tooltips.
        let node = &a.cfg_graph.graph.nodes[0];
        let k = node.lines.iter().position(|l| l.contains("return")).expect("a return line");
        assert_eq!(node.tip(k), Some("`%1 : $()` — trivial"));
        let svg = crate::graph::paint(&a.cfg_graph.graph, &crate::graph::layout(&a.cfg_graph.graph, &Default::default()), &Default::default(), &Default::default());
        assert!(svg.contains("<title>`%1 : $()` — trivial</title>"), "{svg}");
    }
}
