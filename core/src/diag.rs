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

/// A named source text with a line index, to turn spans into line:col.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile { name: name.into(), text, line_starts }
    }

    /// The line and column of a byte offset (clamped into the text).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = (offset as usize).min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        LineCol { line: line as u32 + 1, col: col as u32 + 1 }
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else { return "" };
        let end = self.line_starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        self.text.get(start..end).unwrap_or("").trim_end_matches('\r')
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
    pub fn render(&self, file: &SourceFile) -> String {
        let lc = file.line_col(self.span.lo);
        let line = file.line_text(lc.line);
        let indent: String = line
            .chars()
            .take(lc.col as usize - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let span_chars = file
            .text
            .get(self.span.lo as usize..self.span.hi as usize)
            .map_or(1, |s| s.lines().next().unwrap_or("").chars().count())
            .max(1);
        let avail = line.chars().count().saturating_sub(lc.col as usize - 1).max(1);
        let carets = "^".repeat(span_chars.min(avail));
        format!(
            "{}:{}:{}: {}: {}\n{}\n{}{}",
            file.name, lc.line, lc.col, self.severity, self.message, line, indent, carets
        )
    }
}

/// All the errors found in one input; parsers recover and report several where they can.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{} error(s)", .0.len())]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.0.push(Diagnostic::error(span, message));
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
    /// Every diagnostic rendered, in source order, separated by blank-free newlines.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut sorted: Vec<&Diagnostic> = self.0.iter().collect();
        sorted.sort_by_key(|d| d.span.lo);
        sorted.iter().map(|d| d.render(file)).collect::<Vec<_>>().join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
