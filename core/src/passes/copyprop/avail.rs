//! Available copies (dragon book §9.1.x exercise "copy propagation", Muchnick §12.5): a
//! forward *must* problem. A copy `x ← y` is available at a point when on every path from the
//! entry to that point some instruction `x = id y` executed and neither `x` nor `y` was
//! assigned after it — so at that point `x` and `y` hold the same value.
//!
//! It is the analysis of `holds.rs` with the fact "`x` holds the value of `y`": copies are
//! keyed by the pair `(x, y)`, not by the instruction, so `x = id y` written in both arms of a
//! diamond is one copy, available at the join.

use super::holds::{Holding, Holds, Point};
use crate::ir::{BrilOp, Function, Inst, InstId, Op, ValueId};
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

impl Holding for Copy {
    type Id = CopyId;

    fn of(inst: &Inst) -> Option<Copy> {
        as_copy(inst).map(|(dest, src)| Copy { dest, src, insts: Vec::new() })
    }
    fn holder(&self) -> ValueId {
        self.dest
    }
    fn reads(&self) -> &[ValueId] {
        std::slice::from_ref(&self.src)
    }
    fn same(&self, other: &Copy) -> bool {
        (self.dest, self.src) == (other.dest, other.src)
    }
    fn hash_key<H: std::hash::Hasher>(&self, h: &mut H) {
        std::hash::Hash::hash(&(self.dest, self.src), h);
    }
    fn insts_mut(&mut self) -> &mut Vec<InstId> {
        &mut self.insts
    }
    fn insts(&self) -> &[InstId] {
        &self.insts
    }
}

/// The available-copies analysis of one function: the copy table (`table`) and the per-block
/// facts.
pub type AvailCopies = Holds<Copy>;

impl AvailCopies {
    /// The copy `v ← w` in `s`, if one is available. On any single path the last assignment
    /// of `v` decides which copy of `v` holds, so at a reachable point at most one is.
    pub fn copy_of(&self, s: &Point<CopyId>, v: ValueId) -> Option<CopyId> {
        self.held_in(s, v)
    }

    /// `x = id y` with the function's names.
    pub fn copy_text(&self, f: &Function, c: CopyId) -> String {
        let c = &self.table[c];
        format!("{} = id {}", f.value_name(c.dest), f.value_name(c.src))
    }
}
