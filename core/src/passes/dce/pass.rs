//! DCE behind the pass contract ([`crate::passes::Pass`]).

use super::{run_with, DceResult};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::steps::Steps;
use std::sync::Arc;

pub struct Dce;

pub static DCE_PASS: Dce = Dce;

static INFO: PassInfo = PassInfo {
    slug: "dce",
    title: "DCE",
    name: "Aggressive dead code elimination (Swift's DCE, after Cytron et al.)",
    summary: "marks live what has side effects and what live code uses or is control dependent on; deletes the rest",
    langs: &[Lang::Sil, Lang::Bril],
    refusal: "",
    edits_edges: true,
};

impl Pass for Dce {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        run_pass(f, a, |r| super::steps(f, r))
    }

    /// The step texts are written when first asked for, from the input the pipeline shares
    /// and the run (both behind `Arc`s): on a 10^5-block function writing them was a fifth
    /// of the pass, and a pipeline's view reads few stages' steps.
    fn run_shared(&self, f: &Arc<Function>, a: &Analyses, _opts: &Options) -> PassRun {
        run_pass(f, a, |r| super::steps::lazy_steps(f.clone(), r.clone()))
    }
}

/// DCE on `f`, its steps made by `steps` from the run.
fn run_pass(f: &Function, a: &Analyses, steps: impl FnOnce(&Arc<DceResult>) -> Steps) -> PassRun {
    let r: Arc<DceResult> = Arc::new(run_with(f, Some(a)));
    let outcome = match &r.trace.skipped {
        None => Outcome::Ran,
        Some(why) => Outcome::Failed(why.clone()),
    };
    let s = &r.stats;
    let counts = vec![
        Count::of(s.insts_before, "instruction before", "instructions before"),
        Count::of(s.insts_after, "after", "after"),
        Count::of(s.insts_removed, "removed", "removed"),
        Count::of(s.branches_rewritten, "branch rewritten", "branches rewritten"),
        Count::of(s.blocks_removed, "block removed", "blocks removed"),
        Count::of(s.undefs, "undef argument", "undef arguments"),
    ];
    let steps = steps(&r);
    PassRun { pass: &INFO, function: r.function.clone(), outcome, detail: Detail::Dce(r), counts, steps }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;
    use crate::passes::{run, run_checked_shared};

    /// Generated Bril and SIL, the scale generators' programs, and the corpus's Bril
    /// benchmarks and SIL files: every function with a body, with a name saying where it
    /// came from.
    fn functions() -> Vec<(String, Function)> {
        let mut modules = Vec::new();
        for seed in 0..40u64 {
            modules.push((format!("generated {seed}"), crate::testgen::generate(seed, &crate::testgen::GenConfig::default()).module));
        }
        for (n, seed) in [(30, 1), (200, 2)] {
            for (lang, text) in [(Lang::Bril, crate::testgen::scale::bril_program(n, seed)), (Lang::Sil, crate::testgen::scale::sil_program(n, seed))] {
                modules.push((format!("scale {lang:?} {n}"), crate::parse_module(lang, "t", &text).expect("parses")));
            }
        }
        let corpus = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        for (lang, dir, ext) in [(Lang::Bril, "bril/benchmarks/core", "bril"), (Lang::Sil, "swift", "sil")] {
            let mut paths: Vec<_> = crate::testgen::files_under(&corpus.join(dir)).into_iter().filter(|p| p.extension().is_some_and(|x| x == ext)).collect();
            paths.sort();
            for path in paths.into_iter().take(40) {
                if let Ok(m) = crate::parse_module(lang, "c", &std::fs::read_to_string(&path).unwrap_or_default()) {
                    modules.push((path.display().to_string(), m));
                }
            }
        }
        modules.into_iter().flat_map(|(what, m)| m.bodies().map(|f| (format!("{what} @{}", f.name), f.clone())).collect::<Vec<_>>()).collect()
    }

    /// A run on a shared input defers its step texts until they are read, and they are then
    /// the texts the eager run writes; the rest of the run is the same too.
    #[test]
    fn shared_runs_defer_the_step_texts_and_write_the_eager_ones() {
        let (mut ran, mut langs) = (0, [0usize; 2]);
        for (what, f) in functions() {
            let a = Analyses::new(&f);
            let eager = run(&DCE_PASS, &f, &a, &Options::default());
            let shared = Arc::new(f.clone());
            let lazy = run_checked_shared(&DCE_PASS, &shared, &a, &Options::default(), false);
            if eager.outcome != Outcome::Ran {
                continue;
            }
            assert!(!lazy.steps.is_made(), "{what}: texts made before they were asked for");
            assert_eq!(lazy.outcome, eager.outcome, "{what}");
            assert_eq!(lazy.counts, eager.counts, "{what}");
            assert_eq!(lazy.detail.trace_json(), eager.detail.trace_json(), "{what}");
            assert_eq!(lazy.steps.texts(), eager.steps.texts(), "{what}");
            assert!(lazy.steps.is_made());
            assert!(eager.steps.len() > 1, "{what}: a run that ran has events");
            ran += 1;
            langs[usize::from(f.lang == Lang::Sil)] += 1;
        }
        assert!(ran > 150 && langs[0] > 50 && langs[1] > 50, "{ran} runs compared, {langs:?} Bril/SIL");
    }
}
