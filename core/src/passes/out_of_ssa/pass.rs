//! The translation out of SSA behind the pass contract ([`crate::passes::Pass`]).

use super::{base, out_of_ssa_with, step_texts, OutOfSsaError};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::steps::Steps;
use std::sync::Arc;

pub struct OutOfSsa;

pub static OUT_OF_SSA_PASS: OutOfSsa = OutOfSsa;

static INFO: PassInfo = PassInfo {
    slug: "out-of-ssa",
    title: "Out of SSA",
    name: "Out of SSA (Sreedhar et al. 1999, Method I) with coalescing of non-interfering copies",
    summary: "gives each φ a variable of its own written by copies, then merges each copy's variables where they do not interfere, so only the copies the program needs remain",
    langs: &[Lang::Bril],
    refusal: "its φs are block arguments, which the lab keeps",
    edits_edges: false,
};

impl Pass for OutOfSsa {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    fn verifies_output(&self) -> bool {
        true
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        let out = match out_of_ssa_with(f, Some(a)) {
            Ok(out) => out,
            Err(e @ (OutOfSsaError::NotBril { .. } | OutOfSsaError::Unsupported { .. })) => {
                return PassRun::not_run(&INFO, f, Outcome::Refused(e.to_string()))
            }
            Err(e @ OutOfSsaError::Internal { .. }) => return PassRun::not_run(&INFO, f, Outcome::Failed(e.to_string())),
        };
        let s = &out.stats;
        let counts = vec![
            Count::of(s.insts_before, "instruction before", "instructions before"),
            Count::of(s.insts_after, "after", "after"),
            Count::of(s.phis, "φ", "φs"),
            Count::of(s.copies, "copy made", "copies made"),
            Count::of(s.coalesced, "coalesced away", "coalesced away"),
        ];
        let (input, trace) = (Arc::new(f.clone()), Arc::new(out.trace.clone()));
        let steps = Steps::lazy(move || step_texts(&input, &base(&input, &trace), &trace));
        PassRun { pass: &INFO, function: out.function.clone(), outcome: Outcome::Ran, detail: Detail::OutOfSsa(Box::new(out)), counts, steps }
    }
}
