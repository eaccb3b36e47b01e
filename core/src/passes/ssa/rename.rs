//! Renaming (Cytron et al. 1991, §5.2, figure 12): a preorder walk of the dominator tree with a
//! stack of names per variable. Entering a block, its φs and then its assignments push new
//! names and its reads take the top of their variable's stack; at the end of the block each
//! φ of each successor receives the top of its variable's stack; leaving the block pops what
//! it pushed. The walk is iterative, so a 10^5-deep dominator tree needs no deep recursion.

use super::trace::{apply_event, Event, NewValue, PhiInfo, Trace};
use crate::cfg::Cfg;
use crate::dom::{DomNode, DomTree};
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, NewNames, Type, ValueDef, ValueId};

/// The variables to rename (every one assigned more than once, φs counted) and their φs.
pub struct Plan {
    /// Per value: whether it is renamed.
    pub renamed: EntitySet<ValueId>,
    /// Per block: the φs at its top (indices into the trace's `phis`).
    pub phis_at: EntityVec<BlockId, Vec<u32>>,
}

struct Walk<'a> {
    cfg: &'a Cfg,
    plan: &'a Plan,
    g: Function,
    trace: Trace,
    stacks: EntityVec<ValueId, Vec<ValueId>>,
    /// Per variable: its undefined value, once some edge needed it.
    undef: EntityVec<ValueId, Option<ValueId>>,
    /// Per variable: the last version number given.
    counter: EntityVec<ValueId, u32>,
    names: NewNames,
}

impl Walk<'_> {
    fn record(&mut self, e: Event) {
        // Only reads and assignments edit the function during the walk; `Undef` and `Emit`
        // come after it. The events are the edits: the replay applies the same function.
        if matches!(e, Event::Use { .. } | Event::Def { .. }) {
            let _ = apply_event(&mut self.g, &self.trace, &e);
        }
        self.trace.events.push(e);
    }

    /// A new value named `want`, or `want_1`, `want_2`, … if the function has that name.
    fn new_value(&mut self, want: String, ty: Option<Type>) -> ValueId {
        let name = self.names.claim(&want);
        let id = self.g.add_value(name.clone(), ty.clone(), ValueDef::Var);
        self.trace.values.push(NewValue { id, name, ty });
        id
    }

    /// The next version of `var`: `x.1`, `x.2`, …
    fn version(&mut self, var: ValueId) -> ValueId {
        self.counter[var] += 1;
        let want = format!("{}.{}", self.g.values[var].name, self.counter[var]);
        let ty = self.g.values[var].ty.clone();
        self.new_value(want, ty)
    }

    /// What `var` holds at this point of the walk: its stack's top, or its undefined value.
    fn current_or_undef(&mut self, var: ValueId) -> ValueId {
        if let Some(&top) = self.stacks[var].last() {
            return top;
        }
        if let Some(u) = self.undef[var] {
            return u;
        }
        let want = format!("{}.0", self.g.values[var].name);
        let ty = self.g.values[var].ty.clone();
        let u = self.new_value(want, ty);
        self.undef[var] = Some(u);
        u
    }

    /// Renames `b`'s φs, reads and assignments and gives its successors' φs their arguments;
    /// returns the variables it pushed, one entry per push.
    fn block(&mut self, b: BlockId) -> Vec<ValueId> {
        let plan = self.plan;
        self.record(Event::Enter { block: b });
        let mut pushed = Vec::new();
        for &phi in &plan.phis_at[b] {
            let var = self.trace.phis[phi as usize].var;
            let name = self.version(var);
            self.trace.phis[phi as usize].name = name;
            self.stacks[var].push(name);
            pushed.push(var);
            self.record(Event::PhiDef { phi });
        }
        let insts: Vec<_> = self.g.blocks[b].all_insts().collect();
        for i in insts {
            for k in 0..self.g.insts[i].args.len() {
                let var = self.g.insts[i].args[k];
                if var.index() < plan.renamed.capacity() && plan.renamed.contains(var) {
                    let name = self.stacks[var].last().copied().unwrap_or(var);
                    self.record(Event::Use { inst: i, arg: k as u32, var, name });
                }
            }
            if let Some(&var) = self.g.insts[i].results.first() {
                if var.index() < plan.renamed.capacity() && plan.renamed.contains(var) {
                    let name = self.version(var);
                    self.stacks[var].push(name);
                    pushed.push(var);
                    self.record(Event::Def { inst: i, var, name });
                }
            }
        }
        let mut seen: Vec<BlockId> = Vec::new();
        for &s in self.cfg.succs(b) {
            if seen.contains(&s) {
                continue;
            }
            seen.push(s);
            for &phi in &plan.phis_at[s] {
                let var = self.trace.phis[phi as usize].var;
                let value = self.current_or_undef(var);
                self.trace.phis[phi as usize].args.push((b, value));
                self.record(Event::Arg { phi, from: b, value });
            }
        }
        pushed
    }

    fn leave(&mut self, b: BlockId, pushed: Vec<ValueId>) {
        for &var in &pushed {
            self.stacks[var].pop();
        }
        self.record(Event::Leave { block: b, popped: pushed });
    }
}

/// Renames `g0` (the input, with a fresh entry if it needed one) by `plan`, whose φs are
/// `phis` (their names and arguments are filled in here). Returns the function renamed and
/// with its φs written out, and the whole trace.
pub fn rename(g0: &Function, cfg: &Cfg, dom: &DomTree, plan: &Plan, phis: Vec<(ValueId, BlockId)>, mut trace: Trace) -> (Function, Trace) {
    let n = g0.values.len();
    let mut walk = Walk {
        cfg,
        plan,
        g: g0.clone_with_room(0, n / 4 + phis.len()),
        trace: Trace::default(),
        stacks: EntityVec::filled(n, Vec::new()),
        undef: EntityVec::filled(n, None),
        counter: EntityVec::filled(n, 0),
        names: NewNames::new(g0),
    };
    std::mem::swap(&mut walk.trace, &mut trace);
    // A φ is named when the walk enters its block, so versions count up in walk order; every
    // φ's block is reached from the entry (a frontier block has a reachable predecessor).
    for (var, block) in phis {
        walk.trace.phis.push(PhiInfo { var, block, name: var, args: Vec::new() });
    }
    // A parameter is its own first version.
    for &p in &g0.params {
        if p.index() < n && plan.renamed.contains(p) {
            walk.stacks[p].push(p);
            walk.trace.params.push(p);
        }
    }

    enum Visit {
        Enter(BlockId),
        Leave(BlockId, Vec<ValueId>),
    }
    let mut visited = EntitySet::<BlockId>::new_empty(g0.blocks.len());
    let mut roots: Vec<BlockId> = dom.root().and_then(DomNode::block).into_iter().collect();
    // Blocks the entry does not reach have no dominator; each is renamed on its own, with
    // empty stacks (what they read was assigned nowhere they could come from).
    roots.extend(g0.layout.iter().copied().filter(|&b| !dom.contains(b)));
    for root in roots {
        let mut work = vec![Visit::Enter(root)];
        while let Some(v) = work.pop() {
            match v {
                Visit::Enter(b) => {
                    if !visited.insert(b) {
                        continue;
                    }
                    let pushed = walk.block(b);
                    work.push(Visit::Leave(b, pushed));
                    // Reversed, so children are entered in layout order.
                    for &c in dom.children(DomNode::Block(b)).iter().rev() {
                        work.push(Visit::Enter(c));
                    }
                }
                Visit::Leave(b, pushed) => walk.leave(b, pushed),
            }
        }
    }
    // The undefined values, then the φs, written out.
    let undefs: Vec<(ValueId, ValueId)> = walk.undef.iter().filter_map(|(var, u)| u.map(|u| (var, u))).collect();
    for (var, name) in undefs {
        walk.trace.events.push(Event::Undef { var, name });
        let e = walk.trace.events.last().cloned();
        if let Some(e) = e {
            let _ = apply_event(&mut walk.g, &walk.trace, &e);
        }
    }
    for phi in 0..walk.trace.phis.len() as u32 {
        let e = Event::Emit { phi };
        let _ = apply_event(&mut walk.g, &walk.trace, &e);
        walk.trace.events.push(e);
    }
    (walk.g, walk.trace)
}
