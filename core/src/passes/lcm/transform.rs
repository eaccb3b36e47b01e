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
use super::split::{remove_entry_if_empty, unsplit_if_empty, Splits};
use super::trace::{Edit, Point, Temp};
use crate::entity::EntitySet;
use crate::ir::{BrilOp, Function, Imm, Inst, InstId, Op, ValueDef};
use std::collections::HashSet;

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
    for &b in &g.rpo {
        let mut del = p.get(Pred::NComp)[b].clone();
        del.subtract(&p.get(Pred::NLatest)[b]);
        moved.union_with(&del);
        let mut ins = p.get(Pred::XLatest)[b].clone();
        ins.subtract(&p.get(Pred::XComp)[b]);
        moved.union_with(&ins);
        let mut ins = p.get(Pred::NLatest)[b].clone();
        ins.subtract(&p.get(Pred::NComp)[b]);
        moved.union_with(&ins);
    }
    moved
}

/// A readable temporary name that no variable of `f` has: `add.a.b`, then `add.a.b.2`, ….
fn temp_name(taken: &mut HashSet<String>, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while taken.contains(&name) {
        name = format!("{base}.{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// Applies step 7 to `g` (the function after step 1) and removes unused split blocks.
pub fn transform(g: &Function, graph: &Graph, ex: &Exprs, p: &Predicates, splits: &Splits) -> Transformed {
    let mut f = g.clone();
    let n = ex.len();
    let moved = moved_exprs(graph, p, n);
    let mut edits = Vec::new();

    let mut taken: HashSet<String> = f.values.values().map(|v| v.name.clone()).collect();
    let mut temps = Vec::new();
    let mut temp_of = vec![None; n];
    for e in moved.iter() {
        let x = &ex.list[e];
        let base = x.text().replace(' ', ".");
        let name = temp_name(&mut taken, &base);
        let value = f.add_value(name.clone(), Some(x.ty.clone()), ValueDef::Var);
        temp_of[e.0 as usize] = Some(value);
        temps.push(Temp { expr: e, value, name });
    }
    // `t = e` as a fresh instruction.
    let make_comp = |f: &mut Function, e: ExprId| -> InstId {
        let x = &ex.list[e];
        let mut inst = Inst::new(Op::Bril(x.op.clone()));
        inst.results = temp_of[e.0 as usize].into_iter().collect();
        inst.args = x.arg_values.clone();
        inst.ty = Some(x.ty.clone());
        f.add_inst(inst)
    };

    let (ncomp, xcomp) = (p.get(Pred::NComp), p.get(Pred::XComp));
    let (nlatest, xlatest) = (p.get(Pred::NLatest), p.get(Pred::XLatest));
    for &b in &graph.rpo.clone() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        let mut killed = EntitySet::new_empty(n);
        let mut seen = EntitySet::new_empty(n);
        // NLatest without NComp (impossible by the equations, kept for robustness): insert
        // before the first modification, or at the end.
        let mut pending_entry = nlatest[b].clone();
        pending_entry.subtract(&ncomp[b]);
        pending_entry.intersect_with(&moved);
        for i in old {
            let kills = ex.kills(&f, &f.insts[i]);
            let mut due = pending_entry.clone();
            due.intersect_with(&kills);
            for e in due.iter() {
                let t = make_comp(&mut f, e);
                insts.push(t);
                edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Entry });
            }
            pending_entry.subtract(&due);

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
            killed.union_with(&kills);
        }
        for e in pending_entry.iter() {
            let t = make_comp(&mut f, e);
            insts.push(t);
            edits.push(Edit::Insert { expr: e, block: b, inst: t, at: Point::Entry });
        }
        // Exit insertion point: the end of the block, before its terminator.
        let mut exit = xlatest[b].clone();
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

/// Whether `i` is a `t = e` assigning temporary `t`.
fn is_temp_comp(f: &Function, i: InstId, t: Option<crate::ir::ValueId>) -> bool {
    let inst = &f.insts[i];
    t.is_some() && inst.results.first().copied() == t && inst.op != Op::Bril(BrilOp::Id)
}
