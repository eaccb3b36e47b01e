//! Steps 3–6 of seed 004: down-safety, up-safety, earliest, delayed and latest, for all
//! expressions at once. Each predicate is a bit vector (`EntitySet<ExprId>`) per block; the
//! equations are those of `docs/lcm-equations.md`, applied bitwise.
//!
//! The three recursive pairs are greatest fixpoints (the seed's initial value is true),
//! solved by [`crate::dataflow::iterate`] over the reachable blocks — postorder for the
//! backward down-safety, reverse postorder for the forward up-safety and delay — with every
//! round recorded. Unreachable blocks keep all-false global predicates (see `graph.rs`).

use super::exprs::{ExprId, Local};
use super::graph::Graph;
pub use super::pred::Pred;
use super::regions::Regional;
use crate::dataflow;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use std::borrow::Cow;
use crate::ir::BlockId;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One predicate's value: a bit vector over the expressions for every block.
pub type PerBlock = EntityVec<BlockId, EntitySet<ExprId>>;

/// All thirteen predicates of a function, indexed by [`Pred`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Predicates {
    /// `sets[p as usize]` is predicate `p`, in [`Pred::ALL`] order. Shared with the trace's
    /// steps ([`super::PredValues`]), which show the same vectors. Empty vectors (no block)
    /// when the function was solved per region (`regional`).
    pub sets: Vec<Arc<PerBlock>>,
    /// The per-region solution of a function too large for a vector over all expressions
    /// per block (`regions.rs`); [`Predicates::holds`] answers from it.
    #[serde(skip)]
    pub regional: Option<Arc<Regional>>,
}

impl Predicates {
    /// The dense vectors of `p` (no block at all for a per-region solution: use
    /// [`holds`](Self::holds) or [`lists`](Self::lists)).
    pub fn get(&self, p: Pred) -> &PerBlock {
        &self.sets[p as usize]
    }

    /// Whether predicate `p` holds for expression `e` in block `b` (false for unknown ids).
    pub fn holds(&self, p: Pred, b: BlockId, e: ExprId) -> bool {
        match &self.regional {
            Some(r) => r.holds(p, b, e),
            None => self.sets[p as usize].get(b).is_some_and(|s| s.contains(e)),
        }
    }

    /// Per block, the expressions for which `p` holds, sorted — for the predicates step 7
    /// reads (`NComp`, `XComp`, `NLatest`, `XLatest`), without a dense vector per block when
    /// the solution is per region.
    pub fn lists(&self, p: Pred) -> Cow<'_, EntityVec<BlockId, Vec<ExprId>>> {
        if let Some(r) = &self.regional {
            match p {
                Pred::NComp => return Cow::Borrowed(r.ncomp()),
                Pred::XComp => return Cow::Borrowed(r.xcomp()),
                Pred::NLatest => return Cow::Borrowed(&r.nlatest),
                Pred::XLatest => return Cow::Borrowed(&r.xlatest),
                _ => {}
            }
        }
        Cow::Owned(match &self.regional {
            Some(r) => (0..r.num_blocks())
                .map(|b| (0..r.num_exprs()).map(ExprId::new).filter(|&e| r.holds(p, BlockId::new(b), e)).collect())
                .collect(),
            None => self.get(p).values().map(|s| s.iter().collect()).collect(),
        })
    }
}

/// One bit vector changing during a fixpoint round: the bits that flipped, not the old and
/// new vectors (a diff is half the size, and the values before and after follow from the
/// fixpoint's start by applying the changes in order — see `replay.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BitChange {
    pub block: BlockId,
    pub pred: Pred,
    /// The expressions whose bit changed (never empty).
    pub flipped: EntitySet<ExprId>,
}

impl BitChange {
    /// The change from `old` to `new` in `block` (`None` if they are equal).
    pub fn between(block: BlockId, pred: Pred, old: &EntitySet<ExprId>, new: &EntitySet<ExprId>) -> Option<BitChange> {
        old.xor_of(new).map(|flipped| BitChange { block, pred, flipped })
    }

    /// Whether this change flips expression `e` (what the one-expression view shows).
    pub fn flips(&self, e: ExprId) -> bool {
        self.flipped.contains(e)
    }

    /// The vector after this change, given the vector before it.
    pub fn apply(&self, old: &mut EntitySet<ExprId>) {
        for e in self.flipped.iter() {
            old.toggle(e);
        }
    }
}

/// A greatest-fixpoint step: the visit order, and each round's changes (the last round is
/// the one that changed nothing and proved the fixpoint).
///
/// Round 1's changes are not stored (`rounds[0]` is empty and `first_round_implied` set):
/// starting from all true, round 1 clears almost every block's vector, so its changes would
/// be the biggest part of the trace, and they follow from what is stored — the values after
/// round 1 are the fixpoint's (the step's `values`) with the later rounds' flips undone.
/// [`Fixpoint::round`] gives any round's changes, round 1's rebuilt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fixpoint {
    pub order: Vec<BlockId>,
    pub rounds: Vec<Vec<BitChange>>,
    #[serde(default)]
    pub first_round_implied: bool,
    /// Solved per region of the dominator tree (`regions.rs`), each region to its own
    /// fixpoint: there are no rounds of the whole function to record, so `order` and
    /// `rounds` are empty and the step's values come from [`Predicates::holds`].
    #[serde(default)]
    pub per_region: bool,
}

impl Fixpoint {
    /// The record of a fixpoint solved per region (see [`Fixpoint::per_region`]).
    pub fn per_region() -> Fixpoint {
        Fixpoint { order: Vec::new(), rounds: Vec::new(), first_round_implied: false, per_region: true }
    }
}

impl Fixpoint {
    /// The changes of round `r` (0-based) in the order they were made; `values` are the
    /// step's final values of its two predicates (entry form first), from which round 1 is
    /// rebuilt when it is implied.
    pub fn round(&self, r: usize, values: &[super::PredValues]) -> std::borrow::Cow<'_, [BitChange]> {
        use std::borrow::Cow;
        let stored = self.rounds.get(r).map_or(&[][..], Vec::as_slice);
        if r != 0 || !self.first_round_implied {
            return Cow::Borrowed(stored);
        }
        // The values after round 1: the fixpoint with every later flip undone (a flip is its
        // own inverse, so the order does not matter).
        let mut after: Vec<(Pred, PerBlock)> = values.iter().map(|pv| (pv.pred, (*pv.blocks).clone())).collect();
        for c in self.rounds.iter().skip(1).flatten() {
            if let Some((_, v)) = after.iter_mut().find(|(p, _)| *p == c.pred) {
                if let Some(set) = v.get_mut(c.block) {
                    c.apply(set);
                }
            }
        }
        // Round 1 started from all true on the visited blocks and changed what it cleared,
        // block by block in visiting order, the entry form before the exit form.
        let mut changes = Vec::new();
        for &b in &self.order {
            for (p, v) in &after {
                let Some(set) = v.get(b) else { continue };
                let full = EntitySet::new_full(set.capacity());
                changes.extend(BitChange::between(b, *p, &full, set));
            }
        }
        Cow::Owned(changes)
    }

    /// The `(block, predicate)` vectors round `r` changed, in the order of
    /// [`round`](Self::round), without the flipped bits: what a step's sentence names.
    ///
    /// Why not `round(r)` itself: for the implied round 1 that clones both predicates' vectors
    /// and builds a change with a bit set for nearly every block (at 10^5 blocks a tenth of a
    /// pipeline's time went there for a sentence naming eight blocks). Here only the blocks a
    /// later round flipped are copied; every other block's vector after round 1 is its final
    /// one, which changed in round 1 exactly when it is not full.
    pub fn changed_blocks(&self, r: usize, values: &[super::PredValues]) -> Vec<(BlockId, Pred)> {
        if r != 0 || !self.first_round_implied {
            let stored = self.rounds.get(r).map_or(&[][..], Vec::as_slice);
            return stored.iter().map(|c| (c.block, c.pred)).collect();
        }
        // The vectors after round 1 of the blocks a later round flipped (the others are final),
        // sorted by (block, predicate) for the lookups below.
        let mut later: Vec<(BlockId, usize, &BitChange)> =
            self.rounds.iter().skip(1).flatten().map(|c| (c.block, c.pred as usize, c)).collect();
        later.sort_by_key(|&(b, p, _)| (b, p));
        let mut undone: Vec<(Pred, BlockId, EntitySet<ExprId>)> = Vec::new();
        for (k, &(b, _, c)) in later.iter().enumerate() {
            let Some(pv) = values.iter().find(|pv| pv.pred == c.pred) else { continue };
            let Some(set) = pv.blocks.get(b) else { continue };
            if k == 0 || (later[k - 1].0, later[k - 1].1) != (b, c.pred as usize) {
                undone.push((c.pred, b, set.clone()));
            }
            if let Some((_, _, s)) = undone.last_mut() {
                c.apply(s);
            }
        }
        let mut changed = Vec::new();
        for &b in &self.order {
            for pv in values {
                let Some(fin) = pv.blocks.get(b) else { continue };
                let after = undone
                    .binary_search_by_key(&(b, pv.pred as usize), |(p, bb, _)| (*bb, *p as usize))
                    .map_or(fin, |k| &undone[k].2);
                if after.count() != after.capacity() {
                    changed.push((b, pv.pred));
                }
            }
        }
        changed
    }
}

/// The per-block value iterated for one node-form pair: entry (`N…`) and exit (`X…`) bits.
#[derive(Clone, Debug, PartialEq)]
struct Pair {
    n: EntitySet<ExprId>,
    x: EntitySet<ExprId>,
}

/// Everything steps 3–6 compute.
pub struct Global {
    pub preds: Predicates,
    pub dsafe: Fixpoint,
    pub usafe: Fixpoint,
    pub delayed: Fixpoint,
    /// False if some fixpoint hit its round limit (impossible for these monotone equations;
    /// reported as an internal error rather than trusted).
    pub converged: bool,
}

fn solve_pair(
    g: &Graph,
    order: Vec<BlockId>,
    n_exprs: usize,
    names: (Pred, Pred),
    update: impl FnMut(BlockId, &EntityVec<BlockId, Pair>, &mut Pair),
) -> (PerBlock, PerBlock, Fixpoint, bool) {
    let nb = g.num_blocks();
    let empty = EntitySet::new_empty(n_exprs);
    let full = EntitySet::new_full(n_exprs);
    // The greatest fixpoint starts true on the blocks it visits (the reachable ones, in
    // either order) and false elsewhere; each value is allocated once.
    let mut visited = EntitySet::new_empty(nb);
    for &b in &order {
        visited.insert(b);
    }
    let mut values: EntityVec<BlockId, Pair> = (0..nb)
        .map(|b| {
            let start = if visited.contains(BlockId(b as u32)) { &full } else { &empty };
            Pair { n: start.clone(), x: start.clone() }
        })
        .collect();
    // Each round but the last clears at least one of the 2·|order|·|exprs| bits.
    let max_rounds = 2usize.saturating_mul(order.len()).saturating_mul(n_exprs.max(1)).saturating_add(2);
    // The trace keeps the bits each change flipped; nothing else is copied per visit.
    let mut rounds: Vec<Vec<BitChange>> = Vec::new();
    let scratch = Pair { n: empty.clone(), x: empty };
    let it = dataflow::iterate(&order, &mut values, scratch, max_rounds, update, |r, block, old, new| {
        if rounds.len() <= r {
            rounds.resize_with(r + 1, Vec::new);
        }
        // Round 1 is implied by the fixpoint and the later rounds (see `Fixpoint`): not
        // even computed, since it flips almost every bit of every block.
        if r > 0 || record_first_round() {
            rounds[r].extend(BitChange::between(block, names.0, &old.n, &new.n));
            rounds[r].extend(BitChange::between(block, names.1, &old.x, &new.x));
        }
    });
    rounds.resize_with(it.rounds, Vec::new);
    let (mut ns, mut xs) = (EntityVec::with_capacity(nb), EntityVec::with_capacity(nb));
    for p in values.into_values() {
        ns.push(p.n);
        xs.push(p.x);
    }
    let first_round_implied = !rounds.is_empty() && !record_first_round();
    (ns, xs, Fixpoint { order, rounds, first_round_implied, per_region: false }, it.converged)
}

#[cfg(test)]
thread_local! {
    /// Tests only: record round 1 too, to check [`Fixpoint::round`]'s rebuild against it.
    pub(super) static RECORD_FIRST_ROUND: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn record_first_round() -> bool {
    #[cfg(test)]
    {
        RECORD_FIRST_ROUND.with(|c| c.get())
    }
    #[cfg(not(test))]
    {
        false
    }
}

/// `out = ∩ sets(m)` over `ms` (at least one), in place; the first two sets in one pass.
fn meet_into<'a>(out: &mut EntitySet<ExprId>, ms: &[BlockId], mut set: impl FnMut(BlockId) -> &'a EntitySet<ExprId>) {
    match ms {
        [] => panic!("meet over at least one block"),
        [only] => out.clone_from(set(*only)),
        [first, second, rest @ ..] => {
            out.assign_with(set(*first), set(*second), |a, b| a & b);
            for &m in rest {
                out.intersect_with(set(m));
            }
        }
    }
}

/// A predicate computed block by block without iteration (earliest, latest): `compute(b,
/// out)` fills the vector of every reachable block, the others stay empty. Each vector is
/// allocated once and written once (not cloned from an empty one and then overwritten).
fn per_block(g: &Graph, empty: &EntitySet<ExprId>, mut compute: impl FnMut(BlockId, &mut EntitySet<ExprId>)) -> PerBlock {
    (0..g.num_blocks())
        .map(|b| {
            let b = BlockId::new(b);
            let mut set = empty.clone();
            if g.reachable.contains(b) {
                compute(b, &mut set);
            }
            set
        })
        .collect()
}

/// Steps 3–6 on the reachable part of `g` given step 2's local predicates. Every bit
/// vector is computed in place (no set is allocated per block visit), each equation in as
/// few passes over the words as it has operands allow (`assign_with`, `assign_with3`); the
/// equations are rewritten with `−` (and-not) where they negate, which the comments spell
/// out.
pub fn compute_global(g: &Graph, local: &Local, n_exprs: usize) -> Global {
    let empty = EntitySet::new_empty(n_exprs);
    let is_start = |b: BlockId| Some(b) == g.entry;
    let Local { ncomp, xcomp, transp } = local;

    // Step 3: down-safety, backward.
    //   NdSafe(B) = NComp(B) ∨ (Transp(B) ∧ XdSafe(B))
    //   XdSafe(B) = XComp(B) ∨ (succ(B) ≠ ∅ ∧ ∀S ∈ succ(B): NdSafe(S))
    let mut through = empty.clone();
    let (nd, xd, dsafe, c1) = solve_pair(g, g.postorder(), n_exprs, (Pred::NdSafe, Pred::XdSafe), |b, v, out| {
        if g.reaches_exit.contains(b) && !g.succs[b].is_empty() {
            meet_into(&mut through, &g.succs[b], |s| &v[s].n);
            out.x.assign_with(&xcomp[b], &through, |c, t| c | t);
        } else {
            out.x.clone_from(&xcomp[b]);
        }
        out.n.assign_with3(&ncomp[b], &transp[b], &out.x, |c, t, x| c | (t & x));
    });

    // Step 3': up-safety, forward.
    //   NuSafe(B) = B ≠ s ∧ ∀P ∈ pred(B): XuSafe(P)
    //   XuSafe(B) = XComp(B) ∨ (Transp(B) ∧ (NComp(B) ∨ NuSafe(B)))
    let (nu, xu, usafe, c2) = solve_pair(g, g.rpo.clone(), n_exprs, (Pred::NuSafe, Pred::XuSafe), |b, v, out| {
        if is_start(b) {
            out.n.clear();
        } else if g.preds[b].is_empty() {
            out.n.insert_all();
        } else {
            meet_into(&mut out.n, &g.preds[b], |p| &v[p].x);
        }
        out.x.assign_with3(&ncomp[b], &transp[b], &out.n, |c, t, n| t & (c | n));
        out.x.union_with(&xcomp[b]);
    });

    // Step 4: earliest, no iteration.
    //   NEarliest(B) = NdSafe(B) ∧ (B = s ∨ ∃P ∈ pred(B): ¬(XuSafe(P) ∨ XdSafe(P)))
    //   XEarliest(B) = XdSafe(B) ∧ (¬Transp(B) ∨ (¬NdSafe(B) ∧ ¬NuSafe(B)))
    //                = XdSafe(B) − (Transp(B) ∧ (NdSafe(B) ∨ NuSafe(B)))
    let mut acc = empty.clone();
    let ne = per_block(g, &empty, |b, out| {
        if is_start(b) {
            out.clone_from(&nd[b]);
        } else {
            acc.clear();
            for &p in &g.preds[b] {
                acc.update_with2(&xu[p], &xd[p], |a, u, d| a | !(u | d));
            }
            out.assign_with(&nd[b], &acc, |d, a| d & a);
        }
    });
    let mut kept = empty.clone();
    let xe = per_block(g, &empty, |b, out| {
        kept.assign_with3(&nd[b], &nu[b], &transp[b], |d, u, t| t & (d | u));
        out.assign_with(&xd[b], &kept, |x, k| x & !k);
    });

    // Step 5: delayed, forward.
    //   NDelayed(B) = NEarliest(B) ∨ (B ≠ s ∧ ∀P ∈ pred(B): XDelayed(P) ∧ ¬XComp(P))
    //   XDelayed(B) = XEarliest(B) ∨ (NDelayed(B) ∧ ¬NComp(B))
    let (ndl, xdl, delayed, c3) = solve_pair(g, g.rpo.clone(), n_exprs, (Pred::NDelayed, Pred::XDelayed), |b, v, out| {
        match (is_start(b), &g.preds[b][..]) {
            (true, _) => out.n.clear(),
            // ∀ over no P holds.
            (false, []) => out.n.insert_all(),
            // ∩ (XDelayed(P) − XComp(P)), the first term assigned rather than met with ⊤.
            (false, [first, rest @ ..]) => {
                out.n.assign_with(&v[*first].x, &xcomp[*first], |x, c| x & !c);
                for &p in rest {
                    out.n.update_with2(&v[p].x, &xcomp[p], |n, x, c| n & x & !c);
                }
            }
        }
        out.n.union_with(&ne[b]);
        out.x.assign_with3(&out.n, &ncomp[b], &xe[b], |n, c, e| (n & !c) | e);
    });

    // Step 6: latest, no iteration.
    //   NLatest(B) = NDelayed(B) ∧ (NComp(B) ∨ ¬XDelayed(B))
    //   XLatest(B) = XDelayed(B) ∧ (XComp(B) ∨ ∃S ∈ succ(B): ¬NDelayed(S))
    let nl = per_block(g, &empty, |b, out| out.assign_with3(&ndl[b], &ncomp[b], &xdl[b], |d, c, x| d & (c | !x)));
    let xl = per_block(g, &empty, |b, out| {
        acc.clone_from(&xcomp[b]);
        for &s in &g.succs[b] {
            acc.update_with(&ndl[s], |a, d| a | !d);
        }
        out.assign_with(&xdl[b], &acc, |x, a| x & a);
    });

    let sets = [ncomp.clone(), xcomp.clone(), transp.clone(), nd, xd, nu, xu, ne, xe, ndl, xdl, nl, xl].into_iter().map(Arc::new).collect();
    Global { preds: Predicates { sets, regional: None }, dsafe, usafe, delayed, converged: c1 && c2 && c3 }
}

#[cfg(test)]
mod oracle;
