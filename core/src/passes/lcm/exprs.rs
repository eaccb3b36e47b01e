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
//!
//! **SIL.** A candidate is a pure instruction on trivial values, which have no ownership:
//! an arithmetic, bitwise or comparison `builtin` (`add_Int64`, `cmp_slt_Int64`, `fadd_FPIEEE64`,
//! `sadd_with_overflow_Int32` …), `struct`, `tuple`, `struct_extract`, `tuple_extract`, and
//! `enum` with a payload, all of whose operands and result have a trivial type. It is
//! identified by its opcode, its operands (values) and everything else it prints — builtin
//! name, field, element index, type annotations. Literals compute nothing worth moving. The
//! builtins that can trap are the integer divisions and remainders (`sdiv`, `srem`, `udiv`,
//! `urem`, `exact_*`: by zero, or `MIN / -1`); they are handled as Bril's `div` — any
//! instruction with an observable effect (`apply`, `store`, `cond_fail` …) or a different trap
//! modifies them. (`*_with_overflow` does not trap: it returns the overflow bit, and the
//! `cond_fail` reading it is never a candidate.) In a function whose terminators may run code
//! (`try_apply`, `yield`) no trapping candidate is kept, since the exit insertion point is
//! before the terminator.
//!
//! **Transp in SSA.** A SIL value is defined once, so no instruction ever assigns an operand
//! *again*; the seed's modification statement (変更文) cannot occur as written. What remains
//! of its meaning is the other half of its role: a computation cannot be moved above a point
//! where its operand does not yet hold the value it uses. So *the block that defines an
//! operand (by an instruction result or a block parameter) modifies the expression*: it is not
//! transparent, a computation after the definition is `XComp` but not `NComp`, and nothing is
//! placed at its entry. Above the definition the operand does not exist; below it the operand
//! never changes — exactly what `Transp` describes for a variable assigned at that point and
//! nowhere else. The entry block's parameters are the function's arguments, defined before
//! the start node as Bril's parameters are, and are not modifications.

use super::graph::Graph;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, BrilOp, Effect, Function, Imm, Inst, InstId, Lang, Op, Piece, SilOp, Type, ValueDef, ValueId};
use crate::sil::types::is_trivial_without_declarations as is_trivial_type;
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
    /// The opcode (`add`; SIL `builtin`, `struct_extract`, …).
    pub op: Op,
    /// Operand names in the expression's order (sorted for commutative ops with `commute`).
    pub args: Vec<String>,
    /// The operands as values, from the first occurrence (used to build insertions).
    pub arg_values: Vec<ValueId>,
    /// The result type every occurrence declares.
    pub ty: Type,
    /// Whether evaluating it can fail at run time (see the module comment).
    pub traps: bool,
    /// SIL: the text tables and the CLI use (`builtin "add_Int64"(%a, %b)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sil_text: Option<String>,
}

impl Expr {
    /// `op arg1 arg2`, the text the CLI, the JSON and the tables use.
    pub fn text(&self) -> String {
        if let Some(t) = &self.sil_text {
            return t.clone();
        }
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

/// A matched candidate occurrence: its identity and what building the expression needs.
///
/// The identity is the opcode, the shape and the operands' *names*, each name stood for by
/// the first value carrying it (`Names::canon`): ids are compared and hashed instead of a
/// string copied per operand and per occurrence (SSA gives a 10^5-block SIL function ~10^5
/// expressions); a name is still copied once per expression, for its text.
///
/// The matcher writes an occurrence's shape, names and values into the buffers of one
/// `Cand` reused for every instruction ([`Cand::clear`]); only a new expression copies them
/// (a string and two lists per occurrence were most of step 2's allocations on SIL).
struct Cand<'f> {
    op: &'f Op,
    /// Everything but the operands: the SIL printed form with `$k` for operand `k`
    /// (builtin name, field, index, type annotations); empty for Bril.
    shape: String,
    /// The operands' names as canonical values, in the expression's order.
    names: Vec<ValueId>,
    values: Vec<ValueId>,
    ty: Option<&'f Type>,
    /// The class of failure (Bril opcode name, SIL builtin name) if it can trap.
    trap: Option<String>,
}

impl<'f> Cand<'f> {
    fn new(op: &'f Op) -> Cand<'f> {
        Cand { op, shape: String::new(), names: Vec::new(), values: Vec::new(), ty: None, trap: None }
    }

    /// Empties the buffers for the next occurrence, keeping their room.
    fn clear(&mut self, op: &'f Op) {
        self.op = op;
        self.shape.clear();
        self.names.clear();
        self.values.clear();
        self.ty = None;
        self.trap = None;
    }

    /// A copy sized to fit, to keep as a new expression's key.
    fn keep(&self) -> Cand<'f> {
        Cand { op: self.op, shape: self.shape.clone(), names: self.names.clone(), values: self.values.clone(), ty: self.ty, trap: self.trap.clone() }
    }

    /// Same identity: opcode, shape and operand names.
    fn same_key(&self, other: &Cand<'_>) -> bool {
        self.op == other.op && self.shape == other.shape && self.names == other.names
    }
}

/// Each value's name, as the first value of the function carrying it: two values with one
/// name are one operand to LCM (its expressions are over names, as the seed's `a+b`).
struct Names<'f> {
    canon: EntityVec<ValueId, ValueId>,
    /// For values made after collection (a transformation's new temporaries and block
    /// arguments), looked up by name. foldhash: a lookup per value of the function, and
    /// only `entry` and `get` (its per-process seed changes nothing visible).
    first_of: foldhash::HashMap<&'f str, ValueId>,
}

impl<'f> Names<'f> {
    fn new(f: &'f Function) -> Names<'f> {
        let mut first_of: foldhash::HashMap<&'f str, ValueId> = foldhash::HashMap::with_capacity_and_hasher(f.values.len(), Default::default());
        let canon = f.values.iter().map(|(v, d)| *first_of.entry(d.name.as_str()).or_insert(v)).collect();
        Names { canon, first_of }
    }

    /// The canonical value of `v`, a value of `f` (`None`: a name no value of the collected
    /// function has).
    fn canon(&self, f: &Function, v: ValueId) -> Option<ValueId> {
        match self.canon.get(v) {
            Some(&c) => Some(c),
            None => f.values.get(v).and_then(|d| self.first_of.get(d.name.as_str()).copied()),
        }
    }
}

/// Per value: whether its type is trivial, remembered per value and per type text (a
/// function has few distinct types and many values, and classifying a type parses it).
struct Trivial<'f> {
    by_type: HashMap<&'f str, bool>,
    /// 0 unknown, 1 trivial, 2 not (or no SIL type).
    by_value: Vec<u8>,
}

/// Whether `inst` is a computation LCM may move; if so its identity (opcode, operand names)
/// is written into `c`.
fn candidate_key<'f>(f: &'f Function, inst: &'f Inst, opts: &Options, names: &Names<'f>, trivial: &mut Trivial<'f>, c: &mut Cand<'f>) -> bool {
    c.clear(&inst.op);
    if f.lang == Lang::Sil {
        return sil_candidate(f, inst, names, trivial, c).is_some();
    }
    bril_candidate(f, inst, opts, names, c).is_some()
}

fn bril_candidate<'f>(f: &'f Function, inst: &'f Inst, opts: &Options, names: &Names<'f>, c: &mut Cand<'f>) -> Option<()> {
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
    c.ty = Some(inst.ty.as_ref()?);
    // Every operand must be a value of `f` (an id outside it is the empty name, as before).
    let name = |v: ValueId| f.values.get(v).map_or("", |d| d.name.as_str());
    c.values.extend_from_slice(&inst.args);
    if opts.commute && inst.op.is_commutative() {
        c.values.sort_by(|&a, &b| name(a).cmp(name(b)));
    }
    c.names.extend(c.values.iter().map(|&v| names.canon(f, v).unwrap_or(ValueId(u32::MAX))));
    c.trap = may_trap(op).then(|| op.name().to_string());
    Some(())
}

/// SIL builtins that can trap: integer division and remainder (by zero, or `MIN / -1`).
/// The `*_with_overflow` builtins do not trap — they return the overflow bit, and the
/// `cond_fail` that reads it is the trap, which is never a candidate.
pub fn sil_builtin_traps(name: &str) -> bool {
    ["sdiv", "srem", "udiv", "urem", "exact_sdiv", "exact_udiv"]
        .iter()
        .any(|p| name.strip_prefix(p).is_some_and(|rest| rest.starts_with('_')))
}

/// A SIL terminator that may run code with effects of its own (`try_apply`, `yield`, …):
/// the exit insertion point is before it, so no trapping expression may be moved there.
fn effectful_terminator(inst: &Inst) -> bool {
    inst.is_terminator()
        && !matches!(
            inst.op,
            Op::Sil(
                SilOp::Br
                    | SilOp::CondBr
                    | SilOp::SwitchEnum
                    | SilOp::SwitchValue
                    | SilOp::Return
                    | SilOp::Throw
                    | SilOp::Unreachable
            )
        )
}

/// The SIL type of `v` (`None` for an undefined value or one without a SIL type).
fn sil_type(f: &Function, v: ValueId) -> Option<&Type> {
    match f.values.get(v) {
        Some(d) if d.def != ValueDef::Undef => d.ty.as_ref().filter(|t| matches!(t, Type::Sil(_))),
        _ => None,
    }
}

/// Whether `v` has a SIL type and it is trivial.
fn trivial_value<'f>(f: &'f Function, v: ValueId, memo: &mut Trivial<'f>) -> bool {
    match memo.by_value.get(v.index()).copied() {
        Some(1) => return true,
        Some(2) => return false,
        _ => {}
    }
    let yes = match sil_type(f, v) {
        Some(Type::Sil(t)) => *memo.by_type.entry(t.as_str()).or_insert_with(|| is_trivial_type(t)),
        _ => false,
    };
    if let Some(slot) = memo.by_value.get_mut(v.index()) {
        *slot = if yes { 1 } else { 2 };
    }
    yes
}

/// SIL candidates: pure instructions on trivial values with no ownership — arithmetic and
/// comparison builtins (and the trapping divisions), `struct`, `tuple`, `struct_extract`,
/// `tuple_extract`, `enum` with a payload. Literals compute nothing worth moving.
fn sil_candidate<'f>(f: &'f Function, inst: &'f Inst, names: &Names<'f>, trivial: &mut Trivial<'f>, c: &mut Cand<'f>) -> Option<()> {
    let Op::Sil(op) = &inst.op else { return None };
    if inst.args.is_empty() || inst.results.len() != 1 || !inst.funcs.is_empty() || !inst.succs.is_empty() {
        return None;
    }
    let mut trap = None;
    match op {
        SilOp::Builtin => {
            let Imm::Name(name) = &inst.imm else { return None };
            if sil_builtin_traps(name) {
                trap = Some(name.to_string());
            } else if inst.effect() != Effect::Pure {
                return None;
            }
        }
        SilOp::Struct | SilOp::Tuple | SilOp::StructExtract | SilOp::TupleExtract | SilOp::Enum => {}
        _ => return None,
    }
    if !inst.args.iter().all(|&v| trivial_value(f, v, trivial)) || !trivial_value(f, inst.results[0], trivial) {
        return None;
    }
    for &v in &inst.args {
        c.names.push(names.canon(f, v)?);
    }
    c.ty = Some(sil_type(f, inst.results[0])?);
    let shape = &mut c.shape;
    shape.push_str(op.name());
    shape.push(' ');
    for p in &inst.sil {
        match p {
            Piece::Text(t) => shape.push_str(t),
            Piece::Arg(k) => {
                use std::fmt::Write as _;
                let _ = write!(shape, "${k}");
            }
            _ => return None,
        }
    }
    c.values.extend_from_slice(&inst.args);
    c.trap = trap;
    Some(())
}

/// The text of a SIL expression, made once per expression, not per occurrence. (Insertions
/// copy the expression's first occurrence, [`Exprs::occurrences`], rather than a template
/// kept per expression: SSA gives ~10^5 expressions to a 10^5-block function and moves a few
/// hundred.)
///
/// Written into one string (the operands' names straight from the values, as
/// [`Function::value_in_code`] spells them): a string per operand and their joined copy were
/// a tenth of step 2 at 10^5 blocks. `sil_text_by_join` in the tests is the former form.
fn sil_text(f: &Function, inst: &Inst, ty: &Type) -> Option<String> {
    use std::fmt::Write as _;
    let (Op::Sil(op), Type::Sil(rt)) = (&inst.op, ty) else { return None };
    let mut t = String::with_capacity(32 + rt.len());
    let args = |t: &mut String| {
        for (k, &v) in inst.args.iter().enumerate() {
            if k > 0 {
                t.push_str(", ");
            }
            match f.values.get(v) {
                Some(d) if d.def == ValueDef::Undef => t.push_str("undef"),
                Some(d) => {
                    t.push('%');
                    t.push_str(&d.name);
                }
                None => {
                    let _ = write!(t, "{v}");
                }
            }
        }
    };
    let _ = match (op, &inst.imm) {
        (SilOp::Builtin, Imm::Name(n)) => {
            let _ = write!(t, "builtin \"{n}\"(");
            args(&mut t);
            write!(t, ")")
        }
        (SilOp::StructExtract, Imm::Name(n)) => {
            t.push_str("struct_extract ");
            args(&mut t);
            write!(t, ", {n}")
        }
        (SilOp::TupleExtract, Imm::Index(k)) => {
            t.push_str("tuple_extract ");
            args(&mut t);
            write!(t, ", {k}")
        }
        (SilOp::Enum, Imm::Name(n)) => {
            let _ = write!(t, "enum ${rt}, {n}, ");
            args(&mut t);
            Ok(())
        }
        (SilOp::Struct, _) => {
            let _ = write!(t, "struct ${rt} (");
            args(&mut t);
            write!(t, ")")
        }
        _ => {
            let _ = write!(t, "{} (", op.name());
            args(&mut t);
            write!(t, ")")
        }
    };
    Some(t)
}

/// [`sil_text`] as it was written before, an operand string each, joined: the oracle its
/// tests compare it with.
#[cfg(test)]
pub(super) fn sil_text_by_join(f: &Function, inst: &Inst, ty: &Type) -> Option<String> {
    let (Op::Sil(op), Type::Sil(rt)) = (&inst.op, ty) else { return None };
    let args: Vec<String> = inst.args.iter().map(|&v| f.value_in_code(v)).collect();
    let text = match (op, &inst.imm) {
        (SilOp::Builtin, Imm::Name(n)) => format!("builtin \"{n}\"({})", args.join(", ")),
        (SilOp::StructExtract, Imm::Name(n)) => format!("struct_extract {}, {n}", args.join(", ")),
        (SilOp::TupleExtract, Imm::Index(k)) => format!("tuple_extract {}, {k}", args.join(", ")),
        (SilOp::Enum, Imm::Name(n)) => format!("enum ${rt}, {n}, {}", args.join(", ")),
        (SilOp::Struct, _) => format!("struct ${rt} ({})", args.join(", ")),
        _ => format!("{} ({})", op.name(), args.join(", ")),
    };
    Some(text)
}

/// [`sil_text`] of an instruction (tests: against [`sil_text_by_join`]).
#[cfg(test)]
pub(super) fn sil_text_of(f: &Function, inst: &Inst, ty: &Type) -> Option<String> {
    sil_text(f, inst, ty)
}

/// The candidate expressions of a function and what each instruction does to them.
pub struct Exprs<'f> {
    pub list: EntityVec<ExprId, Expr>,
    /// The expression each instruction computes, if any.
    pub computes: EntityVec<InstId, Option<ExprId>>,
    /// The instructions computing each expression, in layout order: the inverse of
    /// `computes`, kept because only collection knows which instructions matched a key under
    /// `commute` (`add b a` computes `add a b`), and the UI must not guess it from opcodes.
    pub occurrences: EntityVec<ExprId, Vec<InstId>>,
    /// For each variable name (as its canonical value, [`Names`]), the expressions that
    /// have it as an operand, in id order: a list, not a bit set over all expressions — on
    /// SIL almost every name is the operand of one or two expressions, and a set per name
    /// would be quadratic in the function.
    operand_of: EntityVec<ValueId, Vec<ExprId>>,
    names: Names<'f>,
    /// Trapping expressions, by class of failure (opcode or builtin name).
    trapping: Vec<(String, EntitySet<ExprId>)>,
    lang: Lang,
}

impl<'f> Exprs<'f> {
    /// Collects the candidates in layout order of their first occurrence. An expression whose
    /// occurrences declare different result types is left out: one temporary cannot hold it.
    pub fn collect(f: &'f Function, opts: &Options) -> Exprs<'f> {
        struct Key<'f> {
            c: Cand<'f>,
            inst: &'f Inst,
        }
        let names = Names::new(f);
        let mut keys: Vec<Key<'f>> = Vec::new();
        // Looked up once per instruction by the hash of its identity (operator, shape, names),
        // the keys with one hash chained through `same_hash`: the key is hashed where the
        // matcher wrote it and stored once, in `keys`. foldhash, with a fixed seed: std's
        // SipHash was most of the lookup, and nothing visible depends on the hash.
        let hasher = foldhash::fast::FixedState::default();
        let mut first_with_hash: foldhash::HashMap<u64, u32> = foldhash::HashMap::default();
        let mut same_hash: Vec<u32> = Vec::new();
        let mut conflicting: Vec<bool> = Vec::new();
        let mut occurrence: Vec<(InstId, usize)> = Vec::new();
        let mut trivial = Trivial { by_type: HashMap::new(), by_value: vec![0; f.values.len()] };
        let no_trapping = f.lang == Lang::Sil
            && placed_insts(f).any(|(_, i)| f.insts.get(i).is_some_and(effectful_terminator));
        static NOP: Op = Op::Bril(BrilOp::Nop);
        let mut c = Cand::new(&NOP);
        for (_, i) in placed_insts(f) {
            let Some(inst) = f.insts.get(i) else { continue };
            if !candidate_key(f, inst, opts, &names, &mut trivial, &mut c) {
                continue;
            }
            if no_trapping && c.trap.is_some() {
                continue;
            }
            let hash = std::hash::BuildHasher::hash_one(&hasher, (c.op, c.shape.as_str(), c.names.as_slice()));
            let mut at = first_with_hash.get(&hash).copied().unwrap_or(u32::MAX);
            while at != u32::MAX && !keys[at as usize].c.same_key(&c) {
                at = same_hash[at as usize];
            }
            let k = if at != u32::MAX {
                at as usize
            } else {
                let k = keys.len();
                same_hash.push(first_with_hash.insert(hash, k as u32).unwrap_or(u32::MAX));
                keys.push(Key { c: c.keep(), inst });
                conflicting.push(false);
                k
            };
            if keys[k].c.ty != c.ty {
                conflicting[k] = true;
            }
            occurrence.push((i, k));
        }
        drop((first_with_hash, same_hash, c));
        let mut id_of: Vec<Option<ExprId>> = vec![None; keys.len()];
        let mut list: EntityVec<ExprId, Expr> = EntityVec::with_capacity(keys.len());
        let mut trap_class: Vec<Option<String>> = Vec::new();
        let mut operand_of: EntityVec<ValueId, Vec<ExprId>> = EntityVec::filled(f.values.len(), Vec::new());
        for (k, Key { c, inst }) in keys.into_iter().enumerate() {
            if let (false, Some(ty)) = (conflicting[k], c.ty) {
                let traps = c.trap.is_some();
                trap_class.push(c.trap);
                let sil_text = if f.lang == Lang::Sil { sil_text(f, inst, ty) } else { None };
                let e = list.push(Expr {
                    op: c.op.clone(),
                    args: c.names.iter().map(|&v| f.values.get(v).map_or_else(String::new, |d| d.name.to_string())).collect(),
                    arg_values: c.values,
                    ty: ty.clone(),
                    traps,
                    sil_text,
                });
                id_of[k] = Some(e);
                for &v in &c.names {
                    if let Some(users) = operand_of.get_mut(v) {
                        if users.last() != Some(&e) {
                            users.push(e);
                        }
                    }
                }
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
        let mut trapping: Vec<(String, EntitySet<ExprId>)> = Vec::new();
        for (e, class) in list.keys().zip(trap_class) {
            if let Some(class) = class {
                match trapping.iter_mut().find(|(c, _)| *c == class) {
                    Some((_, set)) => {
                        set.insert(e);
                    }
                    None => {
                        let mut set = EntitySet::new_empty(n);
                        set.insert(e);
                        trapping.push((class, set));
                    }
                }
            }
        }
        Exprs { list, computes, occurrences, operand_of, names, trapping, lang: f.lang }
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The expressions whose operand is `v` (a SIL block parameter, or any assigned value).
    pub fn using(&self, f: &Function, v: ValueId) -> &[ExprId] {
        self.names.canon(f, v).and_then(|c| self.operand_of.get(c)).map_or(&[], Vec::as_slice)
    }


    /// The class of failure of an instruction that can trap.
    fn own_trap(&self, inst: &Inst) -> Option<String> {
        match (&inst.op, &inst.imm) {
            (Op::Bril(op), _) if may_trap(op) => Some(op.name().to_string()),
            (Op::Sil(SilOp::Builtin), Imm::Name(n)) if sil_builtin_traps(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The expressions `inst` modifies: those with an operand it assigns (in SIL: defines),
    /// and, if it has an observable effect or can trap, the trapping expressions it must not
    /// be reordered with.
    pub fn kills(&self, f: &Function, inst: &Inst) -> EntitySet<ExprId> {
        let mut k = EntitySet::new_empty(self.len());
        for &r in &inst.results {
            for &e in self.using(f, r) {
                k.insert(e);
            }
        }
        for set in self.trap_kills(inst) {
            k.union_with(set);
        }
        k
    }

    /// [`kills`](Self::kills) as a list (with repeats) appended to `out`: the form the
    /// per-region solver and the SIL transformation use, whose cost follows the
    /// instruction's operands rather than the number of expressions.
    pub fn kills_into(&self, f: &Function, inst: &Inst, out: &mut Vec<ExprId>) {
        for &r in &inst.results {
            out.extend_from_slice(self.using(f, r));
        }
        for set in self.trap_kills(inst) {
            out.extend(set.iter());
        }
    }

    /// The trapping classes `inst` must not be reordered with (see [`kills`](Self::kills)).
    fn trap_kills<'a>(&'a self, inst: &Inst) -> impl Iterator<Item = &'a EntitySet<ExprId>> + 'a {
        let own_trap = if self.trapping.is_empty() { None } else { self.own_trap(inst) };
        let observable = !self.trapping.is_empty()
            && own_trap.is_none()
            && (matches!(inst.effect(), Effect::SideEffect | Effect::ReadsMemory)
                || (self.lang == Lang::Sil && effectful_terminator(inst)));
        self.trapping
            .iter()
            .filter(move |(class, _)| observable || own_trap.as_ref().is_some_and(|t| t != class))
            .map(|(_, set)| set)
    }
}

/// Placed instructions in layout order, skipping ids outside the arena.
fn placed_insts(f: &Function) -> impl Iterator<Item = (BlockId, InstId)> + '_ {
    f.layout
        .iter()
        .filter_map(move |&b| f.blocks.get(b).map(|blk| (b, blk)))
        .flat_map(|(b, blk)| blk.all_insts().map(move |i| (b, i)))
}

/// Per-block local predicates, each a bit vector over the expressions. Shared (`Arc`) with
/// the table of all thirteen predicates, which holds them too: a copy there cost an
/// allocation per block and predicate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Local {
    pub ncomp: std::sync::Arc<EntityVec<BlockId, EntitySet<ExprId>>>,
    pub xcomp: std::sync::Arc<EntityVec<BlockId, EntitySet<ExprId>>>,
    pub transp: std::sync::Arc<EntityVec<BlockId, EntitySet<ExprId>>>,
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
        // SIL: a block parameter is defined on entry, before anything the block computes. The
        // entry block's parameters are the function's arguments, defined before the start
        // node as Bril's parameters are: not a modification.
        let params = if f.entry() == Some(b) { &[][..] } else { &block.params[..] };
        for &p in params {
            for &e in ex.using(f, p) {
                killed.insert(e);
            }
        }
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
    Local { ncomp: ncomp.into(), xcomp: xcomp.into(), transp: transp.into() }
}

/// Step 2 as per-block lists (each sorted by id) instead of bit vectors over all
/// expressions: what [`compute_local`] computes, for the per-region solver (`regions.rs`),
/// whose functions have too many expressions for a dense vector per block. `nontransp`
/// lists the expressions a block modifies; every other expression is transparent in it.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseLocal {
    pub ncomp: EntityVec<BlockId, Vec<ExprId>>,
    pub xcomp: EntityVec<BlockId, Vec<ExprId>>,
    pub nontransp: EntityVec<BlockId, Vec<ExprId>>,
    /// Blocks step 2 scanned (those in the layout); the others are transparent for nothing,
    /// as in [`compute_local`].
    pub scanned: EntitySet<BlockId>,
}

/// The same scan as [`compute_local`], with per-expression stamps (the block being scanned)
/// in place of the three bit vectors, so a block costs what its instructions touch.
pub fn compute_local_sparse(f: &Function, g: &Graph, ex: &Exprs) -> SparseLocal {
    let n = ex.len();
    let nb = g.num_blocks();
    let mut out = SparseLocal {
        ncomp: EntityVec::filled(nb, Vec::new()),
        xcomp: EntityVec::filled(nb, Vec::new()),
        nontransp: EntityVec::filled(nb, Vec::new()),
        scanned: EntitySet::new_empty(nb),
    };
    // `killed[e] == stamp`: modified in the current block; likewise available, anticipated.
    let (mut killed, mut available, mut anticipated) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    let (mut kill_list, mut avail_list, mut kills) = (Vec::new(), Vec::new(), Vec::new());
    let mut stamp = 0u32;
    for &b in &f.layout {
        let Some(block) = f.blocks.get(b) else { continue };
        if b.index() >= nb {
            continue;
        }
        out.scanned.insert(b);
        stamp += 1;
        kill_list.clear();
        avail_list.clear();
        let kill = |e: ExprId, killed: &mut Vec<u32>, available: &mut Vec<u32>, kill_list: &mut Vec<ExprId>| {
            if killed[e.index()] != stamp {
                killed[e.index()] = stamp;
                kill_list.push(e);
            }
            available[e.index()] = 0;
        };
        let params = if f.entry() == Some(b) { &[][..] } else { &block.params[..] };
        for &p in params {
            for &e in ex.using(f, p) {
                kill(e, &mut killed, &mut available, &mut kill_list);
            }
        }
        for i in block.all_insts() {
            let Some(inst) = f.insts.get(i) else { continue };
            if let Some(e) = ex.computes.get(i).copied().flatten() {
                if killed[e.index()] != stamp && anticipated[e.index()] != stamp {
                    anticipated[e.index()] = stamp;
                    out.ncomp[b].push(e);
                }
                if available[e.index()] != stamp {
                    available[e.index()] = stamp;
                    avail_list.push(e);
                }
            }
            kills.clear();
            ex.kills_into(f, inst, &mut kills);
            for &e in &kills {
                kill(e, &mut killed, &mut available, &mut kill_list);
            }
        }
        out.ncomp[b].sort_unstable();
        let mut x: Vec<ExprId> =
            avail_list.iter().copied().filter(|e| available[e.index()] == stamp && killed[e.index()] == stamp).collect();
        x.sort_unstable();
        x.dedup();
        out.xcomp[b] = x;
        kill_list.sort_unstable();
        out.nontransp[b] = kill_list.clone();
    }
    out
}

#[cfg(test)]
mod tests;
