//! Mem2Reg behind the pass contract ([`crate::passes::Pass`]).

use super::{mem2reg, step_texts, Mem2RegError};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::steps::Steps;
use std::sync::Arc;

pub struct Mem2Reg;

pub static MEM2REG_PASS: Mem2Reg = Mem2Reg;

static INFO: PassInfo = PassInfo {
    slug: "mem2reg",
    title: "Mem2Reg",
    name: "Memory to registers (Swift's Mem2Reg; SSA construction after Cytron et al.)",
    summary: "promotes `alloc_stack` slots of trivial type whose address does not escape to SSA values: stores become values, loads read them, block arguments join them at the iterated dominance frontier where the slot is live",
    langs: &[Lang::Sil],
    refusal: "its variables are not memory; SSA construction (`ssa`) is the same algorithm on variables",
    edits_edges: false,
};

impl Pass for Mem2Reg {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    /// `mem2reg` verifies its result and its dominance, and fails otherwise.
    fn verifies_output(&self) -> bool {
        true
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        run_shared(Arc::new(f.clone()), a)
    }

    fn run_shared(&self, f: &Arc<Function>, a: &Analyses, _opts: &Options) -> PassRun {
        run_shared(f.clone(), a)
    }
}

fn run_shared(f: Arc<Function>, a: &Analyses) -> PassRun {
    let out = match mem2reg(&f, a) {
        Ok(out) => out,
        Err(e @ (Mem2RegError::NotSil { .. } | Mem2RegError::NotSsa { .. })) => return PassRun::not_run_shared(&INFO, f, Outcome::Refused(e.to_string())),
        Err(e @ Mem2RegError::Internal { .. }) => return PassRun::not_run_shared(&INFO, f, Outcome::Failed(e.to_string())),
    };
    let s = &out.stats;
    let counts = vec![
        Count::of(s.insts_before, "instruction before", "instructions before"),
        Count::of(s.insts_after, "after", "after"),
        Count::of(s.promoted, "slot promoted", "slots promoted"),
        Count::of(s.slots - s.promoted, "slot left in memory", "slots left in memory"),
        Count::of(s.args, "block argument added", "block arguments added"),
        Count::of(s.loads, "load replaced", "loads replaced"),
        Count::of(s.stores, "store removed", "stores removed"),
        Count::of(s.pruned, "dead argument pruned", "dead arguments pruned"),
        Count::of(s.undefs, "undef", "undefs"),
    ];
    let (function, trace) = (out.function.clone(), Arc::new(out.trace.clone()));
    let steps = Steps::lazy(move || step_texts(&f, &function, &trace));
    PassRun { pass: &INFO, function: out.function.clone(), outcome: Outcome::Ran, detail: Detail::Mem2Reg(Box::new(out)), counts, steps }
}
