//! Builds a Bril [`Module`] and its source text together from a list of lines (labels and
//! instructions, as in Bril's JSON form), so generated programs and hand-written test
//! programs exist without depending on the text parser — and every instruction still gets a
//! real span into the text, so interpreter errors point at the line that failed.
//!
//! Blocks are formed as Bril's own `form_blocks` does: a label starts a block, a terminator
//! ends one, and an unlabeled block is named `b<index>`.

use crate::diag::{SourceFile, Span};
use crate::ir::{Block, BrilOp, Function, Imm, Inst, Item, Lang, Module, Op, Succ, Type, ValueDef, ValueId};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// One line of a Bril function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// `.name:` (without the dot).
    Label(String),
    Inst(BrilInst),
}

/// A Bril instruction by names, the way it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct BrilInst {
    pub op: BrilOp,
    pub dest: Option<(String, Type)>,
    pub args: Vec<String>,
    pub funcs: Vec<String>,
    /// Branch targets, without the dot.
    pub labels: Vec<String>,
    pub imm: Imm,
}

impl BrilInst {
    pub fn new(op: BrilOp) -> Self {
        BrilInst { op, dest: None, args: Vec::new(), funcs: Vec::new(), labels: Vec::new(), imm: Imm::None }
    }
    /// `dest: ty = op args…`
    pub fn value(op: BrilOp, dest: &str, ty: Type, args: &[&str]) -> Self {
        BrilInst { dest: Some((dest.to_string(), ty)), args: args.iter().map(|s| s.to_string()).collect(), ..Self::new(op) }
    }
    /// `op args…` without destination.
    pub fn effect(op: BrilOp, args: &[&str]) -> Self {
        BrilInst { args: args.iter().map(|s| s.to_string()).collect(), ..Self::new(op) }
    }
    /// `dest: ty = const lit`
    pub fn constant(dest: &str, ty: Type, imm: Imm) -> Self {
        BrilInst { dest: Some((dest.to_string(), ty)), imm, ..Self::new(BrilOp::Const) }
    }
    pub fn jmp(label: &str) -> Self {
        BrilInst { labels: vec![label.to_string()], ..Self::new(BrilOp::Jmp) }
    }
    pub fn br(cond: &str, then: &str, els: &str) -> Self {
        BrilInst {
            args: vec![cond.to_string()],
            labels: vec![then.to_string(), els.to_string()],
            ..Self::new(BrilOp::Br)
        }
    }
    pub fn ret(arg: Option<&str>) -> Self {
        BrilInst { args: arg.into_iter().map(str::to_string).collect(), ..Self::new(BrilOp::Ret) }
    }
    /// `[dest: ty =] call @func args…`
    pub fn call(dest: Option<(&str, Type)>, func: &str, args: &[&str]) -> Self {
        BrilInst {
            dest: dest.map(|(d, t)| (d.to_string(), t)),
            args: args.iter().map(|s| s.to_string()).collect(),
            funcs: vec![func.to_string()],
            ..Self::new(BrilOp::Call)
        }
    }
    /// Sets the instruction's literal (for `const`).
    pub fn with_imm(mut self, imm: Imm) -> Self {
        self.imm = imm;
        self
    }

    fn is_terminator(&self) -> bool {
        matches!(self.op, BrilOp::Jmp | BrilOp::Br | BrilOp::Ret)
    }

    fn write(&self, out: &mut String) {
        if let Some((d, t)) = &self.dest {
            let _ = write!(out, "{d}: {t} = ");
        }
        out.push_str(self.op.name());
        match &self.imm {
            Imm::Int(i) => {
                let _ = write!(out, " {i}");
            }
            Imm::Bool(b) => {
                let _ = write!(out, " {b}");
            }
            Imm::Float(x) => {
                let _ = write!(out, " {x:?}");
            }
            Imm::Char(c) => {
                let _ = write!(out, " '{c}'");
            }
            Imm::None | Imm::Name(_) | Imm::Index(_) => {}
        }
        for f in &self.funcs {
            let _ = write!(out, " @{f}");
        }
        for a in &self.args {
            let _ = write!(out, " {a}");
        }
        for l in &self.labels {
            let _ = write!(out, " .{l}");
        }
    }
}

/// A Bril function by names.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncSpec {
    pub name: String,
    pub params: Vec<(String, Type)>,
    pub ret: Option<Type>,
    pub body: Vec<Line>,
}

impl FuncSpec {
    pub fn new(name: &str) -> Self {
        FuncSpec { name: name.to_string(), params: Vec::new(), ret: None, body: Vec::new() }
    }
    pub fn inst(&mut self, i: BrilInst) -> &mut Self {
        self.body.push(Line::Inst(i));
        self
    }
    pub fn label(&mut self, l: &str) -> &mut Self {
        self.body.push(Line::Label(l.to_string()));
        self
    }
}

/// The text of `funcs` and the module built from it (spans point into that text).
pub fn build_module(name: &str, funcs: &[FuncSpec]) -> (String, Module) {
    let mut text = String::new();
    // Spans of each function header and each instruction line, in order.
    let mut spans: Vec<(Span, Vec<Span>)> = Vec::new();
    for f in funcs {
        let head_lo = text.len();
        let _ = write!(text, "@{}", f.name);
        if !f.params.is_empty() {
            let ps: Vec<String> = f.params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
            let _ = write!(text, "({})", ps.join(", "));
        }
        if let Some(t) = &f.ret {
            let _ = write!(text, ": {t}");
        }
        let head = Span::new(head_lo, text.len());
        text.push_str(" {\n");
        let mut inst_spans = Vec::new();
        for line in &f.body {
            match line {
                Line::Label(l) => {
                    let _ = writeln!(text, ".{l}:");
                }
                Line::Inst(i) => {
                    text.push_str("  ");
                    let lo = text.len();
                    i.write(&mut text);
                    inst_spans.push(Span::new(lo, text.len()));
                    text.push_str(";\n");
                }
            }
        }
        text.push_str("}\n");
        spans.push((head, inst_spans));
    }
    let functions = funcs.iter().zip(&spans).map(|(f, (head, is))| build_function(f, *head, is)).collect();
    let module = Module {
        lang: Lang::Bril,
        functions,
        items: (0..funcs.len()).map(Item::Function).collect(),
        source: Arc::new(SourceFile::new(name, text.clone())),
    };
    (text, module)
}

fn build_function(spec: &FuncSpec, head: Span, inst_spans: &[Span]) -> Function {
    let mut f = Function::new(spec.name.clone(), Lang::Bril);
    f.span = head;
    f.ret = spec.ret.clone();
    let mut vars: HashMap<String, ValueId> = HashMap::new();
    let mut var = |f: &mut Function, name: &str, ty: Option<&Type>| -> ValueId {
        *vars.entry(name.to_string()).or_insert_with(|| f.add_value(name, ty.cloned(), ValueDef::Var))
    };
    for (n, t) in &spec.params {
        let v = var(&mut f, n, Some(t));
        f.params.push(v);
    }

    // Form blocks first so branch targets can be resolved.
    struct Pending {
        name: Option<String>,
        insts: Vec<usize>,
        terminated: bool,
    }
    let mut pending: Vec<Pending> = Vec::new();
    let mut open = false;
    let mut body_insts: Vec<&BrilInst> = Vec::new();
    for line in &spec.body {
        match line {
            Line::Label(l) => {
                pending.push(Pending { name: Some(l.clone()), insts: Vec::new(), terminated: false });
                open = true;
            }
            Line::Inst(i) => {
                if !open {
                    pending.push(Pending { name: None, insts: Vec::new(), terminated: false });
                    open = true;
                }
                let last = pending.last_mut().expect("a block is open");
                last.insts.push(body_insts.len());
                body_insts.push(i);
                if i.is_terminator() {
                    last.terminated = true;
                    open = false;
                }
            }
        }
    }
    let mut labels = HashMap::new();
    let mut ids = Vec::new();
    for (k, p) in pending.iter().enumerate() {
        let mut block = Block::new(p.name.clone().unwrap_or_else(|| format!("b{k}")));
        block.labeled = p.name.is_some();
        let b = f.add_block(block);
        if let Some(n) = &p.name {
            labels.entry(n.clone()).or_insert(b);
        }
        ids.push(b);
    }
    for (k, p) in pending.iter().enumerate() {
        for (j, &ix) in p.insts.iter().enumerate() {
            let spec_inst = body_insts[ix];
            let mut inst = Inst::new(Op::Bril(spec_inst.op.clone()));
            if let Some((d, t)) = &spec_inst.dest {
                inst.results.push(var(&mut f, d, Some(t)));
                inst.ty = Some(t.clone());
            }
            inst.args = spec_inst.args.iter().map(|a| var(&mut f, a, None)).collect();
            inst.funcs = spec_inst.funcs.clone();
            inst.imm = spec_inst.imm.clone();
            // An unknown label keeps the instruction but points it past the arena, which the
            // verifier and the interpreter both report instead of panicking.
            inst.succs = spec_inst
                .labels
                .iter()
                .map(|l| Succ::to(labels.get(l).copied().unwrap_or(crate::ir::BlockId(u32::MAX))))
                .collect();
            inst.span = inst_spans.get(ix).copied().unwrap_or(Span::DUMMY);
            let id = f.add_inst(inst);
            if p.terminated && j + 1 == p.insts.len() {
                f.blocks[ids[k]].term = Some(id);
            } else {
                f.blocks[ids[k]].insts.push(id);
            }
        }
    }
    f
}
