//! The tokens of Bril's text format (the lexical grammar `bril2json` accepts).
//!
//! The lexer never fails: a malformed piece of input is reported once and becomes a
//! [`Tok::Bad`] token, which the parser accepts silently wherever it stands, so one typo gives
//! one message rather than a cascade.

use crate::diag::{Diagnostics, Span};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Tok {
    /// A variable, operation, type or keyword name (`x`, `add`, `ptr`, `true`, `v0.1`).
    Ident,
    /// `@name`
    Func,
    /// `.name`
    Label,
    /// `5`, `-3`, `+7`
    Int,
    /// `1.5`, `-0.25`, `1e-5`, `.5`, `-inf`
    Float,
    /// `'a'`, `'\n'`
    Char(char),
    /// `"lib.bril"`: an import's path (the quotes are part of the span).
    Str,
    /// A `// file: NAME` line: the text after it is another file of the same program.
    FileMark,
    Colon,
    Semi,
    Eq,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Lt,
    Gt,
    Comma,
    /// Input already reported by the lexer.
    Bad,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// Bril identifiers: `(_|%|alpha)(_|%|.|alnum)*`, ASCII only, as `bril2json` defines them.
pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '%'
}

pub(super) fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '%' || c == '.'
}

/// The escapes Bril's char extension defines (`'\0'`, `'\a'`, …), and nothing else: a
/// backslash followed by any other character is not an escape, so `'\'` is a backslash.
pub(super) fn unescape(c: char) -> Option<char> {
    Some(match c {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        _ => return None,
    })
}

/// The escape letter for `c` if Bril has one, so the printer writes exactly the characters that
/// cannot appear literally as escapes and everything else as itself.
pub(crate) fn escape(c: char) -> Option<char> {
    "0abtnvfr".chars().find(|&e| unescape(e) == Some(c))
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    tokens: Vec<Token>,
    diags: &'a mut Diagnostics,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text.get(self.pos..)?.chars().next()
    }

    fn peek_at(&self, skip: usize) -> Option<char> {
        self.text.get(self.pos..)?.chars().nth(skip)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat_while(&mut self, f: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&f) {
            self.bump();
        }
    }

    fn push(&mut self, kind: Tok, lo: usize) {
        self.tokens.push(Token { kind, span: Span::new(lo, self.pos) });
    }

    fn bad(&mut self, lo: usize, msg: String) {
        self.diags.error(Span::new(lo, self.pos), msg);
        self.push(Tok::Bad, lo);
    }

    fn run(&mut self) {
        while let Some(c) = self.peek() {
            let lo = self.pos;
            match c {
                c if c.is_whitespace() => self.eat_while(char::is_whitespace),
                '#' => self.eat_while(|c| c != '\n'),
                c if is_ident_start(c) => {
                    self.eat_while(is_ident_continue);
                    self.push(Tok::Ident, lo);
                }
                '@' | '.' if self.peek_at(1).is_some_and(is_ident_start) => {
                    self.bump();
                    self.eat_while(is_ident_continue);
                    self.push(if c == '@' { Tok::Func } else { Tok::Label }, lo);
                }
                '0'..='9' | '.' | '+' | '-' if self.at_number() => self.number(lo),
                '+' | '-' if self.text.get(lo + 1..).is_some_and(|r| r.starts_with("inf")) => {
                    self.pos += 4;
                    if self.peek().is_some_and(is_ident_continue) {
                        self.eat_while(is_ident_continue);
                        let t = crate::diag::snippet(self.text.get(lo..self.pos).unwrap_or(""));
                        self.bad(lo, format!("invalid number `{t}`"));
                    } else {
                        self.push(Tok::Float, lo);
                    }
                }
                '@' => {
                    self.bump();
                    self.stray_run();
                    self.bad(lo, "expected a function name after `@`".into());
                }
                '\'' => self.char_literal(lo),
                '"' => {
                    self.bump();
                    self.eat_while(|c| c != '"' && c != '\n');
                    if self.peek() == Some('"') {
                        self.bump();
                        self.push(Tok::Str, lo);
                    } else {
                        self.bad(lo, "unterminated string: a path ends with `\"` on its line".into());
                    }
                }
                '/' if self.text.get(lo..).is_some_and(|r| r.starts_with(FILE_MARK)) && self.at_line_start(lo) => {
                    self.eat_while(|c| c != '\n');
                    self.push(Tok::FileMark, lo);
                }
                _ => {
                    self.bump();
                    let kind = match c {
                        ':' => Tok::Colon,
                        ';' => Tok::Semi,
                        '=' => Tok::Eq,
                        '{' => Tok::LBrace,
                        '}' => Tok::RBrace,
                        '(' => Tok::LParen,
                        ')' => Tok::RParen,
                        '<' => Tok::Lt,
                        '>' => Tok::Gt,
                        ',' => Tok::Comma,
                        _ => {
                            // One message for a run of stray characters, not one per byte.
                            self.stray_run();
                            let shown: String = c.escape_debug().collect();
                            let msg = if c == '.' {
                                "expected a label name after `.`".to_string()
                            } else {
                                format!("unexpected character `{shown}`")
                            };
                            self.bad(lo, msg);
                            continue;
                        }
                    };
                    self.push(kind, lo);
                }
            }
        }
        self.tokens.push(Token { kind: Tok::Eof, span: Span::new(self.text.len(), self.text.len()) });
    }

    /// Skips the rest of a run of characters that cannot begin a token here, so a line of
    /// 100,000 stray `+` or `@` is one error and one [`Tok::Bad`], not one per character.
    /// The run ends at whitespace or where a token would lex (a sign before a number, `.`
    /// or `@` before a name, punctuation, a name).
    fn stray_run(&mut self) {
        while let Some(c) = self.peek() {
            let starts_token = match c {
                '+' | '-' => {
                    self.at_number() || self.text.get(self.pos + 1..).is_some_and(|r| r.starts_with("inf"))
                }
                '.' => self.at_number() || self.peek_at(1).is_some_and(is_ident_start),
                '@' => self.peek_at(1).is_some_and(is_ident_start),
                c => c.is_whitespace() || is_token_start(c),
            };
            if starts_token {
                return;
            }
            self.bump();
        }
    }

    /// Whether only spaces stand between the start of the line and `at`.
    fn at_line_start(&self, at: usize) -> bool {
        let before = self.text.get(..at).unwrap_or("");
        before.rsplit('\n').next().unwrap_or("").chars().all(|c| c == ' ' || c == '\t')
    }

    /// A sign, then digits with an optional fraction, or a fraction alone (`.5`).
    fn at_number(&self) -> bool {
        let mut k = 0;
        if matches!(self.peek(), Some('+' | '-')) {
            k = 1;
        }
        match self.peek_at(k) {
            Some(c) if c.is_ascii_digit() => true,
            Some('.') => self.peek_at(k + 1).is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        }
    }

    fn number(&mut self, lo: usize) {
        if matches!(self.peek(), Some('+' | '-')) {
            self.bump();
        }
        self.eat_while(|c| c.is_ascii_digit());
        let mut float = false;
        if self.peek() == Some('.') {
            float = true;
            self.bump();
            self.eat_while(|c| c.is_ascii_digit());
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let digits_at = if matches!(self.peek_at(1), Some('+' | '-')) { 2 } else { 1 };
            if self.peek_at(digits_at).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                for _ in 0..digits_at {
                    self.bump();
                }
                self.eat_while(|c| c.is_ascii_digit());
            }
        }
        // `12ab`, `1.5.2`: glued to a name, so neither a number nor a name.
        if self.peek().is_some_and(is_ident_continue) {
            self.eat_while(is_ident_continue);
            let t = crate::diag::snippet(self.text.get(lo..self.pos).unwrap_or(""));
            self.bad(lo, format!("invalid number `{t}`"));
            return;
        }
        self.push(if float { Tok::Float } else { Tok::Int }, lo);
    }

    fn char_literal(&mut self, lo: usize) {
        self.bump();
        let first = self.peek();
        let second = self.peek_at(1);
        let third = self.peek_at(2);
        let value = match (first, second, third) {
            (Some('\\'), Some(e), Some('\'')) if unescape(e).is_some() => {
                self.bump();
                self.bump();
                unescape(e)
            }
            (Some(c), Some('\''), _) if c != '\n' => {
                self.bump();
                Some(c)
            }
            _ => None,
        };
        match value {
            Some(c) => {
                self.bump();
                self.push(Tok::Char(c), lo);
            }
            None => {
                // Swallow up to a closing quote on the same line, if there is one, so the rest of
                // the literal does not produce further errors.
                let rest = self.text.get(self.pos..).unwrap_or("");
                let line = rest.split('\n').next().unwrap_or("");
                if let Some(q) = line.find('\'') {
                    self.pos += q + 1;
                }
                self.bad(lo, "invalid character literal: expected one character or an escape such as `'\\n'`".into());
            }
        }
    }
}

/// What begins a line that starts another file of the same program (the page's editor and
/// the command line join a program's files this way); Bril has no `//` comments, so no
/// Bril text is misread.
pub const FILE_MARK: &str = "// file:";

/// The text of a [`Tok::Str`] token without its quotes.
pub(super) fn unquoted(token: &str) -> &str {
    token.get(1..token.len().saturating_sub(1)).unwrap_or("")
}

/// Characters that begin a token of their own, where a run of stray characters stops.
fn is_token_start(c: char) -> bool {
    is_ident_start(c) || c.is_ascii_digit() || ":;={}()<>,@.'#+-\"".contains(c)
}

/// Splits `text` into tokens, ending with [`Tok::Eof`]; problems go to `diags`.
pub(super) fn lex(text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    let mut lx = Lexer { text, pos: 0, tokens: Vec::new(), diags };
    lx.run();
    lx.tokens
}
