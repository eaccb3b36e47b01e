//! The program in the editor, parsed, and everything the views show about one of its
//! functions — computed at most once per edit, so stepping and selecting never re-run an
//! analysis.
//!
//! What every view needs (the CFG, both dominator trees, the CFG's drawing, the steps of the
//! analyses' views) is built with the [`Analysis`]; each pass's run and the pipeline are built
//! on first use, so the page can compute the current view's pass first, show it, and run the
//! others afterwards in their own tasks (see `crate::state::Job`).
//!
//! All of it comes from optlab-core's public API; the views only read it.

use crate::cfg_graph::{cfg_graph, CfgGraph};
use crate::tabs::Tab;
use optlab_core::dom::{lt_steps, DomKind};
use optlab_core::passes::pipeline::{Pipeline, PipelineRun};
use optlab_core::passes::{self, PassRun};
use optlab_core::sil::ownership::{self, FunctionOwnership, Verdict};
use optlab_core::sil::types::{Assumptions, Decls, TypeEnv};
use optlab_core::steps::Steps;
use optlab_core::{Function, Lang, Module, SourceFile};
use std::cell::OnceCell;
use std::rc::Rc;
use std::sync::Arc;

/// Above this many bytes the editor's text is not analysed at all: the message says so and
/// the text stays in the editor (and in the autosave).
pub const MAX_SOURCE_BYTES: usize = 4 << 20;
/// Above this many blocks a function is not analysed (its graph could not be drawn usefully
/// and the traces would be enormous); the function picker still lists it.
pub const MAX_BLOCKS: usize = 5_000;

/// A parse error, 1-based, for the editor's markers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorMark {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Why the text could not be analysed: the marks for the editor and the rendered
/// `file:line:col: error: …` text with the source line and a caret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseFailure {
    pub marks: Vec<ErrorMark>,
    pub text: String,
}

/// A parsed program: what the last text without errors was.
#[derive(Debug)]
pub struct Program {
    pub lang: Lang,
    pub file: String,
    pub source: String,
    pub module: Module,
    /// The Swift declarations the file carries (`struct`, `class`, `enum`, …), read once per
    /// parse: the type classification of every function reads them.
    pub decls: Decls,
}

impl PartialEq for Program {
    fn eq(&self, other: &Program) -> bool {
        self.lang == other.lang && self.file == other.file && self.source == other.source
    }
}

/// The failure for a text of `len` bytes if it is too long to analyse: decided from the
/// length alone, before anything reads the text.
pub fn too_long(file: &str, len: usize) -> Option<ParseFailure> {
    if len <= MAX_SOURCE_BYTES {
        return None;
    }
    let message =
        format!("the program is {} KiB; the lab analyses programs up to {} KiB", len >> 10, MAX_SOURCE_BYTES >> 10);
    Some(ParseFailure {
        marks: vec![ErrorMark { line: 1, col: 1, message: message.clone() }],
        text: format!("{file}:1:1: error: {message}"),
    })
}

impl Program {
    pub fn parse(lang: Lang, file: &str, source: &str) -> Result<Program, ParseFailure> {
        if let Some(failure) = too_long(file, source.len()) {
            return Err(failure);
        }
        match crate::build::parse_module(lang, file, source) {
            Ok(module) => {
                let decls = crate::build::decls_of(&module);
                Ok(Program { lang, file: file.to_string(), source: source.to_string(), module, decls })
            }
            Err(diags) => {
                let sf = SourceFile::new(file, source);
                let marks: Vec<ErrorMark> = diags
                    .iter()
                    .map(|d| {
                        let lc = sf.line_col(d.span.lo);
                        ErrorMark { line: lc.line, col: lc.col, message: d.message.clone() }
                    })
                    .collect();
                let mut text = diags.render(&sf);
                if text.is_empty() {
                    text = format!("{file}: could not parse");
                }
                Err(ParseFailure { marks, text })
            }
        }
    }

    /// The names of the functions with a body, in source order (what the picker lists).
    pub fn function_names(&self) -> Vec<String> {
        self.module.bodies().map(|f| f.name.clone()).collect()
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.module.bodies().find(|f| f.name == name)
    }

    /// The type environment of the program: its declarations plus the user's assumptions
    /// (what-if substitutions, types marked resilient, opaque values).
    pub fn type_env(&self, assume: &Assumptions) -> Arc<TypeEnv> {
        Arc::new(TypeEnv { decls: self.decls.clone(), assume: assume.clone() })
    }
}

/// Everything the views show about one function.
pub struct Analysis {
    pub function: Function,
    /// Core's analyses, built once and shared by every pass and view (the views read them
    /// through `Deref`: `a.cfg`, `a.dom`, `a.pdom_events`, `a.frontiers`, `a.cdg`).
    pub shared: passes::Analyses,
    /// The CFG drawing (laid out once; every view decorates the same layout).
    pub cfg_graph: CfgGraph,
    /// Every registered pass run alone on the function, in registry order: each on first use
    /// ([`Analysis::run`]).
    runs: Vec<OnceCell<PassRun>>,
    /// Lengauer–Tarjan's steps, for the dominator and post-dominator views.
    pub dom_steps: Steps,
    pub pdom_steps: Steps,
    /// Core's ownership analysis and verifier (SIL only; `None` for Bril).
    pub ownership: Option<Ownership>,
}

/// The ownership of a SIL function and the verifier's verdict on it, with the verdict's walk
/// as the Ownership view's steps.
pub struct Ownership {
    pub fo: Arc<FunctionOwnership>,
    pub verdict: Verdict,
    pub steps: Steps,
}

impl std::ops::Deref for Analysis {
    type Target = passes::Analyses;
    fn deref(&self) -> &passes::Analyses {
        &self.shared
    }
}

impl std::fmt::Debug for Analysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Analysis(@{})", self.function.name)
    }
}

impl PartialEq for Analysis {
    /// Analyses are derived data: two of the same function text are the same.
    fn eq(&self, other: &Analysis) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Analysis {
    /// Analyses `f` against the type environment `env` (its module's declarations and the
    /// user's assumptions, so DCE's "is this trivial?" reads them too), or says why it will
    /// not (too big).
    pub fn new(f: &Function, env: Arc<TypeEnv>) -> Result<Analysis, String> {
        if f.layout.len() > MAX_BLOCKS {
            return Err(format!(
                "@{} has {} blocks; the lab analyses functions of up to {MAX_BLOCKS} blocks",
                f.name,
                f.layout.len()
            ));
        }
        let shared = passes::Analyses::with_types(f, env);
        let runs = crate::build::registered_passes().iter().map(|_| OnceCell::new()).collect();
        #[cfg(feature = "full")]
        let (dom_steps, pdom_steps) = (
            lt_steps(f, &shared.dom_events, DomKind::Dominators),
            lt_steps(f, &shared.pdom_events, DomKind::PostDominators),
        );
        // The first-visit build has no dominator views to step.
        #[cfg(not(feature = "full"))]
        let (dom_steps, pdom_steps) = (Steps::new(Vec::new()), Steps::new(Vec::new()));
        let mut graph = cfg_graph(f);
        #[cfg(feature = "full")]
        crate::type_tips::line_tips(&mut graph, f, shared.types(f));
        // The analyses' own, which DCE's sweep reads too (none for Bril; the first-visit
        // build has no ownership view).
        let ownership = cfg!(feature = "full").then(|| shared.ownership(f).cloned()).flatten().map(|fo| {
            let verdict = ownership::verify(f, &fo);
            let steps = Steps::new(verdict.steps.clone());
            Ownership { fo, verdict, steps }
        });
        Ok(Analysis { function: f.clone(), shared, cfg_graph: graph, runs, dom_steps, pdom_steps, ownership })
    }

    /// The run of the registered pass `slug` on the function (run now if this is its first use).
    pub fn run(&self, slug: &str) -> Option<&PassRun> {
        let k = crate::build::registered_passes().iter().position(|p| p.info().slug == slug)?;
        Some(self.run_at(k))
    }

    /// The run of the `k`-th registered pass (`k` < the registry's length).
    fn run_at(&self, k: usize) -> &PassRun {
        self.runs[k].get_or_init(|| passes::run(crate::build::registered_passes()[k], &self.function, &self.shared, &passes::Options::default()))
    }

    /// Runs the first registered pass not run yet; false when every one has run. The page
    /// calls it in a task of its own per pass, after the current view is shown.
    pub fn run_next_pass(&self) -> bool {
        match self.runs.iter().position(|r| r.get().is_none()) {
            Some(k) => {
                self.run_at(k);
                true
            }
            None => false,
        }
    }

    /// Computes what the view `tab` shows on its first paint: its pass's run (the analyses'
    /// views need nothing more than [`Analysis::new`] built).
    pub fn prepare(&self, tab: Tab) {
        if let Some(p) = tab.as_pass() {
            self.run(p.info().slug);
        }
    }

    /// The steps of the view `tab` (`None` for a view that does not step).
    pub fn steps(&self, tab: Tab) -> Option<&Steps> {
        match tab {
            Tab::DOM => Some(&self.dom_steps),
            Tab::PDOM => Some(&self.pdom_steps),
            Tab::OWNERSHIP => self.ownership.as_ref().map(|o| &o.steps).filter(|s| !s.is_empty()),
            t => t.as_pass().and_then(|p| self.run(p.info().slug)).map(|r| &r.steps),
        }
    }

    /// `pipeline` on the function, now; its first stage is the pass's run above.
    pub fn run_pipeline(&self, pipeline: &Pipeline) -> PipelineRun {
        let first = pipeline.passes.first().and_then(|p| self.run(p.info().slug));
        pipeline.run_reusing(&self.function, &self.shared, &passes::Options::default(), first.map(std::slice::from_ref).unwrap_or_default())
    }
}

/// A pipeline's run on an analysed function, held by the state and run on first use (the
/// before/after view), or a stage at a time ([`Staged::run_stage`], the page's background
/// tasks); compared by identity like [`Analysis`].
pub struct Staged {
    analysis: Rc<Analysis>,
    pipeline: Pipeline,
    /// The stages run so far, in order (until the whole run is built).
    ran: std::cell::RefCell<Vec<PassRun>>,
    run: OnceCell<PipelineRun>,
}

impl Staged {
    pub fn new(analysis: Rc<Analysis>, pipeline: Pipeline) -> Staged {
        Staged { analysis, pipeline, ran: Default::default(), run: OnceCell::new() }
    }

    /// Runs the next stage of the pipeline; false when every stage has run. Its first stage
    /// is the pass's run of the [`Analysis`]; each later one runs on the previous output, with
    /// that output's analyses — as `Pipeline::run_reusing` does.
    pub fn run_stage(&self) -> bool {
        if self.run.get().is_some() {
            return false;
        }
        let mut stages = self.ran.borrow_mut();
        let k = stages.len();
        let Some(pass) = self.pipeline.passes.get(k) else { return false };
        let a = &self.analysis;
        let opts = passes::Options::default();
        let r = match stages.last() {
            None => a.run(pass.info().slug).cloned().unwrap_or_else(|| passes::run(*pass, &a.function, &a.shared, &opts)),
            Some(prev) => {
                let input = &prev.function;
                passes::run(*pass, input, &passes::Analyses::with_types(input, a.shared.type_env.clone()), &opts)
            }
        };
        stages.push(r);
        true
    }

    /// Runs the pipeline now (the stages not run yet), if it has not run.
    pub fn run_now(&self) -> &PipelineRun {
        self.run.get_or_init(|| {
            while self.run_stage() {}
            PipelineRun { input: self.analysis.function.clone(), stages: self.ran.take() }
        })
    }
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Staged({} on @{})", self.pipeline, self.analysis.function.name)
    }
}

impl PartialEq for Staged {
    fn eq(&self, other: &Staged) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::ops::Deref for Staged {
    type Target = PipelineRun;
    fn deref(&self) -> &PipelineRun {
        self.run_now()
    }
}

/// Picks the function to show: `wanted` if the program has it, else the first with a body
/// (`main` for most Bril programs).
pub fn pick_function(program: &Program, wanted: Option<&str>) -> Option<String> {
    let names = program.function_names();
    if let Some(w) = wanted {
        if names.iter().any(|n| n == w) {
            return Some(w.to_string());
        }
    }
    names.into_iter().next()
}

/// Analyses the chosen function of `program` under the user's type assumptions, shared
/// (views hold it by `Rc`).
pub fn analyse(program: &Program, name: &str, assume: &Assumptions) -> Result<Rc<Analysis>, String> {
    let f = program.function(name).ok_or_else(|| format!("no function @{name}"))?;
    Analysis::new(f, program.type_env(assume)).map(Rc::new)
}
