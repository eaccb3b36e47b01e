//! The available-copies table: one row per block in layout order, the copies available at
//! its start (IN) and end (OUT) as of a round of the fixpoint, rebuilt by core's
//! [`Trace::avail_at_round`] from the recorded changes. The cells the round changed are
//! outlined.

use optlab_core::entity::EntitySet;
use optlab_core::passes::copyprop::{CopyId, Trace};
use optlab_core::{BlockId, Function};
use yew::prelude::*;

/// One copy as the table shows it: `x ← y`, with the trace's text `x = id y` as its title.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyChip {
    pub short: String,
    pub text: String,
}

/// A set of copies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Set {
    /// Every copy: the optimistic start of a must-analysis, and what an unreachable block
    /// keeps (no path establishes anything there, so nothing is removed).
    Top,
    /// The first [`CHIPS_SHOWN`] copies and how many more there are (a block deep in a long
    /// chain of copies has thousands available; a cell lists a few and counts the rest).
    Copies(Vec<CopyChip>, usize),
}

/// At most this many copies are drawn in a cell.
pub const CHIPS_SHOWN: usize = 12;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub set: Set,
    /// The round shown changed this set.
    pub changed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub block: BlockId,
    /// `.name`.
    pub name: String,
    pub reachable: bool,
    pub entry: bool,
    pub ins: Cell,
    pub outs: Cell,
}

fn chip(f: &Function, trace: &Trace, c: CopyId) -> CopyChip {
    match trace.copies.get(c.0 as usize) {
        Some(info) => CopyChip {
            short: format!("{} ← {}", f.value_name(info.dest), f.value_name(info.src)),
            text: info.text.clone(),
        },
        None => CopyChip { short: c.to_string(), text: c.to_string() },
    }
}

/// The table after `rounds_done` rounds (`0`: the start; the last round's is the fixpoint).
/// With `mark_changes`, the cells round `rounds_done` changed are marked. `f` is the function
/// the pass ran on (for names).
pub fn rows(f: &Function, trace: &Trace, rounds_done: usize, mark_changes: bool) -> Vec<Row> {
    let sets = trace.avail_at_round(rounds_done);
    let round = rounds_done.checked_sub(1).and_then(|r| trace.rounds.get(r)).filter(|_| mark_changes);
    let entry = f.entry();
    let start = rounds_done == 0;
    trace
        .blocks
        .iter()
        .map(|&(b, reachable)| {
            let is_entry = Some(b) == entry;
            let cell = |ids: Option<&EntitySet<CopyId>>, top: bool, changed: bool| Cell {
                set: match ids {
                    _ if top => Set::Top,
                    None => Set::Copies(Vec::new(), 0),
                    Some(set) => Set::Copies(
                        set.iter().take(CHIPS_SHOWN).map(|c| chip(f, trace, c)).collect(),
                        set.count().saturating_sub(CHIPS_SHOWN),
                    ),
                },
                changed,
            };
            let ins_changed = round.is_some_and(|r| r.ins.iter().any(|c| c.block == b));
            let outs_changed = round.is_some_and(|r| r.outs.iter().any(|c| c.block == b));
            let i = b.0 as usize;
            Row {
                block: b,
                name: f.block_in_code(b),
                reachable,
                entry: is_entry,
                ins: cell(sets.ins.get(i), !reachable || (start && !is_entry), ins_changed),
                outs: cell(sets.outs.get(i), !reachable || start, outs_changed),
            }
        })
        .collect()
}

/// The table's caption for a step.
pub fn caption(trace: &Trace, rounds_done: usize, final_table: bool) -> String {
    let n = trace.rounds.len();
    if final_table {
        format!("Available copies at the fixpoint ({n} round{})", if n == 1 { "" } else { "s" })
    } else if rounds_done == 0 {
        "Available copies before the first round: ⊤ (every copy) everywhere but at the entry".to_string()
    } else {
        format!("Available copies after round {rounds_done} of {n}")
    }
}

fn set_html(c: &Cell, col: &'static str) -> Html {
    let class = classes!(col, c.changed.then_some("changed"));
    match &c.set {
        Set::Top => html! {
            <td {class}><span class="cp-top" title="every copy: the optimistic start; no path has removed any">{ "⊤" }</span></td>
        },
        Set::Copies(v, 0) if v.is_empty() => html! { <td {class}><span class="cp-empty" title="no copy is available">{ "∅" }</span></td> },
        Set::Copies(v, more) => html! {
            <td {class}>
                { for v.iter().map(|c| html! { <code class="cp-copy" title={c.text.clone()}>{ c.short.clone() }</code> }) }
                if *more > 0 { <span class="cp-more">{ format!("and {more} more") }</span> }
            </td>
        },
    }
}

/// The table (no interaction: stepping is the step bar's).
pub fn table_html(rows: &[Row], caption: &str) -> Html {
    let body = rows.iter().map(|r| {
        let class = classes!((!r.reachable).then_some("unreachable"), r.entry.then_some("entry"));
        html! {
            <tr {class} data-block={r.name.clone()}>
                <th scope="row">
                    { r.name.clone() }
                    if r.entry { <span class="cp-note">{ " entry" }</span> }
                    if !r.reachable { <span class="cp-note">{ " unreachable" }</span> }
                </th>
                { set_html(&r.ins, "in") }
                { set_html(&r.outs, "out") }
            </tr>
        }
    });
    html! {
        <table class="cp-table" id="cp-table">
            <caption>{ caption.to_string() }</caption>
            <thead>
                <tr>
                    <th scope="col">{ "block" }</th>
                    <th scope="col" title="copies available at the start of the block">{ "IN" }</th>
                    <th scope="col" title="copies available at the end of the block">{ "OUT" }</th>
                </tr>
            </thead>
            <tbody>{ for body }</tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::copyprop::fixture::{fixture, TEACH};

    fn shorts(c: &Cell) -> Vec<&str> {
        match &c.set {
            Set::Top => vec!["⊤"],
            Set::Copies(v, _) => v.iter().map(|c| c.short.as_str()).collect(),
        }
    }

    fn row<'a>(rows: &'a [Row], name: &str) -> &'a Row {
        rows.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no row {name}"))
    }

    #[test]
    fn the_start_is_top_everywhere_but_the_entry() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let rows = rows(&fx.original, t, 0, true);
        assert_eq!(rows.len(), fx.original.layout.len());
        assert_eq!(rows[0].name, ".b0");
        assert!(rows[0].entry);
        assert_eq!(shorts(&rows[0].ins), ["" ; 0], "nothing is available on entry");
        assert_eq!(rows[0].ins.set, Set::Copies(vec![], 0));
        assert_eq!(shorts(&rows[0].outs), ["⊤"]);
        for r in &rows[1..] {
            assert_eq!((r.ins.set.clone(), r.outs.set.clone()), (Set::Top, Set::Top), "{}", r.name);
        }
        assert!(rows.iter().all(|r| !r.ins.changed && !r.outs.changed), "no round yet");
    }

    #[test]
    fn the_fixpoint_has_the_join_copy_and_not_the_killed_one() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let n = t.rounds.len();
        let rows = rows(&fx.original, t, n, false);
        assert_eq!(shorts(&row(&rows, ".j").ins), ["b ← a", "c ← b", "x ← a"], "the same copy on both arms survives the meet");
        assert!(shorts(&row(&rows, ".head").ins).iter().all(|c| *c != "last ← i"), "the loop assigns i");
        assert!(shorts(&row(&rows, ".j").outs).contains(&"last ← i"));
        assert!(rows.iter().all(|r| !r.ins.changed && !r.outs.changed));
        let chip = match &row(&rows, ".j").ins.set {
            Set::Copies(v, _) => v[2].clone(),
            Set::Top => panic!(),
        };
        assert_eq!(chip.text, "x = id a", "the title is the trace's own text");
    }

    #[test]
    fn a_round_marks_exactly_the_sets_it_changed() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        for r in 1..=t.rounds.len() {
            let rows = rows(&fx.original, t, r, true);
            let before = super::rows(&fx.original, t, r - 1, false);
            let round = &t.rounds[r - 1];
            for (row, old) in rows.iter().zip(&before) {
                assert_eq!(row.ins.changed, round.ins.iter().any(|c| c.block == row.block), "round {r} {}", row.name);
                assert_eq!(row.outs.changed, round.outs.iter().any(|c| c.block == row.block), "round {r} {}", row.name);
                // From round 2 on (before it, ⊤ is shown as ⊤), a set changes iff it is outlined.
                if r > 1 {
                    assert_eq!(row.ins.changed, row.ins.set != old.ins.set, "round {r} {}", row.name);
                    assert_eq!(row.outs.changed, row.outs.set != old.outs.set, "round {r} {}", row.name);
                }
            }
        }
        let last = rows(&fx.original, t, t.rounds.len(), true);
        assert!(last.iter().all(|r| !r.ins.changed && !r.outs.changed), "the last round proves the fixpoint");
    }

    #[test]
    fn unreachable_blocks_are_marked_and_stay_top() {
        let src = "@main {\n  y: int = const 1;\n  x: int = id y;\n  jmp .j;\n.dead:\n  y: int = const 5;\n  jmp .j;\n.j:\n  print x;\n}\n";
        let fx = fixture(src);
        let t = &fx.out().trace;
        let rows = rows(&fx.original, t, t.rounds.len(), false);
        let dead = row(&rows, ".dead");
        assert!(!dead.reachable);
        assert_eq!((dead.ins.set.clone(), dead.outs.set.clone()), (Set::Top, Set::Top));
        assert_eq!(shorts(&row(&rows, ".j").ins), ["x ← y"], "the unreachable edge does not weaken the join");
    }

    #[test]
    fn captions_name_the_round() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let n = t.rounds.len();
        assert!(caption(t, 0, false).starts_with("Available copies before the first round"));
        assert_eq!(caption(t, 1, false), format!("Available copies after round 1 of {n}"));
        assert_eq!(caption(t, n, true), format!("Available copies at the fixpoint ({n} rounds)"));
    }
}
