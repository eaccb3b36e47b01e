//! Block-argument placement for one slot (Cytron et al. 1991, §5.1; Swift's
//! `StackAllocationPromoter::computeLiveInBlocks` and `placeArguments`): the iterated
//! dominance frontier of the blocks that store to the slot, walked as SSA construction walks
//! a variable's (`ssa::idf`), an argument kept only where the slot is live on entry — a load
//! is reached before any store, looking upward through predecessors until a store.

use super::slots::Uses;
use super::trace::{Event, Frontier};
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function, InstId};
use crate::passes::ssa::idf::{FrontierWalk, Step};
use crate::passes::ssa::live::{LiveIn, Mentions};
use crate::passes::Analyses;
use std::collections::HashSet;

/// Marks shared by the placements of all slots of a function, so that placing many slots
/// allocates nothing per slot.
pub struct Placer {
    live: LiveIn,
    mentions: Mentions,
    walk: FrontierWalk,
}

impl Placer {
    pub fn new(f: &Function) -> Placer {
        let n = f.blocks.len();
        // Liveness is asked about one slot at a time, through the table's single entry.
        Placer {
            live: LiveIn::new(n),
            mentions: Mentions { exposed: EntityVec::filled(1, Vec::new()), assigns: EntityVec::filled(1, Vec::new()) },
            walk: FrontierWalk::new(n),
        }
    }

    /// The blocks that get an argument for a slot with `uses` (in the order found), recording
    /// each worklist step in `events` under the slot's index `slot`.
    pub fn place(&mut self, f: &Function, a: &Analyses, slot: u32, uses: &Uses, events: &mut Vec<Event>) -> Vec<BlockId> {
        let (cfg, dom, frontiers) = (&a.cfg, &a.dom, &a.frontiers);
        let key = crate::ir::ValueId(0);
        let (exposed, assigns) = upward_exposed(f, uses);
        self.mentions.exposed[key] = exposed;
        self.mentions.assigns[key] = assigns;
        // A store the entry does not reach defines nothing a reachable load could read; a
        // slot whose stores have empty frontiers (straight-line code, a store in the entry)
        // needs no argument, and its placement is not shown step by step.
        let defs = self.mentions.assigns[key].iter().copied().filter(|&b| dom.contains(b));
        let Some(work) = self.walk.start(frontiers, defs) else { return Vec::new() };
        self.live.compute(&self.mentions, cfg, key);
        events.push(Event::Worklist { slot, defs: work.clone() });
        let live = &self.live;
        self.walk.walk(frontiers, work, |y| live.is_live_in(y), |step| match step {
            Step::Take { block, frontier } => events.push(Event::Take { slot, block, frontier: frontier.to_vec() }),
            Step::Frontier { from, to, live, joins } => {
                let outcome = if live { Frontier::Arg } else { Frontier::Dead };
                events.push(Event::Frontier { slot, from, to, outcome, joins });
            }
        })
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
