//! Reaching definitions (forward, may, union): which assignments of a Bril variable can be
//! the last one executed before a given point. ADCE on Bril (not SSA) uses it to find "the
//! definitions of an operand": every definition that reaches the use.
//!
//! The textbook formulation (Aho, Lam, Sethi, Ullman, *Compilers*, §9.2.4) keeps per block a
//! bit set over *all* definitions; with definitions and blocks both growing with the program
//! that is quadratic (issue 17: 342 MiB at 10^4 blocks, out of memory at 10^5). What DCE needs
//! is only the definitions reaching each *use*, so this solves the same equations one
//! variable at a time, on the part of the graph where that variable's answer is needed — the
//! sparse, per-variable form of the problem (as in Choi, Cytron and Ferrante's sparse
//! evaluation graphs, here without building them):
//!
//! - for a variable `v`, the blocks that read `v` before assigning it ("upward-exposed" uses)
//!   need the definitions of `v` reaching their entry;
//! - walking the CFG backwards from them through blocks that do not assign `v` gives the
//!   region whose entry sets matter; a predecessor that assigns `v` contributes its last
//!   assignment and is not entered; the entry block contributes the parameter `v`, if any;
//! - on that region the union equations are solved with sorted lists of `v`'s definitions
//!   (usually one to three reach a block).
//!
//! Each variable's region is the set of blocks where it is live (plus the uses' blocks), so
//! time and memory follow the size of the liveness sets and of the answer, not blocks ×
//! definitions. The answer is exactly the dense analysis's: a definition reaches a use iff
//! some CFG path — through unreachable blocks too — leads from it to the use without another
//! assignment of the variable.

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntityVec, Rows};
use crate::ir::{BlockId, Function, InstId, ValueId};
use serde::{Deserialize, Serialize};

crate::entity_id!(
    /// A definition site: an assigning instruction or a function parameter.
    DefId,
    "d"
);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefSite {
    /// The function's `index`-th parameter, defined on entry.
    Param(u32),
    Inst(InstId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    pub value: ValueId,
    pub site: DefSite,
}

/// For one instruction, each operand with the definitions of it that reach the instruction.
pub type OperandDefs = Vec<(ValueId, Vec<DefId>)>;

/// Reaching definitions of a function, kept only where they are read.
#[derive(Clone, Debug)]
pub struct ReachingDefs {
    pub defs: EntityVec<DefId, Def>,
    /// Definitions of each value, in increasing id order.
    by_value: Grouped<DefId>,
    /// The definitions each instruction makes.
    by_inst: Grouped<DefId>,
    /// Per block, each variable it reads before assigning, with the definitions of it that
    /// reach the block's entry (sorted by variable): `(variable, start, end)`, the
    /// definitions being `entry_defs[start..end]` in id order. Flat rather than a list per
    /// block and per variable: those were two allocations per block and use, a tenth of the
    /// analysis on a 10^5-block function (issue 17).
    entry: Grouped<(ValueId, u32, u32)>,
    entry_defs: Vec<DefId>,
    /// Blocks visited by the per-variable backward walks, summed over the variables: the
    /// work the analysis did (tests check it stays near the size of the liveness sets).
    pub visited: usize,
    /// Variables answered without a walk ([`from_entry`]): tests check the fast path is
    /// taken and still gives the dense analysis's answer.
    pub direct: usize,
}

/// Lists of items filed under dense keys, in compressed rows (`Rows::of` reads key `k`'s,
/// none for a key out of range): a `Vec` per variable and per instruction was one allocation
/// per instruction of the function, several times over, for lists mostly of length 0 or 1.
type Grouped<T> = Rows<usize, T>;

/// `pairs` (key, item) filed by key with a counting sort; items under one key stay in the
/// order given.
fn grouped<T: Copy>(keys: usize, pairs: &[(u32, T)]) -> Grouped<T> {
    Rows::grouped(keys, pairs.iter().map(|&(k, x)| (k as usize, x)))
}

/// `out = a ∪ b` for sorted, duplicate-free lists.
fn merge_sorted(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// Whether sorted `a` ⊆ sorted `b`: most merges add nothing, and checking is cheaper than
/// writing the union out.
fn is_subset(a: &[u32], b: &[u32]) -> bool {
    if a.len() > b.len() {
        return false;
    }
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// The one definition of a variable defined once, in the entry block, and not read there
/// before it: `one: int = const 1` at the top of a Bril function. Such a definition reaches a
/// block's entry iff a path of at least one edge leads there from the entry block, that is,
/// iff the block (not the entry: it has no upward-exposed use) is reachable — no walk over
/// the blocks where the variable is live (every block, for a constant read in a loop) needed.
fn from_entry(fentry: Option<BlockId>, vdefs: &[DefId], defs: &EntityVec<DefId, Def>, last: &[(BlockId, DefId)], uses: &[BlockId]) -> Option<DefId> {
    let (&[d], &[(b, _)]) = (vdefs, last) else { return None };
    let entry = fentry?;
    (matches!(defs[d].site, DefSite::Inst(_)) && b == entry && !uses.contains(&entry)).then_some(d)
}

/// Which blocks a path from `entry` reaches (the entry itself included).
fn reachable_from(cfg: &Cfg, entry: Option<BlockId>, nb: usize) -> Vec<bool> {
    let mut seen = vec![false; nb];
    let mut stack: Vec<BlockId> = entry.into_iter().collect();
    for &b in &stack {
        seen[b.index()] = true;
    }
    while let Some(b) = stack.pop() {
        for &s in cfg.succs(b) {
            if !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    seen
}

impl ReachingDefs {
    pub fn new(f: &Function, cfg: &Cfg) -> ReachingDefs {
        let nb = f.blocks.len();
        let nv = f.values.len();
        let mut defs = EntityVec::new();
        let mut value_pairs: Vec<(u32, DefId)> = Vec::new();
        let mut inst_pairs: Vec<(u32, DefId)> = Vec::new();
        for (k, &p) in f.params.iter().enumerate() {
            let d = defs.push(Def { value: p, site: DefSite::Param(k as u32) });
            value_pairs.push((p.0, d));
        }
        for (_, i) in f.placed_insts() {
            for &v in &f.insts[i].results {
                let d = defs.push(Def { value: v, site: DefSite::Inst(i) });
                value_pairs.push((v.0, d));
                inst_pairs.push((i.0, d));
            }
        }
        // A definition's position among its variable's definitions: its bit in the
        // per-variable sets.
        let mut local: EntityVec<DefId, u32> = EntityVec::filled(defs.len(), 0);
        let by_value = grouped(nv, &value_pairs);
        let by_inst = grouped(f.insts.len(), &inst_pairs);
        drop((value_pairs, inst_pairs));
        for list in (0..nv).map(|v| by_value.of(v)) {
            for (k, &d) in list.iter().enumerate() {
                local[d] = k as u32;
            }
        }

        // One scan of every placed block: its upward-exposed uses and its last definition of
        // each variable it assigns, filed per variable. `stamp` marks what the current block
        // has seen (block index + 1), so the scan needs no per-block set.
        let mut use_pairs: Vec<(u32, BlockId)> = Vec::new();
        let mut last_pairs: Vec<(u32, (BlockId, DefId))> = Vec::new();
        let mut assigned: EntityVec<ValueId, u32> = EntityVec::filled(nv, 0);
        let mut read: EntityVec<ValueId, u32> = EntityVec::filled(nv, 0);
        let mut last_here: Vec<(ValueId, DefId)> = Vec::new();
        for &b in &f.layout {
            let Some(block) = f.blocks.get(b) else { continue };
            let stamp = b.0 + 1;
            last_here.clear();
            for i in block.all_insts() {
                let Some(inst) = f.insts.get(i) else { continue };
                for v in inst.uses() {
                    if v.index() < nv && assigned[v] != stamp && read[v] != stamp {
                        read[v] = stamp;
                        use_pairs.push((v.0, b));
                    }
                }
                for &d in by_inst.of(i.index()) {
                    let v = defs[d].value;
                    if assigned[v] != stamp {
                        assigned[v] = stamp;
                        last_here.push((v, d));
                    } else if let Some(slot) = last_here.iter_mut().find(|(x, _)| *x == v) {
                        slot.1 = d;
                    }
                }
            }
            for &(v, d) in &last_here {
                last_pairs.push((v.0, (b, d)));
            }
        }

        // (block, (variable, start, end)) in variable order, filed per block at the end.
        let mut entry_pairs: Vec<(u32, (ValueId, u32, u32))> = Vec::new();
        let mut entry_defs: Vec<DefId> = Vec::new();
        // Scratch tables, reset after each variable: the last definition a block makes
        // (local index + 1), and a block's position in the current region (+ 1).
        let mut last_of: EntityVec<BlockId, u32> = EntityVec::filled(nb, 0);
        let mut slot_of: EntityVec<BlockId, u32> = EntityVec::filled(nb, 0);
        let mut region: Vec<BlockId> = Vec::new();
        // Per region block, its entry set (the fixed part first, then the fixpoint's), and
        // its predecessors inside the region as region positions (`rpreds[rstart[r]..
        // rstart[r + 1]]`): recorded by the walk, so the fixpoint reads neither the CFG nor
        // the block tables again — those scattered reads were most of the analysis.
        let mut sets: Vec<Vec<u32>> = Vec::new();
        let mut rpreds: Vec<u32> = Vec::new();
        let mut rstart: Vec<u32> = Vec::new();
        let mut merged: Vec<u32> = Vec::new();
        let mut queued: Vec<bool> = Vec::new();
        // Per region block, its successors inside the region (region positions, CSR like
        // `rpreds`): the inverse of `rpreds`, so the fixpoint does not read the CFG's
        // successor lists, scattered over the function (a fifth of the analysis was that
        // read's cache misses).
        let mut rsuccs: Vec<u32> = Vec::new();
        let mut sstart: Vec<u32> = Vec::new();
        let mut work: Vec<u32> = Vec::new();
        let mut visited = 0;
        let mut direct = 0;
        let fentry = f.entry();
        // Where a failing Bril `guard` jumps, the variables are those saved at the matching
        // `speculate`, which any definition may have set: every definition of a variable
        // reaches such a block (a sound over-approximation; the match is dynamic).
        let mut rollback = Vec::new();
        for &b in &f.layout {
            let term = f.blocks.get(b).and_then(|blk| blk.term).and_then(|t| f.insts.get(t));
            if let Some(fail) = term.filter(|i| i.op == crate::ir::Op::Bril(crate::ir::BrilOp::Guard)).and_then(|i| i.succs.get(1)) {
                rollback.resize(nb, false);
                if fail.block.index() < nb {
                    rollback[fail.block.index()] = true;
                }
            }
        }
        // Blocks reachable from the entry, computed when first needed (see `from_entry`).
        let mut reachable: Option<Vec<bool>> = None;
        let uses_in = grouped(nv, &use_pairs);
        let last_defs = grouped(nv, &last_pairs);
        drop((use_pairs, last_pairs));
        for v in (0..nv).map(ValueId::new) {
            let uses = uses_in.of(v.index());
            if uses.is_empty() {
                continue;
            }
            let vdefs = by_value.of(v.index());
            let lasts = last_defs.of(v.index());
            if let Some(d) = from_entry(fentry, vdefs, &defs, lasts, uses) {
                let reach = reachable.get_or_insert_with(|| reachable_from(cfg, fentry, nb));
                // One stored copy of `d` that every reachable use block's range points to.
                let at = entry_defs.len() as u32;
                entry_defs.push(d);
                for &b in uses {
                    let end = if reach[b.index()] { at + 1 } else { at };
                    entry_pairs.push((b.0, (v, at, end)));
                }
                direct += 1;
                continue;
            }
            for &(b, d) in lasts {
                last_of[b] = local[d] + 1;
            }
            // The region: the use blocks and every block reaching one of them without
            // assigning `v`. Each region block's fixed entry set is filled on the way: the
            // last definitions of its assigning predecessors, and the parameter at the
            // function's entry. Sets are sorted lists of `v`'s definition indices: a few
            // definitions reach a block where a bit set over all of `v`'s definitions per
            // region block was quadratic for a variable assigned all over the function.
            region.clear();
            rpreds.clear();
            rstart.clear();
            for &b in uses {
                slot_of[b] = region.len() as u32 + 1;
                region.push(b);
            }
            let mut k = 0;
            while k < region.len() {
                let b = region[k];
                // The lists are kept across variables (cleared, not dropped): one allocation
                // per region block per variable was a large part of the analysis.
                if sets.len() <= k {
                    sets.push(Vec::new());
                }
                let set = &mut sets[k];
                set.clear();
                rstart.push(rpreds.len() as u32);
                if Some(b) == fentry {
                    set.extend(vdefs.iter().filter(|&&d| matches!(defs[d].site, DefSite::Param(_))).map(|&d| local[d]));
                }
                if rollback.get(b.index()).copied().unwrap_or(false) {
                    set.extend(0..vdefs.len() as u32);
                }
                // The CFG's own compressed rows (one flat array, read once per region block of
                // every variable's walk).
                for &p in cfg.preds(b) {
                    if last_of[p] != 0 {
                        set.push(last_of[p] - 1);
                        continue;
                    }
                    if slot_of[p] == 0 {
                        slot_of[p] = region.len() as u32 + 1;
                        region.push(p);
                    }
                    let q = slot_of[p] - 1;
                    if q as usize != k {
                        rpreds.push(q);
                    }
                }
                set.sort_unstable();
                set.dedup();
                k += 1;
            }
            rstart.push(rpreds.len() as u32);
            visited += region.len();
            // Successors in the region: `r` is a successor of each `q` in `rpreds[r]`
            // (a counting sort; a self-loop is in neither list, and needs no revisit).
            let n = region.len();
            sstart.clear();
            sstart.resize(n + 1, 0);
            for &q in &rpreds {
                sstart[q as usize + 1] += 1;
            }
            for r in 0..n {
                sstart[r + 1] += sstart[r];
            }
            rsuccs.clear();
            rsuccs.resize(rpreds.len(), 0);
            {
                let mut next = sstart.clone();
                for r in 0..n {
                    for &q in &rpreds[rstart[r] as usize..rstart[r + 1] as usize] {
                        rsuccs[next[q as usize] as usize] = r as u32;
                        next[q as usize] += 1;
                    }
                }
            }
            // Union over the non-assigning predecessors (all in the region), to the
            // fixpoint, pushed forwards: a block whose set grew merges it into each successor
            // (a block that assigns `v` passes on its own definition instead, already in its
            // successors' fixed parts, and has none here). Each set grows at most once per
            // definition of `v`, so the work is edges × definitions — pulling every
            // predecessor's set into a block each time one of them changed was a join's
            // predecessors squared. The walk found blocks backwards, so popping from the end
            // of the list visits them roughly forwards.
            queued.clear();
            queued.resize(region.len(), true);
            work.clear();
            work.extend(0..region.len() as u32);
            while let Some(r) = work.pop() {
                let r = r as usize;
                queued[r] = false;
                for &s in &rsuccs[sstart[r] as usize..sstart[r + 1] as usize] {
                    let s = s as usize;
                    if is_subset(&sets[r], &sets[s]) {
                        continue;
                    }
                    merged.clear();
                    merge_sorted(&sets[s], &sets[r], &mut merged);
                    std::mem::swap(&mut sets[s], &mut merged);
                    if !queued[s] {
                        queued[s] = true;
                        work.push(s as u32);
                    }
                }
            }
            for &b in uses {
                let r = slot_of[b] as usize - 1;
                let at = entry_defs.len() as u32;
                entry_defs.extend(sets[r].iter().map(|&k| vdefs[k as usize]));
                entry_pairs.push((b.0, (v, at, entry_defs.len() as u32)));
            }
            for &(b, _) in lasts {
                last_of[b] = 0;
            }
            for &b in &region {
                slot_of[b] = 0;
            }
        }
        let entry = grouped(nb, &entry_pairs);
        ReachingDefs { defs, by_value, by_inst, entry, entry_defs, visited, direct }
    }

    /// The definitions of `v` reaching the entry of `block`, where the block reads `v`
    /// before assigning it (empty for any other variable).
    fn at_entry(&self, block: BlockId, v: ValueId) -> &[DefId] {
        let entry = self.entry.of(block.index());
        match entry.binary_search_by_key(&v, |e| e.0) {
            Ok(k) => &self.entry_defs[entry[k].1 as usize..entry[k].2 as usize],
            Err(_) => &[],
        }
    }

    /// Calls `visit(inst, operand, defs)` for each instruction of `block` in order
    /// (terminator last) and each of its distinct operands in order of first appearance, with
    /// the definitions of the operand reaching the instruction in id order: what
    /// [`ReachingDefs::uses_in_block`] lists, without a list per instruction and operand (DCE
    /// reads every reachable block's uses; those lists were a fifth of its marking).
    pub fn visit_uses_in_block(&self, f: &Function, block: BlockId, mut visit: impl FnMut(InstId, ValueId, &[DefId])) {
        // The definitions made so far in the block: the last one of each variable.
        let mut here: Vec<(ValueId, DefId)> = Vec::new();
        let mut seen: Vec<ValueId> = Vec::new();
        for i in f.blocks[block].all_insts() {
            seen.clear();
            for v in f.insts[i].uses() {
                if seen.contains(&v) {
                    continue;
                }
                seen.push(v);
                match here.iter().find(|(x, _)| *x == v) {
                    Some((_, d)) => visit(i, v, std::slice::from_ref(d)),
                    None => visit(i, v, self.at_entry(block, v)),
                }
            }
            for &d in self.by_inst.of(i.index()) {
                let v = self.defs[d].value;
                match here.iter_mut().find(|(x, _)| *x == v) {
                    Some(slot) => slot.1 = d,
                    None => here.push((v, d)),
                }
            }
        }
    }

    /// For each instruction of `block` in order (terminator last), the definitions of each of
    /// its operands that reach it: `(inst, [(operand, defs)])`.
    pub fn uses_in_block(&self, f: &Function, block: BlockId) -> Vec<(InstId, OperandDefs)> {
        // The definitions made so far in the block: the last one of each variable.
        let mut here: Vec<(ValueId, DefId)> = Vec::new();
        let mut out = Vec::new();
        for i in f.blocks[block].all_insts() {
            let mut per_use: OperandDefs = Vec::new();
            for v in f.insts[i].uses() {
                if per_use.iter().any(|(u, _)| *u == v) {
                    continue;
                }
                let reaching = match here.iter().find(|(x, _)| *x == v) {
                    Some(&(_, d)) => vec![d],
                    None => self.at_entry(block, v).to_vec(),
                };
                per_use.push((v, reaching));
            }
            out.push((i, per_use));
            for &d in self.by_inst.of(i.index()) {
                let v = self.defs[d].value;
                match here.iter_mut().find(|(x, _)| *x == v) {
                    Some(slot) => slot.1 = d,
                    None => here.push((v, d)),
                }
            }
        }
        out
    }

    /// All definitions of a value.
    pub fn defs_of(&self, v: ValueId) -> &[DefId] {
        self.by_value.of(v.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::{run, Analysis, Direction};
    use crate::entity::EntitySet;
    use crate::ir::Lang;

    /// The textbook dense analysis, kept as the oracle.
    struct Dense<'a> {
        rd: &'a ReachingDefs,
        params: EntitySet<DefId>,
    }

    impl Analysis for Dense<'_> {
        type Fact = EntitySet<DefId>;
        fn direction(&self) -> Direction {
            Direction::Forward
        }
        fn init(&self, _f: &Function) -> Self::Fact {
            EntitySet::new_empty(self.rd.defs.len())
        }
        fn boundary(&self, _f: &Function) -> Self::Fact {
            self.params.clone()
        }
        fn meet(&self, into: &mut Self::Fact, other: &Self::Fact) {
            into.union_with(other);
        }
        fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact {
            let mut s = input.clone();
            for i in f.blocks[block].all_insts() {
                dense_step(self.rd, &mut s, i);
            }
            s
        }
    }

    fn dense_step(rd: &ReachingDefs, s: &mut EntitySet<DefId>, i: InstId) {
        for &d in rd.by_inst.of(i.index()) {
            for &k in rd.by_value.of(rd.defs[d].value.index()) {
                s.remove(k);
            }
            s.insert(d);
        }
    }

    /// Every use's reaching definitions, by the dense analysis.
    fn dense_uses(f: &Function, cfg: &Cfg, rd: &ReachingDefs) -> Vec<(InstId, OperandDefs)> {
        let mut params = EntitySet::new_empty(rd.defs.len());
        for (d, def) in rd.defs.iter() {
            if matches!(def.site, DefSite::Param(_)) {
                params.insert(d);
            }
        }
        let facts = run(&Dense { rd, params }, f, cfg);
        // The recorded diffs replayed from the start value give the fixpoint again.
        let mut outs = EntityVec::filled(f.blocks.len(), EntitySet::<DefId>::new_empty(rd.defs.len()));
        for r in &facts.rounds {
            for c in &r.changes {
                crate::dataflow::Lattice::apply(&mut outs[c.block], &c.delta);
            }
        }
        assert_eq!(outs, facts.outs);
        let mut all = Vec::new();
        for &b in &f.layout {
            let mut s = facts.ins[b].clone();
            for i in f.blocks[b].all_insts() {
                let mut per_use: OperandDefs = Vec::new();
                for v in f.insts[i].uses() {
                    if per_use.iter().any(|(u, _)| *u == v) {
                        continue;
                    }
                    per_use.push((v, rd.by_value.of(v.index()).iter().copied().filter(|&d| s.contains(d)).collect()));
                }
                all.push((i, per_use));
                dense_step(rd, &mut s, i);
            }
        }
        all
    }

    fn sparse_uses(f: &Function, rd: &ReachingDefs) -> Vec<(InstId, OperandDefs)> {
        f.layout.iter().flat_map(|&b| rd.uses_in_block(f, b)).collect()
    }

    #[test]
    fn sparse_answers_equal_the_dense_analysis_on_generated_programs() {
        for seed in 0..60 {
            let g = crate::testgen::generate(seed, &crate::testgen::GenConfig::default());
            for f in &g.module.functions {
                let cfg = Cfg::new(f);
                let rd = ReachingDefs::new(f, &cfg);
                assert_eq!(sparse_uses(f, &rd), dense_uses(f, &cfg, &rd), "seed {seed}, @{}", f.name);
            }
        }
    }

    /// A long `else if` chain whose arms each assign `x` (or not) and jump to one join that
    /// reads it: a join with a predecessor per arm, where the fixpoint once pulled every
    /// predecessor's set again for each one that changed.
    #[test]
    fn a_wide_join_below_a_deep_chain_reaches_like_the_dense_analysis() {
        let mut text = String::from("@main(c: bool, x: int) {\n");
        for i in 0..120 {
            text += &format!(".c{i}:\n  br c .a{i} .c{}n;\n.a{i}:\n", i + 1);
            if i % 3 != 0 {
                text += &format!("  x: int = const {i};\n");
            }
            text += "  jmp .join;\n";
            text += &format!(".c{}n:\n", i + 1);
        }
        text += ".join:\n  print x;\n}\n";
        let m = crate::parse_module(Lang::Bril, "t.bril", &text).unwrap();
        let f = &m.functions[0];
        let cfg = Cfg::new(f);
        let rd = ReachingDefs::new(f, &cfg);
        let sparse = sparse_uses(f, &rd);
        assert_eq!(sparse, dense_uses(f, &cfg, &rd));
        // The join's `print x` sees the parameter and the 80 arms' constants.
        let at_join = sparse.iter().find(|(i, _)| f.insts[*i].op == crate::ir::Op::Bril(crate::ir::BrilOp::Print)).unwrap();
        assert_eq!(at_join.1[0].1.len(), 81);
    }

    #[test]
    fn unreachable_blocks_and_parameters_reach_like_the_dense_analysis() {
        // `.dead` is unreachable but jumps into `.join`: its definition reaches there, as in
        // the dense analysis; `p` reaches from the entry unless reassigned.
        let text = "@main(p: int, c: bool) {\n  x: int = const 1;\n  br c .a .join;\n.a:\n  p: int = add p x;\n  jmp .join;\n.dead:\n  x: int = const 9;\n  jmp .join;\n.join:\n  y: int = add p x;\n  print y;\n  jmp .loop;\n.loop:\n  x: int = add x y;\n  br c .loop .end;\n.end:\n  print x;\n}\n";
        let m = crate::parse_module(Lang::Bril, "t.bril", text).unwrap();
        let f = &m.functions[0];
        let cfg = Cfg::new(f);
        let rd = ReachingDefs::new(f, &cfg);
        assert_eq!(sparse_uses(f, &rd), dense_uses(f, &cfg, &rd));
    }

    /// The scale generator's programs define `one` and `two` once in the entry block and read
    /// them in loops all over the function: the fast path answers them, the walk the rest,
    /// and together they equal the dense analysis.
    #[test]
    fn entry_constants_take_the_fast_path_and_answer_like_the_dense_analysis() {
        for (n, seed) in [(20, 1), (60, 2), (150, 3), (150, 4)] {
            let text = crate::testgen::scale::bril_program(n, seed);
            let m = crate::parse_module(Lang::Bril, "t.bril", &text).unwrap();
            for f in &m.functions {
                let cfg = Cfg::new(f);
                let rd = ReachingDefs::new(f, &cfg);
                assert!(rd.direct >= 1, "n {n} seed {seed}: {} variables answered directly", rd.direct);
                assert_eq!(sparse_uses(f, &rd), dense_uses(f, &cfg, &rd), "n {n} seed {seed}");
            }
        }
    }

    /// The fast path's edges: a use in an unreachable block (no definition reaches it), a
    /// variable read in the entry before its one definition there (not taken: the entry
    /// must reach itself), a variable defined once outside the entry (not taken), and a
    /// parameter reassigned in the entry (two definitions: not taken).
    #[test]
    fn the_fast_path_is_taken_only_where_it_is_exact() {
        let text = "@main(p: int) {\n  k: int = const 1;\n  print z;\n  z: int = const 2;\n  p: int = add p k;\n  jmp .loop;\n.loop:\n  w: int = add k z;\n  print w;\n  print p;\n  br b .loop .end;\n.dead:\n  print k;\n  u: int = const 3;\n  jmp .loop;\n.end:\n  print u;\n  b: bool = const true;\n}\n";
        let m = crate::parse_module(Lang::Bril, "t.bril", text).unwrap();
        let f = &m.functions[0];
        let cfg = Cfg::new(f);
        let rd = ReachingDefs::new(f, &cfg);
        // `k` only: `z` is read in the entry first, `u` and `b` are defined elsewhere, `p`
        // twice, `w` is read where it is defined.
        assert_eq!(rd.direct, 1);
        let sparse = sparse_uses(f, &rd);
        assert_eq!(sparse, dense_uses(f, &cfg, &rd));
        let dead_print = sparse.iter().find(|(_, ops)| ops.iter().any(|(v, ds)| f.value_in_code(*v) == "k" && ds.is_empty()));
        assert!(dead_print.is_some(), "the unreachable `print k` has no reaching definition: {sparse:?}");
    }

    #[test]
    fn the_work_is_linear_on_a_long_chain_of_reassignments() {
        // 20,000 blocks, each reassigning one of 8 variables from two others: the dense
        // analysis needed 20,000 × 20,000 bits; the walks here stop at the next assignment.
        let text = crate::testgen::scale::bril_program(20_000, 3);
        let m = crate::parse_module(Lang::Bril, "t.bril", &text).unwrap();
        let f = &m.functions[0];
        let rd = ReachingDefs::new(f, &Cfg::new(f));
        let insts: usize = f.placed_insts().count();
        assert!(rd.visited < 4 * insts, "{} blocks visited for {insts} instructions", rd.visited);
    }
}
