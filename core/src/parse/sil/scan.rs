//! Where a SIL type ends, and the SIL words tools colour — shared by the parser's lexer and
//! the web app's syntax highlighter, so the two cannot drift apart.
//!
//! SIL writes types after a bare `$` with no closing delimiter
//! (`$@convention(thin) (Int32, Int32) -> Int32 {`); [`scan`] decides where one ends from the
//! shape of what it has read so far. The lexer wants errors (an unbalanced bracket is a
//! diagnostic); a highlighter colours a line while it is being typed and must never fail —
//! [`type_end`] is the same scan with the errors dropped: an unterminated group runs to the
//! end of the line, a mismatched closer closes whatever is open.

use crate::diag::{Diagnostic, Span};

/// Words that begin a top-level item the parser keeps verbatim (besides any `sil_*` keyword
/// and `@attribute`/`#directive` lines): Swift declarations and their modifiers.
pub const DECL_WORDS: &[&str] = &[
    "import",
    "typealias",
    "struct",
    "class",
    "enum",
    "protocol",
    "extension",
    "func",
    "var",
    "let",
    "public",
    "internal",
    "private",
    "fileprivate",
    "open",
    "final",
    "package",
    "actor",
    "precedencegroup",
    "infix",
    "prefix",
    "postfix",
    "operator",
    "indirect",
    "init",
    "deinit",
    "subscript",
    "associatedtype",
    "nonisolated",
    "dynamic",
    "override",
    "static",
    "mutating",
    "nonmutating",
    "required",
    "convenience",
    "lazy",
    "weak",
    "unowned",
    "optional",
    "macro",
    "distributed",
];

/// Linkages a `sil` function header may name before the function.
pub const LINKAGES: &[&str] = &[
    "public",
    "hidden",
    "shared",
    "private",
    "package",
    "public_external",
    "hidden_external",
    "shared_external",
    "private_external",
    "package_external",
    "public_non_abi",
    "package_non_abi",
    "non_abi",
];

/// The stages a `sil_stage` line names.
pub const STAGES: &[&str] = &["canonical", "raw", "lowered"];

/// `@word`s that are attributes (ownership, conventions, parameter kinds), not functions or
/// globals. The parser reads any `@word` in a type or before a value alike; a highlighter
/// needs the list to colour `@owned` differently from `@main`.
pub const ATTRIBUTES: &[&str] = &[
    "owned",
    "guaranteed",
    "unowned",
    "none",
    "reborrow",
    "inout",
    "inout_aliasable",
    "in",
    "out",
    "in_guaranteed",
    "in_constant",
    "noescape",
    "escaping",
    "convention",
    "callee_guaranteed",
    "callee_owned",
    "error",
    "error_indirect",
    "thin",
    "thick",
    "sil_weak",
    "sil_unowned",
    "dynamic_self",
    "autoreleased",
    "closureCapture",
    "noImplicitCopy",
    "sil_isolated",
    "pack_owned",
    "pack_guaranteed",
    "pack_inout",
    "pack_out",
    "opened",
    "unowned_inner_pointer",
    "guaranteed_address",
    "yields",
];

/// Words after which a type must continue (`any P`, `inout T`, `throws ->`).
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

/// Words that follow a type inside instructions (`%0 : $B to $C`, `%5 on %4`, `A in %0`,
/// `%2 : $T from (%1)`, `%0 : $*(A, B) with (…)`, `%1 : $(repeat each T) as $U`, …).
const STOP_WORDS: &[&str] = &[
    "to", "on", "in", "from", "from_scopes", "with", "withoutEscaping", "with_derivative", "with_transpose", "as",
    "into", "of",
];

/// Characters of value names, function names and labels.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Whitespace other than the newline, which ends instructions. Every kind counts, so that
/// the lexer and whitespace collapsing agree on what separates tokens.
pub(crate) fn is_blank(c: char) -> bool {
    c != '\n' && c.is_whitespace()
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

fn word_len(s: &str) -> usize {
    s.chars().take_while(|&c| is_ident_char(c)).map(char::len_utf8).sum()
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

/// A type as [`scan`] read it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Scanned {
    /// The byte offset where the type ends (never before the start, always a char boundary).
    pub end: usize,
    /// The type's text with whitespace runs collapsed to one space (empty: no type there).
    pub text: String,
    /// The first thing wrong with it, for the parser; a highlighter ignores it.
    pub error: Option<Diagnostic>,
}

/// Scans a type starting at byte `start` (just after a `$`, or where a header type without
/// `$` begins).
///
/// A type ends at the end of the line, at a `,` `:` `=` `;` or an unbalanced closer outside
/// brackets, at `{` after a complete type (a function body), at a `(` after a complete type
/// (`struct $Int32 (%7 : …)`, `tuple $(A, B) (%a, %b)`), and at the words `to`, `on`, `in`.
/// A bracket group that the line does not close runs to the end of the line; a mismatched
/// closer closes the innermost group. Both are recorded in [`Scanned::error`].
pub(crate) fn scan(src: &str, start: usize) -> Scanned {
    scan_with(src, start, false)
}

/// [`scan`], except that with `multiline` a bracket group may continue on the next line
/// where a signature written over several lines does: after a line ending in `(` or `,`, or
/// before a line starting with `)`. Only a function header's type is read so; instruction
/// types and the highlighter stay within their line.
pub(crate) fn scan_with(src: &str, start: usize, multiline: bool) -> Scanned {
    let start = start.min(src.len());
    let mut i = start;
    let mut end = start;
    let mut out = String::new();
    let mut error = None;
    let mut prev = Prev::Start;
    let group = |at: usize, error: &mut Option<Diagnostic>| {
        let (len, e) = group_len(src, at, multiline);
        if error.is_none() {
            *error = e;
        }
        len
    };
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
                        l += group(j + l, &mut error);
                    }
                    (l, Prev::Attr)
                }
                '<' => {
                    let next = if prev == Prev::Name { Prev::Name } else { Prev::Sig };
                    (group(j, &mut error), next)
                }
                '(' | '[' => {
                    if prev == Prev::Name {
                        break;
                    }
                    (group(j, &mut error), Prev::Name)
                }
                // A box type `{ var T }`, also generic: `<τ_0_0> { var τ_0_0 } <Int>` (its
                // substitutions follow as `<…>` after a name).
                // A pack type's elements: `Pack{A, repeat each T}`.
                '{' if prev == Prev::Name && out.ends_with("Pack") => (group(j, &mut error), Prev::Name),
                '{' => {
                    if !matches!(prev, Prev::Start | Prev::Prefix | Prev::Attr | Prev::Sig) {
                        break;
                    }
                    (group(j, &mut error), Prev::Name)
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
    Scanned { end, text: out, error }
}

/// Where the type starting at byte `start` of `text` (just after its `$`) ends: a byte
/// offset at or after `start` and no further than the end of the line. Never fails —
/// a malformed or unfinished type ends where the parser would have given up, at the latest
/// at the end of the line — which is what a highlighter colouring text as it is typed needs.
pub fn type_end(text: &str, start: usize) -> usize {
    if !text.is_char_boundary(start.min(text.len())) {
        return start.min(text.len());
    }
    scan(text, start).end
}

/// The byte length of the bracketed group opening at `at`, through its matching closer, and
/// what was wrong with it. An unterminated group runs to the end of the line.
fn group_len(src: &str, at: usize, multiline: bool) -> (usize, Option<Diagnostic>) {
    let mut stack: Vec<char> = Vec::new();
    let s = &src[at..];
    let mut error = None;
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
                if c != want && error.is_none() {
                    error = Some(Diagnostic::error(
                        Span::new(at + k, at + k + 1),
                        format!("mismatched `{c}` in type (expected `{want}`)"),
                    ));
                }
                if stack.is_empty() {
                    return (k + 1, error);
                }
            }
            '"' => match string_len(&s[k..]) {
                Some(n) => {
                    k += n;
                    continue;
                }
                None => break,
            },
            '\n' if !(multiline && continues(&s[..k], &s[k + 1..])) => break,
            // Going on: past every blank line at once. Each newline of a blank run would be
            // decided as this one was (the same last character before, the same first one
            // after), and deciding them one by one rescanned the run: 10^5 blank lines in a
            // signature took 12 s (fuzz seed 20261127, input 807329).
            '\n' => {
                let after = &s[k + 1..];
                k += 1 + after.len() - after.trim_start().len();
                continue;
            }
            _ => {}
        }
        k += c.len_utf8();
    }
    let line_end = s.find('\n').unwrap_or(s.len());
    let open = s.chars().next().unwrap_or('(');
    let unterminated =
        Diagnostic::error(Span::new(at, at + open.len_utf8()), format!("unterminated `{open}` in type"));
    (line_end, error.or(Some(unterminated)))
}

/// Whether a multi-line signature goes on after the line ending `before` into `after`.
fn continues(before: &str, after: &str) -> bool {
    before.trim_end().ends_with(['(', ',']) || after.trim_start().starts_with(')')
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The type at the start of `s` and what follows it.
    fn split(s: &str) -> (&str, &str) {
        let end = type_end(s, 0);
        (&s[..end], &s[end..])
    }

    #[test]
    fn tricky_types_end_where_the_instruction_resumes() {
        let generic = "@convention(thin) <τ_0_0 where τ_0_0 : AnyObject> (@guaranteed τ_0_0) -> ()";
        assert_eq!(split(&format!("{generic}, %1")), (generic, ", %1"));
        assert_eq!(split(&format!("{generic} {{")), (generic, " {"));
        assert_eq!(split("*Optional<(Int, String)>, #x"), ("*Optional<(Int, String)>", ", #x"));
        assert_eq!(split("@sil_weak Optional<C>\n  %2 = x"), ("@sil_weak Optional<C>", "\n  %2 = x"));
        assert_eq!(split("Int to $Int"), ("Int", " to $Int"));
        let s = scan(generic, 0);
        assert_eq!((s.end, s.text.as_str(), s.error), (generic.len(), generic, None));
    }

    #[test]
    fn unterminated_and_mismatched_types_end_at_the_end_of_the_line() {
        // Being typed: the group is not closed yet.
        assert_eq!(split("@convention(thin) (Int"), ("@convention(thin) (Int", ""));
        assert_eq!(split("Optional<(Int, String\n  return"), ("Optional<(Int, String", "\n  return"));
        assert_eq!(split("(Int]  , x"), ("(Int]", "  , x"), "a mismatched closer still closes");
        assert_eq!(split("@opened(\"x\nnext"), ("@opened(\"x", "\nnext"));
        assert_eq!(split(""), ("", ""));
        assert_eq!(split(" , x"), ("", " , x"));
        assert!(scan("(Int", 0).error.is_some());
        assert!(scan("(Int]", 0).error.is_some());
        // Out of range or inside a character: no panic, nothing scanned.
        assert_eq!(type_end("Int", 10), 3);
        assert_eq!(type_end("é", 1), 1);
    }

    #[test]
    fn box_types_and_generic_boxes_are_one_type() {
        let boxed = "<τ_0_0> { var τ_0_0 } <Builtin.Int32>";
        assert_eq!(split(&format!("{boxed}, var, name \"x\"")), (boxed, ", var, name \"x\""));
        assert_eq!(split("{ var Int }, 0"), ("{ var Int }", ", 0"));
        assert_eq!(split("@sil_isolated { let Int }\n"), ("@sil_isolated { let Int }", "\n"));
    }

    #[test]
    fn only_multiline_scans_continue_a_signature_on_the_next_line() {
        let sig = "@convention(thin) (\n    @guaranteed <τ_0_0> { var τ_0_0 } <Int>,\n    Int\n) -> () {";
        let s = scan_with(sig, 0, true);
        assert_eq!(s.error, None);
        // Line breaks collapse to one space, as any whitespace run in a type does.
        assert_eq!(s.text, "@convention(thin) ( @guaranteed <τ_0_0> { var τ_0_0 } <Int>, Int ) -> ()");
        assert_eq!(&sig[s.end..], " {");
        assert!(scan(sig, 0).error.is_some(), "one line: unterminated");
        // A line that neither ends in `(`/`,` nor is followed by `)` ends the group.
        assert!(scan_with("(Int\n  bb0:\n)", 0, true).error.is_some());
        // Blank and whitespace-only lines inside the group change nothing, also when the
        // line before them ends in neither `(` nor `,` and a `)` follows them; a blank run
        // after such a line that no `)` follows still ends the group there.
        let blank = "\n \n\n\t\n".repeat(1000);
        for (with, without) in [
            (format!("(\n{blank}Int,{blank}Int{blank})"), "(\nInt,\nInt\n)"),
            (format!("(Int{blank}) -> ()"), "(Int\n) -> ()"),
        ] {
            let (a, b) = (scan_with(&with, 0, true), scan_with(without, 0, true));
            assert_eq!((a.text, a.error), (b.text, b.error), "{without}");
        }
        let unclosed = format!("(Int{blank}  bb0:\n)");
        assert!(scan_with(&unclosed, 0, true).error.is_some());
    }

    #[test]
    fn the_word_lists_hold_what_the_parser_reads() {
        for w in ["actor", "operator", "import", "struct"] {
            assert!(DECL_WORDS.contains(&w), "{w}");
        }
        assert!(LINKAGES.contains(&"hidden_external") && STAGES.contains(&"canonical"));
        assert!(ATTRIBUTES.contains(&"guaranteed") && ATTRIBUTES.contains(&"sil_weak"));
    }
}
