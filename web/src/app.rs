//! The page: header, view tabs, step bar, view, editor. Components render a [`State`] and
//! dispatch [`Action`]s, nothing else.
//!
//! The DOM order is the Tab order a keyboard user gets: header, tabs, step controls, the view,
//! then the editor (the stylesheet still draws the editor on the left). `?` or the header's
//! "Keys" button opens the list of every key ([`KEYS`]).

use crate::editor::Editor;
use crate::examples::EXAMPLES;
use crate::graph_view::GraphMode;
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

/// Every key of the page, as the `?` overlay lists them: (keys, what they do).
pub const KEYS: &[(&str, &str)] = &[
    ("← / →", "previous / next step (not while typing in the editor or moving in a graph)"),
    ("PageUp / PageDown", "previous / next step (presenter remotes)"),
    ("Home / End", "first / last step"),
    ("Tab / Shift+Tab", "header, view tabs, step controls, the view, the editor"),
    ("← / → on a view tab", "the previous / next view (Home / End: the first / last)"),
    ("click, or Enter / Space on a block", "select the block (why it is live, its frontier, its row)"),
    ("arrow keys in a graph", "move between blocks; ↓ / ↑ also walk a block's code lines"),
    ("Enter / Space on a code line", "select that instruction (DCE: why is it live?; exercise: your guess)"),
    ("+ / − / 0 in a graph", "zoom in / out / fit the whole graph"),
    ("Enter / Space on a table cell", "exercise mode: guess that cell"),
    ("Escape, then Tab", "leave the editor (Tab alone indents)"),
    ("?", "show or hide this list"),
    ("Escape", "close this list"),
];

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial_state);
    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        Callback::from(move |a| d.dispatch(a))
    };
    let keys_open = use_state(|| false);
    let toggle_keys = {
        let keys_open = keys_open.clone();
        Callback::from(move |open: Option<bool>| keys_open.set(open.unwrap_or(!*keys_open)))
    };
    use_step_keys(dispatch.clone(), toggle_keys.clone());
    use_browser_sync(&state, dispatch.clone());
    use_slices(&state, dispatch.clone());
    let snapshot: Rc<State> = Rc::new((*state).clone());
    #[cfg(not(feature = "full"))]
    crate::handoff::track(&snapshot);
    let mode = GraphMode { lecture: state.lecture, embed: state.embed };
    let tab = state.tab;

    html! {
        <ContextProvider<GraphMode> context={mode}>
        <div class={classes!("app", state.lecture.then_some("lecture"), state.embed.then_some("embed"))}>
            <Header state={snapshot.clone()} dispatch={dispatch.clone()} onkeys={toggle_keys.reform(|_| Some(true))} />
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
                <section class="pane views" aria-label="views">
                    <Tabs current={tab} dispatch={dispatch.clone()} />
                    <StepBar state={snapshot.clone()} dispatch={dispatch.clone()} />
                    <div class="view-panel" role="tabpanel" id="view-panel" aria-labelledby={format!("tab-{}", tab.slug())}>
                        <h2 class="visually-hidden">{ tab.title() }</h2>
                        <ViewPane state={snapshot.clone()} dispatch={dispatch.clone()} />
                    </div>
                </section>
                <section class="pane editor-pane" aria-label="program">
                    <SourceEditor state={snapshot} dispatch={dispatch} />
                </section>
            </main>
            if *keys_open {
                <KeysOverlay onclose={toggle_keys.reform(|_| Some(false))} />
            }
        </div>
        </ContextProvider<GraphMode>>
    }
}

#[derive(Properties, PartialEq)]
struct KeysProps {
    onclose: Callback<()>,
}

/// The list of every key, over the page; Escape, `?` or the button closes it.
#[function_component(KeysOverlay)]
fn keys_overlay(props: &KeysProps) -> Html {
    let close = use_node_ref();
    {
        let close = close.clone();
        use_effect_with((), move |_| {
            // Focus goes into the dialog, and back to the header's button when it closes.
            let before = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
            if let Some(b) = close.cast::<web_sys::HtmlElement>() {
                let _ = b.focus();
            }
            move || {
                if let Some(el) = before.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok()) {
                    let _ = el.focus();
                }
            }
        });
    }
    let onclose = props.onclose.reform(|_: MouseEvent| ());
    let onbackdrop = {
        let onclose = props.onclose.clone();
        Callback::from(move |e: MouseEvent| {
            // Only a click on the backdrop itself, not inside the box.
            if e.target() == e.current_target() {
                onclose.emit(());
            }
        })
    };
    html! {
        <div class="keys-backdrop" onclick={onbackdrop}>
            <div id="keys-overlay" class="keys-overlay" role="dialog" aria-modal="true" aria-labelledby="keys-title">
                <h2 id="keys-title">{ "Keys" }</h2>
                <table class="keys-table">
                    <tbody>
                        { for KEYS.iter().map(|(k, what)| html! {
                            <tr><th scope="row"><kbd>{ *k }</kbd></th><td>{ *what }</td></tr>
                        }) }
                    </tbody>
                </table>
                <button id="keys-close" ref={close} onclick={onclose}>{ "Close (Escape)" }</button>
            </div>
        </div>
    }
}

/// The page's first state: a link, else the autosave, else the first example. From then on
/// edits are analysed in slices ([`use_slices`]).
fn initial_state() -> State {
    // The state the first-visit build handed over, if this app took the page over from it.
    if let Some(s) = crate::handoff::take_state() {
        return s;
    }
    #[cfg(target_arch = "wasm32")]
    {
        State { sliced: true, ..crate::session::initial_state() }
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
        // An embedded view is the author's page, not the visitor's: it never writes their autosave.
        let embed = state.embed;
        use_effect_with(saved, move |(doc, last_good)| {
            if embed {
                return;
            }
            if let Err(e) = session::autosave(doc, last_good.as_ref()) {
                notify.emit(Action::Notify(crate::state::Notice { error: true, text: e.into() }));
            }
        });
        use_effect_with((), |_| {
            // The first-visit build leaves the offline copy to the full app (it caches both builds).
            if !cfg!(feature = "full") {
                return;
            }
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

/// Runs the analysis of an edit in slices, each in a task of its own so that the browser
/// paints and handles keys between them and no task is long: the next step of the job in
/// progress (parse, analyse, show: [`crate::state::Job`]); then, once the new program is
/// shown, the passes the current view did not need, one per task, and the pipeline of the
/// before/after view — so switching views later finds them done; last, the layouts of the
/// graphs the other views draw ([`crate::views::prefetch`]), so that opening one does not wait
/// for the layout worker; then it tells the view pane, which may build views ahead of time
/// ([`crate::views::analysis_idle`]). A newer edit or analysis cancels what is left of the
/// older one.
#[hook]
fn use_slices(state: &UseReducerHandle<State>, dispatch: Callback<Action>) {
    let step = state.jobs.current.as_ref().map(|j| (j.id, j.step.index()));
    use_effect_with(step, move |step| {
        let cancelled = Rc::new(std::cell::Cell::new(false));
        if let Some((id, k)) = *step {
            // A new program is on its way: the other views' layouts of the old one can go.
            #[cfg(feature = "full")]
            crate::graph::web::cancel_prefetch();
            let cancelled = cancelled.clone();
            yew::platform::spawn_local(async move {
                next_task().await;
                if !cancelled.get() {
                    let name = ["optlab parse", "optlab analyse", "optlab show"][usize::from(k.min(2))];
                    timed(name, || dispatch.emit(Action::Advance(id)));
                }
            });
        }
        move || cancelled.set(true)
    });
    let shown = (state.analysis.clone().ok(), state.staged.clone());
    #[cfg(feature = "full")]
    let handle = state.clone();
    use_effect_with(shown, move |(analysis, staged)| {
        let cancelled = Rc::new(std::cell::Cell::new(false));
        if let Some(a) = analysis.clone() {
            let (staged, cancelled) = (staged.clone(), cancelled.clone());
            yew::platform::spawn_local(async move {
                loop {
                    next_task().await;
                    if cancelled.get() || !timed("optlab pass", || a.run_next_pass()) {
                        break;
                    }
                }
                // (The first-visit build stages nothing.)
                #[cfg(feature = "full")]
                if let Some(s) = staged.filter(|_| !cancelled.get()) {
                    loop {
                        next_task().await;
                        if cancelled.get() || !timed("optlab pipeline stage", || s.run_stage()) {
                            break;
                        }
                    }
                    if !cancelled.get() {
                        s.run_now();
                    }
                }
                // Last, the layouts of the other views' graphs (one view per task; the worker
                // lays them out after anything a view asks for).
                #[cfg(feature = "full")]
                for tab in crate::views::prefetch::order(handle.tab) {
                    next_task().await;
                    if cancelled.get() {
                        break;
                    }
                    timed("optlab prefetch", || {
                        for (graph, style) in crate::views::prefetch::graphs(&handle, &a, tab) {
                            crate::graph::web::prefetch_layout(graph, &style);
                        }
                    });
                }
                // Then the view pane may build other views ahead of time.
                #[cfg(feature = "full")]
                if !cancelled.get() {
                    crate::views::analysis_idle();
                }
            });
        }
        move || cancelled.set(true)
    });
}

/// `f()`, recorded as a User Timing measure `name` (the browser tests and the profiler read
/// them: each slice of an analysis, with the render it caused).
fn timed<T>(name: &str, f: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "wasm32")]
    {
        #[wasm_bindgen::prelude::wasm_bindgen]
        extern "C" {
            #[wasm_bindgen(js_namespace = performance, js_name = mark)]
            fn mark(name: &str);
            #[wasm_bindgen(js_namespace = performance, js_name = measure)]
            fn measure(name: &str, start: &str);
        }
        let start = format!("{name} start");
        mark(&start);
        let out = f();
        measure(name, &start);
        out
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = name;
        f()
    }
}

/// Resolves in a later task (a zero timeout): the browser may paint and run events first.
async fn next_task() {
    yew::platform::time::sleep(std::time::Duration::ZERO).await;
}

/// ←/→, Home/End and PageUp/PageDown step the current view unless a text field has focus
/// (or, for the arrows, an element that uses them itself: a view tab, a graph). `?` opens the
/// list of keys (`keys` with `None`: toggle), Escape closes it.
#[hook]
fn use_step_keys(dispatch: Callback<Action>, keys: Callback<Option<bool>>) {
    use_effect_with((), move |_| {
        let listener = web_sys::window().and_then(|w| w.document()).map(|doc| {
            // Not passive: the arrows must not also scroll the page.
            let options = gloo::events::EventListenerOptions::enable_prevent_default();
            gloo::events::EventListener::new_with_options(&doc, "keydown", options, move |e| {
                let Some(e) = wasm_bindgen::JsCast::dyn_ref::<KeyboardEvent>(e) else { return };
                if e.alt_key() || e.ctrl_key() || e.meta_key() || in_text_field(e) {
                    return;
                }
                match e.key().as_str() {
                    "?" => {
                        e.prevent_default();
                        keys.emit(None);
                        return;
                    }
                    "Escape" => keys.emit(Some(false)),
                    k if owns_key(e, k) => return,
                    _ => {}
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

/// The key's target is inside an element that handles this key itself: its `data-own-keys`
/// says `arrows` (the arrow keys) and/or `home-end`.
fn owns_key(e: &KeyboardEvent, key: &str) -> bool {
    let group = match key {
        k if k.starts_with("Arrow") => "arrows",
        "Home" | "End" => "home-end",
        _ => return false,
    };
    let Some(target) = e.target() else { return false };
    let Some(el) = wasm_bindgen::JsCast::dyn_ref::<web_sys::Element>(&target) else { return false };
    let owner = el.closest("[data-own-keys]").ok().flatten();
    owner.and_then(|o| o.get_attribute("data-own-keys")).is_some_and(|v| v.split_whitespace().any(|g| g == group))
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

#[derive(Properties, PartialEq)]
struct HeaderProps {
    state: Rc<State>,
    dispatch: Callback<Action>,
    /// The "Keys" button was pressed.
    onkeys: Callback<()>,
}

#[function_component(Header)]
fn header(props: &HeaderProps) -> Html {
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
            <label class="pick-example">
                <span class="label-text">{ "Example " }</span>
                <select id="example" onchange={on_example}>
                    if s.doc.example.is_none() {
                        <option value="" selected=true disabled=true>{ "your program" }</option>
                    }
                    { for EXAMPLES.iter().map(|ex| html! {
                        <option value={ex.id} title={ex.teaches} selected={s.doc.example == Some(ex.id)}>{ ex.title }</option>
                    }) }
                </select>
            </label>
            <label class="pick-function">
                <span class="label-text">{ "Function " }</span>
                <select id="function" onchange={on_function} disabled={functions.len() < 2}>
                    // A Swift-mangled name is shown with its demangling (`@$s4main1fyyF — main.f() -> ()`).
                    // Long ones are cut in the list (the select is as wide as its widest option)
                    // and shown whole as the option's tooltip.
                    { for functions.iter().map(|f| {
                        #[cfg(feature = "full")]
                        let full = match optlab_core::sil::demangle::demangle(f) {
                            Some(d) => format!("@{f} — {d}"),
                            None => format!("@{f}"),
                        };
                        #[cfg(not(feature = "full"))]
                        let full = format!("@{f}");
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
            <label class="pick-lang">
                <span class="label-text">{ "Language " }</span>
                <select id="lang" onchange={on_lang}>
                    <option value="auto" selected={lang_value == "auto"}>{ format!("auto ({})", lang_name(s.doc.lang)) }</option>
                    <option value="bril" selected={lang_value == "bril"}>{ "Bril" }</option>
                    <option value="sil" selected={lang_value == "sil"}>{ "SIL" }</option>
                </select>
            </label>
            <span class="spacer" />
            <ModeButtons state={props.state.clone()} dispatch={props.dispatch.clone()} />
            <ShareBox state={props.state.clone()} dispatch={props.dispatch.clone()} />
            <button id="keys" class="keys-button" title="every key of the page (?)" aria-haspopup="dialog"
                onclick={props.onkeys.reform(|_: MouseEvent| ())}>{ "Keys" }</button>
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
    let onedit = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |text: String| timed("optlab edit", || dispatch.emit(Action::Edit(text))))
    };
    // Spans index the analysed text: while the text has errors they may point anywhere.
    let analysed = s.analysis.clone().ok().filter(|_| !s.is_stale());
    // In the Types view the selected type's uses are highlighted; elsewhere the instruction.
    let row = (s.tab == Tab::TYPES).then(|| s.types.row.clone()).flatten();
    // In the Ownership view, the lines of the verifier's findings.
    let own = s.tab == Tab::OWNERSHIP;
    let active = use_memo((analysed.clone(), s.inst, row, s.doc.source.clone(), own), |(a, inst, row, source, own)| {
        match (a, row) {
            #[cfg(feature = "full")]
            (Some(a), Some(row)) => {
                Rc::new(a.types(&a.function).row(row).map(|r| crate::views::types::use_lines(source, r)).unwrap_or_default())
            }
            #[cfg(feature = "full")]
            (Some(a), None) if *own && a.ownership.as_ref().is_some_and(|o| !o.verdict.findings.is_empty()) => {
                Rc::new(crate::views::ownership::finding_lines(a, source))
            }
            _ => selected_lines(a.as_ref(), *inst, source),
        }
    });
    let tips = use_memo((analysed.clone(), s.doc.source.clone()), |(a, source)| {
        #[cfg(feature = "full")]
        let tips = a.as_ref().map(|a| crate::views::types::value_tips(a, source)).unwrap_or_default();
        #[cfg(not(feature = "full"))]
        let tips: Vec<(u32, u32, String)> = Vec::new();
        Rc::new(tips)
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
            <p id="editor-keys" class="editor-keys">{ "Tab indents; Escape, then Tab, leaves the editor. ? lists every key." }</p>
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

/// The tab `key` moves to from `current` (←/→ wrap around, Home/End).
pub fn tab_key(all: &[Tab], current: Tab, key: &str) -> Option<Tab> {
    let i = all.iter().position(|&t| t == current)?;
    let n = all.len();
    let j = match key {
        "ArrowRight" => (i + 1) % n,
        "ArrowLeft" => (i + n - 1) % n,
        "Home" => 0,
        "End" => n - 1,
        _ => return None,
    };
    all.get(j).copied()
}

/// The view tabs: a tablist with one tab stop (the current tab); arrows, Home and End move
/// between tabs and open them.
#[function_component(Tabs)]
fn tabs(props: &TabsProps) -> Html {
    let list = use_node_ref();
    let moved = use_mut_ref(|| false);
    {
        // After a key moved to a tab, the focus follows it.
        let (list, moved) = (list.clone(), moved.clone());
        use_effect_with(props.current, move |t| {
            if std::mem::take(&mut *moved.borrow_mut()) {
                let el = list.cast::<web_sys::Element>().and_then(|l| l.query_selector(&format!("#tab-{}", t.slug())).ok().flatten());
                if let Some(b) = el.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok()) {
                    let _ = b.focus();
                }
            }
        });
    }
    let onkeydown = {
        let (current, dispatch) = (props.current, props.dispatch.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.alt_key() || e.ctrl_key() || e.meta_key() {
                return;
            }
            if let Some(t) = tab_key(&Tab::all(), current, &e.key()) {
                e.prevent_default();
                e.stop_propagation();
                *moved.borrow_mut() = true;
                dispatch.emit(Action::SelectTab(t));
            }
        })
    };
    // A click opens a tab without focusing it, so ←/→ go on stepping the view after a click;
    // the keyboard reaches the tabs with Tab.
    let onmousedown = Callback::from(|e: MouseEvent| crate::graph_view::press_without_focus(&e));
    html! {
        <nav class="tabs" role="tablist" aria-label="views" ref={list} data-own-keys="arrows home-end" {onkeydown} {onmousedown}>
            { for Tab::all().into_iter().map(|t| {
                let on = t == props.current;
                html! {
                    <button role="tab" id={format!("tab-{}", t.slug())} aria-selected={on.to_string()}
                        aria-controls="view-panel" tabindex={if on { "0" } else { "-1" }}
                        class={classes!("tab", on.then_some("active"))}
                        onclick={props.dispatch.reform(move |_| Action::SelectTab(t))}>{ t.title() }</button>
                }
            }) }
        </nav>
    }
}

/// The pieces of a step sentence: (is code, text). Core's sentences quote code in backticks
/// (`` `%3 = add %1, %2` ``); a backtick without its pair is text.
pub fn split_code(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        if open > 0 {
            out.push((false, &rest[..open]));
        }
        out.push((true, &rest[open + 1..open + 1 + len]));
        rest = &rest[open + len + 2..];
    }
    if !rest.is_empty() {
        out.push((false, rest));
    }
    out
}

/// A step sentence with its `code` spans as `<code>`.
fn code_spans(text: &str) -> Html {
    html! {
        { for split_code(text).into_iter().map(|(code, t)| if code { html! { <code>{ t }</code> } } else { html! { { t } } }) }
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
        <div class="step-bar" role="group" aria-label="steps">
            <div class="step-controls">
                <button class="step-first" title="first step (Home)" aria-label="first step" onclick={step(StepCmd::First)} disabled={k == 0}>{ "⇤" }</button>
                <button class="step-prev" title="previous step (←)" aria-label="previous step" onclick={step(StepCmd::Prev)} disabled={k == 0}>{ "◀" }</button>
                <input class="step-slider" type="range" min="0" max={(n - 1).to_string()} value={k.to_string()} oninput={on_slider} aria-label="step" />
                <button class="step-next" title="next step (→)" aria-label="next step" onclick={step(StepCmd::Next)} disabled={k + 1 == n}>{ "▶" }</button>
                <button class="step-last" title="last step (End)" aria-label="last step" onclick={step(StepCmd::Last)} disabled={k + 1 == n}>{ "⇥" }</button>
                <span class="step-count">{ format!("{} / {}", k, n - 1) }</span>
            </div>
            <p id="step-text" class="step-text" aria-live="polite">{ code_spans(&s.step_text()) }</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::split_code;

    #[test]
    fn a_step_sentence_splits_into_text_and_code() {
        assert_eq!(
            split_code("`%3 = add %1, %2` is live: `return %3` uses it"),
            vec![(true, "%3 = add %1, %2"), (false, " is live: "), (true, "return %3"), (false, " uses it")]
        );
        assert_eq!(split_code("no code"), vec![(false, "no code")]);
        assert_eq!(split_code("one ` alone"), vec![(false, "one ` alone")]);
        assert_eq!(split_code("``"), vec![(true, "")]);
        assert_eq!(split_code(""), vec![]);
    }
}
