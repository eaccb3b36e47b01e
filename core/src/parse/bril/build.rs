//! Syntax tree → IR: variables, basic blocks (Bril's `form_blocks`), label resolution and the
//! checks that need a whole instruction or function (arity, literals, labels).

use super::lex::Tok;
use super::syntax::{FuncAst, InstAst, ItemAst, Operand};
use crate::diag::{Diagnostics, Span};
use crate::ir::{Block, BlockId, BrilOp, Function, Imm, Inst, Lang, Op, Succ, Type, ValueDef, ValueId};
use std::collections::{HashMap, HashSet};

/// Whether an operation writes a destination.
#[derive(Clone, Copy, PartialEq)]
enum DestRule {
    Required,
    Forbidden,
    Optional,
}

/// What a core/extension operation takes, where Bril fixes it.
struct Shape {
    dest: DestRule,
    /// Inclusive bounds on the number of variable arguments.
    args: (usize, usize),
    labels: usize,
    /// How to say the expected arguments (and labels) in an error.
    says: &'static str,
}

fn shape(op: &BrilOp) -> Option<Shape> {
    use BrilOp::*;
    use DestRule::*;
    let s = |dest, lo, hi, labels, says| Shape { dest, args: (lo, hi), labels, says };
    Some(match op {
        Add | Sub | Mul | Div | Eq | Lt | Gt | Le | Ge | And | Or | Fadd | Fsub | Fmul | Fdiv | Feq | Flt | Fgt
        | Fle | Fge | Ceq | Clt | Cgt | Cle | Cge | PtrAdd => s(Required, 2, 2, 0, "two arguments"),
        Not | Id | Char2Int | Int2Char | Alloc | Load => s(Required, 1, 1, 0, "one argument"),
        Store => s(Forbidden, 2, 2, 0, "two arguments"),
        Free => s(Forbidden, 1, 1, 0, "one argument"),
        Nop | Speculate | Commit => s(Forbidden, 0, 0, 0, "no arguments"),
        Guard => s(Forbidden, 1, 1, 1, "one argument and one label"),
        Set => s(Forbidden, 2, 2, 0, "two arguments (the shadow variable and the value)"),
        Get | Undef => s(Required, 0, 0, 0, "no arguments"),
        // As many labels as arguments: checked in `check_shape`.
        Phi => s(Required, 0, usize::MAX, 0, "as many labels as arguments"),
        Print => s(Forbidden, 0, usize::MAX, 0, "any number of arguments"),
        Jmp => s(Forbidden, 0, 0, 1, "one label and no arguments"),
        Br => s(Forbidden, 1, 1, 2, "one argument and two labels"),
        Ret => s(Forbidden, 0, 1, 0, "at most one argument"),
        Call => s(Optional, 0, usize::MAX, 0, "any number of arguments"),
        Const | Other(_) => return None,
    })
}

struct Builder<'a> {
    text: &'a str,
    diags: &'a mut Diagnostics,
    f: Function,
    vars: HashMap<String, ValueId>,
}

impl Builder<'_> {
    fn text_of(&self, span: Span) -> &str {
        self.text.get(span.lo as usize..span.hi as usize).unwrap_or("")
    }

    /// The variable named `name`, created on first sight; its type is that of its first
    /// declaration, so a use before any assignment leaves it to be filled in later.
    fn var(&mut self, name: &str, span: Span, ty: Option<&Type>) -> ValueId {
        if let Some(&v) = self.vars.get(name) {
            if self.f.values[v].ty.is_none() {
                self.f.values[v].ty = ty.cloned();
            }
            return v;
        }
        let v = self.f.add_value(name, ty.cloned(), ValueDef::Var);
        self.f.values[v].span = span;
        self.vars.insert(name.to_string(), v);
        v
    }

    /// The immediate of `const`, checked against the destination type (when it is known).
    fn literal(&mut self, a: &InstAst) -> Imm {
        let ty = a.dest.as_ref().and_then(|d| d.ty.clone());
        let lit = match a.operands.as_slice() {
            [] => {
                self.diags.error(a.op_span, "expected a literal after `const`");
                return Imm::None;
            }
            [lit] => lit,
            [_, extra, ..] => {
                self.diags.error(extra.span(), "`const` takes one literal");
                return Imm::None;
            }
        };
        let span = lit.span();
        let text = self.text_of(span).to_string();
        let imm = match lit {
            Operand::Lit(Tok::Int, _) if ty == Some(Type::Float) => text.parse::<f64>().map(Imm::Float).ok(),
            Operand::Lit(Tok::Int, _) => match text.parse::<i64>() {
                Ok(n) => Some(Imm::Int(n.into())),
                Err(_) => {
                    self.diags.error(span, "integer literal out of range for int");
                    return Imm::None;
                }
            },
            Operand::Lit(Tok::Float, _) => text.parse::<f64>().map(Imm::Float).ok(),
            Operand::Lit(Tok::Char(c), _) => Some(Imm::Char(*c)),
            Operand::Var(name, _) => match name.as_str() {
                "true" => Some(Imm::Bool(true)),
                "false" => Some(Imm::Bool(false)),
                "nan" => Some(Imm::Float(f64::NAN)),
                "inf" => Some(Imm::Float(f64::INFINITY)),
                _ => None,
            },
            _ => None,
        };
        let Some(imm) = imm else {
            self.diags.error(span, format!("expected a literal after `const`, found `{text}`"));
            return Imm::None;
        };
        let fits = matches!(
            (&ty, &imm),
            // `any` takes the literal's own type: `4` is an int, `4.0` a float.
            (None | Some(Type::Any), _)
                | (Some(Type::Int), Imm::Int(_))
                | (Some(Type::Bool), Imm::Bool(_))
                | (Some(Type::Float), Imm::Float(_))
                | (Some(Type::Char), Imm::Char(_))
        );
        if let (false, Some(ty)) = (fits, &ty) {
            self.diags.error(span, format!("`{text}` is not a valid `{ty}` constant"));
        }
        imm
    }

    /// Checks `a` against its operation's shape and reports every mismatch it finds.
    fn check_shape(&mut self, op: &BrilOp, a: &InstAst) {
        let name = op.name();
        let count = |k: fn(&Operand) -> bool| a.operands.iter().filter(|o| k(o)).count();
        let args = count(|o| matches!(o, Operand::Var(..)));
        let labels = count(|o| matches!(o, Operand::Label(..)));
        let funcs = count(|o| matches!(o, Operand::Func(..)));
        let first = |k: fn(&Operand) -> bool| a.operands.iter().find(|o| k(o)).map(Operand::span);

        if let Some(span) = first(|o| matches!(o, Operand::Lit(..))) {
            let msg = format!("only `const` takes a literal; `{}` is not a variable", self.text_of(span));
            self.diags.error(span, msg);
            // The literal was probably meant as an argument; counting would repeat the error.
            return;
        }
        let known = shape(op);
        if *op == BrilOp::Call {
            if funcs != 1 {
                let span =
                    if funcs > 1 { first(|o| matches!(o, Operand::Func(..))).unwrap_or(a.op_span) } else { a.op_span };
                self.diags.error(span, "`call` takes one function name (`@f`)");
            }
        } else if let (Some(span), Some(_)) = (first(|o| matches!(o, Operand::Func(..))), &known) {
            self.diags.error(span, format!("`{name}` takes no function name; only `call` does"));
        }
        let Some(shape) = known else {
            if let Some(span) = first(|o| matches!(o, Operand::Label(..))) {
                self.diags.error(span, format!("`{name}` cannot take a label: only `jmp`, `br` and `guard` branch"));
            }
            return;
        };
        if *op == BrilOp::Phi {
            if labels != args {
                self.diags.error(a.op_span, format!("`phi` takes as many labels as arguments (here {args} arguments and {labels} labels)"));
            }
        } else if shape.labels == 0 && labels > 0 {
            let span = first(|o| matches!(o, Operand::Label(..))).unwrap_or(a.op_span);
            self.diags.error(span, format!("`{name}` takes no labels"));
        } else if labels != shape.labels || args < shape.args.0 || args > shape.args.1 {
            self.diags.error(a.op_span, format!("`{name}` takes {}", shape.says));
        }
        match (shape.dest, &a.dest) {
            (DestRule::Required, None) => {
                self.diags.error(a.op_span, format!("`{name}` produces a value: write `dest: type = {name} …`"));
            }
            (DestRule::Forbidden, Some(d)) => {
                self.diags.error(d.span, format!("`{name}` does not produce a value"));
            }
            _ => {}
        }
    }

    /// One instruction and the labels its terminator names (resolved once all blocks exist).
    fn inst(&mut self, a: &InstAst) -> (Inst, Vec<(String, Span)>) {
        let op = BrilOp::from_name(&a.op);
        let mut inst = Inst::new(Op::Bril(op.clone()));
        inst.span = a.span;
        if let Some(d) = &a.dest {
            let v = self.var(&d.name, d.span, d.ty.as_ref());
            inst.results.push(v);
            inst.ty = d.ty.clone();
        }
        let mut labels = Vec::new();
        if op == BrilOp::Const {
            if a.dest.is_none() {
                self.diags.error(a.op_span, "`const` produces a value: write `dest: type = const …`");
            }
            if !a.poisoned {
                inst.imm = self.literal(a);
            }
            return (inst, labels);
        }
        if !a.poisoned {
            self.check_shape(&op, a);
        }
        for o in &a.operands {
            match o {
                Operand::Var(name, span) => {
                    let v = self.var(name, *span, None);
                    inst.args.push(v);
                }
                Operand::Func(name, _) => inst.funcs.push(name.clone()),
                Operand::Label(name, span) => labels.push((name.clone(), *span)),
                Operand::Lit(..) => {}
            }
        }
        if !inst.is_terminator() && op != BrilOp::Phi {
            labels.clear();
        }
        (inst, labels)
    }

    /// A new block at the end of the layout.
    fn block(&mut self, name: String, labeled: bool, span: Span) -> BlockId {
        let mut b = Block::new(name);
        b.labeled = labeled;
        b.span = span;
        self.f.add_block(b)
    }
}

/// The IR of one function. Problems are reported to `diags`; the function is still built as
/// far as possible, so later checks (labels, duplicate names) can report theirs too.
pub(super) fn function(text: &str, ast: &FuncAst, diags: &mut Diagnostics) -> Function {
    let mut f = Function::new(ast.name.clone(), Lang::Bril);
    f.span = ast.span;
    f.ret = ast.ret.clone();
    let mut b = Builder { text, diags, f, vars: HashMap::new() };

    for p in &ast.params {
        if b.vars.contains_key(&p.name) {
            b.diags.error(p.span, format!("duplicate parameter `{}`", p.name));
            continue;
        }
        let v = b.var(&p.name, p.span, p.ty.as_ref());
        b.f.params.push(v);
    }

    // Every label first, so an unlabeled block's `b<index>` can avoid them all.
    let mut labels: HashMap<&str, Span> = HashMap::new();
    for item in &ast.body {
        if let ItemAst::Label { name, name_span, .. } = item {
            if labels.contains_key(name.as_str()) {
                b.diags.error(*name_span, format!("duplicate label `.{name}`"));
            } else {
                labels.insert(name, *name_span);
            }
        }
    }
    let mut used: HashSet<String> = labels.keys().map(|s| s.to_string()).collect();
    let mut fresh = |index: usize| {
        // `b<index>` as Bril names it; if a label already has that name, `b<index>_1`, `_2`, …
        let mut name = format!("b{index}");
        let mut k = 0;
        while used.contains(&name) {
            k += 1;
            name = format!("b{index}_{k}");
        }
        used.insert(name.clone());
        name
    };

    // Bril's `form_blocks`: a label starts a block, a terminator ends one, and instructions
    // after a terminator start an unlabeled block.
    let mut cur: Option<BlockId> = None;
    let mut block_of_label: HashMap<&str, BlockId> = HashMap::new();
    let mut pending: Vec<(crate::ir::InstId, Vec<(String, Span)>)> = Vec::new();
    for item in &ast.body {
        match item {
            ItemAst::Label { name, span, .. } => {
                let id = b.block(name.clone(), true, *span);
                block_of_label.entry(name.as_str()).or_insert(id);
                cur = Some(id);
            }
            ItemAst::Inst(a) => {
                let blk = match cur {
                    Some(blk) => blk,
                    None => {
                        let name = fresh(b.f.layout.len());
                        b.block(name, false, a.span)
                    }
                };
                let (inst, refs) = b.inst(a);
                let term = inst.is_terminator();
                let id = b.f.add_inst(inst);
                let block = &mut b.f.blocks[blk];
                block.span = block.span.to(a.span);
                if term {
                    block.term = Some(id);
                    pending.push((id, refs));
                    cur = None;
                } else {
                    block.insts.push(id);
                    if !refs.is_empty() {
                        pending.push((id, refs));
                    }
                    cur = Some(blk);
                }
            }
        }
    }
    if b.f.layout.is_empty() {
        let name = fresh(0);
        b.block(name, false, ast.span);
    }

    // A `guard` ends its block but control goes on (when its condition holds) into the next
    // one: its first successor is that block, as if it were a `br` whose first label named
    // it. A guard last in the function gets an empty block to fall off the end from.
    let guards: Vec<(usize, crate::ir::InstId)> = (b.f.layout.iter().enumerate())
        .filter_map(|(k, &blk)| b.f.blocks[blk].term.filter(|&t| b.f.insts[t].op == Op::Bril(BrilOp::Guard)).map(|t| (k, t)))
        .collect();
    for (k, id) in guards {
        let next = match b.f.layout.get(k + 1) {
            Some(&next) => next,
            None => {
                let name = fresh(b.f.layout.len());
                let span = Span::new(ast.span.hi as usize, ast.span.hi as usize);
                b.block(name, false, span)
            }
        };
        b.f.insts[id].succs.push(Succ::to(next));
    }

    for (id, refs) in pending {
        for (name, span) in refs {
            match block_of_label.get(name.as_str()) {
                Some(&target) => b.f.insts[id].succs.push(Succ::to(target)),
                None => b.diags.error(span, format!("unknown label `.{name}`")),
            }
        }
    }
    b.f
}
