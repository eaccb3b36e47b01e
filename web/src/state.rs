//! The app's state and every change to it, as a pure reducer (no DOM, testable natively).
//! Components only render a [`State`] and dispatch [`Action`]s.
//!
//! The program is analysed here, once per edit ([`crate::program`]); stepping, selecting and
//! switching views only move cursors into what was computed.

use crate::examples::{Example, EXAMPLES};
use crate::permalink::{Flags, Snapshot};
pub use crate::storage::Theme;
use crate::program::{analyse, pick_function, Analysis, ErrorMark, Program};
use optlab_core::parse::detect_lang;
use optlab_core::{InstId, Lang};
use std::rc::Rc;
use yew::{AttrValue, Reducible};

/// The views, one tab each. The slug is their name in links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tab {
    #[default]
    Cfg,
    Dom,
    PostDom,
    Cdg,
    Dce,
    Lcm,
    Diff,
}

impl Tab {
    pub const ALL: [Tab; 7] = [Tab::Cfg, Tab::Dom, Tab::PostDom, Tab::Cdg, Tab::Dce, Tab::Lcm, Tab::Diff];

    pub fn slug(self) -> &'static str {
        match self {
            Tab::Cfg => "cfg",
            Tab::Dom => "dom",
            Tab::PostDom => "pdom",
            Tab::Cdg => "cdg",
            Tab::Dce => "dce",
            Tab::Lcm => "lcm",
            Tab::Diff => "diff",
        }
    }

    pub fn from_slug(s: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.slug() == s)
    }

    pub fn title(self) -> &'static str {
        match self {
            Tab::Cfg => "CFG",
            Tab::Dom => "Dominators",
            Tab::PostDom => "Post-dominators",
            Tab::Cdg => "Control dependence",
            Tab::Dce => "DCE",
            Tab::Lcm => "LCM",
            Tab::Diff => "Before / after",
        }
    }
}

/// The pass the before/after view compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pass {
    #[default]
    Dce,
    Lcm,
}

impl Pass {
    pub fn slug(self) -> &'static str {
        match self {
            Pass::Dce => "dce",
            Pass::Lcm => "lcm",
        }
    }

    pub fn from_slug(s: &str) -> Option<Pass> {
        [Pass::Dce, Pass::Lcm].into_iter().find(|p| p.slug() == s)
    }
}

/// A step command (keys ←/→, Home/End, PageUp/PageDown, the slider).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepCmd {
    Next,
    Prev,
    First,
    Last,
    To(usize),
}

/// A message over the views (a broken link, the text saved before a link was opened, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub error: bool,
    pub text: AttrValue,
}

/// The editor's document.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    pub source: AttrValue,
    pub lang: Lang,
    /// The language follows the text (detected) until the user picks one.
    pub lang_auto: bool,
    /// File name used in error messages.
    pub file: AttrValue,
    /// The gallery example this text came from, if unchanged since.
    pub example: Option<&'static str>,
    /// The text came from a link and is unchanged since (so it is not the user's own).
    pub from_link: bool,
}

impl Doc {
    pub fn new(source: &str, lang: Lang, file: &str) -> Doc {
        Doc {
            source: source.to_string().into(),
            lang,
            lang_auto: true,
            file: file.to_string().into(),
            example: None,
            from_link: false,
        }
    }

    /// Whether this is text the user wrote (or changed): worth keeping when replaced.
    pub fn is_users(&self) -> bool {
        self.example.is_none() && !self.from_link && !self.source.trim().is_empty()
    }

    pub fn from_example(ex: &Example) -> Doc {
        Doc { example: Some(ex.id), ..Doc::new(&ex.text(), ex.lang, ex.file) }
    }
}

/// Step cursors, one per view that steps. Each is clamped to its view's step count when used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursors {
    pub dce: usize,
    pub lcm: usize,
    pub dom: usize,
    pub pdom: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub doc: Doc,
    /// Parse errors of `doc.source` (empty when it parses).
    pub marks: Rc<Vec<ErrorMark>>,
    /// The same errors rendered `file:line:col: error: …` with line and caret.
    pub error_text: Option<AttrValue>,
    /// The last program that parsed. While the text has errors the views keep showing it.
    pub program: Option<Rc<Program>>,
    /// The function the views show.
    pub function: Option<String>,
    /// Its analyses, or why there are none (too big, no function with a body).
    pub analysis: Result<Rc<Analysis>, AttrValue>,
    pub tab: Tab,
    pub pass: Pass,
    pub cursors: Cursors,
    /// The selected block, by name (names survive edits; ids need not).
    pub block: Option<AttrValue>,
    /// The selected instruction (DCE's why-live chain, the editor's highlighted line).
    pub inst: Option<InstId>,
    /// The expression the LCM view shows, by text (`add a b`).
    pub expr: Option<AttrValue>,
    /// An explicit colour theme; `None` follows the system (`prefers-color-scheme`).
    pub theme: Option<Theme>,
    pub lecture: bool,
    pub embed: bool,
    pub exercise: bool,
    pub notice: Option<Notice>,
    /// The user's own text, kept when a link or an example replaced it (offer to go back).
    pub stash: Option<Doc>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The editor's text changed.
    Edit(String),
    /// `None`: detect the language from the text.
    SetLang(Option<Lang>),
    /// Load the gallery example with this id.
    LoadExample(String),
    SelectFunction(String),
    SelectTab(Tab),
    SelectPass(Pass),
    Step(StepCmd),
    SelectBlock(Option<String>),
    SelectInst(Option<InstId>),
    SelectExpr(Option<String>),
    SetTheme(Option<Theme>),
    SetLecture(bool),
    SetExercise(bool),
    /// Show a message (e.g. a broken permalink) over the views.
    Notify(Notice),
    DismissNotice,
    /// Replace the document (a permalink opened), stashing the user's own text.
    OpenDoc(Doc),
    /// Go back to the stashed text.
    RestoreStash,
    /// Open a permalink's state (see [`link`]); the user's own text is stashed.
    Restore(Box<Snapshot>),
    /// The fragment's mode flags without a state (`#lecture`, `#embed=lcm`).
    SetFlags(Flags),
    /// Replace the whole state by one computed from this one (the session's link handling,
    /// which needs local storage: see `crate::session::open_fragment`).
    Replace(Box<State>),
}

impl Default for State {
    fn default() -> State {
        State::new(Doc::from_example(&EXAMPLES[0]))
    }
}

impl State {
    /// A state showing `doc`, with default views.
    pub fn new(doc: Doc) -> State {
        let blank = State {
            doc: Doc::new("", Lang::Bril, "untitled.bril"),
            marks: Rc::default(),
            error_text: None,
            program: None,
            function: None,
            analysis: Err("no program yet".into()),
            tab: Tab::default(),
            pass: Pass::default(),
            cursors: Cursors::default(),
            block: None,
            inst: None,
            expr: None,
            theme: None,
            lecture: false,
            embed: false,
            exercise: false,
            notice: None,
            stash: None,
        };
        blank.with_doc(doc)
    }

    /// `self` with `doc` in the editor: parsed and, if it parses, analysed. On errors the
    /// previous program and its analyses stay.
    fn with_doc(mut self, mut doc: Doc) -> State {
        if doc.lang_auto {
            if let Some(lang) = detect_lang(&doc.source) {
                doc.lang = lang;
            }
        }
        self.doc = doc;
        match Program::parse(self.doc.lang, &self.doc.file, &self.doc.source) {
            Ok(program) => {
                self.marks = Rc::default();
                self.error_text = None;
                let same_text = self.program.as_ref().is_some_and(|p| **p == program);
                if !same_text {
                    self.program = Some(Rc::new(program));
                    self.reanalyse();
                }
            }
            Err(failure) => {
                self.marks = Rc::new(failure.marks);
                self.error_text = Some(failure.text.into());
            }
        }
        self
    }

    /// Recomputes the analyses of the chosen function of the current program.
    fn reanalyse(&mut self) {
        let Some(program) = &self.program else {
            self.analysis = Err("no program yet".into());
            return;
        };
        self.function = pick_function(program, self.function.as_deref());
        self.analysis = match &self.function {
            None => Err("the program has no function with a body".into()),
            Some(name) => analyse(program, name).map_err(AttrValue::from),
        };
    }

    /// True while the editor's text has errors and the views show the last good program.
    pub fn is_stale(&self) -> bool {
        self.error_text.is_some() && self.program.is_some()
    }

    /// The number of steps of the view `tab` (1 for views without steps).
    pub fn step_count(&self, tab: Tab) -> usize {
        let Ok(a) = &self.analysis else { return 1 };
        let n = match tab {
            Tab::Dce => a.dce_steps.len(),
            Tab::Lcm => a.lcm_steps.as_ref().map_or(1, |s| s.len()),
            Tab::Dom => a.dom_steps.len(),
            Tab::PostDom => a.pdom_steps.len(),
            Tab::Cfg | Tab::Cdg | Tab::Diff => 1,
        };
        n.max(1)
    }

    /// The current step of view `tab`, clamped to its steps.
    pub fn step(&self, tab: Tab) -> usize {
        let raw = match tab {
            Tab::Dce => self.cursors.dce,
            Tab::Lcm => self.cursors.lcm,
            Tab::Dom => self.cursors.dom,
            Tab::PostDom => self.cursors.pdom,
            Tab::Cfg | Tab::Cdg | Tab::Diff => 0,
        };
        raw.min(self.step_count(tab) - 1)
    }

    /// The one-line description of the current step of the current view.
    pub fn step_text(&self) -> String {
        let Ok(a) = &self.analysis else { return String::new() };
        let k = self.step(self.tab);
        match self.tab {
            Tab::Dce => a.dce_steps.describe(k).to_string(),
            // In exercise mode the full description would give the answer away.
            Tab::Lcm if self.exercise => a.lcm_steps.as_ref().map_or_else(String::new, |s| s.headline(k).to_string()),
            Tab::Lcm => a.lcm_steps.as_ref().map_or_else(String::new, |s| s.describe(k).to_string()),
            Tab::Dom => a.dom_steps.describe(k).to_string(),
            Tab::PostDom => a.pdom_steps.describe(k).to_string(),
            Tab::Cfg | Tab::Cdg | Tab::Diff => String::new(),
        }
    }

    fn set_step(&mut self, tab: Tab, k: usize) {
        let k = k.min(self.step_count(tab) - 1);
        match tab {
            Tab::Dce => self.cursors.dce = k,
            Tab::Lcm => self.cursors.lcm = k,
            Tab::Dom => self.cursors.dom = k,
            Tab::PostDom => self.cursors.pdom = k,
            Tab::Cfg | Tab::Cdg | Tab::Diff => {}
        }
    }

    /// The state after `action`.
    pub fn apply(&self, action: Action) -> State {
        let mut s = self.clone();
        match action {
            Action::Edit(text) => {
                if text == s.doc.source.as_str() {
                    return s;
                }
                let doc = Doc { source: text.into(), example: None, from_link: false, ..s.doc.clone() };
                return s.with_doc(doc);
            }
            Action::SetLang(lang) => {
                let mut doc = s.doc.clone();
                doc.lang_auto = lang.is_none();
                if let Some(l) = lang {
                    doc.lang = l;
                }
                s.program = None;
                return s.with_doc(doc);
            }
            Action::LoadExample(id) => {
                let Some(ex) = EXAMPLES.iter().find(|e| e.id == id) else {
                    s.notice = Some(Notice { error: true, text: format!("there is no example `{id}`").into() });
                    return s;
                };
                if s.doc.is_users() {
                    s.stash = Some(s.doc.clone());
                }
                s.function = None;
                s.cursors = Cursors::default();
                s.block = None;
                s.inst = None;
                s.expr = None;
                return s.with_doc(Doc::from_example(ex));
            }
            Action::SelectFunction(name) => {
                if s.function.as_deref() != Some(name.as_str()) {
                    s.function = Some(name);
                    s.cursors = Cursors::default();
                    s.block = None;
                    s.inst = None;
                    s.expr = None;
                    s.reanalyse();
                }
            }
            Action::SelectTab(tab) => s.tab = tab,
            Action::SelectPass(pass) => s.pass = pass,
            Action::Step(cmd) => {
                let tab = s.tab;
                let k = s.step(tab);
                let last = s.step_count(tab) - 1;
                let next = match cmd {
                    StepCmd::Next => (k + 1).min(last),
                    StepCmd::Prev => k.saturating_sub(1),
                    StepCmd::First => 0,
                    StepCmd::Last => last,
                    StepCmd::To(n) => n.min(last),
                };
                s.set_step(tab, next);
            }
            Action::SelectBlock(b) => s.block = b.map(AttrValue::from),
            Action::SelectInst(i) => s.inst = i,
            Action::SelectExpr(e) => s.expr = e.map(AttrValue::from),
            Action::SetTheme(t) => s.theme = t,
            Action::SetLecture(on) => s.lecture = on,
            Action::SetExercise(on) => s.exercise = on,
            Action::Notify(n) => s.notice = Some(n),
            Action::DismissNotice => s.notice = None,
            Action::OpenDoc(doc) => {
                if s.doc.is_users() && s.doc.source != doc.source {
                    s.stash = Some(s.doc.clone());
                }
                return s.with_doc(doc);
            }
            Action::Restore(snap) => return s.restored(&snap),
            Action::SetFlags(flags) => s.set_flags(&flags),
            Action::Replace(next) => return *next,
            Action::RestoreStash => {
                if let Some(doc) = s.stash.take() {
                    s.notice = None;
                    return s.with_doc(doc);
                }
            }
        }
        s
    }
}

impl Reducible for State {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

mod link;
#[cfg(test)]
mod tests;
