//! Into SSA form, on Bril: Cytron, Ferrante, Rosen, Wegman, Zadeck, "Efficiently Computing
//! Static Single Assignment Form and the Control Dependence Graph" (TOPLAS 13(4), 1991).
//!
//! - `place.rs`: φ placement at the iterated dominance frontier of each variable's
//!   definitions (`idf.rs`, shared with Mem2Reg), *pruned* by liveness (`live.rs`): no φ
//!   where the variable is dead. Why
//!   pruned: in Bril a φ costs a `get` in its block and a `set` on every edge into it, each an
//!   executed instruction, and a dead φ's only reader is nothing — minimal SSA on Bril's
//!   benchmarks is mostly such φs (the variables of one loop iteration meeting at the loop
//!   exit, where nothing reads them);
//! - `rename.rs`: renaming along the dominator tree with a stack per variable;
//! - `trace.rs`: the events, [`apply_event`] (shared by the pass and the replay) and
//!   [`replay_to`]; `steps.rs`: one sentence per event.
//!
//! Only variables assigned more than once (a parameter and each φ count as assignments), or
//! read where their one assignment does not dominate, get new names: `x.1`, `x.2`, … in the order the walk meets their assignments (φs first); `x.0`
//! is `x`'s undefined value, made by `undef` at the top of the entry where an edge into a φ is
//! reached by no assignment. A variable assigned once keeps its name, so a program that needs
//! no φ comes out unchanged. A read that no assignment reaches keeps the old name, which is
//! then assigned nowhere: it fails at run time exactly where the original did. Where such a
//! read is a φ's argument, the φ receives `x.0` instead — `undef`, which Bril lets a program
//! copy but not use — so a program that reads an unassigned variable may fail later in SSA
//! form, or not at all if it only copies it (as with Bril's own `to_ssa`); a program that
//! never reads an unassigned variable runs exactly as before.
//!
//! The output is in Bril's `set`/`get` form (docs/lang/ssa2.md: `x.2: int = get` at the top
//! of the φ's block, `set x.2 x.1` at the end of each predecessor) or, on request, in the
//! deprecated `phi` form. An entry block with predecessors gets a fresh block in front of it,
//! as Bril's own tools do, so that the function's start is an edge of its own. A program that
//! is in SSA form already comes back as it is; one that uses `set`/`get` or `phi` without
//! being in SSA form (an SSA program another pass edited) is translated out of SSA first.

pub mod idf;
pub(crate) mod live;
mod pass;
mod place;
mod rename;
mod steps;
mod trace;

#[cfg(test)]
mod tests;

pub use pass::{IntoSsa, INTO_SSA_PASS};
pub use steps::step_texts;
pub use trace::{apply_event, apply_event_as, base, replay_to, replay_to_as, state_at, Event, Form, Frontier, NewValue, PhiInfo, ReplayError, State, Trace};

use crate::cfg::{with_fresh_entry, Cfg};
use crate::dom::{DomTree, Frontiers};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{check_ssa_form, BlockId, BrilOp, Function, Lang, Op, ValueDef, ValueId};
use serde::Serialize;
use crate::passes::Analyses;
use std::sync::Arc;

/// Why a function was not put into SSA form. The messages are for users.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SsaError {
    #[error("`{function}` is SIL, whose values are already in SSA form")]
    NotBril { function: String },
    #[error("`{function}` is not put into SSA form: {reason}")]
    Unsupported { function: String, reason: String },
    #[error("internal error in SSA construction on `{function}`: {message}")]
    Internal { function: String, message: String },
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub insts_before: usize,
    pub insts_after: usize,
    /// Variables assigned more than once, φs counted: the ones renamed.
    pub renamed: usize,
    pub phis: usize,
    /// Blocks of an iterated frontier where the variable is dead (no φ: pruned).
    pub pruned: usize,
    pub undefs: usize,
}

#[derive(Clone, Debug)]
pub struct SsaOutput {
    /// What the events apply to: the input, with its fresh entry block if it got one.
    pub start: Arc<Function>,
    pub function: Arc<Function>,
    pub trace: Trace,
    pub stats: Stats,
}

/// Puts `f` into SSA form. `f` must verify.
pub fn into_ssa(f: &Function, form: Form) -> Result<SsaOutput, SsaError> {
    into_ssa_with(f, form, None)
}

/// [`into_ssa`] reading the CFG, the dominator tree and the frontiers from `a`, the analyses
/// of `f`, when the function it numbers is `f` itself (no entry block added, nothing taken out
/// of SSA first): the pass contract has built them already.
pub(crate) fn into_ssa_with(f: &Function, form: Form, a: Option<&Analyses>) -> Result<SsaOutput, SsaError> {
    let unsupported = |reason: &str| SsaError::Unsupported { function: f.name.clone(), reason: reason.to_string() };
    if f.lang != Lang::Bril {
        return Err(SsaError::NotBril { function: f.name.clone() });
    }
    if f.speculates() {
        return Err(unsupported(
            "it speculates, and a failing `guard` restores the variables saved at `speculate`, which renaming would have to follow",
        ));
    }
    let insts_before = f.placed_insts().count();
    let uses_ssa = f.placed_insts().any(|(_, i)| matches!(f.insts[i].op, Op::Bril(BrilOp::Set | BrilOp::Get | BrilOp::Phi)));
    if uses_ssa {
        // Already in SSA form (a pipeline may ask twice): nothing to do.
        if check_ssa_form(f).is_ok() {
            let stats = Stats { insts_before, insts_after: insts_before, ..Stats::default() };
            let same = Arc::new(f.clone());
            return Ok(SsaOutput { start: same.clone(), function: same, trace: Trace { form, ..Trace::default() }, stats });
        }
    }
    // A program that uses `set`/`get` or `phi` without being in SSA form (another pass edited
    // an SSA program: LCM's temporaries, say) is taken out of SSA first, then built again.
    let flat = if uses_ssa {
        let out = crate::passes::out_of_ssa::out_of_ssa_with(f, a).map_err(|e| unsupported(&e.to_string()))?;
        Some((*out.function).clone())
    } else {
        None
    };
    let f = flat.as_ref().unwrap_or(f);
    let g0 = with_fresh_entry(f).into_owned();
    let fresh_entry = (g0.layout.len() > f.layout.len()).then(|| g0.layout[0]);
    let built;
    let (cfg, dom, frontiers) = match a.filter(|_| fresh_entry.is_none() && flat.is_none()) {
        Some(a) => (&a.cfg, &a.dom, &a.frontiers),
        None => {
            let cfg = Cfg::new(&g0);
            let dom = DomTree::dominators(&g0, &cfg);
            let pdom = DomTree::post_dominators(&g0, &cfg);
            let frontiers = Frontiers::new(&cfg, &dom, &pdom);
            built = (cfg, dom, frontiers);
            (&built.0, &built.1, &built.2)
        }
    };
    let mentions = live::Mentions::new(&g0, cfg);

    // Every variable with an assignment, with the blocks that assign it (the entry for a
    // parameter), and how many assignments it has.
    let n = g0.values.len();
    let mut assigned: EntityVec<ValueId, u32> = EntityVec::filled(n, 0);
    let entry = g0.entry();
    for &p in &g0.params {
        if p.index() < n {
            assigned[p] += 1;
        }
    }
    for (_, i) in g0.placed_insts() {
        for &r in &g0.insts[i].results {
            if r.index() < n {
                assigned[r] += 1;
            }
        }
    }
    // A variable's type is its declaration's; a function built without one on the variable
    // itself has it on the instructions that assign it.
    let mut g0 = g0;
    for (_, i) in f.placed_insts() {
        let inst = &f.insts[i];
        if let (Some(&r), Some(ty)) = (inst.results.first(), &inst.ty) {
            if r.index() < n && g0.values[r].ty.is_none() {
                g0.values[r].ty = Some(ty.clone());
            }
        }
    }
    let mut vars: Vec<(ValueId, Vec<BlockId>)> = Vec::new();
    for (v, data) in g0.values.iter() {
        if data.def != ValueDef::Var || assigned[v] == 0 {
            continue;
        }
        let mut blocks = mentions.assigns[v].clone();
        if g0.params.contains(&v) {
            if let Some(e) = entry.filter(|e| !blocks.contains(e)) {
                blocks.insert(0, e);
            }
        }
        vars.push((v, blocks));
    }
    let mut trace = Trace { form, fresh_entry, flattened: flat.is_some(), ..Trace::default() };
    let placed = place::place(&g0, cfg, frontiers, &mentions, &vars, &mut trace.events);

    let mut renamed = EntitySet::<ValueId>::new_empty(n);
    let mut phis_at: EntityVec<BlockId, Vec<u32>> = EntityVec::filled(g0.blocks.len(), Vec::new());
    let mut phis: Vec<(ValueId, BlockId)> = Vec::new();
    let mut pruned = 0;
    for p in &placed {
        pruned += p.pruned;
        for &b in &p.blocks {
            phis_at[b].push(phis.len() as u32);
            phis.push((p.var, b));
        }
        if !p.blocks.is_empty() {
            renamed.insert(p.var);
        }
    }
    for (v, _) in &vars {
        if assigned[*v] > 1 {
            renamed.insert(*v);
        }
    }
    // A variable assigned once keeps its name only if its assignment dominates every read;
    // a read it does not dominate (`x = id x`, or a read before it in a block no loop leads
    // back to) is reached by no assignment, and must not name it.
    let mut at: EntityVec<ValueId, Option<(BlockId, usize)>> = EntityVec::filled(n, None);
    for &b in &g0.layout {
        for (k, i) in g0.blocks[b].all_insts().enumerate() {
            for &r in &g0.insts[i].results {
                if r.index() < n && assigned[r] == 1 && !g0.params.contains(&r) {
                    at[r] = Some((b, k));
                }
            }
        }
    }
    for &b in &g0.layout {
        if !dom.contains(b) {
            continue;
        }
        for (k, i) in g0.blocks[b].all_insts().enumerate() {
            for v in g0.insts[i].uses() {
                let Some(Some((db, dk))) = at.get(v).copied() else { continue };
                let dominated = if db == b { dk < k } else { dom.dominates(db, b) };
                if !dominated {
                    renamed.insert(v);
                }
            }
        }
    }
    let plan = rename::Plan { renamed, phis_at };
    let (mut g, trace) = rename::rename(&g0, cfg, dom, &plan, phis, trace);
    crate::passes::shrink(&mut g);

    let internal = |message: String| SsaError::Internal { function: f.name.clone(), message };
    if let Err(d) = crate::ir::verify(&g) {
        return Err(internal(format!("the result does not verify ({})", crate::passes::first_message(&d))));
    }
    if let Err(d) = check_ssa_form(&g) {
        return Err(internal(format!("the result is not in SSA form ({})", crate::passes::first_message(&d))));
    }
    let stats = Stats {
        insts_before,
        insts_after: g.placed_insts().count(),
        renamed: plan.renamed.count(),
        phis: trace.phis.len(),
        pruned,
        undefs: trace.events.iter().filter(|e| matches!(e, Event::Undef { .. })).count(),
    };
    Ok(SsaOutput { start: Arc::new(g0), function: Arc::new(g), trace, stats })
}

