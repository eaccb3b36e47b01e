//! Copy propagation behind the pass contract ([`crate::passes::Pass`]).

use super::{run_verified, step_texts, steps::trace_step_texts, CopyPropError, CopyPropOutput};
use crate::ir::{Function, Lang};
use std::sync::Arc;
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::steps::Steps;

pub struct CopyProp;

pub static COPYPROP_PASS: CopyProp = CopyProp;

static INFO: PassInfo = PassInfo {
    slug: "copyprop",
    title: "Copy propagation",
    name: "Global copy propagation (available copies; Aho, Lam, Sethi, Ullman §9.1)",
    summary: "makes each use of x read y where a copy x = id y reaches it on every path, then deletes the copies left dead and recomputes those that stay where their source holds the same computation on every path",
    langs: &[Lang::Bril],
    refusal: "its values are in SSA form, so every use already names its one definition and there is no copy to propagate; removing a `copy_value` is copy elimination (the copy-elim pass)",
    edits_edges: false,
};

impl Pass for CopyProp {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    /// `run` verifies its result and fails otherwise.
    fn verifies_output(&self) -> bool {
        true
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        run_pass(f, a, |out| Steps::new(step_texts(f, out)))
    }

    /// The step texts are written when first asked for, from the input the pipeline shares
    /// and the trace: on a 10^5-block function writing them was a quarter of the pass.
    fn run_shared(&self, f: &Arc<Function>, a: &Analyses, _opts: &Options) -> PassRun {
        run_pass(f, a, |out| {
            let (f, trace) = (f.clone(), out.trace.clone());
            Steps::lazy(move || trace_step_texts(&f, &trace))
        })
    }
}

/// The pass on `f` (verified by `passes::run`), its steps made by `steps`.
fn run_pass(f: &Function, a: &Analyses, steps: impl FnOnce(&CopyPropOutput) -> Steps) -> PassRun {
    let out = match run_verified(f, &a.cfg) {
        Ok(out) => out,
        Err(e @ (CopyPropError::NotBril { .. } | CopyPropError::Malformed { .. } | CopyPropError::Speculates { .. })) => {
            return PassRun::not_run(&INFO, f, Outcome::Refused(e.to_string()))
        }
        Err(e @ CopyPropError::Internal { .. }) => return PassRun::not_run(&INFO, f, Outcome::Failed(e.to_string())),
    };
    let s = &out.stats;
    let counts = vec![
        Count::of(s.insts_before, "instruction before", "instructions before"),
        Count::of(s.insts_after, "after", "after"),
        Count::of(s.rewrites, "operand rewritten", "operands rewritten"),
        Count::of(s.deleted, "copy deleted", "copies deleted"),
        Count::of(s.rematerialized, "copy recomputed", "copies recomputed"),
    ];
    let steps = steps(&out);
    PassRun { pass: &INFO, function: out.function.clone(), outcome: Outcome::Ran, detail: Detail::CopyProp(Box::new(out)), counts, steps }
}
