//! Reaching definitions (forward, may, union): which assignments of a Bril variable can be
//! the last one executed before a given point. ADCE on Bril (not SSA) uses it to find "the
//! definitions of an operand": every definition that reaches the use.

use super::{run, Analysis, Direction, Facts};
use crate::cfg::Cfg;
use crate::entity::{EntitySet, EntityVec};
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

/// Reaching definitions of a function, with per-block entry/exit sets.
#[derive(Clone, Debug)]
pub struct ReachingDefs {
    pub defs: EntityVec<DefId, Def>,
    /// Definitions of each value.
    by_value: EntityVec<ValueId, Vec<DefId>>,
    /// The definitions each instruction makes.
    by_inst: EntityVec<InstId, Vec<DefId>>,
    pub facts: Facts<EntitySet<DefId>>,
}

struct Problem<'a> {
    defs: &'a EntityVec<DefId, Def>,
    by_value: &'a EntityVec<ValueId, Vec<DefId>>,
    by_inst: &'a EntityVec<InstId, Vec<DefId>>,
    params: EntitySet<DefId>,
}

impl Analysis for Problem<'_> {
    type Fact = EntitySet<DefId>;

    fn direction(&self) -> Direction {
        Direction::Forward
    }
    fn init(&self, _f: &Function) -> Self::Fact {
        EntitySet::new_empty(self.defs.len())
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
            apply_inst(&mut s, self.by_inst, self.by_value, self.defs, i);
        }
        s
    }
}

fn apply_inst(
    s: &mut EntitySet<DefId>,
    by_inst: &EntityVec<InstId, Vec<DefId>>,
    by_value: &EntityVec<ValueId, Vec<DefId>>,
    defs: &EntityVec<DefId, Def>,
    i: InstId,
) {
    for &d in &by_inst[i] {
        for &k in &by_value[defs[d].value] {
            s.remove(k);
        }
        s.insert(d);
    }
}

impl ReachingDefs {
    pub fn new(f: &Function, cfg: &Cfg) -> ReachingDefs {
        let mut defs = EntityVec::new();
        let mut by_value: EntityVec<ValueId, Vec<DefId>> = EntityVec::filled(f.values.len(), Vec::new());
        let mut by_inst: EntityVec<InstId, Vec<DefId>> = EntityVec::filled(f.insts.len(), Vec::new());
        for (k, &p) in f.params.iter().enumerate() {
            let d = defs.push(Def { value: p, site: DefSite::Param(k as u32) });
            by_value[p].push(d);
        }
        for (_, i) in f.placed_insts() {
            for &v in &f.insts[i].results {
                let d = defs.push(Def { value: v, site: DefSite::Inst(i) });
                by_value[v].push(d);
                by_inst[i].push(d);
            }
        }
        let mut params = EntitySet::new_empty(defs.len());
        for (d, def) in defs.iter() {
            if matches!(def.site, DefSite::Param(_)) {
                params.insert(d);
            }
        }
        let facts = run(&Problem { defs: &defs, by_value: &by_value, by_inst: &by_inst, params }, f, cfg);
        ReachingDefs { defs, by_value, by_inst, facts }
    }

    /// For each instruction of `block` in order (terminator last), the definitions of each of
    /// its operands that reach it: `(inst, [(operand, defs)])`.
    pub fn uses_in_block(&self, f: &Function, block: BlockId) -> Vec<(InstId, OperandDefs)> {
        let mut s = self.facts.ins[block].clone();
        let mut out = Vec::new();
        for i in f.blocks[block].all_insts() {
            let mut per_use: OperandDefs = Vec::new();
            for v in f.insts[i].uses() {
                if per_use.iter().any(|(u, _)| *u == v) {
                    continue;
                }
                let reaching = self.by_value[v].iter().copied().filter(|&d| s.contains(d)).collect();
                per_use.push((v, reaching));
            }
            out.push((i, per_use));
            apply_inst(&mut s, &self.by_inst, &self.by_value, &self.defs, i);
        }
        out
    }

    /// All definitions of a value.
    pub fn defs_of(&self, v: ValueId) -> &[DefId] {
        &self.by_value[v]
    }
}
