//! DCE behind the pass contract ([`crate::passes::Pass`]).

use super::{run_with, DceResult};
use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};

pub struct Dce;

pub static DCE_PASS: Dce = Dce;

static INFO: PassInfo = PassInfo {
    slug: "dce",
    title: "DCE",
    name: "Aggressive dead code elimination (Swift's DCE, after Cytron et al.)",
    summary: "marks live what has side effects and what live code uses or is control dependent on; deletes the rest",
    langs: &[Lang::Sil, Lang::Bril],
    refusal: "",
};

impl Pass for Dce {
    fn info(&self) -> &'static PassInfo {
        &INFO
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        let r: DceResult = run_with(f, Some(a));
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
        let steps = super::steps(f, &r);
        PassRun { pass: &INFO, function: r.function.clone(), outcome, detail: Detail::Dce(Box::new(r)), counts, steps }
    }
}
