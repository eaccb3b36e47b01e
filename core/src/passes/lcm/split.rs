//! Step 1 of seed 004 (危険辺の除去, "Eliminate critical edges").
//!
//! A critical edge runs from a block with two or more successors to a block with two or more
//! predecessors. Nothing can be inserted "on" it: the end of the source also feeds its other
//! successors and the start of the target also follows its other predecessors. A new empty
//! block on the edge gives LCM a place of its own. The seed's start node `s` has no
//! predecessors; a function whose first block is a loop target gets a fresh empty entry so
//! the equations' `B = s` cases hold.
//!
//! New blocks are named after the edge they sit on (`from_to`, `entry`; suffixed `_2`, `_3`…
//! if the name is taken) so a reader sees where they came from. Bril fall-through is kept
//! correct: a split block sits directly before its target and falls through into it when the
//! block there ends in a terminator; otherwise it follows its source (which ends in a branch)
//! and jumps explicitly. The fresh entry falls through into the old one.

use super::graph::Graph;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{branch_pieces, ArgTypes, Block, BlockId, BrilOp, Function, Inst, InstId, Lang, Op, SilOp, Succ, ValueId};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// A critical edge `from → to` and the block now on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitEdge {
    pub from: BlockId,
    pub to: BlockId,
    pub block: BlockId,
}

/// Everything step 1 added.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splits {
    /// The fresh start node, if the first block had predecessors.
    pub new_entry: Option<BlockId>,
    pub edges: Vec<SplitEdge>,
    /// SIL critical edges that cannot be split: out of a terminator other than `br`/`cond_br`
    /// (`switch_enum`, `checked_cast_br`, `try_apply` …), whose target's parameters are
    /// the terminator's own results, not arguments a new block could pass on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<(BlockId, BlockId)>,
}

impl Splits {
    /// Whether `b` is a block step 1 created.
    pub fn is_new(&self, b: BlockId) -> bool {
        self.new_entry == Some(b) || self.edges.iter().any(|e| e.block == b)
    }

    /// The blocks step 1 created, as a set over `n` blocks: [`Splits::is_new`] scans every
    /// split edge, which per block is quadratic on a large function.
    pub fn new_blocks(&self, n: usize) -> EntitySet<BlockId> {
        let mut set = EntitySet::new_empty(n);
        for b in self.new_entry.into_iter().chain(self.edges.iter().map(|e| e.block)) {
            if b.index() < n {
                set.insert(b);
            }
        }
        set
    }
}

/// Picks `base`, or `base_2`, `base_3`, … — the first name no block has.
fn fresh_name(taken: &mut HashSet<String>, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while taken.contains(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// Splits every critical edge of `f` (a Bril function) and gives it a predecessor-free entry.
pub fn split_critical_edges(f: &mut Function) -> Splits {
    let mut splits = Splits::default();
    // The block names, collected only if a block is added (a large function usually needs
    // none).
    let mut taken: Option<HashSet<String>> = None;
    let names = |f: &Function| -> HashSet<String> { f.blocks.values().map(|b| b.name.to_string()).collect() };

    let mut g = Graph::new(f);
    let sil = f.lang == Lang::Sil;
    if let Some(entry) = g.entry {
        // A SIL entry block has no predecessors (`sil-opt` rejects a branch to it), and its
        // parameters are the function's arguments: it already is the seed's start node.
        if g.all_preds[entry] > 0 && !sil {
            let name = fresh_name(taken.get_or_insert_with(|| names(f)), "entry");
            let b = f.blocks.push(Block::new(name));
            f.layout.insert(0, b);
            splits.new_entry = Some(b);
            // Recompute: the fresh entry added a predecessor to the old one.
            g = Graph::new(f);
        }
    }

    let old_layout = f.layout.clone();
    let mut edges = Vec::new();
    for &b in &old_layout {
        if g.succs.get(b).is_some_and(|s| s.len() >= 2) && f.blocks[b].term.is_some() {
            let plain = !sil
                || f.blocks[b].term.is_some_and(|t| matches!(f.insts[t].op, Op::Sil(SilOp::Br | SilOp::CondBr)));
            for &s in &g.succs[b] {
                if g.all_preds[s] >= 2 {
                    if plain {
                        edges.push((b, s));
                    } else {
                        splits.blocked.push((b, s));
                    }
                }
            }
        }
    }
    if edges.is_empty() {
        return splits;
    }

    // Where each new block goes. Directly before its target, falling through into it, if
    // nothing else falls through there (the block before the target ends in a terminator);
    // one such block per target. Otherwise right after the branching block, which ends in a
    // terminator, with an explicit `jmp`.
    let n = f.blocks.len();
    let mut pos_of: EntityVec<BlockId, usize> = EntityVec::filled(n, 0);
    for (k, &x) in old_layout.iter().enumerate() {
        pos_of[x] = k;
    }
    let mut before: EntityVec<BlockId, Option<BlockId>> = EntityVec::filled(n, None);
    let mut after: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(n, Vec::new());
    for (b, s) in edges {
        let name = format!("{}_{}", f.blocks[b].name, f.blocks[s].name);
        let name = fresh_name(taken.get_or_insert_with(|| names(f)), &name);
        let nb = f.blocks.push(Block::new(name));
        let mut moved_args = Vec::new();
        if let Some(term) = f.blocks[b].term {
            for succ in f.insts[term].succs.iter_mut().filter(|x| x.block == s) {
                succ.block = nb;
                // SIL: the new block passes the edge's arguments on (`cond_br %c, bb5, …`
                // then `bb5: br bb2(%x)`); they are defined where the edge starts.
                moved_args = std::mem::take(&mut succ.args).into_vec();
            }
        }
        splits.edges.push(SplitEdge { from: b, to: s, block: nb });
        if sil {
            if let Some(term) = f.blocks[b].term {
                rebuild_branch(f, term);
            }
            let br = make_br(f, s, moved_args);
            let j = f.add_inst(br);
            f.blocks[nb].term = Some(j);
            after[b].push(nb);
            continue;
        }
        let pos = pos_of[s];
        let prev_ends = pos > 0 && f.blocks[old_layout[pos - 1]].term.is_some();
        if prev_ends && before[s].is_none() {
            before[s] = Some(nb);
        } else {
            let mut jmp = Inst::new(Op::Bril(BrilOp::Jmp));
            jmp.succs.push(Succ::to(s));
            let j = f.add_inst(jmp);
            f.blocks[nb].term = Some(j);
            after[b].push(nb);
        }
    }
    let mut layout = Vec::with_capacity(old_layout.len() + splits.edges.len());
    for &x in &old_layout {
        layout.extend(before[x]);
        layout.push(x);
        layout.extend(after[x].iter().copied());
    }
    f.layout = layout;
    splits
}

/// Undoes a split whose block stayed empty (LCM inserted nothing there): the branch goes
/// straight to the target again. Returns whether it did; the caller then takes the block out
/// of the layout — once for all of them, as one `retain` per split edge was quadratic.
pub fn unsplit_if_empty(f: &mut Function, e: &SplitEdge) -> bool {
    let block = &f.blocks[e.block];
    if !block.insts.is_empty() {
        return false;
    }
    // SIL: the arguments the split block passed (perhaps new ones) go back onto the edge.
    let args = match block.term {
        Some(t) if f.lang == Lang::Sil => f.insts[t].succs.first().map(|s| s.args.clone()).unwrap_or_default(),
        _ => Default::default(),
    };
    if let Some(term) = f.blocks[e.from].term {
        for succ in f.insts[term].succs.iter_mut().filter(|x| x.block == e.block) {
            succ.block = e.to;
            succ.args = args.clone();
        }
        if f.lang == Lang::Sil {
            rebuild_branch(f, term);
        }
    }
    true
}

/// A SIL `br target(args)` with its printed form.
pub(crate) fn make_br(f: &Function, target: BlockId, args: Vec<ValueId>) -> Inst {
    let mut inst = Inst::new(Op::Sil(SilOp::Br));
    inst.succs.push(Succ { block: target, args: args.into() });
    if let Some(p) = branch_pieces(f, &inst, ArgTypes::Argument) {
        inst.sil = p;
    }
    inst
}

/// Rebuilds the printed form of a SIL `br`/`cond_br` after its successor arguments changed.
pub(crate) fn rebuild_branch(f: &mut Function, term: InstId) {
    if let Some(p) = branch_pieces(f, &f.insts[term], ArgTypes::Argument) {
        f.insts[term].sil = p;
    }
}


/// Removes the fresh entry again if nothing was inserted into it.
pub fn remove_entry_if_empty(f: &mut Function, entry: BlockId) -> bool {
    if !f.blocks[entry].insts.is_empty() || f.layout.first() != Some(&entry) {
        return false;
    }
    f.layout.remove(0);
    true
}
