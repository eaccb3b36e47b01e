//! Local value numbering on Bril (Cocke and Schwartz 1970; as CS 6120 teaches it, with its
//! three options): in each block, a table of values — a number, the canonical expression that
//! computes it over value numbers, and a *home* variable that holds it — and for each
//! instruction, its expression looked up: found, the instruction becomes a copy of the home;
//! not found, it makes a new row.
//!
//! - *copy propagation* (`prop`): `y = id x` gives `y` the number of `x`, no new value;
//! - *commutativity* (`commute`): the operands of `add`, `mul`, `eq`, `and`, `or` (and their
//!   float forms) are sorted, so `a + b` and `b + a` are one value;
//! - *constant folding* (`fold`): an operation whose operands are all known constants becomes
//!   `const`; so do the comparisons of an integer with itself (`eq x x` is `true`). A division
//!   by a constant zero is left to fail at run time.
//!
//! The tricky cases are the ones the course's tests name:
//! - a variable assigned again later in the block gets a fresh name here (`lvn.3`), so a value
//!   it holds stays available to the instructions in between; its last assignment keeps the name,
//!   so the block leaves every variable as the original did;
//! - a value read from outside the block (a variable the block uses before assigning it) gets
//!   a row of its own with that variable as its home;
//! - when the variable holding a value is assigned something else, the value moves to another
//!   variable holding it, or leaves the table's lookups if none does (`nonlocal-clobber`).
//!
//! Instructions with effects (`call`, `print`, memory, `get`) keep their place; their results
//! are new values no other instruction matches. The trace records each instruction's row and
//! rewrite, replayed by [`apply_event`] (shared with the pass), so the view shows the table as it
//! stood at any instruction.

mod pass;
mod steps;

#[cfg(test)]
mod tests;

pub use pass::{Lvn, LVN_PASS};
pub use steps::step_texts;

use crate::ir::{BlockId, BrilOp, Function, Imm, Inst, InstId, Lang, Name, Op, Type, ValueDef, ValueId};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The three options of the course's `lvn.py` (`-p`, `-c`, `-f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LvnOptions {
    pub prop: bool,
    pub commute: bool,
    pub fold: bool,
}

impl Default for LvnOptions {
    fn default() -> LvnOptions {
        LvnOptions { prop: true, commute: true, fold: true }
    }
}

/// One row of a block's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub num: u32,
    /// `add #1 #2`, `const 4`, `a (from outside)`, `call @f #1 (effect)`.
    pub expr: String,
    pub home: ValueId,
}

/// What became of an instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A new value: a new row.
    New,
    /// Its value is in the table: the instruction copies the home.
    Reuse { num: u32 },
    /// Its operands are constants: it becomes `const`.
    Fold,
    /// `id` under copy propagation: its destination takes the operand's number.
    Copy { num: u32 },
    /// Effects (or no destination): kept, operands rewritten.
    Effect,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A block starts with an empty table.
    Block { block: BlockId },
    /// One instruction: what it became (`op`, `args`, `imm`, `dest`: the instruction after the
    /// step), its outcome and how the table changed.
    Inst {
        block: BlockId,
        inst: InstId,
        outcome: Outcome,
        op: Op,
        args: Vec<ValueId>,
        imm: Imm,
        dest: Option<ValueId>,
        /// Rows for values read from outside the block, then the instruction's own new row.
        added: Vec<Row>,
        /// Values whose home was assigned something else: the new home, or `None` when no
        /// variable holds the value any more (it leaves the lookups).
        moved: Vec<(u32, Option<ValueId>)>,
        /// The destination got a fresh name because the variable is assigned again later.
        renamed: bool,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub options: Option<LvnOptions>,
    /// Fresh variables the pass made (`lvn.1`, …), in order, with their types.
    pub values: Vec<(ValueId, Name, Option<Type>)>,
    pub events: Vec<Event>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub insts: usize,
    pub reused: usize,
    pub folded: usize,
    pub copies: usize,
    pub renamed: usize,
}

#[derive(Clone, Debug)]
pub struct LvnOutput {
    pub function: Arc<Function>,
    pub trace: Trace,
    pub stats: Stats,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LvnError {
    #[error("local value numbering runs on Bril; `{function}` is SIL")]
    NotBril { function: String },
    #[error("`{function}` is not value-numbered: {reason}")]
    Unsupported { function: String, reason: String },
}

/// The function the events apply to: the input and the variables the pass made.
pub fn base(f: &Function, trace: &Trace) -> Function {
    let mut g = f.clone_with_room(0, trace.values.len());
    for (_, name, ty) in &trace.values {
        g.add_value(name.clone(), ty.clone(), ValueDef::Var);
    }
    g
}

/// Applies one event: the instruction takes the form the step gave it.
pub fn apply_event(g: &mut Function, e: &Event) {
    if let Event::Inst { inst, op, args, imm, dest, .. } = e {
        if let Some(i) = g.insts.get_mut(*inst) {
            i.op = op.clone();
            i.args = args.iter().copied().collect();
            i.imm = imm.clone();
            if let (Some(d), Some(r)) = (dest, i.results.first_mut()) {
                *r = *d;
            }
        }
    }
}

pub fn replay_to(f: &Function, trace: &Trace, k: usize) -> Function {
    let mut g = base(f, trace);
    for e in trace.events.iter().take(k) {
        apply_event(&mut g, e);
    }
    g
}

/// The table of the block being numbered after the first `k` events: its rows, each with its
/// current home (`None`: no variable holds it any more).
pub fn table_at(trace: &Trace, k: usize) -> (Option<BlockId>, Vec<(Row, Option<ValueId>)>) {
    let mut block = None;
    let mut rows: Vec<(Row, Option<ValueId>)> = Vec::new();
    for e in trace.events.iter().take(k) {
        match e {
            Event::Block { block: b } => {
                block = Some(*b);
                rows.clear();
            }
            Event::Inst { added, moved, .. } => {
                for &(num, home) in moved {
                    if let Some(r) = rows.iter_mut().find(|r| r.0.num == num) {
                        r.1 = home;
                    }
                }
                rows.extend(added.iter().map(|r| (r.clone(), Some(r.home))));
            }
        }
    }
    (block, rows)
}

/// A value's identity for lookups: the operation and its operands' numbers (or a constant).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Op(String, Vec<u32>, Option<String>),
    Const(String, String),
}

fn commutative(op: &BrilOp) -> bool {
    matches!(op, BrilOp::Add | BrilOp::Mul | BrilOp::Eq | BrilOp::And | BrilOp::Or | BrilOp::Fadd | BrilOp::Fmul | BrilOp::Feq)
}

/// Operations computed from their operands alone, which a table may share.
fn pure(op: &BrilOp) -> bool {
    use BrilOp::*;
    matches!(
        op,
        Const | Id | Add | Sub | Mul | Div | Eq | Lt | Gt | Le | Ge | Not | And | Or | Fadd | Fsub | Fmul | Fdiv | Feq | Flt | Fgt
            | Fle | Fge | Ceq | Clt | Cgt | Cle | Cge | Char2Int | Int2Char | PtrAdd
    )
}

/// The constant `op` computes from constant operands, where folding is safe: integer
/// arithmetic wraps at 64 bits as Bril's does, a division by zero is not folded, and an
/// integer compared with itself needs no constants at all.
fn fold(op: &BrilOp, vals: &[Option<&Imm>], same: bool) -> Option<Imm> {
    use BrilOp::*;
    let int = |k: usize| match vals.get(k).copied().flatten() {
        Some(Imm::Int(i)) => Some(*i as i64),
        _ => None,
    };
    let boolean = |k: usize| match vals.get(k).copied().flatten() {
        Some(Imm::Bool(b)) => Some(*b),
        _ => None,
    };
    if same && vals.len() == 2 {
        match op {
            Eq | Le | Ge => return Some(Imm::Bool(true)),
            Lt | Gt => return Some(Imm::Bool(false)),
            _ => {}
        }
    }
    let i2 = || Some((int(0)?, int(1)?));
    let b2 = || Some((boolean(0)?, boolean(1)?));
    Some(match op {
        Add => i2().map(|(a, b)| Imm::Int(a.wrapping_add(b).into()))?,
        Sub => i2().map(|(a, b)| Imm::Int(a.wrapping_sub(b).into()))?,
        Mul => i2().map(|(a, b)| Imm::Int(a.wrapping_mul(b).into()))?,
        Div => {
            let (a, b) = i2()?;
            if b == 0 {
                return None;
            }
            Imm::Int(a.wrapping_div(b).into())
        }
        Eq => i2().map(|(a, b)| Imm::Bool(a == b))?,
        Lt => i2().map(|(a, b)| Imm::Bool(a < b))?,
        Gt => i2().map(|(a, b)| Imm::Bool(a > b))?,
        Le => i2().map(|(a, b)| Imm::Bool(a <= b))?,
        Ge => i2().map(|(a, b)| Imm::Bool(a >= b))?,
        And => b2().map(|(a, b)| Imm::Bool(a && b))?,
        Or => b2().map(|(a, b)| Imm::Bool(a || b))?,
        Not => Imm::Bool(!boolean(0)?),
        _ => return None,
    })
}

fn imm_text(imm: &Imm) -> String {
    match imm {
        Imm::Int(i) => i.to_string(),
        Imm::Bool(b) => b.to_string(),
        Imm::Float(x) => format!("{x:?}"),
        Imm::Char(c) => format!("'{c}'"),
        other => format!("{other:?}"),
    }
}

/// A row to add once the destination's name is known: its expression, lookup key, constant.
type Pending = (String, Option<Key>, Option<Imm>);

struct Table {
    rows: Vec<Row>,
    /// The current home of each row (by index = num - first), `None` once no variable holds it.
    home: Vec<Option<ValueId>>,
    by_key: HashMap<Key, u32>,
    key_of: Vec<Option<Key>>,
    consts: Vec<Option<Imm>>,
    /// What reading a variable (by its source name) means now.
    read: HashMap<ValueId, u32>,
    /// What each variable physically holds now.
    held: HashMap<ValueId, u32>,
    /// The other way round: the variables holding each row's value (by index), so that a
    /// clobbered home finds another holder without a scan of every variable.
    holders: Vec<Vec<ValueId>>,
    first: u32,
}

impl Table {
    fn new(first: u32) -> Table {
        Table { rows: Vec::new(), home: Vec::new(), by_key: HashMap::new(), key_of: Vec::new(), consts: Vec::new(), read: HashMap::new(), held: HashMap::new(), holders: Vec::new(), first }
    }
    fn idx(&self, num: u32) -> usize {
        (num - self.first) as usize
    }
    fn add(&mut self, expr: String, home: ValueId, key: Option<Key>, constant: Option<Imm>) -> Row {
        let num = self.first + self.rows.len() as u32;
        let row = Row { num, expr, home };
        self.rows.push(row.clone());
        self.home.push(Some(home));
        if let Some(k) = &key {
            self.by_key.insert(k.clone(), num);
        }
        self.key_of.push(key);
        self.consts.push(constant);
        self.holders.push(Vec::new());
        row
    }
    /// `var` (physically) holds row `num`'s value now.
    fn hold(&mut self, var: ValueId, num: u32) {
        self.held.insert(var, num);
        let i = self.idx(num);
        self.holders[i].push(var);
    }

    fn home_of(&self, num: u32) -> Option<ValueId> {
        self.home[self.idx(num)]
    }
    /// `var` (physically) is about to hold something else: the value it held moves to another
    /// holder, or leaves the lookups.
    fn clobber(&mut self, var: ValueId, moved: &mut Vec<(u32, Option<ValueId>)>) {
        let Some(old) = self.held.remove(&var) else { return };
        let i = self.idx(old);
        self.holders[i].retain(|&v| v != var);
        if self.home[i] != Some(var) {
            return;
        }
        let other = self.holders[i].iter().copied().min();
        self.home[i] = other;
        if other.is_none() {
            if let Some(k) = &self.key_of[i] {
                self.by_key.remove(k);
            }
        }
        moved.push((old, other));
    }
}

/// Numbers every block of `f` (which must verify).
pub fn run(f: &Function, opts: LvnOptions) -> Result<LvnOutput, LvnError> {
    if f.lang != Lang::Bril {
        return Err(LvnError::NotBril { function: f.name.clone() });
    }
    let unsupported = |reason: &str| LvnError::Unsupported { function: f.name.clone(), reason: reason.into() };
    if f.has_phis() {
        return Err(unsupported("it uses `phi`, whose operands are read on the edges into its block, not where it stands"));
    }
    if f.speculates() {
        return Err(unsupported("it speculates: a failing `guard` restores variables a table would still name"));
    }
    let mut trace = Trace { options: Some(opts), ..Trace::default() };
    let mut g = f.clone();
    let mut taken: HashSet<Name> = f.values.values().map(|v| v.name.clone()).collect();
    let mut fresh = 0u32;
    let mut next_num = 1u32;
    let mut stats = Stats::default();
    for &b in &f.layout {
        trace.events.push(Event::Block { block: b });
        let insts: Vec<InstId> = f.blocks[b].all_insts().collect();
        // The last assignment of each variable in the block keeps its name.
        let mut last: HashMap<ValueId, usize> = HashMap::new();
        for (k, &i) in insts.iter().enumerate() {
            if let Some(&d) = f.insts[i].results.first() {
                last.insert(d, k);
            }
        }
        let mut t = Table::new(next_num);
        for (k, &i) in insts.iter().enumerate() {
            let inst: &Inst = &f.insts[i];
            let Op::Bril(op) = &inst.op else { continue };
            stats.insts += 1;
            let mut added = Vec::new();
            let mut moved = Vec::new();
            // `set`'s first operand names a shadow variable, not a value.
            let skip = usize::from(*op == BrilOp::Set);
            let mut nums = Vec::with_capacity(inst.args.len());
            for &a in &inst.args[skip..] {
                let num = match t.read.get(&a) {
                    Some(&n) => n,
                    None => {
                        let name = f.values.get(a).map_or_else(|| a.to_string(), |v| v.name.to_string());
                        let row = t.add(format!("{name} (from outside)"), a, None, None);
                        t.read.insert(a, row.num);
                        t.hold(a, row.num);
                        let n = row.num;
                        added.push(row);
                        n
                    }
                };
                nums.push(num);
            }
            let homes: Vec<ValueId> = nums.iter().map(|&n| t.home_of(n).unwrap_or(ValueId(u32::MAX))).collect();
            let mut new_args: Vec<ValueId> = inst.args[..skip].to_vec();
            for (j, &a) in inst.args[skip..].iter().enumerate() {
                // A value no variable holds any more is read under its own name, as before.
                new_args.push(if homes[j] == ValueId(u32::MAX) { a } else { homes[j] });
            }
            let dest = inst.results.first().copied();
            let mut out_op = inst.op.clone();
            let mut out_imm = inst.imm.clone();
            let mut outcome = Outcome::Effect;
            // The value the destination gets: an existing number, or a row to add once the
            // destination's name is known (its expression, lookup key and constant).
            let mut value: Option<(u32, Option<Pending>)> = None;
            if let (Some(_), true) = (dest, pure(op)) {
                let ty = inst.ty.as_ref().map(|t| t.to_string());
                let mut key = match op {
                    BrilOp::Const => Some(Key::Const(ty.clone().unwrap_or_default(), imm_text(&inst.imm))),
                    _ => {
                        let mut ns = nums.clone();
                        if opts.commute && commutative(op) {
                            ns.sort_unstable();
                        }
                        Some(Key::Op(op.name().to_string(), ns, ty.clone()))
                    }
                };
                let mut constant = if *op == BrilOp::Const { Some(inst.imm.clone()) } else { None };
                if opts.prop && *op == BrilOp::Id && nums.len() == 1 && homes[0] != ValueId(u32::MAX) {
                    outcome = Outcome::Copy { num: nums[0] };
                    value = Some((nums[0], None));
                    key = None;
                } else if opts.fold && *op != BrilOp::Const && *op != BrilOp::Id {
                    let vals: Vec<Option<&Imm>> = nums.iter().map(|&n| t.consts[t.idx(n)].as_ref()).collect();
                    let same = nums.len() == 2 && nums[0] == nums[1] && matches!(op, BrilOp::Eq | BrilOp::Lt | BrilOp::Gt | BrilOp::Le | BrilOp::Ge);
                    if let Some(c) = fold(op, &vals, same) {
                        key = Some(Key::Const(ty.clone().unwrap_or_default(), imm_text(&c)));
                        out_op = Op::Bril(BrilOp::Const);
                        out_imm = c.clone();
                        new_args.clear();
                        constant = Some(c);
                        outcome = Outcome::Fold;
                    }
                }
                if value.is_none() {
                    if let Some(&n) = key.as_ref().and_then(|k| t.by_key.get(k)) {
                        if let Some(h) = t.home_of(n) {
                            outcome = Outcome::Reuse { num: n };
                            out_op = Op::Bril(BrilOp::Id);
                            out_imm = Imm::None;
                            new_args = vec![h];
                            value = Some((n, None));
                        }
                    }
                }
                if value.is_none() {
                    let expr = match &key {
                        Some(Key::Const(_, c)) => format!("const {c}"),
                        _ => std::iter::once(op.name().to_string()).chain(nums.iter().map(|n| format!("#{n}"))).collect::<Vec<_>>().join(" "),
                    };
                    if !matches!(outcome, Outcome::Fold) {
                        outcome = Outcome::New;
                    }
                    value = Some((0, Some((expr, key, constant))));
                }
            }
            // The destination: a fresh name if the variable is assigned again later here.
            let mut renamed = false;
            let mut out_dest = dest;
            if let Some(d) = dest {
                let mut physical = d;
                if last.get(&d).is_some_and(|&l| l > k) {
                    let mut name;
                    loop {
                        fresh += 1;
                        name = format!("lvn.{fresh}");
                        if !taken.contains(name.as_str()) {
                            break;
                        }
                    }
                    let name: Name = name.into();
                    taken.insert(name.clone());
                    let ty = inst.ty.clone().or_else(|| f.values.get(d).and_then(|v| v.ty.clone()));
                    let id = g.add_value(name.clone(), ty.clone(), ValueDef::Var);
                    trace.values.push((id, name, ty));
                    physical = id;
                    renamed = true;
                    stats.renamed += 1;
                }
                t.clobber(physical, &mut moved);
                let num = match value.take() {
                    Some((n, None)) => n,
                    Some((_, Some((expr, key, konst)))) => {
                        let r = t.add(expr, physical, key, konst);
                        let n = r.num;
                        added.push(r);
                        n
                    }
                    None => {
                        let expr = std::iter::once(op.name().to_string())
                            .chain(nums.iter().map(|n| format!("#{n}")))
                            .chain(std::iter::once("(effect)".to_string()))
                            .collect::<Vec<_>>()
                            .join(" ");
                        let r = t.add(expr, physical, None, None);
                        let n = r.num;
                        added.push(r);
                        n
                    }
                };
                t.read.insert(d, num);
                t.hold(physical, num);
                out_dest = Some(physical);
            }
            match outcome {
                Outcome::Reuse { .. } => stats.reused += 1,
                Outcome::Fold => stats.folded += 1,
                Outcome::Copy { .. } => stats.copies += 1,
                _ => {}
            }
            let e = Event::Inst { block: b, inst: i, outcome, op: out_op, args: new_args, imm: out_imm, dest: out_dest, added, moved, renamed };
            apply_event(&mut g, &e);
            trace.events.push(e);
        }
        next_num = t.first + t.rows.len() as u32;
    }
    crate::passes::shrink(&mut g);
    Ok(LvnOutput { function: Arc::new(g), trace, stats })
}
