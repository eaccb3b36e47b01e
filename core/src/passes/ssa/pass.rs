//! SSA construction behind the pass contract ([`crate::passes::Pass`]).

use super::{into_ssa_with, step_texts, Form, SsaError};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::steps::Steps;
use std::sync::Arc;

pub struct IntoSsa;

pub static INTO_SSA_PASS: IntoSsa = IntoSsa;

static INFO: PassInfo = PassInfo {
    slug: "ssa",
    title: "Into SSA",
    name: "SSA construction (Cytron, Ferrante, Rosen, Wegman, Zadeck 1991), pruned by liveness",
    summary: "places φs at the iterated dominance frontier of each variable's assignments where the variable is live, then renames along the dominator tree so each variable is assigned once",
    langs: &[Lang::Bril],
    refusal: "its values are already in SSA form (block arguments are its φs)",
    edits_edges: false,
};

impl Pass for IntoSsa {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    /// `into_ssa` verifies its result and its SSA form, and fails otherwise.
    fn verifies_output(&self) -> bool {
        true
    }

    fn run(&self, f: &Function, a: &Analyses, opts: &Options) -> PassRun {
        // `passes::run` verified `f`; a function that needs an entry block of its own gets its
        // own analyses.
        let form = if opts.phi_form { Form::Phi } else { Form::SetGet };
        let out = match into_ssa_with(f, form, Some(a)) {
            Ok(out) => out,
            Err(e @ (SsaError::NotBril { .. } | SsaError::Unsupported { .. })) => {
                return PassRun::not_run(&INFO, f, Outcome::Refused(e.to_string()))
            }
            Err(e @ SsaError::Internal { .. }) => return PassRun::not_run(&INFO, f, Outcome::Failed(e.to_string())),
        };
        let s = &out.stats;
        let counts = vec![
            Count::of(s.insts_before, "instruction before", "instructions before"),
            Count::of(s.insts_after, "after", "after"),
            Count::of(s.phis, "φ", "φs"),
            Count::of(s.renamed, "variable renamed", "variables renamed"),
            Count::of(s.pruned, "dead φ pruned", "dead φs pruned"),
            Count::of(s.undefs, "undef", "undefs"),
        ];
        let (start, function, trace) = (out.start.clone(), out.function.clone(), Arc::new(out.trace.clone()));
        let steps = Steps::lazy(move || step_texts(&start, &function, &trace));
        PassRun { pass: &INFO, function: out.function.clone(), outcome: Outcome::Ran, detail: Detail::IntoSsa(Box::new(out)), counts, steps }
    }
}
