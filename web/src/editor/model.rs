//! What the editor's coloured layer and gutter show, and the smallest DOM changes that get
//! them there. Pure: the component applies the [`Patch`]es to real elements, the tests to a
//! vector of strings, and both must end equal to a full redraw.
//!
//! Both layers are one `<div>` per line, so a keystroke redraws one line rather than a
//! 5,000-line program, and an error or selected line is a class on its row.

use super::text::{line_change, line_starts};
use super::Mark;
use crate::highlight::{escape_into, line_html};
use optlab_core::Lang;
use std::collections::{BTreeMap, BTreeSet};

/// A change to a list of row `<div>`s (the code layer or the gutter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Replace rows `at..at + remove` with `rows`.
    Splice { at: usize, remove: usize, rows: Vec<String> },
    /// Replace row `at` with `row`.
    Redraw { at: usize, row: String },
}

/// The changes to both layers after an update of the document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patch {
    pub code: Vec<Op>,
    pub gutter: Vec<Op>,
}

impl Patch {
    pub fn is_empty(&self) -> bool {
        self.code.is_empty() && self.gutter.is_empty()
    }
}

/// The text and decorations the layers show.
#[derive(Clone, Debug)]
pub struct Doc {
    lang: Lang,
    text: String,
    starts: Vec<usize>,
    /// Errors by 1-based line: (1-based column, message).
    errors: BTreeMap<u32, Vec<(u32, String)>>,
    active: BTreeSet<u32>,
    /// At least the width of the widest line in monospace cells (see [`cells`]).
    widest: usize,
    /// The text is longer than [`PLAIN_ABOVE`]: both layers are empty and the textarea shows
    /// its own, uncoloured text. Nothing is computed per line (no line index, no colouring,
    /// no width), so a multi-megabyte paste costs a copy of the text and nothing more.
    plain: bool,
}

/// Above this many bytes the editor stops colouring and numbering lines: colouring a
/// megabyte costs about 0.8 s in Chromium (one task), and the cost grows with the text.
/// The lab analyses texts up to [`crate::program::MAX_SOURCE_BYTES`]; those between the two
/// limits are analysed but shown plain.
pub const PLAIN_ABOVE: usize = 1 << 20;

/// An edit inserting more lines than this, most of the text, redraws everything.
const BIG_EDIT: usize = super::chunks::MAX_CHUNK;

/// A line's width in monospace cells: tabs are 4, other ASCII 1, anything else (CJK, emoji)
/// counted as 2 so the estimate errs wide.
pub fn cells(line: &str) -> usize {
    line.chars()
        .map(|c| {
            if c == '\t' {
                4
            } else if c.is_ascii() {
                1
            } else {
                2
            }
        })
        .sum()
}

impl Doc {
    pub fn new(lang: Lang) -> Doc {
        Doc {
            lang,
            text: String::new(),
            starts: vec![0],
            errors: BTreeMap::new(),
            active: BTreeSet::new(),
            widest: 0,
            plain: false,
        }
    }

    /// Whether the text is shown plain (too long to colour: see [`PLAIN_ABOVE`]).
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// Switches to plain text `text`: both layers emptied (once, on the way in).
    fn go_plain(&mut self, text: &str) -> Patch {
        let was_plain = std::mem::replace(&mut self.plain, true);
        let old_count = self.line_count();
        self.text = text.to_string();
        self.starts = vec![0];
        self.widest = 0;
        self.errors.clear();
        self.active.clear();
        if was_plain {
            return Patch::default();
        }
        Patch {
            code: vec![Op::Splice { at: 0, remove: old_count, rows: Vec::new() }],
            gutter: vec![Op::Splice { at: 0, remove: old_count, rows: Vec::new() }],
        }
    }

    /// The layer's width in cells: it only grows while typing (recomputed on [`Doc::reset`]).
    pub fn widest(&self) -> usize {
        self.widest
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Line `i` (0-based) without its newline.
    fn line(&self, i: usize) -> &str {
        let lo = self.starts.get(i).copied().unwrap_or(self.text.len());
        let hi = self.starts.get(i + 1).map_or(self.text.len(), |s| s - 1);
        self.text.get(lo..hi).unwrap_or("")
    }

    /// The `<div>` of code line `i` (0-based).
    pub fn code_row(&self, i: usize) -> String {
        let n = i as u32 + 1;
        let cols: Vec<u32> = self.errors.get(&n).map(|es| es.iter().map(|e| e.0).collect()).unwrap_or_default();
        let mut class = String::from("ce-line");
        if !cols.is_empty() {
            class.push_str(" ce-line-err");
        }
        if self.active.contains(&n) {
            class.push_str(" ce-line-active");
        }
        format!("<div class=\"{class}\">{}</div>", line_html(self.lang, self.line(i), &cols))
    }

    /// The `<div>` of gutter row `i` (0-based): the line number, and for a line with errors a
    /// marker whose hover shows the messages (`data-msg`).
    pub fn gutter_row(&self, i: usize) -> String {
        let n = i as u32 + 1;
        let active = if self.active.contains(&n) { " ce-num-active" } else { "" };
        match self.errors.get(&n) {
            None => format!("<div class=\"ce-num{active}\">{n}</div>"),
            Some(es) => {
                let mut msg = String::new();
                for (k, (col, m)) in es.iter().enumerate() {
                    if k > 0 {
                        msg.push('\n');
                    }
                    escape_into(&mut msg, &format!("{n}:{col} {m}"));
                }
                let msg = msg.replace('"', "&quot;");
                format!("<div class=\"ce-num ce-num-err{active}\" data-msg=\"{msg}\">{n}</div>")
            }
        }
    }

    fn all_rows(&self, row: impl Fn(&Doc, usize) -> String) -> Vec<String> {
        (0..self.line_count()).map(|i| row(self, i)).collect()
    }

    /// Replaces everything (a new program or language): both layers are redrawn.
    pub fn reset(&mut self, text: &str, lang: Lang) -> Patch {
        self.lang = lang;
        if text.len() > PLAIN_ABOVE {
            return self.go_plain(text);
        }
        // Leaving plain mode: the layers hold no rows.
        let old_count = if std::mem::replace(&mut self.plain, false) { 0 } else { self.line_count() };
        self.text = text.to_string();
        self.starts = line_starts(text);
        self.widest = text.split('\n').map(cells).max().unwrap_or(0);
        self.clamp();
        Patch {
            code: vec![Op::Splice { at: 0, remove: old_count, rows: self.all_rows(Doc::code_row) }],
            gutter: vec![Op::Splice { at: 0, remove: old_count, rows: self.all_rows(Doc::gutter_row) }],
        }
    }

    /// The user typed: the touched lines are redrawn (without their old error marks, which no
    /// longer point at the right place); marks and highlights of other lines move with them.
    pub fn edit(&mut self, new: &str) -> Patch {
        if new.len() > PLAIN_ABOVE {
            return self.go_plain(new);
        }
        if self.plain {
            return self.reset(new, self.lang);
        }
        let Some(ch) = line_change(&self.text, new) else { return Patch::default() };
        let old_count = self.line_count();
        let old_errors = std::mem::take(&mut self.errors);
        let old_active = std::mem::take(&mut self.active);
        self.errors = old_errors.iter().filter_map(|(l, e)| Some((ch.shift(*l)?, e.clone()))).collect();
        self.active = old_active.iter().filter_map(|l| ch.shift(*l)).collect();
        self.text = new.to_string();
        self.starts = line_starts(new);

        let wide = (ch.first..ch.first + ch.inserted).map(|i| cells(self.line(i))).max().unwrap_or(0);
        self.widest = self.widest.max(wide);
        if ch.inserted > BIG_EDIT && 2 * ch.inserted > self.line_count() {
            // Mostly new text (a paste over everything): drawing it whole, in fresh chunks,
            // is cheaper than splicing thousands of rows into one chunk and splitting it.
            return Patch {
                code: vec![Op::Splice { at: 0, remove: old_count, rows: self.all_rows(Doc::code_row) }],
                gutter: vec![Op::Splice { at: 0, remove: old_count, rows: self.all_rows(Doc::gutter_row) }],
            };
        }
        let rows = (ch.first..ch.first + ch.inserted).map(|i| self.code_row(i)).collect();
        let code = vec![Op::Splice { at: ch.first, remove: ch.removed, rows }];

        // The gutter's numbers never move: rows come and go at the end, and a row is redrawn
        // when its marker changed.
        let new_count = self.line_count();
        let mut gutter = Vec::new();
        if new_count != old_count {
            let keep = old_count.min(new_count);
            let rows = (keep..new_count).map(|i| self.gutter_row(i)).collect();
            gutter.push(Op::Splice { at: keep, remove: old_count - keep, rows });
        }
        let touched: BTreeSet<u32> = old_errors
            .keys()
            .chain(self.errors.keys())
            .chain(old_active.iter())
            .chain(self.active.iter())
            .copied()
            .filter(|&l| {
                old_errors.get(&l) != self.errors.get(&l) || old_active.contains(&l) != self.active.contains(&l)
            })
            .collect();
        self.redraw(&touched, old_count.min(new_count), &mut gutter, Doc::gutter_row);
        Patch { code, gutter }
    }

    /// New parse errors: the lines whose marks changed are redrawn.
    pub fn set_marks(&mut self, marks: &[Mark]) -> Patch {
        if self.plain {
            return Patch::default();
        }
        let mut errors: BTreeMap<u32, Vec<(u32, String)>> = BTreeMap::new();
        let last = self.line_count() as u32;
        for m in marks {
            errors.entry(m.line.clamp(1, last)).or_default().push((m.col.max(1), m.message.clone()));
        }
        let touched: BTreeSet<u32> =
            self.errors.keys().chain(errors.keys()).copied().filter(|l| self.errors.get(l) != errors.get(l)).collect();
        self.errors = errors;
        self.patch_lines(&touched)
    }

    /// New highlighted lines (1-based).
    pub fn set_active(&mut self, lines: &[u32]) -> Patch {
        if self.plain {
            return Patch::default();
        }
        let active: BTreeSet<u32> = lines.iter().copied().filter(|&l| l >= 1).collect();
        let touched: BTreeSet<u32> = self.active.symmetric_difference(&active).copied().collect();
        self.active = active;
        self.clamp();
        self.patch_lines(&touched)
    }

    fn patch_lines(&self, lines: &BTreeSet<u32>) -> Patch {
        let mut p = Patch::default();
        self.redraw(lines, self.line_count(), &mut p.code, Doc::code_row);
        self.redraw(lines, self.line_count(), &mut p.gutter, Doc::gutter_row);
        p
    }

    fn redraw(&self, lines: &BTreeSet<u32>, below: usize, ops: &mut Vec<Op>, row: fn(&Doc, usize) -> String) {
        for &l in lines {
            let i = l as usize - 1;
            if i < below {
                ops.push(Op::Redraw { at: i, row: row(self, i) });
            }
        }
    }

    /// Marks past the last line attach to it; highlights past it are dropped.
    fn clamp(&mut self) {
        let last = self.line_count() as u32;
        if let Some((&l, _)) = self.errors.range(last + 1..).next() {
            let moved: Vec<(u32, String)> = self.errors.split_off(&l).into_values().flatten().collect();
            self.errors.entry(last).or_default().extend(moved);
        }
        self.active.retain(|&l| l <= last);
    }

    /// Both layers drawn from scratch (what the patches must add up to).
    pub fn full(&self) -> (Vec<String>, Vec<String>) {
        if self.plain {
            return (Vec::new(), Vec::new());
        }
        (self.all_rows(Doc::code_row), self.all_rows(Doc::gutter_row))
    }
}

/// Applies `ops` to rows held as strings (the tests' stand-in for the DOM).
pub fn apply_to_strings(rows: &mut Vec<String>, ops: &[Op]) {
    for op in ops {
        match op {
            Op::Splice { at, remove, rows: new } => {
                let at = (*at).min(rows.len());
                let end = (at + remove).min(rows.len());
                rows.splice(at..end, new.iter().cloned());
            }
            Op::Redraw { at, row } => {
                if let Some(r) = rows.get_mut(*at) {
                    *r = row.clone();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(line: u32, col: u32, message: &str) -> Mark {
        Mark { line, col, message: message.to_string() }
    }

    /// Drives a doc and a string "DOM" through `steps`, checking after each that the patched
    /// rows equal a full redraw and that the patch was small.
    struct Rig {
        doc: Doc,
        code: Vec<String>,
        gutter: Vec<String>,
    }

    impl Rig {
        fn new(text: &str) -> Rig {
            let mut rig = Rig { doc: Doc::new(Lang::Bril), code: Vec::new(), gutter: Vec::new() };
            let p = rig.doc.reset(text, Lang::Bril);
            rig.apply(&p);
            rig
        }
        fn apply(&mut self, p: &Patch) {
            apply_to_strings(&mut self.code, &p.code);
            apply_to_strings(&mut self.gutter, &p.gutter);
            let (code, gutter) = self.doc.full();
            assert_eq!(self.code, code, "code layer after {p:?}");
            assert_eq!(self.gutter, gutter, "gutter after {p:?}");
        }
        fn edit(&mut self, text: &str) -> Patch {
            let p = self.doc.edit(text);
            self.apply(&p);
            p
        }
        fn marks(&mut self, marks: &[Mark]) -> Patch {
            let p = self.doc.set_marks(marks);
            self.apply(&p);
            p
        }
        fn active(&mut self, lines: &[u32]) -> Patch {
            let p = self.doc.set_active(lines);
            self.apply(&p);
            p
        }
    }

    fn rows_touched(ops: &[Op]) -> usize {
        ops.iter()
            .map(|op| match op {
                Op::Splice { remove, rows, .. } => (*remove).max(rows.len()),
                Op::Redraw { .. } => 1,
            })
            .sum()
    }

    fn program(n: usize) -> String {
        let mut s = String::from("@main {\n");
        for i in 0..n {
            s.push_str(&format!("  v{i}: int = const {i};\n"));
        }
        s.push_str("}\n");
        s
    }

    #[test]
    fn a_keystroke_redraws_one_line_of_a_big_program() {
        let text = program(5000);
        let mut rig = Rig::new(&text);
        assert_eq!(rig.code.len(), 5003);
        let typed = text.replacen("v2500: int = const 2500;", "v2500: int = const 25001;", 1);
        let p = rig.edit(&typed);
        assert_eq!(rows_touched(&p.code), 1);
        assert!(p.gutter.is_empty());
        // A new line: one line becomes two, and the gutter grows by one row at the end.
        let split = typed.replacen("v10: int", "v10:\n int", 1);
        let p = rig.edit(&split);
        assert_eq!(
            p.code,
            vec![Op::Splice { at: 11, remove: 1, rows: vec![rig.code[11].clone(), rig.code[12].clone()] }]
        );
        assert_eq!(rows_touched(&p.gutter), 1);
        assert!(rig.gutter.last().is_some_and(|r| r.contains(">5004<")));
    }

    #[test]
    fn pasting_over_everything_redraws_everything() {
        let mut rig = Rig::new(&program(3));
        let p = rig.edit(&program(2000));
        assert!(matches!(p.code[..], [Op::Splice { at: 0, remove: 6, .. }]));
        assert!(matches!(p.gutter[..], [Op::Splice { at: 0, remove: 6, .. }]));
        // A paste into a large program is still a splice.
        let mut big = program(2000);
        big.insert_str(9, &program(300));
        let p = rig.edit(&big);
        assert!(matches!(p.code[..], [Op::Splice { at: 1, remove: 1, .. }]));
    }

    #[test]
    fn marks_follow_their_lines_and_vanish_where_the_user_types() {
        let mut rig = Rig::new("@main {\n  x: int = const;\n  y: int = ad x x;\n}\n");
        let p = rig.marks(&[mark(2, 17, "expected a literal"), mark(3, 12, "unknown operation `ad`")]);
        assert_eq!(rows_touched(&p.code), 2);
        assert!(rig.code[1].contains("ce-line-err") && rig.code[1].contains("hl-err"));
        assert!(rig.gutter[2].contains("data-msg=\"3:12 unknown operation `ad`\""), "{}", rig.gutter[2]);
        assert!(!rig.gutter[0].contains("ce-num-err"));

        // A line inserted above: both marks move down one line, in the code and in the gutter.
        rig.edit("# c\n@main {\n  x: int = const;\n  y: int = ad x x;\n}\n");
        assert!(rig.code[2].contains("hl-err") && rig.code[3].contains("hl-err"));
        // The marker's message gives the line where the error now is.
        assert!(rig.gutter[3].contains("4:12 unknown") && !rig.gutter[1].contains("ce-num-err"), "{}", rig.gutter[3]);
        // Typing on a marked line drops its mark (it may be fixed); the other one stays.
        rig.edit("# c\n@main {\n  x: int = const 1;\n  y: int = ad x x;\n}\n");
        assert!(!rig.code[2].contains("hl-err") && rig.code[3].contains("hl-err"));
        // The re-analysis brings the remaining error; identical marks are no change at all.
        rig.marks(&[mark(4, 12, "unknown operation `ad`")]);
        assert!(rig.marks(&[mark(4, 12, "unknown operation `ad`")]).is_empty());
        // Fixed: no marks anywhere.
        rig.marks(&[]);
        assert!(rig.code.iter().chain(&rig.gutter).all(|r| !r.contains("err")));
    }

    #[test]
    fn marks_past_the_end_attach_to_the_last_line() {
        let mut rig = Rig::new("@main {\n  x: int = const 1;");
        rig.marks(&[mark(9, 1, "unexpected end of file"), mark(0, 0, "odd")]);
        assert!(rig.gutter[1].contains("unexpected end of file"));
        assert!(rig.gutter[0].contains("1:1 odd"));
        // The text shrinks below a mark: it stays on the (new) last line.
        rig.edit("@main {");
        let p = rig.doc.reset("@main", Lang::Sil);
        rig.apply(&p);
    }

    #[test]
    fn a_text_too_long_to_colour_empties_both_layers_and_comes_back() {
        let mut rig = Rig::new(&program(20));
        rig.marks(&[mark(2, 3, "m")]);
        let huge = program(PLAIN_ABOVE / 20);
        assert!(huge.len() > PLAIN_ABOVE);
        let p = rig.edit(&huge);
        assert!(rig.doc.is_plain() && rig.code.is_empty() && rig.gutter.is_empty(), "{:?}", p.code.len());
        assert_eq!(rig.doc.text(), huge);
        // While plain, edits, marks and highlights draw nothing at all.
        assert!(rig.edit(&format!("{huge}x")).is_empty());
        assert!(rig.marks(&[mark(1, 1, "the program is too long")]).is_empty());
        assert!(rig.active(&[1, 2]).is_empty());
        let p = rig.doc.reset(&huge, Lang::Sil);
        assert!(p.is_empty());
        // Back under the limit: everything is drawn again.
        rig.edit(&program(3));
        assert!(!rig.doc.is_plain() && rig.code.len() == 6);
        rig.edit(&huge);
        let p = rig.doc.reset(&program(2), Lang::Bril);
        rig.apply(&p);
        assert_eq!(rig.code.len(), 5);
    }

    #[test]
    fn the_widest_line_is_tracked_in_cells() {
        let mut rig = Rig::new("ab\n\tx\n");
        assert_eq!(rig.doc.widest(), 5);
        rig.edit("ab\n\tx\n漢字漢字");
        assert_eq!(rig.doc.widest(), 8);
        // Shrinking text keeps the width until the next reset (the layer never jumps narrower
        // while typing).
        rig.edit("ab\n");
        assert_eq!(rig.doc.widest(), 8);
        let p = rig.doc.reset("ab\n", Lang::Bril);
        rig.apply(&p);
        assert_eq!(rig.doc.widest(), 2);
    }

    #[test]
    fn messages_are_escaped_in_attributes_and_text() {
        let mut rig = Rig::new("x <y> & \"z\"");
        rig.marks(&[mark(1, 3, "bad `<y>` & \"z\"")]);
        assert!(rig.gutter[0].contains("data-msg=\"1:3 bad `&lt;y&gt;` &amp; &quot;z&quot;\""), "{}", rig.gutter[0]);
        assert!(!rig.code[0].contains("<y>"));
    }

    #[test]
    fn active_lines_are_a_class_on_both_layers() {
        let mut rig = Rig::new(&program(20));
        let p = rig.active(&[3, 4, 99, 0]);
        assert_eq!(rows_touched(&p.code), 2);
        assert!(rig.code[2].contains("ce-line-active") && rig.gutter[3].contains("ce-num-active"));
        let p = rig.active(&[4, 5]);
        assert_eq!(rows_touched(&p.code), 2);
        assert!(!rig.code[2].contains("ce-line-active"));
        rig.edit(&program(20).replacen("@main {\n", "@main {\n\n", 1));
        assert!(rig.code[4].contains("ce-line-active") && rig.code[5].contains("ce-line-active"));
    }

    /// Random edits, marks and selections on a small program; the patched layers always
    /// equal a full redraw (checked inside the rig).
    #[test]
    fn any_sequence_of_updates_adds_up_to_a_full_redraw() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let pieces = ["\n", "x", "  y: int = const 1;", "é", "\n\n", "# c", "@f {"];
        let mut rig = Rig::new(&program(6));
        for _ in 0..2000 {
            match next(5) {
                0 | 1 => {
                    let mut text = rig.doc.text().to_string();
                    let cut = |t: &str, at: usize| {
                        t.char_indices().map(|(i, _)| i).chain([t.len()]).nth(at).unwrap_or(t.len())
                    };
                    let n = text.chars().count();
                    let lo = cut(&text, next(n + 1));
                    let hi = cut(&text, next(n + 1)).max(lo).min(lo + 12);
                    let hi = if text.is_char_boundary(hi) { hi } else { lo };
                    text.replace_range(lo..hi, pieces[next(pieces.len())]);
                    rig.edit(&text);
                }
                2 => {
                    let marks: Vec<Mark> = (0..next(4)).map(|_| mark(next(12) as u32, next(30) as u32, "m")).collect();
                    rig.marks(&marks);
                }
                3 => {
                    let lines: Vec<u32> = (0..next(3)).map(|_| next(12) as u32).collect();
                    rig.active(&lines);
                }
                _ => {
                    if next(10) == 0 {
                        let text = program(next(8));
                        let p = rig.doc.reset(&text, if next(2) == 0 { Lang::Sil } else { Lang::Bril });
                        rig.apply(&p);
                    }
                }
            }
        }
    }
}
