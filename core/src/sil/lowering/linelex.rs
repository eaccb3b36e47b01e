//! The tokens of one line of AddressLowering's output, as the SIL lexer makes them, for
//! [`super::readback`].
//!
//! The lexer reads every `$type` by scanning it into a normalized string (an allocation and
//! a character-by-character walk per type), yet the output's types are few and repeat on
//! most of its million lines (`$*T`, `$Optional<T>`): lexing was a fifth of the read-back
//! at 10^5 blocks (issue 17). Where a type ends depends only on the rest of its line (the
//! scan never looks past the line), so each distinct rest is scanned once, by the lexer's
//! own [`scan_type`], and looked up after that. Every other token is read as the lexer
//! reads it, and the tests check that the two agree token for token.

use super::FastMap;
use crate::diag::Span;
use crate::parse::sil::lexer::{scan_type, string_len, Kind, Token};
use crate::parse::sil::scan::{is_blank, is_ident_char, is_name_char};
use std::borrow::Cow;

pub(super) struct LineLexer<'s> {
    text: &'s str,
    /// The byte length of the type that starts right after a `$`, by the rest of its line.
    type_len: FastMap<&'s str, u32>,
}

impl<'s> LineLexer<'s> {
    pub fn new(text: &'s str) -> LineLexer<'s> {
        LineLexer { text, type_len: FastMap::default() }
    }

    /// Appends the tokens of the line from byte `pos` to its end (the newline excluded), as
    /// [`crate::parse::sil::lexer::Lexer`] makes them — but a type's `text` is as written,
    /// not normalized. `None` where the lexer reports an error.
    pub fn line(&mut self, pos: usize, out: &mut Vec<Token<'s>>) -> Option<()> {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut pos = pos;
        loop {
            // Blanks and a comment, as the lexer skips them.
            loop {
                pos += take(&text[pos..], is_blank);
                if text[pos..].starts_with("//") {
                    pos = line_end(text, pos);
                } else {
                    break;
                }
            }
            let lo = pos;
            let rest = &text[pos..];
            let Some(c) = rest.chars().next() else { return Some(()) };
            let kind = match c {
                '\n' => return Some(()),
                '%' => {
                    let n = take(&rest[1..], is_name_char);
                    if n == 0 {
                        return None;
                    }
                    pos += 1 + n;
                    Kind::Value
                }
                '@' => {
                    let n = if rest[1..].starts_with('"') { string_len(&rest[1..])? } else { take(&rest[1..], is_name_char) };
                    if n == 0 {
                        return None;
                    }
                    pos += 1 + n;
                    Kind::Global
                }
                '$' => {
                    let start = pos + 1;
                    let key = &text[start..line_end(text, start)];
                    let n = match self.type_len.get(key) {
                        Some(&n) => n as usize,
                        None => {
                            let (end, _) = scan_type(text, start).ok()?;
                            let n = end - start;
                            self.type_len.insert(key, u32::try_from(n).ok()?);
                            n
                        }
                    };
                    pos = start + n;
                    Kind::Type
                }
                '#' => {
                    pos += 1 + take(&rest[1..], |c| is_ident_char(c) || c == '!' || c == '$');
                    Kind::Hash
                }
                '"' => {
                    pos += string_len(rest)?;
                    Kind::Str
                }
                '-' if rest.starts_with("->") => {
                    pos += 2;
                    Kind::Punct
                }
                '-' if bytes.get(pos + 1).is_some_and(u8::is_ascii_digit) => {
                    pos += 1 + take(&rest[1..], is_ident_char);
                    Kind::Int
                }
                _ if c.is_ascii_digit() => {
                    pos += take(rest, is_ident_char);
                    Kind::Int
                }
                _ if c.is_alphabetic() || c == '_' => {
                    pos += take(rest, is_ident_char);
                    Kind::Ident
                }
                '.' if rest.starts_with("...") => {
                    pos += 3;
                    Kind::Punct
                }
                _ => {
                    pos += c.len_utf8();
                    Kind::Punct
                }
            };
            out.push(Token { kind, text: Cow::Borrowed(&text[lo..pos]), span: Span::new(lo, pos) });
        }
    }
}

/// The byte length of the longest prefix of `s` whose characters satisfy `f` (ASCII read a
/// byte at a time).
fn take(s: &str, f: impl Fn(char) -> bool) -> usize {
    let mut n = 0;
    for c in s.chars() {
        if !f(c) {
            break;
        }
        n += c.len_utf8();
    }
    n
}

/// Where the line holding byte `pos` ends (its newline, or the end of the text).
fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |k| pos + k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::sil::lexer::Lexer;

    /// Every line of `text`, lexed both ways: the same tokens (kind, span,
    /// and text but for types), and an error in one is an error in the other.
    fn same_as_lexer(text: &str) -> usize {
        let mut fast = LineLexer::new(text);
        let mut n = 0;
        let mut at = 0;
        while at < text.len() {
            let end = line_end(text, at);
            let mut want = Vec::new();
            let mut lex = Lexer::new(text, at);
            let ok = loop {
                let t = lex.next_token();
                match t.kind {
                    Kind::Newline | Kind::Eof => break true,
                    Kind::Error => break false,
                    _ => want.push(t),
                }
            };
            let mut got = Vec::new();
            let r = fast.line(at, &mut got);
            assert_eq!(r.is_some(), ok, "line {:?}", &text[at..end]);
            if ok {
                assert_eq!(got.len(), want.len(), "line {:?}", &text[at..end]);
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!((g.kind, g.span), (w.kind, w.span), "line {:?}", &text[at..end]);
                    if w.kind == Kind::Type {
                        assert_eq!(&*g.text, &text[w.span.lo as usize..w.span.hi as usize]);
                    } else {
                        assert_eq!(g.text, w.text);
                    }
                }
            }
            n += 1;
            at = end + 1;
        }
        n
    }

    /// Lines the output never has, but the lexer reads: errors, strings holding `%` and
    /// `//`, quoted globals, numbers, arrows, unicode names, the same type rest twice.
    #[test]
    fn odd_lines_lex_as_the_lexer_lexes_them() {
        let text = "  %a = integer_literal $Builtin.Int64, -12 // c %x\n\
                    \x20 %b = string_literal utf8 \"a%b // c\" \n\
                    \x20 %c = function_ref @\"q%d\" : $@convention(thin) (@in_guaranteed τ_0_0) -> @out τ_0_0\n\
                    \x20 %d = apply %c<Int>(%a) : $@convention(thin) (@in_guaranteed τ_0_0) -> @out τ_0_0\n\
                    \x20 %e = enum $Optional<T>, #Optional.some!enumelt, %x : $T\n\
                    \x20 % = tuple ()\n\
                    \x20 %f = string_literal \"open\n\
                    \x20 %g = struct $Pair<T (%a : $T)\n\
                    \x20 %h = tuple $(T, T) (%a : $T, %b : $T)\n\
                    \x20 x ... y -> z 0x1F @ $\n\
                    \x20 %i = alloc_box ${ var T }\n";
        assert_eq!(same_as_lexer(text), 11);
    }

    /// The lowered corpus, line by line.
    #[test]
    fn corpus_lowerings_lex_as_the_lexer_lexes_them() {
        let mut lines = 0;
        for (_, text) in super::super::corpus_sil() {
            // The input too: more shapes of line than the output has.
            lines += same_as_lexer(&text);
            let Ok(m) = crate::parse::sil::parse("t.sil", &text) else { continue };
            let env = crate::sil::types::env_of(&m);
            for f in m.functions.iter().filter(|f| !f.is_declaration()) {
                let ft = crate::sil::types::FunctionTypes::new(f, env.clone());
                if let Ok(l) = super::super::lower(f, &ft, &env.decls) {
                    lines += same_as_lexer(&l.text);
                }
            }
        }
        assert!(lines > 1000, "only {lines} lines");
    }
}
