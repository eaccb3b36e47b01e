//! The DCE trace: what was marked live and why, then every edit of the sweep — and the
//! replayer that turns the original function plus the trace into the pass's output.
//!
//! The design document's rule is that the UI never re-runs an algorithm to show a step; it
//! replays a trace. So every edit event carries all the ids it creates (the new branch, the
//! fresh `undef` values) and [`apply_event`] re-creates them deterministically; the pass
//! itself performs its edits through the same function, so "replaying the whole trace on the
//! original function gives exactly the pass's output" holds by construction and is checked
//! by the tests on every input (ids included).

use crate::diag::Span;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, BrilOp, Function, Inst, InstId, Lang, Op, Piece, SilOp, Succ, ValueDef, ValueId};
use super::ossa::make_end;
use crate::ir::{branch_pieces, ArgTypes};
pub use super::ossa::EndKind;
use serde::{Deserialize, Serialize};

/// Something that can be live: an instruction, or a SIL block parameter (function arguments
/// included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "node", content = "id", rename_all = "snake_case")]
pub enum Node {
    Inst(InstId),
    Arg(ValueId),
}

/// Why an instruction is a root of liveness (needs no other reason to be kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootKind {
    /// It may write memory, trap, perform I/O or call unknown code.
    SideEffect,
    /// Control leaves the function here (`return`, `throw`, `unreachable`, Bril `ret`).
    FunctionExit,
    /// An operation the lab does not model: assumed to have side effects.
    Unknown,
    /// Its result has a lexical lifetime (`move_value [lexical]`, `begin_borrow [lexical]`).
    Lexical,
    /// `debug_value` of a function argument or of `undef`: free to keep, and the debugger
    /// needs it (Swift's `seemsUseful`).
    DebugOfArgument,
    /// `fix_lifetime` of an address or of a value whose type is not known to be trivial: it
    /// keeps every aliasing reference alive, which DCE cannot see.
    FixLifetime,
    /// `end_lifetime` of an address: DCE does not reason about memory.
    AddressEndLifetime,
    /// `begin_access` in a function without ownership (non-OSSA): Swift keeps these (its
    /// test `dead_access` in `dead_code_elimination.sil`), while in OSSA a dead access scope
    /// is removed.
    AccessScope,
    /// A conditional branch that could not be turned into a jump because no block containing a
    /// live instruction post-dominates it (control may never reach an exit from here, as in
    /// Swift's `deal_with_infinite_loop`): the branch is kept as it is, with its condition.
    NoLivePostDominator,
}

/// Why a node was marked live.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    Root { root: RootKind },
    /// SIL: it defines (or, for an argument, is) an operand of the live instruction `of`.
    Operand { of: InstId },
    /// Bril: it is a definition of `var` that reaches the live instruction `use_in`.
    ReachingDef { use_in: InstId, var: ValueId },
    /// SIL: it defines (or is) the value a predecessor passes for the live argument `arg` of
    /// `block`.
    IncomingValue { arg: ValueId, block: BlockId },
    /// SIL: this terminator passes a value to the live argument `arg` of `block`.
    BranchFeedsLiveArg { arg: ValueId, block: BlockId },
    /// This terminator decides whether `block` runs (`block` is control dependent on the
    /// terminator's block), and `block` holds the live `via`.
    ControlDependence { block: BlockId, via: Node },
    /// It is live only because `on` is (debug uses, overflow checks, lifetime ends).
    ReverseDependency { on: Node },
}

/// The phases of the pass, as markers in the event list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Instructions live by themselves are marked.
    Roots,
    /// Liveness flows backwards from the roots.
    Propagate,
    /// Dead instructions are deleted and dead branches rewritten.
    Sweep,
}

/// An operand position of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "slot", rename_all = "snake_case")]
pub enum Slot {
    /// `args[index]`
    Arg { index: u32 },
    /// `succs[succ].args[index]`
    SuccArg { succ: u32, index: u32 },
}

/// One step of the pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Phase { phase: Phase },
    /// `inst` (in `block`) is live.
    Live { inst: InstId, block: BlockId, reason: Reason },
    /// The SIL block parameter `arg` of `block` is live.
    LiveArg { arg: ValueId, block: BlockId, reason: Reason },
    /// The dead terminator `old` of `block` is replaced by the unconditional branch `new` to
    /// `target`, its nearest post-dominator holding a live instruction; `undefs` are the
    /// fresh `undef` values passed for `target`'s parameters (SIL).
    RewriteBranch { block: BlockId, old: InstId, new: InstId, target: BlockId, undefs: Vec<ValueId> },
    /// OSSA: the dead `before` consumed the live `value`; deleting it alone would leak, so
    /// `new` — `destroy_value %value : $ty` (or `destroy_addr` for a dead `load [take]`) —
    /// is inserted in its place, just before it is deleted.
    /// `before: None` inserts at the end of the block, before its terminator.
    EndLifetime { block: BlockId, before: Option<InstId>, new: InstId, value: ValueId, kind: EndKind, ty: Option<String> },
    /// OSSA: the dead phi `arg`, parameter `index` of `block`, is removed, with the value
    /// every branch into `block` passed for it.
    ErasePhi { block: BlockId, index: u32, arg: ValueId },
    /// The dead instruction `inst` is removed from `block`.
    Delete { inst: InstId, block: BlockId },
    /// `inst` keeps running but the value in `slot` (`old`) is deleted or feeds a dead block
    /// argument: the fresh `undef` value `new` replaces it.
    Undef { inst: InstId, slot: Slot, old: ValueId, new: ValueId },
    /// Bril: `block` fell through to `target`, which no longer follows it in the layout, so
    /// it gets the explicit `jmp` `new`.
    ExplicitJump { block: BlockId, new: InstId, target: BlockId },
    /// `block` became unreachable and is removed from the layout.
    RemoveBlock { block: BlockId },
}

/// The record of one DCE run on one function.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub function: String,
    pub events: Vec<Event>,
    /// Set when the pass did nothing because the input was not well formed; the events are
    /// then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// A trace that does not fit the function it is replayed on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index} of the DCE trace does not apply: {problem}")]
pub struct ReplayError {
    pub index: usize,
    pub problem: String,
}

/// The unconditional branch to `target` passing `args`: SIL `br`, Bril `jmp`. The span is the
/// replaced instruction's, so the editor highlights the right line.
pub(crate) fn make_jump(f: &Function, target: BlockId, args: Vec<ValueId>, span: Span) -> Inst {
    let mut inst = match f.lang {
        Lang::Bril => Inst::new(Op::Bril(BrilOp::Jmp)),
        Lang::Sil => {
            let mut inst = Inst::new(Op::Sil(SilOp::Br));
            inst.sil.push(Piece::Text("br ".into()));
            inst.sil.push(Piece::Succ(0));
            if !args.is_empty() {
                inst.sil.push(Piece::Text("(".into()));
                for (j, &a) in args.iter().enumerate() {
                    if j > 0 {
                        inst.sil.push(Piece::Text(", ".into()));
                    }
                    inst.sil.push(Piece::SuccArg(0, j as u32));
                    if let Some(ty) = f.values.get(a).and_then(|v| v.ty.as_ref()) {
                        inst.sil.push(Piece::Text(format!(" : {ty}")));
                    }
                }
                inst.sil.push(Piece::Text(")".into()));
            }
            inst
        }
    };
    inst.succs.push(Succ { block: target, args: args.into() });
    inst.span = span;
    inst
}

fn fail<T>(index: usize, problem: impl Into<String>) -> Result<T, ReplayError> {
    Err(ReplayError { index, problem: problem.into() })
}

/// `placed` holds the blocks of the layout (its capacity is the number of blocks).
fn check_block(placed: &EntitySet<BlockId>, index: usize, b: BlockId) -> Result<(), ReplayError> {
    if b.index() >= placed.capacity() || !placed.contains(b) {
        return fail(index, format!("block {b} is not in the function"));
    }
    Ok(())
}

/// Adds a fresh `undef` with the type of `like` and checks it gets the id the trace recorded.
fn fresh_undef(f: &mut Function, index: usize, like: Option<ValueId>, expect: ValueId) -> Result<(), ReplayError> {
    let ty = like.and_then(|v| f.values.get(v)).and_then(|v| v.ty.clone());
    let got = f.add_undef(ty);
    if got != expect {
        return fail(index, format!("the new undef would be {got}, the trace says {expect}"));
    }
    Ok(())
}

/// Applies one event (`index` is its position, for errors). Marking events change nothing.
///
/// One event on its own costs O(blocks) (the layout is indexed, then rebuilt); to apply many,
/// use a [`Replayer`], which does that once.
pub fn apply_event(f: &mut Function, index: usize, e: &Event) -> Result<(), ReplayError> {
    let mut r = Replayer::new(f);
    let res = r.apply(index, e);
    r.finish();
    res
}

/// Applies a sequence of events with O(1) bookkeeping per event (issue 17: the SIL sweep of
/// 10^5 blocks took 7 s in `layout.contains`/`layout.retain` per event). Membership of the
/// layout is a bit set; removed blocks are tombstones there, and the layout itself is
/// rebuilt once, by [`Replayer::finish`] (also on drop). Until then `f.layout` still lists
/// the removed blocks: read the function after `finish`.
pub struct Replayer<'f> {
    pub(crate) f: &'f mut Function,
    placed: EntitySet<BlockId>,
    removed: bool,
    /// The blocks whose terminator may branch to each block (built at the first `ErasePhi`,
    /// kept up to date by `RewriteBranch`; may hold stale entries, which are re-checked).
    preds: Option<EntityVec<BlockId, Vec<BlockId>>>,
}

impl Drop for Replayer<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl<'f> Replayer<'f> {
    pub fn new(f: &'f mut Function) -> Replayer<'f> {
        let mut placed = EntitySet::new_empty(f.blocks.len());
        for &b in &f.layout {
            if b.index() < f.blocks.len() {
                placed.insert(b);
            }
        }
        Replayer { f, placed, removed: false, preds: None }
    }

    /// Rebuilds the layout without the removed blocks.
    fn flush(&mut self) {
        if self.removed {
            let placed = &self.placed;
            self.f.layout.retain(|&b| placed.contains(b));
            self.removed = false;
        }
    }

    /// Ends the replay: the function is now exactly what the events made of it.
    pub fn finish(mut self) {
        self.flush();
    }

    /// The placed blocks whose terminator branches to `block`, each once.
    fn preds_of(&mut self, block: BlockId) -> Vec<BlockId> {
        let f = &*self.f;
        let preds = self.preds.get_or_insert_with(|| {
            let mut preds: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(f.blocks.len(), Vec::new());
            for &b in &f.layout {
                let Some(t) = f.blocks.get(b).and_then(|blk| blk.term) else { continue };
                for s in f.insts.get(t).map_or(&[][..], |i| i.succs.as_slice()) {
                    if let Some(list) = preds.get_mut(s.block) {
                        list.push(b);
                    }
                }
            }
            preds
        });
        let mut list: Vec<BlockId> = preds.get(block).cloned().unwrap_or_default();
        list.sort_unstable();
        list.dedup();
        list.retain(|&p| {
            self.placed.contains(p)
                && f.blocks[p].term.and_then(|t| f.insts.get(t)).is_some_and(|i| i.succs.iter().any(|x| x.block == block))
        });
        list
    }

    /// Applies one event (`index` is its position, for errors).
    pub fn apply(&mut self, index: usize, e: &Event) -> Result<(), ReplayError> {
        let f = &mut *self.f;
        match e {
            Event::Phase { .. } | Event::Live { .. } | Event::LiveArg { .. } => Ok(()),
            Event::RewriteBranch { block, old, new, target, undefs } => {
                check_block(&self.placed, index, *block)?;
                check_block(&self.placed, index, *target)?;
                if f.blocks[*block].term != Some(*old) {
                    return fail(index, format!("{old} is not the terminator of {block}"));
                }
                let params = f.blocks[*target].params.clone();
                if f.lang == Lang::Sil && params.len() != undefs.len() {
                    return fail(index, format!("{target} takes {} argument(s), not {}", params.len(), undefs.len()));
                }
                for (k, &u) in undefs.iter().enumerate() {
                    fresh_undef(f, index, params.get(k).copied(), u)?;
                }
                let span = f.insts[*old].span;
                let jump = make_jump(f, *target, undefs.clone(), span);
                let got = f.add_inst(jump);
                if got != *new {
                    return fail(index, format!("the new branch would be {got}, the trace says {new}"));
                }
                f.blocks[*block].term = Some(got);
                // A Bril block reached only by fall-through has no label yet; a jump needs one.
                f.blocks[*target].labeled = true;
                if let Some(list) = self.preds.as_mut().and_then(|p| p.get_mut(*target)) {
                    list.push(*block);
                }
                Ok(())
            }
            Event::EndLifetime { block, before, new, value, kind, ty } => {
                check_block(&self.placed, index, *block)?;
                let (pos, span) = match before {
                    Some(before) => match f.blocks[*block].insts.iter().position(|i| i == before) {
                        Some(pos) => (pos, f.insts[*before].span),
                        None => return fail(index, format!("{before} is not in {block}")),
                    },
                    None => (f.blocks[*block].insts.len(), f.blocks[*block].term.map_or(f.blocks[*block].span, |t| f.insts[t].span)),
                };
                if value.index() >= f.values.len() {
                    return fail(index, format!("no value {value}"));
                }
                let end = make_end(f, *kind, *value, ty.clone(), span);
                let got = f.add_inst(end);
                if got != *new {
                    return fail(index, format!("the new instruction would be {got}, the trace says {new}"));
                }
                f.blocks[*block].insts.insert(pos, got);
                Ok(())
            }
            Event::ErasePhi { block, index: k, arg } => {
                check_block(&self.placed, index, *block)?;
                let k = *k as usize;
                if f.blocks[*block].params.get(k) != Some(arg) {
                    return fail(index, format!("{arg} is not parameter {k} of {block}"));
                }
                f.blocks[*block].params.remove(k);
                for (j, p) in f.blocks[*block].params.clone().into_iter().enumerate().skip(k) {
                    f.values[p].def = ValueDef::Param { block: *block, index: j as u32 };
                }
                for b in self.preds_of(*block) {
                    let f = &mut *self.f;
                    let Some(t) = f.blocks[b].term else { continue };
                    let mut changed = false;
                    for s in f.insts[t].succs.iter_mut().filter(|s| s.block == *block) {
                        if s.args.len() > k {
                            s.args.remove(k);
                            changed = true;
                        }
                    }
                    if changed {
                        if let Some(pieces) = branch_pieces(f, &f.insts[t], ArgTypes::Target) {
                            f.insts[t].sil = pieces;
                        }
                    }
                }
                Ok(())
            }
            Event::Delete { inst, block } => {
                check_block(&self.placed, index, *block)?;
                let insts = &mut f.blocks[*block].insts;
                let Some(pos) = insts.iter().position(|i| i == inst) else {
                    return fail(index, format!("{inst} is not in {block}"));
                };
                insts.remove(pos);
                Ok(())
            }
            Event::Undef { inst, slot, old, new } => {
                if inst.index() >= f.insts.len() {
                    return fail(index, format!("no instruction {inst}"));
                }
                let current = match *slot {
                    Slot::Arg { index: k } => f.insts[*inst].args.get(k as usize).copied(),
                    Slot::SuccArg { succ, index: k } => {
                        f.insts[*inst].succs.get(succ as usize).and_then(|s| s.args.get(k as usize)).copied()
                    }
                };
                if current != Some(*old) {
                    return fail(index, format!("{inst} does not use {old} in {slot:?}"));
                }
                fresh_undef(f, index, Some(*old), *new)?;
                let target = match *slot {
                    Slot::Arg { index: k } => &mut f.insts[*inst].args[k as usize],
                    Slot::SuccArg { succ, index: k } => &mut f.insts[*inst].succs[succ as usize].args[k as usize],
                };
                *target = *new;
                Ok(())
            }
            Event::ExplicitJump { block, new, target } => {
                check_block(&self.placed, index, *block)?;
                check_block(&self.placed, index, *target)?;
                if f.blocks[*block].term.is_some() {
                    return fail(index, format!("{block} already ends in a terminator"));
                }
                let span = f.blocks[*block].span;
                let jump = make_jump(f, *target, Vec::new(), span);
                let got = f.add_inst(jump);
                if got != *new {
                    return fail(index, format!("the new jump would be {got}, the trace says {new}"));
                }
                f.blocks[*block].term = Some(got);
                f.blocks[*target].labeled = true;
                Ok(())
            }
            Event::RemoveBlock { block } => {
                check_block(&self.placed, index, *block)?;
                self.placed.remove(*block);
                self.removed = true;
                Ok(())
            }
        }
    }
}

/// The function after the first `n` events of `trace` (all of them if `n` is larger): what
/// the UI shows at step `n`.
pub fn replay_to(f: &Function, trace: &Trace, n: usize) -> Result<Function, ReplayError> {
    let mut g = f.clone();
    let mut r = Replayer::new(&mut g);
    for (k, e) in trace.events.iter().take(n).enumerate() {
        r.apply(k, e)?;
    }
    r.finish();
    Ok(g)
}

/// Replays the whole trace on the original function: exactly the pass's output.
pub fn try_replay(f: &Function, trace: &Trace) -> Result<Function, ReplayError> {
    replay_to(f, trace, usize::MAX)
}

/// [`try_replay`] that never fails: replay stops before the first event that does not fit
/// `f` (a trace of another function) and returns the function as it was there.
pub fn replay(f: &Function, trace: &Trace) -> Function {
    match try_replay(f, trace) {
        Ok(g) => g,
        Err(e) => replay_to(f, trace, e.index).unwrap_or_else(|_| f.clone()),
    }
}
