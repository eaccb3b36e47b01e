//! Steps 3–6 of seed 004 (Knoop, Rüthing, Steffen, *Lazy Code Motion*, PLDI 1992; the
//! equations of `docs/lcm-equations.md`) on SSA form, solved per region of the dominator tree
//! instead of with one bit vector per block over every expression. `predicates.rs` is the
//! reference; this solver gives the same answer for every block and expression and is what
//! large SIL functions use, where every SSA value makes expressions of its own and blocks ×
//! expressions grows quadratically.
//!
//! Why a region suffices. An expression's operands are each defined once, in blocks that all
//! dominate every computation, so they lie on one dominator-tree chain; let `D` be the deepest.
//! `D` modifies the expression (it defines an operand) before any computation in it, so
//! nothing computed in `D` or above reaches below `D`'s definition, and every path into the
//! dominator subtree of `D` passes `D`. Hence down-safety, earliest, delay and latest are
//! false outside the subtree, and up-safety too. Inside it, two further cuts keep the work
//! proportional to what the expression touches:
//!
//! - down-safety (and with it earliest, delay and latest, which imply it) can only hold on
//!   blocks from which a computation is reachable — the *active* blocks, found backwards
//!   from the computations without leaving the subtree;
//! - up-safety flows forward; on a block that is not active nothing computes or (for an
//!   expression that cannot trap) modifies the expression, so its value changes only where
//!   paths from different active blocks meet: the iterated dominance frontier of the active
//!   blocks. Everywhere else it is the value of the nearest dominator that is solved — the
//!   argument of SSA construction, with "the expression is available" as the variable.
//!
//! Expressions sharing `D` share the region and are solved together as one bit vector per
//! block of the region. A trapping expression is also modified by every observable
//! instruction, so its group is solved on the whole subtree. The fixpoints are iterated per
//! region (so no per-round trace of the whole function exists; the trace says so).

use super::exprs::{ExprId, Exprs, SparseLocal};
use super::graph::Graph;
use super::pred::Pred;
use crate::cfg::Cfg;
use crate::dom::{frontier, DomTree};
use crate::entity::{EntityRef, EntityVec};

/// The dominator tree and dominance frontiers of the function after step 1, built once for
/// the region solver and SIL's step 7 (which adds instructions and block arguments but no
/// edges before its SSA construction, so they still hold there).
pub struct Dominance {
    pub tree: DomTree,
    pub frontier: EntityVec<BlockId, Vec<BlockId>>,
}

impl Dominance {
    pub fn new(f: &Function, cfg: &Cfg) -> Dominance {
        let tree = DomTree::dominators(f, cfg);
        let frontier = frontier(cfg, &tree);
        Dominance { tree, frontier }
    }
}
use crate::ir::{BlockId, Function, InstId, ValueDef};
use std::collections::HashMap;

/// The ten global predicates (`NdSafe` … `XLatest`), stored per region.
const GLOBAL: usize = 10;
const NONE: u32 = u32::MAX;

fn global_index(p: Pred) -> Option<usize> {
    (p as usize).checked_sub(Pred::NdSafe as usize)
}

/// One group of expressions sharing the deepest operand definition, and its solution.
#[derive(Clone, Debug, PartialEq)]
struct Group {
    /// The block defining the deepest operand (`None`: it is unreachable, so is every
    /// computation, and every global predicate is false).
    root: Option<BlockId>,
    members: Vec<ExprId>,
    words: usize,
    /// The solved blocks, sorted by id, each with its row in `bits`.
    rows: Vec<(BlockId, u32)>,
    /// `bits[(pred · rows + row) · words + word]`, pred in `NdSafe..=XLatest` order.
    bits: Vec<u64>,
}

impl Group {
    fn row(&self, b: BlockId) -> Option<usize> {
        self.rows.binary_search_by_key(&b, |r| r.0).ok().map(|i| self.rows[i].1 as usize)
    }

    fn bit(&self, pred: usize, row: usize, slot: usize) -> bool {
        let w = self.bits[(pred * self.rows.len() + row) * self.words + slot / 64];
        w >> (slot % 64) & 1 != 0
    }
}

/// The predicates of a function solved per region; answers [`Regional::holds`] for every
/// block and expression without storing a vector over all expressions per block.
#[derive(Clone, Debug, PartialEq)]
pub struct Regional {
    local: SparseLocal,
    group_of: Vec<u32>,
    slot_of: Vec<u32>,
    groups: Vec<Group>,
    /// Immediate dominators, and the dominator tree as preorder intervals (`NONE`: not
    /// reachable).
    idom: Vec<u32>,
    pre: Vec<u32>,
    size: Vec<u32>,
    /// Per block, the expressions with `NLatest` / `XLatest`, sorted (step 7 reads these).
    pub nlatest: EntityVec<BlockId, Vec<ExprId>>,
    pub xlatest: EntityVec<BlockId, Vec<ExprId>>,
    /// False if some region's fixpoint hit its round limit.
    pub converged: bool,
}

impl Regional {
    /// Whether `p` holds for `e` in `b` — the value [`super::predicates::compute_global`]
    /// would give (false for unknown ids).
    pub fn holds(&self, p: Pred, b: BlockId, e: ExprId) -> bool {
        if b.index() >= self.idom.len() || e.index() >= self.group_of.len() {
            return false;
        }
        let has = |list: &EntityVec<BlockId, Vec<ExprId>>| list[b].binary_search(&e).is_ok();
        let Some(k) = global_index(p) else {
            return match p {
                Pred::NComp => has(&self.local.ncomp),
                Pred::XComp => has(&self.local.xcomp),
                _ => self.local.scanned.contains(b) && !has(&self.local.nontransp),
            };
        };
        let g = &self.groups[self.group_of[e.index()] as usize];
        let slot = self.slot_of[e.index()] as usize;
        if let Some(row) = g.row(b) {
            return g.bit(k, row, slot);
        }
        if !matches!(p, Pred::NuSafe | Pred::XuSafe) {
            return false;
        }
        // Up-safety off the solved blocks: that of the nearest solved dominator.
        let Some(root) = g.root else { return false };
        if !self.in_subtree(root, b) {
            return false;
        }
        let mut cur = b;
        loop {
            if let Some(row) = g.row(cur) {
                return g.bit(global_index(Pred::XuSafe).unwrap_or(0), row, slot);
            }
            if cur == root || self.idom[cur.index()] == NONE {
                return false;
            }
            cur = BlockId(self.idom[cur.index()]);
        }
    }

    fn in_subtree(&self, root: BlockId, b: BlockId) -> bool {
        let (r, x) = (self.pre[root.index()], self.pre[b.index()]);
        r != NONE && x != NONE && r <= x && x < r + self.size[root.index()]
    }

    pub fn num_blocks(&self) -> usize {
        self.idom.len()
    }

    pub fn num_exprs(&self) -> usize {
        self.group_of.len()
    }

    /// The local predicates as lists (step 7 reads these).
    pub fn ncomp(&self) -> &EntityVec<BlockId, Vec<ExprId>> {
        &self.local.ncomp
    }

    pub fn xcomp(&self) -> &EntityVec<BlockId, Vec<ExprId>> {
        &self.local.xcomp
    }
}

/// Where a neighbour's value comes from while solving a region.
#[derive(Clone, Copy)]
enum Link {
    /// Solved: its row.
    Row(u32),
    /// Not solved but in the subtree: its up-safety is that of the solved dominator at this
    /// row; every other global predicate is false there.
    Inherit(u32),
    /// Outside the region: every global predicate is false.
    Out,
}

/// Steps 3–6 per region on `f` (the function after step 1, in SSA form).
pub fn solve(f: &Function, g: &Graph, dom: &Dominance, ex: &Exprs, local: SparseLocal) -> Regional {
    let nb = g.num_blocks();
    let n = ex.len();
    let (dt, df) = (&dom.tree, &dom.frontier);

    // Dominator tree of the reachable blocks: idom, preorder number and subtree size.
    let mut idom = vec![NONE; nb];
    let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); nb];
    for &b in &g.rpo {
        if let Some(d) = dt.idom(b).filter(|d| d.index() < nb && g.reachable.contains(*d)) {
            idom[b.index()] = d.0;
            children[d.index()].push(b);
        }
    }
    let (mut pre, mut size) = (vec![NONE; nb], vec![0u32; nb]);
    let mut preorder: Vec<BlockId> = Vec::with_capacity(g.rpo.len());
    if let Some(start) = g.entry.filter(|s| s.index() < nb) {
        let mut stack = vec![(start, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                size[b.index()] = preorder.len() as u32 - pre[b.index()];
                continue;
            }
            pre[b.index()] = preorder.len() as u32;
            preorder.push(b);
            stack.push((b, true));
            stack.extend(children[b.index()].iter().rev().map(|&c| (c, false)));
        }
    }
    let depth_of = |b: BlockId| dt.depth(b);
    let mut rpo_pos = vec![NONE; nb];
    for (k, &b) in g.rpo.iter().enumerate() {
        rpo_pos[b.index()] = k as u32;
    }

    // Groups: the block defining each expression's deepest operand.
    let mut inst_block: EntityVec<InstId, Option<BlockId>> = EntityVec::filled(f.insts.len(), None);
    for &b in &f.layout {
        if let Some(blk) = f.blocks.get(b) {
            for i in blk.all_insts() {
                if let Some(slot) = inst_block.get_mut(i) {
                    *slot = Some(b);
                }
            }
        }
    }
    let def_block = |v| match f.values.get(v).map(|d| &d.def) {
        Some(ValueDef::Param { block, .. }) => Some(*block),
        Some(ValueDef::Result { inst, .. }) => inst_block.get(*inst).copied().flatten(),
        _ => None,
    };
    let mut key_group: HashMap<Option<BlockId>, u32> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    let (mut group_of, mut slot_of) = (vec![0u32; n], vec![0u32; n]);
    let mut trapping: Vec<bool> = Vec::new();
    for (e, x) in ex.list.iter() {
        // The deepest definition; an operand with none (an argument without a block) or in an
        // unreachable block gives the start, resp. an empty region.
        let mut root = g.entry;
        let mut deepest = None;
        for &v in &x.arg_values {
            match def_block(v) {
                Some(d) if d.index() < nb && g.reachable.contains(d) => {
                    let dd = depth_of(d).unwrap_or(0);
                    if deepest.is_none_or(|x| dd > x) {
                        root = Some(d);
                        deepest = Some(dd);
                    }
                }
                Some(_) => {
                    root = None;
                    break;
                }
                None => {}
            }
        }
        let gi = *key_group.entry(root).or_insert_with(|| {
            groups.push(Group { root, members: Vec::new(), words: 0, rows: Vec::new(), bits: Vec::new() });
            trapping.push(false);
            groups.len() as u32 - 1
        });
        let grp = &mut groups[gi as usize];
        group_of[e.index()] = gi;
        slot_of[e.index()] = grp.members.len() as u32;
        grp.members.push(e);
        trapping[gi as usize] |= x.traps;
    }
    // The blocks computing each group's expressions (the seeds of its active blocks).
    let mut seeds: Vec<Vec<BlockId>> = vec![Vec::new(); groups.len()];
    for &b in &g.rpo {
        for &e in local.ncomp[b].iter().chain(&local.xcomp[b]) {
            let s = &mut seeds[group_of[e.index()] as usize];
            if s.last() != Some(&b) {
                s.push(b);
            }
        }
    }

    let mut reg = Regional {
        local,
        group_of,
        slot_of,
        groups: Vec::new(),
        idom,
        pre,
        size,
        nlatest: EntityVec::filled(nb, Vec::new()),
        xlatest: EntityVec::filled(nb, Vec::new()),
        converged: true,
    };
    let mut stamp = vec![NONE; nb];
    let mut row_of = vec![0u32; nb];
    let mut scratch: [Vec<u64>; 13] = Default::default();
    let (mut pred_links, mut succ_links, mut pred_at, mut succ_at): (Vec<Link>, Vec<Link>, Vec<usize>, Vec<usize>) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (gi, mut grp) in groups.into_iter().enumerate() {
        let Some(root) = grp.root else {
            reg.groups.push(grp);
            continue;
        };
        let tag = gi as u32;
        // The region's blocks: active ones, then the frontier where up-safety may change.
        let mut region: Vec<BlockId> = Vec::new();
        if trapping[gi] {
            let p = reg.pre[root.index()] as usize;
            region.extend_from_slice(&preorder[p..p + reg.size[root.index()] as usize]);
            for &b in &region {
                stamp[b.index()] = tag;
            }
        } else {
            let mut work: Vec<BlockId> = Vec::new();
            for &b in &seeds[gi] {
                if reg.in_subtree(root, b) && stamp[b.index()] != tag {
                    stamp[b.index()] = tag;
                    work.push(b);
                }
            }
            while let Some(b) = work.pop() {
                region.push(b);
                if b == root {
                    continue;
                }
                for &p in &g.preds[b] {
                    if stamp[p.index()] != tag && reg.in_subtree(root, p) {
                        stamp[p.index()] = tag;
                        work.push(p);
                    }
                }
            }
            let mut k = 0;
            while k < region.len() {
                let b = region[k];
                k += 1;
                for &j in df.get(b).map_or(&[][..], Vec::as_slice) {
                    if j.index() < nb && stamp[j.index()] != tag && reg.in_subtree(root, j) {
                        stamp[j.index()] = tag;
                        region.push(j);
                    }
                }
            }
        }
        region.sort_unstable_by_key(|b| rpo_pos[b.index()]);
        for (r, &b) in region.iter().enumerate() {
            row_of[b.index()] = r as u32;
        }
        let link = |b: BlockId| -> Link {
            if b.index() >= nb {
                return Link::Out;
            }
            if stamp[b.index()] == tag {
                return Link::Row(row_of[b.index()]);
            }
            if !reg.in_subtree(root, b) {
                return Link::Out;
            }
            let mut cur = b;
            while stamp[cur.index()] != tag {
                if cur == root || reg.idom[cur.index()] == NONE {
                    return Link::Out;
                }
                cur = BlockId(reg.idom[cur.index()]);
            }
            Link::Inherit(row_of[cur.index()])
        };
        // Neighbours as one flat list per region (offsets per row), reused between regions.
        pred_links.clear();
        succ_links.clear();
        pred_at.clear();
        succ_at.clear();
        for &b in &region {
            pred_at.push(pred_links.len());
            pred_links.extend(g.preds[b].iter().map(|&p| link(p)));
            succ_at.push(succ_links.len());
            succ_links.extend(g.succs[b].iter().map(|&s| {
                if s.index() < nb && stamp[s.index()] == tag {
                    Link::Row(row_of[s.index()])
                } else {
                    Link::Out
                }
            }));
        }
        pred_at.push(pred_links.len());
        succ_at.push(succ_links.len());
        let preds: Vec<&[Link]> = (0..region.len()).map(|r| &pred_links[pred_at[r]..pred_at[r + 1]]).collect();
        let succs: Vec<&[Link]> = (0..region.len()).map(|r| &succ_links[succ_at[r]..succ_at[r + 1]]).collect();
        let w = grp.members.len().div_ceil(64);
        let (bits, ok) = solve_region(g, &reg, &grp.members, &reg.slot_of, &region, &preds, &succs, w, &mut scratch);
        reg.converged &= ok;
        let rows = region.len();
        let xl_index = global_index(Pred::XLatest).unwrap_or(0);
        let nl_index = global_index(Pred::NLatest).unwrap_or(0);
        for (r, &b) in region.iter().enumerate() {
            for (slot, &e) in grp.members.iter().enumerate() {
                let bit = |pred: usize| bits[(pred * rows + r) * w + slot / 64] >> (slot % 64) & 1 != 0;
                if bit(nl_index) {
                    reg.nlatest[b].push(e);
                }
                if bit(xl_index) {
                    reg.xlatest[b].push(e);
                }
            }
        }
        grp.words = w;
        grp.rows = region.iter().enumerate().map(|(r, &b)| (b, r as u32)).collect();
        grp.rows.sort_unstable_by_key(|r| r.0);
        grp.bits = bits;
        reg.groups.push(grp);
    }
    for list in reg.nlatest.values_mut().chain(reg.xlatest.values_mut()) {
        list.sort_unstable();
    }
    reg
}

/// The equations of `predicates.rs` on one region, word by word: `region` in reverse
/// postorder, `preds`/`succs` per row. Returns the ten global predicates (see
/// [`Group::bits`]) and whether every fixpoint converged.
#[allow(clippy::too_many_arguments)]
fn solve_region(
    g: &Graph,
    reg: &Regional,
    members: &[ExprId],
    slot_of: &[u32],
    region: &[BlockId],
    preds: &[&[Link]],
    succs: &[&[Link]],
    w: usize,
    scratch: &mut [Vec<u64>; 13],
) -> (Vec<u64>, bool) {
    let rows = region.len();
    let len = rows * w;
    // The vectors are reused from region to region: a large function has a region per SSA
    // value, and allocating thirteen small vectors for each was most of the solver's time.
    let mut take = |k: usize, fill: u64| {
        let mut v = std::mem::take(&mut scratch[k]);
        v.clear();
        v.resize(len, fill);
        v
    };
    // Local predicates as rows of words.
    let (mut ncomp, mut xcomp, mut transp) = (take(0, 0), take(1, 0), take(2, !0));
    let set = |v: &mut Vec<u64>, r: usize, e: ExprId, on: bool| {
        let s = slot_of[e.index()] as usize;
        let word = &mut v[r * w + s / 64];
        if on {
            *word |= 1 << (s % 64);
        } else {
            *word &= !(1 << (s % 64));
        }
    };
    let mine = |e: &&ExprId| members.get(slot_of[e.index()] as usize) == Some(*e);
    for (r, &b) in region.iter().enumerate() {
        for e in reg.local.ncomp[b].iter().filter(mine) {
            set(&mut ncomp, r, *e, true);
        }
        for e in reg.local.xcomp[b].iter().filter(mine) {
            set(&mut xcomp, r, *e, true);
        }
        if reg.local.scanned.contains(b) {
            for e in reg.local.nontransp[b].iter().filter(mine) {
                set(&mut transp, r, *e, false);
            }
        } else {
            transp[r * w..(r + 1) * w].fill(0);
        }
    }
    let is_start = |b: BlockId| Some(b) == g.entry;
    let max_rounds = 2usize.saturating_mul(rows).saturating_mul(w * 64).saturating_add(2);
    let mut converged = true;
    let (mut nd, mut xd) = (take(3, !0), take(4, !0));
    let (mut nu, mut xu) = (take(5, !0), take(6, !0));
    let (mut ne, mut xe) = (take(7, 0), take(8, 0));
    let (mut ndl, mut xdl) = (take(9, !0), take(10, !0));
    let (mut nl, mut xl) = (take(11, 0), take(12, 0));

    // Step 3: down-safety, backward (postorder).
    //   NdSafe(B) = NComp(B) ∨ (Transp(B) ∧ XdSafe(B))
    //   XdSafe(B) = XComp(B) ∨ (succ(B) ≠ ∅ ∧ ∀S ∈ succ(B): NdSafe(S))
    converged &= to_fixpoint(max_rounds, || {
        let mut changed = false;
        for r in (0..rows).rev() {
            let b = region[r];
            let through = g.reaches_exit.contains(b) && !succs[r].is_empty();
            for k in 0..w {
                let mut x = xcomp[r * w + k];
                if through {
                    let mut t = !0u64;
                    for s in succs[r] {
                        t &= match *s {
                            Link::Row(j) => nd[j as usize * w + k],
                            _ => 0,
                        };
                    }
                    x |= t;
                }
                let nn = (transp[r * w + k] & x) | ncomp[r * w + k];
                if nn != nd[r * w + k] || x != xd[r * w + k] {
                    changed = true;
                    nd[r * w + k] = nn;
                    xd[r * w + k] = x;
                }
            }
        }
        changed
    });

    // Step 3': up-safety, forward (reverse postorder).
    //   NuSafe(B) = B ≠ s ∧ ∀P ∈ pred(B): XuSafe(P)
    //   XuSafe(B) = XComp(B) ∨ (Transp(B) ∧ (NComp(B) ∨ NuSafe(B)))
    converged &= to_fixpoint(max_rounds, || {
        let mut changed = false;
        for r in 0..rows {
            let b = region[r];
            for k in 0..w {
                let nn = if is_start(b) {
                    0
                } else if preds[r].is_empty() {
                    !0
                } else {
                    let mut t = !0u64;
                    for p in preds[r] {
                        t &= match *p {
                            Link::Row(j) | Link::Inherit(j) => xu[j as usize * w + k],
                            Link::Out => 0,
                        };
                    }
                    t
                };
                let x = ((ncomp[r * w + k] | nn) & transp[r * w + k]) | xcomp[r * w + k];
                if nn != nu[r * w + k] || x != xu[r * w + k] {
                    changed = true;
                    nu[r * w + k] = nn;
                    xu[r * w + k] = x;
                }
            }
        }
        changed
    });

    // Step 4: earliest.
    //   NEarliest(B) = NdSafe(B) ∧ (B = s ∨ ∃P ∈ pred(B): ¬(XuSafe(P) ∨ XdSafe(P)))
    //   XEarliest(B) = XdSafe(B) − (Transp(B) ∧ (NdSafe(B) ∨ NuSafe(B)))
    for r in 0..rows {
        let b = region[r];
        for k in 0..w {
            let i = r * w + k;
            let acc = if is_start(b) {
                !0
            } else {
                let mut a = 0u64;
                for p in preds[r] {
                    a |= !match *p {
                        Link::Row(j) => xu[j as usize * w + k] | xd[j as usize * w + k],
                        Link::Inherit(j) => xu[j as usize * w + k],
                        Link::Out => 0,
                    };
                }
                a
            };
            ne[i] = nd[i] & acc;
            xe[i] = xd[i] & !(transp[i] & (nd[i] | nu[i]));
        }
    }

    // Step 5: delayed, forward.
    //   NDelayed(B) = NEarliest(B) ∨ (B ≠ s ∧ ∀P ∈ pred(B): XDelayed(P) ∧ ¬XComp(P))
    //   XDelayed(B) = XEarliest(B) ∨ (NDelayed(B) ∧ ¬NComp(B))
    converged &= to_fixpoint(max_rounds, || {
        let mut changed = false;
        for r in 0..rows {
            let b = region[r];
            for k in 0..w {
                let i = r * w + k;
                let mut nn = if is_start(b) {
                    0
                } else {
                    let mut t = !0u64;
                    for p in preds[r] {
                        t &= match *p {
                            Link::Row(j) => xdl[j as usize * w + k] & !xcomp[j as usize * w + k],
                            _ => 0,
                        };
                    }
                    t
                };
                nn |= ne[i];
                let x = (nn & !ncomp[i]) | xe[i];
                if nn != ndl[i] || x != xdl[i] {
                    changed = true;
                    ndl[i] = nn;
                    xdl[i] = x;
                }
            }
        }
        changed
    });

    // Step 6: latest.
    //   NLatest(B) = NDelayed(B) − (XDelayed(B) − NComp(B))
    //   XLatest(B) = XDelayed(B) ∧ (XComp(B) ∨ ∃S ∈ succ(B): ¬NDelayed(S))
    for (r, out) in succs.iter().enumerate() {
        for k in 0..w {
            let i = r * w + k;
            nl[i] = ndl[i] & !(xdl[i] & !ncomp[i]);
            let mut acc = xcomp[i];
            for s in *out {
                acc |= !match *s {
                    Link::Row(j) => ndl[j as usize * w + k],
                    _ => 0,
                };
            }
            xl[i] = xdl[i] & acc;
        }
    }

    let mut bits = Vec::with_capacity(GLOBAL * len);
    for v in [&nd, &xd, &nu, &xu, &ne, &xe, &ndl, &xdl, &nl, &xl] {
        bits.extend_from_slice(v);
    }
    *scratch = [ncomp, xcomp, transp, nd, xd, nu, xu, ne, xe, ndl, xdl, nl, xl];
    (bits, converged)
}

/// Repeats `round` (which says whether it changed anything) until a round changes nothing;
/// false when that takes more than `max_rounds` rounds, which these monotone equations never
/// need (so it reports a bug instead of looping).
fn to_fixpoint(max_rounds: usize, mut round: impl FnMut() -> bool) -> bool {
    (0..max_rounds).any(|_| !round())
}

#[cfg(test)]
mod tests;
