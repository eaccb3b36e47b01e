//! Source positions and user-facing errors.
//!
//! Every parse or verify error carries a byte [`Span`] into the text the user typed; the
//! editor marks it at line:col and the CLI prints it the way compilers do:
//!
//! ```text
//! prog.bril:3:12: error: unknown operation `ad`
//!   x: int = ad a b;
//!            ^^
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// A half-open byte range `lo..hi` into a source text.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub const DUMMY: Span = Span { lo: 0, hi: 0 };

    pub fn new(lo: usize, hi: usize) -> Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span { lo: clamp(lo), hi: clamp(hi.max(lo)) }
    }
    pub fn to(self, other: Span) -> Span {
        Span { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
    pub fn len(self) -> usize {
        (self.hi - self.lo) as usize
    }
    pub fn is_empty(self) -> bool {
        self.hi == self.lo
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.lo, self.hi)
    }
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Bytes between the character-count checkpoints of a [`SourceFile`]. A column costs at most
/// this many byte tests, whatever the length of its line.
const CHAR_MARK_STRIDE: usize = 256;

/// A named source text with a line index, to turn spans into line:col.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// `char_marks[k]` is the number of characters in `text[..k * CHAR_MARK_STRIDE]`
    /// (counted as bytes that start a character, so a checkpoint may fall inside one). With
    /// it a column is found without counting from the start of a line that may be megabytes
    /// long, once per diagnostic.
    char_marks: Vec<u32>,
    /// Where the text holds several files (a Bril program joined by `// file: NAME` lines):
    /// each later file's name and the 1-based line of its `// file:` line, in order. Empty
    /// for one file.
    files: Vec<(String, u32)>,
}

/// Whether `b` begins a UTF-8 character (is not a continuation byte).
fn starts_char(b: u8) -> bool {
    (b as i8) >= -0x40
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut char_marks = Vec::with_capacity(text.len() / CHAR_MARK_STRIDE + 1);
        let mut count = 0u32;
        char_marks.push(0);
        for chunk in text.as_bytes().chunks(CHAR_MARK_STRIDE) {
            count = count.saturating_add(chunk.iter().filter(|&&b| starts_char(b)).count() as u32);
            char_marks.push(count);
        }
        SourceFile { name: name.into(), text, line_starts, char_marks, files: Vec::new() }
    }

    /// A text that may hold several files, each after a line that begins with `mark` and
    /// gives its name (`// file: lib.bril`): positions are then told per file
    /// ([`SourceFile::locate`]), as each file's own line and column.
    pub fn with_files(name: impl Into<String>, text: impl Into<String>, mark: &str) -> Self {
        let mut f = SourceFile::new(name, text);
        for (k, &start) in f.line_starts.iter().enumerate() {
            let line = f.text.get(start..).unwrap_or("");
            let line = line.split('\n').next().unwrap_or("").trim_start_matches([' ', '\t']);
            if let Some(rest) = line.strip_prefix(mark) {
                f.files.push((rest.trim().to_string(), k as u32 + 1));
            }
        }
        f
    }

    /// The file and its own line:col of a byte offset: the text's name and [`line_col`]
    /// unless the text holds several files ([`SourceFile::with_files`]).
    ///
    /// [`line_col`]: SourceFile::line_col
    pub fn locate(&self, offset: u32) -> (&str, LineCol) {
        let lc = self.line_col(offset);
        match self.files.partition_point(|(_, at)| *at < lc.line).checked_sub(1) {
            Some(k) => (&self.files[k].0, LineCol { line: lc.line - self.files[k].1, col: lc.col }),
            None => (&self.name, lc),
        }
    }

    /// The number of characters in `text[..offset]` (`offset` clamped), in O(stride).
    fn chars_before(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        let k = offset / CHAR_MARK_STRIDE;
        let base = self.char_marks.get(k).copied().unwrap_or(0) as usize;
        let bytes = self.text.as_bytes().get(k * CHAR_MARK_STRIDE..offset).unwrap_or(&[]);
        base + bytes.iter().filter(|&&b| starts_char(b)).count()
    }

    /// The 0-based index of the line holding byte `offset` (clamped), and where it starts.
    fn line_of(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
        (line, self.line_starts.get(line).copied().unwrap_or(0))
    }

    /// The line and column of a byte offset (clamped into the text). Constant time in the
    /// length of the line (a binary search and one checkpoint's worth of bytes).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = (offset as usize).min(self.text.len());
        let (line, start) = self.line_of(offset);
        let col = self.chars_before(offset) - self.chars_before(start);
        LineCol { line: line as u32 + 1, col: col as u32 + 1 }
    }

    /// The byte range of 1-based line `line`, without its newline (or `\r\n`).
    fn line_range(&self, line: u32) -> (usize, usize) {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else { return (self.text.len(), self.text.len()) };
        let mut end = self.line_starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        if end > start && self.text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end)
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let (start, end) = self.line_range(line);
        self.text.get(start..end).unwrap_or("").trim_end_matches('\r')
    }
}

/// The longest text quoted from the source into a message or shown of a line: a diagnostic
/// costs the same whether the line or token it points into is short or megabytes long.
pub const MAX_SHOWN_CHARS: usize = 80;
/// Characters of the line shown before the column when the line is cut.
const SHOWN_BEFORE: usize = 30;

/// `text`, shortened to [`MAX_SHOWN_CHARS`] characters with `…` when longer: for messages
/// that quote a token the user wrote (an invalid number may be 100,000 digits).
pub fn snippet(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        None => text.into(),
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// One message about the source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{severity}: {message}")]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, span, message: message.into() }
    }
    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, span, message: message.into() }
    }

    /// `FILE:LINE:COL: error: message`, then the source line and a caret under the span.
    ///
    /// A line longer than [`MAX_SHOWN_CHARS`] is shown as a window around the column, cut
    /// with `…`, and the carets stop at the window: the cost is linear in what is printed,
    /// not in the length of the line, so a thousand errors on one megabyte-long line render
    /// as fast as on short lines.
    pub fn render(&self, file: &SourceFile) -> String {
        let lc = file.line_col(self.span.lo);
        let (ls, le) = file.line_range(lc.line);
        let (name, at_in_file) = file.locate(self.span.lo);
        let line = file.text.get(ls..le).unwrap_or("");
        // The column as a byte offset into `line`, on a character boundary.
        let mut at = (self.span.lo as usize).clamp(ls, le) - ls;
        while !line.is_char_boundary(at) {
            at -= 1;
        }
        let (from, to) = if line.len() <= MAX_SHOWN_CHARS {
            (0, line.len())
        } else {
            let from = line[..at].char_indices().rev().nth(SHOWN_BEFORE - 1).map_or(0, |(i, _)| i);
            let shown_before = line[from..at].chars().count();
            let to = line[at..].char_indices().nth(MAX_SHOWN_CHARS - shown_before).map_or(line.len(), |(i, _)| at + i);
            (from, to)
        };
        let mut shown = String::with_capacity(to - from + 8);
        let mut indent = String::new();
        if from > 0 {
            shown.push('…');
            indent.push(' ');
        }
        shown.push_str(&line[from..to]);
        if to < line.len() {
            shown.push('…');
        }
        indent.extend(line[from..at].chars().map(|c| if c == '\t' { '\t' } else { ' ' }));
        let hi = (self.span.hi as usize).clamp(ls + at, ls + to) - ls;
        let span_chars = line.get(at..hi).map_or(1, |s| s.chars().count()).max(1);
        format!(
            "{}:{}:{}: {}: {}\n{}\n{}{}",
            name,
            at_in_file.line,
            at_in_file.col,
            self.severity,
            self.message,
            shown,
            indent,
            "^".repeat(span_chars)
        )
    }
}

/// All the errors found in one input; parsers recover and report several where they can.
///
/// At most [`Diagnostics::MAX`] are kept: past that, [`Diagnostics::push`] only counts, and
/// rendering ends with "and N more errors". A hostile or mangled file (a line of 100,000 stray
/// characters) then costs a bounded list to keep, render and show in the editor — a user
/// fixes the first errors first anyway.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{} error(s)", self.total())]
pub struct Diagnostics(
    pub Vec<Diagnostic>,
    /// How many errors were reported past the cap and not kept.
    usize,
);

impl Diagnostics {
    /// Diagnostics kept per file.
    pub const MAX: usize = 100;

    /// Keeps the first [`Diagnostics::MAX`] of `all` (in their order) and counts the rest.
    pub fn from_vec(all: Vec<Diagnostic>) -> Self {
        let mut out = Diagnostics::default();
        for d in all {
            out.push(d);
        }
        out
    }
    /// Keeps `d` under the cap; past it an error is only counted and anything milder is
    /// dropped, so the count is of errors and [`Diagnostics::has_errors`] stays exact.
    pub fn push(&mut self, d: Diagnostic) {
        if self.0.len() < Self::MAX {
            self.0.push(d);
        } else if d.severity == Severity::Error {
            self.1 += 1;
        }
    }
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::error(span, message));
    }
    /// Adds every diagnostic of `other` (and its uncounted ones) under the cap.
    pub fn extend(&mut self, other: Diagnostics) {
        let extra = other.1;
        for d in other.0 {
            self.push(d);
        }
        self.1 += extra;
    }
    /// Counts `n` more errors that a producer did not even keep (see the SIL parser).
    pub fn count_omitted(&mut self, n: usize) {
        self.1 += n;
    }
    /// Whether the list is full: a producer may stop looking for more.
    pub fn is_full(&self) -> bool {
        self.0.len() >= Self::MAX
    }
    /// How many were reported, kept or not.
    pub fn total(&self) -> usize {
        self.0.len() + self.1
    }
    /// How many were reported but are not in the list.
    pub fn omitted(&self) -> usize {
        self.total().saturating_sub(self.0.len().min(Self::MAX))
    }
    pub fn has_errors(&self) -> bool {
        self.1 > 0 || self.0.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty() && self.1 == 0
    }
    /// The kept diagnostics (at most [`Diagnostics::MAX`], even if `.0` was filled directly).
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().take(Self::MAX)
    }
    /// The closing line when some were not kept: `and 3 more errors`.
    pub fn more_line(&self) -> Option<String> {
        match self.omitted() {
            0 => None,
            1 => Some("and 1 more error".to_string()),
            n => Some(format!("and {n} more errors")),
        }
    }
    /// Every kept diagnostic rendered, in source order, separated by newlines, then the
    /// "and N more errors" line if some were not kept.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut sorted: Vec<&Diagnostic> = self.iter().collect();
        sorted.sort_by_key(|d| d.span.lo);
        let mut out: Vec<String> = sorted.iter().map(|d| d.render(file)).collect();
        if let Some(more) = self.more_line() {
            out.push(format!("{}: {more}", file.name));
        }
        out.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_of_several_files_tells_positions_per_file() {
        let text = "@main {\n  call @f;\n}\n// file: lib.bril\n@f {\n  x: int = ad a b;\n}\n";
        let f = SourceFile::with_files("main.bril", text, "// file:");
        let lo = text.find("ad").unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 2), "unknown operation `ad`");
        assert_eq!(d.render(&f), "lib.bril:2:12: error: unknown operation `ad`\n  x: int = ad a b;\n           ^^");
        assert_eq!(f.locate(text.find("call").unwrap() as u32), ("main.bril", LineCol { line: 2, col: 3 }));
        // The mark's own line belongs to the file before it.
        let mark = text.find("// file").unwrap() as u32;
        assert_eq!(f.locate(mark).0, "main.bril");
    }

    #[test]
    fn renders_file_line_col_and_caret() {
        let f = SourceFile::new("p.bril", "@main {\n  x: int = ad a b;\n}\n");
        let lo = f.text.find("ad").unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 2), "unknown operation `ad`");
        assert_eq!(
            d.render(&f),
            "p.bril:2:12: error: unknown operation `ad`\n  x: int = ad a b;\n           ^^"
        );
    }

    #[test]
    fn line_col_counts_characters_and_clamps() {
        let f = SourceFile::new("x", "é€\nab");
        assert_eq!(f.line_col(5), LineCol { line: 1, col: 3 });
        assert_eq!(f.line_col(6), LineCol { line: 2, col: 1 });
        assert_eq!(f.line_col(999), LineCol { line: 2, col: 3 });
        // An offset inside a multi-byte character must not panic.
        let _ = f.line_col(1);
    }

    #[test]
    fn long_lines_render_as_a_window_around_the_column() {
        let line = format!("{}@{}", "a".repeat(5000), "b".repeat(5000));
        let f = SourceFile::new("w.bril", format!("x\n{line}\n"));
        let lo = f.text.find('@').unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 3), "here");
        let r = d.render(&f);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "w.bril:2:5001: error: here");
        assert!(lines[1].starts_with('…') && lines[1].ends_with('…'), "{}", lines[1]);
        assert_eq!(lines[1].chars().count(), MAX_SHOWN_CHARS + 2);
        // The caret stands under the `@` inside the window.
        let caret = lines[2].find('^').unwrap();
        assert_eq!(lines[1].chars().nth(caret), Some('@'));
        assert_eq!(lines[2].trim_start(), "^^^");
    }

    #[test]
    fn a_span_running_past_the_window_gets_carets_to_its_edge_only() {
        let f = SourceFile::new("w", "z".repeat(10_000));
        let r = Diagnostic::error(Span::new(0, 10_000), "all of it").render(&f);
        let lines: Vec<&str> = r.lines().collect();
        assert!(!lines[1].starts_with('…') && lines[1].ends_with('…'));
        assert_eq!(lines[2], "^".repeat(MAX_SHOWN_CHARS));
    }

    #[test]
    fn window_columns_count_characters_not_bytes() {
        let line = format!("{}X{}", "é".repeat(300), "€".repeat(300));
        let f = SourceFile::new("u", line);
        let lo = f.text.find('X').unwrap();
        assert_eq!(f.line_col(lo as u32), LineCol { line: 1, col: 301 });
        let r = Diagnostic::error(Span::new(lo, lo + 1), "m").render(&f);
        let lines: Vec<&str> = r.lines().collect();
        let caret = lines[2].chars().position(|c| c == '^').unwrap();
        assert_eq!(lines[1].chars().nth(caret), Some('X'));
    }

    #[test]
    fn columns_agree_with_counting_from_the_line_start() {
        let text: String = (0..2000).map(|k| ["a", "é", "€", "\n", "𝄞", "\t"][k * 7 % 6]).collect();
        let f = SourceFile::new("c", text.clone());
        for (off, _) in text.char_indices() {
            let line_start = text[..off].rfind('\n').map_or(0, |i| i + 1);
            let want = text[line_start..off].chars().count() as u32 + 1;
            assert_eq!(f.line_col(off as u32).col, want, "at {off}");
        }
    }

    #[test]
    fn the_list_keeps_max_and_counts_the_rest() {
        let mut d = Diagnostics::default();
        for k in 0..250 {
            d.error(Span::new(k, k + 1), format!("e{k}"));
        }
        assert_eq!(d.0.len(), Diagnostics::MAX);
        assert_eq!(d.total(), 250);
        assert_eq!(d.to_string(), "250 error(s)");
        let f = SourceFile::new("m.bril", "+".repeat(300));
        let r = d.render(&f);
        assert_eq!(r.lines().count(), 3 * Diagnostics::MAX + 1);
        assert_eq!(r.lines().last(), Some("m.bril: and 150 more errors"));
        let mut other = Diagnostics::default();
        other.error(Span::DUMMY, "x");
        other.extend(d);
        assert_eq!((other.0.len(), other.total()), (Diagnostics::MAX, 251));
        assert!(Diagnostics::from_vec(vec![Diagnostic::error(Span::DUMMY, "one")]).more_line().is_none());
    }

    #[test]
    fn snippets_cut_long_quotes() {
        assert_eq!(snippet("short"), "short");
        let long = "9".repeat(1000);
        let s = snippet(&long);
        assert_eq!(s.chars().count(), MAX_SHOWN_CHARS + 1);
        assert!(s.ends_with('…'));
    }
}
