//! The first visit in two builds. Rust compiled to wasm cannot load code on demand, so the page
//! ships the app twice:
//!
//! - the **first-visit build** (`optlab-web` without the `full` feature, the module trunk puts
//!   in index.html): the editor, the CFG view of a Bril program, links, autosave and themes —
//!   what the landing page needs to draw its first graph. Every other view says "loading…";
//! - the **full app** (`optlab-full`, every feature), which the first build loads in the
//!   background once its first graph is on the screen, and then hands the page to.
//!
//! The handoff ([`Handoff`]) is the permalink [`Snapshot`] of the screen (program, function,
//! view, step, selection, theme, modes) plus what a link leaves out: the editor's exact text,
//! caret, selection, focus and scroll, the example the text came from, the text kept aside
//! from a link, the notice. It happens at a safe point — the editor idle for [`IDLE_MS`] and
//! no button held, or at once when the user opens a view the first build does not have — so
//! that no keystroke is lost: the full app mounts hidden next to the first one, and when it
//! has drawn its view, it takes any text typed in the meantime, the first app is destroyed
//! (its listeners and timers with it) and the full app is shown in its place. The page's root
//! says which app has it: `data-app="first"`, then `data-app="full"`.
//!
//! The two apps talk through two functions on `window`: `optlabStopFirst` (the first app
//! unmounts itself) and `optlabTakeOver` (the full app mounts from a handoff).

use crate::permalink::Snapshot;
use crate::state::{Doc, Notice, State};
use crate::storage::Saved;
use optlab_core::Lang;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use yew::prelude::*;

/// The full app's script and module, next to index.html (trunk builds them unhashed, like the
/// layout worker; sw.js caches them for offline use).
pub const FULL_SCRIPT: &str = "./optlab-full.js";
pub const FULL_WASM: &str = "./optlab-full_bg.wasm";
/// The views' stylesheets: not part of the first visit (index.html copies them to `css/`); the
/// full app adds them before it shows itself.
pub const VIEW_CSS: [&str; 8] =
    ["css/dom.css", "css/dce.css", "css/lcm.css", "css/copyprop.css", "css/types.css", "css/ownership.css", "css/lowering.css", "css/ssa.css"];
/// The editor must have been idle this long before the page changes hands (unless the user
/// asked for a view only the full app has).
pub const IDLE_MS: f64 = 800.0;

/// What a link said that the first-visit build cannot hold: the pipeline and stages (they name
/// passes) and the step of its view (the first build's views have no steps), kept as written
/// for the full app.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct LinkExtras {
    pipe: Option<String>,
    stages: Option<[u32; 2]>,
    view: Option<String>,
    step: Option<u32>,
}

thread_local! {
    static LINK: RefCell<LinkExtras> = RefCell::default();
    /// The full app could not be loaded (the first app stays; its other views say so).
    static FULL_FAILED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The state the full app starts from (set just before it mounts).
    static HANDED: RefCell<Option<State>> = const { RefCell::new(None) };
    /// The first app's newest state (what it hands over).
    static LATEST: RefCell<Option<std::rc::Rc<State>>> = const { RefCell::new(None) };
}

/// The first-visit build opened a link: remembers its pipeline and stages for the handoff.
pub fn remember_link(snap: &Snapshot) {
    let pipe = snap.pipe.clone().or_else(|| snap.pass.clone());
    let extras = LinkExtras { pipe, stages: snap.stages, view: snap.view.clone(), step: snap.step };
    LINK.with(|l| *l.borrow_mut() = extras);
}

/// `screen`, a snapshot of `state` in the first-visit build, with what the last link opened
/// said that this build could not hold (its handoffs and its own links keep it).
pub fn complete_snapshot(state: &State, screen: &mut Snapshot) {
    let link = LINK.with(|l| l.borrow().clone());
    // The first-visit build has no passes (an empty pipeline): the before/after view's
    // pipeline and stages are the link's, as it wrote them.
    if state.pipeline.is_empty() {
        (screen.pipe, screen.stages) = (link.pipe, link.stages);
    }
    // Still on the link's view, which did not step here: at the link's step.
    if screen.step.is_none() && link.view.is_some() && screen.view == link.view {
        screen.step = link.step;
    }
}

/// The first app's state after each render.
pub fn track(state: &std::rc::Rc<State>) {
    LATEST.with(|l| *l.borrow_mut() = Some(state.clone()));
}

/// The handed-over state, once (the full app's first state).
pub fn take_state() -> Option<State> {
    HANDED.with(|h| h.borrow_mut().take())
}

/// The editor's caret, selection, focus and scroll, in UTF-16 units as the textarea has them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditorSpot {
    pub start: u32,
    pub end: u32,
    pub backward: bool,
    pub focused: bool,
    pub scroll_top: i32,
}

/// Everything the full app needs to show what the first app showed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Handoff {
    /// The screen as a permalink has it; `src` is the editor's text exactly.
    pub screen: Snapshot,
    /// The gallery example the text is, if unchanged since.
    pub example: Option<String>,
    pub from_link: bool,
    pub lang_auto: bool,
    /// The user's own text kept aside while a link's program is shown.
    pub stash: Option<Saved>,
    /// The program the views show while the text has errors (or is too long to analyse).
    #[serde(default)]
    pub last_good: Option<Saved>,
    pub notice: Option<(bool, String)>,
    pub editor: Option<EditorSpot>,
    /// The id of the element that had the keyboard focus outside the editor (a view tab).
    #[serde(default)]
    pub focus: Option<String>,
}

impl Handoff {
    /// The handoff of `state`, whose editor holds `text` (which may be ahead of the state by a
    /// keystroke still in its debounce).
    pub fn of(state: &State, text: &str, editor: Option<EditorSpot>) -> Handoff {
        let mut screen = state.snapshot();
        complete_snapshot(state, &mut screen);
        screen.src = text.to_string();
        Handoff {
            screen,
            example: state.doc.example.map(String::from),
            from_link: state.doc.from_link,
            lang_auto: state.doc.lang_auto,
            stash: state.stash.as_ref().map(crate::session::saved_from_doc),
            last_good: crate::session::last_good(state),
            notice: state.notice.as_ref().map(|n| (n.error, n.text.to_string())),
            editor,
            focus: None,
        }
    }

    /// The state the full app starts from: the screen opened like a link on an empty page
    /// (analysed once), then the document's own facts put back.
    pub fn state(&self) -> State {
        let example = self.example.as_deref().and_then(crate::examples::by_id);
        let mut screen = self.screen.clone();
        // An example opened in the first-visit build, which does not carry its text (the SIL
        // ones, and those that open on a view only the full app has).
        if let Some(ex) = example.filter(|ex| (ex.lang == Lang::Sil || ex.full_only) && screen.src.is_empty()) {
            screen.src = ex.text().into_owned();
        }
        let blank = State::new(Doc::new("", Lang::Bril, "untitled.bril"));
        let mut s = match &self.last_good {
            None => blank.apply(crate::state::Action::Restore(Box::new(screen.clone()))),
            // The text has errors: the screen on the last good program, then the text, which
            // leaves the views on that program (as a reload does).
            Some(good) => {
                let text = std::mem::replace(&mut screen.src, good.src.clone());
                let lang = std::mem::replace(&mut screen.lang, good.lang.clone());
                let file = std::mem::replace(&mut screen.file, good.file.clone());
                let s = blank.apply(crate::state::Action::Restore(Box::new(screen.clone())));
                let lang = if lang == "sil" { Lang::Sil } else { Lang::Bril };
                let doc = Doc::new(&text, lang, file.as_deref().unwrap_or("untitled.bril"));
                (screen.src, screen.file) = (text, file);
                s.apply(crate::state::Action::OpenDoc(doc))
            }
        };
        s.doc.example = example.map(|e| e.id);
        s.doc.from_link = self.from_link;
        s.doc.lang_auto = self.lang_auto;
        if let Some(file) = &screen.file {
            s.doc.file = file.clone().into();
        }
        s.stash = self.stash.as_ref().map(crate::session::doc_from_saved);
        s.notice = self.notice.as_ref().map(|(error, text)| Notice { error: *error, text: text.clone().into() });
        s
    }
}

/// What a view the first-visit build does not have shows until the full app has the page; it
/// also asks for the handoff now rather than after the editor's idle time.
#[function_component(Loading)]
pub fn loading() -> Html {
    let failed = use_state(|| false);
    {
        let failed = failed.clone();
        use_effect_with((), move |_| {
            #[cfg(all(target_arch = "wasm32", not(feature = "full")))]
            first::hand_over_soon();
            let poll = gloo::timers::callback::Interval::new(500, move || {
                if FULL_FAILED.with(std::cell::Cell::get) {
                    failed.set(true);
                }
            });
            move || drop(poll)
        });
    }
    if *failed {
        return html! {
            <p class="empty loading" role="status">
                { "This view comes with the rest of the lab, which did not load (offline?). Reload the page to try again." }
            </p>
        };
    }
    html! { <p class="empty loading" role="status">{ "loading…" }</p> }
}

/// Starts the page: see the module's top comment.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    #[cfg(not(feature = "full"))]
    first::start();
    #[cfg(feature = "full")]
    full::start();
}

#[cfg(target_arch = "wasm32")]
fn window() -> web_sys::Window {
    web_sys::window().expect("a browser window")
}

#[cfg(target_arch = "wasm32")]
fn now() -> f64 {
    web_sys::js_sys::Date::now()
}

/// A `<div>` for an app's root at the end of `<body>`.
#[cfg(target_arch = "wasm32")]
fn root(id: &str, app: &str) -> web_sys::Element {
    let doc = window().document().expect("a document");
    let el = doc.create_element("div").expect("a div");
    el.set_id(id);
    let _ = el.set_attribute("data-app", app);
    if let Some(body) = doc.body() {
        let _ = body.append_child(&el);
    }
    el
}

#[cfg(target_arch = "wasm32")]
fn textarea(root: &web_sys::Element) -> Option<web_sys::HtmlTextAreaElement> {
    use wasm_bindgen::JsCast;
    root.query_selector("textarea#source").ok().flatten()?.dyn_into().ok()
}

/// The first-visit build's side: mount, load the full app after the first graph, hand over.
#[cfg(all(target_arch = "wasm32", not(feature = "full")))]
mod first {
    use super::*;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::js_sys;

    /// How long to wait for the first graph before loading the full app anyway (a view
    /// without a graph, a program that does not parse, a SIL program).
    const FIRST_GRAPH_WAIT_MS: f64 = 2500.0;
    /// A button held this long without any other input no longer keeps the handoff waiting.
    const PRESS_FORGOTTEN_MS: f64 = 5000.0;

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Phase {
        /// Waiting for the first graph.
        First,
        /// The full app's files are on their way.
        Loading,
        /// Loaded: waiting for a safe point.
        Ready,
        /// Handed over (or failed to load: the first app stays).
        Done,
    }

    struct First {
        handle: Option<yew::AppHandle<crate::App>>,
        root: web_sys::Element,
        phase: Phase,
        started: f64,
        /// The last keystroke, paste or press anywhere on the page.
        last_input: f64,
        /// A mouse button or a finger is down (a drag in a graph, a selection being made).
        pressed: bool,
        /// A view only the full app has was opened: hand over as soon as it is loaded.
        urgent: bool,
        _listeners: Vec<gloo::events::EventListener>,
        ticker: Option<gloo::timers::callback::Interval>,
    }

    thread_local! {
        static FIRST: RefCell<Option<First>> = const { RefCell::new(None) };
    }

    fn with<R>(f: impl FnOnce(&mut First) -> R) -> Option<R> {
        FIRST.with(|s| s.borrow_mut().as_mut().map(f))
    }

    pub fn start() {
        let root = super::root("app-first", "first");
        let handle = yew::Renderer::<crate::App>::with_root(root.clone()).render();
        let doc = window().document().expect("a document");
        let activity = |doc: &web_sys::Document, ev: &'static str, pressed: Option<bool>| {
            let opts = gloo::events::EventListenerOptions::run_in_capture_phase();
            gloo::events::EventListener::new_with_options(doc, ev, opts, move |_| {
                with(|f| {
                    f.last_input = now();
                    if let Some(p) = pressed {
                        f.pressed = p;
                    }
                });
            })
        };
        let listeners = vec![
            activity(&doc, "input", None),
            activity(&doc, "keydown", None),
            activity(&doc, "compositionupdate", None),
            activity(&doc, "pointerdown", Some(true)),
            activity(&doc, "pointerup", Some(false)),
            activity(&doc, "pointercancel", Some(false)),
        ];
        // The full app calls this when it is on the screen: the first app goes away.
        let stop = Closure::<dyn Fn()>::new(stop);
        let _ = js_sys::Reflect::set(&window(), &"optlabStopFirst".into(), stop.as_ref());
        stop.forget();
        let ticker = gloo::timers::callback::Interval::new(50, tick);
        FIRST.with(|s| {
            *s.borrow_mut() = Some(First {
                handle: Some(handle),
                root,
                phase: Phase::First,
                started: now(),
                last_input: 0.0,
                pressed: false,
                urgent: false,
                _listeners: listeners,
                ticker: Some(ticker),
            })
        });
    }

    /// A view the first build does not have was opened.
    pub fn hand_over_soon() {
        with(|f| f.urgent = true);
        tick();
    }

    fn tick() {
        let Some((phase, root, started, last_input, pressed, urgent)) =
            with(|f| (f.phase, f.root.clone(), f.started, f.last_input, f.pressed, f.urgent))
        else {
            return;
        };
        match phase {
            Phase::First => {
                let drawn = root.query_selector(".view svg g.node").ok().flatten().is_some();
                if drawn || urgent || now() - started > FIRST_GRAPH_WAIT_MS {
                    with(|f| f.phase = Phase::Loading);
                    load_full();
                }
            }
            Phase::Ready => {
                // A press whose release the page never saw (dropped outside the window) is
                // forgotten after a while.
                let pressed = pressed && now() - last_input < PRESS_FORGOTTEN_MS;
                let idle = now() - last_input >= IDLE_MS && !pressed;
                if idle || (urgent && !pressed) {
                    with(|f| f.phase = Phase::Done);
                    // Not from inside the ticker, which the handoff stops.
                    gloo::timers::callback::Timeout::new(0, hand_over).forget();
                }
            }
            Phase::Loading | Phase::Done => {}
        }
    }

    /// Adds the full app's script and starts its module; its `main` registers
    /// `optlabTakeOver`.
    fn load_full() {
        let load = js_sys::Function::new_with_args(
            "src, wasm",
            "return new Promise((ok, fail) => {
                const s = document.createElement('script');
                s.src = src;
                s.onload = () => wasm_bindgen({ module_or_path: wasm }).then(ok, fail);
                s.onerror = () => fail(new Error('could not load ' + src));
                document.head.appendChild(s);
            })",
        );
        let promise = load.call2(&JsValue::NULL, &FULL_SCRIPT.into(), &FULL_WASM.into());
        wasm_bindgen_futures::spawn_local(async move {
            let loaded = match promise {
                Ok(p) => wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(p)).await.map(|_| ()),
                Err(e) => Err(e),
            };
            match loaded {
                Ok(()) => {
                    with(|f| f.phase = Phase::Ready);
                    tick();
                }
                Err(e) => {
                    // Offline without a cached copy: the first app stays, its other views
                    // keep saying "loading…".
                    gloo::console::warn!("optlab: the full app did not load:", e);
                    with(|f| f.phase = Phase::Done);
                    FULL_FAILED.with(|x| x.set(true));
                }
            }
        });
    }

    fn hand_over() {
        let Some(root) = with(|f| {
            f.ticker = None;
            f.root.clone()
        }) else {
            return;
        };
        let Some(state) = LATEST.with(|l| l.borrow().clone()) else { return };
        let ta = textarea(&root);
        // The textarea's text, which may be a keystroke ahead of the state; not when the editor
        // holds a text too long to show (the textarea then has only its start).
        let held = root.query_selector(".ce-held").ok().flatten().is_some();
        let text = match &ta {
            Some(t) if !held => t.value(),
            _ => state.doc.source.to_string(),
        };
        let doc = window().document();
        let spot = ta.map(|t| EditorSpot {
            start: t.selection_start().ok().flatten().unwrap_or(0),
            end: t.selection_end().ok().flatten().unwrap_or(0),
            backward: t.selection_direction().ok().flatten().as_deref() == Some("backward"),
            focused: doc.and_then(|d| d.active_element()).is_some_and(|a| a.is_same_node(Some(t.as_ref()))),
            scroll_top: t.scroll_top(),
        });
        let mut handoff = Handoff::of(&state, &text, spot);
        handoff.focus = window()
            .document()
            .and_then(|d| d.active_element())
            .filter(|a| root.contains(Some(&**a)) && !a.id().is_empty() && a.id() != "source")
            .map(|a| a.id());
        let Ok(json) = serde_json::to_string(&handoff) else { return };
        let take = js_sys::Reflect::get(&window(), &"optlabTakeOver".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        match take {
            Some(take) => {
                if let Err(e) = take.call1(&JsValue::NULL, &json.into()) {
                    gloo::console::error!("optlab: the full app could not take over:", e);
                }
            }
            None => gloo::console::warn!("optlab: the full app loaded without optlabTakeOver"),
        }
    }

    /// Unmounts the first app: its components' effects end (listeners, timers, the editor's
    /// debounce), its own listeners go, its root leaves the page.
    fn stop() {
        let Some(first) = FIRST.with(|s| s.borrow_mut().take()) else { return };
        if let Some(h) = first.handle {
            h.destroy();
        }
        first.root.remove();
        let _ = js_sys::Reflect::delete_property(&window(), &"optlabStopFirst".into());
    }
}

/// The full app's side: mount at once, or take the page over from the first app.
#[cfg(all(target_arch = "wasm32", feature = "full"))]
mod full {
    use super::*;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::js_sys;

    /// How long the hidden full app may take to draw its view before it is shown anyway.
    const DRAW_WAIT_MS: f64 = 3000.0;

    thread_local! {
        static APP: RefCell<Option<yew::AppHandle<crate::App>>> = const { RefCell::new(None) };
        /// How many of [`VIEW_CSS`] have arrived.
        static CSS: RefCell<Option<std::rc::Rc<std::cell::Cell<usize>>>> = const { RefCell::new(None) };
    }

    fn styled() -> bool {
        CSS.with(|c| c.borrow().as_ref().is_none_or(|n| n.get() >= VIEW_CSS.len()))
    }

    /// Adds the views' stylesheets to the page; the cell counts those that arrived (or failed).
    fn add_view_css() -> std::rc::Rc<std::cell::Cell<usize>> {
        let arrived = std::rc::Rc::new(std::cell::Cell::new(0));
        let Some(doc) = window().document() else { return arrived };
        let Some(head) = doc.head() else { return arrived };
        for href in VIEW_CSS {
            let Ok(link) = doc.create_element("link") else { continue };
            let _ = link.set_attribute("rel", "stylesheet");
            let _ = link.set_attribute("href", href);
            for ev in ["load", "error"] {
                let arrived = arrived.clone();
                gloo::events::EventListener::once(&link, ev, move |_| arrived.set(arrived.get() + 1)).forget();
            }
            let _ = head.append_child(&link);
        }
        arrived
    }

    pub fn start() {
        let w = window();
        let first_is_here = js_sys::Reflect::has(&w, &"optlabStopFirst".into()).unwrap_or(false);
        let css = add_view_css();
        CSS.with(|c| *c.borrow_mut() = Some(css));
        if !first_is_here {
            let root = super::root("app-full", "full");
            APP.with(|a| *a.borrow_mut() = Some(yew::Renderer::<crate::App>::with_root(root).render()));
            return;
        }
        let take = Closure::<dyn Fn(String)>::new(take_over);
        let _ = js_sys::Reflect::set(&w, &"optlabTakeOver".into(), take.as_ref());
        take.forget();
    }

    fn take_over(json: String) {
        let _ = js_sys::Reflect::delete_property(&window(), &"optlabTakeOver".into());
        let handoff: Handoff = match serde_json::from_str(&json) {
            Ok(h) => h,
            Err(e) => {
                gloo::console::error!(format!("optlab: a handoff that does not read: {e}"));
                return;
            }
        };
        HANDED.with(|h| *h.borrow_mut() = Some(handoff.state()));
        // Hidden, on top of the first app and the same size, until it has drawn its view.
        let root = super::root("app-full", "loading");
        let _ = root.set_attribute("style", "position:fixed;inset:0;visibility:hidden;pointer-events:none");
        root.set_attribute("aria-hidden", "true").ok();
        APP.with(|a| *a.borrow_mut() = Some(yew::Renderer::<crate::App>::with_root(root.clone()).render()));
        let since = now();
        let next = Closure::once_into_js(move || wait_drawn(root, handoff, since));
        let _ = window().request_animation_frame(next.unchecked_ref());
    }

    /// The view is drawn: no graph still waiting for its layout.
    fn drawn(root: &web_sys::Element) -> bool {
        let q = |sel: &str| root.query_selector(sel).ok().flatten().is_some();
        q(".view") && !q(".graph-view.pending")
    }

    fn wait_drawn(root: web_sys::Element, handoff: Handoff, since: f64) {
        if (drawn(&root) && styled()) || now() - since > DRAW_WAIT_MS {
            show(&root, &handoff);
            return;
        }
        let next = Closure::once_into_js(move || wait_drawn(root, handoff, since));
        let _ = window().request_animation_frame(next.unchecked_ref());
    }

    /// Swaps the apps: text typed while the full app was drawing is carried over, the first
    /// app is stopped and the full app shown, with the editor's caret where it was.
    fn show(root: &web_sys::Element, handoff: &Handoff) {
        let w = window();
        let first_root = w.document().and_then(|d| d.get_element_by_id("app-first"));
        // (Not from an editor holding a text too long to show: its textarea has only the start.)
        let latest = first_root
            .as_ref()
            .filter(|r| r.query_selector(".ce-held").ok().flatten().is_none())
            .and_then(textarea)
            .map(|t| (t.value(), t.selection_start(), t.selection_end()));
        if let Ok(stop) = js_sys::Reflect::get(&w, &"optlabStopFirst".into()) {
            if let Ok(stop) = stop.dyn_into::<js_sys::Function>() {
                let _ = stop.call0(&JsValue::NULL);
            }
        }
        let _ = root.remove_attribute("style");
        let _ = root.remove_attribute("aria-hidden");
        let _ = root.set_attribute("data-app", "full");
        if let Some(el) = handoff.focus.as_deref().and_then(|id| root.query_selector(&format!("#{id}")).ok().flatten()) {
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
        let Some(ta) = textarea(root) else { return };
        let mut spot = handoff.editor;
        if let Some((text, start, end)) = latest.filter(|(t, _, _)| *t != handoff.screen.src) {
            // Typed after the handoff: the full editor takes the text as if typed there.
            ta.set_value(&text);
            if let Ok(ev) = web_sys::InputEvent::new("input") {
                let _ = ta.dispatch_event(&ev);
            }
            if let Some(s) = spot.as_mut() {
                s.start = start.ok().flatten().unwrap_or(s.start);
                s.end = end.ok().flatten().unwrap_or(s.end);
            }
        }
        if let Some(s) = spot {
            let dir = if s.backward { "backward" } else { "forward" };
            let _ = ta.set_selection_range_with_direction(s.start, s.end, dir);
            if s.focused {
                let _ = ta.focus();
            }
            ta.set_scroll_top(s.scroll_top);
            // The highlighted layers follow the textarea's scroll.
            if let Ok(ev) = web_sys::Event::new("scroll") {
                let _ = ta.dispatch_event(&ev);
            }
        }
    }
}

#[cfg(all(test, feature = "full"))]
mod tests {
    use super::*;
    use crate::state::{Action, Tab};
    use optlab_core::passes::pipeline::Pipeline;

    fn round_trip(s: &State, text: &str) -> State {
        let h = Handoff::of(s, text, None);
        let json = serde_json::to_string(&h).expect("serialises");
        let back: Handoff = serde_json::from_str(&json).expect("reads");
        assert_eq!(back, h);
        back.state()
    }

    #[test]
    fn the_landing_page_is_handed_over_as_it_is() {
        let s = State::default().apply(Action::SelectBlock(Some("loop".into()))).apply(Action::SetLecture(true));
        let t = round_trip(&s, &s.doc.source);
        assert_eq!(t.snapshot(), s.snapshot());
        assert_eq!(t.doc, s.doc, "the same example, file and language");
        assert!(t.analysis.is_ok() && t.stash.is_none() && t.notice.is_none());
    }

    #[test]
    fn text_typed_ahead_of_the_state_and_a_view_are_handed_over() {
        let s = State::default().apply(Action::SelectTab(Tab::pass("dce")));
        let typed = format!("{}\n", s.doc.source);
        let t = round_trip(&s, &typed);
        assert_eq!(t.doc.source.as_str(), typed);
        assert_eq!(t.tab, Tab::pass("dce"));
    }

    #[test]
    fn text_with_errors_is_handed_over_with_the_program_the_views_show() {
        let s = State::default().apply(Action::Edit("@main {\n  x: int = const;\n}\n".into()));
        assert!(s.is_stale());
        let t = round_trip(&s, &s.doc.source.clone());
        assert!(t.is_stale() && t.analysis.is_ok());
        assert_eq!(t.doc.source, s.doc.source);
        assert_eq!(t.doc.file, s.doc.file);
        assert_eq!(t.program.as_ref().map(|p| p.source.clone()), s.program.as_ref().map(|p| p.source.clone()));
    }

    #[test]
    fn a_links_step_survives_the_first_build() {
        let mut snap = State::default().apply(Action::SelectTab(Tab::pass("lcm"))).snapshot();
        snap.step = Some(3);
        remember_link(&snap);
        let mut s = State::default().apply(Action::Restore(Box::new(snap)));
        // The first build's views do not step.
        s.cursors.clear();
        let t = round_trip(&s, &s.doc.source.clone());
        assert_eq!((t.tab, t.step(Tab::pass("lcm"))), (Tab::pass("lcm"), 3));
        LINK.with(|l| *l.borrow_mut() = LinkExtras::default());
    }

    #[test]
    fn a_sil_example_opened_in_the_first_build_gets_its_text() {
        let mut s = State::default().apply(Action::LoadExample("dead1".into()));
        let text = s.doc.source.to_string();
        assert!(!text.is_empty());
        // What the first build has: the example's id, not its text.
        s.doc.source = "".into();
        let t = round_trip(&s, "");
        assert_eq!(t.doc.source.as_str(), text);
        assert_eq!(t.doc.example, Some("dead1"));
        assert!(t.analysis.is_ok());
    }

    #[test]
    fn a_links_pipeline_survives_the_first_build() {
        let mut snap = Snapshot::new("@main {\n  ret;\n}\n", "bril");
        snap.pipe = Some("dce,lcm".into());
        snap.stages = Some([0, 1]);
        snap.view = Some("diff".into());
        snap.step = Some(2);
        remember_link(&snap);
        // What the first build holds: the program and the view, not the pipeline.
        let mut s = State::default().apply(Action::Restore(Box::new(snap)));
        s.pipeline = Pipeline { passes: Vec::new() };
        let t = round_trip(&s, &s.doc.source.clone());
        assert_eq!(t.pipeline.to_string(), "dce,lcm");
        assert_eq!(t.compared_stages(), (0, 1));
        assert_eq!(t.tab, Tab::DIFF);
        assert!(t.doc.from_link);
        assert_eq!(t.snapshot().step, None, "the diff view has no steps: the link's step is clamped");
        LINK.with(|l| *l.borrow_mut() = LinkExtras::default());
    }
}
