//! A side-by-side line diff of two program texts: Myers' diff of the lines (the `similar`
//! crate), then, inside each changed hunk, deleted and inserted lines that are the same
//! statement are paired as *rewritten*.
//!
//! "The same statement" is judged by an anchor — the value a line defines (`%3`, `x`), or
//! "a terminator", or a block label — because the passes rewrite statements in place: DCE
//! turns a `cond_br` into a `br` and passes `undef`; LCM replaces `x: int = add a b` by
//! `x: int = id t`. Character similarity would pair the wrong lines (a dead literal looks
//! more like a `br` than a `cond_br` does).

use optlab_core::print::is_terminator_line;
use similar::{capture_diff_slices, Algorithm, DiffOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Same,
    Deleted,
    Inserted,
    Rewritten,
}

impl Change {
    pub fn class(self) -> &'static str {
        match self {
            Change::Same => "same",
            Change::Deleted => "deleted",
            Change::Inserted => "inserted",
            Change::Rewritten => "rewritten",
        }
    }
}

/// One line of one side: its 1-based number and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub line: usize,
    pub text: String,
}

/// One row of the side-by-side view; the side a line is missing from shows a gap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub change: Change,
    pub before: Option<Side>,
    pub after: Option<Side>,
}

/// How many lines of each kind a diff has (rewritten lines counted once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub deleted: usize,
    pub inserted: usize,
    pub rewritten: usize,
}

impl Counts {
    pub fn of(rows: &[Row]) -> Counts {
        let mut c = Counts::default();
        for r in rows {
            match r.change {
                Change::Same => {}
                Change::Deleted => c.deleted += 1,
                Change::Inserted => c.inserted += 1,
                Change::Rewritten => c.rewritten += 1,
            }
        }
        c
    }
}

/// Above this many line pairs a hunk is not searched for rewrites (its lines stay deleted
/// and inserted): the pairing is quadratic in the hunk.
const MAX_PAIRING: usize = 250_000;

/// What makes two differing lines "the same statement" (`None`: never paired).
fn anchor(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with("//") || t.starts_with('#') {
        return None;
    }
    if let Some(label) = t.strip_suffix(':').filter(|l| !l.contains(' ')) {
        return Some(format!("label {label}"));
    }
    // A SIL block header with arguments: `bb3(%6 : $Int):`.
    if t.ends_with("):") && !t.contains(" = ") {
        return Some(format!("label {}", t.split('(').next().unwrap_or(t)));
    }
    if let Some((lhs, _)) = t.split_once(" = ") {
        // Bril `x: int`, SIL `%3` or `(%1, %2)`.
        let name = lhs.split(':').next().unwrap_or(lhs).trim();
        return Some(format!("def {name}"));
    }
    // Core's printer says which printed lines are terminators (one list: `Op::is_terminator`).
    is_terminator_line(t).then(|| "terminator".to_string())
}

/// Pairs lines of `old` with lines of `new` that share an anchor, in order, as many as
/// possible (a longest common subsequence over anchors). Returns `(i, j)` index pairs.
fn pair_hunk(old: &[&str], new: &[&str]) -> Vec<(usize, usize)> {
    let (n, m) = (old.len(), new.len());
    if n == 0 || m == 0 || n.saturating_mul(m) > MAX_PAIRING {
        return Vec::new();
    }
    let a: Vec<Option<String>> = old.iter().map(|l| anchor(l)).collect();
    let b: Vec<Option<String>> = new.iter().map(|l| anchor(l)).collect();
    let matches = |i: usize, j: usize| a[i].is_some() && a[i] == b[j];
    // lcs[i][j]: pairs possible in old[i..], new[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if matches(i, j) { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        if matches(i, j) && lcs[i][j] == lcs[i + 1][j + 1] + 1 {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if lcs[i + 1][j] >= lcs[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

/// The side-by-side rows of `before` against `after`.
pub fn diff_rows(before: &str, after: &str) -> Vec<Row> {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let side = |lines: &[&str], i: usize| Some(Side { line: i + 1, text: lines[i].to_string() });
    let mut rows = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &old, &new) {
        let (o, n) = (op.old_range(), op.new_range());
        match op {
            DiffOp::Equal { .. } => {
                for (i, j) in o.zip(n) {
                    rows.push(Row { change: Change::Same, before: side(&old, i), after: side(&new, j) });
                }
            }
            _ => {
                let pairs = pair_hunk(&old[o.clone()], &new[n.clone()]);
                let (mut i, mut j) = (o.start, n.start);
                for (pi, pj) in pairs.into_iter().map(|(a, b)| (a + o.start, b + n.start)).chain([(o.end, n.end)]) {
                    // Unpaired lines before the next pair: deletions first, then insertions.
                    while i < pi {
                        rows.push(Row { change: Change::Deleted, before: side(&old, i), after: None });
                        i += 1;
                    }
                    while j < pj {
                        rows.push(Row { change: Change::Inserted, before: None, after: side(&new, j) });
                        j += 1;
                    }
                    if pi < o.end && pj < n.end {
                        rows.push(Row { change: Change::Rewritten, before: side(&old, pi), after: side(&new, pj) });
                        i += 1;
                        j += 1;
                    }
                }
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[Row], change: Change) -> Vec<(String, String)> {
        let t = |s: &Option<Side>| s.as_ref().map_or(String::new(), |s| s.text.trim().to_string());
        rows.iter().filter(|r| r.change == change).map(|r| (t(&r.before), t(&r.after))).collect()
    }

    /// Both sides, read back from the rows, are exactly the two texts.
    fn check_sides(before: &str, after: &str, rows: &[Row]) {
        let left: Vec<&str> = rows.iter().filter_map(|r| r.before.as_ref()).map(|s| s.text.as_str()).collect();
        let right: Vec<&str> = rows.iter().filter_map(|r| r.after.as_ref()).map(|s| s.text.as_str()).collect();
        assert_eq!(left, before.lines().collect::<Vec<_>>());
        assert_eq!(right, after.lines().collect::<Vec<_>>());
        let nums: Vec<usize> = rows.iter().filter_map(|r| r.before.as_ref()).map(|s| s.line).collect();
        assert_eq!(nums, (1..=left.len()).collect::<Vec<_>>());
        for r in rows {
            match r.change {
                Change::Same => assert_eq!(r.before.as_ref().map(|s| &s.text), r.after.as_ref().map(|s| &s.text)),
                Change::Deleted => assert!(r.before.is_some() && r.after.is_none()),
                Change::Inserted => assert!(r.before.is_none() && r.after.is_some()),
                Change::Rewritten => assert!(r.before.is_some() && r.after.is_some() && r.before != r.after),
            }
        }
    }

    #[test]
    fn a_rewritten_branch_pairs_with_the_branch_not_with_a_dead_literal() {
        let before = "bb0:\n  %0 = integer_literal $Builtin.Int1, 1\n  cond_br %0, bb1, bb2\n\nbb1:\n  br bb3\n\nbb3:\n  return %7 : $()\n";
        let after = "bb0:\n  br bb3(undef : $Builtin.Int64)\n\nbb3:\n  return %7 : $()\n";
        let rows = diff_rows(before, after);
        check_sides(before, after, &rows);
        assert_eq!(
            texts(&rows, Change::Rewritten),
            [("cond_br %0, bb1, bb2".to_string(), "br bb3(undef : $Builtin.Int64)".to_string())]
        );
        let deleted: Vec<String> = texts(&rows, Change::Deleted).into_iter().map(|p| p.0).collect();
        assert_eq!(deleted, ["%0 = integer_literal $Builtin.Int1, 1", "", "bb1:", "br bb3"]);
        assert_eq!(Counts::of(&rows), Counts { deleted: 4, inserted: 0, rewritten: 1 });
    }

    #[test]
    fn an_lcm_replacement_pairs_by_the_defined_name() {
        let before = "@main {\n  a: int = const 1;\n  x: int = add a b;\n  print x;\n}\n";
        let after = "@main {\n  a: int = const 1;\n  t: int = add a b;\n  x: int = id t;\n  print x;\n}\n";
        let rows = diff_rows(before, after);
        check_sides(before, after, &rows);
        assert_eq!(texts(&rows, Change::Rewritten), [("x: int = add a b;".to_string(), "x: int = id t;".to_string())]);
        assert_eq!(texts(&rows, Change::Inserted), [(String::new(), "t: int = add a b;".to_string())]);
    }

    #[test]
    fn identical_and_empty_texts() {
        let t = "a\nb\n";
        let rows = diff_rows(t, t);
        assert!(rows.iter().all(|r| r.change == Change::Same));
        assert_eq!(rows.len(), 2);
        assert!(diff_rows("", "").is_empty());
        let rows = diff_rows("", "x = 1\n");
        assert_eq!(Counts::of(&rows), Counts { deleted: 0, inserted: 1, rewritten: 0 });
        check_sides("", "x = 1\n", &rows);
    }

    #[test]
    fn anchors() {
        assert_eq!(anchor("  %3 = struct_extract %0"), Some("def %3".into()));
        assert_eq!(anchor("  x: int = add a b;"), Some("def x".into()));
        assert_eq!(anchor("  jmp .done;"), Some("terminator".into()));
        assert_eq!(anchor("  ret;"), Some("terminator".into()));
        // The copied list this replaced had missed it.
        assert_eq!(anchor("  throw_addr"), Some("terminator".into()));
        assert_eq!(anchor("  cond_br %0, bb1, bb2"), Some("terminator".into()));
        assert_eq!(anchor(".loop:"), Some("label .loop".into()));
        assert_eq!(anchor("bb3(%6 : $Int):"), Some("label bb3".into()));
        assert_eq!(anchor("  print x;"), None);
        assert_eq!(anchor(""), None);
    }

    #[test]
    fn a_huge_hunk_is_not_paired_but_still_complete() {
        let before: String = (0..600).map(|i| format!("  v{i}: int = const {i};\n")).collect();
        let after: String = (0..600).map(|i| format!("  v{i}: int = const {};\n", i + 1)).collect();
        let rows = diff_rows(&before, &after);
        check_sides(&before, &after, &rows);
        assert_eq!(Counts::of(&rows).rewritten, 0);
    }
}
