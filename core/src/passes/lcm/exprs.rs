//! Step 2 of seed 004 (局所的な情報の計算, "Compute local information"): the candidate
//! expressions and, per block, `NComp`, `XComp` and `Transp` for all of them at once.
//!
//! A candidate is what the seed's `a+b` is: a pure Bril computation `op x y` (or `op x`)
//! identified by its opcode and operand *names*. `const` and `id` compute nothing worth
//! moving; memory operations (`load`, `ptradd`, `alloc`…), calls and prints are not pure
//! functions of their operands. With `commute`, the operands of a commutative operation are
//! put in name order so `add b a` and `add a b` are one expression.
//!
//! A *modification* of an expression (変更文) is an instruction assigning one of its
//! operands. `x = add x y` computes first and then modifies, as after the seed's split
//! `t = x + y; x = t`. One extension keeps LCM observably safe for operations that can trap
//! (`div`, `int2char`): an instruction with an effect others can see (`print`, `call`,
//! `store`, `load`, `alloc`, `free`) or one that can trap in a different way also counts as a
//! modification of them. Otherwise LCM could hoist a division above a `print`, and a
//! division by zero would then happen before output the original program produced.

use super::graph::Graph;
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, BrilOp, Effect, Function, Imm, Inst, InstId, Op, Type, ValueId};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

crate::entity_id!(
    /// A candidate expression of one function. Displays as `e3`.
    ExprId,
    "e"
);

/// Options of the pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Treat `add b a` as `add a b` for commutative operations (`--commute`).
    pub commute: bool,
}

/// One candidate expression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub op: BrilOp,
    /// Operand names in the expression's order (sorted for commutative ops with `commute`).
    pub args: Vec<String>,
    /// The operands as values, from the first occurrence (used to build insertions).
    pub arg_values: Vec<ValueId>,
    /// The result type every occurrence declares.
    pub ty: Type,
    /// Whether evaluating it can fail at run time (see the module comment).
    pub traps: bool,
}

impl Expr {
    /// `op arg1 arg2`, the text the CLI, the JSON and the tables use.
    pub fn text(&self) -> String {
        let mut s = self.op.name().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

/// Operations that can fail at run time: Bril `div` (by zero) and `int2char` (no such char).
pub fn may_trap(op: &BrilOp) -> bool {
    matches!(op, BrilOp::Div | BrilOp::Int2Char)
}

/// Whether `inst` is a computation LCM may move, and its identity (opcode, operand names).
fn candidate_key(f: &Function, inst: &Inst, opts: &Options) -> Option<(BrilOp, Vec<String>, Vec<ValueId>, Type)> {
    let Op::Bril(op) = &inst.op else { return None };
    if matches!(op, BrilOp::Const | BrilOp::Id | BrilOp::Nop | BrilOp::PtrAdd | BrilOp::Load | BrilOp::Other(_)) {
        return None;
    }
    if inst.effect() != Effect::Pure
        || inst.args.is_empty()
        || inst.results.len() != 1
        || !inst.funcs.is_empty()
        || !inst.succs.is_empty()
        || inst.imm != Imm::None
    {
        return None;
    }
    let ty = inst.ty.clone()?;
    let mut pairs: Vec<(String, ValueId)> =
        inst.args.iter().map(|&v| (f.values.get(v).map(|d| d.name.clone()).unwrap_or_default(), v)).collect();
    if opts.commute && inst.op.is_commutative() {
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let (names, values) = pairs.into_iter().unzip();
    Some((op.clone(), names, values, ty))
}

/// The candidate expressions of a function and what each instruction does to them.
#[derive(Clone, Debug)]
pub struct Exprs {
    pub list: EntityVec<ExprId, Expr>,
    /// The expression each instruction computes, if any.
    pub computes: EntityVec<InstId, Option<ExprId>>,
    /// The instructions computing each expression, in layout order: the inverse of
    /// `computes`, kept because only collection knows which instructions matched a key under
    /// `commute` (`add b a` computes `add a b`), and the UI must not guess it from opcodes.
    pub occurrences: EntityVec<ExprId, Vec<InstId>>,
    /// For each variable name, the expressions that have it as an operand.
    operand_of: HashMap<String, EntitySet<ExprId>>,
    /// Trapping expressions, by opcode.
    trapping: Vec<(BrilOp, EntitySet<ExprId>)>,
}

impl Exprs {
    /// Collects the candidates in layout order of their first occurrence. An expression whose
    /// occurrences declare different result types is left out: one temporary cannot hold it.
    pub fn collect(f: &Function, opts: &Options) -> Exprs {
        let mut keys: Vec<(BrilOp, Vec<String>, Vec<ValueId>, Type)> = Vec::new();
        let mut index: HashMap<(BrilOp, Vec<String>), usize> = HashMap::new();
        let mut conflicting: Vec<bool> = Vec::new();
        let mut occurrence: Vec<(InstId, usize)> = Vec::new();
        for (_, i) in placed_insts(f) {
            let Some(inst) = f.insts.get(i) else { continue };
            let Some((op, names, values, ty)) = candidate_key(f, inst, opts) else { continue };
            let k = *index.entry((op.clone(), names.clone())).or_insert_with(|| {
                keys.push((op, names, values, ty.clone()));
                conflicting.push(false);
                keys.len() - 1
            });
            if keys[k].3 != ty {
                conflicting[k] = true;
            }
            occurrence.push((i, k));
        }
        let mut id_of: Vec<Option<ExprId>> = vec![None; keys.len()];
        let mut list: EntityVec<ExprId, Expr> = EntityVec::new();
        for (k, (op, args, arg_values, ty)) in keys.into_iter().enumerate() {
            if !conflicting[k] {
                let traps = may_trap(&op);
                id_of[k] = Some(list.push(Expr { op, args, arg_values, ty, traps }));
            }
        }
        let n = list.len();
        let mut computes = EntityVec::filled(f.insts.len(), None);
        let mut occurrences: EntityVec<ExprId, Vec<InstId>> = EntityVec::filled(n, Vec::new());
        for (i, k) in occurrence {
            computes[i] = id_of[k];
            if let Some(e) = id_of[k] {
                occurrences[e].push(i);
            }
        }
        let mut operand_of: HashMap<String, EntitySet<ExprId>> = HashMap::new();
        let mut trapping: Vec<(BrilOp, EntitySet<ExprId>)> = Vec::new();
        for (e, x) in list.iter() {
            for a in &x.args {
                operand_of.entry(a.clone()).or_insert_with(|| EntitySet::new_empty(n)).insert(e);
            }
            if x.traps {
                match trapping.iter_mut().find(|(op, _)| *op == x.op) {
                    Some((_, set)) => {
                        set.insert(e);
                    }
                    None => {
                        let mut set = EntitySet::new_empty(n);
                        set.insert(e);
                        trapping.push((x.op.clone(), set));
                    }
                }
            }
        }
        Exprs { list, computes, occurrences, operand_of, trapping }
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The expressions `inst` modifies: those with an operand it assigns, and, if it has an
    /// observable effect or can trap, the trapping expressions it must not be reordered with.
    pub fn kills(&self, f: &Function, inst: &Inst) -> EntitySet<ExprId> {
        let mut k = EntitySet::new_empty(self.len());
        for &r in &inst.results {
            if let Some(set) = f.values.get(r).and_then(|v| self.operand_of.get(&v.name)) {
                k.union_with(set);
            }
        }
        let observable = matches!(inst.effect(), Effect::SideEffect | Effect::ReadsMemory);
        let own_trap = match &inst.op {
            Op::Bril(op) if may_trap(op) => Some(op),
            _ => None,
        };
        if observable || own_trap.is_some() {
            for (op, set) in &self.trapping {
                if observable || own_trap != Some(op) {
                    k.union_with(set);
                }
            }
        }
        k
    }
}

/// Placed instructions in layout order, skipping ids outside the arena.
fn placed_insts(f: &Function) -> impl Iterator<Item = (BlockId, InstId)> + '_ {
    f.layout
        .iter()
        .filter_map(move |&b| f.blocks.get(b).map(|blk| (b, blk)))
        .flat_map(|(b, blk)| blk.all_insts().map(move |i| (b, i)))
}

/// Per-block local predicates, each a bit vector over the expressions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Local {
    pub ncomp: EntityVec<BlockId, EntitySet<ExprId>>,
    pub xcomp: EntityVec<BlockId, EntitySet<ExprId>>,
    pub transp: EntityVec<BlockId, EntitySet<ExprId>>,
}

/// The seed's `Compute_Local`, for every expression at once: scan each block in execution
/// order with `killed`/`available`/`anticipated` as bit vectors.
pub fn compute_local(f: &Function, g: &Graph, ex: &Exprs) -> Local {
    let n = ex.len();
    let nb = g.num_blocks();
    let mut ncomp = EntityVec::filled(nb, EntitySet::new_empty(n));
    let mut xcomp = EntityVec::filled(nb, EntitySet::new_empty(n));
    let mut transp = EntityVec::filled(nb, EntitySet::new_empty(n));
    for &b in &f.layout {
        let Some(block) = f.blocks.get(b) else { continue };
        let mut killed = EntitySet::new_empty(n);
        let mut available = EntitySet::new_empty(n);
        let mut anticipated = EntitySet::new_empty(n);
        for i in block.all_insts() {
            let Some(inst) = f.insts.get(i) else { continue };
            if let Some(e) = ex.computes.get(i).copied().flatten() {
                if !killed.contains(e) && !anticipated.contains(e) {
                    anticipated.insert(e);
                }
                available.insert(e);
            }
            let k = ex.kills(f, inst);
            killed.union_with(&k);
            available.subtract(&k);
        }
        // NComp is exactly "anticipated": set at the first computation before any kill.
        ncomp[b] = anticipated;
        let mut x = available;
        x.intersect_with(&killed);
        xcomp[b] = x;
        let mut t = killed;
        t.negate();
        transp[b] = t;
    }
    Local { ncomp, xcomp, transp }
}
