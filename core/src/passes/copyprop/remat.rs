//! Rematerialisation of the copies that survive: the last step of copy propagation.
//!
//! Why: LCM replaces each computation `v = e` it deletes by `v = id t`, one instruction for
//! one. That only pays when copy propagation then removes the copy, and it cannot when `v` has
//! other definitions and is live around a loop — `float/exponentiation-by-squaring`'s
//! `n = id t` at the end of the loop body, where `t = div n two` is computed in the body and
//! again on the odd path after `n` changed. Every odd iteration then paid the copy on top of
//! the division LCM moved, and the default pipeline ran 194 instructions where the original
//! ran 187. Compilers know the fix as *rematerialisation* (Chaitin; Briggs, Cooper, Torczon,
//! "Rematerialization", PLDI 1992): where a value can be recomputed as cheaply as it can be
//! moved, recompute it. Here a copy and a value operation both cost one executed instruction,
//! so `v = id t` becomes `v = OP a b` whenever that computes the same value:
//!
//! **Held expressions**, a forward must-problem on [`crate::dataflow`] in the shape of
//! available copies (`avail.rs`): a fact `(t, OP, a b, type)` holds at a point when on every
//! path from the entry the last assignment of `t` was `t: type = OP a b` and neither `t`, `a`
//! nor `b` has been assigned since. `OP` is a pure value operation, the kind LCM moves (not
//! `const`, `id`, a call, `load`, `ptradd` or anything with an effect); `t = OP t b` holds no
//! fact, since after it `t` is no longer `OP t b`. Facts are keyed by that tuple, not by the
//! instruction, so the same computation on both arms of a join stays held — LCM's insertion
//! in `.isodd` and its kept computation in the body are one fact at `.cont.3`. Each
//! instruction kills the facts that mention a variable it assigns and a computation generates
//! its own: a gen/kill problem, so the fixpoint from ⊤ is the meet over all paths.
//!
//! A copy `v = id t` still in the program after the rewrite and the deletions, with a fact
//! `(t, OP, a b, type)` held just before it and the copy's own type, becomes `v = OP a b`:
//!
//! - *Same value*: on every path `t` got `OP a b` from the values `a` and `b` still hold.
//! - *No new trap*: on every path `OP a b` was already evaluated with those operands and did
//!   not fail (a `div` by zero had stopped the run there), so evaluating it again cannot fail.
//! - *Same cost here*: one instruction replaces one. The gain comes after: if the copy was the
//!   last reader of `t`, the computation of `t` is dead and DCE, next in the default
//!   pipeline, deletes it. In the example `n = div n two` replaces the copy, LCM's inserted
//!   `t = div n two` in `.isodd` dies, and the loop executes what the original did.
//!
//! The facts come from the program after the rewrite and the deletions; all replacements are
//! decided on them and then applied. A replacement only adds a fact (`v = OP a b` generates
//! `(v, OP, a b)` where the copy generated nothing here) and kills what the copy killed, so
//! every fact used by another replacement still holds. It deletes no copy: the definitions of
//! `t` that reach the copy are all `t = OP a b`, so the use it removes kept no copy alive.
//! Self-copies `x = id x` are no copies (see [`as_copy`]) and stay.

use super::avail::as_copy;
use super::rewrite::reaching;
use super::trace::{apply_event, Event, HeldId, ReplayError};
use crate::cfg::Cfg;
use crate::dataflow::{run, Analysis, Direction, Facts};
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, BrilOp, Effect, Function, Imm, Inst, InstId, Op, Type, ValueId};
use serde::{Deserialize, Serialize};

/// One held expression and the instructions that compute it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// The variable holding it (`t`).
    pub var: ValueId,
    pub op: BrilOp,
    pub args: Vec<ValueId>,
    pub ty: Type,
    /// Every placed `t: ty = OP args`, in layout order.
    pub insts: Vec<InstId>,
}

/// `(t, OP, args, type)` if `inst` is `t: type = OP args` with a pure value operation `OP`
/// that reads at least one variable and not `t` (see the module comment for which).
pub fn as_held(inst: &Inst) -> Option<(ValueId, &BrilOp, &[ValueId], &Type)> {
    let Op::Bril(op) = &inst.op else { return None };
    if matches!(op, BrilOp::Const | BrilOp::Id | BrilOp::Nop | BrilOp::PtrAdd | BrilOp::Load | BrilOp::Other(_)) {
        return None;
    }
    if inst.effect() != Effect::Pure || !inst.funcs.is_empty() || !inst.succs.is_empty() || inst.imm != Imm::None {
        return None;
    }
    let (&[t], ty) = (inst.results.as_slice(), inst.ty.as_ref()?) else { return None };
    if inst.args.is_empty() || inst.args.contains(&t) {
        return None;
    }
    Some((t, op, &inst.args, ty))
}

/// The held-expressions analysis of one function: the table and the per-block facts.
#[derive(Clone, Debug)]
pub struct HeldExprs {
    pub held: EntityVec<HeldId, Held>,
    /// The facts each variable takes part in (as holder or operand): what assigning it kills.
    mentions: EntityVec<ValueId, Vec<HeldId>>,
    /// The facts held in each variable (at a reachable point at most one of them holds).
    by_var: EntityVec<ValueId, Vec<HeldId>>,
    made_by: EntityVec<InstId, Option<HeldId>>,
    pub reachable: EntitySet<BlockId>,
    pub facts: Facts<EntitySet<HeldId>>,
}

struct Problem<'a> {
    a: &'a HeldExprs,
}

impl Analysis for Problem<'_> {
    type Fact = EntitySet<HeldId>;

    fn direction(&self) -> Direction {
        Direction::Forward
    }
    /// ⊤, as for available copies: a must-problem starts optimistic so facts survive loops.
    fn init(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_full(self.a.held.len())
    }
    /// Nothing is held on entry.
    fn boundary(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_empty(self.a.held.len())
    }
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact) {
        into.intersect_with(other);
    }
    /// Kill then gen; an unreachable block yields ⊤ so it cannot weaken a reachable join.
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact {
        if !self.a.reachable.contains(block) {
            return self.init(f);
        }
        let mut s = input.clone();
        for i in f.blocks[block].all_insts() {
            self.a.step(f, &mut s, i);
        }
        s
    }
}

impl HeldExprs {
    /// Collects the held expressions of `f` and solves the problem. `f` must be a verified
    /// Bril function and `cfg` its graph.
    pub fn new(f: &Function, cfg: &Cfg) -> HeldExprs {
        let mut held: EntityVec<HeldId, Held> = EntityVec::new();
        let mut mentions: EntityVec<ValueId, Vec<HeldId>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut by_var: EntityVec<ValueId, Vec<HeldId>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut made_by: EntityVec<InstId, Option<HeldId>> = EntityVec::filled(f.insts.len(), None);
        for (_, i) in f.placed_insts() {
            let Some((t, op, args, ty)) = as_held(&f.insts[i]) else { continue };
            let same = |h: &Held| h.op == *op && h.args == args && h.ty == *ty;
            let h = match by_var[t].iter().copied().find(|&h| same(&held[h])) {
                Some(h) => h,
                None => {
                    let h = held.push(Held { var: t, op: op.clone(), args: args.to_vec(), ty: ty.clone(), insts: Vec::new() });
                    for v in std::iter::once(t).chain(args.iter().copied()) {
                        if !mentions[v].contains(&h) {
                            mentions[v].push(h);
                        }
                    }
                    by_var[t].push(h);
                    h
                }
            };
            held[h].insts.push(i);
            made_by[i] = Some(h);
        }
        let mut reachable = EntitySet::new_empty(f.blocks.len());
        for &b in &f.layout {
            if cfg.is_reachable(b) {
                reachable.insert(b);
            }
        }
        let empty = Facts { ins: EntityVec::new(), outs: EntityVec::new(), rounds: Vec::new() };
        let mut a = HeldExprs { held, mentions, by_var, made_by, reachable, facts: empty };
        a.facts = run(&Problem { a: &a }, f, cfg);
        a
    }

    /// One instruction: each variable it assigns kills the facts mentioning it; a computation
    /// then makes its own fact.
    pub fn step(&self, f: &Function, s: &mut EntitySet<HeldId>, i: InstId) {
        for &r in &f.insts[i].results {
            for &h in &self.mentions[r] {
                s.remove(h);
            }
        }
        if let Some(h) = self.made_by[i] {
            s.insert(h);
        }
    }

    /// The expression held in `t` in `s`, if any.
    pub fn held_in(&self, s: &EntitySet<HeldId>, t: ValueId) -> Option<HeldId> {
        self.by_var.get(t)?.iter().copied().find(|&h| s.contains(h))
    }

    /// The fact instruction `i` makes, if any.
    pub fn made_by(&self, i: InstId) -> Option<HeldId> {
        self.made_by.get(i).copied().flatten()
    }

    /// `OP a b` with the function's names.
    pub fn expr_text(&self, f: &Function, h: HeldId) -> String {
        let h = &self.held[h];
        let mut s = h.op.name().to_string();
        for &a in &h.args {
            s.push(' ');
            s.push_str(f.value_name(a));
        }
        s
    }
}

/// Replaces each copy of `g` that a held expression justifies (module comment) and returns
/// the analysis and the events. `cfg` is the graph of `g`; `first_index` is the number of
/// events before these, for error positions.
pub fn rematerialize(g: &mut Function, cfg: &Cfg, first_index: usize) -> Result<(HeldExprs, Vec<Event>), ReplayError> {
    let a = HeldExprs::new(g, cfg);
    let mut planned = Vec::new();
    for &b in &g.layout {
        if !a.reachable.contains(b) {
            continue;
        }
        let mut s = a.facts.ins[b].clone();
        for (pos, i) in g.blocks[b].all_insts().enumerate() {
            let inst = &g.insts[i];
            if let Some((_, t)) = as_copy(inst) {
                if let Some(h) = a.held_in(&s, t).filter(|&h| inst.ty.as_ref() == Some(&a.held[h].ty)) {
                    planned.push((i, b, pos, h));
                }
            }
            a.step(g, &mut s, i);
        }
    }
    let mut events = Vec::new();
    for (inst, block, pos, h) in planned {
        let x = &a.held[h];
        let touches = |i: InstId| g.insts[i].results.iter().any(|r| *r == x.var || x.args.contains(r));
        let via = reaching(g, cfg, block, pos, touches, |i| a.made_by(i) == Some(h));
        let e = Event::Rematerialize { inst, block, held: h, from: x.var, op: x.op.clone(), args: x.args.clone(), via };
        apply_event(g, first_index + events.len(), &e)?;
        events.push(e);
    }
    Ok((a, events))
}
