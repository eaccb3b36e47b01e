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
use crate::ir::{BlockId, Function, InstId, Op, SilOp, ValueDef, ValueId};
use crate::sil::ownership::{analyze, FunctionOwnership, Kind, OperandInfo};
use crate::sil::types::FunctionTypes;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

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

/// The result: every candidate, and the function with the redundant copies removed.
#[derive(Clone, Debug)]
pub struct CopyElim {
    pub candidates: Vec<Candidate>,
    pub function: Function,
}

/// Decides every `copy_value` of `f` and removes the redundant ones. Each removal is decided
/// on the function as the previous ones left it, as if one at a time; but the candidates are
/// computed once per round, and a round removes every redundant copy that no earlier removal
/// of the round can affect (see [`Touched`]), so a function with many independent copies takes
/// a few rounds, not one analysis per copy.
pub fn run(f: &Function, ft: &FunctionTypes) -> CopyElim {
    run_rounds(f, ft, usize::MAX)
}

/// [`run`] removing one copy per round and deciding all the others again after it: the
/// definition `run` must agree with (the property tests compare them).
#[doc(hidden)]
pub fn run_one_at_a_time(f: &Function, ft: &FunctionTypes) -> CopyElim {
    run_rounds(f, ft, 1)
}

fn run_rounds(f: &Function, ft: &FunctionTypes, per_round: usize) -> CopyElim {
    let mut out = f.clone();
    let mut decided: Vec<Candidate> = Vec::new();
    let mut done: HashSet<InstId> = HashSet::new();
    loop {
        let cands = candidates(&out, ft);
        let mut touched = Touched::default();
        let mut removed = 0;
        for c in &cands {
            if removed == per_round {
                break;
            }
            if c.refusal().is_some() || done.contains(&c.copy) || touched.affects(c) {
                continue;
            }
            touched.add(c);
            eliminate(&mut out, c);
            done.insert(c.copy);
            decided.push(Candidate { eliminated: true, ..c.clone() });
            removed += 1;
        }
        if removed == 0 {
            decided.extend(cands.into_iter().filter(|c| !done.contains(&c.copy)));
            break;
        }
    }
    // In the input's program order.
    let order: HashMap<InstId, usize> = f.layout.iter().flat_map(|&b| f.blocks[b].all_insts()).enumerate().map(|(k, i)| (i, k)).collect();
    decided.sort_by_key(|c| order.get(&c.copy).copied().unwrap_or(usize::MAX));
    CopyElim { candidates: decided, function: out }
}

/// What the removals of one round changed: the instructions they deleted or rewrote and the
/// values whose uses they changed. A candidate whose decision reads none of them (its copy,
/// consumer, destroy, the instructions its facts rest on, `%arg` and `%copy`) is decided the
/// same after those removals as before, so it may go in the same round; any other waits for
/// the next round, decided afresh.
#[derive(Default)]
struct Touched {
    insts: HashSet<InstId>,
    values: HashSet<ValueId>,
}

impl Touched {
    fn reads(c: &Candidate) -> impl Iterator<Item = InstId> + '_ {
        [Some(c.copy), c.consumer, c.destroy]
            .into_iter()
            .flatten()
            .chain(c.single_consumer.insts.iter().copied())
            .chain(c.facts.iter().flat_map(|f| f.insts.iter().copied()))
    }

    fn affects(&self, c: &Candidate) -> bool {
        self.values.contains(&c.source) || self.values.contains(&c.value) || Touched::reads(c).any(|i| self.insts.contains(&i))
    }

    fn add(&mut self, c: &Candidate) {
        self.insts.extend([Some(c.copy), c.consumer, c.destroy].into_iter().flatten());
        self.values.extend([c.source, c.value]);
    }
}

fn eliminate(f: &mut Function, c: &Candidate) {
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
    for a in f.insts[u].args.iter_mut() {
        if *a == c.value {
            *a = c.source;
        }
    }
    for s in f.insts[u].succs.iter_mut() {
        for a in s.args.iter_mut() {
            if *a == c.value {
                *a = c.source;
            }
        }
    }
    for &b in &f.layout.clone() {
        f.blocks[b].insts.retain(|i| !gone.contains(i));
    }
}

/// Every `copy_value` of `f` with its facts.
pub fn candidates(f: &Function, ft: &FunctionTypes) -> Vec<Candidate> {
    let fo = analyze(f, ft);
    let cx = Cx::new(f);
    let mut operands: HashMap<ValueId, Vec<&OperandInfo>> = HashMap::new();
    for o in &fo.operands {
        operands.entry(o.value).or_default().push(o);
    }
    let mut out = Vec::new();
    for &b in &f.layout {
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            match inst.op {
                Op::Sil(SilOp::CopyValue) => {
                    let (Some(&a), Some(&c)) = (inst.args.first(), inst.results.first()) else { continue };
                    out.push(decide(&cx, &fo, operands.get(&c).map_or(&[][..], |v| v.as_slice()), i, a, c));
                }
                // The same copy after lowering: `copy_addr %src to [init] %tmp` into a stack
                // temporary that is only consumed.
                Op::Sil(SilOp::CopyAddr) if !inst.attrs.iter().any(|a| a == "take") => {
                    if let [src, tmp] = inst.args[..] {
                        if let Some(c) = decide_addr(&cx, i, src, tmp) {
                            out.push(c);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// What the facts ask of one function, computed once: where each instruction is, its line,
/// and the instructions that use each value.
struct Cx<'f> {
    f: &'f Function,
    cfg: Cfg,
    pos: HashMap<InstId, (BlockId, usize)>,
    lines: HashMap<InstId, String>,
    users: HashMap<ValueId, Vec<InstId>>,
}

impl<'f> Cx<'f> {
    fn new(f: &'f Function) -> Cx<'f> {
        let mut pos = HashMap::new();
        let mut users: HashMap<ValueId, Vec<InstId>> = HashMap::new();
        for &b in &f.layout {
            for (k, i) in f.blocks[b].all_insts().enumerate() {
                pos.insert(i, (b, k));
                for v in f.insts[i].uses() {
                    let us = users.entry(v).or_default();
                    if us.last() != Some(&i) {
                        us.push(i);
                    }
                }
            }
        }
        let mut lines = HashMap::new();
        for bl in crate::print::function_lines(f, crate::print::Naming::User).blocks {
            for l in bl.lines {
                if let Some(i) = l.inst() {
                    lines.insert(i, l.text.trim().to_string());
                }
            }
        }
        Cx { f, cfg: Cfg::new(f), pos, lines, users }
    }

    fn uses_of(&self, v: ValueId) -> &[InstId] {
        self.users.get(&v).map_or(&[], |u| u.as_slice())
    }

    fn line_of(&self, i: InstId) -> String {
        self.lines.get(&i).cloned().unwrap_or_default()
    }

    fn where_is(&self, i: InstId) -> Option<(BlockId, usize)> {
        self.pos.get(&i).copied()
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
fn only_reads(cx: &Cx, i: InstId, a: ValueId) -> bool {
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
fn decide_addr(cx: &Cx, copy: InstId, src: ValueId, tmp: ValueId) -> Option<Candidate> {
    let f = cx.f;
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
                between.extend(f.blocks[bc].all_insts().skip(kc + 1).take(ku - kc - 1));
            }
        }
        for &(b, from, to) in p {
            between.extend(f.blocks[b].all_insts().skip(from).take(to - from));
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
            .flat_map(|&(b, from, to)| f.blocks[b].all_insts().skip(from).take(to - from).collect::<Vec<_>>())
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
fn passed_in(cx: &Cx, i: InstId, v: ValueId) -> bool {
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
fn decide(cx: &Cx, fo: &FunctionOwnership, ops: &[&OperandInfo], copy: InstId, a: ValueId, c: ValueId) -> Candidate {
    let f = cx.f;
    let an = f.value_in_code(a);
    let cn = f.value_in_code(c);
    let copy_block = cx.where_is(copy).map(|p| p.0);
    let users: Vec<InstId> = ops.iter().map(|o| o.inst).collect();
    let consuming: Vec<InstId> = ops.iter().filter(|o| o.constraint.ending || passed_in(cx, o.inst, c)).map(|o| o.inst).collect();
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
    let kind = fo.kind(a);
    let lt = fo.lifetime(a);
    let ends: Vec<InstId> = lt.map(|l| l.consuming.clone()).unwrap_or_default();
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
                let insts: Vec<InstId> = f.blocks[b].all_insts().collect();
                for &i in &insts[from..to] {
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
fn path_after(cx: &Cx, u: InstId, d: InstId) -> Option<Vec<(BlockId, usize, usize)>> {
    let (f, cfg) = (cx.f, &cx.cfg);
    let (bu, ku) = cx.where_is(u)?;
    let (bd, kd) = cx.where_is(d)?;
    if bu == bd && kd > ku {
        return Some(vec![(bu, ku + 1, kd)]);
    }
    let len = |b: BlockId| f.blocks[b].all_insts().count();
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
