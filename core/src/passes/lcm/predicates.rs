//! Steps 3–6 of seed 004: down-safety, up-safety, earliest, delayed and latest, for all
//! expressions at once. Each predicate is a bit vector (`EntitySet<ExprId>`) per block; the
//! equations are those of `docs/lcm-equations.md`, applied bitwise.
//!
//! The three recursive pairs are greatest fixpoints (the seed's initial value is true),
//! solved by [`crate::dataflow::solve`] over the reachable blocks — postorder for the
//! backward down-safety, reverse postorder for the forward up-safety and delay — with every
//! round recorded. Unreachable blocks keep all-false global predicates (see `graph.rs`).

use super::exprs::{ExprId, Local};
use super::graph::Graph;
use crate::dataflow::{self, Solution};
use crate::entity::{EntitySet, EntityVec};
use crate::ir::BlockId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The thirteen predicates, in the order of the seed (and of the tables and the JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pred {
    NComp,
    XComp,
    Transp,
    NdSafe,
    XdSafe,
    NuSafe,
    XuSafe,
    NEarliest,
    XEarliest,
    NDelayed,
    XDelayed,
    NLatest,
    XLatest,
}

impl Pred {
    pub const ALL: [Pred; 13] = [
        Pred::NComp,
        Pred::XComp,
        Pred::Transp,
        Pred::NdSafe,
        Pred::XdSafe,
        Pred::NuSafe,
        Pred::XuSafe,
        Pred::NEarliest,
        Pred::XEarliest,
        Pred::NDelayed,
        Pred::XDelayed,
        Pred::NLatest,
        Pred::XLatest,
    ];

    /// The seed's spelling (`NdSafe`, `XLatest`, …).
    pub fn name(self) -> &'static str {
        match self {
            Pred::NComp => "NComp",
            Pred::XComp => "XComp",
            Pred::Transp => "Transp",
            Pred::NdSafe => "NdSafe",
            Pred::XdSafe => "XdSafe",
            Pred::NuSafe => "NuSafe",
            Pred::XuSafe => "XuSafe",
            Pred::NEarliest => "NEarliest",
            Pred::XEarliest => "XEarliest",
            Pred::NDelayed => "NDelayed",
            Pred::XDelayed => "XDelayed",
            Pred::NLatest => "NLatest",
            Pred::XLatest => "XLatest",
        }
    }
}

impl Pred {
    /// The seed's initial value (初期値): true for the greatest fixpoints (down-safety,
    /// up-safety, delayed), where iteration starts, and for `Transp`, which a block keeps
    /// until an instruction changes an operand; false for the others, which hold only where
    /// their step proves it. The table marks a value as changed when it differs from this.
    pub fn initial(self) -> bool {
        matches!(
            self,
            Pred::Transp | Pred::NdSafe | Pred::XdSafe | Pred::NuSafe | Pred::XuSafe | Pred::NDelayed | Pred::XDelayed
        )
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One predicate's value: a bit vector over the expressions for every block.
pub type PerBlock = EntityVec<BlockId, EntitySet<ExprId>>;

/// All thirteen predicates of a function, indexed by [`Pred`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Predicates {
    /// `sets[p as usize]` is predicate `p`, in [`Pred::ALL`] order.
    pub sets: Vec<PerBlock>,
}

impl Predicates {
    pub fn get(&self, p: Pred) -> &PerBlock {
        &self.sets[p as usize]
    }

    /// Whether predicate `p` holds for expression `e` in block `b` (false for unknown ids).
    pub fn holds(&self, p: Pred, b: BlockId, e: ExprId) -> bool {
        self.sets[p as usize].get(b).is_some_and(|s| s.contains(e))
    }
}

/// One bit vector changing during a fixpoint round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BitChange {
    pub block: BlockId,
    pub pred: Pred,
    pub old: EntitySet<ExprId>,
    pub new: EntitySet<ExprId>,
}

impl BitChange {
    /// Whether this change flips expression `e` (what the one-expression view shows).
    pub fn flips(&self, e: ExprId) -> bool {
        self.old.contains(e) != self.new.contains(e)
    }
}

/// A greatest-fixpoint step: the visit order, and each round's changes (the last round is
/// the one that changed nothing and proved the fixpoint).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fixpoint {
    pub order: Vec<BlockId>,
    pub rounds: Vec<Vec<BitChange>>,
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
    mut update: impl FnMut(BlockId, &EntityVec<BlockId, Pair>) -> Pair,
) -> (PerBlock, PerBlock, Fixpoint, bool) {
    let nb = g.num_blocks();
    let empty = EntitySet::new_empty(n_exprs);
    let full = EntitySet::new_full(n_exprs);
    let mut init = EntityVec::filled(nb, Pair { n: empty.clone(), x: empty });
    for &b in &order {
        init[b] = Pair { n: full.clone(), x: full.clone() };
    }
    // Each round but the last clears at least one of the 2·|order|·|exprs| bits.
    let max_rounds = 2usize.saturating_mul(order.len()).saturating_mul(n_exprs.max(1)).saturating_add(2);
    let Solution { values, rounds } = dataflow::solve(&order, init, max_rounds, &mut update);
    let converged = rounds.last().is_some_and(|r| r.changes.is_empty());
    let rounds = rounds
        .into_iter()
        .map(|r| {
            let mut out = Vec::new();
            for c in r.changes {
                if c.old.n != c.new.n {
                    out.push(BitChange { block: c.block, pred: names.0, old: c.old.n.clone(), new: c.new.n.clone() });
                }
                if c.old.x != c.new.x {
                    out.push(BitChange { block: c.block, pred: names.1, old: c.old.x, new: c.new.x });
                }
            }
            out
        })
        .collect();
    let (mut ns, mut xs) = (EntityVec::new(), EntityVec::new());
    for p in values.values() {
        ns.push(p.n.clone());
        xs.push(p.x.clone());
    }
    (ns, xs, Fixpoint { order, rounds }, converged)
}

/// `∩` of `f(m)` over `ms`, or `None` for an empty `ms` (the caller decides what ∀ over
/// nothing means).
fn meet_all(ms: &[BlockId], mut f: impl FnMut(BlockId) -> EntitySet<ExprId>) -> Option<EntitySet<ExprId>> {
    let mut it = ms.iter();
    let mut acc = f(*it.next()?);
    for &m in it {
        acc.intersect_with(&f(m));
    }
    Some(acc)
}

fn not(s: &EntitySet<ExprId>) -> EntitySet<ExprId> {
    let mut c = s.clone();
    c.negate();
    c
}

fn and(a: &EntitySet<ExprId>, b: &EntitySet<ExprId>) -> EntitySet<ExprId> {
    let mut c = a.clone();
    c.intersect_with(b);
    c
}

fn or(a: &EntitySet<ExprId>, b: &EntitySet<ExprId>) -> EntitySet<ExprId> {
    let mut c = a.clone();
    c.union_with(b);
    c
}

/// Steps 3–6 on the reachable part of `g` given step 2's local predicates.
pub fn compute_global(g: &Graph, local: &Local, n_exprs: usize) -> Global {
    let nb = g.num_blocks();
    let empty = EntitySet::new_empty(n_exprs);
    let full = EntitySet::new_full(n_exprs);
    let is_start = |b: BlockId| Some(b) == g.entry;
    let Local { ncomp, xcomp, transp } = local;

    // Step 3: down-safety, backward.
    //   NdSafe(B) = NComp(B) ∨ (Transp(B) ∧ XdSafe(B))
    //   XdSafe(B) = XComp(B) ∨ (succ(B) ≠ ∅ ∧ ∀S ∈ succ(B): NdSafe(S))
    let (nd, xd, dsafe, c1) = solve_pair(g, g.postorder(), n_exprs, (Pred::NdSafe, Pred::XdSafe), |b, v| {
        let through = if g.reaches_exit.contains(b) { meet_all(&g.succs[b], |s| v[s].n.clone()) } else { None };
        let x = or(&xcomp[b], through.as_ref().unwrap_or(&empty));
        let n = or(&ncomp[b], &and(&transp[b], &x));
        Pair { n, x }
    });

    // Step 3': up-safety, forward.
    //   NuSafe(B) = B ≠ s ∧ ∀P ∈ pred(B): XuSafe(P)
    //   XuSafe(B) = XComp(B) ∨ (Transp(B) ∧ (NComp(B) ∨ NuSafe(B)))
    let (nu, xu, usafe, c2) = solve_pair(g, g.rpo.clone(), n_exprs, (Pred::NuSafe, Pred::XuSafe), |b, v| {
        let n =
            if is_start(b) { empty.clone() } else { meet_all(&g.preds[b], |p| v[p].x.clone()).unwrap_or(full.clone()) };
        let x = or(&xcomp[b], &and(&transp[b], &or(&ncomp[b], &n)));
        Pair { n, x }
    });

    // Step 4: earliest, no iteration.
    //   NEarliest(B) = NdSafe(B) ∧ (B = s ∨ ∃P ∈ pred(B): ¬(XuSafe(P) ∨ XdSafe(P)))
    //   XEarliest(B) = XdSafe(B) ∧ (¬Transp(B) ∨ (¬NdSafe(B) ∧ ¬NuSafe(B)))
    let mut ne: PerBlock = EntityVec::filled(nb, empty.clone());
    let mut xe: PerBlock = EntityVec::filled(nb, empty.clone());
    for &b in &g.rpo {
        let from_pred = if is_start(b) {
            full.clone()
        } else {
            let mut acc = empty.clone();
            for &p in &g.preds[b] {
                acc.union_with(&not(&or(&xu[p], &xd[p])));
            }
            acc
        };
        ne[b] = and(&nd[b], &from_pred);
        xe[b] = and(&xd[b], &or(&not(&transp[b]), &and(&not(&nd[b]), &not(&nu[b]))));
    }

    // Step 5: delayed, forward.
    //   NDelayed(B) = NEarliest(B) ∨ (B ≠ s ∧ ∀P ∈ pred(B): XDelayed(P) ∧ ¬XComp(P))
    //   XDelayed(B) = XEarliest(B) ∨ (NDelayed(B) ∧ ¬NComp(B))
    let (ndl, xdl, delayed, c3) = solve_pair(g, g.rpo.clone(), n_exprs, (Pred::NDelayed, Pred::XDelayed), |b, v| {
        let via = if is_start(b) {
            empty.clone()
        } else {
            meet_all(&g.preds[b], |p| and(&v[p].x, &not(&xcomp[p]))).unwrap_or(full.clone())
        };
        let n = or(&ne[b], &via);
        let x = or(&xe[b], &and(&n, &not(&ncomp[b])));
        Pair { n, x }
    });

    // Step 6: latest, no iteration.
    //   NLatest(B) = NDelayed(B) ∧ (NComp(B) ∨ ¬XDelayed(B))
    //   XLatest(B) = XDelayed(B) ∧ (XComp(B) ∨ ∃S ∈ succ(B): ¬NDelayed(S))
    let mut nl: PerBlock = EntityVec::filled(nb, empty.clone());
    let mut xl: PerBlock = EntityVec::filled(nb, empty.clone());
    for &b in &g.rpo {
        nl[b] = and(&ndl[b], &or(&ncomp[b], &not(&xdl[b])));
        let mut stop = xcomp[b].clone();
        for &s in &g.succs[b] {
            stop.union_with(&not(&ndl[s]));
        }
        xl[b] = and(&xdl[b], &stop);
    }

    let sets = vec![ncomp.clone(), xcomp.clone(), transp.clone(), nd, xd, nu, xu, ne, xe, ndl, xdl, nl, xl];
    Global { preds: Predicates { sets }, dsafe, usafe, delayed, converged: c1 && c2 && c3 }
}
