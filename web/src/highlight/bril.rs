//! Colours for one line of Bril's text format.
//!
//! A small state machine over the line: the first word of a statement is the destination if a
//! `:` follows it and the operation otherwise (`print x;`), the first word after `=` is the
//! operation, and words after a `:` up to `=`, `,`, `)`, `;` or `{` form a type (`ptr<int>`).

use super::scan::Scan;
use super::{Class, Token};

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '%'
}

fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '%' || c == '.'
}

pub(super) fn tokenize_line(line: &str) -> Vec<Token> {
    let mut s = Scan::new(line);
    // At the start of a statement (line start, after `;`, `{`, `}` or a label).
    let mut stmt_start = true;
    // Inside a type, after `:`.
    let mut in_type = false;
    // Just after `=`: the next word is the operation.
    let mut after_eq = false;
    // In an import (`from "lib.bril" import @f as @g;`): `import` and `as` are its words.
    let mut in_import = false;
    // A line that starts another file of the program is one piece.
    if line.trim_start().starts_with(optlab_core::parse::bril::FILE_MARK) {
        s.advance_to(line.len());
        s.push(Class::Keyword, 0);
        return s.tokens;
    }
    while let Some(c) = s.peek() {
        let lo = s.pos;
        if c.is_whitespace() {
            s.eat_while(char::is_whitespace);
            s.push(Class::Plain, lo);
            continue;
        }
        if c == '#' {
            s.advance_to(line.len());
            s.push(Class::Comment, lo);
            break;
        }
        if (c == '@' || c == '.') && s.peek_at(1).is_some_and(is_ident_start) {
            s.bump();
            s.eat_while(is_ident_continue);
            let class = if c == '@' { Class::Func } else { Class::Label };
            s.push(class, lo);
            if c == '.' && stmt_start && s.rest().trim_start().starts_with(':') {
                // `.label:` – what follows the colon is a new statement, not a type.
                let blank = s.pos;
                s.eat_while(char::is_whitespace);
                s.push(Class::Plain, blank);
                let colon = s.pos;
                s.bump();
                s.push(Class::Punct, colon);
                continue;
            }
            stmt_start = false;
            after_eq = false;
            continue;
        }
        if at_number(&s) {
            number(&mut s);
            s.push(Class::Number, lo);
            stmt_start = false;
            after_eq = false;
            continue;
        }
        if c == '"' {
            // An import's path: up to the closing quote, or the rest of the line.
            s.bump();
            let close = s.rest().find('"').map_or(line.len(), |i| s.pos + i + 1);
            s.advance_to(close);
            s.push(Class::Str, lo);
            continue;
        }
        if c == '\'' {
            s.bump();
            // `'a'`, `'\n'`: up to the closing quote, or just the quote if there is none.
            if let Some(close) = s.rest().char_indices().skip(1).find(|&(_, q)| q == '\'').map(|(i, _)| i) {
                s.advance_to(s.pos + close + 1);
                s.push(Class::Str, lo);
            } else {
                s.push(Class::Punct, lo);
            }
            continue;
        }
        if is_ident_start(c) {
            s.eat_while(is_ident_continue);
            let word = s.since(lo);
            let class = if in_type {
                Class::Type
            } else if (stmt_start && word == "from") || (in_import && (word == "import" || word == "as")) {
                in_import = true;
                Class::Keyword
            } else if stmt_start {
                if s.rest().trim_start().starts_with(':') {
                    Class::Plain
                } else {
                    Class::Opcode
                }
            } else if after_eq {
                Class::Opcode
            } else if word == "true" || word == "false" {
                Class::Number
            } else {
                Class::Plain
            };
            s.push(class, lo);
            stmt_start = false;
            after_eq = false;
            continue;
        }
        s.bump();
        let class = match c {
            ':' => {
                in_type = true;
                Class::Punct
            }
            '<' | '>' if in_type => Class::Type,
            '=' => {
                in_type = false;
                after_eq = true;
                Class::Punct
            }
            ';' | '{' | '}' => {
                in_type = false;
                stmt_start = true;
                after_eq = false;
                Class::Punct
            }
            ',' | ')' => {
                in_type = false;
                Class::Punct
            }
            _ => Class::Punct,
        };
        s.push(class, lo);
    }
    s.tokens
}

/// A number: `5`, `-3`, `+7`, `1.5`, `.5`, `1e-5`, `-inf`, `nan`-free (that is a word).
fn at_number(s: &Scan) -> bool {
    let (sign, k) = match s.peek() {
        Some('+' | '-') => (true, 1),
        _ => (false, 0),
    };
    match s.peek_at(k) {
        Some(c) if c.is_ascii_digit() => true,
        Some('.') => s.peek_at(k + 1).is_some_and(|c| c.is_ascii_digit()),
        Some('i') => sign && s.rest().get(1..4) == Some("inf"),
        _ => false,
    }
}

fn number(s: &mut Scan) {
    if matches!(s.peek(), Some('+' | '-')) {
        s.bump();
    }
    let mut prev = ' ';
    while let Some(c) = s.peek() {
        let exp_sign = (c == '+' || c == '-') && (prev == 'e' || prev == 'E');
        if !(c.is_ascii_alphanumeric() || c == '.' || exp_sign) {
            break;
        }
        prev = c;
        s.bump();
    }
}
