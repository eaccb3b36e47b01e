//! The app's state and every change to it, as a pure reducer (no DOM, testable natively).
//! Components only render a [`State`] and dispatch [`Action`]s.
//!
//! The program is analysed here, once per edit ([`crate::program`]); stepping, selecting and
//! switching views only move cursors into what was computed.
//!
//! On the page an edit is analysed in slices ([`State::sliced`], [`Job`]): the reducer only
//! records the text, and each later [`Action::Advance`] — one per task, so the browser paints
//! and reads keys in between — does one step: parse, analyse the function, compute what the
//! current view shows and show it. A newer edit starts a new job and the older one's steps are
//! ignored; until a job is done the views show the last good result.

use crate::examples::{Example, EXAMPLES};
use crate::permalink::{Flags, Snapshot};
pub use crate::storage::Theme;
use crate::program::{analyse, pick_function, too_long, Analysis, ErrorMark, Program, Staged};
pub use crate::tabs::Tab;
use optlab_core::passes::pipeline::Pipeline;
use std::collections::BTreeMap;
use optlab_core::parse::detect_lang;
use optlab_core::sil::types::query::declaration_insertion_point;
use optlab_core::sil::types::Assumptions;
use optlab_core::sil::ownership::query;
use optlab_core::{InstId, Lang, Span, ValueId};
use std::rc::Rc;
use yew::{AttrValue, Reducible};

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

/// The Types view's selection and the user's answers to what the text cannot tell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypesUi {
    /// The selected type row, by its text without `$` (`Box<Any>`, `*Box<T>`).
    pub row: Option<AttrValue>,
    /// What-if substitutions, types marked resilient, opaque values: the classification of
    /// every view (DCE's included) reads them.
    pub assume: Assumptions,
}

/// A "break it" teaching edit of the Ownership view: it breaks one of seed 003's rules in the
/// text (through [`Action::Edit`], so it stays in the editor's undo history) and the verifier
/// then reports Swift's error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Break {
    /// Delete the selected owned value's first `destroy_value`: a leak.
    DeleteDestroy,
    /// Move the selected borrow's `end_borrow` above a use in its scope: a use outside the
    /// borrow's lifetime.
    MoveEndBorrowUp,
}

/// The name of a text with no file of its own: `untitled.bril`, `untitled.sil`.
pub fn untitled(lang: Lang) -> String {
    format!("untitled.{lang}")
}

/// Whether `file`'s extension is `lang`'s (`.bril`, `.sil`); a name without one of the two
/// extensions says nothing and is kept.
fn names_lang(file: &str, lang: Lang) -> bool {
    match file.rsplit_once('.').map(|(_, ext)| ext) {
        Some(ext @ ("bril" | "sil")) => ext == lang.to_string(),
        _ => true,
    }
}

/// Whether `new` replaces most of `old` rather than editing it: less than half of `new` is
/// text the two share at their start and end (a paste over everything, not a keystroke).
fn replaces(old: &str, new: &str) -> bool {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    2 * (prefix + suffix) < b.len()
}

/// The byte range of the whole line (with its newline) holding byte `at` of `text`.
fn line_range(text: &str, at: usize) -> std::ops::Range<usize> {
    let at = at.min(text.len());
    let lo = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let hi = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    lo..hi
}

/// A request to the editor to select a span of the analysed text (a declaration, a use).
/// `seq` grows with every request, so asking for the same span twice selects it twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reveal {
    pub span: Span,
    pub seq: u32,
}

/// An edit being analysed in slices: its number and the step it is at.
#[derive(Clone)]
pub struct Job {
    pub id: u64,
    pub step: JobStep,
}

/// The steps of a [`Job`], each done by one [`Action::Advance`].
#[derive(Clone)]
pub enum JobStep {
    /// Parse the editor's text.
    Parse,
    /// Analyse the chosen function of the parsed program.
    Analyse(Rc<Program>),
    /// Compute what the current view shows (its pass), then show the new program.
    Show { program: Rc<Program>, function: Option<String>, analysis: Result<Rc<Analysis>, AttrValue> },
}

impl JobStep {
    /// The step's number (0 parse, 1 analyse, 2 show): with the job's id, what the page
    /// schedules the next task on.
    pub fn index(&self) -> u8 {
        match self {
            JobStep::Parse => 0,
            JobStep::Analyse(_) => 1,
            JobStep::Show { .. } => 2,
        }
    }
}

/// The job in progress, if any, and how many were started (the next one's id).
#[derive(Clone, Default)]
pub struct Jobs {
    pub current: Option<Job>,
    started: u64,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.current {
            Some(j) => write!(f, "Jobs(#{} at step {})", j.id, j.step.index()),
            None => write!(f, "Jobs(idle, {} started)", self.started),
        }
    }
}

impl PartialEq for Jobs {
    /// A job is bookkeeping, never shown: two states that differ only in their jobs render
    /// the same, so the views do not re-render for each of a job's steps.
    fn eq(&self, _: &Jobs) -> bool {
        true
    }
}

/// Step cursors, one per view, by the view's tab. Each is clamped to its view's step count
/// when used.
pub type Cursors = BTreeMap<Tab, usize>;

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
    pub cursors: Cursors,
    /// The passes the before/after view runs, in order.
    pub pipeline: Pipeline,
    /// The two stages the before/after view compares (0 is the input, `k` the function after
    /// the pipeline's `k`-th pass); clamped to the pipeline when used.
    pub stages: (usize, usize),
    /// The pipeline run on the analysed function (`None` without one).
    pub staged: Option<Rc<Staged>>,
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
    /// The Types view's selected row and the type assumptions.
    pub types: TypesUi,
    /// The span the editor was last asked to select.
    pub reveal: Option<Reveal>,
    /// The Ownership view's selected value, by name (`%3`); `None`: the view's first value
    /// with ownership.
    pub value: Option<AttrValue>,
    /// The last text the app itself edited (a teaching edit, an inserted declaration): the
    /// editor splices it in through its undo history instead of replacing its content.
    pub app_edit: Option<AttrValue>,
    /// Whether an edit is analysed in slices ([`Job`]: the page) or at once (tests, links).
    pub sliced: bool,
    /// The edit being analysed in slices.
    pub jobs: Jobs,
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
    /// Replace the pipeline (the before/after view then compares its input and output).
    SetPipeline(Pipeline),
    /// Append the registered pass with this slug to the pipeline.
    AddPass(String),
    /// Remove the pipeline's pass at this index.
    RemovePass(usize),
    /// Compare these two stages.
    SelectStages(usize, usize),
    Step(StepCmd),
    SelectBlock(Option<String>),
    SelectInst(Option<InstId>),
    SelectExpr(Option<String>),
    /// Select a row of the Types view by its type text (`None`: no row).
    SelectType(Option<String>),
    /// What-if: substitute generic parameter `param` by the type text `ty` (`None` or an
    /// empty text: as declared).
    SetWhatIf { param: String, ty: Option<String> },
    /// Treat the declared type `name` as resilient (or not).
    SetResilient { name: String, on: bool },
    /// Opaque-values SIL on, off, or (`None`) as the file says.
    SetOpaqueValues(Option<bool>),
    /// Select a value of the Ownership view by name (`None`: the default value).
    SelectValue(Option<String>),
    /// Apply a "break it" teaching edit to the selected value.
    BreakIt(Break),
    /// Ask the editor to select this span of the analysed text.
    Reveal(Span),
    /// Insert a declaration (a stub for an unknown type) after the file's imports.
    InsertDecl(String),
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
    /// Do the next step of the job with this id (ignored if a newer edit replaced it).
    Advance(u64),
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
            cursors: Cursors::default(),
            pipeline: crate::build::default_pipeline(),
            stages: (0, usize::MAX),
            staged: None,
            block: None,
            inst: None,
            expr: None,
            theme: None,
            lecture: false,
            embed: false,
            exercise: false,
            notice: None,
            stash: None,
            types: TypesUi::default(),
            reveal: None,
            value: None,
            app_edit: None,
            sliced: false,
            jobs: Jobs::default(),
        };
        blank.with_doc(doc)
    }

    /// A state showing `doc` whose views show `last_good` while `doc` does not parse (or is
    /// too long to analyse): the page reopened on text with errors it had analysed before.
    pub fn resumed(doc: Doc, last_good: Doc) -> State {
        State::new(last_good).with_doc(doc)
    }

    /// `self` with `doc` in the editor: parsed and, if it parses, analysed. On errors the
    /// previous program and its analyses stay.
    fn with_doc(mut self, doc: Doc) -> State {
        // Whatever a job was analysing is older than this text.
        self.jobs.current = None;
        if self.set_doc(doc) {
            self.parse();
        }
        self
    }

    /// `self` with `doc` in the editor, analysed in slices: parsed by the next
    /// [`Action::Advance`] ([`State::advance`]).
    fn with_doc_later(mut self, doc: Doc) -> State {
        self.jobs.current = None;
        if self.set_doc(doc) {
            self.start_job();
        }
        self
    }

    /// Starts a job on the editor's text (a newer one than any in progress).
    fn start_job(&mut self) {
        self.jobs.started += 1;
        self.jobs.current = Some(Job { id: self.jobs.started, step: JobStep::Parse });
    }

    /// Puts `doc` in the editor, its language and file name following its text; false if it
    /// is too long to read (the message is then set and the last good program stays).
    fn set_doc(&mut self, mut doc: Doc) -> bool {
        // A text the lab will not analyse is not read at all (not even to guess its
        // language): the message comes from its length, and the last good program stays.
        if let Some(failure) = too_long(&doc.file, doc.source.len()) {
            self.doc = doc;
            self.marks = Rc::new(failure.marks);
            self.error_text = Some(failure.text.into());
            return false;
        }
        if doc.lang_auto {
            if let Some(lang) = detect_lang(&doc.source) {
                doc.lang = lang;
            }
        }
        // The file name follows the text: a name whose extension says another language (a
        // SIL program pasted over `loop.bril`) gives way to `untitled.sil`.
        if !names_lang(&doc.file, doc.lang) {
            doc.file = untitled(doc.lang).into();
        }
        self.doc = doc;
        true
    }

    /// Parses the editor's text; the program, if new, replaces the last good one.
    fn parse(&mut self) {
        if let Some(program) = self.parsed() {
            self.program = Some(Rc::new(program));
            self.reanalyse();
        }
    }

    /// The editor's text parsed, if it parses to another program than the one shown; sets or
    /// clears the error marks.
    fn parsed(&mut self) -> Option<Program> {
        // The first-visit build reads Bril only; a SIL text waits for the full app.
        #[cfg(not(feature = "full"))]
        if self.doc.lang == Lang::Sil {
            (self.marks, self.error_text, self.program) = (Rc::default(), None, None);
            self.analysis = Err(crate::build::SIL_LOADING.into());
            return None;
        }
        match Program::parse(self.doc.lang, &self.doc.file, &self.doc.source) {
            Ok(program) => {
                self.marks = Rc::default();
                self.error_text = None;
                let same_text = self.program.as_ref().is_some_and(|p| **p == program);
                (!same_text).then_some(program)
            }
            Err(failure) => {
                self.marks = Rc::new(failure.marks);
                self.error_text = Some(failure.text.into());
                None
            }
        }
    }

    /// The next step of job `id`; nothing if it is not the job in progress (a newer edit
    /// replaced it). The marks of a parse error show at once; a new program and its analyses
    /// replace the shown ones together, at the last step, once the current view's pass ran.
    fn advance(mut self, id: u64) -> State {
        let Some(job) = self.jobs.current.take_if(|j| j.id == id) else { return self };
        let next = match job.step {
            JobStep::Parse => self.parsed().map(|p| JobStep::Analyse(Rc::new(p))),
            JobStep::Analyse(program) => {
                let function = pick_function(&program, self.function.as_deref());
                let analysis = self.analysis_of(&program, function.as_deref());
                Some(JobStep::Show { program, function, analysis })
            }
            JobStep::Show { program, function, analysis } => {
                if let Ok(a) = &analysis {
                    a.prepare(self.tab);
                }
                self.program = Some(program);
                self.function = function;
                self.analysis = analysis;
                self.restage();
                if let Some(staged) = self.staged.as_ref().filter(|_| self.tab == Tab::DIFF && cfg!(feature = "full")) {
                    // The before/after view shows the pipeline's run on its first paint.
                    staged.run_now();
                }
                None
            }
        };
        self.jobs.current = next.map(|step| Job { id, step });
        self
    }

    /// Recomputes the analyses of the chosen function of the current program.
    fn reanalyse(&mut self) {
        let Some(program) = &self.program else {
            self.analysis = Err("no program yet".into());
            return;
        };
        self.function = pick_function(program, self.function.as_deref());
        self.analysis = self.analysis_of(program, self.function.as_deref());
        self.restage();
        // A job in progress analyses a newer text with the old function and assumptions:
        // it starts again, with these.
        if self.jobs.current.is_some() {
            self.start_job();
        }
    }

    /// The analyses of function `name` of `program` under the user's type assumptions.
    fn analysis_of(&self, program: &Program, name: Option<&str>) -> Result<Rc<Analysis>, AttrValue> {
        match name {
            None => Err("the program has no function with a body".into()),
            Some(name) => analyse(program, name, &self.types.assume).map_err(AttrValue::from),
        }
    }

    /// The pipeline on the analysed function, again (after an edit or a new pipeline); it
    /// runs on first use.
    fn restage(&mut self) {
        // The first-visit build has no passes to stage.
        if cfg!(feature = "full") {
            self.staged = self.analysis.as_ref().ok().map(|a| Rc::new(Staged::new(a.clone(), self.pipeline.clone())));
        }
    }

    /// The stages the before/after view compares, clamped to the pipeline: `(from, to)` with
    /// `from <= to`.
    pub fn compared_stages(&self) -> (usize, usize) {
        let last = self.pipeline.len();
        let (a, b) = (self.stages.0.min(last), self.stages.1.min(last));
        (a.min(b), a.max(b))
    }

    fn set_pipeline(&mut self, p: Pipeline) {
        self.pipeline = p;
        self.stages = (0, usize::MAX);
        self.restage();
    }

    /// True while the editor's text has errors and the views show the last good program.
    pub fn is_stale(&self) -> bool {
        self.error_text.is_some() && self.program.is_some()
    }

    /// The number of steps of the view `tab` (1 for views without steps).
    pub fn step_count(&self, tab: Tab) -> usize {
        let Ok(a) = &self.analysis else { return 1 };
        a.steps(tab).map_or(1, |s| s.len()).max(1)
    }

    /// The current step of view `tab`, clamped to its steps.
    pub fn step(&self, tab: Tab) -> usize {
        self.cursors.get(&tab).copied().unwrap_or(0).min(self.step_count(tab) - 1)
    }

    /// The one-line description of the current step of the current view. In exercise mode a
    /// pass's step says what it does, not what it found, which would give the answer away.
    pub fn step_text(&self) -> String {
        let Ok(a) = &self.analysis else { return String::new() };
        let Some(steps) = a.steps(self.tab) else { return String::new() };
        let k = self.step(self.tab);
        if self.exercise && self.tab.as_pass().is_some() {
            return steps.headline(k).to_string();
        }
        // LCM's view shows one expression's table: its sentence names that table's cells.
        #[cfg(feature = "full")]
        if self.tab == Tab::pass("lcm") {
            if let Ok((out, lcm)) = crate::views::lcm::run(a) {
                if let Some(e) = crate::views::lcm::model::pick_expr(out, self.expr.as_deref()) {
                    return lcm.describe_for(out, k, e);
                }
            }
        }
        steps.describe(k).to_string()
    }

    fn set_step(&mut self, tab: Tab, k: usize) {
        let k = k.min(self.step_count(tab) - 1);
        self.cursors.insert(tab, k);
    }

    /// The value the Ownership view shows: the selected one if the function has it, else the
    /// value of the verifier's first finding, else the first value with ownership.
    pub fn ownership_value(&self) -> Option<ValueId> {
        let o = self.analysis.as_ref().ok()?.ownership.as_ref()?;
        self.value
            .as_deref()
            .and_then(|n| query::value_named(&o.fo, n))
            .or_else(|| o.verdict.findings.first().map(|f| f.value))
            .or_else(|| query::first_interesting(&o.fo))
    }

    /// The text after the teaching edit `kind` on the shown value, if it applies (never while
    /// the text has errors: the spans index the last program that parsed).
    pub fn broken(&self, kind: Break) -> Option<String> {
        if self.is_stale() {
            return None;
        }
        let a = self.analysis.as_ref().ok()?;
        let o = a.ownership.as_ref()?;
        let v = self.ownership_value()?;
        let f = &a.function;
        let mut text = self.program.as_ref()?.source.clone();
        let lo = |i: optlab_core::InstId| f.insts.get(i).map(|x| x.span.lo as usize);
        match kind {
            Break::DeleteDestroy => {
                let at = lo(query::destroy_to_delete(f, &o.fo, v)?)?;
                text.replace_range(line_range(&text, at), "");
            }
            Break::MoveEndBorrowUp => {
                let (end, user) = query::end_borrow_to_move(f, &o.fo, v)?;
                let (end_at, user_at) = (lo(end)?, lo(user)?);
                let r = line_range(&text, end_at);
                let u = line_range(&text, user_at);
                if u.start >= r.start {
                    return None;
                }
                let mut line = text[r.clone()].to_string();
                if !line.ends_with('\n') {
                    line.push('\n');
                }
                text.replace_range(r, "");
                text.insert_str(u.start, &line);
            }
        }
        Some(text)
    }

    /// The state after `action`.
    pub fn apply(&self, action: Action) -> State {
        let mut s = self.clone();
        match action {
            Action::Edit(text) => {
                if text == s.doc.source.as_str() {
                    return s;
                }
                let mut doc = Doc { example: None, from_link: false, ..s.doc.clone() };
                // A paste over (most of) the text is another program: not the old file. (The
                // comparison stops at the first difference from either end: cheap at any size.)
                if replaces(&doc.source, &text) {
                    doc.file = untitled(doc.lang).into();
                }
                doc.source = text.into();
                // A span asked for before the edit indexes the old text.
                s.reveal = None;
                return if s.sliced { s.with_doc_later(doc) } else { s.with_doc(doc) };
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
                s.function = ex.opens.function.map(String::from);
                if let Some(tab) = ex.opens.tab.and_then(Tab::from_slug) {
                    s.tab = tab;
                }
                s.cursors = Cursors::default();
                s.block = None;
                s.inst = None;
                s.expr = None;
                s.types = TypesUi::default();
                s.reveal = None;
                s.value = None;
                // Analysed again even if the text is the same: the example may open on
                // another function than the one shown.
                s.program = None;
                return s.with_doc(Doc::from_example(ex));
            }
            Action::SelectFunction(name) => {
                if s.function.as_deref() != Some(name.as_str()) {
                    s.function = Some(name);
                    s.cursors = Cursors::default();
                    s.block = None;
                    s.inst = None;
                    s.expr = None;
                    // A what-if names the function's generic parameters; another function's
                    // `T` is another parameter.
                    s.types.row = None;
                    s.value = None;
                    s.types.assume.subst.clear();
                    s.reanalyse();
                }
            }
            Action::SelectTab(tab) => s.tab = tab,
            Action::SetPipeline(p) => {
                if p != s.pipeline {
                    s.set_pipeline(p);
                }
            }
            #[cfg(not(feature = "full"))]
            Action::AddPass(_) => {}
            #[cfg(feature = "full")]
            Action::AddPass(slug) => {
                let mut text = s.pipeline.to_string();
                if !text.is_empty() {
                    text.push(',');
                }
                text.push_str(&slug);
                match Pipeline::parse(&text) {
                    Ok(p) => s.set_pipeline(p),
                    Err(why) => s.notice = Some(Notice { error: true, text: why.into() }),
                }
            }
            Action::RemovePass(k) => {
                if k < s.pipeline.len() {
                    let mut p = s.pipeline.clone();
                    p.passes.remove(k);
                    s.set_pipeline(p);
                }
            }
            Action::SelectStages(from, to) => s.stages = (from, to),
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
            Action::SelectType(t) => s.types.row = t.map(AttrValue::from),
            Action::SelectValue(v) => s.value = v.map(AttrValue::from),
            #[cfg(not(feature = "full"))]
            Action::BreakIt(_) => {}
            #[cfg(feature = "full")]
            Action::BreakIt(kind) => {
                if let Some(text) = s.broken(kind) {
                    s.app_edit = Some(text.clone().into());
                    return s.apply(Action::Edit(text));
                }
            }
            Action::SetWhatIf { param, ty } => {
                let ty = ty.map(|t| t.trim().trim_start_matches('$').trim().to_string()).filter(|t| !t.is_empty());
                let before = s.types.assume.subst.get(&param).cloned();
                if before != ty {
                    match ty {
                        Some(t) => s.types.assume.subst.insert(param, t),
                        None => s.types.assume.subst.remove(&param),
                    };
                    s.reanalyse();
                }
            }
            Action::SetResilient { name, on } => {
                let changed =
                    if on { s.types.assume.resilient.insert(name) } else { s.types.assume.resilient.remove(&name) };
                if changed {
                    s.reanalyse();
                }
            }
            Action::SetOpaqueValues(on) => {
                if s.types.assume.opaque_values != on {
                    s.types.assume.opaque_values = on;
                    s.reanalyse();
                }
            }
            Action::Reveal(span) => {
                let seq = s.reveal.map_or(1, |r| r.seq.wrapping_add(1));
                s.reveal = Some(Reveal { span, seq });
            }
            Action::InsertDecl(decl) => {
                let text = s.doc.source.to_string();
                let at = declaration_insertion_point(&text);
                let mut decl = decl.trim().to_string();
                decl.push('\n');
                // A blank line between the imports and the new declaration.
                if at > 0 {
                    decl.insert(0, '\n');
                }
                let mut next = text;
                next.insert_str(at, &decl);
                s.app_edit = Some(next.clone().into());
                return s.apply(Action::Edit(next));
            }
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
            Action::Advance(id) => return s.advance(id),
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
        let mut next = self.apply(action);
        // The page's mode and its job count outlive a state built afresh (a link opened).
        next.sliced |= self.sliced;
        next.jobs.started = next.jobs.started.max(self.jobs.started);
        Rc::new(next)
    }
}

mod link;
#[cfg(test)]
mod tests;
