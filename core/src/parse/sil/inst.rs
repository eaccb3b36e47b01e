//! One SIL instruction: its tokens → opcode, operands, successors, immediates and the print
//! template.
//!
//! Every instruction keeps its own tokens as its template, with the tokens that name values
//! and blocks turned into holes; modelled opcodes additionally check their syntax and fill
//! the structured fields. Unknown opcodes keep every `%value`/`undef` as an operand and, for
//! terminators, every identifier naming a block of the function as a successor, so any
//! instruction loads and prints back as written.

use super::lexer::{Kind, Token};
use std::borrow::Cow;
use std::fmt;
use crate::diag::{Diagnostic, Span};
use crate::ir::{Imm, Interner, Name, Piece, Pieces, SilOp, Type};
use std::collections::HashSet;

/// An operand before name resolution.
#[derive(Clone, Debug)]
pub(super) enum Operand {
    Named(String, Span),
    Undef(Option<Type>),
}

#[derive(Clone, Debug)]
pub(super) struct SuccSyn {
    pub label: String,
    pub span: Span,
    pub args: Vec<Operand>,
    /// Whether the source wrote an argument list (`bb1(%x : $T)`); successors of
    /// `switch_enum`, `try_apply`, … receive their arguments from the terminator instead.
    pub explicit: bool,
}

#[derive(Clone, Debug)]
pub(super) struct ParsedInst {
    pub op: SilOp,
    pub results: Results,
    /// The type of each result, where the instruction states or implies it.
    pub result_tys: Vec<Option<Type>>,
    pub operands: Vec<Operand>,
    pub succs: Vec<SuccSyn>,
    pub imm: Imm,
    pub funcs: Vec<String>,
    pub ty: Option<Type>,
    pub attrs: Vec<String>,
    /// Shared with every instruction of the same template ([`Interner::pieces`]).
    pub pieces: Pieces,
    pub span: Span,
}

/// The instruction's result names (so that a failed instruction can still declare them and
/// spare its users a cascade of "undefined value" errors; empty on success, where
/// [`ParsedInst::results`] has them) and the parse. `Err(None)` means the lexer already
/// reported the problem.
pub(super) type InstOutcome = (Results, Result<ParsedInst, Option<Diagnostic>>);

/// `ends_block`: the instruction is the last of its block, so an opcode we do not model may
/// be its terminator (see [`structure`]).
pub(super) fn parse_inst(toks: &[Token], labels: &HashSet<Cow<'_, str>>, ends_block: bool, texts: &mut Interner) -> InstOutcome {
    let span = match (toks.first(), toks.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => Span::DUMMY,
    };
    let (results, rest) = match split_results(toks) {
        Ok(x) => x,
        Err(d) => {
            // The names before `=` were probably meant as results.
            let eq = toks.iter().position(|t| t.is_punct("=")).unwrap_or(toks.len());
            let names = toks[..eq]
                .iter()
                .filter(|t| t.kind == Kind::Value)
                .map(|t| (Name::new(t.value_name()), t.span))
                .collect();
            return (names, Err(Some(d)));
        }
    };
    if toks.iter().any(|t| t.kind == Kind::Error) {
        return (results, Err(None));
    }
    let rest = strip_debug_info(rest);
    match parse_body(rest, labels, span, &results, ends_block, texts) {
        // The names move into the instruction (a copy was an allocation per result): the
        // list returned beside it is only for a failed parse.
        Ok(mut p) => {
            p.results = results;
            (Vec::new(), Ok(p))
        }
        Err(d) => (results, Err(Some(d))),
    }
}

/// Result names with their spans.
type Results = Vec<(Name, Span)>;

/// Splits `%r = …` / `(%a, %b) = …` off the front.
fn split_results<'t, 's>(toks: &'t [Token<'s>]) -> Result<(Results, &'t [Token<'s>]), Diagnostic> {
    let is_eq = |k: usize| toks.get(k).is_some_and(|t| t.is_punct("="));
    if toks.first().is_some_and(|t| t.kind == Kind::Value) && is_eq(1) {
        return Ok((vec![(Name::new(toks[0].value_name()), toks[0].span)], &toks[2..]));
    }
    if !toks.first().is_some_and(|t| t.is_punct("(")) {
        return Ok((Vec::new(), toks));
    }
    // `(%a, %b) = …`: a statement cannot otherwise start with `(`.
    let close = toks.iter().position(|t| t.is_punct(")"));
    let Some(close) = close.filter(|&c| is_eq(c + 1)) else {
        return Err(match (close, toks.iter().find(|t| t.is_punct("="))) {
            (None, Some(eq)) => Diagnostic::error(eq.span, "expected `)` before `=` to close the result list"),
            (Some(c), _) => Diagnostic::error(toks[c].span, "expected `=` and an instruction after the result list"),
            (None, None) => Diagnostic::error(toks[0].span, "unterminated result list `(%a, %b) =`"),
        });
    };
    let mut results = Vec::new();
    let inner = &toks[1..close];
    for (k, t) in inner.iter().enumerate() {
        let want_value = k % 2 == 0;
        if want_value && t.kind == Kind::Value {
            results.push((Name::new(t.value_name()), t.span));
        } else if !want_value && t.is_punct(",") && k + 1 < inner.len() {
        } else {
            let what = if want_value { "a result name `%name`" } else { "`,` or `)` in the result list" };
            return Err(Diagnostic::error(t.span, format!("expected {what}, found {}", t.describe())));
        }
    }
    Ok((results, &toks[close + 2..]))
}

/// Drops trailing `, loc "file":1:2` and `, scope 3`: debug locations are not modelled.
fn strip_debug_info<'t, 's>(toks: &'t [Token<'s>]) -> &'t [Token<'s>] {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate() {
        if t.is_punct("(") || t.is_punct("[") {
            depth += 1;
        } else if t.is_punct(")") || t.is_punct("]") {
            depth -= 1;
        } else if depth == 0
            && t.is_punct(",")
            && toks.get(k + 1).is_some_and(|n| n.is_ident("loc") || n.is_ident("scope"))
        {
            // A `,` left at the end would join the next line to this instruction when printed.
            let mut kept = &toks[..k];
            while kept.last().is_some_and(|l| l.is_punct(",")) {
                kept = &kept[..kept.len() - 1];
            }
            // Nor may a `{` be left at the end: printed last on its line it would open a
            // region (`transform {`) and swallow the lines after it. Such a line keeps its
            // location instead.
            if kept.last().is_some_and(|l| l.is_punct("{")) {
                return toks;
            }
            return kept;
        }
    }
    toks
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Text,
    Arg(u32),
    Succ(u32),
    SuccArg(u32, u32),
}

type PResult<T> = Result<T, Diagnostic>;

struct P<'t, 's> {
    toks: &'t [Token<'s>],
    pos: usize,
    roles: Vec<Role>,
    operands: Vec<Operand>,
    /// The `: $T` written after each operand, if any: the token's own text (a `String` per
    /// annotated operand was an allocation and a free for nearly every operand parsed).
    operand_tys: Vec<Option<&'t str>>,
    succs: Vec<SuccSyn>,
    labels: &'t HashSet<Cow<'t, str>>,
    /// Where "found end of line" points.
    end: Span,
}

impl<'t, 's> P<'t, 's> {
    fn peek(&self) -> Option<&'t Token<'s>> {
        self.toks.get(self.pos)
    }
    fn peek_at(&self, k: usize) -> Option<&'t Token<'s>> {
        self.toks.get(self.pos + k)
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn found(&self) -> (Span, String) {
        match self.peek() {
            Some(t) => (t.span, t.describe()),
            None => (self.end, "end of line".to_string()),
        }
    }
    fn err<T>(&self, what: &str) -> PResult<T> {
        let (span, found) = self.found();
        Err(Diagnostic::error(span, format!("expected {what}, found {found}")))
    }
    fn bump(&mut self) -> Option<&'t Token<'s>> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_punct(p)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// `context` is formatted only for the error: callers pass a `format_args!` or a
    /// [`Ctx`], not a `String` made for every instruction parsed.
    fn expect_punct(&mut self, p: &str, context: impl fmt::Display) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.err(&format!("`{p}` {context}"))
        }
    }
    fn eat_ident(&mut self, w: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_ident(w)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_ident(&mut self, w: &str, context: impl fmt::Display) -> PResult<()> {
        if self.eat_ident(w) {
            Ok(())
        } else {
            self.err(&format!("`{w}` {context}"))
        }
    }
    fn expect_kind(&mut self, kind: Kind, what: &str) -> PResult<&'t Token<'s>> {
        match self.peek() {
            Some(t) if t.kind == kind => {
                self.pos += 1;
                Ok(t)
            }
            _ => self.err(what),
        }
    }
    /// A `$type`; returns its text without `$`.
    fn ty(&mut self, context: impl fmt::Display) -> PResult<String> {
        // The message is made only when it is needed: formatting it for every typed
        // instruction was an allocation and a free each.
        match self.peek() {
            Some(t) if t.kind == Kind::Type => {
                self.pos += 1;
                Ok(t.type_text().to_string())
            }
            _ => self.err(&format!("a type `$T` {context}")),
        }
    }
    /// Bracketed attributes: `[take]`, `[modify] [dynamic]`.
    fn attrs(&mut self) -> PResult<Vec<String>> {
        let mut out = Vec::new();
        while self.peek().is_some_and(|t| t.is_punct("[")) {
            let open = self.pos;
            let Some(close) = (open..self.toks.len()).find(|&k| self.toks[k].is_punct("]")) else {
                return Err(Diagnostic::error(self.toks[open].span, "unterminated `[` attribute"));
            };
            if close == open + 1 {
                return Err(Diagnostic::error(self.toks[open].span, "empty attribute `[]`"));
            }
            out.push(join_plain(&self.toks[open + 1..close]));
            self.pos = close + 1;
        }
        Ok(out)
    }
    /// `%v` or `undef` (optionally `: $T`), assigned `role`.
    fn take_operand(&mut self, role: Role, strict: bool) -> PResult<(Operand, Option<&'t str>)> {
        let Some(t) = self.peek() else { return self.err("an operand (`%value` or `undef`)") };
        let mut op = if t.kind == Kind::Value {
            Operand::Named(t.value_name().to_string(), t.span)
        } else if t.is_ident("undef") {
            Operand::Undef(None)
        } else {
            return self.err("an operand (`%value` or `undef`)");
        };
        self.roles[self.pos] = role;
        self.pos += 1;
        let mut ann = None;
        if self.peek().is_some_and(|t| t.is_punct(":")) {
            match self.peek_at(1) {
                Some(t) if t.kind == Kind::Type => {
                    ann = Some(t.type_text());
                    self.pos += 2;
                }
                _ if strict => {
                    self.pos += 1;
                    return self.err("a type `$T` after `:`");
                }
                _ => {}
            }
        }
        if let (Operand::Undef(ty), Some(a)) = (&mut op, ann) {
            *ty = Some(Type::Sil(a.into()));
        }
        Ok((op, ann))
    }
    /// An instruction operand; returns its index in `args`.
    fn operand(&mut self) -> PResult<usize> {
        let i = self.operands.len();
        let (op, ann) = self.take_operand(Role::Arg(i as u32), true)?;
        self.operands.push(op);
        self.operand_tys.push(ann);
        Ok(i)
    }
    /// `(op, op, …)`
    fn operand_list(&mut self, context: impl fmt::Display) -> PResult<Vec<usize>> {
        self.expect_punct("(", context)?;
        let mut out = Vec::new();
        if self.eat_punct(")") {
            return Ok(out);
        }
        loop {
            out.push(self.operand()?);
            if self.eat_punct(")") {
                return Ok(out);
            }
            self.expect_punct(",", "or `)` in the operand list")?;
        }
    }
    /// `label` or `label(op : $T, …)`.
    fn succ(&mut self) -> PResult<()> {
        let Some(t) = self.peek() else { return self.err("a block label") };
        if t.kind != Kind::Ident || t.is_ident("undef") {
            return self.err("a block label");
        }
        if !self.labels.contains(t.text.as_ref()) {
            return Err(Diagnostic::error(t.span, format!("unknown block `{}`", t.text)));
        }
        self.label_succ(t)
    }
    /// Records the label at the cursor (already checked) as a successor, with its arguments.
    fn label_succ(&mut self, t: &Token) -> PResult<()> {
        let i = self.succs.len() as u32;
        self.roles[self.pos] = Role::Succ(i);
        self.pos += 1;
        let mut s = SuccSyn { label: t.text.to_string(), span: t.span, args: Vec::new(), explicit: false };
        if self.eat_punct("(") {
            s.explicit = true;
            if !self.eat_punct(")") {
                loop {
                    let j = s.args.len() as u32;
                    let (op, _) = self.take_operand(Role::SuccArg(i, j), true)?;
                    s.args.push(op);
                    if self.eat_punct(")") {
                        break;
                    }
                    self.expect_punct(",", "or `)` in the block argument list")?;
                }
            }
        }
        self.succs.push(s);
        Ok(())
    }
    /// Optional substitutions `<T, U>` after a callee or builtin name.
    fn subs(&mut self) -> PResult<()> {
        if !self.peek().is_some_and(|t| t.is_punct("<")) {
            return Ok(());
        }
        let open = self.pos;
        let mut depth = 0;
        while let Some(t) = self.bump() {
            if t.is_punct("<") {
                depth += 1;
            } else if t.is_punct(">") {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
        }
        Err(Diagnostic::error(self.toks[open].span, "unterminated `<` substitution list"))
    }
    fn finish(&self, op: &SilOp) -> PResult<()> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(Diagnostic::error(t.span, format!("unexpected {} after `{op}`", t.describe()))),
        }
    }
    /// `, forwarding: @guaranteed` (ownership forwarding override) at the end.
    fn forwarding_tail(&mut self) -> PResult<()> {
        if self.peek().is_some_and(|t| t.is_punct(",")) && self.peek_at(1).is_some_and(|t| t.is_ident("forwarding")) {
            self.pos += 2;
            self.expect_punct(":", "after `forwarding`")?;
            self.expect_kind(Kind::Global, "an ownership kind such as `@guaranteed`")?;
        }
        Ok(())
    }
    /// The generic path: every remaining `%value`/`undef` becomes an operand, and for
    /// terminators every block label a successor. Returns bracketed attributes seen.
    fn generic(&mut self, allow_succ: bool) -> Vec<String> {
        let mut attrs = Vec::new();
        let mut no_close_from = usize::MAX;
        while let Some(t) = self.peek() {
            if t.kind == Kind::Value || t.is_ident("undef") {
                let i = self.operands.len();
                // Lenient: `case %1: bb1` has a `:` that is not a type annotation.
                if let Ok((op, ann)) = self.take_operand(Role::Arg(i as u32), false) {
                    self.operands.push(op);
                    self.operand_tys.push(ann);
                }
            } else if allow_succ && t.kind == Kind::Ident && self.labels.contains(t.text.as_ref()) {
                let args_follow = self.peek_at(1).is_some_and(|p| p.is_punct("("))
                    && self.peek_at(2).is_some_and(|a| a.kind == Kind::Value || a.is_ident("undef") || a.is_punct(")"));
                if args_follow {
                    let save = (self.pos, self.roles.clone());
                    if self.label_succ(t).is_err() {
                        // Not an argument list after all: keep the label, treat the rest as text.
                        (self.pos, self.roles) = save;
                        self.roles[self.pos] = Role::Succ(self.succs.len() as u32);
                        self.succs.push(SuccSyn {
                            label: t.text.to_string(),
                            span: t.span,
                            args: Vec::new(),
                            explicit: false,
                        });
                        self.pos += 1;
                    }
                } else {
                    self.roles[self.pos] = Role::Succ(self.succs.len() as u32);
                    self.succs.push(SuccSyn { label: t.text.to_string(), span: t.span, args: Vec::new(), explicit: false });
                    self.pos += 1;
                }
            } else if t.is_punct("[") {
                // Searched once per `[`, but never again past a point known to have no `]`:
                // a line of 10^5 unclosed `[` stays linear.
                let close = if self.pos >= no_close_from {
                    None
                } else {
                    let c = (self.pos..self.toks.len()).find(|&k| self.toks[k].is_punct("]"));
                    if c.is_none() {
                        no_close_from = self.pos;
                    }
                    c
                };
                match close {
                    Some(c) if c > self.pos + 1 => {
                        let inner = &self.toks[self.pos + 1..c];
                        if inner.iter().all(|x| x.kind != Kind::Value && !x.is_ident("undef")) {
                            attrs.push(join_plain(inner));
                            self.pos = c + 1;
                            continue;
                        }
                        self.pos += 1;
                    }
                    _ => self.pos += 1,
                }
            } else {
                self.pos += 1;
            }
        }
        attrs
    }
}

/// Structured fields an opcode fills.
#[derive(Default)]
struct Fields {
    imm: Imm,
    funcs: Vec<String>,
    ty: Option<String>,
    attrs: Vec<String>,
    /// Result types by position (missing entries are unknown).
    result_tys: Vec<Option<String>>,
}

fn parse_body(
    toks: &[Token],
    labels: &HashSet<Cow<'_, str>>,
    span: Span,
    results: &[(Name, Span)],
    ends_block: bool,
    texts: &mut Interner,
) -> PResult<ParsedInst> {
    let end = toks
        .last()
        .map_or(Span::new(span.hi as usize, span.hi as usize), |t| Span::new(t.span.hi as usize, t.span.hi as usize));
    let Some(first) = toks.first() else {
        let at = if results.is_empty() { span } else { end };
        return Err(Diagnostic::error(at, "expected an instruction name after `=`"));
    };
    if first.kind != Kind::Ident {
        let what = if results.is_empty() { "an instruction or a block label" } else { "an instruction name" };
        return Err(Diagnostic::error(first.span, format!("expected {what}, found {}", first.describe())));
    }
    let op = SilOp::from_name(&first.text);
    let mut p = P {
        toks,
        pos: 1,
        roles: vec![Role::Text; toks.len()],
        operands: Vec::new(),
        operand_tys: Vec::new(),
        succs: Vec::new(),
        labels,
        end,
    };
    let f = structure(&op, &mut p, ends_block, texts)?;
    // Types and names go through the module's interner, so every instruction and value of
    // one type shares its text (see `ir::Text`).
    let result_tys =
        (0..results.len()).map(|k| f.result_tys.get(k).and_then(Option::as_deref).map(|t| Type::Sil(texts.intern(t)))).collect();
    Ok(ParsedInst {
        pieces: texts.template(|out| pieces_into(toks, &p.roles, out)),
        op,
        results: Vec::new(),
        result_tys,
        operands: p.operands,
        succs: p.succs,
        imm: f.imm,
        funcs: f.funcs,
        ty: f.ty.as_deref().map(|t| Type::Sil(texts.intern(t))),
        attrs: f.attrs,
        span,
    })
}

/// `WHAT in `op``, the context of an expectation, formatted only if it fails.
struct Ctx<'a> {
    what: &'static str,
    op: &'a str,
}

impl fmt::Display for Ctx<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in `{}`", self.what, self.op)
    }
}

/// Checks the syntax of a modelled opcode and fills its fields; unknown opcodes take the
/// generic path, and end their block (`ends_block`) as a terminator if they name a label.
fn structure(op: &SilOp, p: &mut P, ends_block: bool, texts: &mut Interner) -> PResult<Fields> {
    use SilOp::*;
    let mut f = Fields::default();
    let name = op.name();
    let ctx = |what: &'static str| Ctx { what, op: name };
    match op {
        IntegerLiteral | FloatLiteral => {
            let ty = p.ty(format_args!("after `{name}`"))?;
            p.expect_punct(",", format_args!("after the type in `{name}`"))?;
            let lit = p.expect_kind(Kind::Int, "a number")?;
            f.imm = if *op == IntegerLiteral {
                match parse_int(&lit.text) {
                    Some(v) => Imm::Int(v),
                    None => {
                        return Err(Diagnostic::error(
                            lit.span,
                            format!("integer literal `{}` is not a number that fits in 128 bits", lit.text),
                        ))
                    }
                }
            } else {
                match float_imm(&lit.text, &ty) {
                    Some(Imm::Name(n)) => Imm::Name(texts.intern(&n)),
                    Some(imm) => imm,
                    None => return Err(Diagnostic::error(lit.span, format!("malformed float literal `{}`", lit.text))),
                }
            };
            f.result_tys = vec![Some(ty.clone())];
            f.ty = Some(ty);
            p.finish(op)?;
        }
        StringLiteral => {
            let enc = p.expect_kind(Kind::Ident, "a string encoding such as `utf8`")?;
            let s = p.expect_kind(Kind::Str, "a string literal")?;
            f.attrs.push(enc.text.to_string());
            f.imm = Imm::Name(texts.intern(s.str_content()));
            p.finish(op)?;
        }
        Struct => {
            let ty = p.ty("after `struct`")?;
            p.operand_list(ctx("before the fields"))?;
            p.forwarding_tail()?;
            f.result_tys = vec![Some(ty.clone())];
            f.ty = Some(ty);
            p.finish(op)?;
        }
        Tuple => {
            if p.peek().is_some_and(|t| t.kind == Kind::Type) {
                let ty = p.ty("")?;
                p.operand_list(ctx("before the elements"))?;
                f.result_tys = vec![Some(ty.clone())];
                f.ty = Some(ty);
            } else {
                p.operand_list(ctx("before the elements (or a tuple type `$(A, B)`)"))?;
                let tys: Option<Vec<&str>> = p.operand_tys.iter().copied().collect();
                f.result_tys = vec![tys.map(|t| format!("({})", t.join(", ")))];
            }
            p.forwarding_tail()?;
            p.finish(op)?;
        }
        StructExtract | StructElementAddr => {
            p.operand()?;
            p.expect_punct(",", ctx("before the field"))?;
            let field = p.expect_kind(Kind::Hash, "a field such as `#S.field`")?;
            f.imm = Imm::Name(texts.intern(&field.text));
            p.forwarding_tail()?;
            p.finish(op)?;
        }
        TupleExtract | TupleElementAddr => {
            let a = p.operand()?;
            p.expect_punct(",", ctx("before the element index"))?;
            let idx = p.expect_kind(Kind::Int, "an element index")?;
            let Ok(i) = idx.text.parse::<u32>() else {
                return Err(Diagnostic::error(idx.span, format!("invalid tuple element index `{}`", idx.text)));
            };
            f.imm = Imm::Index(i);
            if *op == TupleExtract {
                let elem =
                    p.operand_tys[a].and_then(tuple_elements).and_then(|e| e.get(i as usize).cloned());
                f.result_tys = vec![elem];
            }
            p.forwarding_tail()?;
            p.finish(op)?;
        }
        DestructureStruct | DestructureTuple => {
            let a = p.operand()?;
            if *op == DestructureTuple {
                f.result_tys = p.operand_tys[a]
                    .and_then(tuple_elements)
                    .map(|e| e.into_iter().map(Some).collect())
                    .unwrap_or_default();
            }
            p.forwarding_tail()?;
            p.finish(op)?;
        }
        Enum => {
            let ty = p.ty("after `enum`")?;
            p.expect_punct(",", ctx("before the case"))?;
            let case = p.expect_kind(Kind::Hash, "an enum case such as `#E.a!enumelt`")?;
            f.imm = Imm::Name(texts.intern(&case.text));
            if p.peek().is_some_and(|t| t.is_punct(",")) && !p.peek_at(1).is_some_and(|t| t.is_ident("forwarding")) {
                p.pos += 1;
                p.operand()?;
            }
            p.forwarding_tail()?;
            f.result_tys = vec![Some(ty.clone())];
            f.ty = Some(ty);
            p.finish(op)?;
        }
        Builtin => {
            let n = p.expect_kind(Kind::Str, "the builtin's name as a string")?;
            f.imm = Imm::Name(texts.intern(n.str_content()));
            p.subs()?;
            p.operand_list(ctx("before the builtin's operands"))?;
            p.expect_punct(":", "and the result type after the builtin's operands")?;
            let ty = p.ty("after `:`")?;
            f.result_tys = vec![Some(ty.clone())];
            f.ty = Some(ty);
            p.finish(op)?;
        }
        FunctionRef => {
            let g = p.expect_kind(Kind::Global, "a function name `@f`")?;
            f.funcs.push(g.global_name());
            p.expect_punct(":", "after the function name")?;
            let ty = p.ty("after `:`")?;
            f.result_tys = vec![Some(ty.clone())];
            f.ty = Some(ty);
            p.finish(op)?;
        }
        Apply | TryApply => {
            f.attrs = p.attrs()?;
            p.operand()?;
            p.subs()?;
            p.operand_list(ctx("before the arguments"))?;
            p.expect_punct(":", "and the callee's type after the arguments")?;
            f.ty = Some(p.ty("after `:`")?);
            if *op == TryApply {
                p.expect_punct(",", "and `normal bbN` after the callee's type")?;
                p.expect_ident("normal", "in `try_apply`")?;
                p.succ()?;
                p.expect_punct(",", "and `error bbN` after the normal successor")?;
                p.expect_ident("error", "in `try_apply`")?;
                p.succ()?;
            }
            p.finish(op)?;
        }
        CondFail => {
            p.operand()?;
            if p.eat_punct(",") {
                let m = p.expect_kind(Kind::Str, "a failure message string")?;
                f.imm = Imm::Name(texts.intern(m.str_content()));
            }
            p.finish(op)?;
        }
        FixLifetime | DeallocStack | DestroyAddr | CopyValue | DestroyValue | MoveValue | BeginBorrow | EndBorrow
        | BeginAccess | EndAccess | StrongRetain | StrongRelease | EndLifetime | DropDeinit | Load | LoadBorrow => {
            f.attrs = p.attrs()?;
            let a = p.operand()?;
            let t = p.operand_tys[a].map(str::to_string);
            f.result_tys = vec![match op {
                Load | LoadBorrow => t.and_then(|t| t.strip_prefix('*').map(|s| s.trim().to_string())),
                CopyValue | MoveValue | BeginBorrow | DropDeinit => t,
                _ => None,
            }];
            p.forwarding_tail()?;
            p.finish(op)?;
        }
        DebugValue | AllocStack => {
            f.attrs = p.attrs()?;
            if *op == AllocStack {
                let ty = p.ty("after `alloc_stack`")?;
                f.result_tys = vec![Some(format!("*{ty}"))];
                f.ty = Some(ty);
            } else if p.peek().is_some_and(|t| t.kind == Kind::Value || t.is_ident("undef")) {
                p.operand()?;
            } else {
                // `debug_value , let, name "x"`: its value was deleted (what the optimizer
                // leaves); only the variable info remains.
                p.eat_punct(",");
                p.generic(false);
            }
            // Variable info (`, let, name "x", argno 1`) is kept as text.
            if !p.at_end() {
                p.expect_punct(",", format_args!("or end of line after the operand of `{name}`"))?;
                p.generic(false);
            }
        }
        Store | StoreBorrow | CopyAddr => {
            if *op == CopyAddr {
                f.attrs = p.attrs()?;
            }
            p.operand()?;
            p.expect_ident("to", ctx("between source and destination"))?;
            if *op != StoreBorrow {
                f.attrs.extend(p.attrs()?);
            }
            p.operand()?;
            p.finish(op)?;
        }
        UnconditionalCheckedCast => {
            f.attrs = p.attrs()?;
            p.operand()?;
            p.expect_ident("to", "before the target type in `unconditional_checked_cast`")?;
            let rest = &p.toks[p.pos..];
            if rest.is_empty() {
                return p.err("a target type");
            }
            let target = if rest.len() == 1 && rest[0].kind == Kind::Type {
                rest[0].type_text().to_string()
            } else {
                join_plain(rest)
            };
            p.pos = p.toks.len();
            f.result_tys = vec![Some(target.clone())];
            f.ty = Some(target);
        }
        MarkDependence => {
            f.attrs = p.attrs()?;
            let a = p.operand()?;
            p.expect_ident("on", "between the value and its base in `mark_dependence`")?;
            p.operand()?;
            f.result_tys = vec![p.operand_tys[a].map(str::to_string)];
            p.finish(op)?;
        }
        PointerToAddress => {
            p.operand()?;
            p.expect_ident("to", "before the address type in `pointer_to_address`")?;
            f.attrs = p.attrs()?;
            let ty = p.ty("after `to`")?;
            f.result_tys = vec![Some(ty.clone())];
            f.ty = Some(ty);
            p.finish(op)?;
        }
        Br => {
            p.succ()?;
            p.finish(op)?;
        }
        CondBr => {
            p.operand()?;
            p.expect_punct(",", "after the condition of `cond_br`")?;
            p.succ()?;
            p.expect_punct(",", "between the successors of `cond_br`")?;
            p.succ()?;
            p.finish(op)?;
        }
        SwitchEnum => {
            p.operand()?;
            while !p.at_end() {
                p.expect_punct(",", "or end of line after a `switch_enum` case")?;
                if p.eat_ident("case") {
                    p.expect_kind(Kind::Hash, "an enum case such as `#E.a!enumelt`")?;
                    p.expect_punct(":", "after the enum case")?;
                    p.succ()?;
                } else if p.eat_ident("default") {
                    p.succ()?;
                } else if p.eat_ident("forwarding") {
                    p.expect_punct(":", "after `forwarding`")?;
                    p.expect_kind(Kind::Global, "an ownership kind such as `@guaranteed`")?;
                } else {
                    return p.err("`case`, `default` or `forwarding:`");
                }
            }
        }
        Return | Throw => {
            p.operand()?;
            p.finish(op)?;
        }
        Unreachable => p.finish(op)?,
        _ => {
            // An opcode the instruction table does not know that ends its block takes
            // successors too: a label of the function among its operands
            // (`await_detached_continuation %0 : $T, resume bb1, error bb2`) makes it a
            // terminator, so one unknown terminator does not reject the file. In the middle
            // of a block such a name stays text.
            let known = op.info();
            let terminator = known.is_some_and(|e| e.is_terminator()) || (ends_block && known.is_none());
            f.attrs = p.attrs()?;
            if p.peek().is_some_and(|t| t.kind == Kind::Type) {
                f.ty = Some(p.ty("")?);
            }
            let rest_attrs = p.generic(terminator);
            f.attrs.extend(rest_attrs);
            if let Some(h) = p.toks.iter().find(|t| t.kind == Kind::Hash) {
                f.imm = Imm::Name(texts.intern(&h.text));
            }
            if op.name().ends_with("function_ref") {
                f.funcs = p.toks.iter().filter(|t| t.kind == Kind::Global).map(|t| t.global_name()).collect();
            }
        }
    }
    Ok(f)
}

/// A decimal or hexadecimal integer, possibly negative; values up to `u128::MAX` wrap into
/// `i128` (the bit pattern of a `Builtin.Int128`).
fn parse_int(text: &str) -> Option<i128> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let body: String = body.chars().filter(|&c| c != '_').collect();
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => u128::from_str_radix(h, 16).ok()?,
        None => body.parse::<u128>().ok()?,
    } as i128;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `float_literal` writes the IEEE bit pattern in hex; widths without a Rust type
/// (`FPIEEE16`, `FPIEEE80`) keep the literal's text.
fn float_imm(text: &str, ty: &str) -> Option<Imm> {
    let Some(h) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) else {
        return text.parse::<f64>().ok().map(Imm::Float);
    };
    let bits = u128::from_str_radix(h, 16).ok()?;
    Some(if ty.ends_with("FPIEEE64") {
        Imm::Float(f64::from_bits(bits as u64))
    } else if ty.ends_with("FPIEEE32") {
        Imm::Float(f32::from_bits(bits as u32) as f64)
    } else {
        Imm::Name(text.into())
    })
}

/// The element types of a tuple type `(A, (B, C))` → `["A", "(B, C)"]`.
pub(super) fn tuple_elements(ty: &str) -> Option<Vec<String>> {
    let inner = ty.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' => depth -= 1,
            '-' if chars.peek() == Some(&'>') => {
                cur.push(c);
                cur.push(chars.next().unwrap_or('>'));
                continue;
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        cur.push(c);
    }
    if depth != 0 {
        return None;
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    Some(out)
}

/// Whether printing puts a space between tokens `a` and `b` (`c` follows `b`). The spacing
/// is sil-opt's: `%0 : $T`, `f(%x)`, `[take]`, `case #E.a!enumelt: bb1`.
/// `closed_sig`: `a` is the `>` that ends a generic signature (`<Self where …> (Self.Type)`
/// in a `witness_method`'s member type), not a substitution list (`apply %f<T>(%x)`).
fn needs_space(a: &Token, a_role: Role, b: &Token, c: Option<&Token>, angle: usize, closed_sig: bool) -> bool {
    if a.is_punct("(") || a.is_punct("[") || a.is_punct("<") {
        return false;
    }
    // `#Comparable."<"`: an operator member is quoted right after the dot.
    if a.kind == Kind::Hash && a.text.ends_with('.') && b.kind == Kind::Str {
        return false;
    }
    if closed_sig && b.is_punct("(") {
        return true;
    }
    if b.is_punct(",") || b.is_punct(")") || b.is_punct("]") || b.is_punct(";") {
        return false;
    }
    if b.is_punct(">") {
        // `- >` must not print as the arrow `->`.
        return a.is_punct("-");
    }
    if b.is_punct(":") {
        return angle > 0 || c.is_some_and(|c| c.kind == Kind::Type || c.is_punct("<") || c.is_punct("("));
    }
    let callee_like = matches!(a.kind, Kind::Value | Kind::Global) || a.is_ident("undef");
    if b.is_punct("(") {
        return !(callee_like || a.kind == Kind::Str || a.is_punct(">") || matches!(a_role, Role::Succ(_)));
    }
    if b.is_punct("<") {
        // `TestGeneric<T>` in a member's formal type: a generic type written without a space.
        let applied = a.kind == Kind::Ident && a.span.hi == b.span.lo;
        return !(callee_like || a.kind == Kind::Str || applied);
    }
    true
}

/// The print template of an instruction from its tokens and the roles assigned to them.
fn pieces(toks: &[Token], roles: &[Role]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut angle = 0usize;
    // Per open `<`: whether it begins a generic signature (after `:` or first), and whether
    // the last `>` ended one.
    let mut opens: Vec<bool> = Vec::new();
    let mut closed_sig = false;
    for (k, t) in toks.iter().enumerate() {
        if k > 0 && needs_space(&toks[k - 1], roles[k - 1], t, toks.get(k + 1), angle, closed_sig) {
            text.push(' ');
        }
        closed_sig = false;
        if t.is_punct("<") {
            angle += 1;
            opens.push(k == 0 || toks[k - 1].is_punct(":"));
        } else if t.is_punct(">") {
            angle = angle.saturating_sub(1);
            closed_sig = opens.pop().unwrap_or(false);
        }
        let hole = match roles[k] {
            Role::Text => {
                text.push_str(&t.text);
                continue;
            }
            Role::Arg(i) => Piece::Arg(i),
            Role::Succ(i) => Piece::Succ(i),
            Role::SuccArg(i, j) => Piece::SuccArg(i, j),
        };
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        out.push(hole);
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// [`pieces`] written over `out`, reusing its strings: the parser builds every instruction's
/// template in one scratch list and the interner copies it only when it is new, so a
/// template seen before costs no allocation (a list and its strings made and freed per
/// instruction were a sixth of parsing at 10^5 blocks, mostly in the allocator).
fn pieces_into(toks: &[Token], roles: &[Role], out: &mut Vec<Piece>) {
    let mut k = 0;
    // Starts the next text piece in slot `k`, reusing the string already there.
    fn text_slot(out: &mut Vec<Piece>, k: usize) {
        match out.get_mut(k) {
            Some(Piece::Text(t)) => t.clear(),
            Some(other) => *other = Piece::Text(String::new()),
            None => out.push(Piece::Text(String::new())),
        }
    }
    let mut open = false;
    let mut angle = 0usize;
    let mut opens: Vec<bool> = Vec::new();
    let mut closed_sig = false;
    for (i, t) in toks.iter().enumerate() {
        let space = i > 0 && needs_space(&toks[i - 1], roles[i - 1], t, toks.get(i + 1), angle, closed_sig);
        closed_sig = false;
        if t.is_punct("<") {
            angle += 1;
            opens.push(i == 0 || toks[i - 1].is_punct(":"));
        } else if t.is_punct(">") {
            angle = angle.saturating_sub(1);
            closed_sig = opens.pop().unwrap_or(false);
        }
        let hole = match roles[i] {
            Role::Text => {
                if !open {
                    text_slot(out, k);
                    open = true;
                }
                let Piece::Text(text) = &mut out[k] else { unreachable!("an open slot is a text piece") };
                if space {
                    text.push(' ');
                }
                text.push_str(&t.text);
                continue;
            }
            Role::Arg(a) => Piece::Arg(a),
            Role::Succ(a) => Piece::Succ(a),
            Role::SuccArg(a, b) => Piece::SuccArg(a, b),
        };
        if space {
            if !open {
                text_slot(out, k);
                open = true;
            }
            if let Piece::Text(text) = &mut out[k] {
                text.push(' ');
            }
        }
        // As in [`pieces`], a text piece only if some text was written.
        if open && matches!(&out[k], Piece::Text(t) if !t.is_empty()) {
            k += 1;
        }
        open = false;
        if k == out.len() {
            out.push(hole);
        } else {
            out[k] = hole;
        }
        k += 1;
    }
    if open && matches!(&out[k], Piece::Text(t) if !t.is_empty()) {
        k += 1;
    }
    out.truncate(k);
}

/// Tokens joined with the printer's spacing, for attribute and type text.
fn join_plain(toks: &[Token]) -> String {
    let roles = vec![Role::Text; toks.len()];
    pieces(toks, &roles)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t,
            _ => String::new(),
        })
        .collect()
}

#[cfg(test)]
mod scratch_tests {
    use super::*;
    use crate::parse::sil::lexer::Lexer;

    /// `pieces_into` over a scratch list left by other instructions gives exactly what
    /// [`pieces`] (the oracle) gives, for every instruction line of the seeds and corpus
    /// programs parsed with the roles the parser assigns, and random roles.
    #[test]
    fn pieces_into_a_dirty_scratch_equals_pieces() {
        let mut scratch: Vec<Piece> = vec![Piece::Text("left over".into()), Piece::Arg(9), Piece::Text("x".into())];
        let mut rng = crate::testgen::Rng::new(5);
        let text = crate::testgen::scale::sil_program(60, 4) + &crate::testgen::scale::sil_program(30, 9);
        let mut lines = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut lex = Lexer::new(line, 0);
            let toks: Vec<Token> = std::iter::from_fn(|| Some(lex.next_token()))
                .take_while(|t| !matches!(t.kind, Kind::Eof | Kind::Newline))
                .collect();
            if toks.is_empty() {
                continue;
            }
            for round in 0..3 {
                let roles: Vec<Role> = toks
                    .iter()
                    .enumerate()
                    .map(|(k, _)| match if round == 0 { 0 } else { rng.below(5) } {
                        1 => Role::Arg(k as u32),
                        2 => Role::Succ(k as u32),
                        3 => Role::SuccArg(k as u32, 1),
                        _ => Role::Text,
                    })
                    .collect();
                pieces_into(&toks, &roles, &mut scratch);
                assert_eq!(scratch, pieces(&toks, &roles), "line `{line}`, round {round}");
            }
            lines += 1;
        }
        assert!(lines > 100);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every instruction and value of one type, and every builtin of one name, share one
    /// text after parsing, and so do the copies a clone makes (what keeps a clone of a large
    /// function from allocating per instruction); the clone is still equal to the original.
    #[test]
    fn parsed_types_and_names_are_shared_and_survive_a_clone() {
        use crate::ir::{Lang, Text};
        let src = "sil @f : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {\nbb0(%0 : $Builtin.Int64):\n  %1 = builtin \"add_Int64\"(%0 : $Builtin.Int64, %0 : $Builtin.Int64) : $Builtin.Int64\n  %2 = builtin \"add_Int64\"(%1 : $Builtin.Int64, %0 : $Builtin.Int64) : $Builtin.Int64\n  %3 = integer_literal $Builtin.Int64, 7\n  br bb1(%2 : $Builtin.Int64)\nbb1(%4 : $Builtin.Int64):\n  return %4 : $Builtin.Int64\n}\n";
        let m = crate::parse_module(Lang::Sil, "t.sil", src).expect("parses");
        let f = &m.functions[0];
        let tys: Vec<&Text> = f
            .values
            .values()
            .filter_map(|d| match &d.ty {
                Some(Type::Sil(t)) => Some(t),
                _ => None,
            })
            .chain(f.insts.values().filter_map(|i| match &i.ty {
                Some(Type::Sil(t)) => Some(t),
                _ => None,
            }))
            .collect();
        // %0, %1, %2, %3, %4 and the literal's own type.
        assert!(tys.len() >= 6, "{tys:?}");
        assert!(tys.iter().all(|t| t.as_str() == "Builtin.Int64" && t.shares_with(tys[0])), "{tys:?}");
        let names: Vec<&Text> = f
            .insts
            .values()
            .filter_map(|i| match &i.imm {
                Imm::Name(n) => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(names.len(), 2);
        assert!(names[0] == "add_Int64" && names[0].shares_with(names[1]));
        let g = f.clone();
        assert_eq!(&g, f);
        let (Some(Type::Sil(a)), Some(Type::Sil(b))) = (&f.values.values().next().unwrap().ty, &g.values.values().next().unwrap().ty) else {
            panic!("typed parameter")
        };
        assert!(a.shares_with(b));
    }

    #[test]
    fn integers_parse_negative_hex_and_wide() {
        assert_eq!(parse_int("-1"), Some(-1));
        assert_eq!(parse_int("0x10"), Some(16));
        assert_eq!(parse_int("170141183460469231731687303715884105727"), Some(i128::MAX));
        assert_eq!(parse_int("340282366920938463463374607431768211455"), Some(-1));
        assert_eq!(parse_int("340282366920938463463374607431768211456"), None);
        assert_eq!(parse_int("12ab"), None);
    }

    #[test]
    fn tuple_types_split_at_top_level_commas() {
        assert_eq!(
            tuple_elements("(String, (Int, Int, String))"),
            Some(vec!["String".to_string(), "(Int, Int, String)".to_string()])
        );
        assert_eq!(tuple_elements("()"), Some(vec![]));
        assert_eq!(tuple_elements("(() -> (), Int)"), Some(vec!["() -> ()".to_string(), "Int".to_string()]));
        assert_eq!(tuple_elements("Int"), None);
    }

    #[test]
    fn floats_decode_bit_patterns() {
        assert_eq!(float_imm("0x3F800000", "Builtin.FPIEEE32"), Some(Imm::Float(1.0)));
        assert_eq!(float_imm("0x4000000000000000", "Builtin.FPIEEE64"), Some(Imm::Float(2.0)));
        assert_eq!(float_imm("0x7FF8000000000000", "Builtin.FPIEEE64"), Some(Imm::Float(f64::NAN)));
        assert_eq!(float_imm("0x3C00", "Builtin.FPIEEE16"), Some(Imm::Name("0x3C00".into())));
        assert_eq!(float_imm("-1.5", "Builtin.FPIEEE64"), Some(Imm::Float(-1.5)));
        assert_eq!(float_imm("0xZZ", "Builtin.FPIEEE64"), None);
    }
}
