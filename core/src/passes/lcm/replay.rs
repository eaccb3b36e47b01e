//! The predicate table as of one step, for one expression, replayed from the trace: earlier
//! steps' results as recorded, the current step's values, and inside a fixpoint the round's
//! values — the greatest fixpoint's start (true on the blocks it iterates over) with the
//! recorded bit flips applied up to this round. Nothing here evaluates an equation, so the
//! table at a step is what the run recorded, not a second computation that could disagree.

use super::predicates::Pred;
use super::steps::{fixpoint, stage_info, Pos};
use super::trace::{PredValues, Step};
use super::{ExprId, LcmOutput};
use crate::ir::BlockId;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// One cell of the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// `None`: not computed yet at this step.
    pub value: Option<bool>,
    /// This step changed it: a fixpoint round flipped it, or a one-shot step set it to
    /// something other than the seed's initial value.
    pub changed: bool,
}

/// The table at one step: one row per block of the split function (the trace's block order),
/// one cell per predicate in [`Pred::ALL`] order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    pub rows: Vec<[Cell; 13]>,
    /// The predicates this step computes (highlighted; hidden in exercise mode).
    pub current: &'static [Pred],
}

impl Snapshot {
    pub fn cell(&self, row: usize, p: Pred) -> Cell {
        self.rows.get(row).map_or_else(Cell::default, |r| r[p as usize])
    }

    /// Whether this step computes the cell (exercise mode hides exactly these).
    pub fn is_current(&self, row: usize, p: Pred) -> bool {
        self.current.contains(&p) && self.cell(row, p).value.is_some()
    }
}

fn step_values(step: &Step) -> &[PredValues] {
    step.values()
}

/// The table of expression `e` at `pos` (see [`LcmOutput::snapshot`]).
pub fn snapshot(out: &LcmOutput, pos: Pos, e: ExprId) -> Snapshot {
    let blocks = &out.trace.blocks;
    let mut rows = vec![[Cell::default(); 13]; blocks.len()];
    let Pos::Stage { stage, round } = pos else { return Snapshot { rows, current: &[] } };
    let Some(step) = out.trace.steps.get(stage) else { return Snapshot { rows, current: &[] } };
    let current = stage_info(step).preds;

    let fill = |rows: &mut Vec<[Cell; 13]>, values: &[PredValues], mark: bool| {
        for pv in values {
            let initial = pv.pred.initial();
            for (row, b) in blocks.iter().enumerate() {
                // A per-region solution keeps no vectors in the trace: ask the predicates.
                let v = match &out.preds.regional {
                    Some(r) => r.holds(pv.pred, b.id, e),
                    None => pv.blocks.get(b.id).is_some_and(|s| s.contains(e)),
                };
                rows[row][pv.pred as usize] = Cell { value: Some(v), changed: mark && v != initial };
            }
        }
    };
    for earlier in out.trace.steps.iter().take(stage) {
        fill(&mut rows, step_values(earlier), false);
    }
    match (fixpoint(step), round) {
        (Some(fp), Some(r)) => {
            // The greatest fixpoint starts true on the blocks it visits, false elsewhere
            // (unreachable blocks take no part).
            let visited: HashSet<BlockId> = fp.order.iter().copied().collect();
            let row_of: HashMap<BlockId, usize> = blocks.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
            for &p in current {
                for (row, b) in blocks.iter().enumerate() {
                    rows[row][p as usize] = Cell { value: Some(visited.contains(&b.id)), changed: false };
                }
            }
            for k in 0..=r.min(fp.rounds.len().saturating_sub(1)) {
                for c in fp.round(k, step.values()).iter() {
                    let Some(&row) = row_of.get(&c.block) else { continue };
                    let cell = &mut rows[row][c.pred as usize];
                    if c.flips(e) {
                        cell.value = cell.value.map(|v| !v);
                        cell.changed |= k == r;
                    }
                }
            }
        }
        _ => fill(&mut rows, step_values(step), true),
    }
    Snapshot { rows, current }
}
