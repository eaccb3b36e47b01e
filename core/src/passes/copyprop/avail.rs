//! Available copies (dragon book §9.1.x exercise "copy propagation", Muchnick §12.5): a
//! forward *must* problem. A copy `x ← y` is available at a point when on every path from the
//! entry to that point some instruction `x = id y` executed and neither `x` nor `y` was
//! assigned after it — so at that point `x` and `y` hold the same value.
//!
//! Copies are keyed by the pair `(x, y)`, not by the instruction. With one id per
//! instruction, `x = id y` written in both arms of a diamond would be two different facts,
//! each killed on the other arm's path, so neither would be available at the join even though
//! `x == y` holds there on every path. Keyed by the pair, both arms generate the same fact and
//! the intersection at the join keeps it. The pair is still a gen/kill bit (each instruction
//! kills it, generates it, or leaves it alone), so the problem stays distributive and the
//! round-robin fixpoint from ⊤ equals the meet over all paths — which is what the oracle test
//! (`tests/copyprop_oracle.rs`) checks by exploring paths.

use crate::cfg::Cfg;
use crate::dataflow::{run, Analysis, Direction, Facts};
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, BrilOp, Function, Inst, InstId, Op, ValueId};
use serde::{Deserialize, Serialize};

crate::entity_id!(
    /// A copy pair `dest ← src` (every instruction `dest = id src` with `dest ≠ src`).
    /// Displays as `c3`.
    CopyId,
    "c"
);

/// One copy pair and the instructions that make it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Copy {
    pub dest: ValueId,
    pub src: ValueId,
    /// Every placed `dest = id src`, in layout order.
    pub insts: Vec<InstId>,
}

/// `(dest, src)` if `inst` is a Bril copy `dest = id src` with `dest ≠ src`. Self-copies
/// `x = id x` are no copies: they say nothing about two variables and are left alone. An `id`
/// with the wrong number of operands (which `verify` does not reject) is an ordinary
/// instruction here.
pub fn as_copy(inst: &Inst) -> Option<(ValueId, ValueId)> {
    if inst.op != Op::Bril(BrilOp::Id) {
        return None;
    }
    match (inst.results.as_slice(), inst.args.as_slice()) {
        (&[d], &[s]) if d != s => Some((d, s)),
        _ => None,
    }
}

/// The available-copies analysis of one function: the copy table and the per-block facts.
#[derive(Clone, Debug)]
pub struct AvailCopies {
    pub copies: EntityVec<CopyId, Copy>,
    /// The copies each value takes part in (as destination or source): what assigning it kills.
    mentions: EntityVec<ValueId, Vec<CopyId>>,
    /// The copies whose destination is each value (on any one path at most one is available).
    by_dest: EntityVec<ValueId, Vec<CopyId>>,
    /// The copy each instruction generates.
    made_by: EntityVec<InstId, Option<CopyId>>,
    /// Blocks reachable from the entry; the facts of the others are ⊤ and mean nothing.
    pub reachable: EntitySet<BlockId>,
    /// `ins[b]`: copies available at the start of `b`; `outs[b]`: at its end; and the rounds.
    pub facts: Facts<EntitySet<CopyId>>,
}

struct Problem<'a> {
    a: &'a AvailCopies,
}

impl Analysis for Problem<'_> {
    type Fact = EntitySet<CopyId>;

    fn direction(&self) -> Direction {
        Direction::Forward
    }
    /// ⊤: every copy. A must-analysis starts optimistic and the fixpoint removes what some
    /// path does not establish; starting from ∅ would find no copy around any loop.
    fn init(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_full(self.a.copies.len())
    }
    /// Nothing is available on entry: parameters are assigned there, by no copy.
    fn boundary(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_empty(self.a.copies.len())
    }
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact) {
        into.intersect_with(other);
    }
    /// Kill then gen, instruction by instruction. An unreachable block yields ⊤, the identity
    /// of the meet, so an edge no execution takes cannot weaken the fact of a reachable join.
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact {
        if !self.a.reachable.contains(block) {
            return self.init(f);
        }
        let mut s = input.clone();
        for i in f.blocks[block].all_insts() {
            self.a.step(f, &mut s, i);
        }
        s
    }
}

impl AvailCopies {
    /// Collects the copies of `f` and solves the problem. `f` must be a Bril function that
    /// passed [`crate::ir::verify`] and `cfg` its graph (all ids are then in range).
    pub fn new(f: &Function, cfg: &Cfg) -> AvailCopies {
        let mut copies: EntityVec<CopyId, Copy> = EntityVec::new();
        let mut mentions: EntityVec<ValueId, Vec<CopyId>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut by_dest: EntityVec<ValueId, Vec<CopyId>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut made_by: EntityVec<InstId, Option<CopyId>> = EntityVec::filled(f.insts.len(), None);
        for (_, i) in f.placed_insts() {
            let Some((d, s)) = as_copy(&f.insts[i]) else { continue };
            let c = match by_dest[d].iter().copied().find(|&c| copies[c].src == s) {
                Some(c) => c,
                None => {
                    let c = copies.push(Copy { dest: d, src: s, insts: Vec::new() });
                    mentions[d].push(c);
                    mentions[s].push(c);
                    by_dest[d].push(c);
                    c
                }
            };
            copies[c].insts.push(i);
            made_by[i] = Some(c);
        }
        let mut reachable = EntitySet::new_empty(f.blocks.len());
        for &b in &f.layout {
            if cfg.is_reachable(b) {
                reachable.insert(b);
            }
        }
        let empty = Facts { ins: EntityVec::new(), outs: EntityVec::new(), rounds: Vec::new() };
        let mut a = AvailCopies { copies, mentions, by_dest, made_by, reachable, facts: empty };
        a.facts = run(&Problem { a: &a }, f, cfg);
        a
    }

    /// The effect of one instruction: every value it assigns kills the copies that mention
    /// that value; a copy instruction then makes its own pair available.
    pub fn step(&self, f: &Function, s: &mut EntitySet<CopyId>, i: InstId) {
        for &r in &f.insts[i].results {
            for &c in &self.mentions[r] {
                s.remove(c);
            }
        }
        if let Some(c) = self.made_by[i] {
            s.insert(c);
        }
    }

    /// Calls `visit(inst, available)` for each instruction of `block` in order (terminator
    /// last) with the copies available just before it.
    pub fn walk(&self, f: &Function, block: BlockId, mut visit: impl FnMut(InstId, &EntitySet<CopyId>)) {
        let mut s = self.facts.ins[block].clone();
        for i in f.blocks[block].all_insts() {
            visit(i, &s);
            self.step(f, &mut s, i);
        }
    }

    /// The copy `v ← w` in `s`, if one is available. On any single path the last assignment
    /// of `v` decides which copy of `v` holds, so at a reachable point at most one is.
    pub fn copy_of(&self, s: &EntitySet<CopyId>, v: ValueId) -> Option<CopyId> {
        self.by_dest.get(v)?.iter().copied().find(|&c| s.contains(c))
    }

    /// The copy instruction `i` makes, if any.
    pub fn made_by(&self, i: InstId) -> Option<CopyId> {
        self.made_by.get(i).copied().flatten()
    }

    /// `x = id y` with the function's names.
    pub fn copy_text(&self, f: &Function, c: CopyId) -> String {
        let c = &self.copies[c];
        format!("{} = id {}", f.value_name(c.dest), f.value_name(c.src))
    }
}
