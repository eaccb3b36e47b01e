//! A cursor over one line of source, shared by the two tokenizers. It only ever moves forward
//! by whole characters, so every token boundary is a char boundary and slicing cannot panic.

use super::{Class, Token};

pub(super) struct Scan<'a> {
    pub line: &'a str,
    pub pos: usize,
    pub tokens: Vec<Token>,
}

impl<'a> Scan<'a> {
    pub fn new(line: &'a str) -> Scan<'a> {
        Scan { line, pos: 0, tokens: Vec::new() }
    }

    pub fn rest(&self) -> &'a str {
        self.line.get(self.pos..).unwrap_or("")
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The character `n` characters ahead of the cursor.
    pub fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    pub fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }

    pub fn eat_while(&mut self, f: impl Fn(char) -> bool) -> usize {
        let n: usize = self.rest().chars().take_while(|&c| f(c)).map(char::len_utf8).sum();
        self.pos += n;
        n
    }

    /// Moves the cursor to byte `to` of the line (clamped, and only forward).
    pub fn advance_to(&mut self, to: usize) {
        let to = to.min(self.line.len());
        if to > self.pos && self.line.is_char_boundary(to) {
            self.pos = to;
        }
    }

    /// Records the text from `lo` to the cursor as one token.
    pub fn push(&mut self, class: Class, lo: usize) {
        if self.pos > lo {
            self.tokens.push(Token { range: lo..self.pos, class });
        }
    }

    /// The text from `lo` to the cursor.
    pub fn since(&self, lo: usize) -> &'a str {
        self.line.get(lo..self.pos).unwrap_or("")
    }
}
