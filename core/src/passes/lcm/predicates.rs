//! Steps 3–6 of seed 004: down-safety, up-safety, earliest, delayed and latest, for all
//! expressions at once. Each predicate is a bit vector (`EntitySet<ExprId>`) per block; the
//! equations are those of `docs/lcm-equations.md`, applied bitwise — while solving, to rows
//! of words of one vector per step, which become the per-block sets at the end.
//!
//! The three recursive pairs are greatest fixpoints (the seed's initial value is true),
//! solved by [`crate::dataflow::iterate_rows`] over the reachable blocks — postorder for the
//! backward down-safety, reverse postorder for the forward up-safety and delay — with every
//! round recorded; after round 1 only the blocks a neighbour's change reaches are evaluated
//! again (the rounds are round-robin's all the same). Unreachable blocks keep all-false
//! global predicates (see `graph.rs`).

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

/// Bit rows of `w` words per block in one flat vector (`w = ⌈|exprs| / 64⌉`): the layout the
/// predicates are solved in, before each block's vector becomes an `EntitySet` of its own.
/// The bits past the last expression stay zero (`full` masks what a negation sets there).
struct Rows<'a> {
    w: usize,
    full: &'a [u64],
}

impl Rows<'_> {
    /// Block `b`'s entry-predicate words in a table of node-form pairs (each block's `2w`
    /// words: the entry predicate's, then the exit's).
    #[inline]
    fn n<'t>(&self, table: &'t [u64], b: BlockId) -> &'t [u64] {
        &table[b.index() * 2 * self.w..][..self.w]
    }
    /// Block `b`'s exit-predicate words in a table of node-form pairs.
    #[inline]
    fn x<'t>(&self, table: &'t [u64], b: BlockId) -> &'t [u64] {
        &table[b.index() * 2 * self.w + self.w..][..self.w]
    }
    /// One predicate of a table of node-form pairs (`offset` 0: the entry predicate, `w`:
    /// the exit one) as one set per block, for `nb` blocks: an allocation each, which is
    /// what [`PerBlock`] is.
    fn to_sets(&self, n_exprs: usize, nb: usize, table: &[u64], offset: usize) -> PerBlock {
        (0..nb).map(|b| EntitySet::from_words(n_exprs, &table[b * 2 * self.w + offset..][..self.w])).collect()
    }
}

/// One node-form pair solved to its greatest fixpoint with [`dataflow::iterate_rows`]: each
/// block's row is its entry predicate's `w` words then its exit predicate's, starting all
/// true on the visited blocks and all false on the others. `update(b, table, n, x)` writes
/// block `b`'s new rows.
fn solve_pair<'d>(
    g: &Graph,
    rows: &Rows,
    order: Vec<BlockId>,
    n_exprs: usize,
    names: (Pred, Pred),
    dependents: impl Fn(BlockId) -> &'d [BlockId],
    mut update: impl FnMut(BlockId, &[u64], &mut [u64], &mut [u64]),
) -> (Vec<u64>, Fixpoint, bool) {
    let (w, nb) = (rows.w, g.num_blocks());
    let stride = 2 * w;
    let mut table = vec![0u64; nb * stride];
    for &b in &order {
        let row = &mut table[b.index() * stride..][..stride];
        row[..w].copy_from_slice(rows.full);
        row[w..].copy_from_slice(rows.full);
    }
    // Each round but the last clears at least one of the 2·|order|·|exprs| bits.
    let max_rounds = 2usize.saturating_mul(order.len()).saturating_mul(n_exprs.max(1)).saturating_add(2);
    // The trace keeps the bits each change flipped (the rows' xor); nothing else is copied.
    let record_first = record_first_round();
    let mut rounds: Vec<Vec<BitChange>> = Vec::new();
    let it = dataflow::iterate_rows(
        &order,
        &mut table,
        stride,
        max_rounds,
        dependents,
        |b, t, out| {
            let (n, x) = out.split_at_mut(w);
            update(b, t, n, x);
        },
        |r, block, old, new| {
            if rounds.len() <= r {
                rounds.resize_with(r + 1, Vec::new);
            }
            // Round 1 is implied by the fixpoint and the later rounds (see `Fixpoint`): not
            // even computed, since it flips almost every bit of every block.
            if r > 0 || record_first {
                let (on, ox) = old.split_at(w);
                let (nn, nx) = new.split_at(w);
                let change = |pred, a, b| EntitySet::from_xor(n_exprs, a, b).map(|flipped| BitChange { block, pred, flipped });
                rounds[r].extend(change(names.0, on, nn));
                rounds[r].extend(change(names.1, ox, nx));
            }
        },
    );
    rounds.resize_with(it.rounds, Vec::new);
    let first_round_implied = !rounds.is_empty() && !record_first;
    (table, Fixpoint { order, rounds, first_round_implied, per_region: false }, it.converged)
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

/// `out[k] = ∧ row(m)[k]` over `ms` (at least one).
#[inline]
fn meet_rows<'a>(out: &mut [u64], ms: &[BlockId], mut row: impl FnMut(BlockId) -> &'a [u64]) {
    let (first, rest) = ms.split_first().expect("meet over at least one block");
    out.copy_from_slice(row(*first));
    for &m in rest {
        for (o, &v) in out.iter_mut().zip(row(m)) {
            *o &= v;
        }
    }
}

/// Steps 3–6 on the reachable part of `g` given step 2's local predicates, for all
/// expressions at once: each equation is a loop over the words of a block's row (bit rows of
/// all blocks in one vector, see [`Rows`]), the local predicates read from their sets'
/// words; only the results become a set per block. The equations are rewritten with `−`
/// (and-not) where they negate, which the comments spell out.
pub fn compute_global(g: &Graph, local: &Local, n_exprs: usize) -> Global {
    let full_set = EntitySet::<ExprId>::new_full(n_exprs);
    let rows = Rows { w: full_set.words().len(), full: full_set.words() };
    let (w, nb) = (rows.w, g.num_blocks());
    let is_start = |b: BlockId| Some(b) == g.entry;
    let Local { ncomp, xcomp, transp } = local;
    // The local predicates copied into one flat table, each block's three rows side by side:
    // read from their own sets, every visit of every round followed three pointers to three
    // separate allocations, and at 10^5 blocks that was a third of the step's time (147 → 95
    // ms with this copy, made once; 12 MB more at the peak).
    let mut loc = vec![0u64; nb * 3 * w];
    // (No expression: no words, and no rows to fill.)
    for (b, row) in loc.chunks_exact_mut(3 * w.max(1)).enumerate() {
        let b = BlockId::new(b);
        for (part, sets) in row.chunks_exact_mut(w).zip([ncomp, xcomp, transp]) {
            if let Some(set) = sets.get(b) {
                part.copy_from_slice(set.words());
            }
        }
    }
    let loc = &loc;
    let local_row = move |b: BlockId, k: usize| &loc[(b.index() * 3 + k) * w..][..w];
    let (nc, xc, tr) = (move |b| local_row(b, 0), move |b| local_row(b, 1), move |b| local_row(b, 2));

    // Step 3: down-safety, backward.
    //   NdSafe(B) = NComp(B) ∨ (Transp(B) ∧ XdSafe(B))
    //   XdSafe(B) = XComp(B) ∨ (succ(B) ≠ ∅ ∧ ∀S ∈ succ(B): NdSafe(S))
    let (dsafe_rows, dsafe, c1) = solve_pair(g, &rows, g.postorder(), n_exprs, (Pred::NdSafe, Pred::XdSafe), |b| &g.preds[b], |b, t, n, x| {
        let (ncb, xcb, trb) = (nc(b), xc(b), tr(b));
        if g.reaches_exit.contains(b) && !g.succs[b].is_empty() {
            meet_rows(x, &g.succs[b], |s| rows.n(t, s));
            for (x, &c) in x.iter_mut().zip(xcb) {
                *x |= c;
            }
        } else {
            x.copy_from_slice(xcb);
        }
        for (((n, &x), &c), &t) in n.iter_mut().zip(&*x).zip(ncb).zip(trb) {
            *n = c | (t & x);
        }
    });

    // Step 3': up-safety, forward.
    //   NuSafe(B) = B ≠ s ∧ ∀P ∈ pred(B): XuSafe(P)
    //   XuSafe(B) = XComp(B) ∨ (Transp(B) ∧ (NComp(B) ∨ NuSafe(B)))
    let (usafe_rows, usafe, c2) = solve_pair(g, &rows, g.rpo.clone(), n_exprs, (Pred::NuSafe, Pred::XuSafe), |b| &g.succs[b], |b, t, n, x| {
        if is_start(b) {
            n.fill(0);
        } else if g.preds[b].is_empty() {
            n.copy_from_slice(rows.full);
        } else {
            meet_rows(n, &g.preds[b], |p| rows.x(t, p));
        }
        for ((((x, &n), &c), &t), &xc) in x.iter_mut().zip(&*n).zip(nc(b)).zip(tr(b)).zip(xc(b)) {
            *x = xc | (t & (c | n));
        }
    });

    // Step 4: earliest, no iteration (reachable blocks; the others stay false).
    //   NEarliest(B) = NdSafe(B) ∧ (B = s ∨ ∃P ∈ pred(B): ¬(XuSafe(P) ∨ XdSafe(P)))
    //   XEarliest(B) = XdSafe(B) ∧ (¬Transp(B) ∨ (¬NdSafe(B) ∧ ¬NuSafe(B)))
    //                = XdSafe(B) − (Transp(B) ∧ (NdSafe(B) ∨ NuSafe(B)))
    // Each block's row is `NEarliest` then `XEarliest`, as in the fixpoints' tables.
    let mut earliest = vec![0u64; nb * 2 * w];
    for &b in &g.rpo {
        let (nd, xd, nu) = (rows.n(&dsafe_rows, b), rows.x(&dsafe_rows, b), rows.n(&usafe_rows, b));
        let (ne, xe) = earliest[b.index() * 2 * w..][..2 * w].split_at_mut(w);
        if is_start(b) {
            ne.copy_from_slice(nd);
        } else {
            ne.fill(0);
            for &p in &g.preds[b] {
                for ((e, &u), &d) in ne.iter_mut().zip(rows.x(&usafe_rows, p)).zip(rows.x(&dsafe_rows, p)) {
                    *e |= !(u | d);
                }
            }
            for (e, &d) in ne.iter_mut().zip(nd) {
                *e &= d;
            }
        }
        for ((((e, &xd), &nd), &nu), &t) in xe.iter_mut().zip(xd).zip(nd).zip(nu).zip(tr(b)) {
            *e = xd & !(t & (nd | nu));
        }
    }

    // The predicates' table, in `Pred::ALL` order: the local predicates shared with `local`
    // (not copied: an allocation per block each), then each table of rows turned into sets
    // and dropped as soon as no later step reads it, so that the rows and the sets of a
    // predicate are not all alive at once.
    let mut sets: Vec<Arc<PerBlock>> = [ncomp, xcomp, transp].into_iter().cloned().collect();
    let mut keep = |table: Vec<u64>| {
        sets.push(Arc::new(rows.to_sets(n_exprs, nb, &table, 0)));
        sets.push(Arc::new(rows.to_sets(n_exprs, nb, &table, w)));
    };
    keep(dsafe_rows);
    keep(usafe_rows);

    // Step 5: delayed, forward.
    //   NDelayed(B) = NEarliest(B) ∨ (B ≠ s ∧ ∀P ∈ pred(B): XDelayed(P) ∧ ¬XComp(P))
    //   XDelayed(B) = XEarliest(B) ∨ (NDelayed(B) ∧ ¬NComp(B))
    let (delayed_rows, delayed, c3) = solve_pair(g, &rows, g.rpo.clone(), n_exprs, (Pred::NDelayed, Pred::XDelayed), |b| &g.succs[b], |b, t, n, x| {
        match (is_start(b), &g.preds[b][..]) {
            (true, _) => n.fill(0),
            // ∀ over no P holds.
            (false, []) => n.copy_from_slice(rows.full),
            (false, [first, rest @ ..]) => {
                for ((n, &d), &c) in n.iter_mut().zip(rows.x(t, *first)).zip(xc(*first)) {
                    *n = d & !c;
                }
                for &p in rest {
                    for ((n, &d), &c) in n.iter_mut().zip(rows.x(t, p)).zip(xc(p)) {
                        *n &= d & !c;
                    }
                }
            }
        }
        let (ne, xe) = (rows.n(&earliest, b), rows.x(&earliest, b));
        for ((((x, n), &e), &c), &xe) in x.iter_mut().zip(n.iter_mut()).zip(ne).zip(nc(b)).zip(xe) {
            *n |= e;
            *x = xe | (*n & !c);
        }
    });

    keep(earliest);

    // Step 6: latest, no iteration (reachable blocks; the others stay false).
    //   NLatest(B) = NDelayed(B) ∧ (NComp(B) ∨ ¬XDelayed(B))
    //   XLatest(B) = XDelayed(B) ∧ (XComp(B) ∨ ∃S ∈ succ(B): ¬NDelayed(S))
    let mut latest = vec![0u64; nb * 2 * w];
    for &b in &g.rpo {
        let (nd, xd) = (rows.n(&delayed_rows, b), rows.x(&delayed_rows, b));
        let (nl, xl) = latest[b.index() * 2 * w..][..2 * w].split_at_mut(w);
        for (((l, &nd), &xd), &c) in nl.iter_mut().zip(nd).zip(xd).zip(nc(b)) {
            *l = nd & (c | !xd);
        }
        xl.copy_from_slice(xc(b));
        for &s in &g.succs[b] {
            for (l, &d) in xl.iter_mut().zip(rows.n(&delayed_rows, s)) {
                *l |= !d;
            }
        }
        for (l, &xd) in xl.iter_mut().zip(xd) {
            *l &= xd;
        }
    }

    keep(delayed_rows);
    keep(latest);
    Global { preds: Predicates { sets, regional: None }, dsafe, usafe, delayed, converged: c1 && c2 && c3 }
}

#[cfg(test)]
mod oracle;
