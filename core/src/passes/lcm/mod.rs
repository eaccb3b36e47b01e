//! Lazy Code Motion — seed 004 (`004_d6a4027f0f8eba0f.txt`, "Lazy Code Motion", after
//! J. Knoop, O. Rüthing and B. Steffen, *Lazy Code Motion*, PLDI 1992, in the node form of
//! Nakata's コンパイラの構成と最適化 and Morgan's *Building an Optimizing Compiler*; the
//! equations, whose figures the seed lost, are `docs/lcm-equations.md`).
//!
//! Partial redundancy elimination that never adds an evaluation to any path (safe), removes
//! every redundancy a safe placement can (computationally optimal) and places computations as
//! late as possible (lifetime optimal). The seed's steps, each its own module:
//!
//! - `split.rs`, step 1: split critical edges; give the function a start node without
//!   predecessors.
//! - `exprs.rs`, step 2: the candidate expressions; `NComp`, `XComp`, `Transp` per block.
//! - `predicates.rs`, steps 3–6: `NdSafe/XdSafe` and `NuSafe/XuSafe` (greatest fixpoints),
//!   `NEarliest/XEarliest`, `NDelayed/XDelayed` (greatest fixpoint), `NLatest/XLatest` — for
//!   all expressions at once, one bit vector per block and predicate.
//! - `regions.rs`, steps 3–6 again for SIL functions too large for a vector over all
//!   expressions per block (SSA gives nearly every value expressions of its own): the same
//!   answers, solved per region of the dominator tree below each expression's deepest
//!   operand definition; such a run records no per-round trace (its steps say so, and the
//!   tables replay from [`Predicates::holds`]).
//! - `transform.rs`, step 7: one temporary per moved expression, deletions and insertions.
//!
//! [`run_function`] returns the function after step 1 (what the predicates describe), the
//! transformed function, the predicates and a [`Trace`] of every step; [`report`] turns the
//! predicates into the JSON and the Markdown/LaTeX/CSV tables the CLI and the web app
//! export. For stepping through a run, [`LcmOutput::steps`] lists the steps (one per stage,
//! one per fixpoint round, [`steps`]) and [`LcmOutput::snapshot`] replays the predicate table
//! of one expression at any of them ([`replay`]).
//!
//! LCM runs on Bril and on SIL. On SIL the predicates are computed exactly as on Bril once
//! the local sets are (`exprs.rs` says what a SIL candidate and a modification are); only
//! step 7 differs, because every SIL value is defined once: instead of one temporary assigned
//! in several places, each kept or inserted computation defines a value of its own, a join
//! reached by several of them gets a new block argument (a phi, placed at the iterated
//! dominance frontier where the value is live), every branch into it passes the value that
//! reaches its end, and each deleted computation's uses are rewritten to the value that
//! reaches it (`transform::transform_sil`). The result is checked with [`crate::ir::verify`]
//! and [`crate::dom::verify_ssa`]. A SIL critical edge out of a terminator other than
//! `br`/`cond_br` (`switch_enum`, `checked_cast_br`, …) cannot be split — its target's
//! parameters are the terminator's results — so such a function is refused with
//! [`LcmError::Unsupported`] when it has candidate expressions.

mod exprs;
mod graph;
mod pass;
mod pred;
mod predicates;
mod regions;
pub mod replay;
pub mod report;
mod split;
mod ssa;
pub mod steps;
mod trace;
mod transform;

pub use exprs::{may_trap, Expr, ExprId, Local, Options};
pub use graph::Graph;
pub use pass::{Lcm, LCM_PASS};
pub use predicates::{BitChange, Fixpoint, PerBlock, Pred, Predicates};
pub use replay::{Cell, Snapshot};
pub use split::{SplitEdge, Splits};
pub use steps::{fixpoint, marked, name_list, stage_info, LcmSteps, Pos, StageInfo};
pub use trace::{BlockInfo, Edit, Point, PredValues, Step, Temp, Trace};

use crate::entity::EntityVec;
use crate::ir::{verify, BlockId, Function, InstId, Lang, Module};
use std::sync::Arc;

/// Why LCM refused a function. The messages are for users (CLI and UI show them as is).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LcmError {
    #[error("LCM cannot run on `{function}`: {reason}")]
    Unsupported { function: String, reason: String },
    #[error("LCM cannot run on `{function}`: the function is malformed ({message})")]
    Malformed { function: String, message: String },
    #[error("no expression `{expr}`{}; expressions are: {}", in_function(.function), .available.join(", "))]
    UnknownExpr { expr: String, function: Option<String>, available: Vec<String> },
    #[error("internal error in LCM on `{function}`: {message}")]
    Internal { function: String, message: String },
}

fn in_function(f: &Option<String>) -> String {
    f.as_ref().map(|f| format!(" in `@{f}`")).unwrap_or_default()
}

/// LCM's results for one function.
#[derive(Clone, Debug)]
pub struct LcmOutput {
    pub name: String,
    /// The function after step 1: the graph all predicates are about.
    pub split: Function,
    /// The function after step 7 (split blocks that received nothing removed again), shared
    /// with the pass's [`crate::passes::PassRun`].
    pub result: Arc<Function>,
    pub exprs: EntityVec<ExprId, Expr>,
    pub preds: Predicates,
    /// Blocks of `split` reachable from its entry (the others have no global predicates).
    pub graph: Graph,
    pub trace: Trace,
    /// The instructions of `split` computing each expression (see [`LcmOutput::occurrences`]).
    occurrences: EntityVec<ExprId, Vec<InstId>>,
}

impl LcmOutput {
    /// The blocks after step 1, in layout order.
    pub fn blocks(&self) -> &[BlockId] {
        &self.split.layout
    }

    /// The expression written `text` (`add a b`; spacing is not significant).
    pub fn expr_by_text(&self, text: &str) -> Option<ExprId> {
        let want: Vec<&str> = text.split_whitespace().collect();
        self.exprs.iter().find(|(_, e)| e.text().split(' ').eq(want.iter().copied())).map(|(id, _)| id)
    }

    /// The instructions of [`split`](Self::split) that compute `e`, in layout order (empty
    /// for an unknown id). Recorded while collecting the candidates, so it honours
    /// [`Options::commute`]: the views must not re-match opcodes and operands themselves,
    /// which would miss `add b a` as an occurrence of `add a b`.
    pub fn occurrences(&self, e: ExprId) -> &[InstId] {
        self.occurrences.get(e).map_or(&[], Vec::as_slice)
    }

    /// How many instructions compute each expression, indexed by [`ExprId`] (the counts the
    /// expression picker shows).
    pub fn occurrence_counts(&self) -> Vec<usize> {
        self.occurrences.values().map(Vec::len).collect()
    }

    /// The step list of this run: what the step bar says at each step and where each step is
    /// in the trace.
    pub fn steps(&self) -> LcmSteps {
        LcmSteps::new(self)
    }

    /// The predicate table of expression `expr` as of step position `pos` (from
    /// [`LcmSteps::pos`]), replayed from the trace.
    pub fn snapshot(&self, pos: Pos, expr: ExprId) -> Snapshot {
        replay::snapshot(self, pos, expr)
    }

    /// The expressions step 7 rewrote.
    pub fn moved(&self) -> &[ExprId] {
        self.trace
            .steps
            .iter()
            .find_map(|s| match s {
                Step::Transform { moved, .. } => Some(moved.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }
}

fn values(preds: &Predicates, list: &[Pred]) -> Vec<PredValues> {
    list.iter().map(|&p| PredValues { pred: p, blocks: preds.sets[p as usize].clone() }).collect()
}

/// Runs all seven steps on one Bril function. Never panics: malformed input is refused with
/// [`LcmError::Malformed`] (after [`crate::ir::verify`]).
pub fn run_function(f: &Function, opts: &Options) -> Result<LcmOutput, LcmError> {
    if let Err(d) = verify(f) {
        let message = d.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; ");
        return Err(LcmError::Malformed { function: f.name.clone(), message });
    }
    run_verified(f, opts)
}

/// [`run_function`] on a function the caller has verified already: the pass contract's
/// [`crate::passes::run`] verifies every input, and a second full check of a 10^5-block
/// function was a tenth of a pipeline's LCM stage.
pub(crate) fn run_verified(f: &Function, opts: &Options) -> Result<LcmOutput, LcmError> {
    if f.speculates() {
        let reason = "it speculates: a failing `guard` restores the variables saved at `speculate`, which the \
                      safety and availability equations do not model, so nothing is moved"
            .to_string();
        return Err(LcmError::Unsupported { function: f.name.clone(), reason });
    }
    if f.has_phis() {
        let reason = "it uses `phi`, whose labels name the blocks control comes from, and LCM splits edges: \
                      translate it out of SSA first (or write its φs as `set`/`get`)"
            .to_string();
        return Err(LcmError::Unsupported { function: f.name.clone(), reason });
    }
    let mut g = f.clone();
    let splits = split::split_critical_edges(&mut g);
    crate::passes::shrink(&mut g);
    let cfg = crate::cfg::Cfg::new(&g);
    let graph = Graph::with_cfg(&g, &cfg);
    let dom = (f.lang == Lang::Sil).then(|| regions::Dominance::new(&g, &cfg));
    drop(cfg);
    if let Some(dom) = &dom {
        // The transformation rebuilds SSA form; it needs SSA form to begin with (a value
        // used where its definition does not dominate is not something it can keep). The
        // split graph's tree answers for `f` (`ssa.rs`); only a refusal asks `f`'s own, so
        // that the message names the use where the user wrote it.
        if let Err(errs) = ssa::check(&g, &dom.tree) {
            let cfg = crate::cfg::Cfg::new(f);
            let dt = crate::dom::DomTree::dominators(f, &cfg);
            let message = match crate::dom::verify_ssa(f, &cfg, &dt) {
                Err(d) => d.iter().map(|d| d.message.clone()).next().unwrap_or_default(),
                Ok(()) => errs.iter().map(|e| e.message.clone()).next().unwrap_or_default(),
            };
            return Err(LcmError::Unsupported { function: f.name.clone(), reason: format!("it is not in SSA form: {message}") });
        }
    }
    let ex = exprs::Exprs::collect(&g, opts);
    let global = if let Some(dom) = dom.as_ref().filter(|_| solve_per_region(graph.num_blocks(), ex.len())) {
        let regional = regions::solve(&g, &graph, dom, &ex, exprs::compute_local_sparse(&g, &graph, &ex));
        let converged = regional.converged;
        let sets = Pred::ALL.iter().map(|_| Arc::new(EntityVec::new())).collect();
        predicates::Global {
            preds: Predicates { sets, regional: Some(Arc::new(regional)) },
            dsafe: Fixpoint::per_region(),
            usafe: Fixpoint::per_region(),
            delayed: Fixpoint::per_region(),
            converged,
        }
    } else {
        let local = exprs::compute_local(&g, &graph, &ex);
        predicates::compute_global(&graph, &local, ex.len())
        // `local` is dropped here: the predicates share its three vectors
    };
    if !global.converged {
        return Err(LcmError::Internal { function: f.name.clone(), message: "a fixpoint did not converge".into() });
    }
    let preds = global.preds;
    if let Some(&(from, to)) = splits.blocked.first() {
        if !ex.list.is_empty() {
            return Err(LcmError::Unsupported {
                function: f.name.clone(),
                reason: format!(
                    "the critical edge {} → {} leaves a `{}`, whose target receives the terminator's own \
                     results, so no block can be put on it",
                    g.block_name(from),
                    g.block_name(to),
                    g.blocks[from].term.map_or("", |t| g.insts[t].op.name())
                ),
            });
        }
    }
    let mut t = match f.lang {
        Lang::Bril => transform::transform(&g, &graph, &ex, &preds, &splits),
        Lang::Sil => {
            let dom = dom.as_ref().ok_or_else(|| LcmError::Internal { function: f.name.clone(), message: "no dominator tree".into() })?;
            transform::transform_sil(&g, &graph, &ex, &preds, &splits, dom)
                .map_err(|message| LcmError::Internal { function: f.name.clone(), message })?
        }
    };
    crate::passes::shrink(&mut t.function);
    if let Err(d) = verify(&t.function) {
        let message = d.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; ");
        return Err(LcmError::Internal {
            function: f.name.clone(),
            message: format!("result does not verify: {message}"),
        });
    }
    if let Some(dom) = &dom {
        // Step 7 adds no edges, so the split graph's tree is the result's (`ssa.rs`).
        if let Err(errs) = ssa::check(&t.function, &dom.tree) {
            let message = errs.iter().map(|e| e.message.clone()).collect::<Vec<_>>().join("; ");
            return Err(LcmError::Internal {
                function: f.name.clone(),
                message: format!("result is not in SSA form: {message}"),
            });
        }
    }

    let new_blocks = splits.new_blocks(g.blocks.len());
    let blocks = g
        .layout
        .iter()
        .map(|&b| BlockInfo {
            id: b,
            name: g.blocks[b].name.to_string(),
            reachable: graph.reachable.contains(b),
            new: new_blocks.contains(b),
        })
        .collect();
    use Pred::*;
    let steps = vec![
        Step::SplitEdges { splits },
        Step::Local { values: values(&preds, &[NComp, XComp, Transp]) },
        Step::DownSafety { values: values(&preds, &[NdSafe, XdSafe]), fixpoint: global.dsafe },
        Step::UpSafety { values: values(&preds, &[NuSafe, XuSafe]), fixpoint: global.usafe },
        Step::Earliest { values: values(&preds, &[NEarliest, XEarliest]) },
        Step::Delayed { values: values(&preds, &[NDelayed, XDelayed]), fixpoint: global.delayed },
        Step::Latest { values: values(&preds, &[NLatest, XLatest]) },
        Step::Transform { moved: t.moved, temps: t.temps, edits: t.edits },
    ];
    let trace = Trace { function: f.name.clone(), exprs: ex.list.values().map(|e| e.text()).collect(), blocks, steps };
    // The expressions borrow `g`'s names; keep what the output needs and let go of the rest.
    let (exprs, occurrences) = (ex.list, ex.occurrences);
    Ok(LcmOutput { name: f.name.clone(), split: g, result: Arc::new(t.function), exprs, preds, graph, trace, occurrences })
}

/// Above this many blocks × expressions a SIL function's predicates are solved per region
/// (`regions.rs`) instead of as one vector over all expressions per block: 2^22 cells is
/// 512 KiB per predicate, where the dense solver and its recorded rounds are still quick and
/// the page can show every round; SSA makes an expression per value, so beyond it the dense
/// vectors grow quadratically (10^4 blocks: 7 s, 10^5: out of memory).
const REGION_CELLS: usize = 1 << 22;

fn solve_per_region(blocks: usize, exprs: usize) -> bool {
    #[cfg(test)]
    if let Some(force) = FORCE_REGIONS.with(|c| c.get()) {
        return force;
    }
    blocks.saturating_mul(exprs) > REGION_CELLS
}

#[cfg(test)]
thread_local! {
    /// Tests only: solve SIL per region (or densely) whatever the size, to compare the two.
    pub(crate) static FORCE_REGIONS: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Steps 1–2 of a run (the split graph and the local predicates), kept apart so that steps
/// 3–6 can be timed alone: the scaling benchmark (`core/benches/scale.rs`) compares them with
/// a bare bit-vector sweep over the same graph.
pub struct Prepared {
    pub graph: Graph,
    pub local: Local,
    pub n_exprs: usize,
}

/// Steps 1–2 on a copy of `f` (a Bril function that verifies).
pub fn prepare(f: &Function, opts: &Options) -> Prepared {
    let mut g = f.clone();
    split::split_critical_edges(&mut g);
    let graph = Graph::new(&g);
    let ex = exprs::Exprs::collect(&g, opts);
    let local = exprs::compute_local(&g, &graph, &ex);
    Prepared { graph, local, n_exprs: ex.len() }
}

/// Steps 3–6 on a [`prepare`]d function: the predicates and the three fixpoints (down-safety,
/// up-safety, delayed), exactly as [`run_function`] computes and records them.
pub fn global_predicates(p: &Prepared) -> (Predicates, [Fixpoint; 3]) {
    let g = predicates::compute_global(&p.graph, &p.local, p.n_exprs);
    (g.preds, [g.dsafe, g.usafe, g.delayed])
}

/// Runs LCM on every function of a Bril module; returns the transformed module and each
/// function's results. A SIL module is refused with [`LcmError::NotBril`].
pub fn run_module(m: &Module, opts: &Options) -> Result<(Module, Vec<LcmOutput>), LcmError> {
    let outputs = m.bodies().map(|f| run_function(f, opts)).collect::<Result<Vec<_>, _>>()?;
    let mut out = m.clone();
    for o in &outputs {
        if let Some(f) = out.functions.iter_mut().find(|f| f.name == o.name) {
            *f = (*o.result).clone();
        }
    }
    Ok((out, outputs))
}

/// Like [`run_module`], but a function LCM refuses is kept unchanged and its reason returned
/// next to it instead of failing the module (`optlab lcm --emit` on a SIL file with many
/// functions).
pub fn run_module_lenient(m: &Module, opts: &Options) -> (Module, Vec<Result<LcmOutput, LcmError>>) {
    let results: Vec<Result<LcmOutput, LcmError>> = m.bodies().map(|f| run_function(f, opts)).collect();
    let mut out = m.clone();
    for o in results.iter().flatten() {
        if let Some(f) = out.functions.iter_mut().find(|f| f.name == o.name) {
            *f = (*o.result).clone();
        }
    }
    (out, results)
}

#[cfg(test)]
mod tests;
