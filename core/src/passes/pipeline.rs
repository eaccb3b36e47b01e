//! Pipelines: an ordered list of registered passes run on a function, each on the previous
//! one's output (`lcm,copyprop,dce`). Stage 0 is the input; stage `k` the function after the
//! `k`-th pass. A pass that refuses (LCM on SIL) or fails leaves its input unchanged, and the
//! pipeline goes on, so every stage exists and the before/after view can compare any two.
//!
//! The first pass reads the analyses the caller built for the input (the web app's, shared
//! with its views); each later pass gets fresh analyses of the function it receives, without
//! the dominator constructions' traces, which only the views of the input step through.

use super::{by_slug, run, slugs, Analyses, Options, Pass, PassRun};
use crate::ir::{Function, Module};

/// The pipeline the lab proposes: partial redundancy elimination, then the copies it leaves
/// propagated away, then what became dead removed.
pub const DEFAULT: &str = "lcm,copyprop,dce";

/// A parsed pipeline: the passes in order.
#[derive(Clone)]
pub struct Pipeline {
    pub passes: Vec<&'static dyn Pass>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pipeline({self})")
    }
}

impl PartialEq for Pipeline {
    fn eq(&self, other: &Pipeline) -> bool {
        self.slugs().eq(other.slugs())
    }
}

impl std::fmt::Display for Pipeline {
    /// The text form users write: `lcm,copyprop,dce`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.slugs().collect::<Vec<_>>().join(","))
    }
}

/// At most this many passes: a longer list is a typo or a link made to hurt.
pub const MAX_PASSES: usize = 32;

impl Pipeline {
    /// Parses `lcm,copyprop,dce` (spaces allowed around names). An empty list is the empty
    /// pipeline (stage 0 only).
    pub fn parse(text: &str) -> Result<Pipeline, String> {
        let mut passes = Vec::new();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let pass = by_slug(name).ok_or_else(|| format!("no pass `{name}`; the passes are {}", slugs()))?;
            passes.push(pass);
        }
        if passes.len() > MAX_PASSES {
            return Err(format!("a pipeline has at most {MAX_PASSES} passes; this one has {}", passes.len()));
        }
        Ok(Pipeline { passes })
    }

    pub fn default_pipeline() -> Pipeline {
        // The default names registered passes only; a failure here is caught by the tests.
        Pipeline::parse(DEFAULT).unwrap_or(Pipeline { passes: Vec::new() })
    }

    pub fn slugs(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.passes.iter().map(|p| p.info().slug)
    }

    pub fn len(&self) -> usize {
        self.passes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// Runs every pass on `f` in order; `a` must be the analyses of `f`.
    pub fn run(&self, f: &Function, a: &Analyses, opts: &Options) -> PipelineRun {
        self.run_reusing(f, a, opts, &[])
    }

    /// [`run`](Self::run), taking the first stage from `known` when it holds a run of the
    /// first pass on `f` with the same `a` and `opts` (the web app has every pass's run on
    /// the input already; running the first pass again would double the work of an edit).
    pub fn run_reusing(&self, f: &Function, a: &Analyses, opts: &Options, known: &[PassRun]) -> PipelineRun {
        let mut stages: Vec<PassRun> = Vec::with_capacity(self.passes.len());
        for (k, pass) in self.passes.iter().enumerate() {
            let input = stages.last().map_or(f, |s| &*s.function);
            let r = if k == 0 {
                let slug = pass.info().slug;
                known.iter().find(|r| r.pass.slug == slug).cloned().unwrap_or_else(|| run(*pass, input, a, opts))
            } else {
                run(*pass, input, &Analyses::untraced(input, a.type_env.clone()), opts)
            };
            stages.push(r);
        }
        PipelineRun { input: f.clone(), stages }
    }

    /// Runs the pipeline on every function with a body; declarations stay as they are.
    pub fn run_module(&self, m: &Module, opts: &Options) -> (Module, Vec<PipelineRun>) {
        let mut out = m.clone();
        let mut runs = Vec::new();
        let env = crate::sil::types::env_of(m);
        for f in out.functions.iter_mut().filter(|f| !f.is_declaration()) {
            let r = self.run(f, &Analyses::with_types(f, env.clone()), opts);
            *f = r.output().clone();
            runs.push(r);
        }
        (out, runs)
    }
}

/// What a pipeline did to one function.
#[derive(Clone, Debug)]
pub struct PipelineRun {
    pub input: Function,
    /// One run per pass, in order.
    pub stages: Vec<PassRun>,
}

impl PipelineRun {
    /// The number of stages, the input included (`passes + 1`).
    pub fn num_stages(&self) -> usize {
        self.stages.len() + 1
    }

    /// The function at stage `k`: 0 is the input, `k` the output of the `k`-th pass (clamped).
    pub fn function_at(&self, k: usize) -> &Function {
        match k.min(self.stages.len()) {
            0 => &self.input,
            k => &self.stages[k - 1].function,
        }
    }

    /// The name of stage `k`: `input`, or `after LCM` (`after DCE (2)` when a pass repeats).
    pub fn stage_name(&self, k: usize) -> String {
        let k = k.min(self.stages.len());
        if k == 0 {
            return "input".to_string();
        }
        let title = self.stages[k - 1].pass.title;
        let nth = self.stages[..k].iter().filter(|s| s.pass.title == title).count();
        let repeats = self.stages.iter().filter(|s| s.pass.title == title).count() > 1;
        if repeats {
            format!("after {title} ({nth})")
        } else {
            format!("after {title}")
        }
    }

    pub fn output(&self) -> &Function {
        self.function_at(self.stages.len())
    }
}
