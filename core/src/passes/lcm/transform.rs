//! Step 7 of seed 004 (プログラム変形, after Morgan's `transform`), with the seed's
//! preparation: every computation `d = e` of an expression becomes `t = e; d = t`, one
//! temporary `t` per expression. Then, per block `n`:
//!
//! - `NComp(n) ∧ ¬NLatest(n)`: delete the first `t = e` of `n` (its entry computation);
//! - `NLatest(n)`: insert `t = e` at the entry insertion point — before the entry computation
//!   (the seed's rule; `NLatest ⇒ NComp` follows from the equations, so this re-inserts what
//!   the first rule would delete, and both are skipped);
//! - `XLatest(n) ∧ ¬XComp(n)`: insert `t = e` at the exit insertion point, the end of the
//!   block before its terminator.
//!
//! Only expressions with a real edit (a deletion or an exit insertion) are rewritten; every
//! other expression keeps its instructions exactly, with no temporary. Blocks step 1 added
//! that received nothing are removed again, so a function LCM does not change prints
//! exactly as it came in.

use super::exprs::{ExprId, Exprs};
use super::graph::Graph;
use super::predicates::{Pred, Predicates};
use super::split::{rebuild_branch, remove_entry_if_empty, unsplit_if_empty, Splits};
use super::trace::{Edit, Point, Temp};
use crate::entity::{EntityRef, EntitySet};
use crate::ir::{BlockId, BrilOp, Function, Imm, Inst, InstId, Op, ValueDef, ValueId};
use std::collections::{HashMap, HashSet};

pub struct Transformed {
    pub function: Function,
    pub moved: Vec<ExprId>,
    pub temps: Vec<Temp>,
    pub edits: Vec<Edit>,
}

/// The expressions step 7 changes: some block deletes a computation of it or inserts one
/// at its exit.
pub fn moved_exprs(g: &Graph, p: &Predicates, n_exprs: usize) -> EntitySet<ExprId> {
    let mut moved = EntitySet::new_empty(n_exprs);
    // One scratch set for the three differences of every block (a set allocated per
    // difference was 3 × 10^5 allocations at 10^5 blocks).
    let mut d = EntitySet::new_empty(n_exprs);
    for &b in &g.rpo {
        for (x, y) in [(Pred::NComp, Pred::NLatest), (Pred::XLatest, Pred::XComp), (Pred::NLatest, Pred::NComp)] {
            copy_into(&mut d, &p.get(x)[b]);
            d.subtract(&p.get(y)[b]);
            moved.union_with(&d);
        }
    }
    moved
}

/// A readable temporary name that no variable of `f` has (`names`) and no temporary made
/// before (`fresh`): `add.a.b`, then `add.a.b.2`, ….
fn temp_name(names: &foldhash::HashSet<&str>, fresh: &mut HashSet<String>, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while names.contains(name.as_str()) || fresh.contains(&name) {
        name = format!("{base}.{k}");
        k += 1;
    }
    fresh.insert(name.clone());
    name
}

/// Applies step 7 to `g` (the function after step 1) and removes unused split blocks.
pub fn transform(g: &Function, graph: &Graph, ex: &Exprs, p: &Predicates, splits: &Splits) -> Transformed {
    let mut f = g.clone();
    let n = ex.len();
    let moved = moved_exprs(graph, p, n);
    let mut edits = Vec::new();

    // The input's names, borrowed: an owned copy of every name was 10^6 allocations at 10^5
    // blocks, for a few hundred temporaries.
    let names: foldhash::HashSet<&str> = g.values.values().map(|v| v.name.as_str()).collect();
    let mut fresh: HashSet<String> = HashSet::new();
    let mut temps = Vec::new();
    let mut temp_of = vec![None; n];
    for e in moved.iter() {
        let x = &ex.list[e];
        let base = x.text().replace(' ', ".");
        let name = temp_name(&names, &mut fresh, &base);
        let value = f.add_value(name.clone(), Some(x.ty.clone()), ValueDef::Var);
        temp_of[e.0 as usize] = Some(value);
        temps.push(Temp { expr: e, value, name });
    }
    // `t = e` as a fresh instruction.
    let make_comp = |f: &mut Function, e: ExprId| -> InstId {
        let x = &ex.list[e];
        let mut inst = Inst::new(x.op.clone());
        inst.results = temp_of[e.0 as usize].into_iter().collect();
        inst.args = x.arg_values[..].into();
        inst.ty = Some(x.ty.clone());
        f.add_inst(inst)
    };

    let (ncomp, xcomp) = (p.get(Pred::NComp), p.get(Pred::XComp));
    let (nlatest, xlatest) = (p.get(Pred::NLatest), p.get(Pred::XLatest));
    // Scratch sets and lists reused across blocks and instructions: a set per block and
    // two per instruction were allocations by the million on a 10^5-block function (issue
    // 17). `kill_list` is an instruction's kills as a list (`Exprs::kills_into`).
    let (mut killed, mut seen, mut pending_entry, mut due, mut exit) =
        (EntitySet::new_empty(n), EntitySet::new_empty(n), EntitySet::new_empty(n), EntitySet::new_empty(n), EntitySet::new_empty(n));
    let mut kill_list: Vec<ExprId> = Vec::new();
    for &b in &graph.rpo {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        killed.clear();
        seen.clear();
        // NLatest without NComp (impossible by the equations, kept for robustness): insert
        // before the first modification, or at the end.
        copy_into(&mut pending_entry, &nlatest[b]);
        pending_entry.subtract(&ncomp[b]);
        pending_entry.intersect_with(&moved);
        for i in old {
            kill_list.clear();
            ex.kills_into(&f, &f.insts[i], &mut kill_list);
            if !pending_entry.is_empty() {
                due.clear();
                for &e in &kill_list {
                    if pending_entry.contains(e) {
                        due.insert(e);
                    }
                }
                for e in due.iter() {
                    let t = make_comp(&mut f, e);
                    insts.push(t);
                    edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Entry });
                }
                pending_entry.subtract(&due);
            }

            match ex.computes.get(i).copied().flatten().filter(|&e| moved.contains(e)) {
                Some(e) => {
                    let is_entry = !killed.contains(e) && seen.insert(e);
                    let t = make_comp(&mut f, e);
                    // `d = e` becomes `d = id t`, keeping its id, destination and type.
                    let inst = &mut f.insts[i];
                    inst.op = Op::Bril(BrilOp::Id);
                    inst.args = temp_of[e.0 as usize].into_iter().collect();
                    inst.imm = Imm::None;
                    edits.push(Edit::Split { expr: e, block: b, inst: i, temp: t });
                    if is_entry && ncomp[b].contains(e) && !nlatest[b].contains(e) {
                        edits.push(Edit::Delete { expr: e, block: b, inst: t });
                    } else {
                        if is_entry && nlatest[b].contains(e) {
                            edits.push(Edit::Keep { expr: e, block: b, inst: t, at: Point::Entry });
                        }
                        insts.push(t);
                    }
                    insts.push(i);
                }
                None => insts.push(i),
            }
            for &e in &kill_list {
                killed.insert(e);
            }
        }
        for e in pending_entry.iter() {
            let t = make_comp(&mut f, e);
            insts.push(t);
            edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Entry });
        }
        // Exit insertion point: the end of the block, before its terminator.
        copy_into(&mut exit, &xlatest[b]);
        exit.intersect_with(&moved);
        for e in exit.iter() {
            if xcomp[b].contains(e) {
                // The exit computation is the last computation of `e` in the block.
                if let Some(&last) = insts.iter().rev().find(|&&i| is_temp_comp(&f, i, temp_of[e.0 as usize])) {
                    edits.push(Edit::Keep { expr: e, block: b, inst: last, at: Point::Exit });
                }
            } else {
                let t = make_comp(&mut f, e);
                insts.push(t);
                edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Exit });
            }
        }
        f.blocks[b].insts = insts;
    }

    let mut unsplit = EntitySet::new_empty(f.blocks.len());
    for e in &splits.edges {
        if unsplit_if_empty(&mut f, e) {
            unsplit.insert(e.block);
            edits.push(Edit::Unsplit { block: e.block, from: e.from, to: e.to });
        }
    }
    if !unsplit.is_empty() {
        f.layout.retain(|&b| !unsplit.contains(b));
    }
    if let Some(entry) = splits.new_entry {
        if remove_entry_if_empty(&mut f, entry) {
            edits.push(Edit::RemoveEntry { block: entry });
        }
    }
    Transformed { function: f, moved: moved.iter().collect(), temps, edits }
}

/// `dst = src` for two sets over the same expressions, without allocating.
fn copy_into(dst: &mut EntitySet<ExprId>, src: &EntitySet<ExprId>) {
    dst.clear();
    dst.union_with(src);
}

/// Whether `i` is a `t = e` assigning temporary `t`.
fn is_temp_comp(f: &Function, i: InstId, t: Option<crate::ir::ValueId>) -> bool {
    let inst = &f.insts[i];
    t.is_some() && inst.results.first().copied() == t && inst.op != Op::Bril(BrilOp::Id)
}

/// Step 7 on SIL, in SSA form. The edits are the Bril ones — delete the entry computation
/// where `NComp ∧ ¬NLatest`, insert at the exit where `XLatest ∧ ¬XComp` — but there is no
/// temporary to assign in several places. Instead every kept or inserted computation of a
/// moved expression defines a value of its own, and the value that reaches each deleted
/// computation is found by SSA construction for that one "variable": block parameters (phis)
/// at the iterated dominance frontier of the blocks that compute it, pruned to the blocks
/// where it is live (a deleted computation is reached before it is recomputed), each
/// predecessor's branch passing the value reaching its end. The deleted computation's uses
/// are then rewritten to the value that reaches it. LCM's correctness (every deleted
/// computation is available on every path after the transformation) is what guarantees a
/// value exists everywhere it is asked for; if one does not, the run fails instead of
/// producing wrong code.
pub fn transform_sil(
    g: &Function,
    graph: &Graph,
    ex: &Exprs,
    p: &Predicates,
    splits: &Splits,
    dom: &super::regions::Dominance,
) -> Result<Transformed, String> {
    use crate::entity::EntityVec;

    let mut f = g.clone();
    let n = ex.len();
    let mut edits = Vec::new();
    let mut temps = Vec::new();
    let mut names = crate::ir::NumberedNames::new(&f);

    // A new computation of `e` defining a fresh value.
    let mut make_comp = |f: &mut Function, e: ExprId, temps: &mut Vec<Temp>| -> Result<InstId, String> {
        let x = &ex.list[e];
        // A copy of the expression's first occurrence (same opcode, operands, builtin name,
        // field and type annotations; only the result is new).
        let first = ex.occurrences.get(e).and_then(|o| o.first()).ok_or("a SIL expression without an occurrence")?;
        let mut inst = g.insts.get(*first).ok_or("an occurrence outside the function")?.clone();
        let name = names.fresh();
        let v = f.add_value(name.clone(), Some(x.ty.clone()), ValueDef::Var);
        inst.results.clear();
        inst.results.push(v);
        inst.span = crate::diag::Span::DUMMY;
        temps.push(Temp { expr: e, value: v, name: name.to_string() });
        Ok(f.add_inst(inst))
    };

    // Per block, sorted lists rather than vectors over all expressions: a large SIL function
    // is solved per region and has no dense vectors (`regions.rs`).
    let (ncomp, xcomp) = (p.lists(Pred::NComp), p.lists(Pred::XComp));
    let (nlatest, xlatest) = (p.lists(Pred::NLatest), p.lists(Pred::XLatest));
    let has = |list: &[ExprId], e: ExprId| list.binary_search(&e).is_ok();
    let mut is_moved = vec![false; n];
    for &b in &graph.rpo {
        let (nc, xc, nl, xl) = (&ncomp[b], &xcomp[b], &nlatest[b], &xlatest[b]);
        for &e in nc.iter().filter(|&&e| !has(nl, e)).chain(xl.iter().filter(|&&e| !has(xc, e))).chain(nl.iter().filter(|&&e| !has(nc, e))) {
            is_moved[e.0 as usize] = true;
        }
    }
    let moved: Vec<ExprId> = (0..n).filter(|&k| is_moved[k]).map(|k| ExprId(k as u32)).collect();
    // Per expression: deleted computations (block, position in the new list, old result).
    let mut deleted: Vec<Vec<(BlockId, usize, ValueId)>> = vec![Vec::new(); n];
    // `killed[e] == stamp`: modified so far in the block being rewritten; likewise `seen`
    // (computed), `kill_now` (modified by the current instruction).
    let (mut killed, mut seen, mut kill_now) = (vec![0u32; n], vec![0u32; n], vec![0u64; n]);
    let (mut stamp, mut inst_stamp) = (0u32, 0u64);
    let mut kills = Vec::new();
    for &b in &graph.rpo.clone() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        stamp += 1;
        let params = if f.entry() == Some(b) { Vec::new() } else { f.blocks[b].params.clone() };
        for &pv in &params {
            for &e in ex.using(&f, pv) {
                killed[e.0 as usize] = stamp;
            }
        }
        let mut pending_entry: Vec<ExprId> =
            nlatest[b].iter().copied().filter(|&e| !has(&ncomp[b], e) && is_moved[e.0 as usize]).collect();
        for i in old {
            kills.clear();
            ex.kills_into(&f, &f.insts[i], &mut kills);
            inst_stamp += 1;
            for &e in &kills {
                kill_now[e.0 as usize] = inst_stamp;
            }
            if !pending_entry.is_empty() {
                let (due, rest): (Vec<ExprId>, Vec<ExprId>) =
                    pending_entry.iter().partition(|&&e| kill_now[e.0 as usize] == inst_stamp);
                for e in due {
                    let t = make_comp(&mut f, e, &mut temps)?;
                    insts.push(t);
                    edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Entry });
                }
                pending_entry = rest;
            }
            match ex.computes.get(i).copied().flatten().filter(|&e| is_moved[e.0 as usize]) {
                Some(e) => {
                    let k = e.0 as usize;
                    let is_entry = killed[k] != stamp && seen[k] != stamp;
                    seen[k] = stamp;
                    if is_entry && has(&ncomp[b], e) && !has(&nlatest[b], e) {
                        edits.push(Edit::Delete { expr: e, block: b, inst: i });
                        deleted[k].push((b, insts.len(), f.insts[i].results[0]));
                    } else {
                        if is_entry && has(&nlatest[b], e) {
                            edits.push(Edit::Keep { expr: e, block: b, inst: i, at: Point::Entry });
                        }
                        insts.push(i);
                    }
                }
                None => insts.push(i),
            }
            for &e in &kills {
                killed[e.0 as usize] = stamp;
            }
        }
        for e in pending_entry {
            let t = make_comp(&mut f, e, &mut temps)?;
            insts.push(t);
            edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Entry });
        }
        for &e in xlatest[b].iter().filter(|&&e| is_moved[e.0 as usize]) {
            if has(&xcomp[b], e) {
                if let Some(&last) = insts.iter().rev().find(|&&i| ex.computes.get(i).copied().flatten() == Some(e)) {
                    edits.push(Edit::Keep { expr: e, block: b, inst: last, at: Point::Exit });
                }
            } else {
                let t = make_comp(&mut f, e, &mut temps)?;
                insts.push(t);
                edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Exit });
            }
        }
        f.blocks[b].insts = insts;
    }
    let mut defines: EntityVec<InstId, Option<ExprId>> = EntityVec::filled(f.insts.len(), None);
    for (i, e) in ex.computes.iter() {
        if let Some(e) = *e {
            defines[i] = Some(e);
        }
    }
    for edit in &edits {
        if let Edit::Insert { expr, inst, .. } = edit {
            defines[*inst] = Some(*expr);
        }
    }

    // SSA construction per moved expression that deleted something, touching only the blocks
    // it involves (its definitions, where it is live, its frontier, the dominators asked
    // about): a large function moves hundreds of expressions, and a pass over every block for
    // each was most of step 7.
    let (dt, df) = (&dom.tree, &dom.frontier);
    // Definitions of each such expression per block, in order: (position, value).
    let mut defs_of: Vec<HashMap<BlockId, Vec<(usize, ValueId)>>> = vec![HashMap::new(); n];
    for &b in &graph.rpo {
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            if let Some(e) = defines.get(i).copied().flatten().filter(|e| !deleted[e.0 as usize].is_empty()) {
                if let Some(&v) = f.insts[i].results.first() {
                    defs_of[e.0 as usize].entry(b).or_default().push((k, v));
                }
            }
        }
    }
    let mut replace: Vec<(ValueId, ValueId)> = Vec::new();
    let nb = f.blocks.len();
    // Liveness of every rewritten expression's value at once, as one bit per expression and
    // block (a backward least fixpoint): a deleted computation before any definition in its
    // block is an upward-exposed use; a block that defines the value ends its live range. Per
    // expression, a walk from each use would cross most of the function for each of hundreds
    // of expressions.
    let rewritten: Vec<ExprId> = moved.iter().copied().filter(|e| !deleted[e.0 as usize].is_empty()).collect();
    let words = rewritten.len().div_ceil(64);
    let (mut defs_bits, mut live) = (vec![0u64; nb * words], vec![0u64; nb * words]);
    for (m, &e) in rewritten.iter().enumerate() {
        let defs = &defs_of[e.0 as usize];
        for b in defs.keys() {
            defs_bits[b.index() * words + m / 64] |= 1 << (m % 64);
        }
        for &(b, pos, _) in &deleted[e.0 as usize] {
            if defs.get(&b).and_then(|d| d.first()).is_none_or(|d| pos <= d.0) {
                live[b.index() * words + m / 64] |= 1 << (m % 64);
            }
        }
    }
    let upward = live.clone();
    let mut changed = words > 0;
    while changed {
        changed = false;
        for &b in graph.rpo.iter().rev() {
            for k in 0..words {
                let mut out = 0;
                for &s in &graph.succs[b] {
                    out |= live[s.index() * words + k];
                }
                let i = b.index() * words + k;
                let v = upward[i] | (out & !defs_bits[i]);
                if v != live[i] {
                    live[i] = v;
                    changed = true;
                }
            }
        }
    }
    let live_in = |b: BlockId, m: usize| live[b.index() * words + m / 64] >> (m % 64) & 1 != 0;
    let mut idf_tag = vec![0u32; nb];
    let (mut memo_tag, mut memo): (Vec<u32>, Vec<Option<ValueId>>) = (vec![0; nb], vec![None; nb]);
    // The value at the exit of each block that defines the expression or has its phi,
    // valid where the tag is the expression's: the walks up the dominator tree below ask
    // every block they pass, and a hash lookup per step was most of step 7.
    let (mut out_tag, mut out_val): (Vec<u32>, Vec<ValueId>) = (vec![0; nb], vec![ValueId(0); nb]);
    for (m, &e) in rewritten.iter().enumerate() {
        let tag = m as u32 + 1;
        let dels = std::mem::take(&mut deleted[e.0 as usize]);
        let defs = std::mem::take(&mut defs_of[e.0 as usize]);
        for (b, d) in &defs {
            if let Some(&(_, v)) = d.last() {
                out_tag[b.index()] = tag;
                out_val[b.index()] = v;
            }
        }
        // Phis: the iterated dominance frontier of the defining blocks, where live.
        let mut phi_at: Vec<BlockId> = Vec::new();
        let mut work: Vec<BlockId> = defs.keys().copied().collect();
        while let Some(b) = work.pop() {
            for &j in df.get(b).map_or(&[][..], Vec::as_slice) {
                if idf_tag[j.index()] != tag {
                    idf_tag[j.index()] = tag;
                    work.push(j);
                    if live_in(j, m) {
                        phi_at.push(j);
                    }
                }
            }
        }
        phi_at.sort_unstable();
        let mut phi: HashMap<BlockId, ValueId> = HashMap::new();
        for &j in &phi_at {
            let name = names.fresh();
            let index = f.blocks[j].params.len() as u32;
            let v = f.add_value(name.clone(), Some(ex.list[e].ty.clone()), ValueDef::Param { block: j, index });
            f.blocks[j].params.push(v);
            phi.insert(j, v);
            if out_tag[j.index()] != tag {
                // A block's own last definition wins over its phi at its exit.
                out_tag[j.index()] = tag;
                out_val[j.index()] = v;
            }
            temps.push(Temp { expr: e, value: v, name: name.to_string() });
            edits.push(Edit::Phi { expr: e, block: j, value: v });
        }
        // The value at the exit of a block: its last definition, else its phi, else the value
        // at the exit of its immediate dominator (remembered along the way up).
        let (memo_tag, memo) = (&mut memo_tag, &mut memo);
        let (out_tag, out_val) = (&out_tag, &out_val);
        let mut at_out = |b: BlockId| -> Option<ValueId> {
            let mut path = Vec::new();
            let mut cur = Some(b);
            let v = loop {
                let Some(c) = cur else { break None };
                if memo_tag[c.index()] == tag {
                    break memo[c.index()];
                }
                if out_tag[c.index()] == tag {
                    break Some(out_val[c.index()]);
                }
                path.push(c);
                cur = dt.idom(c);
            };
            for c in path {
                memo_tag[c.index()] = tag;
                memo[c.index()] = v;
            }
            v
        };
        for &j in &phi_at {
            for &pb in &graph.preds[j] {
                let v = at_out(pb).ok_or_else(|| {
                    format!("the expression `{}` does not reach {} from {}", ex.list[e].text(), f.block_name(j), f.block_name(pb))
                })?;
                let Some(term) = f.blocks[pb].term else { return Err(format!("{} has no terminator", f.block_name(pb))) };
                if !matches!(f.insts[term].op, Op::Sil(crate::ir::SilOp::Br | crate::ir::SilOp::CondBr)) {
                    return Err(format!("{} cannot pass a new block argument", f.block_name(pb)));
                }
                for s in f.insts[term].succs.iter_mut().filter(|s| s.block == j) {
                    s.args.push(v);
                }
                rebuild_branch(&mut f, term);
            }
        }
        for (b, pos, old) in dels {
            let before = defs.get(&b).and_then(|d| d.iter().take_while(|&&(k, _)| k < pos).last()).map(|d| d.1);
            let at_in = || phi.get(&b).copied().or_else(|| dt.idom(b).and_then(&mut at_out));
            let v = before.or_else(at_in).ok_or_else(|| {
                format!("the expression `{}` is not available where {} computed it", ex.list[e].text(), f.block_name(b))
            })?;
            edits.push(Edit::Replace { expr: e, block: b, from: old, to: v });
            replace.push((old, v));
        }
    }
    if !replace.is_empty() {
        let map: std::collections::HashMap<ValueId, ValueId> = replace.into_iter().collect();
        let resolve = |mut v: ValueId| {
            while let Some(&w) = map.get(&v) {
                v = w;
            }
            v
        };
        let placed: Vec<InstId> = f.placed_insts().map(|(_, i)| i).collect();
        for i in placed {
            let inst = &mut f.insts[i];
            for a in inst.args.iter_mut() {
                *a = resolve(*a);
            }
            for s in inst.succs.iter_mut() {
                for a in s.args.iter_mut() {
                    *a = resolve(*a);
                }
            }
        }
    }

    let mut unsplit = EntitySet::new_empty(f.blocks.len());
    for e in &splits.edges {
        if unsplit_if_empty(&mut f, e) {
            unsplit.insert(e.block);
            edits.push(Edit::Unsplit { block: e.block, from: e.from, to: e.to });
        }
    }
    if !unsplit.is_empty() {
        f.layout.retain(|&b| !unsplit.contains(b));
    }
    Ok(Transformed { function: f, moved, temps, edits })
}
