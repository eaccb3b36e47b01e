//! SIL text → IR.
//!
//! A file is a sequence of top-level items. `sil` functions are parsed; everything else
//! (`sil_stage`, imports, Swift type declarations, `sil_global`, tables, scopes, …) is kept
//! verbatim as [`Item::Raw`] so the printer can give it back. A function body is read in two
//! passes: first into statements (block labels, and the tokens of each instruction), then,
//! once every label and every value name of the function is known, instructions are
//! resolved — SIL lets a value be used in the text before the line that defines it.
//!
//! Errors do not stop the parse: a bad instruction is skipped, a bad function is dropped and
//! the next one is read, so one run reports every problem it can find.

mod annot;
mod inst;
pub(crate) mod lexer;
pub mod scan;

use self::inst::{Operand, ParsedInst};
use std::borrow::Cow;
use self::lexer::{collapse, scan_type, string_len, Kind, Lexer, Token, KEPT_ERRORS};
use self::scan::{DECL_WORDS, LINKAGES};
use crate::diag::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::ir::{Interner, Name, ValueList, 
    Block, BlockId, Function, Inst, Item, Lang, Module, Op, Piece, SilHeader, SilOp, Succ, Type, ValueDef, ValueId,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Parses a whole `.sil` file. `name` is used in error messages.
pub fn parse(name: &str, text: &str) -> Result<Module, Diagnostics> {
    let mut p = Parser {
        src: text,
        lex: Lexer::new(text, 0),
        peeked: None,
        diags: Vec::new(),
        functions: Vec::new(),
        items: Vec::new(),
        names: HashMap::new(),
        line_index: None,
        dropped: 0,
    };
    p.file();
    let dropped = p.dropped + p.lex.dropped;
    p.diags.append(&mut p.lex.errors);
    let mut seen = HashSet::new();
    let mut diags: Vec<Diagnostic> = p.diags.into_iter().filter(|d| seen.insert((d.span, d.message.clone()))).collect();
    diags.sort_by_key(|d| d.span.lo);
    if !diags.is_empty() || dropped > 0 {
        let mut out = Diagnostics::from_vec(diags);
        out.count_omitted(dropped);
        return Err(out);
    }
    Ok(Module {
        lang: Lang::Sil,
        functions: p.functions,
        items: p.items,
        source: Arc::new(SourceFile::new(name, text)),
    })
}

struct Parser<'a> {
    src: &'a str,
    lex: Lexer<'a>,
    peeked: Option<Token<'a>>,
    diags: Vec<Diagnostic>,
    functions: Vec<Function>,
    items: Vec<Item>,
    /// Function names seen so far, to report redefinitions.
    names: HashMap<String, Span>,
    /// Line starts, built on the first message that quotes a line number (not per message:
    /// a file of many redefinitions would otherwise be quadratic).
    line_index: Option<SourceFile>,
    /// Errors past [`KEPT_ERRORS`], counted only.
    dropped: usize,
}

/// A block parameter as written.
struct ParamSyn {
    name: Name,
    span: Span,
    ty: String,
    ownership: Option<String>,
}

enum Stmt<'a> {
    /// `bad` when its arguments did not parse: the block then exists (so branches to it
    /// resolve) but its arity is unknown.
    /// `poison` names the arguments of a bad label, whose uses are then not reported.
    Label {
        name: Name,
        span: Span,
        params: Vec<ParamSyn>,
        bad: bool,
        poison: Vec<String>,
    },
    Inst(Vec<Token<'a>>),
}

fn word_at(s: &str) -> &str {
    let n: usize = s.chars().take_while(|&c| c.is_alphanumeric() || c == '_').map(char::len_utf8).sum();
    &s[..n]
}

fn is_decl_start(s: &str) -> bool {
    let w = word_at(s);
    w == "sil" || w.starts_with("sil_") || DECL_WORDS.contains(&w) || s.starts_with('@') || s.starts_with('#')
}

impl<'a> Parser<'a> {
    /// The 1-based line of byte `offset`.
    fn line_of(&mut self, offset: u32) -> u32 {
        let src = self.src;
        self.line_index.get_or_insert_with(|| SourceFile::new("", src)).line_col(offset).line
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        if self.diags.len() < KEPT_ERRORS {
            self.diags.push(Diagnostic::error(span, msg));
        } else {
            self.dropped += 1;
        }
    }

    /// Every error reported so far, kept or only counted.
    fn error_count(&self) -> usize {
        self.diags.len() + self.dropped + self.lex.errors.len() + self.lex.dropped
    }

    // ---- characters (top level) ----

    /// Skips whitespace, newlines and `//` comments from byte `pos`.
    fn skip_trivia(&self, mut pos: usize) -> usize {
        loop {
            let rest = &self.src[pos..];
            let t = rest.trim_start();
            pos += rest.len() - t.len();
            if t.starts_with("//") {
                pos += t.find('\n').unwrap_or(t.len());
            } else {
                return pos;
            }
        }
    }

    /// The start of the line after the one holding byte `pos` (any byte offset).
    fn next_line(&self, pos: usize) -> usize {
        let bytes = self.src.as_bytes();
        let from = pos.min(bytes.len());
        bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| from + i + 1)
    }

    /// The start of the next line (after `pos`) that begins, in column 0, a top-level item.
    fn skip_to_item(&self, pos: usize) -> usize {
        let mut p = self.next_line(pos);
        while p < self.src.len() && !is_decl_start(&self.src[p..]) {
            p = self.next_line(p);
        }
        p
    }

    fn file(&mut self) {
        let mut pos = 0;
        loop {
            pos = self.skip_trivia(pos);
            if pos >= self.src.len() {
                break;
            }
            let rest = &self.src[pos..];
            if word_at(rest) == "sil" {
                pos = self.function(pos);
            } else if is_decl_start(rest) {
                pos = self.raw_item(pos);
            } else {
                self.reset(pos);
                let t = self.next();
                if t.kind != Kind::Error {
                    self.error(
                        t.span,
                        format!("expected `sil`, `sil_stage`, `import` or a declaration, found {}", t.describe()),
                    );
                }
                pos = self.skip_to_item(pos);
            }
        }
    }

    /// A top-level item kept as text: to the end of its line, or of the `{ … }` it opens.
    fn raw_item(&mut self, start: usize) -> usize {
        let src = self.src;
        let mut comments: Vec<(usize, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = start;
        // Where the `{` found after a line break at depth 0 stands (see below).
        let mut brace_at = 0usize;
        let end = loop {
            let Some(c) = src[i..].chars().next() else {
                if depth > 0 {
                    let w = word_at(&src[start..]).len().max(1);
                    self.error(Span::new(start, start + w), "unterminated `{` in declaration");
                }
                break src.len();
            };
            match c {
                '"' => {
                    i += string_len(&src[i..]).unwrap_or(1);
                    continue;
                }
                '/' if src[i..].starts_with("//") => {
                    let e = src[i..].find('\n').map_or(src.len(), |k| i + k);
                    comments.push((i, e));
                    i = e;
                    continue;
                }
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                '\n' if depth == 0 && i >= brace_at => {
                    // `class C` with its `{` on the next line still is one item. The newlines
                    // before that `{` are not looked past again: 10^5 blank lines before it
                    // made this quadratic.
                    let next = self.skip_trivia(i);
                    if !src[next..].starts_with('{') {
                        break i;
                    }
                    brace_at = next;
                }
                _ => {}
            }
            i += c.len_utf8();
        };
        // Drop comment-only lines and trailing blanks; keep the rest verbatim. Line by line
        // with the comments' byte ranges (a sentinel character for them would collide with
        // the same character in the source: a NUL byte after `class` merged it with the name).
        let mut text = String::new();
        let mut any_line = false;
        let mut next_comment = 0;
        let mut line_start = start;
        for line in src[start..end].split('\n') {
            let line_end = line_start + line.len();
            let mut pos = line_start;
            let mut had_comment = false;
            let mut piece = String::new();
            while next_comment < comments.len() && comments[next_comment].0 < line_end {
                let (a, b) = comments[next_comment];
                piece.push_str(&src[pos..a]);
                pos = b.min(line_end);
                had_comment = true;
                next_comment += 1;
            }
            piece.push_str(&src[pos..line_end]);
            let trimmed = piece.trim_end();
            if !(had_comment && trimmed.trim_start().is_empty()) {
                if any_line {
                    text.push('\n');
                }
                text.push_str(trimmed);
                any_line = true;
            }
            line_start = line_end + 1;
        }
        self.items.push(Item::Raw { text: text.trim_end().to_string(), span: Span::new(start, end) });
        end
    }

    // ---- tokens (functions) ----

    fn reset(&mut self, pos: usize) {
        self.peeked = None;
        self.lex.pos = pos;
    }

    /// The byte position of the next unread token.
    fn pos(&self) -> usize {
        self.peeked.as_ref().map_or(self.lex.pos, |t| t.span.lo as usize)
    }

    fn peek(&mut self) -> &Token<'a> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex.next_token());
        }
        self.peeked.as_ref().expect("just filled")
    }

    fn next(&mut self) -> Token<'a> {
        self.peek();
        self.peeked.take().expect("just filled")
    }

    fn skip_newlines(&mut self) {
        while self.peek().kind == Kind::Newline {
            self.next();
        }
    }

    /// Parses `sil … @name : $type [{ body }]` at `start`; returns where the next item begins.
    fn function(&mut self, start: usize) -> usize {
        self.reset(start);
        let sil = self.next();
        match self.function_inner(sil.span) {
            Ok(end) => end,
            Err(()) => {
                // Skip the rest of the function: through a column-0 `}` (its body), or up to
                // the next item if it has none.
                let here = self.pos().max(start);
                let mut p = self.next_line(here.saturating_sub(1).max(start));
                while p < self.src.len() && !is_decl_start(&self.src[p..]) {
                    if self.src[p..].starts_with('}') {
                        return self.next_line(p);
                    }
                    p = self.next_line(p);
                }
                p
            }
        }
    }

    fn function_inner(&mut self, sil_span: Span) -> Result<usize, ()> {
        let mut header = SilHeader::default();
        let name_tok = loop {
            self.skip_newlines();
            let t = self.next();
            match t.kind {
                Kind::Global => break t,
                Kind::Punct if t.text == "[" => header.attrs.push(self.function_attr(&t)?),
                Kind::Ident if LINKAGES.contains(&t.text.as_ref()) => {
                    if header.linkage.is_some() {
                        self.error(t.span, format!("a function has one linkage; found a second one, `{}`", t.text));
                        return Err(());
                    }
                    header.linkage = Some(t.text.into_owned());
                }
                Kind::Ident => {
                    self.error(t.span, format!("unknown linkage or attribute `{}` in function header", t.text));
                    return Err(());
                }
                Kind::Error => return Err(()),
                _ => {
                    self.error(t.span, format!("expected function name `@name` after `sil`, found {}", t.describe()));
                    return Err(());
                }
            }
        };
        let name = name_tok.global_name();
        self.skip_newlines();
        let colon = self.next();
        if !colon.is_punct(":") {
            if colon.kind != Kind::Error {
                self.error(colon.span, format!("expected `:` after function name, found {}", colon.describe()));
            }
            return Err(());
        }
        let lex_errors = (self.lex.errors.len(), self.lex.dropped);
        self.skip_newlines();
        let t = self.peek().clone();
        // A signature may run over several lines (`(` at the end of the first): read it
        // again as such, and forget what the one-line reading complained about.
        let multiline = match t.kind {
            Kind::Type | Kind::Error if t.text.starts_with('$') => {
                let s = scan::scan_with(self.src, t.span.lo as usize + 1, true);
                (s.error.is_none() && !s.text.is_empty() && s.end > t.span.hi as usize).then_some(s)
            }
            _ => None,
        };
        header.ty = match t.kind {
            _ if multiline.is_some() => {
                let s = multiline.unwrap_or_else(|| unreachable!());
                self.lex.errors.truncate(lex_errors.0);
                self.lex.dropped = lex_errors.1;
                self.reset(s.end);
                format!("${}", s.text)
            }
            Kind::Type => {
                self.next();
                t.text.to_string()
            }
            Kind::Error => return Err(()),
            // Hand-written SIL sometimes leaves out the `$`.
            _ => match scan_type(self.src, t.span.lo as usize) {
                Ok((end, text)) if !matches!(t.kind, Kind::Newline | Kind::Eof) && !t.is_punct("{") => {
                    self.reset(end);
                    text
                }
                _ => {
                    self.error(t.span, format!("expected the function's type `$T` after `:`, found {}", t.describe()));
                    return Err(());
                }
            },
        };
        let extra_start = self.pos();
        let mut extra_end = extra_start;
        loop {
            let t = self.peek();
            if matches!(t.kind, Kind::Newline | Kind::Eof) || t.is_punct("{") {
                break;
            }
            if t.kind == Kind::Error {
                return Err(());
            }
            extra_end = t.span.hi as usize;
            self.next();
        }
        header.extra = collapse(&self.src[extra_start..extra_end]);

        if let Some(prev) = self.names.get(&name).copied() {
            let line = self.line_of(prev.lo);
            self.error(name_tok.span, format!("function `{}` is defined twice (first on line {line})", name_tok.text));
        } else {
            self.names.insert(name.clone(), name_tok.span);
        }

        self.skip_newlines();
        if !self.peek().is_punct("{") {
            // A declaration: no body.
            let end = self.pos();
            let mut f = Function::new(name, Lang::Sil);
            f.sil = Some(header);
            f.span = sil_span.to(Span::new(extra_start, extra_start.max(extra_end)));
            self.push_function(f);
            return Ok(end);
        }
        let lbrace = self.next().span;
        let before = self.error_count();
        let (stmts, end, closed) = self.body(lbrace);
        let span = sil_span.to(Span::new(end, end));
        if !closed {
            return Ok(end);
        }
        let f = self.build(name, header, stmts, lbrace, span);
        if let Some(f) = f.filter(|_| self.error_count() == before) {
            self.push_function(f);
        }
        Ok(end)
    }

    fn push_function(&mut self, f: Function) {
        self.items.push(Item::Function(self.functions.len()));
        self.functions.push(f);
    }

    /// The text of `[attr …]` after its `[` (nested brackets and strings allowed).
    fn function_attr(&mut self, open: &Token) -> Result<String, ()> {
        let mut depth = 1;
        loop {
            let t = self.next();
            match t.kind {
                Kind::Newline | Kind::Eof => {
                    self.error(open.span, "unterminated `[` in function attributes");
                    return Err(());
                }
                Kind::Error => return Err(()),
                _ if t.is_punct("[") => depth += 1,
                _ if t.is_punct("]") => {
                    depth -= 1;
                    if depth == 0 {
                        let text = collapse(&self.src[open.span.hi as usize..t.span.lo as usize]);
                        if text.is_empty() {
                            self.error(open.span.to(t.span), "empty function attribute `[]`");
                            return Err(());
                        }
                        return Ok(text);
                    }
                }
                _ => {}
            }
        }
    }

    /// Statements up to the closing `}`. Returns them, the position after the body, and
    /// whether the `}` was found.
    fn body(&mut self, lbrace: Span) -> (Vec<Stmt<'a>>, usize, bool) {
        let mut stmts = Vec::new();
        loop {
            self.skip_newlines();
            let t = self.peek().clone();
            if t.kind == Kind::Eof || self.starts_item(&t) {
                self.error(lbrace, "unterminated function body: expected `}`");
                return (stmts, t.span.lo as usize, false);
            }
            if t.is_punct("}") {
                self.next();
                return (stmts, t.span.hi as usize, true);
            }
            let mut toks = self.statement();
            // The function's effects (`[global: read,write]`, `[%0: escape => %r]`), which
            // `swiftc` prints before the first block: the optimizer's summary, not program
            // semantics, so they are read and dropped (sil-opt recomputes them).
            if stmts.is_empty() && toks.first().is_some_and(|t| t.is_punct("[")) {
                if !toks.last().is_some_and(|t| t.is_punct("]")) {
                    let at = toks[0].span;
                    self.error(at, "expected `]` to close the function's effects");
                }
                continue;
            }
            // Labels may share a line with what follows (`bb1: br bb2`); cut off once, not
            // per label, so a line of many labels stays linear.
            let mut at = 0;
            while let Some(after) = split_label(&toks[at..]) {
                stmts.push(self.label(&toks[at..at + after]));
                at += after;
            }
            // (`split_off(0)` would allocate an empty vector of the same capacity for
            // nothing: one allocation per statement.)
            let toks = if at == 0 { toks } else { toks.split_off(at) };
            if toks.is_empty() {
                continue;
            }
            // On a line of its own a `sil…` keyword ends an unterminated body; after a label
            // it must not read as an instruction either, or the printer (one statement per
            // line) would write text that means something else.
            if at > 0 && self.starts_item(&toks[0]) {
                self.error(toks[0].span, format!("expected an instruction after the block label, found `{}`: is the function's `}}` missing?", toks[0].text));
                continue;
            }
            if let Some(t) = missing_label_colon(&toks) {
                self.error(t.span, format!("expected `:` after block label `{}`", t.text));
                // Keep the label so that branches to it do not add errors of their own.
                let closed = toks.len() == 1 || toks.last().is_some_and(|l| l.is_punct(")"));
                let mut with_colon = if closed { toks.clone() } else { vec![t.clone()] };
                let end = toks.last().map_or(t.span, |l| Span::new(l.span.hi as usize, l.span.hi as usize));
                with_colon.push(Token { kind: Kind::Punct, text: ":".into(), span: end });
                let mut label = self.label(&with_colon);
                if !closed {
                    if let Stmt::Label { bad, poison, .. } = &mut label {
                        *bad = true;
                        poison
                            .extend(toks.iter().filter(|t| t.kind == Kind::Value).map(|t| t.value_name().to_string()));
                    }
                }
                stmts.push(label);
            } else {
                stmts.push(Stmt::Inst(toks));
            }
        }
    }

    /// Whether a token at the start of a statement must begin the next top-level item,
    /// which means the current body lacks its `}`: `sil…` keywords anywhere, and Swift
    /// declarations in column 0 (`struct S {`; the `struct` instruction takes a `$type`).
    fn starts_item(&self, t: &Token) -> bool {
        if t.kind != Kind::Ident {
            return false;
        }
        if t.text == "sil" || t.text.starts_with("sil_") {
            return true;
        }
        let lo = t.span.lo as usize;
        let column0 = lo == 0 || self.src.as_bytes().get(lo - 1) == Some(&b'\n');
        column0
            && DECL_WORDS.contains(&t.text.as_ref())
            && Lexer::new(self.src, t.span.hi as usize).next_token().kind != Kind::Type
    }

    /// The tokens of one statement: to the end of the line (continuing after a trailing
    /// `,`), stopping before a `}`.
    fn statement(&mut self) -> Vec<Token<'a>> {
        let mut toks: Vec<Token<'a>> = Vec::new();
        // Braces the instruction opened on its own line (`with_derivative {%1 : $F, %2 : $G}`):
        // their `}` belongs to it, not to the function body.
        let mut open_braces = 0usize;
        loop {
            let t = self.peek();
            match t.kind {
                Kind::Eof => break,
                Kind::Newline => {
                    self.next();
                    if toks.last().is_some_and(|l| l.is_punct(",")) {
                        continue;
                    }
                    break;
                }
                _ if t.is_punct("}") && open_braces > 0 => {
                    open_braces -= 1;
                    toks.push(self.next());
                }
                _ if t.is_punct("}") => break,
                _ if t.is_punct("{") && !toks.is_empty() => {
                    let open = self.next();
                    if self.peek().kind == Kind::Newline {
                        toks.push(self.region(open));
                    } else {
                        open_braces += 1;
                        toks.push(open);
                    }
                }
                _ => toks.push(self.next()),
            }
        }
        toks
    }

    /// A nested region an instruction opens at the end of its line (`…, transform {`, then
    /// blocks of its own, then `}`): one token holding the region's text verbatim, so its
    /// labels and values stay its own and printing gives it back line for line.
    fn region(&mut self, open: Token<'a>) -> Token<'a> {
        let mut depth = 1usize;
        let mut hi = open.span.hi;
        loop {
            let t = self.peek();
            if t.kind == Kind::Eof {
                break;
            }
            let t = self.next();
            hi = t.span.hi;
            if t.is_punct("{") {
                depth += 1;
            } else if t.is_punct("}") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
        }
        let span = Span { lo: open.span.lo, hi };
        let text = self.src.get(span.lo as usize..span.hi as usize).unwrap_or("{").to_string();
        Token { kind: Kind::Punct, text: text.into(), span }
    }

    /// `name:` or `name(%a : $T, %b : @owned $U):` (the tokens through the colon).
    fn label(&mut self, toks: &[Token<'a>]) -> Stmt<'a> {
        let name = &toks[0];
        let (params, bad) = match self.label_params(toks) {
            Some(params) => (params, false),
            None => (Vec::new(), true),
        };
        let poison = if bad {
            toks.iter().filter(|t| t.kind == Kind::Value).map(|t| t.value_name().to_string()).collect()
        } else {
            Vec::new()
        };
        Stmt::Label { name: Name::new(&*name.text), span: name.span, params, bad, poison }
    }

    fn label_params(&mut self, toks: &[Token]) -> Option<Vec<ParamSyn>> {
        let name = &toks[0];
        let mut params = Vec::new();
        if toks.iter().any(|t| t.kind == Kind::Error) {
            return None;
        }
        if toks[1].is_punct("(") {
            if toks.len() < 4 || !toks[toks.len() - 2].is_punct(")") {
                let at = toks[toks.len() - 2].span;
                self.error(at, format!("expected `)` to close the arguments of block `{}`", name.text));
                return None;
            }
            let inner = &toks[2..toks.len() - 2];
            let mut k = 0;
            let fail = |p: &mut Self, t: Option<&Token>, what: &str| {
                let (span, found) = match t {
                    Some(t) => (t.span, t.describe()),
                    None => (toks[toks.len() - 2].span, "`)`".to_string()),
                };
                p.error(span, format!("expected {what} in the arguments of block `{}`, found {found}", name.text));
            };
            while k < inner.len() {
                let v = &inner[k];
                if v.kind != Kind::Value {
                    fail(self, Some(v), "an argument `%name`");
                    return None;
                }
                if !inner.get(k + 1).is_some_and(|t| t.is_punct(":")) {
                    fail(self, inner.get(k + 1), "`:` and a type after the argument");
                    return None;
                }
                k += 2;
                let mut own = Vec::new();
                while let Some(g) = inner.get(k).filter(|t| t.kind == Kind::Global) {
                    own.push(g.text[1..].to_string());
                    k += 1;
                }
                let Some(ty) = inner.get(k).filter(|t| t.kind == Kind::Type) else {
                    fail(self, inner.get(k), "a type `$T`");
                    return None;
                };
                k += 1;
                params.push(ParamSyn {
                    name: Name::new(v.value_name()),
                    span: v.span,
                    ty: ty.type_text().to_string(),
                    ownership: if own.is_empty() { None } else { Some(own.join(" @")) },
                });
                if k < inner.len() {
                    if !inner[k].is_punct(",") || k + 1 == inner.len() {
                        fail(self, inner.get(k + usize::from(inner[k].is_punct(","))), "`,` or `)`");
                        return None;
                    }
                    k += 1;
                }
            }
        }
        Some(params)
    }

    /// Builds the function from its statements; `None` if anything was wrong.
    /// A use written `%v : $T` where `%v`'s type is known and is not `T` (Swift's parser
    /// rejects it too).
    fn check_use(&mut self, f: &Function, used: Option<&str>, o: &Operand, v: ValueId) {
        if let (Operand::Named(n, span), Some(Type::Sil(def)), Some(used)) = (o, &f.values[v].ty, used) {
            if !annot::same_type(used, def) {
                self.error(*span, format!("`%{n}` is used as `${used}`, but its type is `${def}`"));
            }
        }
    }

    /// A branch argument whose type is not the type of the target's parameter.
    fn check_branch_arg(&mut self, f: &Function, target: BlockId, j: usize, used: Option<&str>, o: &Operand, v: ValueId) {
        let Operand::Named(n, span) = o else { return };
        let Some(&p) = f.blocks[target].params.get(j) else { return };
        // The value's own type where known: a wrong annotation is `check_use`'s to report.
        let given = match &f.values[v].ty {
            Some(Type::Sil(t)) => Some(t.as_ref()),
            _ => used,
        };
        if let (Some(given), Some(Type::Sil(want))) = (given, &f.values[p].ty) {
            if !annot::same_type(given, want) {
                let b = &f.blocks[target].name;
                self.error(*span, format!("`{b}` takes `${want}` as its argument {j}, but `%{n}` is `${given}`"));
            }
        }
    }

    fn build(
        &mut self,
        name: String,
        header: SilHeader,
        stmts: Vec<Stmt>,
        lbrace: Span,
        span: Span,
    ) -> Option<Function> {
        let mut f = Function::new(name, Lang::Sil);
        f.sil = Some(header);
        f.span = span;
        if stmts.is_empty() {
            self.error(lbrace, format!("function `{}` has an empty body", lexer::global_ref(&f.name)));
            return None;
        }
        // Sized from the statements at once: growing the arena and the name maps of a
        // 10^5-block function by doubling moved hundreds of MB (issue 17).
        // (Instructions only: labels make no instruction.)
        let n_insts = stmts.iter().filter(|s| matches!(s, Stmt::Inst(_))).count();
        f.insts = crate::entity::EntityVec::with_capacity(n_insts);
        // The name maps borrow their keys from the source: owned keys were a string to
        // allocate and free per block and per value, most of the parser's time at 10^5
        // blocks (issue 17).
        let src: &'a str = self.src;
        let mut labels: HashSet<Cow<'a, str>> = HashSet::with_capacity(stmts.iter().filter(|s| matches!(s, Stmt::Label { .. })).count());
        for s in &stmts {
            if let Stmt::Label { name, span, .. } = s {
                if !labels.insert(source_name(src, *span, 0, name)) {
                    self.error(*span, format!("block `{name}` defined twice"));
                }
            }
        }
        let mut values: HashMap<Cow<'a, str>, ValueId> = HashMap::with_capacity(stmts.len());
        let mut poisoned: HashSet<String> = HashSet::new();
        let mut define = |p: &mut Self, f: &mut Function, name: &str, span: Span, v: ValueId| {
            if values.contains_key(name) {
                p.error(span, format!("value `%{name}` defined twice"));
            } else {
                values.insert(source_name(src, span, 1, name), v);
            }
            f.values[v].span = span;
        };
        let mut cur: Option<BlockId> = None;
        // One shared text per distinct type and name in the function (see `ir::Text`).
        let mut texts = Interner::default();
        // Branch targets by name, filled as blocks are made: resolving through
        // `Function::block_by_name` (a scan of the layout) made a function of 10^5 blocks
        // take minutes. A duplicate label resolves to its first block, as the scan did.
        let mut block_ids: HashMap<Cow<'a, str>, BlockId> = HashMap::new();
        // Blocks holding an instruction that failed to parse: whether they end in a
        // terminator is unknown, so that is not reported.
        let mut tainted: HashSet<BlockId> = HashSet::new();
        let mut bad_blocks: HashSet<BlockId> = HashSet::new();
        // Sized at once too: a parsed instruction is a few hundred bytes, and doubling this
        // vector was the largest single peak of reading back AddressLowering's output.
        let mut pending: Vec<(BlockId, ParsedInst, ValueList)> = Vec::with_capacity(n_insts);
        let mut stmts = stmts.into_iter().peekable();
        while let Some(s) = stmts.next() {
            // Only the last instruction of a block may be an unknown terminator.
            let ends_block = !matches!(stmts.peek(), Some(Stmt::Inst(_)));
            match s {
                Stmt::Label { name, span, params, bad, poison } => {
                    let mut blk = Block::new(name.clone());
                    blk.span = span;
                    let b = f.add_block(blk);
                    block_ids.entry(source_name(src, span, 0, &name)).or_insert(b);
                    if bad {
                        tainted.insert(b);
                        bad_blocks.insert(b);
                        poisoned.extend(poison);
                    }
                    for (k, p) in params.into_iter().enumerate() {
                        let v = f.add_value(
                            p.name.clone(),
                            Some(Type::Sil(texts.intern(&p.ty))),
                            ValueDef::Param { block: b, index: k as u32 },
                        );
                        f.values[v].ownership = p.ownership;
                        f.blocks[b].params.push(v);
                        define(self, &mut f, &p.name, p.span, v);
                    }
                    cur = Some(b);
                }
                Stmt::Inst(toks) => {
                    let b = match cur {
                        Some(b) => b,
                        None => {
                            // Instructions before any label form the entry block.
                            let name = (0..)
                                .map(|k| if k == 0 { "bb0".to_string() } else { format!("bb0_{k}") })
                                .find(|n| !labels.contains(n.as_str()))
                                .unwrap_or_default();
                            let mut blk = Block::new(name);
                            blk.labeled = false;
                            blk.span = toks.first().map_or(lbrace, |t| t.span);
                            let b = f.add_block(blk);
                            cur = Some(b);
                            b
                        }
                    };
                    let (results, outcome) = inst::parse_inst(&toks, &labels, ends_block, &mut texts);
                    match outcome {
                        Ok(mut pi) => {
                            // The names and types move into the values (copies of them were
                            // two allocations per result, and the pending instructions held
                            // them to the end).
                            let mut ids = ValueList::with_capacity(pi.results.len());
                            let mut tys = std::mem::take(&mut pi.result_tys).into_iter();
                            for (rn, rs) in std::mem::take(&mut pi.results) {
                                let ty = tys.next().flatten();
                                let v = f.add_value(String::new(), ty, ValueDef::Undef);
                                define(self, &mut f, &rn, rs, v);
                                f.values[v].name = rn;
                                ids.push(v);
                            }
                            pending.push((b, pi, ids));
                        }
                        Err(d) => {
                            tainted.insert(b);
                            if let Some(d) = d {
                                self.error(d.span, d.message);
                            }
                            poisoned.extend(results.into_iter().map(|(n, _)| n.to_string()));
                        }
                    }
                }
            }
        }

        let resolve = |p: &mut Self, f: &mut Function, o: &Operand| -> Option<ValueId> {
            match o {
                Operand::Named(n, span) => {
                    let v = values.get(n.as_str()).copied();
                    if v.is_none() && !poisoned.contains(n) {
                        p.error(*span, format!("use of undefined value `%{n}`"));
                    }
                    v
                }
                Operand::Undef(ty) => Some(f.add_undef(ty.clone())),
            }
        };
        for (b, pi, results) in pending {
            if let Some(t) = f.blocks[b].term {
                let what = f.insts[t].op.name().to_string();
                let bn = f.blocks[b].name.clone();
                self.error(
                    pi.span,
                    format!(
                        "instruction after the terminator `{what}` of block `{bn}`; start a new block with a label"
                    ),
                );
                continue;
            }
            let op = Op::Sil(pi.op);
            let mut inst = Inst::new(op.clone());
            inst.results = results;
            // Where each operand sits among the printed pieces, found in one pass (the first
            // piece of each, as `annot::annotation` takes it).
            let mut arg_at: Vec<Option<usize>> = vec![None; pi.operands.len()];
            let mut succ_arg_at: HashMap<(u32, u32), usize> = HashMap::new();
            for (p, piece) in pi.pieces.iter().enumerate() {
                match *piece {
                    Piece::Arg(k) => {
                        if let Some(slot) = arg_at.get_mut(k as usize) {
                            slot.get_or_insert(p);
                        }
                    }
                    Piece::SuccArg(i, j) => {
                        succ_arg_at.entry((i, j)).or_insert(p);
                    }
                    _ => {}
                }
            }
            for (k, o) in pi.operands.iter().enumerate() {
                if let Some(v) = resolve(self, &mut f, o) {
                    // An apply's callee is written with its type after the arguments.
                    let used = match &op {
                        Op::Sil(SilOp::Apply | SilOp::TryApply) if k == 0 => match &pi.ty {
                            Some(Type::Sil(t)) => Some(t.as_ref()),
                            _ => None,
                        },
                        _ => arg_at[k].and_then(|at| annot::annotation_at(&pi.pieces, at)),
                    };
                    self.check_use(&f, used, o, v);
                    inst.args.push(v);
                }
            }
            let explicit_only = matches!(op, Op::Sil(SilOp::Br | SilOp::CondBr));
            for (i, s) in pi.succs.iter().enumerate() {
                let Some(&target) = block_ids.get(s.label.as_str()) else { continue };
                let want = f.blocks[target].params.len();
                let mut succ = Succ::to(target);
                if bad_blocks.contains(&target) {
                    continue;
                }
                if s.explicit || explicit_only {
                    for (j, o) in s.args.iter().enumerate() {
                        if let Some(v) = resolve(self, &mut f, o) {
                            let used = succ_arg_at.get(&(i as u32, j as u32)).and_then(|&at| annot::annotation_at(&pi.pieces, at));
                            self.check_use(&f, used, o, v);
                            self.check_branch_arg(&f, target, j, used, o, v);
                            succ.args.push(v);
                        }
                    }
                    if s.args.len() != want {
                        self.error(
                            s.span,
                            format!(
                                "branch to `{}` passes {} argument(s); the block takes {want}",
                                s.label,
                                s.args.len()
                            ),
                        );
                    }
                } else {
                    // The terminator itself provides these (a case payload, an apply's result):
                    // stand-in `undef`s keep the argument count the IR expects.
                    for k in 0..want {
                        let p = f.blocks[target].params[k];
                        let ty = f.values[p].ty.clone();
                        succ.args.push(f.add_undef(ty));
                    }
                }
                inst.succs.push(succ);
            }
            inst.imm = pi.imm;
            inst.funcs = pi.funcs;
            inst.ty = pi.ty;
            inst.attrs = pi.attrs;
            inst.sil = pi.pieces;
            inst.span = pi.span;
            let is_term = inst.is_terminator();
            let id = f.add_inst(inst);
            if is_term {
                f.blocks[b].term = Some(id);
            } else {
                f.blocks[b].insts.push(id);
            }
        }
        for &b in &f.layout {
            if f.blocks[b].term.is_none() && !tainted.contains(&b) {
                let blk = &f.blocks[b];
                let msg = match blk.insts.last() {
                    Some(&last) => format!(
                        "block `{}` does not end with a terminator (`{}` is not one)",
                        blk.name, f.insts[last].op
                    ),
                    None => format!("block `{}` does not end with a terminator", blk.name),
                };
                self.error(blk.span, msg);
            }
        }
        Some(f)
    }
}

/// `name` as a slice of the source when the token at `span` spells it after a sigil of
/// `sigil` bytes (always, for names the lexer read), else a copy.
fn source_name<'a>(src: &'a str, span: Span, sigil: usize, name: &str) -> Cow<'a, str> {
    match src.get(span.lo as usize + sigil..span.hi as usize) {
        Some(s) if s == name => Cow::Borrowed(s),
        _ => Cow::Owned(name.to_string()),
    }
}

/// If the statement starts with a block label, the index just after its `:` (AddressLowering's
/// read-back splits its lines by the same rule).
pub(crate) fn split_label(toks: &[Token]) -> Option<usize> {
    let first = toks.first()?;
    if first.kind != Kind::Ident || first.is_ident("undef") {
        return None;
    }
    let second = toks.get(1)?;
    if second.is_punct(":") {
        return Some(2);
    }
    if !second.is_punct("(") {
        return None;
    }
    let mut depth = 0;
    for (k, t) in toks.iter().enumerate().skip(1) {
        if t.is_punct("(") {
            depth += 1;
        } else if t.is_punct(")") {
            depth -= 1;
            if depth == 0 {
                return toks.get(k + 1).filter(|c| c.is_punct(":")).map(|_| k + 2);
            }
        }
    }
    None
}

/// A statement that is surely a block label with its `:` forgotten (`bb3`, `bb1(%0 : $T)`).
fn missing_label_colon<'t, 's>(toks: &'t [Token<'s>]) -> Option<&'t Token<'s>> {
    let first = toks.first()?;
    if first.kind != Kind::Ident || crate::sil::insts::lookup(&first.text).is_some() {
        return None;
    }
    // No instruction is called `bb<N>`.
    let bb_number =
        first.text.strip_prefix("bb").is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
    let args_like = toks.get(1).is_some_and(|t| t.is_punct("("))
        && toks.get(2).is_some_and(|t| t.kind == Kind::Value)
        && toks.get(3).is_some_and(|t| t.is_punct(":"));
    if bb_number || args_like {
        Some(first)
    } else {
        None
    }
}
