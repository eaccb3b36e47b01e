//! Global copy propagation on Bril (Aho, Lam, Sethi, Ullman, *Compilers*, 2nd ed., §9.1.5
//! and exercise 9.2.x on available copies; Muchnick, *Advanced Compiler Design and
//! Implementation*, §12.5 "Copy Propagation"), followed by the deletion of the copies it left
//! dead and the rematerialisation of the copies that stay (Briggs, Cooper, Torczon,
//! "Rematerialization", PLDI 1992, for the cost-neutral case of a one-instruction value).
//!
//! Why it exists: LCM replaces every computation it removes by a copy `d = id t` of its
//! temporary, and nothing removed those copies, so on the Bril benchmarks LCM alone could
//! *raise* the dynamic instruction count. After this pass, "LCM then copy propagation" is
//! never worse than LCM alone. A copy that propagation cannot remove — its destination has
//! other definitions and is live where the copy is not available — is recomputed instead when
//! its source holds the same pure computation on every path (`remat.rs`): the same cost at
//! the copy, and the temporary's computation is left dead for DCE. With it the default
//! pipeline never raises a benchmark's count (`tests/quality_report.rs`).
//!
//! The pass, one module per job:
//! - `holds.rs`: the forward must-problem on [`crate::dataflow`] behind both analyses, facts
//!   "variable `v` holds X" keyed by content so the same fact on both arms of a join stays;
//! - `avail.rs`: available copies on it, keyed by the pair `(dest, src)`;
//! - `rewrite.rs`: every operand `v` with a copy `v ← w` available before its instruction
//!   reads `w`, following chains at that point;
//! - `dead.rs`: copies whose destination is no longer live are deleted, to a fixpoint
//!   (liveness on the same framework); other dead code is DCE's business;
//! - `remat.rs`: held expressions (`holds.rs` again, on the rewritten program);
//!   each surviving copy `v = id t` where `t` holds `OP a b` on every path becomes
//!   `v = OP a b`;
//! - `trace.rs`: the serializable trace, [`apply_event`] (shared by the pass and the replay)
//!   and [`replay_to`]; `steps.rs`: one sentence per step.
//!
//! SIL is refused: its values are in SSA form, so every use already names its one
//! definition and there is no `x = id y` to propagate. Removing `copy_value` instructions is
//! a different transformation — the copy elimination that runs after AddressLowering in
//! Swift's opaque-values pipeline — which this lab does not implement.

mod avail;
mod dead;
mod deferred;
mod holds;
mod lazy;
mod pass;
mod remat;
mod rewrite;
mod solve;
mod steps;
mod trace;

#[cfg(test)]
mod lazy_tests;
#[cfg(test)]
mod tests;

pub use avail::{as_copy, AvailCopies, Copy, CopyId};
pub use dead::{delete_dead_copies, Liveness};
pub use holds::{Holding, Holds, Point};
pub use deferred::Deferred;
pub use lazy::LazyAvail;
pub use solve::{FactRound, FactSet, SparseFacts};
pub use pass::{CopyProp, COPYPROP_PASS};
pub use remat::{as_held, rematerialize, Held, HeldExprs, HeldTable};
pub use rewrite::{resolve, Justifier, VIA_SHOWN};
pub use steps::{delete_reason, list, step_texts};
pub use trace::{apply_event, replay_to, try_replay_to, AvailRound, BlockLists, BlockSets, CopyInfo, Event, HeldId, HeldInfo, ReplayError, SetChange, Trace, Via};

use crate::cfg::Cfg;
use crate::entity::{EntitySet, EntityVec, Rows};
use crate::ir::{verify, Function, Lang, Module, ValueId};
use serde::{Deserialize, Serialize};

/// Why copy propagation refused a function. The messages are for users (CLI and UI show them
/// as they are).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CopyPropError {
    #[error(
        "copy propagation runs on Bril; `{function}` is SIL, whose values are in SSA form: every \
         use already names its one definition, so there is no copy to propagate. Removing \
         `copy_value` is the job of the copy elimination that follows AddressLowering (opaque \
         values), a later pass this lab does not implement"
    )]
    NotBril { function: String },
    #[error("copy propagation cannot run on `{function}`: the function is malformed ({message})")]
    Malformed { function: String, message: String },
    #[error(
        "copy propagation leaves `{function}` as it is: it speculates, and a failing `guard` \
         restores the variables saved at `speculate`, which the available copies do not model"
    )]
    Speculates { function: String },
    #[error("internal error in copy propagation on `{function}`: {message}")]
    Internal { function: String, message: String },
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Copy pairs (`x = id y`, `x ≠ y`) and the instructions making them.
    pub copies: usize,
    pub copy_insts: usize,
    /// Operands rewritten.
    pub rewrites: usize,
    /// Copies deleted.
    pub deleted: usize,
    /// Copies replaced by the computation their source holds (`remat.rs`).
    #[serde(default)]
    pub rematerialized: usize,
    /// Placed instructions before and after.
    pub insts_before: usize,
    pub insts_after: usize,
}

/// The pass's output for one function.
#[derive(Clone, Debug)]
pub struct CopyPropOutput {
    /// The function after the rewrite and the deletions (shared with the pass's
    /// [`crate::passes::PassRun`]).
    pub function: std::sync::Arc<Function>,
    /// Shared with the pass's deferred step texts ([`crate::steps::Steps::lazy`]).
    pub trace: std::sync::Arc<Trace>,
    pub stats: Stats,
    /// The available-copies analysis of the input (per-block in/out sets, the copy table),
    /// solved for every copy when first read (`lazy.rs`).
    pub avail: LazyAvail,
    /// The held-expressions analysis of the program after the rewrite and the deletions,
    /// on the facts held in variables that copies read (its ids are its own; the trace's
    /// `held` lists every computation), which decided the rematerialisations.
    pub held: HeldExprs,
}

fn messages(d: &crate::diag::Diagnostics) -> String {
    d.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; ")
}

/// The copy table of `f` with the copies the rewrite can read solved (`lazy.rs`), and the
/// solver's input, to solve the others later.
///
/// The rewrite reads a block's in-set only through the copies into a variable it asks
/// about: an operand, then the source of each link of the chain found. A copy into `v`
/// from the in-set can still hold at an instruction only if `v` is not assigned before it
/// in the block — so where it is read there, `v` is read before any assignment in the block
/// (*upward exposed*); where it is a chain link's source, that link is either made earlier
/// in the block by `x = id v`, a read of `v` before any assignment again, or itself from the
/// in-set into a variable asked about. So the copies into the variables read upward exposed
/// somewhere, closed under "a copy into one of them reads its source", are all the rewrite
/// can find in an in-set, and each is solved as in the whole table (facts do not interact).
/// After LCM that leaves out the copies `c = id lt` of a branch condition read only right
/// after them — available to the end of the function, they were most of the table.
fn avail_read(f: &Function, cfg: &Cfg) -> (AvailCopies, solve::Prepared) {
    let mut a: AvailCopies = Holds::collect(f, cfg, |_| true);
    let nv = f.values.len();
    let mut asked: EntitySet<ValueId> = EntitySet::new_empty(nv);
    let mut work: Vec<ValueId> = Vec::new();
    // `assigned[v]`: one more than the layout position of the last block seen assigning `v`.
    let mut assigned: EntityVec<ValueId, u32> = EntityVec::filled(nv, 0);
    for (k, &b) in f.layout.iter().enumerate() {
        let mark = k as u32 + 1;
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            for &v in inst.args.iter() {
                if assigned[v] != mark && asked.insert(v) {
                    work.push(v);
                }
            }
            for &r in inst.results.iter() {
                assigned[r] = mark;
            }
        }
    }
    // The sources of the copies into each variable (CSR), to close the set.
    let srcs: Rows<ValueId, ValueId> = Rows::grouped(nv, a.table.values().map(|c| (c.dest, c.src)));
    while let Some(v) = work.pop() {
        for &w in &srcs[v] {
            if asked.insert(w) {
                work.push(w);
            }
        }
    }
    let prepared = solve::Prepared::new(f, cfg, &a.reachable);
    a.facts = prepared.solve(&a, |c| asked.contains(a.table[c].dest), false);
    (a, prepared)
}

/// Copy propagation on one Bril function; `cfg` must be `f`'s graph. The input and the
/// result are verified; a result that does not verify is an [`CopyPropError::Internal`]
/// error, never a silently wrong program. Never panics.
pub fn run(f: &Function, cfg: &Cfg) -> Result<CopyPropOutput, CopyPropError> {
    let function = f.name.clone();
    if f.lang != Lang::Bril {
        return Err(CopyPropError::NotBril { function });
    }
    if let Err(d) = verify(f) {
        return Err(CopyPropError::Malformed { function, message: messages(&d) });
    }
    run_verified(f, cfg)
}

/// [`run`] on a function the caller has verified already (the pass contract's
/// [`crate::passes::run`] verifies every input; a second full check was a twentieth of the
/// pass on a 10^5-block function).
pub(crate) fn run_verified(f: &Function, cfg: &Cfg) -> Result<CopyPropOutput, CopyPropError> {
    let function = f.name.clone();
    if f.lang != Lang::Bril {
        return Err(CopyPropError::NotBril { function });
    }
    if f.speculates() {
        return Err(CopyPropError::Speculates { function });
    }
    if cfg.num_blocks() != f.blocks.len() || cfg.entry() != f.entry() {
        let message = "the control-flow graph given was built from another function".to_string();
        return Err(CopyPropError::Internal { function, message });
    }
    let internal = |message: String| CopyPropError::Internal { function: f.name.clone(), message };

    let (a, prepared) = avail_read(f, cfg);
    let mut g = f.clone();
    let mut events = rewrite::rewrite(f, cfg, &a, &mut g).map_err(|e| internal(e.to_string()))?;
    let rewrites = events.len();
    let deletions = dead::delete_dead_copies(&mut g, f, cfg, events.len()).map_err(|e| internal(e.to_string()))?;
    let deleted = deletions.len();
    events.extend(deletions);
    let (held, all_held, remats) = remat::rematerialize(&mut g, cfg, events.len()).map_err(|e| internal(e.to_string()))?;
    let rematerialized = remats.len();
    events.extend(remats);
    if let Err(d) = verify(&g) {
        return Err(internal(format!("the result does not verify: {}", messages(&d))));
    }

    let copies = a
        .table
        .iter()
        .map(|(id, c)| CopyInfo { id, dest: c.dest, src: c.src, text: a.copy_text(f, id), insts: c.insts.clone() })
        .collect();
    let blocks = f.layout.iter().map(|&b| (b, cfg.is_reachable(b))).collect();
    let stats = Stats {
        copies: a.table.len(),
        copy_insts: a.table.values().map(|c| c.insts.len()).sum(),
        rewrites,
        deleted,
        rematerialized,
        insts_before: f.placed_insts().count(),
        insts_after: g.placed_insts().count(),
    };
    let held_info = all_held
        .into_values()
        .enumerate()
        .map(|(k, h)| {
            let text = format!("{} = {}", g.value_name(h.var), remat::expr_text(&g, &h));
            HeldInfo { id: HeldId(k as u32), var: h.var, text, insts: h.insts }
        })
        .collect();
    let avail = LazyAvail::new(a, prepared);
    let trace = Trace { function: f.name.clone(), copies, blocks, fixpoint: avail.fixpoint(), rounds: avail.rounds(), events, held: held_info };
    crate::passes::shrink(&mut g);
    Ok(CopyPropOutput { function: std::sync::Arc::new(g), trace: std::sync::Arc::new(trace), stats, avail, held })
}

/// Copy propagation on every function of a Bril module. A SIL module is refused with
/// [`CopyPropError::NotBril`]; the first function that fails stops the whole module.
pub fn run_module(m: &Module) -> Result<(Module, Vec<CopyPropOutput>), CopyPropError> {
    if m.lang != Lang::Bril {
        let function = m.functions.first().map(|f| f.name.clone()).unwrap_or_default();
        return Err(CopyPropError::NotBril { function });
    }
    let outputs = m.functions.iter().map(|f| run(f, &Cfg::new(f))).collect::<Result<Vec<_>, _>>()?;
    let mut out = m.clone();
    for (f, o) in out.functions.iter_mut().zip(&outputs) {
        *f = (*o.function).clone();
    }
    Ok((out, outputs))
}

/// The trace as pretty JSON.
pub fn trace_json(trace: &Trace) -> String {
    serde_json::to_string_pretty(trace).unwrap_or_else(|_| "{}".to_string())
}
