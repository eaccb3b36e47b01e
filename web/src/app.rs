//! The page: header, editor, view tabs, step bar. Components render a [`State`] and
//! dispatch [`Action`]s, nothing else.

use crate::editor::Editor;
use crate::examples::EXAMPLES;
use crate::state::{Action, State, StepCmd, Tab};
use crate::views::ViewPane;
use optlab_core::Lang;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// What a key does when the focus is not in a text field: stepping (←/→, Home/End, and
/// PageUp/PageDown for presenter remotes).
pub fn key_action(key: &str) -> Option<Action> {
    let cmd = match key {
        "ArrowRight" | "PageDown" => StepCmd::Next,
        "ArrowLeft" | "PageUp" => StepCmd::Prev,
        "Home" => StepCmd::First,
        "End" => StepCmd::Last,
        _ => return None,
    };
    Some(Action::Step(cmd))
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial_state);
    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        Callback::from(move |a| d.dispatch(a))
    };
    use_step_keys(dispatch.clone());
    use_browser_sync(&state, dispatch.clone());
    let snapshot: Rc<State> = Rc::new((*state).clone());

    html! {
        <div class={classes!("app", state.lecture.then_some("lecture"), state.embed.then_some("embed"))}>
            <Header state={snapshot.clone()} dispatch={dispatch.clone()} />
            if let Some(n) = &state.notice {
                <div class={classes!("notice", n.error.then_some("error"))} role="status">
                    <span>{ n.text.clone() }</span>
                    if state.stash.is_some() {
                        <button class="go-back" onclick={dispatch.reform(|_| Action::RestoreStash)}>{ "Go back to your text" }</button>
                    }
                    <button class="dismiss" aria-label="dismiss" onclick={dispatch.reform(|_| Action::DismissNotice)}>{ "×" }</button>
                </div>
            }
            <main class="panes">
                <section class="pane editor-pane">
                    <SourceEditor state={snapshot.clone()} dispatch={dispatch.clone()} />
                </section>
                <section class="pane views">
                    <Tabs current={state.tab} dispatch={dispatch.clone()} />
                    <StepBar state={snapshot.clone()} dispatch={dispatch.clone()} />
                    <ViewPane state={snapshot} dispatch={dispatch} />
                </section>
            </main>
        </div>
    }
}

/// The page's first state: a link, else the autosave, else the first example.
fn initial_state() -> State {
    #[cfg(target_arch = "wasm32")]
    {
        crate::session::initial_state()
    }
    #[cfg(not(target_arch = "wasm32"))]
    State::default()
}

/// Keeps the browser in step with the state: autosave of the document, the theme on
/// `<html>`, a link pasted into the address bar of the open page, the offline cache.
#[hook]
fn use_browser_sync(state: &UseReducerHandle<State>, dispatch: Callback<Action>) {
    #[cfg(target_arch = "wasm32")]
    {
        use crate::{session, storage};
        let saved = (state.doc.clone(), session::last_good(state));
        let notify = dispatch.clone();
        use_effect_with(saved, move |(doc, last_good)| {
            if let Err(e) = session::autosave(doc, last_good.as_ref()) {
                notify.emit(Action::Notify(crate::state::Notice { error: true, text: e.into() }));
            }
        });
        use_effect_with((), |_| {
            // Without a service worker the page still works; it just needs the network.
            if let Err(e) = crate::offline::register() {
                gloo::console::warn!(format!("offline use unavailable: {e}"));
            }
        });
        use_effect_with(state.theme, |theme| {
            storage::apply_theme(*theme);
            let _ = storage::save_theme(*theme);
        });
        use_effect_with(state.stash.is_some(), |waiting| {
            if !*waiting {
                let _ = storage::clear_before_link();
            }
        });
        // The listener outlives renders; it reads the newest state through this cell.
        let latest = use_mut_ref(|| (**state).clone());
        *latest.borrow_mut() = (**state).clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo::events::EventListener::new(&w, "hashchange", move |_| {
                    let frag = session::fragment();
                    let current = latest.borrow().clone();
                    let next = session::open_fragment(current, &frag, &storage::browser_store());
                    dispatch.emit(Action::Replace(Box::new(next)));
                })
            });
            move || drop(listener)
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (state, dispatch);
}

/// ←/→, Home/End and PageUp/PageDown step the current view unless a text field has focus.
#[hook]
fn use_step_keys(dispatch: Callback<Action>) {
    use_effect_with((), move |_| {
        let listener = web_sys::window().and_then(|w| w.document()).map(|doc| {
            // Not passive: the arrows must not also scroll the page.
            let options = gloo::events::EventListenerOptions::enable_prevent_default();
            gloo::events::EventListener::new_with_options(&doc, "keydown", options, move |e| {
                let Some(e) = wasm_bindgen::JsCast::dyn_ref::<KeyboardEvent>(e) else { return };
                if e.alt_key() || e.ctrl_key() || e.meta_key() || in_text_field(e) {
                    return;
                }
                if let Some(a) = key_action(&e.key()) {
                    e.prevent_default();
                    dispatch.emit(a);
                }
            })
        });
        move || drop(listener)
    });
}

fn in_text_field(e: &KeyboardEvent) -> bool {
    let Some(target) = e.target() else { return false };
    let Some(el) = wasm_bindgen::JsCast::dyn_ref::<web_sys::Element>(&target) else { return false };
    match el.tag_name().as_str() {
        "TEXTAREA" | "SELECT" => true,
        // The step slider is an input too, but arrows on it should step like everywhere else.
        "INPUT" => el.get_attribute("type").as_deref() != Some("range"),
        _ => false,
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: Rc<State>,
    pub dispatch: Callback<Action>,
}

#[function_component(Header)]
fn header(props: &Props) -> Html {
    let s = &props.state;
    let on_example = props.dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::LoadExample(select.value())
    });
    let on_function = props.dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::SelectFunction(select.value())
    });
    let on_lang = props.dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::SetLang(match select.value().as_str() {
            "sil" => Some(Lang::Sil),
            "bril" => Some(Lang::Bril),
            _ => None,
        })
    });
    let functions = s.program.as_ref().map(|p| p.function_names()).unwrap_or_default();
    let lang_value = if s.doc.lang_auto { "auto" } else { lang_slug(s.doc.lang) };
    html! {
        <header class="bar">
            <h1>{ "optlab" }</h1>
            <label>
                { "Example " }
                <select id="example" onchange={on_example}>
                    if s.doc.example.is_none() {
                        <option value="" selected=true disabled=true>{ "your program" }</option>
                    }
                    { for EXAMPLES.iter().map(|ex| html! {
                        <option value={ex.id} title={ex.teaches} selected={s.doc.example == Some(ex.id)}>{ ex.title }</option>
                    }) }
                </select>
            </label>
            <label>
                { "Function " }
                <select id="function" onchange={on_function} disabled={functions.len() < 2}>
                    // A Swift-mangled name is shown with its demangling (`@$s4main1fyyF — main.f() -> ()`).
                    // Long ones are cut in the list (the select is as wide as its widest option)
                    // and shown whole as the option's tooltip.
                    { for functions.iter().map(|f| {
                        let full = match optlab_core::sil::demangle::demangle(f) {
                            Some(d) => format!("@{f} — {d}"),
                            None => format!("@{f}"),
                        };
                        let shown = if full.chars().count() > 48 {
                            format!("{}…", full.chars().take(47).collect::<String>())
                        } else {
                            full.clone()
                        };
                        html! {
                            <option value={f.clone()} title={full} selected={s.function.as_deref() == Some(f.as_str())}>{ shown }</option>
                        }
                    }) }
                </select>
            </label>
            <label>
                { "Language " }
                <select id="lang" onchange={on_lang}>
                    <option value="auto" selected={lang_value == "auto"}>{ format!("auto ({})", lang_name(s.doc.lang)) }</option>
                    <option value="bril" selected={lang_value == "bril"}>{ "Bril" }</option>
                    <option value="sil" selected={lang_value == "sil"}>{ "SIL" }</option>
                </select>
            </label>
            <span class="spacer" />
            <ModeButtons state={props.state.clone()} dispatch={props.dispatch.clone()} />
            <ShareBox state={props.state.clone()} dispatch={props.dispatch.clone()} />
        </header>
    }
}

/// Theme, lecture and exercise toggles.
#[function_component(ModeButtons)]
fn mode_buttons(props: &Props) -> Html {
    let s = &props.state;
    let dark = crate::storage::Theme::effective(s.theme, crate::storage::system_prefers_dark()) == crate::storage::Theme::Dark;
    let next_theme = if dark { crate::storage::Theme::Light } else { crate::storage::Theme::Dark };
    let (lecture, exercise) = (s.lecture, s.exercise);
    html! {
        <div class="actions">
            <button id="theme" title={format!("switch to the {} theme", next_theme.as_str())} aria-pressed={dark.to_string()}
                onclick={props.dispatch.reform(move |_| Action::SetTheme(Some(next_theme)))}>{ if dark { "☀ light" } else { "☾ dark" } }</button>
            <button id="lecture" title="lecture mode: no editor, large type, step with ←/→ or a presenter remote"
                aria-pressed={lecture.to_string()} class={classes!(lecture.then_some("on"))}
                onclick={props.dispatch.reform(move |_| Action::SetLecture(!lecture))}>{ "Lecture" }</button>
            <button id="exercise" title="exercise mode: predict each step before it is revealed"
                aria-pressed={exercise.to_string()} class={classes!(exercise.then_some("on"))}
                onclick={props.dispatch.reform(move |_| Action::SetExercise(!exercise))}>{ "Exercise" }</button>
        </div>
    }
}

/// "Copy link": the whole screen as a permalink, shown in a field and copied.
#[function_component(ShareBox)]
fn share_box(props: &Props) -> Html {
    let url = use_state(String::new);
    let onclick = {
        let (url, state, dispatch) = (url.clone(), props.state.clone(), props.dispatch.clone());
        Callback::from(move |_| {
            #[cfg(target_arch = "wasm32")]
            match crate::session::copy_link(&state) {
                Ok(u) => url.set(u),
                Err(e) => dispatch.emit(Action::Notify(crate::state::Notice { error: true, text: e.into() })),
            }
            #[cfg(not(target_arch = "wasm32"))]
            let _ = (&url, &state, &dispatch);
        })
    };
    html! {
        <div class="actions share">
            <button id="copy-link" title="copy a link to exactly this screen" {onclick}>{ "Copy link" }</button>
            if !url.is_empty() {
                <input id="share-url" class="share-url" readonly=true value={(*url).clone()} aria-label="link to this screen" />
            }
        </div>
    }
}

pub fn lang_slug(l: Lang) -> &'static str {
    match l {
        Lang::Bril => "bril",
        Lang::Sil => "sil",
    }
}

pub fn lang_name(l: Lang) -> &'static str {
    match l {
        Lang::Bril => "Bril",
        Lang::Sil => "SIL",
    }
}

#[function_component(SourceEditor)]
fn source_editor(props: &Props) -> Html {
    let s = &props.state;
    let onedit = props.dispatch.reform(Action::Edit);
    // Spans index the analysed text: while the text has errors they may point anywhere.
    let analysed = s.analysis.clone().ok().filter(|_| !s.is_stale());
    // In the Types view the selected type's uses are highlighted; elsewhere the instruction.
    let row = (s.tab == Tab::TYPES).then(|| s.types.row.clone()).flatten();
    // In the Ownership view, the lines of the verifier's findings.
    let own = s.tab == Tab::OWNERSHIP;
    let active = use_memo((analysed.clone(), s.inst, row, s.doc.source.clone(), own), |(a, inst, row, source, own)| {
        match (a, row) {
            (Some(a), Some(row)) => {
                Rc::new(a.types(&a.function).row(row).map(|r| crate::views::types::use_lines(source, r)).unwrap_or_default())
            }
            (Some(a), None) if *own && a.ownership.as_ref().is_some_and(|o| !o.verdict.findings.is_empty()) => {
                Rc::new(crate::views::ownership::finding_lines(a, source))
            }
            _ => selected_lines(a.as_ref(), *inst, source),
        }
    });
    let tips = use_memo((analysed.clone(), s.doc.source.clone()), |(a, source)| {
        Rc::new(a.as_ref().map(|a| crate::views::types::value_tips(a, source)).unwrap_or_default())
    });
    let select = s.reveal.filter(|_| analysed.is_some()).map(|r| (r.span.lo, r.span.hi, r.seq));
    html! {
        <>
            <h2>
                { s.doc.file.clone() }
                if s.is_stale() { <span class="stale-badge">{ " · errors: the views show the last good program" }</span> }
            </h2>
            if let Some(ex) = s.doc.example.and_then(crate::examples::by_id) {
                <p id="teaches" class="teaches">{ ex.teaches }</p>
            }
            <Editor text={s.doc.source.clone()} lang={s.doc.lang} marks={s.marks.clone()} active_lines={(*active).clone()}
                tips={(*tips).clone()} {select} {onedit} splice={s.app_edit.as_ref() == Some(&s.doc.source)} />
            if let Some(text) = &s.error_text {
                <pre id="errors" class="errors">{ text.clone() }</pre>
            }
        </>
    }
}

/// The source lines of the selected instruction, if the text still is the analysed one.
fn selected_lines(a: Option<&Rc<crate::program::Analysis>>, inst: Option<optlab_core::InstId>, source: &str) -> Rc<Vec<u32>> {
    let span = a.zip(inst).and_then(|(a, i)| a.function.insts.get(i)).map(|i| i.span);
    let Some(span) = span.filter(|s| !s.is_empty() && (s.hi as usize) <= source.len()) else {
        return Rc::default();
    };
    let first = source[..span.lo as usize].matches('\n').count() as u32 + 1;
    let last = first + source[span.lo as usize..span.hi as usize].matches('\n').count() as u32;
    Rc::new((first..=last).collect())
}

#[derive(Properties, PartialEq)]
struct TabsProps {
    current: Tab,
    dispatch: Callback<Action>,
}

#[function_component(Tabs)]
fn tabs(props: &TabsProps) -> Html {
    html! {
        <nav class="tabs" role="tablist">
            { for Tab::all().into_iter().map(|t| html! {
                <button role="tab" id={format!("tab-{}", t.slug())} aria-selected={(t == props.current).to_string()}
                    class={classes!("tab", (t == props.current).then_some("active"))}
                    onclick={props.dispatch.reform(move |_| Action::SelectTab(t))}>{ t.title() }</button>
            }) }
        </nav>
    }
}

/// ⏮ ◀ slider ▶ ⏭ and the current step's one-line description (only for views that step).
#[function_component(StepBar)]
fn step_bar(props: &Props) -> Html {
    let s = &props.state;
    let n = s.step_count(s.tab);
    if n <= 1 {
        return html! {};
    }
    let k = s.step(s.tab);
    let step = |cmd: StepCmd| props.dispatch.reform(move |_| Action::Step(cmd));
    let on_slider = props.dispatch.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::Step(StepCmd::To(input.value().parse().unwrap_or(0)))
    });
    html! {
        <div class="step-bar">
            <div class="step-controls">
                <button class="step-first" title="first step (Home)" onclick={step(StepCmd::First)} disabled={k == 0}>{ "⇤" }</button>
                <button class="step-prev" title="previous step (←)" onclick={step(StepCmd::Prev)} disabled={k == 0}>{ "◀" }</button>
                <input class="step-slider" type="range" min="0" max={(n - 1).to_string()} value={k.to_string()} oninput={on_slider} aria-label="step" />
                <button class="step-next" title="next step (→)" onclick={step(StepCmd::Next)} disabled={k + 1 == n}>{ "▶" }</button>
                <button class="step-last" title="last step (End)" onclick={step(StepCmd::Last)} disabled={k + 1 == n}>{ "⇥" }</button>
                <span class="step-count">{ format!("{} / {}", k, n - 1) }</span>
            </div>
            <p id="step-text" class="step-text">{ s.step_text() }</p>
        </div>
    }
}
