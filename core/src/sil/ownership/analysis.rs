//! The ownership analysis: kinds of values, constraints of operands, lifetimes and borrow
//! scopes of one function.

use super::is_ossa;
use super::lists::Lists;
use super::rules::{self, Constraint, Kind, Role};
use crate::ir::{BlockId, Function, InstId, Op, SilOp, Type, ValueDef, ValueId};
use crate::sil::types::ty::{self, Ty};
use crate::sil::types::{Class, FunctionTypes};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

/// Where a value's kind comes from (what the verifier needs to know about a definition).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A value of a trivial type.
    Trivial,
    /// An address (`$*T`).
    Address,
    Undef,
    /// A function argument (the entry block's parameter) with its annotation.
    Argument,
    /// A phi: a block parameter every predecessor passes with `br`/`cond_br`.
    Phi,
    /// A parameter a terminator provides (`switch_enum` payload, `try_apply` result,
    /// `checked_cast_br` result).
    TerminatorResult,
    /// `copy_value`, `move_value`, `load [copy]`, `load [take]`.
    Copy,
    /// `begin_borrow`, `load_borrow`: opens a borrow scope.
    Borrow,
    /// An `apply` result, with the callee's result convention.
    Apply,
    /// The result of an instruction that forwards its operand's ownership.
    Forwarded,
    /// A projection out of a borrowed value (`struct_extract`, `tuple_extract`).
    Projection,
    /// An instruction that always produces an owned value (allocations, copies from storage).
    Allocation,
    /// An instruction whose result is unowned (bit casts).
    Cast,
    /// An instruction whose result never has ownership (literals, method lookups).
    Constant,
    /// An instruction this lab does not model: owned is assumed, and the value is not verified.
    Unmodelled,
}

/// One value's ownership.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueInfo {
    pub value: ValueId,
    /// As the code writes it (`%3`).
    pub name: String,
    /// The block that defines it.
    pub block: Option<BlockId>,
    pub kind: Kind,
    pub source: Source,
    /// The reason, as a sentence (`copy_value makes an owned copy`).
    pub why: Cow<'static, str>,
    /// The value it forwards or projects from.
    pub from: Option<ValueId>,
    /// The kind is a guess (an unmodelled instruction): the verifier does not check the value.
    pub assumed: bool,
    /// A `@guaranteed` phi that continues a borrow scope (its incoming values are borrows).
    pub reborrow: bool,
}

/// Which operand of an instruction: `args[k]`, or argument `j` of successor `s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    Arg(u32),
    SuccArg(u32, u32),
}

/// One operand's constraint.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperandInfo {
    pub inst: InstId,
    pub block: BlockId,
    pub slot: Slot,
    pub value: ValueId,
    pub constraint: Constraint,
    /// The value's kind satisfies the constraint.
    pub compatible: bool,
    pub why: Cow<'static, str>,
}

/// The lifetime of an owned value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lifetime {
    pub value: ValueId,
    pub def_block: BlockId,
    /// Instructions that end the lifetime.
    pub consuming: Vec<InstId>,
    /// Every other use, with the ends of borrow scopes of the value.
    pub uses: Vec<InstId>,
    /// Blocks the value is live in: from the definition to every use.
    pub live_blocks: Vec<BlockId>,
}

/// A borrow scope: a `begin_borrow`, `load_borrow`, guaranteed argument or reborrow phi with
/// the uses inside it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BorrowScope {
    pub introducer: ValueId,
    /// The borrowed value (`begin_borrow`'s operand), if any.
    pub base: Option<ValueId>,
    /// `end_borrow`s of the introducer.
    pub ends: Vec<InstId>,
    /// Branches that pass the scope on to a `@guaranteed` phi, with the phi.
    pub reborrows: Vec<(InstId, ValueId)>,
    /// Uses inside the scope, through forwarded and projected values.
    pub uses: Vec<InstId>,
    pub live_blocks: Vec<BlockId>,
}

/// The uses of one value the verifier checks, as Swift's verifier gathers them.
#[derive(Clone, Debug, Default)]
pub(super) struct Gathered {
    /// Operand indices (into `operands`) that end the lifetime, in Swift's use order.
    pub ending: Vec<usize>,
    /// Operand indices of other uses (implicit ones included).
    pub regular: Vec<usize>,
    /// Operands that are incompatible with the value (reported separately).
    pub incompatible: bool,
    /// `end_borrow` of a value forwarded from this borrow (Swift: "Invalid End Borrow!").
    pub invalid_end_borrows: Vec<usize>,
    /// An unmodelled instruction uses the value.
    pub unmodelled: bool,
}

/// The ownership of one function.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionOwnership {
    pub function: String,
    /// `sil [ossa]`: only these have ownership.
    pub ossa: bool,
    /// Every value defined in the function (parameters and results), in layout order.
    pub values: Vec<ValueInfo>,
    /// Every operand of every placed instruction, in layout order.
    pub operands: Vec<OperandInfo>,
    pub lifetimes: Vec<Lifetime>,
    pub scopes: Vec<BorrowScope>,
    /// Blocks from which no `return`/`throw` is reachable: values need not be consumed there.
    pub dead_end_blocks: Vec<BlockId>,
    #[serde(skip)]
    pub(super) index: Index,
}

/// Dense tables the verifier reads.
#[derive(Clone, Debug, Default)]
pub(super) struct Index {
    /// Per value, its row in `values` (`usize::MAX` if not placed).
    pub row: Vec<usize>,
    /// Per value, its operand indices in Swift's use order (last use in the source first).
    pub uses: Lists<usize>,
    pub inst_block: Vec<Option<BlockId>>,
    pub inst_pos: Vec<u32>,
    pub preds: Lists<BlockId>,
    pub succs: Lists<BlockId>,
    pub dead_end: Vec<bool>,
    /// Per row of `values`, what the verifier walks (`None` for values it does not check):
    /// a dense table, not a map hashed per value.
    pub gathered: Vec<Option<Gathered>>,
}

impl Index {
    /// What the verifier walks for `v`, if it checks `v`.
    pub(super) fn gathered_of(&self, v: ValueId) -> Option<&Gathered> {
        let row = *self.row.get(v.0 as usize)?;
        self.gathered.get(row)?.as_ref()
    }
}

impl FunctionOwnership {
    /// The ownership of a value (`None` for ids the function does not place).
    pub fn value(&self, v: ValueId) -> Option<&ValueInfo> {
        self.index.row.get(v.0 as usize).and_then(|&r| self.values.get(r))
    }

    /// The kind of a value; `none` for unknown ids.
    pub fn kind(&self, v: ValueId) -> Kind {
        self.value(v).map_or(Kind::None, |i| i.kind)
    }

    /// The operands of one instruction.
    pub fn operands_of(&self, inst: InstId) -> impl Iterator<Item = &OperandInfo> {
        self.operands.iter().filter(move |o| o.inst == inst)
    }

    /// The lifetime of an owned value.
    pub fn lifetime(&self, v: ValueId) -> Option<&Lifetime> {
        self.lifetimes.iter().find(|l| l.value == v)
    }

    /// The borrow scope a value introduces.
    pub fn scope(&self, v: ValueId) -> Option<&BorrowScope> {
        self.scopes.iter().find(|s| s.introducer == v)
    }

    pub fn is_dead_end(&self, b: BlockId) -> bool {
        self.index.dead_end.get(b.0 as usize).copied().unwrap_or(false)
    }
}

/// A value's or operand's reason as a sentence, made only when the analysis writes texts
/// ([`analyze_kinds`] does not: a `format!` per value and per operand was most of its
/// allocations on a 10^5-block function, for sentences copy elimination never reads).
macro_rules! why {
    ($texts:expr, $($arg:tt)*) => {
        if $texts { Cow::Owned(format!($($arg)*)) } else { Cow::Borrowed("") }
    };
}

/// Triviality of type texts, cached (a chain of 10,000 values shares a handful of types).
struct Trivia<'t> {
    types: &'t FunctionTypes,
    /// Write the reasons (`why`) of values and operands.
    texts: bool,
    cache: HashMap<String, Option<bool>>,
    /// Callee types by the template text they are read from: a function calls a handful of
    /// types many times, and parsing one per call was a sixth of the analysis (issue 17).
    callees: HashMap<String, Option<Rc<Callee>>>,
}

/// A callee's function type and its arguments' conventions ([`apply_conventions`]).
struct Callee {
    fty: ty::FnTy,
    convs: Vec<Option<String>>,
}

impl Trivia<'_> {
    /// [`callee_type`] of `inst` with [`apply_conventions`], parsed once per template text.
    fn callee(&mut self, inst: &crate::ir::Inst) -> Option<Rc<Callee>> {
        let text = template_text(inst);
        if let Some(c) = self.callees.get(&text) {
            return c.clone();
        }
        let c = fn_type_in(&text).map(|fty| Rc::new(Callee { convs: apply_conventions(&fty), fty }));
        self.callees.insert(text, c.clone());
        c
    }

    /// `Some(true)`: trivial; `Some(false)`: not; `None`: the type is unknown.
    fn trivial(&mut self, text: &str) -> Option<bool> {
        if let Some(&t) = self.cache.get(text) {
            return t;
        }
        let t = match self.types.class_of(text) {
            Class::Trivial => Some(true),
            Class::Loadable | Class::AddressOnly => Some(false),
            Class::Unknown => None,
        };
        self.cache.insert(text.to_string(), t);
        t
    }
}

fn ty_text(f: &Function, v: ValueId) -> Option<&str> {
    match f.values.get(v).and_then(|d| d.ty.as_ref()) {
        Some(Type::Sil(t)) => Some(t.trim()),
        _ => None,
    }
}

/// The type of a `destructure_tuple`/`destructure_struct` result the text does not spell: the
/// operand's tuple element, or the declared struct's stored property.
fn element_type(f: &Function, v: ValueId, types: &FunctionTypes) -> Option<String> {
    let Some(ValueDef::Result { inst, index }) = f.values.get(v).map(|d| d.def) else { return None };
    let i = f.insts.get(inst)?;
    let op = i.op.name();
    if op != "destructure_tuple" && op != "destructure_struct" {
        return None;
    }
    let a = *i.args.first()?;
    let t = crate::sil::types::operand::operand_type(f, i, 0, a)?;
    match ty::parse(t.trim()).ok()? {
        Ty::Tuple(elems) if op == "destructure_tuple" => elems.get(index as usize).map(|e| e.ty.to_string()),
        Ty::Named(segs) if op == "destructure_struct" => {
            let seg = segs.last()?;
            let n = types.env().decls.nominal(&seg.name)?;
            if !n.params.is_empty() {
                return None;
            }
            n.fields.get(index as usize).map(|fl| fl.ty.to_string())
        }
        _ => None,
    }
}

/// The callee's function type of an `apply`-like instruction, from its `: $…` annotation.
#[cfg(test)]
fn callee_type(inst: &crate::ir::Inst) -> Option<ty::FnTy> {
    fn_type_in(&template_text(inst))
}

/// The text pieces of an instruction's template, each followed by a space: where
/// [`callee_type`] looks for the function type.
fn template_text(inst: &crate::ir::Inst) -> String {
    let mut text = String::new();
    for p in &inst.sil {
        if let crate::ir::Piece::Text(t) = p {
            text.push_str(t);
            text.push(' ');
        }
    }
    text
}

/// The first function type written `$…` in `text`.
fn fn_type_in(text: &str) -> Option<ty::FnTy> {
    for t in crate::sil::types::function::dollar_types(text) {
        if let Ok(Ty::Function(fty)) = ty::parse(&t) {
            return Some(*fty);
        }
    }
    None
}

/// The conventions of an apply's arguments after the callee: indirect results, then parameters.
fn apply_conventions(fty: &ty::FnTy) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> =
        fty.results.iter().filter(|r| r.conv.as_deref() == Some("out")).map(|r| r.conv.clone()).collect();
    out.extend(fty.params.iter().map(|p| p.conv.clone()));
    out
}

/// The ownership of `f`'s values and operands. `types` classifies its types (trivial values
/// have no ownership). A function that is not OSSA gets `none` everywhere and no lifetimes.
pub fn analyze(f: &Function, types: &FunctionTypes) -> FunctionOwnership {
    let mut fo = analyze_operands(f, types);
    if fo.ossa {
        gather_all(f, &mut fo);
    }
    fo
}

/// [`analyze`] without lifetimes and borrow scopes (`lifetimes`, `scopes` and the verifier's
/// gathered uses stay empty): the kinds and the operand constraints, for a pass that reads an
/// owned value's consuming uses off its operands and would otherwise pay for every value's
/// live blocks. An owned value placed in the function (`block` set) is one [`analyze`] gives
/// a lifetime.
pub fn analyze_operands(f: &Function, types: &FunctionTypes) -> FunctionOwnership {
    operands_of(f, types, true)
}

/// [`analyze_operands`] without texts: every `ValueInfo::name` and every reason (`why` of
/// values and operands) is empty. For a pass that reads only kinds and constraints, which
/// then does not make and free strings per value and per operand (issue 17: copy
/// elimination at 10^5).
pub fn analyze_kinds(f: &Function, types: &FunctionTypes) -> FunctionOwnership {
    operands_of(f, types, false)
}

/// What copy elimination reads of the analysis, in compact tables: each value's kind and
/// each operand's constraint, without [`FunctionOwnership`]'s rows (an operand row with its
/// block, slot and reason is five times the size of one here, and at 10^5 blocks a million
/// of them were a large part of the pass's memory traffic).
#[derive(Clone, Debug, PartialEq)]
pub struct Constraints {
    /// Per value id, its kind ([`FunctionOwnership::kind`]: `none` for values not placed).
    pub kinds: Vec<Kind>,
    /// Per value id: an owned value placed in a block, one [`analyze`] gives a lifetime.
    pub has_lifetime: Vec<bool>,
    /// Every operand of every placed instruction, in the order of
    /// [`FunctionOwnership::operands`].
    pub operands: Vec<OperandBrief>,
}

/// One operand's constraint, as [`Constraints`] keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandBrief {
    pub inst: InstId,
    pub value: ValueId,
    /// The operand ends the value's lifetime ([`Constraint::ending`]).
    pub ending: bool,
    /// [`OperandInfo::compatible`].
    pub compatible: bool,
}

/// [`analyze_kinds`] kept as [`Constraints`].
pub fn analyze_constraints(f: &Function, types: &FunctionTypes) -> Constraints {
    let mut operands: Vec<OperandBrief> = Vec::with_capacity(count_operands(f));
    let (_, _, values) = walk(f, types, false, &mut |o| {
        operands.push(OperandBrief { inst: o.inst, value: o.value, ending: o.constraint.ending, compatible: o.compatible })
    });
    let nv = f.values.len();
    let (mut kinds, mut has_lifetime) = (vec![Kind::None; nv], vec![false; nv]);
    for vi in &values {
        if let Some(k) = kinds.get_mut(vi.value.0 as usize) {
            *k = vi.kind;
        }
        if let Some(l) = has_lifetime.get_mut(vi.value.0 as usize) {
            *l = vi.kind == Kind::Owned && vi.block.is_some();
        }
    }
    Constraints { kinds, has_lifetime, operands }
}

/// The operands of the placed instructions: the size of the operand table, reserved up front
/// (growing a table of a million operands copies it twenty times).
fn count_operands(f: &Function) -> usize {
    f.layout.iter().filter_map(|&b| f.blocks.get(b)).flat_map(|blk| blk.all_insts()).filter_map(|i| f.insts.get(i)).map(|i| i.uses().count()).sum()
}

/// [`analyze_operands`], with the values' names and the reasons if `names`.
fn operands_of(f: &Function, types: &FunctionTypes, names: bool) -> FunctionOwnership {
    let mut operands: Vec<OperandInfo> = Vec::with_capacity(count_operands(f));
    let (ossa, mut idx, values) = walk(f, types, names, &mut |o| operands.push(o));
    // `(value, operand)` pairs in layout order, turned into one list per value; Swift's use
    // lists put the newest use first.
    let uses: Vec<(u32, usize)> = operands.iter().enumerate().map(|(k, o)| (o.value.0, k)).collect();
    idx.uses = Lists::from_pairs(f.values.len(), &uses);
    idx.uses.reverse_each();
    drop(uses);
    FunctionOwnership {
        function: f.name.clone(),
        ossa,
        values,
        operands,
        lifetimes: Vec::new(),
        scopes: Vec::new(),
        dead_end_blocks: f.layout.iter().copied().filter(|b| idx.dead_end.get(b.0 as usize) == Some(&true)).collect(),
        index: idx,
    }
}

/// The kinds of `f`'s values (returned in layout order, with the index of everything but
/// the use lists) and the constraint of each operand, handed to `operand` in layout order.
fn walk(f: &Function, types: &FunctionTypes, names: bool, operand: &mut dyn FnMut(OperandInfo)) -> (bool, Index, Vec<ValueInfo>) {
    let ossa = is_ossa(f);
    let nvals = f.values.len();
    let ninsts = f.insts.len();
    let mut idx = Index {
        row: vec![usize::MAX; nvals],
        uses: Lists::default(),
        inst_block: vec![None; ninsts],
        inst_pos: vec![0; ninsts],
        preds: Lists::default(),
        succs: Lists::default(),
        dead_end: vec![false; f.blocks.len()],
        gathered: Vec::new(),
    };
    let mut order: Vec<ValueId> = Vec::with_capacity(nvals);
    let mut value_block: Vec<Option<BlockId>> = vec![None; nvals];
    // A successor outside the layout (a dangling label) has no edge; asked once per block,
    // not by a scan of the layout per edge.
    let mut laid_out = vec![false; f.blocks.len()];
    for &b in &f.layout {
        if let Some(slot) = laid_out.get_mut(b.0 as usize) {
            *slot = true;
        }
    }
    // The edges `(from, to)` in layout order, then operand order.
    let mut edges: Vec<(u32, BlockId)> = Vec::with_capacity(f.layout.len() * 2);
    for &b in &f.layout {
        let Some(blk) = f.blocks.get(b) else { continue };
        for &p in &blk.params {
            if let Some(slot) = value_block.get_mut(p.0 as usize) {
                *slot = Some(b);
                order.push(p);
            }
        }
        for (k, i) in blk.all_insts().enumerate() {
            let Some(inst) = f.insts.get(i) else { continue };
            idx.inst_block[i.0 as usize] = Some(b);
            idx.inst_pos[i.0 as usize] = k as u32;
            for &r in &inst.results {
                if let Some(slot) = value_block.get_mut(r.0 as usize) {
                    *slot = Some(b);
                    order.push(r);
                }
            }
        }
        for s in f.successors(b) {
            if laid_out.get(s.0 as usize).copied().unwrap_or(false) {
                edges.push((b.0, s));
            }
        }
    }
    idx.succs = Lists::from_pairs(f.blocks.len(), &edges);
    let backward: Vec<(u32, BlockId)> = edges.iter().map(|&(b, s)| (s.0, BlockId(b))).collect();
    idx.preds = Lists::from_pairs(f.blocks.len(), &backward);
    drop((edges, backward));
    dead_ends(f, &mut idx);
    let mut trivia = Trivia { types, texts: names, cache: HashMap::new(), callees: HashMap::new() };

    // Kinds, memoised, with an explicit stack: a forwarding result needs its operands' kinds.
    let mut info: Vec<Option<ValueInfo>> = vec![None; nvals];
    let mut state = vec![0u8; nvals];
    let mut stack: Vec<ValueId> = Vec::new();
    for &v0 in &order {
        if state[v0.0 as usize] != 0 {
            continue;
        }
        stack.push(v0);
        while let Some(&v) = stack.last() {
            let s = state[v.0 as usize];
            if s == 2 {
                stack.pop();
                continue;
            }
            if s == 0 {
                state[v.0 as usize] = 1;
                for &d in deps(f, v) {
                    if state.get(d.0 as usize) == Some(&0) {
                        stack.push(d);
                    }
                }
                continue;
            }
            let vi = classify(f, v, ossa, &info, &mut trivia, value_block[v.0 as usize], &idx.preds);
            info[v.0 as usize] = Some(vi);
            state[v.0 as usize] = 2;
            stack.pop();
        }
    }

    // Reborrows: a guaranteed phi fed by a borrow (or by another reborrow).
    if ossa {
        mark_reborrows(f, &idx, &mut info);
    }

    let mut values = Vec::with_capacity(order.len());
    for &v in &order {
        if let Some(mut vi) = info[v.0 as usize].take() {
            if names {
                vi.name = f.value_in_code(v);
            } else {
                vi.why = Cow::Borrowed("");
            }
            idx.row[v.0 as usize] = values.len();
            values.push(vi);
        }
    }
    let value_info = |v: ValueId| -> Option<&ValueInfo> { idx.row.get(v.0 as usize).and_then(|&r| values.get(r)) };
    let kind = |v: ValueId| value_info(v).map_or(Kind::None, |i| i.kind);

    // Operands.
    for &b in &f.layout {
        let Some(blk) = f.blocks.get(b) else { continue };
        for i in blk.all_insts() {
            let Some(inst) = f.insts.get(i) else { continue };
            let fwd = forwarding_kind(f, inst, &kind);
            let callee = match &inst.op {
                Op::Sil(SilOp::Apply | SilOp::TryApply | SilOp::BeginApply) => trivia.callee(inst),
                _ => None,
            };
            let convs = callee.as_ref().map(|c| &c.convs[..]);
            for (k, &a) in inst.args.iter().enumerate() {
                let vk = kind(a);
                let (role, why) = if !ossa || vk == Kind::None {
                    (Role::TrivialUse, Cow::Borrowed("no ownership to check: the value's kind is none"))
                } else {
                    operand_role(f, inst, k, vk, fwd, convs, &value_info, names)
                };
                let constraint = role.constraint();
                let why = if names { why } else { Cow::Borrowed("") };
                operand(OperandInfo { inst: i, block: b, slot: Slot::Arg(k as u32), value: a, constraint, compatible: constraint.satisfied_by(vk), why });
            }
            if matches!(inst.op, Op::Sil(SilOp::Br | SilOp::CondBr)) {
                for (s, succ) in inst.succs.iter().enumerate() {
                    for (j, &a) in succ.args.iter().enumerate() {
                        let vk = kind(a);
                        let phi = f.blocks.get(succ.block).and_then(|t| t.params.get(j)).copied();
                        let (role, why) = if !ossa || vk == Kind::None {
                            (Role::TrivialUse, Cow::Borrowed("no ownership to check: the value's kind is none"))
                        } else {
                            phi_role(phi.and_then(&value_info), value_info(a), names)
                        };
                        let constraint = role.constraint();
                        let why = if names { why } else { Cow::Borrowed("") };
                        operand(OperandInfo {
                            inst: i,
                            block: b,
                            slot: Slot::SuccArg(s as u32, j as u32),
                            value: a,
                            constraint,
                            compatible: constraint.satisfied_by(vk),
                            why,
                        });
                    }
                }
            }
        }
    }
    (ossa, idx, values)
}

/// Blocks from which no function exit other than `unreachable` can be reached (Swift's
/// `DeadEndBlocks`): a backward walk from the exits.
fn dead_ends(f: &Function, idx: &mut Index) {
    let mut alive = vec![false; f.blocks.len()];
    let mut work: Vec<BlockId> = Vec::new();
    for &b in &f.layout {
        let Some(blk) = f.blocks.get(b) else { continue };
        let exits = blk.term.and_then(|t| f.insts.get(t)).is_some_and(|t| {
            matches!(t.op, Op::Sil(SilOp::Return | SilOp::Throw | SilOp::ThrowAddr | SilOp::Unwind | SilOp::ReturnBorrow))
        });
        if exits {
            alive[b.0 as usize] = true;
            work.push(b);
        }
    }
    while let Some(b) = work.pop() {
        for &p in &idx.preds[b.0 as usize] {
            if !alive[p.0 as usize] {
                alive[p.0 as usize] = true;
                work.push(p);
            }
        }
    }
    for &b in &f.layout {
        if let Some(d) = idx.dead_end.get_mut(b.0 as usize) {
            *d = !alive[b.0 as usize];
        }
    }
}

/// The values whose kinds `v`'s kind depends on: a forwarding instruction's operands (a
/// slice of them, not a copy: asked once per value).
fn deps(f: &Function, v: ValueId) -> &[ValueId] {
    let Some(ValueDef::Result { inst, .. }) = f.values.get(v).map(|d| d.def) else { return &[] };
    let Some(i) = f.insts.get(inst) else { return &[] };
    let name = i.op.name();
    if rules::forwarding(name) || rules::is_guaranteed_projection(name) {
        if rules::forwards_all_operands(name) {
            &i.args
        } else {
            &i.args[..i.args.len().min(1)]
        }
    } else {
        &[]
    }
}

fn mk(v: ValueId, f: &Function, block: Option<BlockId>, kind: Kind, source: Source, why: impl Into<Cow<'static, str>>) -> ValueInfo {
    // The name is given when the value takes its row, if it is wanted.
    let _ = f;
    ValueInfo { value: v, name: String::new(), block, kind, source, why: why.into(), from: None, assumed: false, reborrow: false }
}

/// One value's kind from its definition; forwarded operands are already classified.
fn classify(f: &Function, v: ValueId, ossa: bool, info: &[Option<ValueInfo>], trivia: &mut Trivia<'_>, block: Option<BlockId>, preds: &Lists<BlockId>) -> ValueInfo {
    let texts = trivia.texts;
    let Some(d) = f.values.get(v) else { return mk(v, f, block, Kind::None, Source::Undef, "not a value of this function") };
    if d.def == ValueDef::Undef {
        return mk(v, f, block, Kind::None, Source::Undef, "`undef` has no ownership");
    }
    if !ossa {
        return mk(v, f, block, Kind::None, Source::Constant, "not an OSSA function: no ownership");
    }
    let inferred = if ty_text(f, v).is_none() { element_type(f, v, trivia.types) } else { None };
    let text = ty_text(f, v).or(inferred.as_deref());
    if let Some(t) = text {
        if t.starts_with('*') {
            return mk(v, f, block, Kind::None, Source::Address, "an address: memory, not a value with ownership");
        }
    }
    let trivial = text.and_then(|t| trivia.trivial(t));
    if trivial == Some(true) {
        return mk(v, f, block, Kind::None, Source::Trivial, why!(texts, "`${}` is trivial: copied bit for bit, nothing to own", text.unwrap_or("")));
    }
    match d.def {
        ValueDef::Param { block: pb, .. } => {
            let entry = f.entry() == Some(pb);
            let ps = preds.of(pb.0 as usize);
            let preds_branch = !entry
                && !ps.is_empty()
                && ps.iter().all(|&p| {
                    f.blocks[p].term.and_then(|t| f.insts.get(t)).is_some_and(|t| matches!(t.op, Op::Sil(SilOp::Br | SilOp::CondBr)))
                });
            let source = if entry {
                Source::Argument
            } else if preds_branch {
                Source::Phi
            } else {
                Source::TerminatorResult
            };
            let what = match source {
                Source::Argument => "function argument",
                Source::Phi => "phi",
                _ => "terminator result",
            };
            let (kind, why) = match d.ownership.as_deref() {
                Some("owned") => (Kind::Owned, why!(texts, "{what} annotated `@owned`")),
                Some("guaranteed") => (Kind::Guaranteed, why!(texts, "{what} annotated `@guaranteed`")),
                Some("unowned") => (Kind::Unowned, why!(texts, "{what} annotated `@unowned`")),
                Some(o) => (Kind::None, why!(texts, "{what} annotated `@{o}`")),
                None => (Kind::None, why!(texts, "{what} without an ownership annotation")),
            };
            mk(v, f, block, kind, source, why)
        }
        ValueDef::Result { inst, index } => {
            let Some(i) = f.insts.get(inst) else { return mk(v, f, block, Kind::None, Source::Undef, "no instruction") };
            let name = i.op.name();
            let kind_of = |a: ValueId| info.get(a.0 as usize).and_then(|x| x.as_ref()).map_or(Kind::None, |x| x.kind);
            match name {
                "copy_value" => mk(v, f, block, Kind::Owned, Source::Copy, "`copy_value` makes an owned copy"),
                "move_value" => {
                    let mut vi = mk(v, f, block, Kind::Owned, Source::Copy, "`move_value` moves the value into a new owned lifetime");
                    vi.from = i.args.first().copied();
                    vi
                }
                "load" => {
                    if i.attrs.iter().any(|a| a == "copy") {
                        mk(v, f, block, Kind::Owned, Source::Copy, "`load [copy]` copies the value out of memory: owned")
                    } else if i.attrs.iter().any(|a| a == "take") {
                        mk(v, f, block, Kind::Owned, Source::Copy, "`load [take]` moves the value out of memory: owned")
                    } else if i.attrs.iter().any(|a| a == "trivial") {
                        mk(v, f, block, Kind::None, Source::Trivial, "`load [trivial]` loads a trivial value")
                    } else {
                        mk(v, f, block, Kind::Owned, Source::Copy, "`load` of a non-trivial value: owned")
                    }
                }
                "begin_borrow" => mk(v, f, block, Kind::Guaranteed, Source::Borrow, "`begin_borrow` opens a borrow scope"),
                "load_borrow" => mk(v, f, block, Kind::Guaranteed, Source::Borrow, "`load_borrow` borrows the value in memory"),
                "apply" | "begin_apply" => {
                    let fty = trivia.callee(i);
                    let direct: Vec<ty::Elem> = fty.as_ref().map(|c| &c.fty).map_or_else(Vec::new, |t| {
                        t.results.iter().filter(|r| !matches!(r.conv.as_deref(), Some("out" | "error" | "error_indirect"))).cloned().collect()
                    });
                    // The result's type: the callee's direct results (`()` when there are none).
                    let rty = match direct.as_slice() {
                        [] => Some("()".to_string()),
                        [r] => Some(r.ty.to_string()),
                        rs => Some(format!("({})", rs.iter().map(|r| r.ty.to_string()).collect::<Vec<_>>().join(", "))),
                    };
                    let rtriv = if fty.is_some() && text.is_none() { rty.as_deref().and_then(|t| trivia.trivial(t)) } else { trivial };
                    if rtriv == Some(true) {
                        return mk(v, f, block, Kind::None, Source::Trivial, why!(texts, "the callee's result `${}` is trivial", rty.unwrap_or_default()));
                    }
                    let conv = match direct.as_slice() {
                        [r] => r.conv.clone(),
                        _ => None,
                    };
                    let mut vi = match conv.as_deref() {
                        Some("guaranteed") => mk(v, f, block, Kind::Guaranteed, Source::Apply, "the callee's result is `@guaranteed`"),
                        Some("unowned") | Some("unowned_inner_pointer") => mk(v, f, block, Kind::Unowned, Source::Apply, "the callee's result is `@unowned`"),
                        Some(c) => mk(v, f, block, Kind::Owned, Source::Apply, why!(texts, "the callee's result is `@{c}`: owned by the caller")),
                        None => mk(v, f, block, Kind::Owned, Source::Apply, "an apply result is owned by the caller"),
                    };
                    if rtriv.is_none() {
                        vi.assumed = true;
                        if texts {
                            vi.why.to_mut().push_str(" (its type is unknown here: not verified)");
                        }
                    }
                    vi
                }
                "builtin" => mk(v, f, block, Kind::Owned, Source::Allocation, "a builtin's non-trivial result is owned"),
                "enum" if i.args.is_empty() => mk(v, f, block, Kind::None, Source::Constant, "an enum case without payload has no ownership"),
                n if rules::none_result(n) => mk(v, f, block, Kind::None, Source::Constant, why!(texts, "`{n}` never produces an owned or borrowed value")),
                n if rules::owned_result(n) => mk(v, f, block, Kind::Owned, Source::Allocation, why!(texts, "`{n}` produces a new owned value")),
                n if rules::unowned_result(n) => mk(v, f, block, Kind::Unowned, Source::Cast, why!(texts, "`{n}` makes a reference nobody keeps alive: unowned")),
                n if rules::is_guaranteed_projection(n) => {
                    let from = i.args.first().copied();
                    let k = from.map_or(Kind::None, kind_of);
                    let mut vi = if k == Kind::None {
                        mk(v, f, block, Kind::None, Source::Projection, why!(texts, "`{n}` of a value without ownership"))
                    } else {
                        mk(v, f, block, Kind::Guaranteed, Source::Projection, why!(texts, "`{n}` projects out of a borrowed value: guaranteed"))
                    };
                    vi.from = from;
                    vi
                }
                n if rules::forwarding(n) => {
                    if n == "unchecked_ownership_conversion" {
                        let text: String = i.sil.iter().filter_map(|p| if let crate::ir::Piece::Text(t) = p { Some(t.as_str()) } else { None }).collect();
                        let to = text.rsplit("to @").next().unwrap_or("").trim();
                        let k = match to {
                            t if t.starts_with("owned") => Kind::Owned,
                            t if t.starts_with("guaranteed") => Kind::Guaranteed,
                            t if t.starts_with("unowned") => Kind::Unowned,
                            _ => Kind::None,
                        };
                        return mk(v, f, block, k, Source::Forwarded, why!(texts, "`unchecked_ownership_conversion` to {k}"));
                    }
                    let candidates: &[ValueId] = if rules::forwards_all_operands(n) { &i.args } else { &i.args[..i.args.len().min(1)] };
                    let from = candidates.iter().copied().find(|&a| kind_of(a) != Kind::None);
                    let _ = index;
                    match from {
                        Some(a) => {
                            let k = kind_of(a);
                            let mut vi = mk(v, f, block, k, Source::Forwarded, why!(texts, "`{n}` forwards the ownership of {}: {k}", f.value_in_code(a)));
                            vi.from = Some(a);
                            vi
                        }
                        None => mk(v, f, block, Kind::None, Source::Forwarded, why!(texts, "`{n}` forwards only values without ownership")),
                    }
                }
                n => {
                    let mut vi = mk(v, f, block, Kind::Owned, Source::Unmodelled, why!(texts, "`{n}` is not modelled: owned assumed, not verified"));
                    vi.assumed = true;
                    vi
                }
            }
        }
        ValueDef::Var | ValueDef::Undef => mk(v, f, block, Kind::None, Source::Undef, "no ownership"),
    }
}

/// Guaranteed phis whose incoming values are borrow scopes continue those scopes (reborrows);
/// found by a worklist so chains of reborrow phis are linear.
fn mark_reborrows(f: &Function, idx: &Index, info: &mut [Option<ValueInfo>]) {
    let is_intro = |info: &[Option<ValueInfo>], v: ValueId| {
        info.get(v.0 as usize).and_then(|x| x.as_ref()).is_some_and(|x| x.kind == Kind::Guaranteed && (x.source == Source::Borrow || x.reborrow))
    };
    // Incoming (phi ← value) pairs.
    let mut incoming: Vec<(ValueId, ValueId)> = Vec::new();
    for &b in &f.layout {
        let Some(t) = f.blocks.get(b).and_then(|blk| blk.term).and_then(|t| f.insts.get(t)) else { continue };
        if !matches!(t.op, Op::Sil(SilOp::Br | SilOp::CondBr)) {
            continue;
        }
        for s in &t.succs {
            for (j, &a) in s.args.iter().enumerate() {
                if let Some(&p) = f.blocks.get(s.block).and_then(|blk| blk.params.get(j)) {
                    incoming.push((p, a));
                }
            }
        }
    }
    let _ = idx;
    // Per incoming value, the phis it is passed to (a dense table, not a map per value).
    let pairs: Vec<(u32, ValueId)> = incoming.iter().map(|&(p, a)| (a.0, p)).collect();
    let by_value = Lists::from_pairs(f.values.len(), &pairs);
    let mut work: Vec<ValueId> = Vec::new();
    for &(p, a) in &incoming {
        let guaranteed_phi = info.get(p.0 as usize).and_then(|x| x.as_ref()).is_some_and(|x| x.kind == Kind::Guaranteed && x.source == Source::Phi && !x.reborrow);
        if guaranteed_phi && is_intro(info, a) {
            if let Some(Some(x)) = info.get_mut(p.0 as usize) {
                x.reborrow = true;
                x.why = "phi annotated `@guaranteed` fed by a borrow scope: a reborrow".into();
            }
            work.push(p);
        }
    }
    while let Some(v) = work.pop() {
        for &p in by_value.of(v.0 as usize) {
            let eligible = info.get(p.0 as usize).and_then(|x| x.as_ref()).is_some_and(|x| x.kind == Kind::Guaranteed && x.source == Source::Phi && !x.reborrow);
            if eligible {
                if let Some(Some(x)) = info.get_mut(p.0 as usize) {
                    x.reborrow = true;
                    x.why = "phi annotated `@guaranteed` fed by a borrow scope: a reborrow".into();
                }
                work.push(p);
            }
        }
    }
}

/// The ownership a forwarding instruction forwards: its first operand with ownership.
fn forwarding_kind(f: &Function, inst: &crate::ir::Inst, kind: &dyn Fn(ValueId) -> Kind) -> Kind {
    let _ = f;
    let name = inst.op.name();
    if !rules::forwarding(name) {
        return Kind::None;
    }
    let cands: &[ValueId] = if rules::forwards_all_operands(name) { &inst.args } else { &inst.args[..inst.args.len().min(1)] };
    cands.iter().map(|&a| kind(a)).find(|&k| k != Kind::None).unwrap_or(Kind::None)
}

fn forwarding_role(k: Kind) -> Role {
    match k {
        Kind::Owned => Role::ForwardingConsume,
        Kind::Guaranteed => Role::GuaranteedForwarding,
        Kind::Unowned => Role::ForwardingUnowned,
        Kind::None => Role::TrivialUse,
    }
}

/// The role of operand `k` of `inst`, whose value has kind `vk` (not none).
#[allow(clippy::too_many_arguments)]
fn operand_role<'a>(
    f: &Function,
    inst: &crate::ir::Inst,
    k: usize,
    vk: Kind,
    fwd: Kind,
    convs: Option<&[Option<String>]>,
    value_info: &dyn Fn(ValueId) -> Option<&'a ValueInfo>,
    texts: bool,
) -> (Role, Cow<'static, str>) {
    let name = inst.op.name();
    let s = |r: Role, w: &'static str| (r, Cow::Borrowed(w));
    match name {
        n if rules::is_destroying(n) && k == 0 => s(Role::DestroyingConsume, "destroys the value: ends its lifetime"),
        "end_borrow" => s(Role::EndBorrow, "ends the borrow scope"),
        "begin_borrow" => s(Role::Borrow, "borrows the value for the scope of the result"),
        "store_borrow" if k == 0 => s(Role::Borrow, "borrows the value into memory until `end_borrow`"),
        "store" if k == 0 => {
            if inst.attrs.iter().any(|a| a == "init" || a == "assign") {
                s(Role::DestroyingConsume, "`store [init]`/`[assign]` moves the value into memory: consumed")
            } else if inst.attrs.iter().any(|a| a == "trivial") {
                s(Role::TrivialUse, "`store [trivial]`")
            } else {
                s(Role::DestroyingConsume, "a store of a non-trivial value consumes it")
            }
        }
        "apply" | "try_apply" | "begin_apply" if k == 0 => {
            let callee_owned = ty_text(f, inst.args[0]).is_some_and(|t| t.contains("@callee_owned"));
            if callee_owned {
                s(Role::ForwardingConsume, "a `@callee_owned` closure is consumed by the call")
            } else {
                s(Role::InstantaneousUse, "the callee, read for the call")
            }
        }
        "apply" | "try_apply" | "begin_apply" => match convs.and_then(|c| c.get(k - 1)) {
            Some(Some(c)) => match c.as_str() {
                "owned" => (Role::ForwardingConsume, "passed as `@owned`: the callee takes ownership".into()),
                "guaranteed" => (Role::InstantaneousUse, "passed as `@guaranteed`: borrowed for the call".into()),
                "unowned" => (Role::InstantaneousUse, "passed as `@unowned`".into()),
                c => (Role::TrivialUse, why!(texts, "passed as `@{c}` (an address)")),
            },
            _ => s(Role::Unmodelled, "the callee's type does not say this argument's convention"),
        },
        "partial_apply" if k == 0 => s(Role::InstantaneousUse, "the function being partially applied"),
        "partial_apply" => {
            if inst.attrs.iter().any(|a| a == "on_stack") {
                s(Role::InstantaneousUse, "captured by a stack closure: borrowed")
            } else {
                s(Role::ForwardingConsume, "captured by the closure: consumed")
            }
        }
        "return" | "throw" => s(Role::ForwardingConsume, "returned to the caller: ownership leaves the function"),
        "ref_element_addr" | "ref_tail_addr" => s(Role::InteriorPointer, "projects an address into the object: needs a borrowed base"),
        "project_box" | "open_existential_box" => s(Role::AnyInteriorPointer, "projects an address into the box"),
        "switch_enum" | "checked_cast_br" if k == 0 => (forwarding_role(vk), why!(texts, "forwards the {vk} value to the payload of each case")),
        n if rules::is_guaranteed_projection(n) && k == 0 => s(Role::GuaranteedForwarding, "projects a part of a borrowed value"),
        n if rules::forwarding(n) => {
            let forwarded = rules::forwards_all_operands(n) || k == 0;
            if forwarded {
                let _ = value_info;
                (forwarding_role(fwd), why!(texts, "`{n}` forwards {fwd} ownership to its result"))
            } else {
                s(Role::InstantaneousUse, "read, not forwarded")
            }
        }
        n if rules::is_instantaneous(n, k) => s(Role::InstantaneousUse, "read for the moment of the instruction"),
        n if rules::is_bitwise_escape(n, k) => s(Role::BitwiseEscape, "the reference escapes as bits"),
        "cond_fail" | "cond_br" | "switch_value" | "builtin" | "integer_literal" => s(Role::InstantaneousUse, "read for the moment of the instruction"),
        "dealloc_stack" | "destroy_addr" | "copy_addr" | "load" | "load_borrow" | "end_access" | "begin_access" | "store" | "store_borrow" => {
            s(Role::TrivialUse, "an address operand")
        }
        n => (Role::Unmodelled, why!(texts, "`{n}` is not modelled: accepted as any, the value is not verified")),
    }
}

/// The role of a branch argument, from the phi it feeds.
fn phi_role(phi: Option<&ValueInfo>, incoming: Option<&ValueInfo>, texts: bool) -> (Role, Cow<'static, str>) {
    let Some(p) = phi else { return (Role::Unmodelled, "no matching block parameter".into()) };
    match p.kind {
        Kind::Owned => (Role::ForwardingConsume, why!(texts, "passed to the `@owned` phi {}: consumed", p.name)),
        Kind::Guaranteed => {
            let intro = incoming.is_some_and(|i| i.source == Source::Borrow || i.reborrow);
            if intro {
                (Role::Reborrow, why!(texts, "the borrow scope continues in the `@guaranteed` phi {}", p.name))
            } else {
                (Role::GuaranteedForwarding, why!(texts, "forwarded to the `@guaranteed` phi {}", p.name))
            }
        }
        Kind::Unowned => (Role::ForwardingUnowned, why!(texts, "passed to the `@unowned` phi {}", p.name)),
        Kind::None => (Role::TrivialUse, why!(texts, "passed to the phi {} without ownership", p.name)),
    }
}

/// Whether a guaranteed value is checked as part of the borrow it came from (a projection,
/// a forwarded value, a payload, a forwarding phi) rather than as a scope of its own.
pub(super) fn is_forwarded_guaranteed(vi: &ValueInfo) -> bool {
    vi.kind == Kind::Guaranteed
        && match vi.source {
            Source::Forwarded | Source::Projection | Source::TerminatorResult => true,
            Source::Phi => !vi.reborrow,
            _ => false,
        }
}

/// Gathers, per value the verifier checks, its lifetime-ending and other uses the way Swift's
/// verifier does, and records lifetimes and borrow scopes.
fn gather_all(f: &Function, fo: &mut FunctionOwnership) {
    let n = f.values.len();
    let mut stamp: Vec<u32> = vec![0; n];
    let mut gen = 0u32;
    let checked = |vi: &ValueInfo| !(vi.kind == Kind::None || vi.kind == Kind::Unowned || is_forwarded_guaranteed(vi));
    let mut gathered: Vec<Option<Gathered>> = Vec::with_capacity(fo.values.len());
    for vi in &fo.values {
        if !checked(vi) {
            gathered.push(None);
            continue;
        }
        gen += 1;
        let g = if vi.kind == Kind::Owned { gather_owned(f, fo, vi.value) } else { gather_guaranteed(f, fo, vi.value, &mut stamp, gen) };
        gathered.push(Some(g));
    }
    let mut lifetimes = Vec::with_capacity(gathered.iter().filter(|g| g.is_some()).count());
    let mut scopes = Vec::new();
    let mut order = vec![usize::MAX; f.blocks.len()];
    for (k, &b) in f.layout.iter().enumerate() {
        if let Some(o) = order.get_mut(b.0 as usize) {
            *o = k;
        }
    }
    let mut block_stamp: Vec<u32> = vec![0; f.blocks.len()];
    let mut block_gen = 0u32;
    for (vi, g) in fo.values.iter().zip(&gathered) {
        let Some(g) = g else { continue };
        let Some(def_block) = vi.block else { continue };
        let insts = |ops: &[usize]| -> Vec<InstId> {
            let mut v: Vec<InstId> = ops.iter().filter_map(|&o| fo.operands.get(o)).map(|o| o.inst).collect();
            v.sort_by_key(|i| (fo.index.inst_block[i.0 as usize].map(|b| order[b.0 as usize]), fo.index.inst_pos[i.0 as usize]));
            v.dedup();
            v
        };
        let all: Vec<usize> = g.ending.iter().chain(&g.regular).copied().collect();
        block_gen += 1;
        let live = live_blocks(fo, def_block, &all, &mut block_stamp, block_gen);
        if vi.kind == Kind::Owned {
            lifetimes.push(Lifetime { value: vi.value, def_block, consuming: insts(&g.ending), uses: insts(&g.regular), live_blocks: live });
        } else {
            let base = match f.values.get(vi.value).map(|d| d.def) {
                Some(ValueDef::Result { inst, .. }) => f.insts.get(inst).filter(|i| matches!(i.op, Op::Sil(SilOp::BeginBorrow))).and_then(|i| i.args.first().copied()),
                _ => None,
            };
            let mut ends = Vec::new();
            let mut reborrows = Vec::new();
            for &o in &g.ending {
                let Some(op) = fo.operands.get(o) else { continue };
                match op.slot {
                    Slot::SuccArg(s, j) => {
                        let phi = f.insts.get(op.inst).and_then(|t| t.succs.get(s as usize)).and_then(|s| f.blocks.get(s.block)).and_then(|b| b.params.get(j as usize)).copied();
                        if let Some(p) = phi {
                            reborrows.push((op.inst, p));
                        }
                    }
                    Slot::Arg(_) => ends.push(op.inst),
                }
            }
            scopes.push(BorrowScope { introducer: vi.value, base, ends, reborrows, uses: insts(&g.regular), live_blocks: live });
        }
    }
    fo.lifetimes = lifetimes;
    fo.scopes = scopes;
    fo.index.gathered = gathered;
}

/// The blocks a value is live in: every block on a path from the definition to a use.
/// `stamp`/`gen` mark visited blocks without clearing a table per value (a table per value
/// was quadratic on functions with many blocks and many values).
fn live_blocks(fo: &FunctionOwnership, def: BlockId, ops: &[usize], stamp: &mut [u32], gen: u32) -> Vec<BlockId> {
    let mut out = Vec::new();
    let visit = |b: BlockId, stamp: &mut [u32], out: &mut Vec<BlockId>| -> bool {
        match stamp.get_mut(b.0 as usize) {
            Some(s) if *s != gen => {
                *s = gen;
                out.push(b);
                true
            }
            _ => false,
        }
    };
    visit(def, stamp, &mut out);
    let mut work = Vec::new();
    for &o in ops {
        let Some(b) = fo.operands.get(o).map(|x| x.block) else { continue };
        if visit(b, stamp, &mut out) {
            work.push(b);
        }
    }
    while let Some(b) = work.pop() {
        for &p in &fo.index.preds[b.0 as usize] {
            if visit(p, stamp, &mut out) {
                work.push(p);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The uses of an owned value: its direct uses, plus the scope ends of borrows of it.
fn gather_owned(f: &Function, fo: &FunctionOwnership, v: ValueId) -> Gathered {
    let mut g = Gathered::default();
    for &o in fo.index.uses.of(v.0 as usize) {
        let op = &fo.operands[o];
        if !op.compatible {
            g.incompatible = true;
            continue;
        }
        if op.constraint.role == Role::Unmodelled {
            g.unmodelled = true;
        }
        if op.constraint.ending {
            g.ending.push(o);
            continue;
        }
        g.regular.push(o);
        if op.constraint.role == Role::Borrow {
            implicit_uses(f, fo, o, &mut g.regular);
        }
    }
    g
}

/// The ends of the scope a borrowing operand opens (`end_borrow`s and reborrows of the
/// `begin_borrow`/`store_borrow` result); the operand itself if the scope has none.
fn implicit_uses(f: &Function, fo: &FunctionOwnership, o: usize, out: &mut Vec<usize>) {
    let op = &fo.operands[o];
    let mut found = false;
    // The instruction's results: `begin_borrow`'s borrow, `store_borrow`'s address.
    let results = f.insts.get(op.inst).map_or(&[][..], |i| &i.results[..]);
    for &r in results {
        for &u in fo.index.uses.of(r.0 as usize) {
            let uo = &fo.operands[u];
            let ends = matches!(uo.constraint.role, Role::EndBorrow | Role::Reborrow)
                || f.insts.get(uo.inst).is_some_and(|i| matches!(i.op, Op::Sil(SilOp::EndBorrow)));
            if ends {
                out.push(u);
                found = true;
            }
        }
    }
    if !found {
        out.push(o);
    }
}

/// The uses of a borrow introducer, through every value forwarded or projected from it.
fn gather_guaranteed(f: &Function, fo: &FunctionOwnership, v: ValueId, stamp: &mut [u32], gen: u32) -> Gathered {
    let mut g = Gathered::default();
    // Swift pops from the back of its copy of the use list (newest first): the earliest use
    // is visited first.
    let mut users: Vec<usize> = fo.index.uses.of(v.0 as usize).to_vec();
    if let Some(s) = stamp.get_mut(v.0 as usize) {
        *s = gen;
    }
    let push_uses_of = |x: ValueId, users: &mut Vec<usize>, stamp: &mut [u32]| {
        if stamp.get(x.0 as usize) == Some(&gen) {
            return;
        }
        if let Some(s) = stamp.get_mut(x.0 as usize) {
            *s = gen;
        }
        users.extend(fo.index.uses.of(x.0 as usize));
    };
    while let Some(o) = users.pop() {
        let op = &fo.operands[o];
        if !op.compatible {
            g.incompatible = true;
            continue;
        }
        let role = op.constraint.role;
        if role == Role::Unmodelled {
            g.unmodelled = true;
        }
        if matches!(op.slot, Slot::SuccArg(..)) && role == Role::GuaranteedForwarding {
            g.regular.push(o);
            continue;
        }
        if role != Role::GuaranteedForwarding {
            if op.constraint.ending {
                if op.value != v {
                    g.invalid_end_borrows.push(o);
                    continue;
                }
                g.ending.push(o);
                continue;
            }
            if role == Role::Borrow {
                implicit_uses(f, fo, o, &mut g.regular);
            }
            if role == Role::InteriorPointer || role == Role::AnyInteriorPointer {
                address_uses(f, fo, op.inst, &mut g.regular, stamp, gen);
            }
            g.regular.push(o);
            continue;
        }
        g.regular.push(o);
        let Some(inst) = f.insts.get(op.inst) else { continue };
        if !inst.results.is_empty() {
            for &r in &inst.results {
                if fo.kind(r) == Kind::Guaranteed {
                    push_uses_of(r, &mut users, stamp);
                }
            }
            continue;
        }
        if inst.is_terminator() && matches!(op.slot, Slot::Arg(0)) {
            for s in &inst.succs {
                if let Some(&p) = f.blocks.get(s.block).and_then(|b| b.params.first()) {
                    if fo.kind(p) == Kind::Guaranteed {
                        push_uses_of(p, &mut users, stamp);
                    }
                }
            }
        }
    }
    g
}

/// Every use of the addresses an interior-pointer instruction projects (through further
/// address projections): these too must be inside the borrow scope.
fn address_uses(f: &Function, fo: &FunctionOwnership, inst: InstId, out: &mut Vec<usize>, stamp: &mut [u32], gen: u32) {
    let mut work: Vec<ValueId> = f.insts.get(inst).map(|i| i.results.to_vec()).unwrap_or_default();
    while let Some(a) = work.pop() {
        if stamp.get(a.0 as usize) == Some(&gen) {
            continue;
        }
        if let Some(s) = stamp.get_mut(a.0 as usize) {
            *s = gen;
        }
        for &u in fo.index.uses.of(a.0 as usize) {
            out.push(u);
            let ui = fo.operands[u].inst;
            if let Some(ui) = f.insts.get(ui) {
                for &r in &ui.results {
                    if ty_text(f, r).is_some_and(|t| t.starts_with('*')) {
                        work.push(r);
                    }
                }
            }
        }
    }
}


#[cfg(test)]
mod callee_tests {
    use super::*;
    use crate::ir::Lang;
    use crate::sil::types::env_of;

    /// The cached callee types and conventions are what parsing each call's own text gives
    /// ([`callee_type`] and [`apply_conventions`], the uncached way), for calls that repeat a
    /// type or differ in one convention.
    #[test]
    fn cached_callee_types_match_parsing_each_call() {
        let src = "sil_stage raw\nimport Builtin\nclass K {}\n\
            sil [ossa] @f : $@convention(thin) (@owned K, @guaranteed K) -> @owned K {\n\
            bb0(%0 : @owned $K, %1 : @guaranteed $K):\n\
            %g = function_ref @g : $@convention(thin) (@guaranteed K) -> @owned K\n\
            %h = function_ref @h : $@convention(thin) (@owned K) -> ()\n\
            %a = apply %g(%1) : $@convention(thin) (@guaranteed K) -> @owned K\n\
            %b = apply %g(%a) : $@convention(thin) (@guaranteed K) -> @owned K\n\
            destroy_value %a : $K\n\
            %c = apply %h(%0) : $@convention(thin) (@owned K) -> ()\n\
            %d = apply %g(%1) : $@convention(thin) (@guaranteed K) -> @owned K\n\
            destroy_value %d : $K\n\
            return %b : $K\n\
            }\n";
        let m = crate::parse_module(Lang::Sil, "t.sil", src).expect("parses");
        let f = m.bodies().next().expect("a body");
        let ft = FunctionTypes::new(f, env_of(&m));
        let mut trivia = Trivia { types: &ft, texts: true, cache: HashMap::new(), callees: HashMap::new() };
        let mut asked = 0;
        for (_, i) in f.placed_insts() {
            let inst = &f.insts[i];
            if !matches!(inst.op, Op::Sil(SilOp::Apply)) {
                continue;
            }
            // Asked twice: the second answer comes from the cache.
            for _ in 0..2 {
                let cached = trivia.callee(inst);
                let direct = callee_type(inst);
                assert_eq!(cached.as_ref().map(|c| &c.fty), direct.as_ref());
                assert_eq!(cached.as_ref().map(|c| c.convs.clone()), direct.as_ref().map(apply_conventions));
                assert!(direct.is_some(), "every call here writes its callee's type");
                asked += 1;
            }
        }
        assert_eq!(asked, 8, "four calls, each asked twice");
        assert_eq!(trivia.callees.len(), 2, "one entry per distinct call text");
    }
}
