//! Tokens of SIL function headers and bodies.
//!
//! SIL writes types after a bare `$` with no closing delimiter
//! (`$@convention(thin) (Int32, Int32) -> Int32`), so the lexer scans a whole type into one
//! token; [`scan_type`] decides where a type ends from the shape of what it has read so far.
//! Every other token is ordinary: values `%x`, globals `@f`, member references `#S.x`,
//! identifiers, numbers, strings and punctuation. Newlines are tokens because an
//! instruction ends at the end of its line.

use crate::diag::{Diagnostic, Span};

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

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub kind: Kind,
    /// The token as it prints (for `Type`, normalized as described on [`Kind::Type`]).
    pub text: String,
    pub span: Span,
}

impl Token {
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
            _ => format!("`{}`", self.text),
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

/// Characters of value names, function names and labels.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Whitespace other than the newline, which ends instructions. Every kind counts, so that
/// the lexer and whitespace collapsing agree on what separates tokens.
fn is_blank(c: char) -> bool {
    c != '\n' && c.is_whitespace()
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
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
    pub errors: Vec<Diagnostic>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, pos: usize) -> Lexer<'a> {
        Lexer { src, pos, errors: Vec::new() }
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

    fn token(&self, kind: Kind, lo: usize) -> Token {
        Token { kind, text: self.src[lo..self.pos].to_string(), span: Span::new(lo, self.pos) }
    }

    fn error(&mut self, lo: usize, hi: usize, msg: impl Into<String>) -> Token {
        self.errors.push(Diagnostic::error(Span::new(lo, hi), msg));
        Token { kind: Kind::Error, text: self.src[lo..self.pos.max(lo)].to_string(), span: Span::new(lo, self.pos) }
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

    pub fn next_token(&mut self) -> Token {
        self.skip_blanks();
        let lo = self.pos;
        let Some(c) = self.rest().chars().next() else {
            return Token { kind: Kind::Eof, text: String::new(), span: Span::new(lo, lo) };
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
                    Token { kind: Kind::Type, text: format!("${text}"), span: Span::new(lo, end) }
                }
                Err(d) => {
                    self.pos = self.line_end();
                    self.errors.push(d);
                    Token { kind: Kind::Error, text: "$".into(), span: Span::new(lo, lo + 1) }
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

/// The byte length of the string literal at the start of `s` (which begins with `"`),
/// or `None` if the line or text ends before the closing quote.
pub(crate) fn string_len(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match c {
            '\n' => return None,
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(i + 1),
            _ => escaped = false,
        }
    }
    None
}

/// What the type read so far ends with; it decides whether a following `(`, `[` or word
/// still belongs to the type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    Start,
    /// `*`, `&`, `any`, `inout`, `throws`, …: a type must follow.
    Prefix,
    /// `@convention(thin)`, `@owned`
    Attr,
    /// A generic signature `<T where …>` before a function type.
    Sig,
    Arrow,
    /// A complete type (`Int32`, `(A, B)`, `Optional<T>`).
    Name,
}

const PREFIX_WORDS: &[&str] = &[
    "any",
    "some",
    "inout",
    "borrowing",
    "consuming",
    "sending",
    "isolated",
    "each",
    "repeat",
    "throws",
    "rethrows",
    "async",
    "__owned",
    "__shared",
];

/// Words that follow a type inside instructions (`%0 : $B to $C`, `%5 on %4`, `A in %0`).
const STOP_WORDS: &[&str] = &["to", "on", "in"];

fn word_len(s: &str) -> usize {
    s.chars().take_while(|&c| is_ident_char(c)).map(char::len_utf8).sum()
}

/// Scans a type starting at byte `start` (just after a `$`, or where a header type without
/// `$` begins). Returns the byte offset where it ends and its text with whitespace collapsed.
///
/// A type ends at the end of the line, at a `,` `:` `=` `;` or an unbalanced closer outside
/// brackets, at `{` after a complete type (a function body), at a `(` after a complete type
/// (`struct $Int32 (%7 : …)`, `tuple $(A, B) (%a, %b)`), and at the words `to`, `on`, `in`.
pub(crate) fn scan_type(src: &str, start: usize) -> Result<(usize, String), Diagnostic> {
    let mut i = start;
    let mut end = start;
    let mut out = String::new();
    let mut prev = Prev::Start;
    while let Some(rest0) = src.get(i..) {
        let j = i + rest0.len() - rest0.trim_start_matches(is_blank).len();
        let rest = &src[j..];
        let Some(c) = rest.chars().next() else { break };
        let (len, next) = if rest.starts_with("->") {
            (2, Prev::Arrow)
        } else if rest.starts_with("//") {
            break;
        } else {
            match c {
                '@' => {
                    let n: usize = rest[1..].chars().take_while(|&c| is_name_char(c)).map(char::len_utf8).sum();
                    if n == 0 {
                        break;
                    }
                    let mut l = 1 + n;
                    if rest[l..].starts_with('(') {
                        l += group_len(src, j + l)?;
                    }
                    (l, Prev::Attr)
                }
                '<' => {
                    let next = if prev == Prev::Name { Prev::Name } else { Prev::Sig };
                    (group_len(src, j)?, next)
                }
                '(' | '[' => {
                    if prev == Prev::Name {
                        break;
                    }
                    (group_len(src, j)?, Prev::Name)
                }
                '{' => {
                    if !matches!(prev, Prev::Start | Prev::Prefix | Prev::Attr) {
                        break;
                    }
                    (group_len(src, j)?, Prev::Name)
                }
                '*' | '&' | '~' => (1, Prev::Prefix),
                '?' | '!' if prev == Prev::Name => (1, Prev::Name),
                '.' if prev == Prev::Name && rest.starts_with("...") => (3, Prev::Name),
                _ if c.is_alphanumeric() || c == '_' => {
                    let n = word_len(rest);
                    let w = &rest[..n];
                    if prev == Prev::Name && STOP_WORDS.contains(&w) {
                        break;
                    }
                    (n, if PREFIX_WORDS.contains(&w) { Prev::Prefix } else { Prev::Name })
                }
                _ => break,
            }
        };
        if j > i && !out.is_empty() {
            out.push(' ');
        }
        push_collapsed(&mut out, &src[j..j + len]);
        prev = next;
        i = j + len;
        end = i;
    }
    if out.is_empty() {
        let lo = start.saturating_sub(1);
        return Err(Diagnostic::error(Span::new(lo, start), "expected a type after `$`"));
    }
    Ok((end, out))
}

/// The byte length of the bracketed group opening at `at`, through its matching closer.
fn group_len(src: &str, at: usize) -> Result<usize, Diagnostic> {
    let mut stack: Vec<char> = Vec::new();
    let s = &src[at..];
    let mut k = 0;
    while let Some(c) = s[k..].chars().next() {
        match c {
            '(' | '[' | '{' | '<' => stack.push(c),
            '-' if s[k..].starts_with("->") => {
                k += 2;
                continue;
            }
            ')' | ']' | '}' | '>' => {
                let open = stack.pop().unwrap_or(' ');
                let want = match open {
                    '(' => ')',
                    '[' => ']',
                    '{' => '}',
                    _ => '>',
                };
                if c != want {
                    return Err(Diagnostic::error(
                        Span::new(at + k, at + k + 1),
                        format!("mismatched `{c}` in type (expected `{want}`)"),
                    ));
                }
                if stack.is_empty() {
                    return Ok(k + 1);
                }
            }
            '"' => {
                let Some(n) = string_len(&s[k..]) else { break };
                k += n;
                continue;
            }
            '\n' => break,
            _ => {}
        }
        k += c.len_utf8();
    }
    let open = s.chars().next().unwrap_or('(');
    Err(Diagnostic::error(Span::new(at, at + open.len_utf8()), format!("unterminated `{open}` in type")))
}

/// Appends `s` with each run of whitespace outside string literals turned into one space.
pub(crate) fn push_collapsed(out: &mut String, s: &str) {
    let mut in_str = false;
    let mut escaped = false;
    let mut space = false;
    for c in s.chars() {
        if in_str {
            out.push(c);
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => in_str = false,
                _ => escaped = false,
            }
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        space = false;
        if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
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
