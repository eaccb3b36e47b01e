//! Tokens of SIL function headers and bodies.
//!
//! SIL writes types after a bare `$` with no closing delimiter
//! (`$@convention(thin) (Int32, Int32) -> Int32`), so the lexer scans a whole type into one
//! token; [`scan_type`] decides where it ends with [`super::scan`], the scanner the web
//! highlighter shares.
//! Every other token is ordinary: values `%x`, globals `@f`, member references `#S.x`,
//! identifiers, numbers, strings and punctuation. Newlines are tokens because an
//! instruction ends at the end of its line.

pub(crate) use super::scan::{is_name_char, push_collapsed, string_len};
use super::scan::{is_blank, is_ident_char, scan};
use crate::diag::{Diagnostic, Span};
use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `%name`
    Value,
    /// `@name` or `@"quoted name"`: a function, global or an attribute such as `@owned`.
    Global,
    /// `$T`; the text keeps the `$`, with whitespace runs collapsed to one space.
    Type,
    Ident,
    /// A number, possibly negative or hexadecimal (`-1`, `0x3F800000`).
    Int,
    /// A string literal including its quotes.
    Str,
    /// `#Int32._value`, `#FakeOptional.some!enumelt`
    Hash,
    Punct,
    Newline,
    Eof,
    /// Malformed input whose diagnostic the lexer has already recorded.
    Error,
}

/// Borrowed from the source where the token is its own text (all but a type written with
/// runs of whitespace): a 10^5-block function is ~2.7 million tokens, and a `String` each
/// made the parser spend most of its time in the allocator (issue 17).
#[derive(Clone, Debug)]
pub(crate) struct Token<'a> {
    pub kind: Kind,
    /// The token as it prints (for `Type`, normalized as described on [`Kind::Type`]).
    pub text: Cow<'a, str>,
    pub span: Span,
}

impl Token<'_> {
    pub fn is_punct(&self, p: &str) -> bool {
        self.kind == Kind::Punct && self.text == p
    }
    pub fn is_ident(&self, w: &str) -> bool {
        self.kind == Kind::Ident && self.text == w
    }
    /// How an error message refers to the token.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Newline => "end of line".to_string(),
            Kind::Eof => "end of file".to_string(),
            _ => format!("`{}`", crate::diag::snippet(&self.text)),
        }
    }
    /// The name of a `%value` without the sigil.
    pub fn value_name(&self) -> &str {
        self.text.get(1..).unwrap_or("")
    }
    /// The text of a `$type` without the sigil.
    pub fn type_text(&self) -> &str {
        self.text.get(1..).unwrap_or("")
    }
    /// The name of an `@global`, unquoted.
    pub fn global_name(&self) -> String {
        let rest = self.text.get(1..).unwrap_or("");
        match rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(q) => unescape(q),
            None => rest.to_string(),
        }
    }
    /// The contents of a string literal between its quotes (escapes kept as written).
    pub fn str_content(&self) -> &str {
        self.text.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(&self.text)
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// Whether `name` can be written after `@` or `%` without quotes.
pub(crate) fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(is_name_char)
}

/// `@name`, quoted when it holds characters a bare name cannot.
pub(crate) fn global_ref(name: &str) -> String {
    if is_plain_name(name) {
        format!("@{name}")
    } else {
        let mut s = String::from("@\"");
        for c in name.chars() {
            if c == '"' || c == '\\' {
                s.push('\\');
            }
            s.push(c);
        }
        s.push('"');
        s
    }
}

fn unescape(q: &str) -> String {
    let mut out = String::new();
    let mut chars = q.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('"' | '\\')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

pub(crate) struct Lexer<'a> {
    src: &'a str,
    pub pos: usize,
    /// The first [`KEPT_ERRORS`] errors; the rest are only counted in `dropped`, so a line of
    /// a million stray `%` costs a counter, not a million messages.
    pub errors: Vec<Diagnostic>,
    pub dropped: usize,
}

/// Errors a lexer or parser keeps before it only counts (more than the file's report shows,
/// as duplicates are removed before the report is cut to [`crate::Diagnostics::MAX`]).
pub(crate) const KEPT_ERRORS: usize = 10 * crate::diag::Diagnostics::MAX;

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, pos: usize) -> Lexer<'a> {
        Lexer { src, pos, errors: Vec::new(), dropped: 0 }
    }

    fn rest(&self) -> &'a str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> usize {
        let n: usize = self.rest().chars().take_while(|&c| f(c)).map(char::len_utf8).sum();
        self.pos += n;
        n
    }

    fn line_end(&self) -> usize {
        self.rest().find('\n').map_or(self.src.len(), |i| self.pos + i)
    }

    fn token(&self, kind: Kind, lo: usize) -> Token<'a> {
        Token { kind, text: Cow::Borrowed(&self.src[lo..self.pos]), span: Span::new(lo, self.pos) }
    }

    fn push_error(&mut self, d: Diagnostic) {
        if self.errors.len() < KEPT_ERRORS {
            self.errors.push(d);
        } else {
            self.dropped += 1;
        }
    }

    fn error(&mut self, lo: usize, hi: usize, msg: impl Into<String>) -> Token<'a> {
        self.push_error(Diagnostic::error(Span::new(lo, hi), msg));
        Token { kind: Kind::Error, text: Cow::Borrowed(&self.src[lo..self.pos.max(lo)]), span: Span::new(lo, self.pos) }
    }

    /// Skips spaces, tabs and `//` comments, but not newlines.
    fn skip_blanks(&mut self) {
        loop {
            self.take_while(is_blank);
            if self.rest().starts_with("//") {
                self.pos = self.line_end();
            } else {
                break;
            }
        }
    }

    pub fn next_token(&mut self) -> Token<'a> {
        self.skip_blanks();
        let lo = self.pos;
        let Some(c) = self.rest().chars().next() else {
            return Token { kind: Kind::Eof, text: Cow::Borrowed(""), span: Span::new(lo, lo) };
        };
        match c {
            '\n' => {
                self.pos += 1;
                self.token(Kind::Newline, lo)
            }
            '%' => {
                self.pos += 1;
                if self.take_while(is_name_char) == 0 {
                    return self.error(lo, lo + 1, "expected a value name after `%`");
                }
                self.token(Kind::Value, lo)
            }
            '@' => {
                self.pos += 1;
                if self.rest().starts_with('"') {
                    if !self.string_body() {
                        self.pos = self.line_end();
                        return self.error(lo, lo + 1, "unterminated quoted name");
                    }
                } else if self.take_while(is_name_char) == 0 {
                    return self.error(lo, lo + 1, "expected a name after `@`");
                }
                self.token(Kind::Global, lo)
            }
            '$' => match scan_type(self.src, lo + 1) {
                Ok((end, text)) => {
                    self.pos = end;
                    // As written unless whitespace was collapsed.
                    let text = match self.src.get(lo..end) {
                        Some(w) if w.get(1..) == Some(text.as_str()) => Cow::Borrowed(w),
                        _ => Cow::Owned(format!("${text}")),
                    };
                    Token { kind: Kind::Type, text, span: Span::new(lo, end) }
                }
                Err(d) => {
                    self.pos = self.line_end();
                    self.push_error(d);
                    Token { kind: Kind::Error, text: Cow::Borrowed("$"), span: Span::new(lo, lo + 1) }
                }
            },
            '#' => {
                self.pos += 1;
                self.take_while(|c| is_ident_char(c) || c == '!' || c == '$');
                self.token(Kind::Hash, lo)
            }
            '"' => {
                if !self.string_body() {
                    self.pos = self.line_end();
                    return self.error(lo, lo + 1, "unterminated string literal");
                }
                self.token(Kind::Str, lo)
            }
            '-' if self.rest().starts_with("->") => {
                self.pos += 2;
                self.token(Kind::Punct, lo)
            }
            '-' if self.rest()[1..].starts_with(|d: char| d.is_ascii_digit()) => {
                self.pos += 1;
                self.take_while(is_ident_char);
                self.token(Kind::Int, lo)
            }
            _ if c.is_ascii_digit() => {
                self.take_while(is_ident_char);
                self.token(Kind::Int, lo)
            }
            _ if is_ident_start(c) => {
                self.take_while(is_ident_char);
                self.token(Kind::Ident, lo)
            }
            '.' if self.rest().starts_with("...") => {
                self.pos += 3;
                self.token(Kind::Punct, lo)
            }
            _ => {
                self.pos += c.len_utf8();
                self.token(Kind::Punct, lo)
            }
        }
    }

    /// Consumes `"…"` at the cursor; false (cursor unspecified) when the line ends first.
    fn string_body(&mut self) -> bool {
        match string_len(self.rest()) {
            Some(n) => {
                self.pos += n;
                true
            }
            None => false,
        }
    }
}

/// Scans a type starting at byte `start` (just after a `$`, or where a header type without
/// `$` begins); [`scan`] says where types end. Returns the byte offset where it ends and its
/// text with whitespace collapsed, or the first thing wrong with it.
pub(crate) fn scan_type(src: &str, start: usize) -> Result<(usize, String), Diagnostic> {
    let s = scan(src, start);
    if let Some(e) = s.error {
        return Err(e);
    }
    if s.text.is_empty() {
        let lo = start.saturating_sub(1);
        return Err(Diagnostic::error(Span::new(lo, start), "expected a type after `$`"));
    }
    Ok((s.end, s.text))
}

/// `s` with whitespace collapsed and trimmed.
pub(crate) fn collapse(s: &str) -> String {
    let mut out = String::new();
    push_collapsed(&mut out, s.trim());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> (String, String) {
        let (end, text) = scan_type(s, 0).unwrap();
        (text, s[end..].to_string())
    }

    #[test]
    fn types_end_where_instruction_syntax_resumes() {
        assert_eq!(ty("Int32, #Int32._value"), ("Int32".into(), ", #Int32._value".into()));
        assert_eq!(
            ty("@convention(thin) (Int32, Int32) -> Int32 {"),
            ("@convention(thin) (Int32, Int32) -> Int32".into(), " {".into())
        );
        assert_eq!(ty("Int32 (%7 : $Builtin.Int32)"), ("Int32".into(), " (%7 : $Builtin.Int32)".into()));
        assert_eq!(ty("(Klass, Klass) (%a, %b)"), ("(Klass, Klass)".into(), " (%a, %b)".into()));
        assert_eq!(ty("B to Builtin.NativeObject"), ("B".into(), " to Builtin.NativeObject".into()));
        assert_eq!(ty("*any Error\n"), ("*any Error".into(), "\n".into()));
        assert_eq!(
            ty("@convention(method) <τ_1_1 where τ_1_1 : Error> () -> (@error_indirect τ_1_1), normal bb2"),
            (
                "@convention(method) <τ_1_1 where τ_1_1 : Error> () -> (@error_indirect τ_1_1)".into(),
                ", normal bb2".into()
            )
        );
        assert_eq!(ty("<T> (@in T) -> @out T {"), ("<T> (@in T) -> @out T".into(), " {".into()));
        assert_eq!(ty("FakeOptional<Klass>)"), ("FakeOptional<Klass>".into(), ")".into()));
        assert_eq!(ty("Int   // c"), ("Int".into(), "   // c".into()));
        assert_eq!(ty("C from (%1 : $C)"), ("C".into(), " from (%1 : $C)".into()));
        assert_eq!(ty("*(A, B) with (%1 : $A)"), ("*(A, B)".into(), " with (%1 : $A)".into()));
        assert_eq!(ty("*Pack{Int, repeat each T} as $*Int"), ("*Pack{Int, repeat each T}".into(), " as $*Int".into()));
    }

    #[test]
    fn malformed_types_are_errors_not_panics() {
        assert!(scan_type("(Int", 0).is_err());
        assert!(scan_type("(Int]", 0).is_err());
        assert!(scan_type(" , x", 0).is_err());
        assert!(scan_type("@opened(\"x", 0).is_err());
        assert_eq!(scan_type("é(", 0).unwrap(), (2, "é".to_string()));
        assert!(scan_type("(é", 0).is_err());
    }
}
