//! The trace of SSA construction — every worklist step of φ placement, every push, read and
//! pop of the renaming walk, every φ written out — and the replay that rebuilds the program
//! and the stacks at any step.
//!
//! As for DCE, the pass edits through [`apply_event`], so replaying the whole trace on the
//! input gives exactly the pass's output (a test checks it); the view never re-runs the pass.

use super::idf::Placement;
use crate::ir::{BlockId, BrilOp, Function, Inst, InstId, Name, Op, Succ, Type, ValueDef, ValueId};
use serde::{Deserialize, Serialize};

/// How φs are written: Bril's current `set`/`get` (docs/lang/ssa2.md) or the deprecated
/// `phi` (docs/lang/ssa.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    #[default]
    SetGet,
    Phi,
}

/// What a frontier block got from the variable being placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Frontier {
    /// A φ: the variable is live into the block.
    Phi,
    /// No φ: the variable is dead there (pruned SSA).
    Dead,
}

/// One φ: where, for which variable, the name it defines and what each edge gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhiInfo {
    pub var: ValueId,
    pub block: BlockId,
    /// The name it defines (given when the renaming walk enters its block).
    pub name: ValueId,
    /// Per incoming edge, in the order the walk reached them: the predecessor and the name
    /// of the variable at its end (a `.0` name defined by `undef` where none reaches).
    pub args: Vec<(BlockId, ValueId)>,
}

/// A value the pass made: a version of a variable, or its undefined value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewValue {
    pub id: ValueId,
    pub name: Name,
    pub ty: Option<Type>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// φ placement for `var` starts: its worklist is the blocks that define it.
    Worklist { var: ValueId, defs: Vec<BlockId> },
    /// `block` is taken off the worklist; `frontier` is its dominance frontier.
    Take { var: ValueId, block: BlockId, frontier: Vec<BlockId> },
    /// `to`, in the frontier of `from`, is met for the first time for `var`; `joins` says
    /// whether it joins the worklist (it was not on it).
    Frontier { var: ValueId, from: BlockId, to: BlockId, outcome: Frontier, joins: bool },
    /// The renaming walk enters `block` (dominator-tree preorder; blocks the entry does not
    /// reach come last, each on its own).
    Enter { block: BlockId },
    /// The φ `phi` (index into [`Trace::phis`]) defines its name: pushed on its variable's stack.
    PhiDef { phi: u32 },
    /// Operand `arg` of `inst` reads `var`, renamed to `name` (the top of `var`'s stack, or
    /// `var` itself when the stack is empty: no assignment reaches the read).
    Use { inst: InstId, arg: u32, var: ValueId, name: ValueId },
    /// `inst` assigns `var`, renamed to the new `name`: pushed.
    Def { inst: InstId, var: ValueId, name: ValueId },
    /// On the edge `from` → the φ's block, the φ receives `value`.
    Arg { phi: u32, from: BlockId, value: ValueId },
    /// The walk leaves `block`, popping what it pushed there (one entry per push).
    Leave { block: BlockId, popped: Vec<ValueId> },
    /// `name: T = undef` at the top of the entry: the value of `var` where no assignment
    /// reaches an edge into a φ.
    Undef { var: ValueId, name: ValueId },
    /// The φ is written out: a `get` at the top of its block and a `set` at the end of each
    /// predecessor, or one `phi`.
    Emit { phi: u32 },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub form: Form,
    /// The block put in front of an entry that had predecessors (Bril's `add_entry`), so that
    /// the function's start is an edge of its own.
    pub fresh_entry: Option<BlockId>,
    /// The input used `set`/`get` or `phi` without being in SSA form, and was translated out
    /// of SSA first: the events apply to that translation.
    #[serde(default)]
    pub flattened: bool,
    pub phis: Vec<PhiInfo>,
    /// The renamed parameters: each is its own first version, at the bottom of its stack
    /// before the walk starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<ValueId>,
    /// Every value the pass made, in the order it made them.
    pub values: Vec<NewValue>,
    pub events: Vec<Event>,
}

/// Why a replay could not apply an event (a trace that does not belong to the function).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the trace does not fit the function: {0}")]
pub struct ReplayError(pub String);

/// The function the events apply to: the input (with its fresh entry block, if the pass
/// added one) and every value the pass made.
pub fn base(start: &Function, trace: &Trace) -> Function {
    let mut g = start.clone_with_room(0, trace.values.len());
    for v in &trace.values {
        g.add_value(v.name.clone(), v.ty.clone(), ValueDef::Var);
    }
    g
}

/// Applies one event to `g`. Placement and the walk's bookkeeping change nothing; a read or
/// an assignment renames an operand or a destination; `Undef` and `Emit` add instructions.
pub fn apply_event(g: &mut Function, trace: &Trace, e: &Event) -> Result<(), ReplayError> {
    apply_event_as(g, trace, trace.form, e)
}

/// [`apply_event`] writing φs in `form`, whatever form the pass wrote: the trace up to the
/// writing is the same for both, so either output is a replay.
pub fn apply_event_as(g: &mut Function, trace: &Trace, form: Form, e: &Event) -> Result<(), ReplayError> {
    let bad = |what: &str| ReplayError(what.to_string());
    match e {
        Event::Use { inst, arg, name, .. } => {
            let slot = g.insts.get_mut(*inst).and_then(|i| i.args.get_mut(*arg as usize)).ok_or_else(|| bad("no such operand"))?;
            *slot = *name;
        }
        Event::Def { inst, name, .. } => {
            let slot = g.insts.get_mut(*inst).and_then(|i| i.results.first_mut()).ok_or_else(|| bad("no such destination"))?;
            *slot = *name;
        }
        Event::Undef { name, .. } => {
            let entry = g.entry().ok_or_else(|| bad("no entry block"))?;
            let ty = g.values.get(*name).ok_or_else(|| bad("no such value"))?.ty.clone();
            let mut inst = Inst::new(Op::Bril(BrilOp::Undef));
            inst.results.push(*name);
            inst.ty = ty;
            let id = g.add_inst(inst);
            g.blocks[entry].insts.insert(0, id);
        }
        Event::Emit { phi } => {
            let p = trace.phis.get(*phi as usize).ok_or_else(|| bad("no such φ"))?;
            emit(g, form, p).map_err(bad)?;
        }
        Event::Worklist { .. }
        | Event::Take { .. }
        | Event::Frontier { .. }
        | Event::Enter { .. }
        | Event::PhiDef { .. }
        | Event::Arg { .. }
        | Event::Leave { .. } => {}
    }
    Ok(())
}

/// Writes one φ into `g`: after the block's earlier φs (`get`s or `phi`s at its top), and in
/// `set`/`get` form a `set` at the end of each predecessor, before its terminator.
fn emit(g: &mut Function, form: Form, p: &PhiInfo) -> Result<(), &'static str> {
    let block = g.blocks.get(p.block).ok_or("no such block")?;
    let ty = g.values.get(p.name).ok_or("no such value")?.ty.clone();
    let at = block
        .insts
        .iter()
        .take_while(|&&i| matches!(g.insts[i].op, Op::Bril(BrilOp::Get | BrilOp::Phi)))
        .count();
    match form {
        Form::SetGet => {
            let mut get = Inst::new(Op::Bril(BrilOp::Get));
            get.results.push(p.name);
            get.ty = ty;
            let id = g.add_inst(get);
            g.blocks[p.block].insts.insert(at, id);
            for &(from, value) in &p.args {
                let mut set = Inst::new(Op::Bril(BrilOp::Set));
                set.args.push(p.name);
                set.args.push(value);
                let id = g.add_inst(set);
                g.blocks.get_mut(from).ok_or("no such predecessor")?.insts.push(id);
            }
        }
        Form::Phi => {
            let mut phi = Inst::new(Op::Bril(BrilOp::Phi));
            phi.results.push(p.name);
            phi.ty = ty;
            for &(from, value) in &p.args {
                phi.args.push(value);
                phi.succs.push(Succ::to(from));
                // A `phi` names its predecessors by label: an unlabeled one gets its name.
                if let Some(b) = g.blocks.get_mut(from) {
                    b.labeled = true;
                }
            }
            let id = g.add_inst(phi);
            g.blocks[p.block].insts.insert(at, id);
        }
    }
    Ok(())
}

/// The program after the first `k` events.
pub fn replay_to(start: &Function, trace: &Trace, k: usize) -> Result<Function, ReplayError> {
    replay_to_as(start, trace, k, trace.form)
}

/// [`replay_to`] writing φs in `form`.
pub fn replay_to_as(start: &Function, trace: &Trace, k: usize, form: Form) -> Result<Function, ReplayError> {
    let mut g = base(start, trace);
    for e in trace.events.iter().take(k) {
        apply_event_as(&mut g, trace, form, e)?;
    }
    Ok(g)
}

/// What the view shows beside the program at a step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// The variable being placed, and its walk so far (`kept`: the blocks given a φ).
    pub placing: Option<ValueId>,
    pub placement: Placement,
    /// The renaming walk: the blocks entered and not yet left (the current one last), and
    /// every variable's stack (bottom first) in the order the variables were first pushed.
    pub path: Vec<BlockId>,
    pub stacks: Vec<(ValueId, Vec<ValueId>)>,
}

/// The state after the first `k` events (cheap: it folds the bookkeeping events only).
pub fn state_at(trace: &Trace, k: usize) -> State {
    let mut s = State::default();
    s.stacks.extend(trace.params.iter().map(|&p| (p, vec![p])));
    let push = |s: &mut State, var: ValueId, name: ValueId| match s.stacks.iter_mut().find(|(v, _)| *v == var) {
        Some((_, st)) => st.push(name),
        None => s.stacks.push((var, vec![name])),
    };
    for e in trace.events.iter().take(k) {
        match e {
            Event::Worklist { var, defs } => {
                s.placing = Some(*var);
                s.placement.start(defs);
            }
            Event::Take { block, .. } => s.placement.take(*block),
            Event::Frontier { to, outcome, joins, .. } => s.placement.frontier(*to, *outcome == Frontier::Phi, *joins),
            Event::Enter { block } => {
                s.placing = None;
                s.placement.worklist.clear();
                s.path.push(*block);
            }
            Event::PhiDef { phi } => {
                if let Some(p) = trace.phis.get(*phi as usize) {
                    push(&mut s, p.var, p.name);
                }
            }
            Event::Def { var, name, .. } => push(&mut s, *var, *name),
            Event::Leave { popped, .. } => {
                for var in popped {
                    if let Some((_, st)) = s.stacks.iter_mut().find(|(v, _)| v == var) {
                        st.pop();
                    }
                }
                s.path.pop();
            }
            Event::Use { .. } | Event::Arg { .. } | Event::Undef { .. } | Event::Emit { .. } => {}
        }
    }
    s
}
