//! The mark phase: the article's three conditions for a live statement (seed 000, after
//! Appel's *Modern Compiler Implementation*), with Swift's refinements:
//!
//! 1. roots — [`classify`] says which instructions are live by themselves;
//! 2. an operand's definition is live: in SIL the one defining instruction or block
//!    parameter; in Bril, which is not SSA, every definition that reaches the use
//!    ([`ReachingDefs`]); a live SIL block parameter makes each predecessor's terminator and
//!    the value it passes on that edge live;
//! 3. the terminators of the blocks a live block is control dependent on are live.
//!
//! Every marking appends an event with its reason, in marking order: roots first (layout
//! order), then breadth-first propagation, so the trace reads outward from the roots.

use super::classify::{classify, is_conditional_branch, is_ossa, Class};
use super::trace::{Event, Node, Phase, Reason, RootKind};
use crate::passes::Analyses;
use crate::dataflow::DefSite;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, InstId, Lang, ValueDef, ValueId};
use std::collections::VecDeque;

/// The result of marking.
pub(crate) struct Liveness {
    pub insts: EntitySet<InstId>,
    pub args: EntitySet<ValueId>,
    /// Blocks holding a live instruction or a live parameter (where dead branches may jump).
    pub blocks: EntitySet<BlockId>,
    /// The block of every instruction placed in a reachable block.
    pub block_of: EntityVec<InstId, Option<BlockId>>,
    /// Where each value of the input comes from, copied out of its `ValueData` in one pass:
    /// marking and the sweep ask it for every operand, and a 12-byte entry in a dense table
    /// is cheaper to fetch than a 120-byte `ValueData` somewhere in an arena of 10^5s (issue
    /// 17). Values the sweep adds (fresh `undef`s) are not in it.
    pub defs: EntityVec<ValueId, ValueDef>,
}

struct Marker<'a> {
    f: &'a Function,
    a: &'a Analyses,
    live: Liveness,
    /// Instructions that are live exactly when the key value is.
    reverse: EntityVec<ValueId, Vec<InstId>>,
    /// Bril: per instruction, each operand with each instruction defining it that reaches
    /// the use — `(operand, definition)` pairs in operand order, then definition order
    /// (parameters left out: they are always live).
    reaching: ReachTable,
    queue: VecDeque<InstId>,
    events: Vec<Event>,
}

pub(crate) fn mark(f: &Function, a: &Analyses, events: &mut Vec<Event>) -> Liveness {
    let ni = f.insts.len();
    let nv = f.values.len();
    let nb = f.blocks.len();
    // Filled by the roots pass in [`Marker::run`], which visits the same instructions (one
    // walk over the function instead of two).
    let block_of = EntityVec::filled(ni, None);
    // Bril only (SIL is SSA and has no reaching definitions): a table per instruction would
    // be a million empty entries at 10^5 SIL blocks.
    let reaching = a.reaching(f).map(|rd| ReachTable::new(f, a, rd)).unwrap_or_default();
    let mut m = Marker {
        f,
        a,
        live: Liveness {
            insts: EntitySet::new_empty(ni),
            args: EntitySet::new_empty(nv),
            blocks: EntitySet::new_empty(nb),
            block_of,
            defs: f.values.values().map(|d| d.def).collect(),
        },
        reverse: EntityVec::filled(nv, Vec::new()),
        reaching,
        queue: VecDeque::new(),
        events: std::mem::take(events),
    };
    m.run();
    *events = m.events;
    m.live
}

impl Marker<'_> {
    fn run(&mut self) {
        let f = self.f;
        let ossa = is_ossa(f);
        self.events.push(Event::Phase { phase: Phase::Roots });
        for &b in self.a.cfg.blocks() {
            if !self.a.cfg.is_reachable(b) {
                continue;
            }
            for i in f.blocks[b].all_insts() {
                if i.index() >= f.insts.len() {
                    continue;
                }
                self.live.block_of[i] = Some(b);
                match classify(f, i, ossa, self.a.types(f)) {
                    Class::Root(root) => self.mark_inst(i, Reason::Root { root }),
                    Class::Reverse(v) if v.index() < f.values.len() => self.reverse[v].push(i),
                    Class::Reverse(_) | Class::Normal => {}
                }
            }
        }
        self.events.push(Event::Phase { phase: Phase::Propagate });
        self.drain();
        self.keep_branches_without_live_post_dominator();
    }

    /// A conditional branch that is dead but has no live post-dominator to jump to (control
    /// may never reach an exit from it) is kept as it is — and so is what it reads. Marking
    /// one can give a later one a live post-dominator, hence one at a time, in layout order.
    fn keep_branches_without_live_post_dominator(&mut self) {
        let f = self.f;
        for &b in self.a.cfg.blocks() {
            if !self.a.cfg.is_reachable(b) {
                continue;
            }
            let Some(t) = f.blocks[b].term else { continue };
            if self.live.insts.contains(t) || !is_conditional_branch(&f.insts[t].op) {
                continue;
            }
            if nearest_live_post_dominator(self.a, &self.live, b).is_none() {
                self.mark_inst(t, Reason::Root { root: RootKind::NoLivePostDominator });
                self.drain();
            }
        }
    }

    fn drain(&mut self) {
        while let Some(i) = self.queue.pop_front() {
            self.propagate(i);
        }
    }

    fn mark_inst(&mut self, i: InstId, reason: Reason) {
        let Some(Some(block)) = self.live.block_of.get(i).copied() else { return };
        if self.live.insts.insert(i) {
            self.events.push(Event::Live { inst: i, block, reason });
            self.queue.push_back(i);
        }
    }

    /// SIL: marks the definition of `v` (instruction or parameter) live.
    fn mark_value(&mut self, v: ValueId, reason: Reason) {
        let Some(&def) = self.live.defs.get(v) else { return };
        match def {
            ValueDef::Result { inst, .. } => self.mark_inst(inst, reason),
            ValueDef::Param { block, index } => self.mark_arg(v, block, index, reason),
            ValueDef::Var | ValueDef::Undef => {}
        }
    }

    fn mark_arg(&mut self, v: ValueId, block: BlockId, index: u32, reason: Reason) {
        if !self.a.cfg.is_reachable(block) || !self.live.args.insert(v) {
            return;
        }
        self.events.push(Event::LiveArg { arg: v, block, reason });
        self.mark_block(block, Node::Arg(v));
        self.mark_reverse_deps(v, Node::Arg(v));
        // Every predecessor must deliver the argument: its terminator and, on each edge
        // into `block`, the value it passes.
        let mut preds: Vec<BlockId> = self.a.cfg.preds(block).to_vec();
        preds.dedup();
        for p in preds {
            let Some(t) = self.f.blocks[p].term else { continue };
            self.mark_inst(t, Reason::BranchFeedsLiveArg { arg: v, block });
            let incoming: Vec<ValueId> = self.f.insts[t]
                .succs
                .iter()
                .filter(|s| s.block == block)
                .filter_map(|s| s.args.get(index as usize).copied())
                .collect();
            for x in incoming {
                self.mark_value(x, Reason::IncomingValue { arg: v, block });
            }
        }
    }

    /// The first live thing in `block` makes the terminators it is control dependent on live.
    fn mark_block(&mut self, block: BlockId, via: Node) {
        if !self.live.blocks.insert(block) {
            return;
        }
        for &c in self.a.cdg.deps(block) {
            if let Some(t) = self.f.blocks[c].term {
                self.mark_inst(t, Reason::ControlDependence { block, via });
            }
        }
    }

    fn mark_reverse_deps(&mut self, v: ValueId, on: Node) {
        // Taken and put back rather than cloned: no list allocated per live value.
        let Some(deps) = self.reverse.get_mut(v).map(std::mem::take) else { return };
        for &d in &deps {
            self.mark_inst(d, Reason::ReverseDependency { on });
        }
        self.reverse[v] = deps;
    }

    fn propagate(&mut self, i: InstId) {
        let f = self.f;
        let Some(Some(block)) = self.live.block_of.get(i).copied() else { return };
        self.mark_block(block, Node::Inst(i));
        let inst = &f.insts[i];
        match f.lang {
            Lang::Sil => {
                // Operands only: a terminator's successor arguments are live per parameter.
                for &v in &inst.args {
                    self.mark_value(v, Reason::Operand { of: i });
                }
            }
            Lang::Bril => {
                let (start, end) = self.reaching.range(i);
                for k in start..end {
                    let (var, d) = self.reaching.pairs[k];
                    self.mark_inst(d, Reason::ReachingDef { use_in: i, var });
                }
            }
        }
        for &r in &inst.results {
            if f.lang == Lang::Sil {
                self.mark_reverse_deps(r, Node::Inst(i));
            }
        }
    }
}

/// The definitions reaching each use of a Bril function, flat: the pairs of instruction `i`
/// are `pairs[at[i].0..at[i].1]`. A list per instruction and another per operand were two
/// to three allocations per instruction of a 10^5-block function, freed again after marking
/// (issue 17: a third of marking).
#[derive(Default)]
struct ReachTable {
    at: EntityVec<InstId, (u32, u32)>,
    pairs: Vec<(ValueId, InstId)>,
}

impl ReachTable {
    /// Over the reachable blocks (marking visits no other).
    fn new(f: &Function, a: &Analyses, rd: &crate::dataflow::ReachingDefs) -> ReachTable {
        let mut t = ReachTable { at: EntityVec::filled(f.insts.len(), (0, 0)), pairs: Vec::new() };
        for &b in a.cfg.blocks() {
            if !a.cfg.is_reachable(b) {
                continue;
            }
            // The operands of one instruction come one after the other.
            let mut current: Option<InstId> = None;
            rd.visit_uses_in_block(f, b, |i, v, defs| {
                if current != Some(i) {
                    current = Some(i);
                    t.at[i] = (t.pairs.len() as u32, t.pairs.len() as u32);
                }
                let start = t.at[i].0;
                for &d in defs {
                    if let DefSite::Inst(j) = rd.defs[d].site {
                        t.pairs.push((v, j));
                    }
                }
                t.at[i] = (start, t.pairs.len() as u32);
            });
        }
        t
    }

    fn range(&self, i: InstId) -> (usize, usize) {
        self.at.get(i).map_or((0, 0), |&(s, e)| (s as usize, e as usize))
    }
}

/// Walks the post-dominator tree up from `b` to the first block holding something live;
/// `None` when the walk reaches the virtual exit.
pub(crate) fn nearest_live_post_dominator(a: &Analyses, live: &Liveness, b: BlockId) -> Option<BlockId> {
    let mut cur = a.pdom.idom(b);
    let mut steps = 0usize;
    while let Some(p) = cur {
        if live.blocks.contains(p) {
            return Some(p);
        }
        steps += 1;
        if steps > a.cfg.num_blocks() {
            return None;
        }
        cur = a.pdom.idom(p);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as marking built it before [`ReachTable`]: a list per instruction of each
    /// operand with the instructions defining it that reach it, from
    /// [`crate::dataflow::ReachingDefs::uses_in_block`] — kept as the oracle.
    fn lists(f: &Function, a: &Analyses) -> EntityVec<InstId, Vec<(ValueId, Vec<InstId>)>> {
        let rd = a.reaching(f).expect("Bril");
        let mut reaching = EntityVec::filled(f.insts.len(), Vec::new());
        for &b in a.cfg.blocks() {
            if !a.cfg.is_reachable(b) {
                continue;
            }
            for (i, uses) in rd.uses_in_block(f, b) {
                reaching[i] = uses
                    .into_iter()
                    .map(|(v, defs)| {
                        let sites = defs.into_iter().filter_map(|d| if let DefSite::Inst(j) = rd.defs[d].site { Some(j) } else { None }).collect();
                        (v, sites)
                    })
                    .collect();
            }
        }
        reaching
    }

    /// The flat table gives every instruction the `(operand, definition)` pairs, in the
    /// order, that the lists did: on generated Bril, the scale generator's programs and the
    /// Bril benchmarks.
    #[test]
    fn the_flat_table_lists_what_the_per_instruction_lists_did() {
        let mut fs: Vec<(String, Function)> = Vec::new();
        for seed in 0..80u64 {
            for f in crate::testgen::generate(seed, &crate::testgen::GenConfig::default()).module.bodies() {
                fs.push((format!("generated {seed}"), f.clone()));
            }
        }
        for (n, seed) in [(40, 1), (300, 3)] {
            let m = crate::parse_module(Lang::Bril, "t", &crate::testgen::scale::bril_program(n, seed)).expect("parses");
            fs.extend(m.bodies().map(|f| (format!("scale {n}"), f.clone())));
        }
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bril/benchmarks/core");
        let mut paths: Vec<_> = crate::testgen::files_under(&dir).into_iter().filter(|p| p.extension().is_some_and(|x| x == "bril")).collect();
        paths.sort();
        for path in paths {
            if let Ok(m) = crate::parse_module(Lang::Bril, "b.bril", &std::fs::read_to_string(&path).unwrap_or_default()) {
                fs.extend(m.bodies().map(|f| (path.display().to_string(), f.clone())));
            }
        }
        let (mut insts, mut pairs) = (0, 0);
        for (what, f) in &fs {
            let a = Analyses::new(f);
            let want = lists(f, &a);
            let got = ReachTable::new(f, &a, a.reaching(f).expect("Bril"));
            for (i, ops) in want.iter() {
                let flat: Vec<(ValueId, InstId)> = ops.iter().flat_map(|(v, ds)| ds.iter().map(move |&d| (*v, d))).collect();
                let (s, e) = got.range(i);
                assert_eq!(&got.pairs[s..e], &flat[..], "{what} @{} {i}", f.name);
                insts += 1;
                pairs += flat.len();
            }
        }
        assert!(fs.len() > 100 && insts > 5000 && pairs > 5000, "{} functions, {insts} instructions, {pairs} pairs", fs.len());
    }
}
