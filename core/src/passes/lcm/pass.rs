//! Lazy Code Motion behind the pass contract ([`crate::passes::Pass`]).

use super::{run_verified, Edit, LcmError, Options as LcmOptions, Step};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};

pub struct Lcm;

pub static LCM_PASS: Lcm = Lcm;

static INFO: PassInfo = PassInfo {
    slug: "lcm",
    title: "LCM",
    name: "Lazy Code Motion (Knoop, Rüthing, Steffen)",
    summary: "partial redundancy elimination: computes each expression as late as possible where it is needed on every path",
    langs: &[Lang::Bril, Lang::Sil],
    refusal: "",
    edits_edges: true,
};

impl Pass for Lcm {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    /// `run_function` verifies its result (and its SSA form on SIL) and fails otherwise.
    fn verifies_output(&self) -> bool {
        true
    }

    fn run(&self, f: &Function, _a: &Analyses, opts: &Options) -> PassRun {
        // LCM works on its own graph (critical edges split), not on the shared analyses;
        // `passes::run` verified `f`.
        let out = match run_verified(f, &LcmOptions { commute: opts.commute }) {
            Ok(out) => out,
            Err(e @ (LcmError::Unsupported { .. } | LcmError::Malformed { .. } | LcmError::UnknownExpr { .. })) => {
                return PassRun::not_run(&INFO, f, Outcome::Refused(e.to_string()))
            }
            Err(e @ LcmError::Internal { .. }) => return PassRun::not_run(&INFO, f, Outcome::Failed(e.to_string())),
        };
        let (mut inserted, mut deleted) = (0, 0);
        for step in &out.trace.steps {
            if let Step::Transform { edits, .. } = step {
                inserted += edits.iter().filter(|e| matches!(e, Edit::Insert { .. })).count();
                deleted += edits.iter().filter(|e| matches!(e, Edit::Delete { .. })).count();
            }
        }
        let counts = vec![
            Count::of(out.exprs.len(), "candidate expression", "candidate expressions"),
            Count::of(out.moved().len(), "moved", "moved"),
            Count::of(inserted, "computation inserted", "computations inserted"),
            Count::of(deleted, "deleted", "deleted"),
        ];
        // The texts are written when first asked for; the view's copy and the run's share them.
        let out = std::sync::Arc::new(out);
        let lcm_steps = super::LcmSteps::deferred(&out);
        let steps = lcm_steps.texts().clone();
        PassRun { pass: &INFO, function: out.result.clone(), outcome: Outcome::Ran, detail: Detail::Lcm { out, steps: Box::new(lcm_steps) }, counts, steps }
    }
}
