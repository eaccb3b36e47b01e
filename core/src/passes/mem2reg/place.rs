//! Block-argument placement for one slot (Cytron et al. 1991, §5.1, figure 11; Swift's
//! `StackAllocationPromoter::computeLiveInBlocks` and `placeArguments`): a worklist of the
//! blocks that store to the slot; a block taken off it puts an argument at every block of
//! its dominance frontier, which joins the worklist, since the argument defines the slot's
//! value there. The result is the iterated dominance frontier of the stores.
//!
//! Pruned as Swift prunes it: an argument is kept only where the slot is live on entry — a
//! load is reached before any store, looking upward through predecessors until a store.
//! The iteration is the minimal form's (a pruned block still joins the worklist), so the
//! kept arguments are exactly the minimal form's live ones.

use super::slots::Uses;
use super::trace::{Event, Frontier};
use crate::dom::DomKind;
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function, InstId};
use crate::passes::ssa::live::{LiveIn, Mentions};
use crate::passes::Analyses;
use std::collections::HashSet;

/// Marks shared by the placements of all slots of a function, so that placing many slots
/// allocates nothing per slot.
pub struct Placer {
    live: LiveIn,
    mentions: Mentions,
    on_list: EntityVec<BlockId, u32>,
    has_arg: EntityVec<BlockId, u32>,
    stamp: u32,
}

impl Placer {
    pub fn new(f: &Function) -> Placer {
        let n = f.blocks.len();
        // Liveness is asked about one slot at a time, through the table's single entry.
        Placer {
            live: LiveIn::new(n),
            mentions: Mentions { exposed: EntityVec::filled(1, Vec::new()), assigns: EntityVec::filled(1, Vec::new()) },
            on_list: EntityVec::filled(n, 0),
            has_arg: EntityVec::filled(n, 0),
            stamp: 0,
        }
    }

    /// The blocks that get an argument for a slot with `uses` (in the order found), recording
    /// each worklist step in `events` under the slot's index `slot`.
    pub fn place(&mut self, f: &Function, a: &Analyses, slot: u32, uses: &Uses, events: &mut Vec<Event>) -> Vec<BlockId> {
        let (cfg, dom, frontiers) = (&a.cfg, &a.dom, &a.frontiers);
        self.stamp += 1;
        let s = self.stamp;
        let key = crate::ir::ValueId(0);
        let (exposed, assigns) = upward_exposed(f, uses);
        self.mentions.exposed[key] = exposed;
        self.mentions.assigns[key] = assigns;
        let mut work: Vec<BlockId> = Vec::new();
        for &b in &self.mentions.assigns[key] {
            // A store the entry does not reach defines nothing a reachable load could read.
            if dom.contains(b) && self.on_list[b] != s {
                self.on_list[b] = s;
                work.push(b);
            }
        }
        let mut out = Vec::new();
        // A store whose frontier is empty (straight-line code, a store in the entry) needs no
        // argument: the slot's placement is then not shown step by step.
        if work.iter().all(|&b| frontiers.get(DomKind::Dominators, b).is_empty()) {
            return out;
        }
        self.live.compute(&self.mentions, cfg, key);
        events.push(Event::Worklist { slot, defs: work.clone() });
        let mut next = 0;
        while next < work.len() {
            let b = work[next];
            next += 1;
            let df = frontiers.get(DomKind::Dominators, b);
            events.push(Event::Take { slot, block: b, frontier: df.to_vec() });
            for &y in df {
                if self.has_arg[y] == s {
                    continue;
                }
                self.has_arg[y] = s;
                let outcome = if self.live.is_live_in(y) {
                    out.push(y);
                    Frontier::Arg
                } else {
                    Frontier::Dead
                };
                let joins = self.on_list[y] != s;
                if joins {
                    self.on_list[y] = s;
                    work.push(y);
                }
                events.push(Event::Frontier { slot, from: b, to: y, outcome, joins });
            }
        }
        out
    }
}

/// The blocks where a load of the slot comes before any store (in block order), and the
/// blocks that store to it, each once and in the order met: what liveness starts from.
fn upward_exposed(f: &Function, uses: &Uses) -> (Vec<BlockId>, Vec<BlockId>) {
    let stores: HashSet<InstId> = uses.stores.iter().map(|&(_, i)| i).collect();
    let mut seen: HashSet<BlockId> = HashSet::new();
    let assigns: Vec<BlockId> = uses.stores.iter().map(|&(b, _)| b).filter(|&b| seen.insert(b)).collect();
    let mut exposed: Vec<BlockId> = Vec::new();
    let mut done: HashSet<BlockId> = HashSet::new();
    for &(b, load) in &uses.loads {
        if !done.insert(b) {
            continue;
        }
        // The first load of the block is listed first: is it before the block's first store?
        if !seen.contains(&b) || f.blocks[b].insts.iter().find(|&&i| i == load || stores.contains(&i)) == Some(&load) {
            exposed.push(b);
        }
    }
    (exposed, assigns)
}
