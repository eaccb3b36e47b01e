//! The trace of Mem2Reg — every slot chosen or left with its reason, every worklist step of
//! block-argument placement, every load replaced, store removed and argument passed, every
//! deletion — and the replay that rebuilds the function at any step.
//!
//! The pass edits only through [`apply_event`], so replaying the whole trace on the input
//! gives exactly the pass's output (a test checks it); a view never re-runs the pass.
//! Values the pass makes (block arguments, `undef`s) are made by the events themselves, in
//! trace order, so the pass and a replay give them the same ids.

use crate::passes::ssa::idf::Placement;
use crate::ir::{branch_pieces, ArgTypes, BlockId, Function, InstId, Name, Type, ValueDef, ValueId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// An `alloc_stack` the pass looked at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotInfo {
    pub alloc: InstId,
    /// The address the `alloc_stack` defines.
    pub addr: ValueId,
    /// The type of what the slot holds (`Builtin.Int64`, not `*Builtin.Int64`).
    pub ty: Option<Type>,
}

/// Why a slot stays in memory. Swift's Mem2Reg leaves exactly such slots alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// `alloc_stack [dynamic_lifetime]`: whether it holds a value is known only at run time.
    DynamicLifetime,
    /// The `alloc_stack` has no type the pass can read.
    NoType,
    /// The type is not trivial (or the text does not decide): promoting it would need copies
    /// and destroys at the φs, which this pass does not write.
    NotTrivial { ty: String, class: String },
    /// The address is used by something other than a plain load, store, `debug_value` or
    /// `dealloc_stack`: it may be read or written behind the pass's back.
    Escapes { inst: InstId, op: String },
    /// A `load` or `store` with a qualifier that is not `[trivial]` (`[take]`, `[copy]`,
    /// `[init]`, `[assign]`): ownership the pass would have to move along.
    Qualifier { inst: InstId, op: String, attr: String },
    /// A block argument is needed at `block`, and the edge from `pred` ends in a terminator
    /// that cannot pass one (Swift would split the edge; this pass leaves the slot).
    Edge { block: BlockId, pred: BlockId, op: String },
    /// A block argument would be needed at the entry block, whose arguments are the function's.
    Entry { block: BlockId },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::DynamicLifetime => f.write_str("it is `[dynamic_lifetime]`: whether it holds a value is decided at run time"),
            Reason::NoType => f.write_str("its type could not be read"),
            Reason::NotTrivial { ty, class } => write!(f, "its type `${ty}` is {class}, not trivial"),
            Reason::Escapes { op, .. } => write!(f, "its address escapes into `{op}`"),
            Reason::Qualifier { op, attr, .. } => write!(f, "a `{op} [{attr}]` moves ownership, not only a trivial value"),
            Reason::Edge { op, .. } => write!(f, "a block argument is needed after a `{op}`, which cannot pass one"),
            Reason::Entry { .. } => f.write_str("a block argument would be needed at the entry block"),
        }
    }
}

/// What a frontier block got from the slot being placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Frontier {
    /// A block argument: the slot is live into the block.
    Arg,
    /// None: no load reads the slot from there before a store (pruned).
    Dead,
}

/// One use of a load's result: operand `k` of `inst`, or argument `k` of its successor `succ`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hole {
    Arg { inst: InstId, k: u32 },
    SuccArg { inst: InstId, succ: u32, k: u32 },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The slot's address is used only by loads, stores, `debug_value` and `dealloc_stack`,
    /// and its type is trivial: it will be promoted.
    Chosen { slot: u32, loads: u32, stores: u32 },
    /// The slot stays in memory.
    Rejected { slot: u32, reason: Reason },
    /// Placement for `slot` starts: its worklist is the blocks that store to it.
    Worklist { slot: u32, defs: Vec<BlockId> },
    /// `block` is taken off the worklist; `frontier` is its dominance frontier.
    Take { slot: u32, block: BlockId, frontier: Vec<BlockId> },
    /// `to`, in the frontier of `from`, is met for the first time; `joins` says whether it
    /// joins the worklist.
    Frontier { slot: u32, from: BlockId, to: BlockId, outcome: Frontier, joins: bool },
    /// `block` gets the argument `value` (named `name`) for `slot`: SIL's φ.
    AddArg { slot: u32, block: BlockId, value: ValueId, name: Name },
    /// The renaming walk enters `block` (dominator-tree preorder; blocks the entry does not
    /// reach come last, each on its own).
    Enter { block: BlockId },
    /// `load` is deleted and every use of its `result` now reads `value` (`None`: an `undef`
    /// of the slot's type, one per use, where nothing was stored on the way).
    ReplaceLoad { slot: u32, block: BlockId, load: InstId, result: ValueId, value: Option<ValueId>, uses: Vec<Hole> },
    /// `store` is deleted; the slot now holds `value`.
    RemoveStore { slot: u32, block: BlockId, store: InstId, value: Option<ValueId> },
    /// The edge `succ` of `term` (in `from`) passes `value` to the argument of `slot` in `to`.
    PassArg { slot: u32, from: BlockId, term: InstId, succ: u32, to: BlockId, value: Option<ValueId> },
    /// The walk leaves `block`.
    Leave { block: BlockId },
    /// A `debug_value` or `dealloc_stack` of the address, or the `alloc_stack` itself, is
    /// deleted.
    Delete { slot: u32, block: BlockId, inst: InstId },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub slots: Vec<SlotInfo>,
    pub events: Vec<Event>,
}

/// Why a replay could not apply an event (a trace that does not belong to the function).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the trace does not fit the function: {0}")]
pub struct ReplayError(pub String);

/// Applies one event to `g`: the walk's bookkeeping and placement change nothing; the rest
/// edit the function.
pub fn apply_event(g: &mut Function, trace: &Trace, e: &Event) -> Result<(), ReplayError> {
    let bad = |what: &str| ReplayError(what.to_string());
    let slot_ty = |slot: u32| trace.slots.get(slot as usize).map(|s| s.ty.clone()).ok_or_else(|| bad("no such slot"));
    match e {
        Event::AddArg { slot, block, value, name } => {
            let ty = slot_ty(*slot)?;
            let index = g.blocks.get(*block).ok_or_else(|| bad("no such block"))?.params.len() as u32;
            let v = g.add_value(name.clone(), ty, ValueDef::Param { block: *block, index });
            if v != *value {
                return Err(bad("a block argument's id differs from the trace's"));
            }
            g.blocks[*block].params.push(v);
        }
        Event::ReplaceLoad { slot, block, load, value, uses, .. } => {
            let ty = slot_ty(*slot)?;
            for &h in uses {
                let v = match value {
                    Some(v) => *v,
                    None => g.add_undef(ty.clone()),
                };
                let at = match h {
                    Hole::Arg { inst, k } => g.insts.get_mut(inst).and_then(|i| i.args.get_mut(k as usize)),
                    Hole::SuccArg { inst, succ, k } => {
                        g.insts.get_mut(inst).and_then(|i| i.succs.get_mut(succ as usize)).and_then(|s| s.args.get_mut(k as usize))
                    }
                };
                *at.ok_or_else(|| bad("no such use"))? = v;
            }
            unplace(g, *block, *load)?;
        }
        Event::RemoveStore { block, store, .. } => unplace(g, *block, *store)?,
        Event::Delete { block, inst, .. } => unplace(g, *block, *inst)?,
        Event::PassArg { slot, term, succ, value, .. } => {
            let ty = slot_ty(*slot)?;
            let v = match value {
                Some(v) => *v,
                None => g.add_undef(ty),
            };
            let s = g.insts.get_mut(*term).and_then(|i| i.succs.get_mut(*succ as usize)).ok_or_else(|| bad("no such edge"))?;
            s.args.push(v);
            // The printed form lists the arguments, so it is rebuilt from them; the target's
            // parameters give the types (an `undef` could carry none).
            let pieces = branch_pieces(g, &g.insts[*term], ArgTypes::Target).ok_or_else(|| bad("the edge is not a `br` or `cond_br`"))?;
            g.insts[*term].sil = pieces;
        }
        Event::Chosen { .. }
        | Event::Rejected { .. }
        | Event::Worklist { .. }
        | Event::Take { .. }
        | Event::Frontier { .. }
        | Event::Enter { .. }
        | Event::Leave { .. } => {}
    }
    Ok(())
}

/// Takes `inst` out of `block`'s order (the arena keeps it, so trace ids stay valid).
fn unplace(g: &mut Function, block: BlockId, inst: InstId) -> Result<(), ReplayError> {
    let b = g.blocks.get_mut(block).ok_or_else(|| ReplayError("no such block".into()))?;
    let k = b.insts.iter().position(|&i| i == inst).ok_or_else(|| ReplayError(format!("{inst} is not in {block}")))?;
    b.insts.remove(k);
    Ok(())
}

/// The function after the first `k` events.
pub fn replay_to(start: &Function, trace: &Trace, k: usize) -> Result<Function, ReplayError> {
    let mut g = start.clone();
    for e in trace.events.iter().take(k) {
        apply_event(&mut g, trace, e)?;
    }
    Ok(g)
}

/// What a view shows beside the function at a step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// The slot being placed, and its walk so far (`kept`: the blocks given an argument).
    pub placing: Option<u32>,
    pub placement: Placement,
    /// The renaming walk: the blocks entered and not yet left, the current one last.
    pub path: Vec<BlockId>,
}

/// The state after the first `k` events (folds the bookkeeping events only).
pub fn state_at(trace: &Trace, k: usize) -> State {
    let mut s = State::default();
    for e in trace.events.iter().take(k) {
        match e {
            Event::Worklist { slot, defs } => {
                s.placing = Some(*slot);
                s.placement.start(defs);
            }
            Event::Take { block, .. } => s.placement.take(*block),
            Event::Frontier { to, outcome, joins, .. } => s.placement.frontier(*to, *outcome == Frontier::Arg, *joins),
            Event::Enter { block } => {
                s.placing = None;
                s.placement.worklist.clear();
                s.path.push(*block);
            }
            Event::Leave { .. } => {
                s.path.pop();
            }
            _ => {}
        }
    }
    s
}
