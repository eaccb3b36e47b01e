//! Which of the copies' variables interfere: `a` and `b` do when one is assigned where the
//! other is live afterwards (Chaitin), except at a copy `a = id b`, after which both hold the
//! same value. Only the variables the copies touch can merge, so only their liveness is
//! computed — one variable at a time, over its live region (`ssa::live`).

use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, BrilOp, Function, InstId, Op, ValueId};
use crate::passes::ssa::live::{LiveIn, Mentions};
use std::collections::HashMap;

/// Pairs `(low, high)` of interfering variables, each with where it was seen: the
/// instruction assigning one while the other is live, or `None` for parameters on entry.
pub type Graph = HashMap<(ValueId, ValueId), Witness>;

/// Where two variables were seen to interfere: the one assigned, the one live, and the
/// assigning instruction (`None`: parameters, on entry).
pub type Witness = (ValueId, ValueId, Option<InstId>);

/// A set of variables with O(1) insert and remove, listing its members.
struct LiveSet {
    pos: EntityVec<ValueId, u32>,
    items: Vec<ValueId>,
}

impl LiveSet {
    fn insert(&mut self, v: ValueId) {
        if self.pos[v] == u32::MAX {
            self.pos[v] = self.items.len() as u32;
            self.items.push(v);
        }
    }
    fn remove(&mut self, v: ValueId) {
        let p = self.pos[v];
        if p != u32::MAX {
            self.items.swap_remove(p as usize);
            if let Some(&moved) = self.items.get(p as usize) {
                self.pos[moved] = p;
            }
            self.pos[v] = u32::MAX;
        }
    }
    fn clear(&mut self) {
        for &v in &self.items {
            self.pos[v] = u32::MAX;
        }
        self.items.clear();
    }
}

pub fn graph(g: &Function, cfg: &Cfg, vars: &[ValueId]) -> Graph {
    let n = g.values.len();
    let mut relevant = EntitySet::<ValueId>::new_empty(n);
    for &v in vars {
        relevant.insert(v);
    }
    let mentions = Mentions::new(g, cfg);
    let mut live_in = LiveIn::new(g.blocks.len());
    let mut live_out: EntityVec<BlockId, Vec<ValueId>> = EntityVec::filled(g.blocks.len(), Vec::new());
    let mut last: EntityVec<BlockId, u32> = EntityVec::filled(g.blocks.len(), u32::MAX);
    for (k, &v) in vars.iter().enumerate() {
        live_in.compute(&mentions, cfg, v);
        for &y in live_in.blocks() {
            for &p in cfg.preds(y) {
                if last[p] != k as u32 {
                    last[p] = k as u32;
                    live_out[p].push(v);
                }
            }
        }
    }
    let mut edges = Graph::new();
    let mut add = |a: ValueId, b: ValueId, at: Option<InstId>| {
        let key = if a < b { (a, b) } else { (b, a) };
        edges.entry(key).or_insert((a, b, at));
    };
    let mut live = LiveSet { pos: EntityVec::filled(n, u32::MAX), items: Vec::new() };
    for &b in cfg.blocks() {
        live.clear();
        for &v in &live_out[b] {
            live.insert(v);
        }
        let insts: Vec<InstId> = g.blocks[b].all_insts().collect();
        for &i in insts.iter().rev() {
            let inst = &g.insts[i];
            let copied = (inst.op == Op::Bril(BrilOp::Id)).then(|| inst.args.first().copied()).flatten();
            for &d in &inst.results {
                if d.index() >= n {
                    continue;
                }
                if relevant.contains(d) {
                    for &l in &live.items {
                        if l != d && Some(l) != copied {
                            add(d, l, Some(i));
                        }
                    }
                    live.remove(d);
                }
            }
            for u in inst.uses() {
                if u.index() < n && relevant.contains(u) {
                    live.insert(u);
                }
            }
        }
        // Parameters are all assigned on entry.
        if Some(b) == cfg.entry() {
            for &p in &g.params {
                if p.index() < n && relevant.contains(p) {
                    for &l in &live.items {
                        if l != p {
                            add(p, l, None);
                        }
                    }
                }
            }
        }
    }
    edges
}
