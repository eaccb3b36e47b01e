//! Local value numbering behind the pass contract ([`crate::passes::Pass`]).

use super::{base, run, step_texts, LvnError, LvnOptions};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::steps::Steps;
use std::sync::Arc;

pub struct Lvn;

pub static LVN_PASS: Lvn = Lvn;

static INFO: PassInfo = PassInfo {
    slug: "lvn",
    title: "LVN",
    name: "Local value numbering (Cocke and Schwartz; with copy propagation, commutativity and constant folding)",
    summary: "in each block, gives every computed value a number and replaces a computation whose value is already held by a copy of the variable holding it, folding constants on the way",
    langs: &[Lang::Bril],
    refusal: "its values are in SSA form; value numbering on SIL is not built yet",
    edits_edges: false,
};

impl Pass for Lvn {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    fn run(&self, f: &Function, _a: &Analyses, _opts: &Options) -> PassRun {
        let out = match run(f, LvnOptions::default()) {
            Ok(out) => out,
            Err(e @ (LvnError::NotBril { .. } | LvnError::Unsupported { .. })) => return PassRun::not_run(&INFO, f, Outcome::Refused(e.to_string())),
        };
        let s = &out.stats;
        let counts = vec![
            Count::of(s.insts, "instruction", "instructions"),
            Count::of(s.reused, "computation reused", "computations reused"),
            Count::of(s.folded, "folded", "folded"),
            Count::of(s.copies, "copy propagated", "copies propagated"),
            Count::of(s.renamed, "destination renamed", "destinations renamed"),
        ];
        let (input, trace) = (Arc::new(f.clone()), Arc::new(out.trace.clone()));
        let steps = Steps::lazy(move || step_texts(&base(&input, &trace), &trace));
        PassRun { pass: &INFO, function: out.function.clone(), outcome: Outcome::Ran, detail: Detail::Lvn(Box::new(out)), counts, steps }
    }
}
