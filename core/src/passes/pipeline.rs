//! Pipelines: an ordered list of registered passes run on a function, each on the previous
//! one's output (`lcm,copyprop,dce`). Stage 0 is the input; stage `k` the function after the
//! `k`-th pass. A pass that refuses (LCM on SIL) or fails leaves its input unchanged, and the
//! pipeline goes on, so every stage exists and the before/after view can compare any two.
//!
//! The first pass reads the analyses the caller built for the input (the web app's, shared
//! with its views); each later pass gets analyses of the function it receives, without the
//! dominator constructions' traces, which only the views of the input step through — the
//! previous stage's, when its pass left the control-flow graph as it was (copy propagation
//! before DCE), else fresh ones. A stage's input that the previous stage returned verified
//! is not verified again.

use super::{by_slug, run, run_checked_shared, slugs, Analyses, Options, Outcome, Pass, PassRun};
use crate::ir::{Function, Module};
use std::sync::Arc;

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
        // The analyses of the previous stage's input, handed on when its pass left the graph
        // as it was (`Analyses::for_same_graph`).
        let mut carried: Option<Analyses> = None;
        for (k, pass) in self.passes.iter().enumerate() {
            let r = if k == 0 {
                let input = f;
                let slug = pass.info().slug;
                known.iter().find(|r| r.pass.slug == slug).cloned().unwrap_or_else(|| run(*pass, input, a, opts))
            } else {
                // The previous stage's output, shared rather than copied: a pass may keep it
                // to write its step texts later (`Pass::run_shared`).
                let input = stages.last().map_or_else(|| Arc::new(f.clone()), |s| s.function.clone());
                let ak = carried
                    .take()
                    .and_then(|c| c.for_same_graph(&input))
                    .unwrap_or_else(|| Analyses::untraced(&input, a.type_env.clone()));
                // A stage that ran returned a verified function (`passes::run` checked it, or
                // the pass did); one that did not returned its input, checked no further.
                let verified = stages.last().is_some_and(|s| s.outcome == Outcome::Ran);
                let r = run_checked_shared(*pass, &input, &ak, opts, verified);
                carried = Some(ak);
                r
            };
            stages.push(r);
        }
        // Let go of the last analyses before the input is copied (the peak of a large run).
        drop(carried);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::run;
    use crate::print::{print_function, Naming};

    /// The reference: every later stage on fresh analyses, every input and output verified
    /// by `passes::run` (the pipeline before analyses were handed on and checks skipped).
    fn reference(p: &Pipeline, f: &Function, a: &Analyses, opts: &Options) -> Vec<PassRun> {
        let mut stages: Vec<PassRun> = Vec::new();
        for (k, pass) in p.passes.iter().enumerate() {
            let input = stages.last().map_or(f, |s| &*s.function);
            let r = if k == 0 { run(*pass, input, a, opts) } else { run(*pass, input, &Analyses::untraced(input, a.type_env.clone()), opts) };
            stages.push(r);
        }
        stages
    }

    fn same(got: &PipelineRun, want: &[PassRun], what: &str) {
        assert_eq!(got.stages.len(), want.len(), "{what}");
        for (k, (g, w)) in got.stages.iter().zip(want).enumerate() {
            assert_eq!(g.outcome, w.outcome, "{what} stage {k}");
            assert_eq!(g.counts, w.counts, "{what} stage {k}");
            assert_eq!(g.steps, w.steps, "{what} stage {k}");
            assert_eq!(print_function(&g.function, Naming::User), print_function(&w.function, Naming::User), "{what} stage {k}");
            assert_eq!(g.detail.trace_json(), w.detail.trace_json(), "{what} stage {k}");
        }
    }

    /// Handing analyses on and skipping repeated checks changes nothing a stage produces:
    /// functions, outcomes, counts, step texts (deferred ones included) and traces, on generated
    /// Bril and SIL and on the Bril benchmarks, for the default pipeline and for ones that
    /// repeat passes.
    #[test]
    fn a_pipeline_equals_its_stages_run_on_fresh_analyses() {
        let pipelines = ["lcm,copyprop,dce", "copyprop,dce,dce", "dce,copyprop,copyprop,lcm,dce"].map(|p| Pipeline::parse(p).expect("pipeline"));
        let opts = Options::default();
        let mut modules = Vec::new();
        for seed in 0..30u64 {
            modules.push((format!("generated {seed}"), crate::testgen::generate(seed, &crate::testgen::GenConfig::default()).module));
        }
        for (n, seed) in [(30, 1), (120, 2)] {
            for (lang, text) in [(crate::ir::Lang::Bril, crate::testgen::scale::bril_program(n, seed)), (crate::ir::Lang::Sil, crate::testgen::scale::sil_program(n, seed))] {
                modules.push((format!("scale {lang:?} {n}"), crate::parse_module(lang, "t", &text).expect("parses")));
            }
        }
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bril/benchmarks/core");
        for path in std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "bril")).take(25) {
            if let Ok(m) = crate::parse_module(crate::ir::Lang::Bril, "b.bril", &std::fs::read_to_string(&path).unwrap_or_default()) {
                modules.push((path.display().to_string(), m));
            }
        }
        let (mut compared, mut deferred) = (0, 0);
        for (what, m) in &modules {
            for f in m.bodies() {
                let a = Analyses::new(f);
                for p in &pipelines {
                    let got = p.run(f, &a, &opts);
                    // A later stage's copy propagation defers its texts (`Pass::run_shared`)
                    // until `same` reads them: they must be the ones written at once.
                    for s in got.stages.iter().skip(1).filter(|s| s.pass.slug == "copyprop" && s.outcome == Outcome::Ran) {
                        assert!(!s.steps.is_made(), "{what} @{} {p}: texts made before they were asked for", f.name);
                        deferred += 1;
                    }
                    same(&got, &reference(p, f, &a, &opts), &format!("{what} @{} {p}", f.name));
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "{compared}");
        assert!(deferred > 50, "{deferred}");
    }
}
