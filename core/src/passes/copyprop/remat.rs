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
//! **Held expressions**, the analysis of `holds.rs` (the one behind available copies): a fact
//! `(t, OP, a b, type)` holds at a point when on every path from the entry the last assignment
//! of `t` was `t: type = OP a b` and neither `t`, `a` nor `b` has been assigned since. `OP` is
//! a pure value operation, the kind LCM moves (not `const`, `id`, a call, `load`, `ptradd` or
//! anything with an effect); `t = OP t b` holds no fact, since after it `t` is no longer
//! `OP t b`. Facts are keyed by that tuple, not by the instruction, so the same computation on
//! both arms of a join stays held — LCM's insertion in `.isodd` and its kept computation in
//! the body are one fact at `.cont.3`.
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
use super::holds::{Holding, Holds};
use crate::cfg::Cfg;
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BrilOp, Effect, Function, Imm, Inst, InstId, Op, Type, ValueId};
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

impl Holding for Held {
    type Id = HeldId;

    fn of(inst: &Inst) -> Option<Held> {
        let (var, op, args, ty) = as_held(inst)?;
        Some(Held { var, op: op.clone(), args: args.to_vec(), ty: ty.clone(), insts: Vec::new() })
    }
    fn holder(&self) -> ValueId {
        self.var
    }
    fn reads(&self) -> &[ValueId] {
        &self.args
    }
    fn same(&self, other: &Held) -> bool {
        (self.var, &self.op, &self.args, &self.ty) == (other.var, &other.op, &other.args, &other.ty)
    }
    fn hash_key<H: std::hash::Hasher>(&self, h: &mut H) {
        std::hash::Hash::hash(&(self.var, &self.op, &self.args, &self.ty), h);
    }
    fn insts_mut(&mut self) -> &mut Vec<InstId> {
        &mut self.insts
    }
    fn insts(&self) -> &[InstId] {
        &self.insts
    }
}

/// The held-expressions analysis of one function: the table (`table`) and the per-block facts.
pub type HeldExprs = Holds<Held>;

impl HeldExprs {
    /// `OP a b` with the function's names.
    pub fn expr_text(&self, f: &Function, h: HeldId) -> String {
        expr_text(f, &self.table[h])
    }
}

/// Every held expression of a function, in order of first appearance: the ids the trace and
/// the rematerialisation events use.
pub type HeldTable = EntityVec<HeldId, Held>;

/// `OP a b` of one held expression with the function's names.
pub(crate) fn expr_text(f: &Function, h: &Held) -> String {
    let mut s = h.op.name().to_string();
    for &a in &h.args {
        s.push(' ');
        s.push_str(f.value_name(a));
    }
    s
}

/// Replaces each copy of `g` that a held expression justifies (module comment) and returns
/// the analysis, every held expression of `g` and the events. `cfg` is the graph of `g`;
/// `first_index` is the number of events before these, for error positions.
///
/// The analysis solves only the facts held in a variable some copy reads — no other can
/// justify a replacement — so its ids are its own; the events name held expressions by
/// their id in the second table (every computation, in order of first appearance), which is
/// what the trace lists.
pub fn rematerialize(g: &mut Function, cfg: &Cfg, first_index: usize) -> Result<(HeldExprs, HeldTable, Vec<Event>), ReplayError> {
    let all = HeldExprs::collect(g, cfg, |_| true);
    let mut read_by_copy: EntitySet<ValueId> = EntitySet::new_empty(g.values.len());
    for (_, i) in g.placed_insts() {
        if let Some((_, t)) = as_copy(&g.insts[i]) {
            read_by_copy.insert(t);
        }
    }
    let a = all.restricted(g, cfg, |h| read_by_copy.contains(h.var));
    let mut planned = Vec::new();
    let mut point = a.point();
    for &b in &g.layout {
        if !a.reachable.contains(b) {
            continue;
        }
        let mut pos = 0;
        a.walk_with(&mut point, g, b, |i, s| {
            let inst = &g.insts[i];
            if let Some((_, t)) = as_copy(inst) {
                if let Some(h) = a.held_in(s, t).filter(|&h| inst.ty.as_ref() == Some(&a.table[h].ty)) {
                    planned.push((i, b, pos, h));
                }
            }
            pos += 1;
        });
    }
    let mut events = Vec::new();
    let mut seen = super::rewrite::Seen::new(g);
    for (inst, block, pos, h) in planned {
        let x = &a.table[h];
        let touches = |i: InstId| g.insts[i].results.iter().any(|r| *r == x.var || x.args.contains(r));
        let via = reaching(g, cfg, &mut seen, block, pos, touches, |i| a.made_by(i) == Some(h));
        // The same fact in the table of every computation (made by the same instructions).
        let held = x.insts.first().and_then(|&i| all.made_by(i)).unwrap_or(h);
        let e = Event::Rematerialize { inst, block, held, from: x.var, op: x.op.clone(), args: x.args.clone(), via };
        apply_event(g, first_index + events.len(), &e)?;
        events.push(e);
    }
    Ok((a, all.table, events))
}
