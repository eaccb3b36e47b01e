//! Colours for one line of SIL.
//!
//! The hard part is the type after `$`, which has no closing delimiter
//! (`$@convention(thin) (Int32, Int32) -> Int32 {`). Where it ends is core's answer
//! ([`type_end`], the scanner the parser's lexer uses, in its lenient form that never
//! fails), and so are the keyword lists; this file only maps words to colours.

use super::scan::Scan;
use super::{Class, Token};
use optlab_core::parse::sil::scan::{type_end, ATTRIBUTES, DECL_WORDS, LINKAGES, STAGES};

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
    // On a Swift declaration line, while only declaration words have been read: the modifiers
    // and the keyword (`public final class`, `infix operator`) are all keywords.
    let mut decl = false;
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
                        if ATTRIBUTES.contains(&name) || name.starts_with('_') {
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
                    } else if (first || decl) && DECL_WORDS.contains(&w) {
                        decl = true;
                        Class::Keyword
                    } else if header && (LINKAGES.contains(&w) || STAGES.contains(&w)) {
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
        decl &= class == Class::Keyword;
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
