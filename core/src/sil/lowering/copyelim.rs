//! Copy elimination on opaque values — the proposal's own example (seed 001):
//!
//! ```text
//! %copy = copy_value %arg : $T
//! %ret = apply %callee<T>(%copy) : $@convention(thin) <τ_0_0> (@in τ_0_0) -> ()
//! destroy_value %arg : $T
//! ```
//!
//! The copy is redundant — `apply %callee<T>(%arg)` and no `destroy_value` — because three
//! facts hold: (1) `%arg` cannot be mutated, (2) it is consumed in scope by the
//! `destroy_value`, (3) it is not used after `%copy` has been consumed. Each fact is proved
//! here on the CFG from the ownership analysis and kept with the blocks and instructions it
//! rests on, so the lab can show why a copy went, or which fact kept it.

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, InstId, Op, SilOp, ValueDef, ValueId};
use crate::sil::ownership::lists::{EditLists, Lists};
use crate::sil::ownership::{analyze_constraints, Kind, OperandBrief};
use crate::sil::types::FunctionTypes;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// One of the three facts, proved or refuted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fact {
    pub holds: bool,
    /// The fact for this copy, as a sentence (with the reason it fails when it does).
    pub text: String,
    /// Where it is decided: the blocks to highlight on the CFG.
    pub blocks: Vec<BlockId>,
    /// The instructions it names.
    pub insts: Vec<InstId>,
}

/// A `copy_value` and what copy elimination decided about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    pub copy: InstId,
    /// `%arg`, the copied value.
    pub source: ValueId,
    /// `%copy`.
    pub value: ValueId,
    /// The one use that consumes `%copy`.
    pub consumer: Option<InstId>,
    /// The `destroy_value` that ends `%arg`.
    pub destroy: Option<InstId>,
    /// `%copy` has exactly one use and it consumes the copy; otherwise the three facts are
    /// not asked.
    pub single_consumer: Fact,
    /// (1) cannot be mutated, (2) consumed in scope by a destroy, (3) not used after the copy
    /// is consumed.
    pub facts: Vec<Fact>,
    pub eliminated: bool,
}

impl Candidate {
    /// The first fact that fails, if any.
    pub fn refusal(&self) -> Option<&Fact> {
        if !self.single_consumer.holds {
            return Some(&self.single_consumer);
        }
        self.facts.iter().find(|f| !f.holds)
    }
}

/// The result: every candidate, and the function with the redundant copies removed (shared
/// with the pass's run rather than copied: a copy of a 10^5-block function is a large part
/// of the pass's time).
#[derive(Clone, Debug)]
pub struct CopyElim {
    pub candidates: Vec<Candidate>,
    pub function: std::sync::Arc<Function>,
}

/// Decides every `copy_value` of `f` and removes the redundant ones, exactly as
/// [`run_one_at_a_time`] does — remove the first redundant copy, decide every other afresh,
/// repeat — but without deciding every copy again after each removal. A removal changes
/// only the uses of `%arg` and `%copy`, the consumer's operand and the instructions it
/// deletes; kinds of values and the CFG stay as they were (`%copy` and `%arg` are both
/// owned, or both addresses). So only the candidates whose decision reads one of those are
/// decided again, on the function as the removal left it, and the next removal is the
/// first redundant copy among the up-to-date decisions: the same sequence of removals as one
/// at a time, at the cost of the candidates a removal affects.
pub fn run(f: &Function, ft: &FunctionTypes) -> CopyElim {
    run_in(f, ft, &Cfg::new(f))
}

/// [`run`] with the CFG of `f` already built (the pass's shared analyses have it: building
/// another was a twelfth of the pass at 10^5 blocks). Removing copies never changes a
/// terminator, so the CFG stays that of the function being edited.
pub fn run_in(f: &Function, ft: &FunctionTypes, cfg: &Cfg) -> CopyElim {
    let mut st = State::new(f, ft, cfg);
    let copies: Vec<InstId> = st.copies();
    let mut cands: Vec<Candidate> = Vec::with_capacity(copies.len());
    let mut kept: Vec<InstId> = Vec::with_capacity(copies.len());
    for &i in &copies {
        if let Some(c) = st.decide_at(i) {
            cands.push(c);
            kept.push(i);
        }
    }
    let n = cands.len();
    // Which candidates read each instruction and value (stale entries only cost a decision):
    // flat tables of the first decisions, a list copied out only where a decision is redone.
    let mut inst_pairs: Vec<(u32, u32)> = Vec::new();
    let mut value_pairs: Vec<(u32, u32)> = Vec::new();
    for (k, c) in cands.iter().enumerate() {
        inst_pairs.extend(reads(c).map(|i| (i.0, k as u32)));
        value_pairs.extend([(c.source.0, k as u32), (c.value.0, k as u32)]);
    }
    let mut inst_readers = EditLists::new(Lists::from_pairs(f.insts.len(), &inst_pairs));
    let mut value_readers = EditLists::new(Lists::from_pairs(f.values.len(), &value_pairs));
    drop((inst_pairs, value_pairs));
    let register = |k: usize, c: &Candidate, ir: &mut EditLists<u32>, vr: &mut EditLists<u32>| {
        for i in reads(c) {
            if let Some(r) = ir.edit(i.index()) {
                r.push(k as u32);
            }
        }
        for v in [c.source, c.value] {
            if let Some(r) = vr.edit(v.index()) {
                r.push(k as u32);
            }
        }
    };
    // The redundant copies, first in program order first; an entry is stale once its
    // candidate is decided again (its version moves on).
    let mut version = vec![0u32; n];
    let mut eliminated = vec![false; n];
    let mut heap: BinaryHeap<Reverse<(u32, u32, u32)>> = BinaryHeap::new();
    for (k, c) in cands.iter().enumerate() {
        if c.refusal().is_none() {
            heap.push(Reverse((st.key[c.copy], k as u32, 0)));
        }
    }
    let mut stamp = vec![0u32; n];
    let mut round = 0u32;
    while let Some(Reverse((_, k, ver))) = heap.pop() {
        let k = k as usize;
        if ver != version[k] || eliminated[k] || cands[k].refusal().is_some() {
            continue;
        }
        let (insts, values) = st.eliminate(&cands[k]);
        eliminated[k] = true;
        cands[k].eliminated = true;
        round += 1;
        let mut dirty: Vec<usize> = Vec::new();
        let from_insts = insts.iter().flat_map(|&i| inst_readers.of(i.index()));
        let from_values = values.iter().flat_map(|&v| value_readers.of(v.index()));
        for &d in from_insts.chain(from_values) {
            let d = d as usize;
            if !eliminated[d] && stamp[d] != round {
                stamp[d] = round;
                dirty.push(d);
            }
        }
        for d in dirty {
            let Some(c) = st.decide_at(kept[d]) else { continue };
            version[d] += 1;
            register(d, &c, &mut inst_readers, &mut value_readers);
            if c.refusal().is_none() {
                heap.push(Reverse((st.key[c.copy], d as u32, version[d])));
            }
            cands[d] = c;
        }
    }
    CopyElim { candidates: cands, function: std::sync::Arc::new(st.finish()) }
}

/// The definition [`run`] must agree with (the property tests compare them): decide every
/// copy on the whole function, remove the first redundant one, and start again on the
/// function that leaves, until no copy is redundant. Quadratic, and kept simple on purpose.
#[doc(hidden)]
pub fn run_one_at_a_time(f: &Function, ft: &FunctionTypes) -> CopyElim {
    let mut out = f.clone();
    let mut decided: Vec<Candidate> = Vec::new();
    loop {
        let cands = candidates(&out, ft);
        match cands.iter().find(|c| c.refusal().is_none()) {
            Some(c) => {
                eliminate_by_scan(&mut out, c);
                decided.push(Candidate { eliminated: true, ..c.clone() });
            }
            None => {
                decided.extend(cands);
                break;
            }
        }
    }
    // In the input's program order.
    let order: HashMap<InstId, usize> = f.layout.iter().flat_map(|&b| f.blocks[b].all_insts()).enumerate().map(|(k, i)| (i, k)).collect();
    decided.sort_by_key(|c| order.get(&c.copy).copied().unwrap_or(usize::MAX));
    CopyElim { candidates: decided, function: std::sync::Arc::new(out) }
}

/// What a candidate's decision reads besides `%arg` and `%copy`: its copy, consumer and
/// destroy, and every instruction its facts name. A removal that changes none of these (nor
/// the two values) leaves the decision as it was.
fn reads(c: &Candidate) -> impl Iterator<Item = InstId> + '_ {
    [Some(c.copy), c.consumer, c.destroy]
        .into_iter()
        .flatten()
        .chain(c.single_consumer.insts.iter().copied())
        .chain(c.facts.iter().flat_map(|f| f.insts.iter().copied()))
}

/// The oracle's removal: rewrite the consumer, then find and drop the deleted instructions
/// by scanning the whole function.
fn eliminate_by_scan(f: &mut Function, c: &Candidate) {
    let (Some(u), Some(d)) = (c.consumer, c.destroy) else { return };
    // The address form: the temporary's alloc_stack and dealloc_stack go with the copy.
    let mut gone: Vec<InstId> = vec![c.copy, d];
    if matches!(f.insts[c.copy].op, Op::Sil(SilOp::CopyAddr)) {
        gone.extend(def_of(f, c.value));
        gone.extend(
            f.layout
                .iter()
                .flat_map(|&b| f.blocks[b].all_insts())
                .filter(|&i| matches!(f.insts[i].op, Op::Sil(SilOp::DeallocStack)) && f.insts[i].args.first() == Some(&c.value)),
        );
    }
    replace_operand(f, u, c.value, c.source);
    for &b in &f.layout.clone() {
        f.blocks[b].insts.retain(|i| !gone.contains(i));
    }
}

/// `from` becomes `to` in every operand of `u`, its successors' arguments included.
fn replace_operand(f: &mut Function, u: InstId, from: ValueId, to: ValueId) {
    let inst = &mut f.insts[u];
    for a in inst.args.iter_mut().chain(inst.succs.iter_mut().flat_map(|s| s.args.iter_mut())) {
        if *a == from {
            *a = to;
        }
    }
}

/// Every `copy_value` of `f` with its facts.
pub fn candidates(f: &Function, ft: &FunctionTypes) -> Vec<Candidate> {
    let cfg = Cfg::new(f);
    let st = State::new(f, ft, &cfg);
    st.copies().into_iter().filter_map(|i| st.decide_at(i)).collect()
}

/// One operand of the ownership analysis, as the facts read it: `ending`, it ends the
/// value's lifetime; `compatible`, the value's kind satisfies the operand (incompatible uses
/// are not in a lifetime).
type OpRec = OperandBrief;

/// What the facts ask of the function, kept current while copies are removed: where each
/// instruction is, which instructions and operands use each value, and each value's kind.
/// Removed instructions stay in their blocks, marked `gone`, until [`State::finish`], so the
/// positions computed at the start stay valid.
struct State<'c> {
    f: Function,
    cfg: &'c Cfg,
    /// Block and index of each placed instruction in the input.
    pos: EntityVec<InstId, Option<(BlockId, u32)>>,
    /// Each placed instruction's rank in program order.
    key: EntityVec<InstId, u32>,
    gone: EntitySet<InstId>,
    /// The instructions that use each value, in program order, each once.
    users: EditLists<InstId>,
    operands: Vec<OpRec>,
    /// The operands (indices into `operands`) of each value, in program order.
    ops: EditLists<u32>,
    /// Per value id.
    kind: Vec<Kind>,
    /// The analysis gave the value a lifetime (an owned value it places).
    has_lifetime: EntitySet<ValueId>,
}

impl<'c> State<'c> {
    fn new(f: &Function, ft: &FunctionTypes, cfg: &'c Cfg) -> State<'c> {
        // Kinds and constraints only, in the analysis's compact form.
        let fo = analyze_constraints(f, ft);
        let (ni, nv) = (f.insts.len(), f.values.len());
        let mut pos = EntityVec::filled(ni, None);
        let mut key = EntityVec::filled(ni, u32::MAX);
        // `(value, user)` in program order, each user once per value (`last`: the value's
        // latest user so far).
        let mut user_pairs: Vec<(u32, InstId)> = Vec::with_capacity(fo.operands.len());
        let mut last = vec![u32::MAX; nv];
        let mut rank = 0u32;
        for &b in &f.layout {
            for (k, i) in f.blocks[b].all_insts().enumerate() {
                pos[i] = Some((b, k as u32));
                key[i] = rank;
                rank += 1;
                for v in f.insts[i].uses() {
                    if let Some(l) = last.get_mut(v.index()) {
                        if *l != i.0 {
                            *l = i.0;
                            user_pairs.push((v.0, i));
                        }
                    }
                }
            }
        }
        drop(last);
        let users = EditLists::new(Lists::from_pairs(nv, &user_pairs));
        drop(user_pairs);
        let op_pairs: Vec<(u32, u32)> = fo.operands.iter().enumerate().map(|(k, o)| (o.value.0, k as u32)).collect();
        let ops = EditLists::new(Lists::from_pairs(nv, &op_pairs));
        drop(op_pairs);
        let mut has_lifetime = EntitySet::new_empty(nv);
        for (k, _) in fo.has_lifetime.iter().enumerate().filter(|x| *x.1) {
            has_lifetime.insert(ValueId(k as u32));
        }
        let (operands, kind) = (fo.operands, fo.kinds);
        State { f: f.clone(), cfg, pos, key, gone: EntitySet::new_empty(ni), users, operands, ops, kind, has_lifetime }
    }

    /// The candidate copies in program order: `copy_value`s, and `copy_addr`s that do not take.
    fn copies(&self) -> Vec<InstId> {
        let f = &self.f;
        f.layout
            .iter()
            .flat_map(|&b| f.blocks[b].all_insts())
            .filter(|&i| {
                let inst = &f.insts[i];
                match inst.op {
                    Op::Sil(SilOp::CopyValue) => true,
                    Op::Sil(SilOp::CopyAddr) => !inst.attrs.iter().any(|a| a == "take"),
                    _ => false,
                }
            })
            .collect()
    }

    /// The decision about the copy `i` on the function as it is now.
    fn decide_at(&self, i: InstId) -> Option<Candidate> {
        let inst = &self.f.insts[i];
        match inst.op {
            Op::Sil(SilOp::CopyValue) => {
                let (Some(&a), Some(&c)) = (inst.args.first(), inst.results.first()) else { return None };
                Some(decide(self, i, a, c))
            }
            // The same copy after lowering: `copy_addr %src to [init] %tmp` into a stack
            // temporary that is only consumed.
            Op::Sil(SilOp::CopyAddr) => match inst.args[..] {
                [src, tmp] => decide_addr(self, i, src, tmp),
                _ => None,
            },
            _ => None,
        }
    }

    /// Removes the copy `c` decided redundant: its consumer takes `%arg`, and the copy, the
    /// destroy (and the temporary's allocation) go. Returns what changed: the instructions
    /// deleted or rewritten and the values whose uses changed.
    fn eliminate(&mut self, c: &Candidate) -> (Vec<InstId>, Vec<ValueId>) {
        let (Some(u), Some(d)) = (c.consumer, c.destroy) else { return (Vec::new(), Vec::new()) };
        let mut gone: Vec<InstId> = vec![c.copy, d];
        if matches!(self.f.insts[c.copy].op, Op::Sil(SilOp::CopyAddr)) {
            gone.extend(def_of(&self.f, c.value));
            let f = &self.f;
            gone.extend(self.users.of(c.value.index()).iter().copied().filter(|&i| matches!(f.insts[i].op, Op::Sil(SilOp::DeallocStack)) && f.insts[i].args.first() == Some(&c.value)));
        }
        replace_operand(&mut self.f, u, c.value, c.source);
        let mut values: Vec<ValueId> = vec![c.source, c.value];
        for &g in &gone {
            self.gone.insert(g);
            values.extend(self.f.insts[g].uses());
        }
        values.sort_unstable();
        values.dedup();
        // `%copy`'s operands at the consumer move to `%arg`; every operand of a deleted
        // instruction goes.
        let moved: Vec<u32> = self.ops.of(c.value.index()).iter().copied().filter(|&o| self.operands[o as usize].inst == u).collect();
        for &v in &values {
            let (operands, gone_set) = (&self.operands, &self.gone);
            // What no longer uses `v`: deleted instructions, and the consumer for `%copy`.
            let dropped = |i: InstId| gone_set.contains(i) || (v == c.value && i == u);
            if self.ops.of(v.index()).iter().any(|&o| dropped(operands[o as usize].inst)) {
                if let Some(ops) = self.ops.edit(v.index()) {
                    ops.retain(|&o| !dropped(operands[o as usize].inst));
                }
            }
            if self.users.of(v.index()).iter().any(|&i| dropped(i)) {
                if let Some(us) = self.users.edit(v.index()) {
                    us.retain(|&i| !dropped(i));
                }
            }
        }
        if let Some(ops) = self.ops.edit(c.source.index()) {
            for o in moved {
                if let Err(at) = ops.binary_search(&o) {
                    ops.insert(at, o);
                }
            }
        }
        let key = &self.key;
        if let Some(us) = self.users.edit(c.source.index()) {
            if let Err(at) = us.binary_search_by_key(&key[u], |&i| key[i]) {
                us.insert(at, u);
            }
        }
        gone.push(u);
        (gone, values)
    }

    /// The output function: the deleted instructions leave their blocks.
    fn finish(mut self) -> Function {
        let gone = &self.gone;
        for &b in &self.f.layout {
            self.f.blocks[b].insts.retain(|&i| !gone.contains(i));
        }
        self.f
    }

    fn uses_of(&self, v: ValueId) -> &[InstId] {
        self.users.of(v.index())
    }

    fn line_of(&self, i: InstId) -> String {
        crate::print::sil::inst_line(&self.f, i)
    }

    fn where_is(&self, i: InstId) -> Option<(BlockId, usize)> {
        if self.gone.contains(i) {
            return None;
        }
        self.pos.get(i).copied().flatten().map(|(b, k)| (b, k as usize))
    }

    /// The instructions of `b` still there at input indices `from..to`.
    fn range(&self, b: BlockId, from: usize, to: usize) -> impl Iterator<Item = InstId> + '_ {
        self.f.blocks[b].all_insts().skip(from).take(to.saturating_sub(from)).filter(|&i| !self.gone.contains(i))
    }

    /// Instructions of `b` at input indices (deleted ones included).
    fn len(&self, b: BlockId) -> usize {
        self.f.blocks[b].all_insts().count()
    }

    fn kind(&self, v: ValueId) -> Kind {
        self.kind.get(v.index()).copied().unwrap_or(Kind::None)
    }

    /// The instructions that end `v`'s lifetime, in program order, as the ownership analysis
    /// gathers them (compatible consuming operands); empty if it has no lifetime.
    fn consuming(&self, v: ValueId) -> Vec<InstId> {
        if !self.has_lifetime.contains(v) {
            return Vec::new();
        }
        let mut out: Vec<InstId> = self.ops.of(v.index()).iter().map(|&o| self.operands[o as usize]).filter(|o| o.compatible && o.ending).map(|o| o.inst).collect();
        out.dedup();
        out
    }
}

fn def_of(f: &Function, v: ValueId) -> Option<InstId> {
    match f.values[v].def {
        ValueDef::Result { inst, .. } => Some(inst),
        _ => None,
    }
}

/// Whether instruction `i` only reads the memory at `a` (a copy from it, a load that does
/// not take, an `@in_guaranteed` argument, a debug use).
fn only_reads(cx: &State, i: InstId, a: ValueId) -> bool {
    let inst = &cx.f.insts[i];
    match &inst.op {
        Op::Sil(SilOp::CopyAddr) => inst.args.first() == Some(&a) && inst.args.get(1) != Some(&a) && !inst.attrs.iter().any(|x| x == "take"),
        Op::Sil(SilOp::Load) => !inst.attrs.iter().any(|x| x == "take"),
        Op::Sil(SilOp::DebugValue | SilOp::LoadBorrow) => true,
        Op::Sil(SilOp::Apply) => {
            let Some(call) = super::storage::split_call(&cx.line_of(i)) else { return false };
            let outs = call.sig.indirect_results();
            inst.args.iter().skip(1 + outs).zip(&call.sig.params).all(|(&x, p)| x != a || p.0 == super::ParamConv::InGuaranteed)
                && !inst.args.iter().skip(1).take(outs).any(|&x| x == a)
        }
        _ => false,
    }
}

/// The address form of the proposal's example: `copy_addr %src to [init] %tmp` where
/// `%tmp` is an `alloc_stack` used only by this copy, one use that takes its value (a call's
/// `@in` argument, `copy_addr [take]`, `load [take]`), and its `dealloc_stack`.
fn decide_addr(cx: &State, copy: InstId, src: ValueId, tmp: ValueId) -> Option<Candidate> {
    let f = &cx.f;
    let alloc = def_of(f, tmp)?;
    if !matches!(f.insts[alloc].op, Op::Sil(SilOp::AllocStack)) {
        return None;
    }
    let sn = f.value_in_code(src);
    let tn = f.value_in_code(tmp);
    let users: Vec<InstId> = cx.uses_of(tmp).iter().copied().filter(|&i| i != copy && !matches!(f.insts[i].op, Op::Sil(SilOp::DeallocStack))).collect();
    let takes = |u: InstId| {
        let i = &f.insts[u];
        matches!(i.op, Op::Sil(SilOp::CopyAddr | SilOp::Load)) && i.args.first() == Some(&tmp) && i.attrs.iter().any(|a| a == "take")
    };
    let consumer = match users[..] {
        [u] if passed_in(cx, u, tmp) || takes(u) => Some(u),
        _ => None,
    };
    let single_consumer = match consumer {
        Some(u) => Fact {
            holds: true,
            text: format!("the temporary `{tn}` is only filled by the copy and consumed by `{}`", cx.line_of(u)),
            blocks: cx.where_is(u).map(|p| vec![p.0]).unwrap_or_default(),
            insts: vec![u],
        },
        None => Fact {
            holds: false,
            text: format!(
                "the temporary `{tn}` has {} use{} besides the copy: only a temporary with one use that takes its value (an @in argument, a [take]) is removed",
                users.len(),
                if users.len() == 1 { "" } else { "s" }
            ),
            blocks: Vec::new(),
            insts: users.clone(),
        },
    };
    let destroys: Vec<InstId> = cx.uses_of(src).iter().copied().filter(|&i| matches!(f.insts[i].op, Op::Sil(SilOp::DestroyAddr))).collect();
    let destroy = match destroys[..] {
        [d] => Some(d),
        _ => None,
    };
    let path = consumer.zip(destroy).and_then(|(u, d)| path_after(cx, u, d));
    let (bc, kc) = cx.where_is(copy)?;
    // Everything that touches %src between the copy and the destroy.
    let mut between: Vec<InstId> = Vec::new();
    if let (Some(u), Some(p)) = (consumer, &path) {
        if let Some((bu, ku)) = cx.where_is(u) {
            if bu == bc && ku > kc {
                between.extend(cx.range(bc, kc + 1, ku));
            }
        }
        for &(b, from, to) in p {
            between.extend(cx.range(b, from, to));
        }
    }
    let touching: Vec<InstId> = between.iter().copied().filter(|&i| Some(i) != destroy && f.insts[i].uses().any(|x| x == src)).collect();
    let writes: Vec<InstId> = touching.iter().copied().filter(|&i| !only_reads(cx, i, src)).collect();
    let f1 = Fact {
        holds: writes.is_empty() && path.is_some(),
        text: if writes.is_empty() {
            format!("`{sn}` is not written between the copy and its destroy: every use there only reads it")
        } else {
            format!("`{sn}` is written between the copy and its destroy: `{}`", cx.line_of(writes[0]))
        },
        blocks: vec![bc],
        insts: writes.clone(),
    };
    let f2 = match (destroy, &path) {
        (Some(d), Some(_)) => Fact { holds: true, text: format!("`{sn}` is consumed in scope by `{}`, after the temporary is consumed", cx.line_of(d)), blocks: cx.where_is(d).map(|p| vec![p.0]).unwrap_or_default(), insts: vec![d] },
        (Some(d), None) => Fact { holds: false, text: format!("`{sn}` is destroyed by `{}`, but not after the temporary is consumed on every path", cx.line_of(d)), blocks: cx.where_is(d).map(|p| vec![p.0]).unwrap_or_default(), insts: vec![d] },
        (None, _) => Fact { holds: false, text: format!("`{sn}` is not ended by exactly one destroy_addr ({} found)", destroys.len()), blocks: Vec::new(), insts: destroys.clone() },
    };
    let after_consume: Vec<InstId> = match (consumer, &path) {
        (Some(_), Some(p)) => p
            .iter()
            .flat_map(|&(b, from, to)| cx.range(b, from, to))
            .filter(|&i| Some(i) != destroy && f.insts[i].uses().any(|x| x == src))
            .collect(),
        _ => Vec::new(),
    };
    let f3 = Fact {
        holds: path.is_some() && after_consume.is_empty(),
        text: match after_consume.first() {
            None if path.is_some() => format!("`{sn}` is not used after the temporary `{tn}` is consumed"),
            None => format!("no path from the temporary's consumer to `{sn}`'s destroy to check"),
            Some(&i) => format!("`{sn}` is used after the temporary `{tn}` is consumed: `{}`", cx.line_of(i)),
        },
        blocks: path.as_ref().map(|p| p.iter().map(|x| x.0).collect()).unwrap_or_default(),
        insts: after_consume,
    };
    Some(Candidate { copy, source: src, value: tmp, consumer, destroy, single_consumer, facts: vec![f1, f2, f3], eliminated: false })
}

/// `v` is passed to an `@in` parameter of a call: with opaque values that consumes it (the
/// callee owns the value from then on).
fn passed_in(cx: &State, i: InstId, v: ValueId) -> bool {
    let inst = &cx.f.insts[i];
    if !matches!(inst.op, Op::Sil(SilOp::Apply | SilOp::TryApply)) {
        return false;
    }
    let Some(call) = super::storage::split_call(&cx.line_of(i)) else { return false };
    // After lowering the @out addresses come first.
    let outs = if inst.args.len() == 1 + call.sig.params.len() { 0 } else { call.sig.indirect_results() };
    inst.args.iter().skip(1 + outs).zip(&call.sig.params).any(|(&a, p)| a == v && p.0 == super::ParamConv::In)
}

/// `ops`: the operands that use the copy `c`.
fn decide(cx: &State, copy: InstId, a: ValueId, c: ValueId) -> Candidate {
    let ops: Vec<OpRec> = cx.ops.of(c.index()).iter().map(|&o| cx.operands[o as usize]).collect();
    let f = &cx.f;
    let an = f.value_in_code(a);
    let cn = f.value_in_code(c);
    let copy_block = cx.where_is(copy).map(|p| p.0);
    let users: Vec<InstId> = ops.iter().map(|o| o.inst).collect();
    let consuming: Vec<InstId> = ops.iter().filter(|o| o.ending || passed_in(cx, o.inst, c)).map(|o| o.inst).collect();
    let consumer = match (&users[..], &consuming[..]) {
        ([u], [x]) if u == x => Some(*u),
        _ => None,
    };
    let inst_text = |i: InstId| cx.line_of(i);
    let single_consumer = match consumer {
        Some(u) => Fact {
            holds: true,
            text: format!("`{cn}` has one use, `{}`, and it consumes the copy", inst_text(u)),
            blocks: cx.where_is(u).map(|p| vec![p.0]).unwrap_or_default(),
            insts: vec![u],
        },
        None => Fact {
            holds: false,
            text: format!("`{cn}` has {} use{} and {} consuming: only a copy with a single consuming use is removed", users.len(), if users.len() == 1 { "" } else { "s" }, consuming.len()),
            blocks: Vec::new(),
            insts: users.clone(),
        },
    };
    // (1) Immutable: an SSA object value has no storage anything could write.
    let def_block = match f.values[a].def {
        ValueDef::Param { block, .. } => Some(block),
        ValueDef::Result { inst, .. } => cx.where_is(inst).map(|p| p.0),
        _ => None,
    };
    let is_object = f.values[a].ty.as_ref().is_some_and(|t| !t.to_string().trim_start_matches('$').starts_with('*'));
    let f1 = Fact {
        holds: is_object,
        text: if is_object {
            format!("`{an}` cannot be mutated: it is an SSA value, and no instruction writes an SSA value")
        } else {
            format!("`{an}` is an address: its contents can be written")
        },
        blocks: def_block.into_iter().collect(),
        insts: Vec::new(),
    };
    // (2) Consumed in scope by a destroy_value, after the copy's consumer.
    let kind = cx.kind(a);
    let ends: Vec<InstId> = cx.consuming(a);
    let destroy = match &ends[..] {
        [d] if matches!(f.insts[*d].op, Op::Sil(SilOp::DestroyValue)) => Some(*d),
        _ => None,
    };
    let reach = consumer.and_then(|u| destroy.map(|d| path_after(cx, u, d)));
    let f2 = match (kind, destroy, &reach) {
        (Kind::Owned, Some(d), Some(Some(_))) => Fact {
            holds: true,
            text: format!("`{an}` is consumed in scope by `{}`, after the copy is consumed", inst_text(d)),
            blocks: cx.where_is(d).map(|p| vec![p.0]).unwrap_or_default(),
            insts: vec![d],
        },
        (Kind::Owned, Some(d), _) => Fact {
            holds: false,
            text: format!("`{an}` is destroyed by `{}`, but not after the copy is consumed", inst_text(d)),
            blocks: cx.where_is(d).map(|p| vec![p.0]).unwrap_or_default(),
            insts: vec![d],
        },
        (Kind::Owned, None, _) => Fact {
            holds: false,
            text: format!(
                "`{an}`'s lifetime does not end in one destroy_value ({} consuming use{}): it is needed whole elsewhere",
                ends.len(),
                if ends.len() == 1 { "" } else { "s" }
            ),
            blocks: ends.iter().filter_map(|&e| cx.where_is(e).map(|p| p.0)).collect(),
            insts: ends.clone(),
        },
        (k, _, _) => Fact {
            holds: false,
            text: format!("`{an}` is {}: this function does not own it, so it cannot give it away", k.word()),
            blocks: def_block.into_iter().collect(),
            insts: Vec::new(),
        },
    };
    // (3) Not used between the copy's consumption and the destroy.
    let f3 = match (consumer, destroy, reach) {
        (Some(u), Some(d), Some(Some(path))) => {
            let mut late: Vec<InstId> = Vec::new();
            for &(b, from, to) in &path {
                for i in cx.range(b, from, to) {
                    if i != d && i != u && f.insts[i].uses().any(|x| x == a) {
                        late.push(i);
                    }
                }
            }
            let blocks: Vec<BlockId> = path.iter().map(|p| p.0).collect();
            if late.is_empty() {
                Fact {
                    holds: true,
                    text: format!("`{an}` is not used after `{cn}` is consumed: nothing between `{}` and `{}` reads it", inst_text(u), inst_text(d)),
                    blocks,
                    insts: vec![u, d],
                }
            } else {
                Fact {
                    holds: false,
                    text: format!("`{an}` is used after `{cn}` is consumed: `{}`", inst_text(late[0])),
                    blocks,
                    insts: late,
                }
            }
        }
        _ => Fact { holds: false, text: format!("no path from the copy's consumer to `{an}`'s destroy to check"), blocks: copy_block.into_iter().collect(), insts: Vec::new() },
    };
    Candidate { copy, source: a, value: c, consumer, destroy, single_consumer, facts: vec![f1, f2, f3], eliminated: false }
}

/// The instruction ranges from just after `u` up to `d` on every path (`(block, from, to)`,
/// half-open), or `None` if some path from `u` leaves the function without reaching `d`.
fn path_after(cx: &State, u: InstId, d: InstId) -> Option<Vec<(BlockId, usize, usize)>> {
    let cfg = cx.cfg;
    let (bu, ku) = cx.where_is(u)?;
    let (bd, kd) = cx.where_is(d)?;
    if bu == bd && kd > ku {
        return Some(vec![(bu, ku + 1, kd)]);
    }
    let len = |b: BlockId| cx.len(b);
    let mut out = vec![(bu, ku + 1, len(bu))];
    let mut seen: HashSet<BlockId> = HashSet::new();
    let mut work: Vec<BlockId> = cfg.succs(bu).to_vec();
    if work.is_empty() {
        return None;
    }
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        if b == bd {
            out.push((b, 0, kd));
            continue;
        }
        if b == bu || cfg.succs(b).is_empty() {
            return None;
        }
        out.push((b, 0, len(b)));
        work.extend(cfg.succs(b).iter().copied());
    }
    Some(out)
}
