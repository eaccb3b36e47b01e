//! What the LCM view says beside the predicate table: the picker's counts and choice, and a
//! step's sets, changes and edits in words. The table at a step is replayed in core
//! ([`LcmOutput::snapshot`]).

use optlab_core::passes::lcm::{name_list, ExprId, LcmOutput, Snapshot, Step};
use optlab_core::BlockId;

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
