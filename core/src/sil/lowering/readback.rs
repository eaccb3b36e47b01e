//! Reading AddressLowering's output back into IR, one *shape* of line at a time.
//!
//! The rewrite writes its result as SIL text (what the lab shows, and what FileCheck
//! reads), and the lowered function is that text parsed. Parsing all of it was half of the
//! pass at 10^5 blocks (issue 17), yet the text has few distinct lines once value names and
//! block labels are set aside: `copy_addr [take] %a to [init] %b : $*T` is one line written
//! tens of thousands of times. So each line is reduced to its *skeleton* — every `%value`
//! and every block label replaced by a placeholder — and each distinct skeleton is parsed
//! once, by the SIL parser itself, inside a small function made for it. The parsed
//! instruction is a template: its opcode, print template (`sil` pieces, shared), immediates,
//! attributes and result types are the parser's own; an instance takes its operands,
//! results, successors and spans from its line. Names are resolved as the parser resolves
//! them, and values, blocks and instructions are numbered in the order the parser numbers
//! them (definitions in text order, then each `undef` as its instruction is resolved), so
//! the function is the one [`crate::parse::sil::parse`] gives for the same text, spans
//! included — the tests check exactly that.
//!
//! Anything this reader does not handle the way the parser would (a statement over two
//! lines, a region, a label and an instruction on one line, a placeholder left in a
//! template's text, or any error) makes it give up (`None`): the caller then parses the
//! whole text, which also reports the error.

use crate::diag::Span;
use crate::ir::{Block, BlockId, Function, Inst, Lang, SilHeader, Type, ValueDef, ValueId};
use crate::parse::sil::lexer::{Kind, Lexer, Token};
use crate::parse::sil::split_label;
use super::linelex::LineLexer;
use super::FastMap;

/// What an operand slot of a template is filled with.
#[derive(Clone, Debug)]
enum Slot {
    /// The `k`-th operand name on the line.
    Operand(u32),
    /// A fresh `undef` of this type (written `undef`, or a stand-in for a block argument the
    /// terminator provides).
    Undef(Option<Type>),
}

/// One parsed skeleton.
struct Template {
    inst: Inst,
    /// Types of the results, in order.
    result_tys: Vec<Option<Type>>,
    args: Vec<Slot>,
    /// Per successor: the label placeholder it names, and its arguments.
    succs: Vec<(u32, Vec<Slot>)>,
}

/// A line's instruction between the two passes: where its names are in the flat tables.
struct Pending {
    block: BlockId,
    template: u32,
    /// `operands[ops]`: the operand names on the line, in order.
    ops: std::ops::Range<u32>,
    /// `targets[labels]`: the blocks its label placeholders name.
    labels: std::ops::Range<u32>,
    results: std::ops::Range<u32>,
    span: Span,
}

/// A statement of the body: a block label line or an instruction line.
enum Stmt {
    /// The label line's tokens.
    Label(std::ops::Range<usize>),
    /// Where the instruction line's first token is.
    Inst(usize),
}

const OPERAND: &str = "%_optlab_o";
const RESULT: &str = "%_optlab_r";
const LABEL: &str = "_optlab_bb";
const ENTRY: &str = "_optlab_entry";

/// The function `text` (one `sil` function as the rewrite prints it) as the SIL parser reads
/// it, or `None` where this reader would not read it the same way.
pub(super) fn read(text: &str) -> Option<Function> {
    let (header_line, body_start) = match text.find('\n') {
        Some(k) => (&text[..k], k + 1),
        None => return None,
    };
    let (name, header) = read_header(header_line)?;
    // The statements, by lines: a label line's tokens are kept (every label is known before
    // any instruction is read: a branch may come before its target); an instruction line
    // is lexed when it is read, into one buffer (the tokens of a whole 10^5-block function
    // at once were hundreds of MB).
    // Sized at once from the number of lines (grown by doubling, these were copied and
    // their pages touched again and again): about one statement a line; the labels' tokens
    // are a few per label line, a fraction of the lines.
    let n_lines = text.bytes().filter(|&b| b == b'\n').count();
    let mut toks: Vec<Token> = Vec::with_capacity(n_lines / 2 + 16);
    let mut stmts: Vec<Stmt> = Vec::with_capacity(n_lines);
    let mut close = None;
    let mut at = body_start;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |k| at + k);
        let line = &text[at..end];
        let lo = at;
        at = end + 1;
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        if close.is_some() {
            // Nothing but blank lines (and comments) after the body.
            return None;
        }
        if trimmed.len() != line.len() {
            stmts.push(Stmt::Inst(lo + line.len() - trimmed.len()));
            continue;
        }
        let start = toks.len();
        line_tokens(&mut Lexer::new(text, lo), &mut toks)?;
        let first = &toks[start];
        if first.is_punct("}") {
            if toks.len() - start != 1 {
                return None;
            }
            close = Some(first.span);
            continue;
        }
        // The rewrite writes labels in column 0, alone on their line, and instructions
        // indented.
        if split_label(&toks[start..]) != Some(toks.len() - start) {
            return None;
        }
        stmts.push(Stmt::Label(start..toks.len()));
    }
    let close = close?;
    let mut f = Function::new(name, Lang::Sil);
    f.sil = Some(header);
    // From the `sil` keyword through the closing `}`.
    f.span = Span::new(0, close.hi as usize);
    if !matches!(stmts.first(), Some(Stmt::Label(_))) {
        return None;
    }
    let n_insts = stmts.iter().filter(|s| matches!(s, Stmt::Inst(_))).count();
    // Sized at once (grown step by step, these tables were copied over and over).
    f.insts = crate::entity::EntityVec::with_capacity(n_insts);
    let n_labels = stmts.len() - n_insts;
    // Every table sized at once: grown entry by entry, they were copied over and over, and
    // each block's instruction list took three allocations to reach its length.
    f.blocks = crate::entity::EntityVec::with_capacity(n_labels);
    f.layout = Vec::with_capacity(n_labels);
    let mut block_lens: Vec<u32> = Vec::with_capacity(n_labels);
    for s in &stmts {
        match s {
            Stmt::Label(_) => block_lens.push(0),
            Stmt::Inst(_) => *block_lens.last_mut()? += 1,
        }
    }
    // Pass 1: blocks, their arguments and every result, in text order.
    let mut block_ids: FastMap<&str, BlockId> = FastMap::with_capacity_and_hasher(n_labels, Default::default());
    // Which words can be labels, by first byte and length: most words of a line are
    // opcodes and attributes, and a lookup in a table of 10^5 labels each was a cache miss.
    let mut label_like = LabelShape::default();
    let mut params_of: Vec<Vec<&str>> = Vec::with_capacity(n_labels);
    let mut labels: Vec<Vec<Param>> = Vec::with_capacity(n_labels);
    let mut n_params = 0;
    for s in &stmts {
        if let Stmt::Label(r) = s {
            let t = &toks[r.start];
            let b = f.add_block({
                let mut blk = Block::new(&*t.text);
                blk.span = t.span;
                // The terminator is not in the list.
                blk.insts = Vec::with_capacity(block_lens[f.blocks.len()].saturating_sub(1) as usize);
                blk
            });
            label_like.add(src(text, t));
            if block_ids.insert(src(text, t), b).is_some() {
                return None;
            }
            // Known before any line is read: a branch may come before its target.
            let ps = label_params(&toks[r.clone()])?;
            params_of.push(ps.iter().map(|p| p.ty.type_text()).collect());
            n_params += ps.len();
            labels.push(ps);
        }
    }
    // About one result per instruction, and the blocks' arguments (the `undef`s, if any,
    // grow it).
    f.values = crate::entity::EntityVec::with_capacity(n_insts + n_params);
    let mut values: FastMap<&str, ValueId> = FastMap::with_capacity_and_hasher(stmts.len(), Default::default());
    let mut templates: Vec<Template> = Vec::new();
    let mut by_key: FastMap<String, u32> = FastMap::default();
    let mut key = String::new();
    let mut operands: Vec<&str> = Vec::with_capacity(2 * n_insts);
    let mut targets: Vec<BlockId> = Vec::with_capacity(2 * n_labels);
    let mut result_ids: Vec<ValueId> = Vec::with_capacity(n_insts);
    let mut pending: Vec<Pending> = Vec::with_capacity(n_insts);
    let mut buf: Vec<Token> = Vec::new();
    let mut line_lexer = LineLexer::new(text);
    let mut cur: Option<BlockId> = None;
    let mut next_block = 0u32;
    for (k, s) in stmts.iter().enumerate() {
        match s {
            Stmt::Label(_) => {
                let b = BlockId(next_block);
                next_block += 1;
                f.blocks[b].params.reserve_exact(labels[b.0 as usize].len());
                for (index, p) in std::mem::take(&mut labels[b.0 as usize]).into_iter().enumerate() {
                    let name = p.name.value_name();
                    let v = f.add_value(name, Some(Type::Sil(p.ty.type_text().into())), ValueDef::Param { block: b, index: index as u32 });
                    f.values[v].ownership = p.ownership;
                    f.values[v].span = p.name.span;
                    if values.insert(&src(text, p.name)[1..], v).is_some() {
                        return None;
                    }
                    f.blocks[b].params.push(v);
                }
                cur = Some(b);
            }
            Stmt::Inst(pos) => {
                let b = cur?;
                buf.clear();
                line_lexer.line(*pos, &mut buf)?;
                // A statement that goes on after a `,`, stops at a `}` or opens a region is
                // read by the parser differently from a line.
                if buf.iter().any(|t| t.is_punct("{") || t.is_punct("}")) {
                    return None;
                }
                if buf.last().is_none_or(|t| t.is_punct(",")) || split_label(&buf).is_some() {
                    return None;
                }
                let line = &buf[..];
                let ends_block = !matches!(stmts.get(k + 1), Some(Stmt::Inst(_)));
                let (n_results, rest) = split_results(line)?;
                let prefix = line.len() - rest.len();
                // The skeleton: the line with its names replaced, then what else the
                // parse depends on (whether the line ends its block; the arguments each
                // label placeholder's block takes).
                key.clear();
                let ops_start = operands.len() as u32;
                let labels_start = targets.len() as u32;
                let mut last = line[0].span.lo as usize;
                let mut n_ops = 0;
                for (j, t) in line.iter().enumerate() {
                    key.push_str(&text[last..t.span.lo as usize]);
                    last = t.span.hi as usize;
                    if j < prefix {
                        // `%r = ` or `(%a, %b) = `: the results are the value tokens
                        // before `=`.
                        if t.kind == Kind::Value {
                            key.push_str(RESULT);
                            push_index(&mut key, j);
                        } else {
                            key.push_str(&t.text);
                        }
                        continue;
                    }
                    match t.kind {
                        Kind::Value => {
                            key.push_str(OPERAND);
                            push_index(&mut key, n_ops as usize);
                            n_ops += 1;
                            operands.push(&src(text, t)[1..]);
                        }
                        Kind::Ident => match label_like.may_be(src(text, t)).then(|| block_ids.get(src(text, t))).flatten() {
                            Some(&b) => {
                                key.push_str(LABEL);
                                push_index(&mut key, targets.len() - labels_start as usize);
                                targets.push(b);
                            }
                            None => key.push_str(src(text, t)),
                        },
                        _ => key.push_str(src(text, t)),
                    }
                }
                key.push('\u{0}');
                key.push(if ends_block { '1' } else { '0' });
                for &t in &targets[labels_start as usize..] {
                    key.push('\u{0}');
                    for p in &params_of[t.0 as usize] {
                        key.push_str(p);
                        key.push('\u{1}');
                    }
                }
                let template = match by_key.get(key.as_str()) {
                    Some(&t) => t,
                    None => {
                        let t = make_template(&key, n_results, n_ops, targets.len() - labels_start as usize, ends_block, &params_of, &targets[labels_start as usize..])?;
                        templates.push(t);
                        by_key.insert(key.clone(), templates.len() as u32 - 1);
                        templates.len() as u32 - 1
                    }
                };
                let tm = &templates[template as usize];
                let results_start = result_ids.len() as u32;
                for (j, t) in line[..prefix].iter().filter(|t| t.kind == Kind::Value).enumerate() {
                    let v = f.add_value(t.value_name(), tm.result_tys.get(j).cloned().flatten(), ValueDef::Undef);
                    f.values[v].span = t.span;
                    if values.insert(&src(text, t)[1..], v).is_some() {
                        return None;
                    }
                    result_ids.push(v);
                }
                pending.push(Pending {
                    block: b,
                    template,
                    ops: ops_start..operands.len() as u32,
                    labels: labels_start..targets.len() as u32,
                    results: results_start..result_ids.len() as u32,
                    span: line[0].span.to(line[line.len() - 1].span),
                });
            }
        }
    }
    drop(buf);
    drop(labels);
    drop(toks);
    // Pass 2: operands resolved, `undef`s made, instructions placed, in text order.
    for p in pending {
        let tm = &templates[p.template as usize];
        let ops = &operands[p.ops.start as usize..p.ops.end as usize];
        let labels = &targets[p.labels.start as usize..p.labels.end as usize];
        let mut inst = Inst::new(tm.inst.op.clone());
        inst.results.extend(result_ids[p.results.start as usize..p.results.end as usize].iter().copied());
        inst.succs.reserve_exact(tm.succs.len());
        for s in &tm.args {
            let v = fill(&mut f, &values, ops, s)?;
            inst.args.push(v);
        }
        for (label, args) in &tm.succs {
            let mut succ = crate::ir::Succ::to(*labels.get(*label as usize)?);
            succ.args.reserve_exact(args.len());
            for s in args {
                let v = fill(&mut f, &values, ops, s)?;
                succ.args.push(v);
            }
            if succ.args.len() != f.blocks[succ.block].params.len() {
                return None;
            }
            inst.succs.push(succ);
        }
        inst.imm = tm.inst.imm.clone();
        inst.funcs.extend(tm.inst.funcs.iter().cloned());
        inst.ty = tm.inst.ty.clone();
        inst.attrs.extend(tm.inst.attrs.iter().cloned());
        inst.sil = tm.inst.sil.clone();
        inst.span = p.span;
        if f.blocks[p.block].term.is_some() {
            return None;
        }
        let is_term = inst.is_terminator();
        let id = f.add_inst(inst);
        if is_term {
            f.blocks[p.block].term = Some(id);
        } else {
            f.blocks[p.block].insts.push(id);
        }
    }
    if f.layout.iter().any(|&b| f.blocks[b].term.is_none()) {
        return None;
    }
    Some(f)
}

/// What the labels of a function look like: a word that does not is no label, without a
/// lookup.
struct LabelShape {
    first: [bool; 256],
    min_len: usize,
    max_len: usize,
}

impl Default for LabelShape {
    fn default() -> LabelShape {
        LabelShape { first: [false; 256], min_len: usize::MAX, max_len: 0 }
    }
}

impl LabelShape {
    fn add(&mut self, label: &str) {
        if let Some(&b) = label.as_bytes().first() {
            self.first[b as usize] = true;
        }
        self.min_len = self.min_len.min(label.len());
        self.max_len = self.max_len.max(label.len());
    }

    /// False only for a word no label added has the shape of.
    fn may_be(&self, word: &str) -> bool {
        (self.min_len..=self.max_len).contains(&word.len()) && word.as_bytes().first().is_some_and(|&b| self.first[b as usize])
    }
}

/// `k` in decimal, as `write!(key, "{k}")` writes it, without the formatting machinery (two
/// or three numbers per line of a million-line function).
fn push_index(key: &mut String, k: usize) {
    if k >= 10 {
        push_index(key, k / 10);
    }
    key.push(char::from(b'0' + (k % 10) as u8));
}

/// The source text of a token (its `text` may be normalized; names are as written).
fn src<'a>(text: &'a str, t: &Token) -> &'a str {
    &text[t.span.lo as usize..t.span.hi as usize]
}

/// A template slot's value in the function being built.
fn fill(f: &mut Function, values: &FastMap<&str, ValueId>, ops: &[&str], s: &Slot) -> Option<ValueId> {
    match s {
        Slot::Operand(k) => values.get(ops.get(*k as usize)?).copied(),
        Slot::Undef(ty) => Some(f.add_undef(ty.clone())),
    }
}

/// The header line (`sil [ossa] @f : $… {`), read by the parser in a function of its own.
fn read_header(line: &str) -> Option<(String, SilHeader)> {
    let rest = line.strip_suffix(" {")?;
    if !rest.starts_with("sil ") {
        return None;
    }
    let text = format!("{line}\n{ENTRY}:\n  unreachable\n}}\n");
    let m = crate::parse::sil::parse("header.sil", &text).ok()?;
    let f = m.functions.into_iter().next()?;
    Some((f.name, f.sil?))
}

/// A block argument as written: its name and type tokens and its ownership.
struct Param<'t, 's> {
    name: &'t Token<'s>,
    ty: &'t Token<'s>,
    ownership: Option<String>,
}

/// The arguments of a label line `bb1(%a : $T, %b : @owned $U):`, as the parser reads them.
fn label_params<'t, 's>(toks: &'t [Token<'s>]) -> Option<Vec<Param<'t, 's>>> {
    let mut out = Vec::new();
    if !toks.get(1)?.is_punct("(") {
        return Some(out);
    }
    if toks.len() < 4 || !toks[toks.len() - 2].is_punct(")") {
        return None;
    }
    let inner = &toks[2..toks.len() - 2];
    let mut k = 0;
    while k < inner.len() {
        let v = &inner[k];
        if v.kind != Kind::Value || !inner.get(k + 1)?.is_punct(":") {
            return None;
        }
        k += 2;
        let mut own = Vec::new();
        while let Some(g) = inner.get(k).filter(|t| t.kind == Kind::Global) {
            own.push(g.text[1..].to_string());
            k += 1;
        }
        let ty = inner.get(k).filter(|t| t.kind == Kind::Type)?;
        k += 1;
        out.push(Param { name: v, ty, ownership: if own.is_empty() { None } else { Some(own.join(" @")) } });
        if k < inner.len() {
            if !inner[k].is_punct(",") || k + 1 == inner.len() {
                return None;
            }
            k += 1;
        }
    }
    Some(out)
}

/// `%r = …` / `(%a, %b) = …` (the parser's rule): how many results, and the tokens after
/// `=`. The results are the value tokens before `=` (a list of them per line was an
/// allocation per line).
fn split_results<'t, 's>(toks: &'t [Token<'s>]) -> Option<(usize, &'t [Token<'s>])> {
    let is_eq = |k: usize| toks.get(k).is_some_and(|t| t.is_punct("="));
    if toks.first().is_some_and(|t| t.kind == Kind::Value) && is_eq(1) {
        return Some((1, &toks[2..]));
    }
    if !toks.first().is_some_and(|t| t.is_punct("(")) {
        return Some((0, toks));
    }
    let close = toks.iter().position(|t| t.is_punct(")")).filter(|&c| is_eq(c + 1))?;
    let inner = &toks[1..close];
    let mut results = 0;
    for (k, t) in inner.iter().enumerate() {
        if k % 2 == 0 && t.kind == Kind::Value {
            results += 1;
        } else if k % 2 == 1 && t.is_punct(",") && k + 1 < inner.len() {
        } else {
            return None;
        }
    }
    Some((results, &toks[close + 2..]))
}

/// Appends the tokens of the line `lex` is at; `None` at a lexical error (the parser, which
/// reports it, reads that text instead).
fn line_tokens<'s>(lex: &mut Lexer<'s>, toks: &mut Vec<Token<'s>>) -> Option<()> {
    loop {
        let t = lex.next_token();
        match t.kind {
            Kind::Newline | Kind::Eof => return Some(()),
            Kind::Error => return None,
            _ => toks.push(t),
        }
    }
}

/// Which operand of a skeleton is the callee of an `apply`, `try_apply`, `begin_apply` or
/// `partial_apply`, and the function type written after the arguments (without its `$`,
/// as written): the callee has no `: $T` of its own, and the parser checks that its value
/// has that type, as the `function_ref` it names would.
fn callee_type(skeleton: &str) -> Option<(u32, &str)> {
    let mut toks = Vec::new();
    line_tokens(&mut Lexer::new(skeleton, 0), &mut toks)?;
    let (_, rest) = split_results(&toks)?;
    let op = rest.first().filter(|t| t.kind == Kind::Ident)?;
    if !["apply", "try_apply", "begin_apply", "partial_apply"].contains(&&*op.text) {
        return None;
    }
    let mut k = 1;
    // Attributes: `[nothrow]`, `[callee_guaranteed]`, `[on_stack]`, …
    while rest.get(k)?.is_punct("[") {
        k += rest[k..].iter().position(|t| t.is_punct("]"))? + 1;
    }
    let callee = rest.get(k).filter(|t| t.kind == Kind::Value)?;
    let index = rest[..k].iter().filter(|t| t.kind == Kind::Value).count() as u32;
    k += 1;
    // Substitutions: `<T, Int>`, nested.
    if rest.get(k)?.is_punct("<") {
        let mut depth = 0;
        loop {
            let t = rest.get(k)?;
            k += 1;
            if t.is_punct("<") {
                depth += 1;
            } else if t.is_punct(">") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
        }
    }
    if !rest.get(k)?.is_punct("(") {
        return None;
    }
    k += rest[k..].iter().position(|t| t.is_punct(")"))? + 1;
    if !rest.get(k)?.is_punct(":") {
        return None;
    }
    let ty = rest.get(k + 1).filter(|t| t.kind == Kind::Type)?;
    debug_assert!(callee.text.starts_with(OPERAND));
    Some((index, &skeleton[ty.span.lo as usize + 1..ty.span.hi as usize]))
}

/// Parses one skeleton inside the function [`template_text`] makes for it.
fn make_template(key: &str, n_results: usize, n_ops: u32, n_labels: usize, ends_block: bool, params_of: &[Vec<&str>], targets: &[BlockId]) -> Option<Template> {
    let text = template_text(key, n_ops, n_labels, ends_block, params_of, targets)?;
    let m = crate::parse::sil::parse("template.sil", &text).ok()?;
    let g = m.functions.into_iter().next()?;
    let entry = g.entry()?;
    let id = g.blocks[entry].all_insts().next()?;
    let inst = g.insts[id].clone();
    if inst.results.len() != n_results {
        return None;
    }
    // A placeholder the parser kept as text would print as itself.
    let leaked = inst.sil.iter().any(|p| matches!(p, crate::ir::Piece::Text(t) if t.contains("_optlab_")))
        || inst.attrs.iter().any(|a| a.contains("_optlab_"))
        || inst.funcs.iter().any(|a| a.contains("_optlab_"))
        || matches!(&inst.imm, crate::ir::Imm::Name(n) if n.contains("_optlab_"))
        || inst.ty.as_ref().is_some_and(|t| t.to_string().contains("_optlab_"));
    if leaked {
        return None;
    }
    let slot = |v: ValueId| -> Option<Slot> {
        match g.values[v].def {
            ValueDef::Param { block, index } if block == entry => Some(Slot::Operand(index)),
            ValueDef::Undef => Some(Slot::Undef(g.values[v].ty.clone())),
            _ => None,
        }
    };
    let args = inst.args.iter().map(|&v| slot(v)).collect::<Option<Vec<_>>>()?;
    let mut succs = Vec::new();
    for s in &inst.succs {
        // Blocks are numbered in text order: the entry, then placeholder j as block j + 1.
        let j = s.block.0.checked_sub(1)?;
        let a = s.args.iter().map(|&v| slot(v)).collect::<Option<Vec<_>>>()?;
        succs.push((j, a));
    }
    let result_tys = inst.results.iter().map(|&v| g.values[v].ty.clone()).collect();
    Some(Template { inst, result_tys, args, succs })
}

/// The function a skeleton is parsed in: the operands are the entry block's arguments, each
/// label placeholder a block taking the arguments its real block takes.
fn template_text(key: &str, n_ops: u32, n_labels: usize, ends_block: bool, params_of: &[Vec<&str>], targets: &[BlockId]) -> Option<String> {
    let skeleton = key.split('\u{0}').next()?;
    let callee = callee_type(skeleton);
    let mut text = String::from("sil @_optlab_template : $() -> () {\n");
    text.push_str(ENTRY);
    if n_ops > 0 {
        text.push('(');
        for k in 0..n_ops {
            if k > 0 {
                text.push_str(", ");
            }
            // Declared as the line uses it: the parser rejects a use whose `: $T` is not the
            // value's type, and a callee whose type is not the one written after the
            // arguments.
            let used = format!("{OPERAND}{k} : $");
            let ty = match skeleton.find(&used) {
                Some(at) => {
                    let start = at + used.len();
                    &skeleton[start..crate::parse::sil::scan::type_end(skeleton, start)]
                }
                None => callee.filter(|&(c, _)| c == k).map_or("()", |(_, ty)| ty),
            };
            text.push_str(&format!("{OPERAND}{k} : ${ty}"));
        }
        text.push(')');
    }
    text.push_str(":\n  ");
    text.push_str(skeleton);
    text.push('\n');
    if !ends_block {
        text.push_str("  unreachable\n");
    }
    for (j, &t) in targets.iter().enumerate().take(n_labels) {
        text.push_str(&format!("{LABEL}{j}"));
        let ps = &params_of[t.0 as usize];
        if !ps.is_empty() {
            let list: Vec<String> = ps.iter().enumerate().map(|(k, ty)| format!("%_optlab_p{j}_{k} : ${ty}")).collect();
            text.push_str(&format!("({})", list.join(", ")));
        }
        text.push_str(":\n  unreachable\n");
    }
    text.push_str("}\n");
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sil::types::{env_of, FunctionTypes};

    /// The reference: the whole text parsed by the SIL parser.
    fn parsed(text: &str) -> Function {
        let m = crate::parse::sil::parse("lowered.sil", text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
        m.functions.into_iter().next().expect("a function")
    }

    /// Every function of `text` that AddressLowering lowers: its rewritten text read back
    /// here equals the parser's reading field for field (values, blocks, instructions, print
    /// templates, spans). Returns how many were compared.
    pub(crate) fn check_module(path: &str, text: &str) -> usize {
        let Ok(m) = crate::parse::sil::parse(path, text) else { return 0 };
        let env = env_of(&m);
        let mut n = 0;
        for f in m.functions.iter().filter(|f| !f.is_declaration()) {
            let ft = FunctionTypes::new(f, env.clone());
            let Ok(cx) = super::super::storage::Cx::with_cfg(f, &ft, &env.decls, std::borrow::Cow::Owned(crate::cfg::Cfg::new(f))) else { continue };
            let Ok(values) = super::super::storage::allocate(&cx) else { continue };
            let Ok(out) = super::super::rewrite::rewrite(&cx, &values) else { continue };
            let want = parsed(&out.text);
            let got = read(&out.text).unwrap_or_else(|| panic!("{path} @{}: not read back by shapes:\n{}", f.name, out.text));
            assert_eq!(
                crate::print::print_function(&got, crate::print::Naming::User),
                crate::print::print_function(&want, crate::print::Naming::User),
                "{path} @{}",
                f.name
            );
            for (i, inst) in want.insts.iter() {
                assert_eq!(&got.insts[i], inst, "{path} @{}: instruction {i:?}", f.name);
            }
            assert!(got == want, "{path} @{}: the functions differ outside their instructions", f.name);
            n += 1;
        }
        n
    }

    /// Every Swift corpus file: each function the pass lowers reads back as the parser reads
    /// it.
    #[test]
    fn corpus_lowerings_read_back_as_parsed() {
        let mut total = 0;
        for (p, text) in super::super::corpus_sil() {
            total += check_module(&p.display().to_string(), &text);
        }
        // address_lowering.sil alone has dozens of functions the pass lowers.
        assert!(total >= 30, "only {total} lowered functions compared");
    }

    /// A random opaque-values function over a generic `T`: copies and destroys, structs and
    /// tuples taken apart, enums and their payloads, a stack slot round trip, generic calls,
    /// `switch_enum`, diamonds joining at an owned phi, and loops.
    fn generated(seed: u64, segments: usize) -> String {
        use crate::testgen::gen::Rng;
        const GTY: &str = "$@convention(thin) <τ_0_0> (@in_guaranteed τ_0_0, Builtin.Int1) -> @out τ_0_0";
        let mut r = Rng::new(seed);
        let mut out = String::from("sil_stage raw\n\nimport Builtin\n\nstruct Pair<T> { var x: T; var y: T }\n\nenum Optional<T> {\n  case none\n  case some(T)\n}\n\n");
        out.push_str("sil [ossa] @id : $@convention(thin) <T> (@in_guaranteed T, Builtin.Int1) -> @out T {\nbb0(%a : @guaranteed $T, %f : $Builtin.Int1):\n  %c = copy_value %a : $T\n  return %c : $T\n}\n\n");
        out.push_str("sil [ossa] @g : $@convention(thin) <T> (@in T, Builtin.Int1) -> @out T {\nbb0(%x0 : @owned $T, %flag : $Builtin.Int1):\n");
        let (mut n, mut labels, mut cur) = (0usize, 0usize, "%x0".to_string());
        let mut v = || {
            n += 1;
            format!("%v{n}")
        };
        for _ in 0..segments {
            let x = cur.clone();
            let (a, b, c, d) = (v(), v(), v(), v());
            match r.below(9) {
                0 => {
                    out.push_str(&format!("  {a} = copy_value {x} : $T\n  {b} = struct $Pair<T> ({x} : $T, {a} : $T)\n  ({c}, {d}) = destructure_struct {b} : $Pair<T>\n  destroy_value {d} : $T\n"));
                    cur = c;
                }
                1 => {
                    out.push_str(&format!("  {a} = copy_value {x} : $T\n  {b} = tuple ({x} : $T, {a} : $T)\n  ({c}, {d}) = destructure_tuple {b} : $(T, T)\n  destroy_value {c} : $T\n"));
                    cur = d;
                }
                2 => {
                    out.push_str(&format!("  {a} = enum $Optional<T>, #Optional.some!enumelt, {x} : $T\n  {b} = unchecked_enum_data {a} : $Optional<T>, #Optional.some!enumelt\n"));
                    cur = b;
                }
                3 => {
                    out.push_str(&format!("  {a} = alloc_stack $T\n  store {x} to [init] {a} : $*T\n  {b} = load [take] {a} : $*T\n  dealloc_stack {a} : $*T\n"));
                    cur = b;
                }
                4 => {
                    out.push_str(&format!("  {a} = function_ref @id : {GTY}\n  {b} = apply {a}<T>({x}, %flag) : {GTY}\n  destroy_value {x} : $T\n"));
                    cur = b;
                }
                5 => {
                    let (some, none) = (labels + 1, labels + 2);
                    labels += 2;
                    out.push_str(&format!("  {a} = enum $Optional<T>, #Optional.some!enumelt, {x} : $T\n  switch_enum {a} : $Optional<T>, case #Optional.some!enumelt: bb{some}, case #Optional.none!enumelt: bb{none}\nbb{none}:\n  unreachable\nbb{some}({b} : @owned $T):\n"));
                    cur = b;
                }
                6 => {
                    let (t, e, j) = (labels + 1, labels + 2, labels + 3);
                    labels += 3;
                    out.push_str(&format!("  cond_br %flag, bb{t}, bb{e}\nbb{t}:\n  {a} = copy_value {x} : $T\n  destroy_value {x} : $T\n  br bb{j}({a} : $T)\nbb{e}:\n  br bb{j}({x} : $T)\nbb{j}({b} : @owned $T):\n"));
                    cur = b;
                }
                7 => {
                    let (h, body, exit) = (labels + 1, labels + 2, labels + 3);
                    labels += 3;
                    out.push_str(&format!("  br bb{h}({x} : $T)\nbb{h}({a} : @owned $T):\n  cond_br %flag, bb{body}, bb{exit}\nbb{body}:\n  {b} = copy_value {a} : $T\n  destroy_value {a} : $T\n  br bb{h}({b} : $T)\nbb{exit}:\n"));
                    cur = a;
                }
                _ => {
                    let l = labels + 1;
                    labels += 1;
                    out.push_str(&format!("  br bb{l}\nbb{l}:\n  {a} = copy_value {x} : $T\n  destroy_value {a} : $T\n"));
                }
            }
        }
        out.push_str(&format!("  return {cur} : $T\n}}\n"));
        out
    }

    /// Generated functions: each lowered one reads back as the parser reads it.
    #[test]
    fn generated_lowerings_read_back_as_parsed() {
        let mut total = 0;
        for seed in 0..60 {
            let text = generated(seed, 1 + (seed as usize * 7) % 40);
            let n = check_module(&format!("generated seed {seed}"), &text);
            assert_eq!(n, 2, "seed {seed}: both functions must lower:\n{text}");
            total += n;
        }
        assert_eq!(total, 120);
    }

    /// Each call shape's callee is declared with the function type written after its
    /// arguments — what the `function_ref` it stands for has, and what the parser checks the
    /// callee against — and the template parses to an instruction whose callee is that
    /// entry argument.
    #[test]
    fn callees_are_declared_with_the_written_function_type() {
        let thin = "@convention(thin) <τ_0_0> (@in τ_0_0, Builtin.Int1) -> @out τ_0_0";
        let throws = "@convention(thin) (Builtin.Int1) -> (Builtin.Int1, @error any Error)";
        let co = "@yield_once @convention(thin) <τ_0_0> (@in_guaranteed τ_0_0) -> @yields @in_guaranteed τ_0_0";
        let closure = "@convention(thin) <τ_0_0> (@in_guaranteed τ_0_0, Builtin.Int1) -> @out τ_0_0";
        // (skeleton, operand count, label count, the callee's operand index, its type)
        let cases = [
            (format!("{RESULT}0 = apply {OPERAND}0<T>({OPERAND}1, {OPERAND}2) : ${thin}"), 3, 0, 0, thin),
            (format!("{RESULT}0 = apply [nothrow] {OPERAND}0<Optional<T>>({OPERAND}1, {OPERAND}2) : ${thin}"), 3, 0, 0, thin),
            (format!("apply {OPERAND}0<T>({OPERAND}1, undef : $Builtin.Int1) : ${thin}"), 2, 0, 0, thin),
            (format!("try_apply {OPERAND}0({OPERAND}1) : ${throws}, normal {LABEL}0, error {LABEL}1"), 2, 2, 0, throws),
            (format!("({RESULT}0, {RESULT}1) = begin_apply {OPERAND}0<T>({OPERAND}1) : ${co}"), 2, 0, 0, co),
            (format!("{RESULT}0 = partial_apply [callee_guaranteed] [on_stack] {OPERAND}0<T>({OPERAND}1) : ${closure}"), 2, 0, 0, closure),
        ];
        // Blocks for the labels: `normal` takes the result, `error` the error.
        let params_of = vec![vec!["Builtin.Int1"], vec!["any Error"]];
        let targets = [BlockId(0), BlockId(1)];
        for (skeleton, n_ops, n_labels, callee, ty) in &cases {
            assert_eq!(callee_type(skeleton), Some((*callee, *ty)), "{skeleton}");
            let ends = *n_labels > 0;
            let key = format!("{skeleton}\u{0}{}", u8::from(ends));
            let text = template_text(&key, *n_ops, *n_labels, ends, &params_of, &targets[..*n_labels]).expect("a template");
            assert!(text.contains(&format!("{OPERAND}{callee} : ${ty}")), "{text}");
            let m = crate::parse::sil::parse("template.sil", &text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
            let g = &m.functions[0];
            let entry = g.entry().expect("an entry");
            let inst = &g.insts[g.blocks[entry].all_insts().next().expect("the line")];
            let v = inst.args[0];
            assert_eq!(g.values[v].def, ValueDef::Param { block: entry, index: *callee }, "{text}");
            assert_eq!(g.values[v].ty.as_ref().map(|t| t.to_string()), Some(format!("${ty}")), "{text}");
            // What `apply` and `try_apply` record as the callee's type (the parser's own
            // reading of the text after the arguments) is the same text.
            if let Some(written) = &inst.ty {
                assert_eq!(written.to_string(), format!("${ty}"), "{text}");
            }
        }
        // Lines that call nothing declare no function type.
        for skeleton in [format!("{RESULT}0 = copy_value {OPERAND}0 : $T"), format!("{RESULT}0 = function_ref @f : ${thin}"), format!("{RESULT}0 = builtin \"int_trap\"() : $()")] {
            assert_eq!(callee_type(&skeleton), None, "{skeleton}");
        }
    }

    /// Placeholder numbers are written as `format!` writes them.
    /// A word is refused only where no label has its first byte, or a length in the labels'
    /// range.
    #[test]
    fn label_shapes_refuse_only_what_no_label_is() {
        let labels = ["bb0", "bb12345", "loop", "é1"];
        let mut shape = LabelShape::default();
        for l in labels {
            shape.add(l);
        }
        for l in labels {
            assert!(shape.may_be(l), "{l}");
        }
        // Too short, too long, or a first byte no label has.
        for w in ["bb", "bb123456", "copy_addr", "take", "to", "init", "x", ""] {
            assert!(!shape.may_be(w), "{w}");
        }
        // A label's shape, though no label: the lookup decides.
        for w in ["br", "bbx", "éé", "lo"] {
            assert_eq!(shape.may_be(w), w.len() >= 3, "{w}");
        }
        assert!(!LabelShape::default().may_be("bb0"));
    }

    #[test]
    fn indexes_are_decimal() {
        let mut key = String::new();
        for k in (0..2000).chain([9_999, 10_000, 65_535, 1 << 20, usize::from(u16::MAX) * 31]) {
            key.clear();
            key.push('x');
            push_index(&mut key, k);
            assert_eq!(key, format!("x{k}"));
        }
    }

    /// A line that is no shape this reader takes (a statement continued after a `,`) is left
    /// to the parser.
    #[test]
    fn what_it_does_not_read_it_refuses() {
        let text = "sil @f : $() -> () {\nbb0:\n  %0 = tuple (),\n  ()\n  return %0 : $()\n} // end sil function 'f'\n";
        assert!(read(text).is_none());
        let ok = "sil @f : $() -> () {\nbb0:\n  %0 = tuple ()\n  return %0 : $()\n} // end sil function 'f'\n";
        assert_eq!(read(ok), Some(parsed(ok)));
    }
}
