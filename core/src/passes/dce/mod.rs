//! Aggressive dead code elimination (ADCE) on SIL and Bril, with a why-live trace.
//!
//! The specification is seed 000 ("Swiftの中間言語SILを読む その5 - Dead Code Elimination"):
//! mark live what returns or may have side effects, what a live statement uses, and the
//! branches live code is control dependent on; delete the rest; turn dead conditional
//! branches into jumps to the nearest live post-dominator; pass `undef` to dead block
//! arguments; never delete infinite loops. The reference implementation is Swift's
//! `lib/SILOptimizer/Transforms/DeadCodeElimination.cpp` (`seemsUseful`, `markLive`,
//! `propagateLiveness`, `removeDead`), whose test files `dead_code_elimination*.sil` this
//! pass is checked against with LLVM's FileCheck (`core/tests/dce_filecheck.rs`).
//!
//! Differences from Swift, each chosen for the lab:
//! - control dependence comes from the post-dominator tree and its frontier
//!   ([`crate::dom::ControlDeps`]) rather than Swift's Roman-chariots shortcut; the same
//!   relation, computed the textbook way the seed walks through;
//! - Swift gives up on a function whose post-dominator tree misses blocks (infinite loops);
//!   here the post-dominator tree covers every block (LLVM's rule, [`crate::dom::exit`]) and a
//!   dead branch with no live post-dominator is kept, with its condition
//!   ([`RootKind::NoLivePostDominator`]) — so `dead3` and `deal_with_infinite_loop` keep
//!   their loops;
//! - dead block parameters stay (as in non-OSSA Swift) and every edge into them passes
//!   `undef`; in OSSA, dead parameters with ownership get Swift's repairs (a `destroy_value`
//!   for an owned non-phi, erasure of a dead phi with the incoming values' lifetimes ended),
//!   and a deleted instruction that consumed a live owned value leaves a `destroy_value`
//!   (`destroy_addr` for a `load [take]`) — but borrow scopes across reborrows are not
//!   modelled (the OSSA test functions this leaves failing are listed with reasons in
//!   `core/tests/dce_filecheck.rs`);
//! - Bril is not SSA: an operand's definitions are all the assignments that reach it
//!   ([`ReachingDefs`], on the core's dataflow engine).
//!
//! Like every ADCE (and Swift's), the pass assumes that a loop that *can* exit does: a loop
//! whose exit test nothing live depends on is removed even if, at run time, it would spin
//! forever. Only loops with no path to an exit at all are kept. It also removes dead
//! instructions that could trap (a Bril `div` by zero), as Swift and LLVM do.
//!
//! The lab steps through a run with [`steps()`] (step `k` described in one sentence, see
//! [`words`]) and [`replay_to`] (the function as it is at step `k`), both read off the trace.

mod classify;
mod explain;
mod mark;
mod ossa;
mod pass;
mod steps;
mod sweep;
mod trace;
pub mod words;

pub use explain::{explain, inst_text, locate, summarize};
pub use pass::{Dce, DCE_PASS};
pub use steps::steps;
pub use trace::{apply_event, replay, replay_to, try_replay, EndKind, Event, Node, Phase, Reason, ReplayError, RootKind, Slot, Trace};

use crate::entity::{EntityRef, EntitySet};
use crate::ir::{Function, Module};
use crate::passes::Analyses;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Counts for the CLI and the UI's summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Placed instructions before and after.
    pub insts_before: usize,
    pub insts_after: usize,
    /// Original instructions no longer in the function (deleted, replaced branches, and those
    /// of removed blocks).
    pub insts_removed: usize,
    pub live_insts: usize,
    pub live_args: usize,
    pub branches_rewritten: usize,
    pub undefs: usize,
    pub blocks_removed: usize,
}

/// The pass's output for one function.
#[derive(Clone, Debug, PartialEq)]
pub struct DceResult {
    /// The function after the sweep (shared with the pass's [`crate::passes::PassRun`]).
    pub function: Arc<Function>,
    pub trace: Trace,
    pub stats: Stats,
}

/// Runs ADCE on a copy of `f`, building the analyses it needs. Never panics: a function that
/// fails [`crate::ir::verify`] is returned unchanged with `trace.skipped` saying why.
pub fn run(f: &Function) -> DceResult {
    if f.is_declaration() || crate::ir::verify(f).is_err() {
        return run_with(f, None);
    }
    run_with(f, Some(&Analyses::new(f)))
}

/// [`run`] with the shared analyses of `f`: `Some` only for a function that verifies (every
/// caller verified it before building them, as [`crate::passes::run`] does), `None` when it
/// does not, so none could be built. The input is therefore verified only when there are no
/// analyses: verifying it again was a sixth of the pass's time on a 10^5-block function
/// (issue 17). The output is always verified: an edit that breaks the function is a bug,
/// reported in `trace.skipped` with the original returned, never a silently wrong program.
pub fn run_with(f: &Function, a: Option<&Analyses>) -> DceResult {
    if f.is_declaration() {
        let trace = Trace { function: f.name.clone(), ..Trace::default() };
        let stats = Stats::default();
        return DceResult { function: Arc::new(f.clone()), trace, stats };
    }
    let first_error = |errs: crate::Diagnostics| {
        errs.iter().next().map_or_else(|| "the function is malformed".to_string(), |d| d.message.clone())
    };
    let skip = |why: String| {
        let trace = Trace { function: f.name.clone(), events: Vec::new(), skipped: Some(why) };
        // Not `placed_insts`: the layout may name blocks that do not exist.
        let n = f.layout.iter().filter_map(|&b| f.blocks.get(b)).map(|b| b.all_insts().count()).sum();
        let stats = Stats { insts_before: n, insts_after: n, ..Stats::default() };
        DceResult { function: Arc::new(f.clone()), trace, stats }
    };
    if f.has_phis() {
        return skip("it uses `phi`, whose labels name the blocks control comes from, and DCE may retarget branches: translate it out of SSA first (or write its φs as `set`/`get`)".into());
    }
    let Some(a) = a else {
        let why = match crate::ir::verify(f) {
            Err(errs) => first_error(errs),
            Ok(()) => "no analyses were built for the function".into(),
        };
        return skip(why);
    };
    // Marking reads the input, which is what the copy would hold; knowing what is live
    // first, the copy is made with room for the branches the sweep will add.
    let mut events = Vec::new();
    let live = mark::mark(f, a, &mut events);
    let mut g = f.clone_with_room(sweep::rewrites(f, a, &live), 0);
    let (mut trace, stats) = finish(&mut g, a, live, events);
    if trace.skipped.is_none() {
        if let Err(errs) = crate::ir::verify(&g) {
            trace.skipped = Some(format!("internal error: the result does not verify ({})", first_error(errs)));
        }
    }
    if trace.skipped.is_some() {
        g = f.clone();
    }
    crate::passes::shrink(&mut g);
    DceResult { function: Arc::new(g), trace, stats }
}

/// The pass proper: marks, then sweeps `f` in place. `a` must have been computed from `f` as
/// it is now. If an edit cannot be applied (a bug, reported in `trace.skipped`), `f` may be
/// partly edited; [`run`] then returns the original instead.
pub fn eliminate(f: &mut Function, a: &Analyses) -> (Trace, Stats) {
    let mut events = Vec::new();
    let live = mark::mark(f, a, &mut events);
    finish(f, a, live, events)
}

/// The sweep and the counts, after marking `f` (or an identical copy of it) into `live` and
/// `events`.
fn finish(f: &mut Function, a: &Analyses, live: mark::Liveness, mut events: Vec<Event>) -> (Trace, Stats) {
    // Counted, not listed: the sweep places no instruction of the input that was not placed
    // (what it adds is new), so the input's instructions still placed afterwards are those
    // below `original` in `after`.
    let original = f.insts.len();
    let before = f.placed_insts().count();
    let skipped = sweep::sweep(f, a, &live, &mut events).err().map(|e| e.to_string());

    let mut after = EntitySet::new_empty(f.insts.len());
    for (_, i) in f.placed_insts() {
        after.insert(i);
    }
    let count = |pred: fn(&Event) -> bool| events.iter().filter(|e| pred(e)).count();
    let stats = Stats {
        insts_before: before,
        insts_after: after.count(),
        insts_removed: before - after.iter().filter(|i| i.index() < original).count(),
        live_insts: live.insts.count(),
        live_args: live.args.count(),
        branches_rewritten: count(|e| matches!(e, Event::RewriteBranch { .. })),
        undefs: count(|e| matches!(e, Event::Undef { .. })),
        blocks_removed: count(|e| matches!(e, Event::RemoveBlock { .. })),
    };
    (Trace { function: f.name.clone(), events, skipped }, stats)
}

/// ADCE on every function of a module.
#[derive(Clone, Debug)]
pub struct ModuleResult {
    pub module: Module,
    /// One per function, in module order (declarations included, with empty traces).
    pub results: Vec<DceResult>,
}

impl ModuleResult {
    /// All traces as one JSON array (`optlab dce FILE --trace json`).
    pub fn traces_json(&self) -> String {
        let traces: Vec<&Trace> = self.results.iter().map(|r| &r.trace).collect();
        serde_json::to_string_pretty(&traces).unwrap_or_else(|_| "[]".to_string())
    }

    /// The summed counts of all functions.
    pub fn total(&self) -> Stats {
        let mut t = Stats::default();
        for r in &self.results {
            let s = &r.stats;
            t.insts_before += s.insts_before;
            t.insts_after += s.insts_after;
            t.insts_removed += s.insts_removed;
            t.live_insts += s.live_insts;
            t.live_args += s.live_args;
            t.branches_rewritten += s.branches_rewritten;
            t.undefs += s.undefs;
            t.blocks_removed += s.blocks_removed;
        }
        t
    }
}

impl ModuleResult {
    /// `optlab dce FILE --explain SPEC`: the reasons for one instruction of the original
    /// module `m` (the one this result was computed from). `SPEC` is `BLOCK:INDEX` (in the
    /// only function, or the first function that has that block) or `FUNCTION:BLOCK:INDEX`
    /// (`@` optional); INDEX counts the block's instructions from 0, terminator last.
    pub fn explain(&self, m: &Module, spec: &str) -> Result<Vec<String>, String> {
        let parts: Vec<&str> = spec.split(':').collect();
        let (func, local) = match parts.len() {
            2 => (None, spec.to_string()),
            3 => (Some(parts[0].trim_start_matches('@')), format!("{}:{}", parts[1], parts[2])),
            _ => return Err(format!("`{spec}` is not BLOCK:INDEX or FUNCTION:BLOCK:INDEX")),
        };
        for (f, r) in m.functions.iter().zip(&self.results) {
            if func.is_some_and(|n| n != f.name) {
                continue;
            }
            if let Some(i) = locate(f, &local) {
                return Ok(explain(f, &r.trace, i));
            }
        }
        Err(match func {
            Some(n) => format!("no instruction `{local}` in a function `{n}`"),
            None => format!("no function has an instruction `{local}`"),
        })
    }
}

/// Runs ADCE on each function of `m`; the returned module prints like the input with every
/// body optimized.
pub fn run_module(m: &Module) -> ModuleResult {
    // The module's declarations decide which types are trivial (a `fix_lifetime` of a struct
    // of integers is removable only if the struct is known to hold nothing else).
    let env = crate::sil::types::env_of(m);
    let results: Vec<DceResult> = m
        .functions
        .iter()
        .map(|f| {
            if f.is_declaration() || crate::ir::verify(f).is_err() {
                run_with(f, None)
            } else {
                run_with(f, Some(&Analyses::with_types(f, env.clone())))
            }
        })
        .collect();
    // Built field by field: cloning `m` whole copied every function only to replace it.
    let module = Module {
        lang: m.lang,
        functions: results.iter().map(|r| (*r.function).clone()).collect(),
        items: m.items.clone(),
        source: m.source.clone(),
    };
    ModuleResult { module, results }
}

/// The trace as pretty JSON.
pub fn trace_json(trace: &Trace) -> String {
    serde_json::to_string_pretty(trace).unwrap_or_else(|_| "{}".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::InstId;

    /// The counts as they were computed (a list of the input's placed instructions, each
    /// looked up in the output): the oracle for the counted `insts_before`/`insts_removed`.
    #[test]
    fn counted_stats_equal_the_listed_ones() {
        let mut removed = 0;
        for seed in 0..24u64 {
            let n = 4 + (seed as usize * 17) % 120;
            let (lang, text) = crate::testgen::scale::either_program(n, seed);
            let m = crate::parse_module(lang, "t", &text).expect("generated programs parse");
            for f in m.bodies() {
                let r = run(f);
                let before: Vec<InstId> = f.placed_insts().map(|(_, i)| i).collect();
                let mut after = EntitySet::new_empty(r.function.insts.len());
                for (_, i) in r.function.placed_insts() {
                    after.insert(i);
                }
                assert_eq!(r.stats.insts_before, before.len());
                assert_eq!(r.stats.insts_after, after.count());
                assert_eq!(r.stats.insts_removed, before.iter().filter(|&&i| !after.contains(i)).count());
                removed += r.stats.insts_removed;
            }
        }
        assert!(removed > 100, "only {removed} removed: the test checks little");
    }
}
