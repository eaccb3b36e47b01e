//! Tokens → a syntax tree of functions, labels and instructions (Bril's text grammar).
//!
//! Checks here are purely syntactic; what an operation may take (arity, literals, labels that
//! exist) is checked when the tree becomes IR, where the whole function is known. On an error
//! the parser reports it and resynchronises at the next `;`, at `}`, or where a new statement
//! visibly begins, so one file yields all its independent errors.

use super::lex::{Tok, Token};
use crate::diag::{Diagnostics, Span};
use crate::ir::Type;

const MAX_TYPE_DEPTH: usize = 64;

pub(super) struct FuncAst {
    /// The file of the program it is in (0: the first; see [`Program::files`]).
    pub file: usize,
    pub name: String,
    pub name_span: Span,
    pub params: Vec<ParamAst>,
    pub ret: Option<Type>,
    pub body: Vec<ItemAst>,
    pub span: Span,
}

/// `from "lib.bril" import @f, @g as @h;`
#[cfg_attr(not(feature = "bril-imports"), allow(dead_code))]
pub(super) struct ImportAst {
    pub file: usize,
    /// The path between the quotes.
    pub path: String,
    pub path_span: Span,
    pub names: Vec<ImportedAst>,
}

/// One imported function: its name in the other file, and the local name (`as @h`), if any.
#[cfg_attr(not(feature = "bril-imports"), allow(dead_code))]
pub(super) struct ImportedAst {
    pub name: String,
    pub span: Span,
    pub alias: Option<(String, Span)>,
}

/// A whole text: its files (the first is the text's own; every `// file: NAME` line starts
/// another, named after it), their imports and functions.
pub(super) struct Program {
    /// Each file's name and, after the first, the span of its `// file:` line.
    pub files: Vec<(String, Span)>,
    pub imports: Vec<ImportAst>,
    pub funcs: Vec<FuncAst>,
}

pub(super) struct ParamAst {
    pub name: String,
    pub span: Span,
    pub ty: Option<Type>,
}

pub(super) enum ItemAst {
    /// `span` covers `.name:`, `name_span` only `.name`.
    Label {
        name: String,
        span: Span,
        name_span: Span,
    },
    Inst(InstAst),
}

pub(super) struct DestAst {
    pub name: String,
    pub span: Span,
    /// `None` when the type was missing or malformed (already reported).
    pub ty: Option<Type>,
}

pub(super) struct InstAst {
    pub dest: Option<DestAst>,
    pub op: String,
    pub op_span: Span,
    pub operands: Vec<Operand>,
    pub span: Span,
    /// An operand was malformed and already reported: checks that count operands would only
    /// repeat that error, so they are skipped.
    pub poisoned: bool,
}

/// One thing after the operation name; Bril lets the kinds come in any order.
pub(super) enum Operand {
    Var(String, Span),
    Func(String, Span),
    Label(String, Span),
    /// A number or character token; whether it is allowed (only after `const`) and what it
    /// means (a float constant may be written as an integer) is decided with the type.
    Lit(Tok, Span),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Var(_, s) | Operand::Func(_, s) | Operand::Label(_, s) | Operand::Lit(_, s) => *s,
        }
    }
}

pub(super) struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    pub diags: &'a mut Diagnostics,
}

impl<'a> Parser<'a> {
    pub fn new(text: &'a str, toks: Vec<Token>, diags: &'a mut Diagnostics) -> Self {
        Parser { text, toks, pos: 0, diags }
    }

    fn tok(&self, k: usize) -> Token {
        // The lexer always ends the stream with `Eof`; past it we keep answering `Eof`.
        let eof = Token { kind: Tok::Eof, span: Span::new(self.text.len(), self.text.len()) };
        self.toks.get(self.pos + k).copied().unwrap_or(eof)
    }

    fn peek(&self) -> Tok {
        self.tok(0).kind
    }

    fn bump(&mut self) -> Token {
        let t = self.tok(0);
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn text_of(&self, span: Span) -> &'a str {
        self.text.get(span.lo as usize..span.hi as usize).unwrap_or("")
    }

    /// Whether token `t` is the first on its line (a hint that a new statement begins).
    fn starts_line(&self, t: Token) -> bool {
        let before = self.text.get(..t.span.lo as usize).unwrap_or("");
        let rest = before.trim_end_matches(|c: char| c.is_whitespace() && c != '\n');
        rest.is_empty() || rest.ends_with('\n')
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Tok::Eof => "end of file".to_string(),
            _ => format!("`{}`", crate::diag::snippet(self.text_of(t.span))),
        }
    }

    /// Reports at `t` unless `t` is a token the lexer already complained about.
    fn error_at(&mut self, t: Token, msg: impl Into<String>) {
        if t.kind != Tok::Bad {
            self.diags.error(t.span, msg);
        }
    }

    fn expected(&mut self, what: &str) {
        let t = self.tok(0);
        let found = self.describe(t);
        self.error_at(t, format!("expected {what}, found {found}"));
    }

    /// The end of the previous token, where a missing `;` or `:` belongs.
    fn after_prev(&self) -> Span {
        let hi = if self.pos == 0 { 0 } else { self.toks.get(self.pos - 1).map_or(0, |t| t.span.hi) };
        Span { lo: hi, hi }
    }

    /// Whether the next token begins something of the top level: a function at the start of
    /// a line, another file, or the end. Recovery from an error resumes there.
    fn at_top_level_start(&self) -> bool {
        matches!(self.peek(), Tok::Eof | Tok::FileMark) || (self.peek() == Tok::Func && self.starts_line(self.tok(0)))
    }

    /// The program; `first` names the text's own (first) file.
    pub fn parse_program(&mut self, first: &str) -> Program {
        let mut prog = Program { files: vec![(first.to_string(), Span::DUMMY)], imports: Vec::new(), funcs: Vec::new() };
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Func => {
                    let mut f = self.function();
                    f.file = prog.files.len() - 1;
                    prog.funcs.push(f);
                }
                Tok::FileMark => {
                    let t = self.bump();
                    let line = self.text_of(t.span);
                    let name = line.get(super::lex::FILE_MARK.len()..).unwrap_or("").trim().to_string();
                    if name.is_empty() {
                        self.diags.error(t.span, "a `// file:` line needs the file's name after it");
                    }
                    prog.files.push((name, t.span));
                }
                Tok::Ident if self.at_word("from") => {
                    if let Some(mut i) = self.import() {
                        i.file = prog.files.len() - 1;
                        prog.imports.push(i);
                    }
                }
                _ => {
                    self.expected("a function definition (`@name`)");
                    self.bump();
                    // Resume at the next function that begins a line (calls never do).
                    while !self.at_top_level_start() {
                        self.bump();
                    }
                }
            }
        }
        prog
    }

    /// Whether the next token is the word `w`.
    fn at_word(&self, w: &str) -> bool {
        self.peek() == Tok::Ident && self.text_of(self.tok(0).span) == w
    }

    /// The next token, if `ok` says it is the one wanted; otherwise `what` is reported as
    /// expected and the rest of the statement skipped.
    fn want(&mut self, ok: impl Fn(&Self) -> bool, what: &str) -> Option<Token> {
        if ok(self) {
            return Some(self.bump());
        }
        self.expected(what);
        self.skip_statement();
        None
    }

    /// Skips to the end of a top-level statement: past its `;`, or to what begins the next.
    fn skip_statement(&mut self) {
        while !(self.at_top_level_start() || self.peek() == Tok::Semi) {
            self.bump();
        }
        if self.peek() == Tok::Semi {
            self.bump();
        }
    }

    /// `from "PATH" import @f, @g as @h;` (the `from` is next). `None` after an error, with
    /// the rest of the statement skipped.
    fn import(&mut self) -> Option<ImportAst> {
        self.bump();
        let t = self.want(|p| p.peek() == Tok::Str, "the path of the file to import from, in quotes")?;
        let path = super::lex::unquoted(self.text_of(t.span)).to_string();
        let mut imp = ImportAst { file: 0, path, path_span: t.span, names: Vec::new() };
        self.want(|p| p.at_word("import"), "`import` after the path")?;
        loop {
            let t = self.want(|p| p.peek() == Tok::Func, "the name of a function to import (`@f`)")?;
            let name = self.text_of(t.span).get(1..).unwrap_or("").to_string();
            let mut alias = None;
            if self.at_word("as") {
                self.bump();
                let a = self.want(|p| p.peek() == Tok::Func, "the local name after `as` (`@g`)")?;
                alias = Some((self.text_of(a.span).get(1..).unwrap_or("").to_string(), a.span));
            }
            imp.names.push(ImportedAst { name, span: t.span, alias });
            match self.peek() {
                Tok::Comma => {
                    self.bump();
                }
                Tok::Semi => {
                    self.bump();
                    return Some(imp);
                }
                _ => {
                    let at = self.after_prev();
                    self.diags.error(at, "expected `,` or `;` after an imported function");
                    self.skip_statement();
                    return Some(imp);
                }
            }
        }
    }

    fn function(&mut self) -> FuncAst {
        let name_tok = self.bump();
        let name = self.text_of(name_tok.span).get(1..).unwrap_or("").to_string();
        let mut f = FuncAst {
            file: 0,
            name,
            name_span: name_tok.span,
            params: Vec::new(),
            ret: None,
            body: Vec::new(),
            span: name_tok.span,
        };
        if self.peek() == Tok::LParen {
            self.bump();
            self.params(&mut f);
        }
        if self.peek() == Tok::Colon {
            self.bump();
            f.ret = self.ty();
        }
        if self.peek() != Tok::LBrace {
            let msg = format!("to start the body of `@{}`", f.name);
            self.expected(&format!("`{{` {msg}"));
            // Skip to the body, or give the function up at its end or at the next function.
            loop {
                match self.peek() {
                    Tok::LBrace => break,
                    Tok::RBrace => {
                        f.span = f.span.to(self.bump().span);
                        return f;
                    }
                    Tok::Eof | Tok::FileMark => return f,
                    Tok::Func if self.starts_line(self.tok(0)) => return f,
                    _ => {
                        self.bump();
                    }
                }
            }
        }
        let open = self.bump();
        f.span = f.span.to(open.span);
        loop {
            match self.peek() {
                Tok::RBrace => {
                    f.span = f.span.to(self.bump().span);
                    return f;
                }
                // A function header where a statement should be: the `}` is missing.
                Tok::Func
                    if self.starts_line(self.tok(0))
                        && matches!(self.tok(1).kind, Tok::LParen | Tok::LBrace | Tok::Colon) =>
                {
                    self.diags.error(f.name_span, format!("unterminated function `@{}`: expected `}}`", f.name));
                    return f;
                }
                Tok::Eof | Tok::FileMark => {
                    self.diags.error(f.name_span, format!("unterminated function `@{}`: expected `}}`", f.name));
                    return f;
                }
                _ => {
                    if let Some(item) = self.item() {
                        f.span = f.span.to(match &item {
                            ItemAst::Label { span, .. } => *span,
                            ItemAst::Inst(i) => i.span,
                        });
                        f.body.push(item);
                    }
                }
            }
        }
    }

    fn params(&mut self, f: &mut FuncAst) {
        loop {
            match self.peek() {
                Tok::RParen => {
                    self.bump();
                    return;
                }
                Tok::Ident => {
                    let t = self.bump();
                    let name = self.text_of(t.span).to_string();
                    if self.peek() != Tok::Colon {
                        self.expected(&format!("`:` and a type after parameter `{name}`"));
                        f.params.push(ParamAst { name, span: t.span, ty: None });
                        if self.skip_params() {
                            continue;
                        }
                        return;
                    }
                    self.bump();
                    let ty = self.ty();
                    f.params.push(ParamAst { name, span: t.span, ty });
                    match self.peek() {
                        Tok::Comma => {
                            self.bump();
                        }
                        Tok::RParen => {}
                        _ => {
                            self.expected("`,` or `)` after a parameter");
                            if !self.skip_params() {
                                return;
                            }
                        }
                    }
                }
                _ => {
                    self.expected("a parameter name or `)`");
                    if !self.skip_params() {
                        return;
                    }
                }
            }
        }
    }

    /// Skips a broken parameter: true if the next parameter follows, false if the list ended
    /// (after its `)`, or before the `{`/`:` that follow a list missing its `)`).
    fn skip_params(&mut self) -> bool {
        loop {
            match self.peek() {
                Tok::Comma => {
                    self.bump();
                    return true;
                }
                Tok::RParen => {
                    self.bump();
                    return false;
                }
                Tok::LBrace | Tok::RBrace | Tok::Eof | Tok::FileMark | Tok::Semi => return false,
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// `int`, `bool`, `float`, `char`, `ptr<T>`. `None` after reporting an error.
    fn ty(&mut self) -> Option<Type> {
        self.ty_nested(0)
    }

    fn ty_nested(&mut self, depth: usize) -> Option<Type> {
        let t = self.tok(0);
        if t.kind != Tok::Ident {
            self.expected("a type");
            return None;
        }
        self.bump();
        let ty = match self.text_of(t.span) {
            "int" => Type::Int,
            "bool" => Type::Bool,
            "float" => Type::Float,
            "char" => Type::Char,
            "any" => Type::Any,
            "ptr" => {
                if self.peek() != Tok::Lt {
                    self.expected("`<` after `ptr`");
                    return None;
                }
                self.bump();
                // Recursion here (and in every consumer of `Type`) is bounded by this limit, so
                // `ptr<ptr<…` pasted a million times is an error, not a stack overflow.
                if depth >= MAX_TYPE_DEPTH {
                    self.error_at(t, format!("type nested more than {MAX_TYPE_DEPTH} levels deep"));
                    return None;
                }
                let Some(inner) = self.ty_nested(depth + 1) else {
                    // The inner type was reported; take the `>` too so it causes no second error.
                    if self.peek() == Tok::Gt {
                        self.bump();
                    }
                    return None;
                };
                if self.peek() != Tok::Gt {
                    self.expected("`>` to close `ptr<`");
                    return None;
                }
                self.bump();
                Type::Ptr(Box::new(inner))
            }
            other => {
                let msg = format!("unknown type `{other}`");
                self.error_at(t, msg);
                // `name<…>`: skip the argument so it does not produce more errors.
                if self.peek() == Tok::Lt {
                    while !matches!(self.peek(), Tok::Gt | Tok::Semi | Tok::Eof | Tok::FileMark | Tok::LBrace | Tok::RBrace) {
                        self.bump();
                    }
                    if self.peek() == Tok::Gt {
                        self.bump();
                    }
                }
                return None;
            }
        };
        Some(ty)
    }

    /// Whether a new statement visibly begins at the current token: `name:`, `name =`, `.l:`.
    fn at_statement_start(&self) -> bool {
        matches!(self.peek(), Tok::Ident | Tok::Label) && matches!(self.tok(1).kind, Tok::Colon | Tok::Eq)
    }

    /// Skips the rest of a broken statement: through its `;`, or up to a `}` or a new statement.
    fn recover(&mut self) {
        loop {
            match self.peek() {
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::RBrace | Tok::Eof | Tok::FileMark => return,
                Tok::Func if self.starts_line(self.tok(0)) => return,
                _ if self.at_statement_start() && self.starts_line(self.tok(0)) => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn item(&mut self) -> Option<ItemAst> {
        let first = self.tok(0);
        match (first.kind, self.tok(1).kind) {
            (Tok::Label, Tok::Colon) => {
                self.bump();
                let colon = self.bump();
                let name = self.text_of(first.span).get(1..).unwrap_or("").to_string();
                Some(ItemAst::Label { name, span: first.span.to(colon.span), name_span: first.span })
            }
            (Tok::Label, _) => {
                self.bump();
                let name = self.text_of(first.span).to_string();
                self.diags.error(self.after_prev(), format!("expected `:` after label `{name}`"));
                None
            }
            (Tok::Ident, Tok::Colon | Tok::Eq) => self.value_inst(),
            (Tok::Ident, _) => {
                self.bump();
                let mut inst = InstAst {
                    dest: None,
                    op: self.text_of(first.span).to_string(),
                    op_span: first.span,
                    operands: Vec::new(),
                    span: first.span,
                    poisoned: false,
                };
                self.operands(&mut inst);
                Some(ItemAst::Inst(inst))
            }
            _ => {
                self.expected("an instruction or a label");
                self.bump();
                self.recover();
                None
            }
        }
    }

    /// `dest: type = op operands;`
    fn value_inst(&mut self) -> Option<ItemAst> {
        let d = self.bump();
        let name = self.text_of(d.span).to_string();
        let ty = if self.peek() == Tok::Colon {
            self.bump();
            let ty = self.ty();
            if ty.is_none() {
                self.recover();
                return None;
            }
            ty
        } else {
            let at = self.tok(0);
            self.error_at(at, format!("expected `:` and a type before `=` (`{name}: type = …`)"));
            None
        };
        if self.peek() != Tok::Eq {
            self.expected(&format!("`=` after the type of `{name}`"));
            self.recover();
            return None;
        }
        self.bump();
        let op = self.tok(0);
        if op.kind != Tok::Ident {
            self.expected("an operation after `=`");
            self.recover();
            return None;
        }
        self.bump();
        let mut inst = InstAst {
            dest: Some(DestAst { name, span: d.span, ty }),
            op: self.text_of(op.span).to_string(),
            op_span: op.span,
            operands: Vec::new(),
            span: d.span.to(op.span),
            poisoned: false,
        };
        self.operands(&mut inst);
        Some(ItemAst::Inst(inst))
    }

    /// Operands up to and including the `;`.
    fn operands(&mut self, inst: &mut InstAst) {
        loop {
            // A statement start inside the operands is never valid Bril: the `;` is missing.
            if self.at_statement_start() {
                self.diags.error(self.after_prev(), "expected `;` after instruction");
                return;
            }
            let t = self.tok(0);
            let text = self.text_of(t.span);
            let operand = match t.kind {
                Tok::Semi => {
                    self.bump();
                    inst.span = inst.span.to(t.span);
                    return;
                }
                Tok::RBrace | Tok::Eof | Tok::FileMark => {
                    self.diags.error(self.after_prev(), "expected `;` after instruction");
                    return;
                }
                Tok::Ident => Operand::Var(text.to_string(), t.span),
                Tok::Func => Operand::Func(text.get(1..).unwrap_or("").to_string(), t.span),
                Tok::Label => Operand::Label(text.get(1..).unwrap_or("").to_string(), t.span),
                Tok::Int | Tok::Float | Tok::Char(_) => Operand::Lit(t.kind, t.span),
                Tok::Bad => {
                    self.bump();
                    inst.span = inst.span.to(t.span);
                    inst.poisoned = true;
                    continue;
                }
                _ => {
                    let found = self.describe(t);
                    self.error_at(t, format!("expected an operand or `;`, found {found}"));
                    self.bump();
                    self.recover();
                    return;
                }
            };
            self.bump();
            inst.span = inst.span.to(t.span);
            inst.operands.push(operand);
        }
    }
}
