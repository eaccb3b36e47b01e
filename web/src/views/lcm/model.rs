//! The predicate table as of one step, for one expression, replayed from the trace: earlier
//! steps' results as recorded, the current step's values, and inside a fixpoint the round's
//! values — the greatest fixpoint's start (true on the blocks it iterates over) with the
//! recorded bit changes applied up to this round. Nothing here evaluates an equation.

use super::equations;
use super::steps::{fixpoint, name_list, stage_info, Pos};
use optlab_core::passes::lcm::{ExprId, LcmOutput, Pred, PredValues, Step};
use optlab_core::BlockId;
use std::collections::{HashMap, HashSet};

/// One cell of the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// `None`: not computed yet at this step.
    pub value: Option<bool>,
    /// This step changed it: a fixpoint round flipped it, or a one-shot step set it to
    /// something other than the seed's initial value.
    pub changed: bool,
}

/// The table at one step: one row per block of the split function (the trace's block order),
/// one cell per predicate in [`Pred::ALL`] order.
#[derive(Clone, Debug, PartialEq)]
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
    match step {
        Step::Local { values }
        | Step::DownSafety { values, .. }
        | Step::UpSafety { values, .. }
        | Step::Earliest { values }
        | Step::Delayed { values, .. }
        | Step::Latest { values } => values,
        Step::SplitEdges { .. } | Step::Transform { .. } => &[],
    }
}

/// The table of expression `e` at `pos`.
pub fn snapshot(out: &LcmOutput, pos: Pos, e: ExprId) -> Snapshot {
    let blocks = &out.trace.blocks;
    let mut rows = vec![[Cell::default(); 13]; blocks.len()];
    let Pos::Stage { stage, round } = pos else { return Snapshot { rows, current: &[] } };
    let Some(step) = out.trace.steps.get(stage) else { return Snapshot { rows, current: &[] } };
    let current = stage_info(step).preds;

    let fill = |rows: &mut Vec<[Cell; 13]>, values: &[PredValues], mark: bool| {
        for pv in values {
            let initial = equations::doc(pv.pred).initial;
            for (row, b) in blocks.iter().enumerate() {
                let v = pv.blocks.get(b.id).is_some_and(|s| s.contains(e));
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
            for (k, changes) in fp.rounds.iter().enumerate().take(r + 1) {
                for c in changes {
                    let Some(&row) = row_of.get(&c.block) else { continue };
                    let cell = &mut rows[row][c.pred as usize];
                    cell.value = Some(c.new.contains(e));
                    cell.changed |= k == r && c.flips(e);
                }
            }
        }
        _ => fill(&mut rows, step_values(step), true),
    }
    Snapshot { rows, current }
}

/// The expression the view shows: `wanted` (by text) if the function has it, else the first
/// expression step 7 moves, else the first.
pub fn pick_expr(out: &LcmOutput, wanted: Option<&str>) -> Option<ExprId> {
    wanted
        .and_then(|w| out.expr_by_text(w))
        .or_else(|| out.moved().first().copied())
        .or_else(|| out.exprs.keys().next())
}

/// The sets the current step computed, in the seed's notation: `NdSafe = {n6, n7}`.
pub fn sets_line(out: &LcmOutput, snap: &Snapshot) -> String {
    snap.current
        .iter()
        .map(|&p| {
            let holders = out
                .trace
                .blocks
                .iter()
                .enumerate()
                .filter(|&(row, _)| snap.cell(row, p).value == Some(true))
                .map(|(_, b)| b.name.as_str());
            format!("{p} = {{{}}}", name_list(holders))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The blocks whose cells this step changed, per predicate: `NdSafe: n4, n7`.
pub fn changes_line(out: &LcmOutput, snap: &Snapshot) -> String {
    snap.current
        .iter()
        .filter_map(|&p| {
            let changed: Vec<&str> = out
                .trace
                .blocks
                .iter()
                .enumerate()
                .filter(|&(row, _)| snap.cell(row, p).changed)
                .map(|(_, b)| b.name.as_str())
                .collect();
            (!changed.is_empty()).then(|| format!("{p}: {}", name_list(changed)))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// What step 7 did to expression `e`, block by block.
pub fn edits_line(out: &LcmOutput, e: ExprId) -> String {
    use optlab_core::passes::lcm::{Edit, Point};
    let Some(Step::Transform { edits, .. }) = out.trace.steps.iter().find(|s| matches!(s, Step::Transform { .. }))
    else {
        return String::new();
    };
    // Listed in layout order (the table's rows), not in the order step 7 visited them.
    let row_of = |b: BlockId| out.trace.blocks.iter().position(|i| i.id == b);
    let mut found: Vec<(&str, usize, String)> = Vec::new();
    for d in edits {
        let (what, block, side) = match *d {
            Edit::Insert { expr, block, at, .. } if expr == e => {
                ("inserted", block, if at == Point::Entry { " (entry)" } else { " (exit)" })
            }
            Edit::Delete { expr, block, .. } if expr == e => ("deleted", block, ""),
            Edit::Keep { expr, block, .. } if expr == e => ("kept", block, ""),
            _ => continue,
        };
        let Some(row) = row_of(block) else { continue };
        found.push((what, row, format!("{}{side}", out.trace.blocks[row].name)));
    }
    found.sort_by_key(|&(_, row, _)| row);
    let of = |what: &str| -> Vec<String> { found.iter().filter(|f| f.0 == what).map(|f| f.2.clone()).collect() };
    let (inserted, deleted, kept) = (of("inserted"), of("deleted"), of("kept"));
    let text = out.trace.exprs.get(e.0 as usize).map_or("", String::as_str);
    if inserted.is_empty() && deleted.is_empty() {
        return format!("{text} does not move: its computations stay where they are");
    }
    let mut parts = Vec::new();
    for (what, list) in [("inserted at", inserted), ("deleted from", deleted), ("kept in", kept)] {
        if !list.is_empty() {
            parts.push(format!("{what} {}", name_list(list.iter().map(String::as_str))));
        }
    }
    format!("{text}: {}", parts.join(" · "))
}

/// A download name for the table of `expr` in `function`: `lcm-main-add_a_b.md`.
pub fn export_file_name(function: &str, expr: &str, ext: &str) -> String {
    let clean = |s: &str| -> String {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join("_")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
            .collect()
    };
    format!("lcm-{}-{}.{ext}", clean(function), clean(expr))
}
