//! What LCM records for the step-through view: one [`Step`] per step of seed 004, each with
//! the per-block bit vectors it produced (and, for the fixpoints, every round's changes), the
//! split edges, and every edit of the transformation. Ids refer to the function after step 1
//! ([`super::LcmOutput::split`]) for steps 1–6 and to the result for step 7; both share one
//! arena, so an id means the same thing in both. Expressions are [`ExprId`]s indexing
//! [`Trace::exprs`]; a view of one expression tests its bit in each set.

use super::exprs::ExprId;
use super::predicates::{Fixpoint, PerBlock, Pred};
use super::split::Splits;
use crate::ir::{BlockId, InstId, ValueId};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The trace of LCM on one function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub function: String,
    /// Expression texts (`add a b`), indexed by `ExprId`.
    pub exprs: Vec<String>,
    /// The blocks after step 1, in layout order.
    pub blocks: Vec<BlockInfo>,
    pub steps: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockInfo {
    pub id: BlockId,
    /// The label without the dot.
    pub name: String,
    /// False for blocks no path from the entry reaches (all global predicates false).
    pub reachable: bool,
    /// True for blocks step 1 created.
    pub new: bool,
}

/// One predicate's bit vectors for every block (the same vectors as
/// [`super::LcmOutput::preds`], shared).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredValues {
    pub pred: Pred,
    pub blocks: Arc<PerBlock>,
}

/// Where an insertion goes: the entry or the exit insertion point of its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Point {
    Entry,
    Exit,
}

/// The temporary that holds one moved expression.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Temp {
    pub expr: ExprId,
    pub value: ValueId,
    pub name: String,
}

/// One edit of step 7, in the order they were made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    /// The seed's preparation: `d = e` (instruction `inst`, which becomes `d = id t`) is split
    /// into `t = e` (new instruction `temp`, placed just before it) and `d = t`.
    Split { expr: ExprId, block: BlockId, inst: InstId, temp: InstId },
    /// `NComp ∧ ¬NLatest`: the block's first `t = e` (instruction `inst`) is deleted.
    Delete { expr: ExprId, block: BlockId, inst: InstId },
    /// `t = e` (new instruction `inst`) inserted at an insertion point: `Exit` for
    /// `XLatest ∧ ¬XComp` (before the terminator), `Entry` for `NLatest ∧ ¬NComp`.
    Insert { expr: ExprId, block: BlockId, inst: InstId, at: Point },
    /// The computation `inst` stays where it is: at the entry, `NComp ∧ NLatest` deletes and
    /// re-inserts it at the same point; at the exit, `XLatest ∧ XComp` keeps the exit
    /// computation.
    Keep { expr: ExprId, block: BlockId, inst: InstId, at: Point },
    /// A block step 1 put on the edge `from → to` received nothing and is removed again.
    Unsplit { block: BlockId, from: BlockId, to: BlockId },
    /// The fresh entry of step 1 received nothing and is removed again.
    RemoveEntry { block: BlockId },
    /// SIL: the moved expression reaches `block` from several computations, so the block gets
    /// a new parameter `value` (a phi) and every branch into it passes the computation that
    /// reaches the end of the branching block.
    Phi { expr: ExprId, block: BlockId, value: ValueId },
    /// SIL: the deleted computation's result `from` is replaced by `to` everywhere, the value
    /// of the expression that reaches the deleted computation.
    Replace { expr: ExprId, block: BlockId, from: ValueId, to: ValueId },
}

/// One step of seed 004.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Step 1.
    SplitEdges { splits: Splits },
    /// Step 2: `NComp`, `XComp`, `Transp`.
    Local { values: Vec<PredValues> },
    /// Step 3: `NdSafe`, `XdSafe` (backward greatest fixpoint).
    DownSafety { values: Vec<PredValues>, fixpoint: Fixpoint },
    /// Step 3': `NuSafe`, `XuSafe` (forward greatest fixpoint).
    UpSafety { values: Vec<PredValues>, fixpoint: Fixpoint },
    /// Step 4: `NEarliest`, `XEarliest`.
    Earliest { values: Vec<PredValues> },
    /// Step 5: `NDelayed`, `XDelayed` (forward greatest fixpoint).
    Delayed { values: Vec<PredValues>, fixpoint: Fixpoint },
    /// Step 6: `NLatest`, `XLatest`.
    Latest { values: Vec<PredValues> },
    /// Step 7. `moved` are the expressions with an edit that changes something; all others
    /// are left exactly as they were.
    Transform { moved: Vec<ExprId>, temps: Vec<Temp>, edits: Vec<Edit> },
}

impl Step {
    /// The bit vectors this step computed (none for steps 1 and 7).
    pub fn values(&self) -> &[PredValues] {
        match self {
            Step::Local { values }
            | Step::DownSafety { values, .. }
            | Step::UpSafety { values, .. }
            | Step::Earliest { values }
            | Step::Delayed { values, .. }
            | Step::Latest { values } => values,
            Step::SplitEdges { .. } | Step::Transform { .. } => &[],
        }
    }

    /// The seed's title of the step.
    pub fn title(&self) -> &'static str {
        match self {
            Step::SplitEdges { .. } => "Step 1: eliminate critical edges",
            Step::Local { .. } => "Step 2: compute local information",
            Step::DownSafety { .. } => "Step 3: compute down-safety",
            Step::UpSafety { .. } => "Step 3: compute up-safety",
            Step::Earliest { .. } => "Step 4: compute earliest",
            Step::Delayed { .. } => "Step 5: compute delayed",
            Step::Latest { .. } => "Step 6: compute latest",
            Step::Transform { .. } => "Step 7: program transformation",
        }
    }
}
