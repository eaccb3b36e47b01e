//! The oracle for `compute_global` and `BitChange::between`: the versions they replaced
//! (session 11), kept verbatim but for names — one in-place set operation per term of an
//! equation, changes built bit by bit from `symmetric_difference` — and compared with the
//! current ones on generated programs: every predicate, every recorded round (with round 1
//! recorded and implied), and convergence must be identical.

use super::super::exprs::{ExprId, Local};
use super::super::graph::Graph;
use super::{BitChange, Fixpoint, Global, PerBlock, Pred, Predicates, RECORD_FIRST_ROUND};
use crate::dataflow;
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, Lang};
use crate::parse::parse_module;
use crate::passes::lcm::{prepare, Options};
use crate::testgen::{self, gen::GenConfig};
use std::sync::Arc;

/// The per-block value the old solver iterated: entry (`N…`) and exit (`X…`) bits.
#[derive(Clone, Debug, PartialEq)]
struct Pair {
    n: EntitySet<ExprId>,
    x: EntitySet<ExprId>,
}

/// The old `BitChange::between`: the flipped bits collected id by id.
fn old_between(block: BlockId, pred: Pred, old: &EntitySet<ExprId>, new: &EntitySet<ExprId>) -> Option<BitChange> {
    if old == new {
        return None;
    }
    let mut flipped = EntitySet::new_empty(old.capacity().max(new.capacity()));
    for e in old.symmetric_difference(new) {
        flipped.insert(e);
    }
    Some(BitChange { block, pred, flipped })
}

fn old_solve_pair(
    g: &Graph,
    order: Vec<BlockId>,
    n_exprs: usize,
    names: (Pred, Pred),
    record: bool,
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
        if r > 0 || record {
            rounds[r].extend(old_between(block, names.0, &old.n, &new.n));
            rounds[r].extend(old_between(block, names.1, &old.x, &new.x));
        }
    });
    rounds.resize_with(it.rounds, Vec::new);
    let (mut ns, mut xs) = (EntityVec::with_capacity(nb), EntityVec::with_capacity(nb));
    for p in values.into_values() {
        ns.push(p.n);
        xs.push(p.x);
    }
    let first_round_implied = !rounds.is_empty() && !record;
    (ns, xs, Fixpoint { order, rounds, first_round_implied, per_region: false }, it.converged)
}

fn old_meet_into<'a>(out: &mut EntitySet<ExprId>, ms: &[BlockId], mut set: impl FnMut(BlockId) -> &'a EntitySet<ExprId>) {
    let (first, rest) = ms.split_first().expect("meet over at least one block");
    out.clone_from(set(*first));
    for &m in rest {
        out.intersect_with(set(m));
    }
}

/// Steps 3–6 on the reachable part of `g` given step 2's local predicates. Every bit
/// vector is computed in place (no set is allocated per block visit); the equations are
/// rewritten with `−` (and-not) where they negate, which the comments spell out.
fn old_compute_global(g: &Graph, local: &Local, n_exprs: usize, record: bool) -> Global {
    let nb = g.num_blocks();
    let empty = EntitySet::new_empty(n_exprs);
    let is_start = |b: BlockId| Some(b) == g.entry;
    let Local { ncomp, xcomp, transp } = local;

    // Step 3: down-safety, backward.
    //   NdSafe(B) = NComp(B) ∨ (Transp(B) ∧ XdSafe(B))
    //   XdSafe(B) = XComp(B) ∨ (succ(B) ≠ ∅ ∧ ∀S ∈ succ(B): NdSafe(S))
    let mut through = empty.clone();
    let (nd, xd, dsafe, c1) = old_solve_pair(g, g.postorder(), n_exprs, (Pred::NdSafe, Pred::XdSafe), record, |b, v, out| {
        out.x.clone_from(&xcomp[b]);
        if g.reaches_exit.contains(b) && !g.succs[b].is_empty() {
            old_meet_into(&mut through, &g.succs[b], |s| &v[s].n);
            out.x.union_with(&through);
        }
        out.n.clone_from(&transp[b]);
        out.n.intersect_with(&out.x);
        out.n.union_with(&ncomp[b]);
    });

    // Step 3': up-safety, forward.
    //   NuSafe(B) = B ≠ s ∧ ∀P ∈ pred(B): XuSafe(P)
    //   XuSafe(B) = XComp(B) ∨ (Transp(B) ∧ (NComp(B) ∨ NuSafe(B)))
    let (nu, xu, usafe, c2) = old_solve_pair(g, g.rpo.clone(), n_exprs, (Pred::NuSafe, Pred::XuSafe), record, |b, v, out| {
        if is_start(b) {
            out.n.clear();
        } else if g.preds[b].is_empty() {
            out.n.insert_all();
        } else {
            old_meet_into(&mut out.n, &g.preds[b], |p| &v[p].x);
        }
        out.x.clone_from(&ncomp[b]);
        out.x.union_with(&out.n);
        out.x.intersect_with(&transp[b]);
        out.x.union_with(&xcomp[b]);
    });

    // Step 4: earliest, no iteration.
    //   NEarliest(B) = NdSafe(B) ∧ (B = s ∨ ∃P ∈ pred(B): ¬(XuSafe(P) ∨ XdSafe(P)))
    //   XEarliest(B) = XdSafe(B) ∧ (¬Transp(B) ∨ (¬NdSafe(B) ∧ ¬NuSafe(B)))
    //                = XdSafe(B) − (Transp(B) ∧ (NdSafe(B) ∨ NuSafe(B)))
    let mut ne: PerBlock = EntityVec::filled(nb, empty.clone());
    let mut xe: PerBlock = EntityVec::filled(nb, empty.clone());
    let (mut acc, mut tmp) = (empty.clone(), empty.clone());
    for &b in &g.rpo {
        ne[b].clone_from(&nd[b]);
        if !is_start(b) {
            acc.clear();
            for &p in &g.preds[b] {
                tmp.clone_from(&xu[p]);
                tmp.union_with(&xd[p]);
                tmp.negate();
                acc.union_with(&tmp);
            }
            ne[b].intersect_with(&acc);
        }
        tmp.clone_from(&nd[b]);
        tmp.union_with(&nu[b]);
        tmp.intersect_with(&transp[b]);
        xe[b].clone_from(&xd[b]);
        xe[b].subtract(&tmp);
    }

    // Step 5: delayed, forward.
    //   NDelayed(B) = NEarliest(B) ∨ (B ≠ s ∧ ∀P ∈ pred(B): XDelayed(P) ∧ ¬XComp(P))
    //   XDelayed(B) = XEarliest(B) ∨ (NDelayed(B) ∧ ¬NComp(B))
    let (ndl, xdl, delayed, c3) = old_solve_pair(g, g.rpo.clone(), n_exprs, (Pred::NDelayed, Pred::XDelayed), record, |b, v, out| {
        if is_start(b) {
            out.n.clear();
        } else {
            // ∩ (XDelayed(P) − XComp(P)) = (∩ …) from ⊤, which is also ∀ over no P.
            out.n.insert_all();
            for &p in &g.preds[b] {
                out.n.intersect_with(&v[p].x);
                out.n.subtract(&xcomp[p]);
            }
        }
        out.n.union_with(&ne[b]);
        out.x.clone_from(&out.n);
        out.x.subtract(&ncomp[b]);
        out.x.union_with(&xe[b]);
    });

    // Step 6: latest, no iteration.
    //   NLatest(B) = NDelayed(B) ∧ (NComp(B) ∨ ¬XDelayed(B)) = NDelayed(B) − (XDelayed(B) − NComp(B))
    //   XLatest(B) = XDelayed(B) ∧ (XComp(B) ∨ ∃S ∈ succ(B): ¬NDelayed(S))
    let mut nl: PerBlock = EntityVec::filled(nb, empty.clone());
    let mut xl: PerBlock = EntityVec::filled(nb, empty.clone());
    for &b in &g.rpo {
        tmp.clone_from(&xdl[b]);
        tmp.subtract(&ncomp[b]);
        nl[b].clone_from(&ndl[b]);
        nl[b].subtract(&tmp);
        acc.clone_from(&xcomp[b]);
        for &s in &g.succs[b] {
            tmp.clone_from(&ndl[s]);
            tmp.negate();
            acc.union_with(&tmp);
        }
        xl[b].clone_from(&xdl[b]);
        xl[b].intersect_with(&acc);
    }

    let sets = [(**ncomp).clone(), (**xcomp).clone(), (**transp).clone(), nd, xd, nu, xu, ne, xe, ndl, xdl, nl, xl].into_iter().map(Arc::new).collect();
    Global { preds: Predicates { sets, regional: None }, dsafe, usafe, delayed, converged: c1 && c2 && c3 }
}

fn check(what: &str, g: &Graph, local: &Local, n_exprs: usize) {
    for record in [false, true] {
        let old = old_compute_global(g, local, n_exprs, record);
        RECORD_FIRST_ROUND.with(|c| c.set(record));
        let new = super::compute_global(g, local, n_exprs);
        RECORD_FIRST_ROUND.with(|c| c.set(false));
        for p in Pred::ALL {
            assert_eq!(old.preds.get(p), new.preds.get(p), "{what}: {p} (record round 1: {record})");
        }
        let fixpoints = |x: &Global| [x.dsafe.clone(), x.usafe.clone(), x.delayed.clone()];
        assert_eq!(fixpoints(&old), fixpoints(&new), "{what}: rounds (record round 1: {record})");
        assert_eq!(old.converged, new.converged, "{what}");
    }
}

/// Generated Bril programs (loops, branches, a helper, a few expressions: one word per
/// vector) and the scale generator's (hundreds of expressions: several words, a last one
/// partly used, so the and-nots and negations must keep the bits past the capacity clear).
#[test]
fn compute_global_matches_the_replaced_version() {
    let mut checked = 0;
    let cfg = GenConfig { statements: 30, max_depth: 4, ..GenConfig::default() };
    for seed in 0..150u64 {
        let gen = testgen::gen::generate(seed, &cfg);
        for f in gen.module.bodies() {
            let p = prepare(f, &Options::default());
            check(&format!("gen seed {seed} {}", f.name), &p.graph, &p.local, p.n_exprs);
            checked += 1;
        }
    }
    let mut wide = 0;
    for (n, seed) in [(60, 1), (150, 2), (400, 3)] {
        let text = testgen::scale::bril_program(n, seed);
        let m = parse_module(Lang::Bril, "t.bril", &text).unwrap_or_else(|d| panic!("parse: {d:?}"));
        for f in m.bodies() {
            let p = prepare(f, &Options::default());
            wide += usize::from(p.n_exprs > 64 && p.n_exprs % 64 != 0);
            check(&format!("scale {n} seed {seed} {}", f.name), &p.graph, &p.local, p.n_exprs);
        }
    }
    assert!(checked >= 150 && wide >= 1, "{checked} functions, {wide} with several words");
}

/// Unreachable blocks (kept all false) and a loop at the entry, beside the generated shapes.
#[test]
fn compute_global_matches_the_replaced_version_on_unreachable_blocks() {
    let text = "@main(a: int, b: int) {\n.top:\n  x: int = add a b;\n  c: bool = lt x b;\n  br c .top .out;\n.dead:\n  y: int = add a b;\n  jmp .out;\n.out:\n  z: int = add a b;\n  w: int = mul z a;\n  print w;\n}\n";
    let m = parse_module(Lang::Bril, "t.bril", text).unwrap_or_else(|d| panic!("parse: {d:?}"));
    let f = m.bodies().next().expect("a function");
    let p = prepare(f, &Options::default());
    assert!(p.graph.reachable.count() < p.graph.num_blocks(), "the test needs an unreachable block");
    check("unreachable", &p.graph, &p.local, p.n_exprs);
}
