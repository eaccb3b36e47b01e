//! Renaming (Cytron et al. 1991, §5.2, figure 12; Swift's `StackAllocationPromoter::
//! fixBranchesAndUses`): a preorder walk of the dominator tree with a stack per promoted
//! slot holding the value it contains. Entering a block, its new arguments push; a store
//! pushes its value and is deleted; a load is replaced by the top of the stack (every use of
//! its result rewritten) and deleted; at the end of the block each edge into a block with new
//! arguments passes the tops. An empty stack means nothing was stored on the way: the value
//! is `undef` of the slot's type. The walk is iterative, so a deep dominator tree needs no
//! deep recursion.

use super::slots::Uses;
use super::trace::{apply_event, Event, Hole, ReplayError, Trace};
use crate::dom::{DomNode, DomTree};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, InstId, ValueId};

/// A slot chosen for promotion, with its uses and its index in the trace's `slots`.
pub struct Promoted {
    pub slot: u32,
    /// The block of its `alloc_stack`.
    pub block: BlockId,
    pub uses: Uses,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    None,
    Load(u32),
    Store(u32),
}

/// What a promoted load's result stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Repl {
    /// Not a promoted load's result.
    No,
    /// The load has not been reached yet.
    Pending,
    Done(Option<ValueId>),
}

struct Walk<'a> {
    g: &'a mut Function,
    trace: &'a mut Trace,
    promoted: &'a [Promoted],
    /// Per block: its new arguments, as (promoted index, argument), in parameter order.
    args_at: &'a EntityVec<BlockId, Vec<(u32, ValueId)>>,
    role: EntityVec<InstId, Role>,
    repl: EntityVec<ValueId, Repl>,
    uses_of: EntityVec<ValueId, Vec<Hole>>,
    /// Per promoted slot: the values it held on the way down (`None`: undef).
    stacks: Vec<Vec<Option<ValueId>>>,
}

impl Walk<'_> {
    fn record(&mut self, e: Event) -> Result<(), ReplayError> {
        apply_event(self.g, self.trace, &e)?;
        self.trace.events.push(e);
        Ok(())
    }

    fn top(&self, p: u32) -> Option<ValueId> {
        self.stacks[p as usize].last().copied().flatten()
    }

    /// The value `v` stands for once promoted loads are replaced.
    fn resolve(&self, v: ValueId) -> Option<ValueId> {
        match self.repl.get(v).copied().unwrap_or(Repl::No) {
            Repl::No => Some(v),
            Repl::Done(x) => x,
            // Only in code the entry does not reach, where a value may be read in a block
            // walked before the block defining it: any value will do there.
            Repl::Pending => None,
        }
    }

    fn block(&mut self, b: BlockId) -> Result<Vec<u32>, ReplayError> {
        self.record(Event::Enter { block: b })?;
        let mut pushed = Vec::new();
        for &(p, arg) in &self.args_at[b] {
            self.stacks[p as usize].push(Some(arg));
            pushed.push(p);
        }
        let insts = self.g.blocks[b].insts.clone();
        for i in insts {
            match self.role.get(i).copied().unwrap_or(Role::None) {
                Role::None => {}
                Role::Load(p) => {
                    let value = self.top(p);
                    let result = self.g.insts[i].results[0];
                    self.repl[result] = Repl::Done(value);
                    let uses = std::mem::take(&mut self.uses_of[result]);
                    let slot = self.promoted[p as usize].slot;
                    self.record(Event::ReplaceLoad { slot, block: b, load: i, result, value, uses })?;
                }
                Role::Store(p) => {
                    let value = self.resolve(self.g.insts[i].args[0]);
                    self.stacks[p as usize].push(value);
                    pushed.push(p);
                    let slot = self.promoted[p as usize].slot;
                    self.record(Event::RemoveStore { slot, block: b, store: i, value })?;
                }
            }
        }
        if let Some(term) = self.g.blocks[b].term {
            for s in 0..self.g.insts[term].succs.len() {
                let to = self.g.insts[term].succs[s].block;
                let Some(args) = self.args_at.get(to) else { continue };
                for &(p, _) in args {
                    let value = self.top(p);
                    let slot = self.promoted[p as usize].slot;
                    self.record(Event::PassArg { slot, from: b, term, succ: s as u32, to, value })?;
                }
            }
        }
        Ok(pushed)
    }
}

/// Renames the loads and stores of the `promoted` slots of `g`, whose new block arguments
/// are `args_at` (already added), recording and applying every edit.
pub fn rename(
    g: &mut Function,
    dom: &DomTree,
    trace: &mut Trace,
    promoted: &[Promoted],
    args_at: &EntityVec<BlockId, Vec<(u32, ValueId)>>,
) -> Result<(), ReplayError> {
    let mut role = EntityVec::filled(g.insts.len(), Role::None);
    let mut repl = EntityVec::filled(g.values.len(), Repl::No);
    for (p, s) in promoted.iter().enumerate() {
        for &(_, i) in &s.uses.loads {
            role[i] = Role::Load(p as u32);
            if let Some(&r) = g.insts[i].results.first() {
                repl[r] = Repl::Pending;
            }
        }
        for &(_, i) in &s.uses.stores {
            role[i] = Role::Store(p as u32);
        }
    }
    // Every use of a promoted load's result, found once.
    let mut uses_of: EntityVec<ValueId, Vec<Hole>> = EntityVec::filled(g.values.len(), Vec::new());
    let pending = |v: ValueId| repl.get(v) == Some(&Repl::Pending);
    for (_, i) in g.placed_insts() {
        let inst = &g.insts[i];
        for (k, &v) in inst.args.iter().enumerate() {
            if pending(v) {
                uses_of[v].push(Hole::Arg { inst: i, k: k as u32 });
            }
        }
        for (s, succ) in inst.succs.iter().enumerate() {
            for (k, &v) in succ.args.iter().enumerate() {
                if pending(v) {
                    uses_of[v].push(Hole::SuccArg { inst: i, succ: s as u32, k: k as u32 });
                }
            }
        }
    }
    let nblocks = g.blocks.len();
    let mut roots: Vec<BlockId> = dom.root().and_then(DomNode::block).into_iter().collect();
    // Blocks the entry does not reach have no dominator; each is walked on its own, with
    // empty stacks (nothing stored reaches them).
    roots.extend(g.layout.iter().copied().filter(|&b| !dom.contains(b)));
    let mut walk = Walk { g, trace, promoted, args_at, role, repl, uses_of, stacks: vec![Vec::new(); promoted.len()] };

    enum Visit {
        Enter(BlockId),
        Leave(BlockId, Vec<u32>),
    }
    let mut visited = EntitySet::<BlockId>::new_empty(nblocks);
    for root in roots {
        let mut work = vec![Visit::Enter(root)];
        while let Some(v) = work.pop() {
            match v {
                Visit::Enter(b) => {
                    if b.index() >= nblocks || !visited.insert(b) {
                        continue;
                    }
                    let pushed = walk.block(b)?;
                    work.push(Visit::Leave(b, pushed));
                    // Reversed, so children are entered in layout order.
                    for &c in dom.children(DomNode::Block(b)).iter().rev() {
                        work.push(Visit::Enter(c));
                    }
                }
                Visit::Leave(b, pushed) => {
                    for p in pushed {
                        walk.stacks[p as usize].pop();
                    }
                    walk.record(Event::Leave { block: b })?;
                }
            }
        }
    }
    Ok(())
}
