//! Colours for one line of SIL.
//!
//! The hard part is the type after `$`, which has no closing delimiter
//! (`$@convention(thin) (Int32, Int32) -> Int32 {`). [`type_end`] follows the shape of the
//! type read so far, as the parser does: a `(`, `[` or `{` after a complete type, a `,` `:`
//! `=` outside brackets, or the words `to`/`on`/`in` end it. Getting an odd type wrong only
//! mis-colours it; the tokenizer never fails.

use super::scan::Scan;
use super::{Class, Token};

/// First words of top-level lines that are declarations (Swift declarations, imports).
const DECL_WORDS: &[&str] = &[
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
    "init",
    "deinit",
    "case",
    "subscript",
];

/// Words in a `sil …` header before the function name (linkage and the like).
const HEADER_WORDS: &[&str] = &[
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
    "canonical",
    "raw",
    "lowered",
];

/// `@word`s that are attributes (ownership, conventions), not functions or globals.
const ATTR_WORDS: &[&str] = &[
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

/// Words after which a type must continue.
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

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

fn is_block_label(w: &str) -> bool {
    w.strip_prefix("bb").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

pub(super) fn tokenize_line(line: &str) -> Vec<Token> {
    let mut s = Scan::new(line);
    let mut first = true;
    let mut after_eq = false;
    // On a `sil …`/`sil_stage` line before the name: linkage words are keywords.
    let mut header = false;
    while let Some(c) = s.peek() {
        let lo = s.pos;
        if c.is_whitespace() {
            s.eat_while(char::is_whitespace);
            s.push(Class::Plain, lo);
            continue;
        }
        let class = if s.rest().starts_with("//") {
            s.advance_to(line.len());
            Class::Comment
        } else {
            match c {
                '"' => {
                    s.advance_to(lo + string_len(s.rest()));
                    Class::Str
                }
                '%' => {
                    s.bump();
                    if s.eat_while(is_name_char) > 0 {
                        Class::Value
                    } else {
                        Class::Punct
                    }
                }
                '@' => {
                    s.bump();
                    if s.peek() == Some('"') {
                        s.advance_to(s.pos + string_len(s.rest()));
                        Class::Func
                    } else if s.eat_while(is_name_char) == 0 {
                        Class::Punct
                    } else {
                        header = false;
                        let name = s.since(lo + 1);
                        if ATTR_WORDS.contains(&name) || name.starts_with('_') {
                            Class::Attr
                        } else {
                            Class::Func
                        }
                    }
                }
                '$' => {
                    s.advance_to(type_end(line, lo + 1));
                    Class::Type
                }
                '#' => {
                    s.bump();
                    s.eat_while(|c| is_word_char(c) || c == '!' || c == '$');
                    Class::Member
                }
                '[' => match group_len(s.rest()) {
                    Some(n) => {
                        s.advance_to(lo + n);
                        Class::Attr
                    }
                    None => {
                        s.bump();
                        Class::Punct
                    }
                },
                '-' if s.rest().starts_with("->") => {
                    s.advance_to(lo + 2);
                    Class::Punct
                }
                '-' if s.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => {
                    s.bump();
                    s.eat_while(is_word_char);
                    Class::Number
                }
                _ if c.is_ascii_digit() => {
                    s.eat_while(is_word_char);
                    Class::Number
                }
                _ if c.is_alphabetic() || c == '_' => {
                    s.eat_while(is_word_char);
                    let w = s.since(lo);
                    if first && (w == "sil" || w.starts_with("sil_")) {
                        header = true;
                        Class::Keyword
                    } else if (first && DECL_WORDS.contains(&w)) || (header && HEADER_WORDS.contains(&w)) {
                        Class::Keyword
                    } else if is_block_label(w) || (first && starts_block(s.rest())) {
                        Class::Label
                    } else if first || after_eq {
                        Class::Opcode
                    } else {
                        Class::Plain
                    }
                }
                '=' => {
                    s.bump();
                    after_eq = true;
                    first = false;
                    s.push(Class::Punct, lo);
                    continue;
                }
                _ => {
                    s.bump();
                    Class::Punct
                }
            }
        };
        if s.pos == lo {
            s.bump(); // every branch consumes something; this only guards against a stall
        }
        s.push(class, lo);
        first = false;
        after_eq = false;
    }
    s.tokens
}

/// Whether what follows a line's first word makes it a block label of any name
/// (`bbTrampoline1:`, `entry(%0 : $Int):`): a `:` right after it, or an argument list after
/// which the line ends with `:`. An operation is never followed by either.
fn starts_block(rest: &str) -> bool {
    let code = rest.split("//").next().unwrap_or("").trim_end();
    rest.starts_with(':') || (rest.starts_with('(') && code.ends_with(':'))
}

/// The byte length of the string literal at the start of `s` (a `"`), or of all of `s` if the
/// line ends before the closing quote.
fn string_len(s: &str) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return i + 1,
            _ => escaped = false,
        }
    }
    s.len()
}

/// The byte length of the bracket group opening at the start of `s`, through its closer;
/// `None` if the line ends first. Closers pop whatever is open: this is colouring, not checking.
fn group_len(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = 0;
    while let Some(c) = s.get(k..).and_then(|r| r.chars().next()) {
        match c {
            '-' if s[k..].starts_with("->") => {
                k += 2;
                continue;
            }
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            '"' => {
                k += string_len(&s[k..]);
                continue;
            }
            _ => {}
        }
        k += c.len_utf8();
    }
    None
}

/// What a type read so far ends with (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    Start,
    Prefix,
    Attr,
    Sig,
    Arrow,
    Name,
}

/// Where the type starting at byte `start` of `line` (just after its `$`) ends.
fn type_end(line: &str, start: usize) -> usize {
    let mut end = start;
    let mut i = start;
    let mut prev = Prev::Start;
    while let Some(rest0) = line.get(i..) {
        let rest = rest0.trim_start();
        let j = i + (rest0.len() - rest.len());
        let Some(c) = rest.chars().next() else { break };
        if rest.starts_with("//") {
            break;
        }
        let (len, next) = if rest.starts_with("->") {
            (2, Prev::Arrow)
        } else {
            match c {
                '@' => {
                    let n: usize = rest[1..].chars().take_while(|&c| is_name_char(c)).map(char::len_utf8).sum();
                    if n == 0 {
                        break;
                    }
                    let mut l = 1 + n;
                    if rest[l..].starts_with('(') {
                        l += group_len(&rest[l..]).unwrap_or(rest.len() - l);
                    }
                    (l, Prev::Attr)
                }
                '<' => (group_len(rest).unwrap_or(rest.len()), if prev == Prev::Name { Prev::Name } else { Prev::Sig }),
                '(' | '[' if prev == Prev::Name => break,
                '(' | '[' => (group_len(rest).unwrap_or(rest.len()), Prev::Name),
                '{' if matches!(prev, Prev::Start | Prev::Prefix | Prev::Attr) => {
                    (group_len(rest).unwrap_or(rest.len()), Prev::Name)
                }
                '*' | '&' | '~' => (1, Prev::Prefix),
                '?' | '!' if prev == Prev::Name => (1, Prev::Name),
                '.' if prev == Prev::Name && rest.starts_with("...") => (3, Prev::Name),
                _ if c.is_alphanumeric() || c == '_' => {
                    let n: usize = rest.chars().take_while(|&c| is_word_char(c)).map(char::len_utf8).sum();
                    let w = &rest[..n];
                    if prev == Prev::Name && matches!(w, "to" | "on" | "in") {
                        break;
                    }
                    (n, if PREFIX_WORDS.contains(&w) { Prev::Prefix } else { Prev::Name })
                }
                _ => break,
            }
        };
        prev = next;
        i = j + len;
        end = i;
    }
    end.min(line.len())
}
