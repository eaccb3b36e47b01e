//! Deleting the copies the rewrite left dead: `x = id y` whose `x` is not live after it, and
//! the copies the rewrite turned into `x = id x`.
//!
//! Liveness is the classic backward may-problem (dragon book §9.2.5): `in = use ∪ (out −
//! def)`, meet = union, nothing live after an exit. Only copies are deleted — any other dead
//! instruction is left for dead code elimination, so this pass never changes what DCE would
//! say about the rest of the program. Self-copies `x = id x` are not copies and stay.
//!
//! Deleting a copy removes a use of its source, which may make an earlier copy dead, so the
//! deletion repeats until a round deletes nothing. Within one round a block is walked
//! backwards and a deleted copy's operand is not counted as a use, so a chain of dead copies
//! inside one block goes in one round; chains across blocks take one round per link.
//!
//! A copy `x = id y` becomes `x = id x` when a copy `y ← x` reaches it (`y = id x; …; x = id
//! y`). It does nothing, yet `x` stays live, so liveness would keep it. It goes first, in
//! round 0: `x` was read by the copy `y = id x` on every path to it, so `x` is defined there
//! and dropping the self-copy cannot turn a run that failed on an undefined `x` into one that
//! does not. A self-copy already in the input carries no such guarantee and stays.

use super::avail::as_copy;
use super::trace::{apply_event, Event, ReplayError};
use crate::cfg::Cfg;
use crate::dataflow::{Analysis, Direction};
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, Function, InstId, ValueId};

/// Live variables, on the dataflow framework: the definition. The pass computes the same
/// live-out sets sparsely ([`LiveOuts`]); a test checks that they agree.
pub struct Liveness;

impl Analysis for Liveness {
    type Fact = EntitySet<ValueId>;

    fn direction(&self) -> Direction {
        Direction::Backward
    }
    fn init(&self, f: &Function) -> Self::Fact {
        EntitySet::new_empty(f.values.len())
    }
    /// Nothing is live once the function returns: a Bril variable dies with its frame.
    fn boundary(&self, f: &Function) -> Self::Fact {
        EntitySet::new_empty(f.values.len())
    }
    fn meet(&self, into: &mut Self::Fact, other: &Self::Fact) {
        into.union_with(other);
    }
    fn transfer(&self, f: &Function, block: BlockId, input: &Self::Fact) -> Self::Fact {
        let mut live = input.clone();
        for i in f.blocks[block].all_insts().rev() {
            live_step(f, &mut live, i);
        }
        live
    }
}

/// `x = id x`.
fn is_self_copy(i: &crate::ir::Inst) -> bool {
    i.op == crate::ir::Op::Bril(crate::ir::BrilOp::Id) && i.args.len() == 1 && i.results.first() == i.args.first()
}

/// Live before `i` from live after it.
fn live_step(f: &Function, live: &mut EntitySet<ValueId>, i: InstId) {
    let inst = &f.insts[i];
    for &r in &inst.results {
        live.remove(r);
    }
    for v in inst.uses() {
        live.insert(v);
    }
}

/// The variables live at the end of each block (sorted), from [`LiveOuts`]: what the tests
/// compare with the dataflow definition ([`Liveness`]) and the old deletion recomputes each
/// round.
#[cfg(test)]
pub(crate) fn live_outs(f: &Function, cfg: &Cfg) -> EntityVec<BlockId, Vec<ValueId>> {
    let mut outs = LiveOuts::new(f, cfg, |_| true).outs;
    for v in outs.values_mut() {
        v.sort_unstable();
    }
    outs
}

/// The least solution of [`Liveness`] as each block's live-out variables, computed one
/// variable at a time: from the blocks that read it before any assignment backwards through
/// predecessors, stopping at blocks that assign it. The cost is the program's size plus the
/// total size of the answer, where the dense solution took blocks × variables bits per table
/// and recorded every flipped bit (issue 17: 662 MiB at 10^4 blocks, out of memory at 10^5).
///
/// The sets are kept up to date as copies are deleted: a deleted copy `x = id y` removes a
/// use of `y` and a definition of `x` that nothing read, so only `y`'s liveness can change,
/// and only `y`'s is recomputed, from the blocks that mention it.
///
/// Why: the deletion repeats until a round deletes nothing, and recomputing every
/// variable's liveness for each round cost rounds × the program where the rounds only change
/// the sources of the copies they delete.
struct LiveOuts {
    outs: EntityVec<BlockId, Vec<ValueId>>,
    /// The variables an update may be asked about: the sources of copies (only a deleted
    /// copy changes liveness). The two tables below are kept for them only.
    tracked: EntitySet<ValueId>,
    /// Per tracked variable, the blocks it is live out of (what an update takes it out of).
    at: EntityVec<ValueId, Vec<BlockId>>,
    /// Per tracked variable, the blocks that read or assign it, in layout order (once copies
    /// go, a superset: a block is rescanned for the variable).
    mentioned_in: EntityVec<ValueId, Vec<BlockId>>,
    /// Marks of one propagation (`stamp`): the block assigns the variable, it is live into it,
    /// live out of it.
    kills: EntityVec<BlockId, u32>,
    live_in: EntityVec<BlockId, u32>,
    live_out: EntityVec<BlockId, u32>,
    stamp: u32,
    work: Vec<BlockId>,
}

impl LiveOuts {
    /// [`live_outs`] of `f` for the variables `keep` accepts (the others are live nowhere
    /// here), remembering where each kept copy source is mentioned. Variables do not
    /// interact in liveness, so a kept variable is live exactly where it is in the whole
    /// solution.
    fn new(f: &Function, cfg: &Cfg, keep: impl Fn(ValueId) -> bool) -> LiveOuts {
        let (nb, nv) = (f.blocks.len(), f.values.len());
        let mut tracked: EntitySet<ValueId> = EntitySet::new_empty(nv);
        for (_, i) in f.placed_insts() {
            if let Some((_, src)) = as_copy(&f.insts[i]) {
                if keep(src) {
                    tracked.insert(src);
                }
            }
        }
        let mut exposed: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(nv, Vec::new());
        let mut assigned: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(nv, Vec::new());
        let mut mentioned_in: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(nv, Vec::new());
        // `defined_in[v]`: the layout position (plus one) of the last block seen assigning `v`.
        let mut defined_in: EntityVec<ValueId, u32> = EntityVec::filled(nv, 0);
        for (pos, &b) in f.layout.iter().enumerate() {
            let mark = pos as u32 + 1;
            for i in f.blocks[b].all_insts() {
                let inst = &f.insts[i];
                for v in inst.uses() {
                    if defined_in[v] != mark && exposed[v].last() != Some(&b) {
                        exposed[v].push(b);
                    }
                    if tracked.contains(v) && mentioned_in[v].last() != Some(&b) {
                        mentioned_in[v].push(b);
                    }
                }
                for &r in &inst.results {
                    if defined_in[r] != mark {
                        defined_in[r] = mark;
                        assigned[r].push(b);
                    }
                    if tracked.contains(r) && mentioned_in[r].last() != Some(&b) {
                        mentioned_in[r].push(b);
                    }
                }
            }
        }
        let mut l = LiveOuts {
            outs: EntityVec::filled(nb, Vec::new()),
            at: EntityVec::filled(nv, Vec::new()),
            tracked,
            mentioned_in,
            kills: EntityVec::filled(nb, 0),
            live_in: EntityVec::filled(nb, 0),
            live_out: EntityVec::filled(nb, 0),
            stamp: 0,
            work: Vec::new(),
        };
        for (v, blocks) in exposed.iter().filter(|&(v, _)| keep(v)) {
            l.propagate(cfg, v, blocks, &assigned[v]);
        }
        l
    }

    /// Marks `v` live out of every block from which a path reaches a read of it (a block in
    /// `exposed`) without passing an assignment (a block in `assigned`).
    fn propagate(&mut self, cfg: &Cfg, v: ValueId, exposed: &[BlockId], assigned: &[BlockId]) {
        self.stamp += 1;
        let stamp = self.stamp;
        let tracked = self.tracked.contains(v);
        for &b in assigned {
            self.kills[b] = stamp;
        }
        for &b in exposed {
            self.live_in[b] = stamp;
            self.work.push(b);
        }
        while let Some(b) = self.work.pop() {
            for &p in cfg.preds(b) {
                if self.live_out[p] != stamp {
                    self.live_out[p] = stamp;
                    self.outs[p].push(v);
                    if tracked {
                        self.at[v].push(p);
                    }
                    if self.kills[p] != stamp && self.live_in[p] != stamp {
                        self.live_in[p] = stamp;
                        self.work.push(p);
                    }
                }
            }
        }
    }

    /// Recomputes the liveness of `v` in `f` (which lost reads of `v` since the last time);
    /// `v` must be the source of a copy of the function [`LiveOuts::new`] was given, kept there.
    fn update(&mut self, f: &Function, cfg: &Cfg, v: ValueId) {
        debug_assert!(self.tracked.contains(v), "only a copy's source loses reads");
        for &p in &self.at[v] {
            if let Some(k) = self.outs[p].iter().position(|&x| x == v) {
                self.outs[p].swap_remove(k);
            }
        }
        self.at[v].clear();
        let (mut exposed, mut assigned) = (Vec::new(), Vec::new());
        for &b in &self.mentioned_in[v] {
            let mut defined = false;
            for i in f.blocks[b].all_insts() {
                let inst = &f.insts[i];
                if !defined && inst.uses().any(|u| u == v) && exposed.last() != Some(&b) {
                    exposed.push(b);
                }
                if inst.results.contains(&v) && !defined {
                    defined = true;
                    assigned.push(b);
                }
            }
        }
        self.propagate(cfg, v, &exposed, &assigned);
    }
}

/// Deletes dead copies from `g` until none is left; returns the events (with their rounds).
/// `cfg` is the graph of `g` (the rewrite and the deletions do not change control flow).
/// `first_index` is the number of events before these, for error positions. `original` is
/// the function before the rewrite: a self-copy the rewrite made is deleted, one it had is
/// not.
///
/// Round 1 walks every block; a later round only the blocks with a copy into a variable
/// whose liveness the previous round changed (the source of a copy it deleted). No other
/// block can have a new dead copy: its walk sees the same live-out set and instructions as
/// before, except for reads of those variables, and only a copy into one of them can die
/// first (any other death in the block follows from one). The old version, which walked
/// every block and recomputed all liveness each round, is the oracle in the tests.
pub fn delete_dead_copies(g: &mut Function, original: &Function, cfg: &Cfg, first_index: usize) -> Result<Vec<Event>, ReplayError> {
    let mut events = Vec::new();
    let made_self: Vec<(InstId, BlockId)> = g
        .placed_insts()
        .filter(|&(_, i)| is_self_copy(&g.insts[i]) && original.insts.get(i).is_some_and(|o| !is_self_copy(o)))
        .map(|(b, i)| (i, b))
        .collect();
    for (inst, block) in made_self {
        let e = Event::Delete { inst, block, round: 0 };
        apply_event(g, first_index + events.len(), &e)?;
        events.push(e);
    }
    // Per variable, the blocks with a copy into it (deletions only remove copies).
    let mut copies_into: EntityVec<ValueId, Vec<BlockId>> = EntityVec::filled(g.values.len(), Vec::new());
    let mut layout_pos: EntityVec<BlockId, u32> = EntityVec::filled(g.blocks.len(), 0);
    for (pos, &b) in g.layout.iter().enumerate() {
        layout_pos[b] = pos as u32;
        for i in g.blocks[b].all_insts() {
            if let Some((d, _)) = as_copy(&g.insts[i]) {
                if copies_into[d].last() != Some(&b) {
                    copies_into[d].push(b);
                }
            }
        }
    }
    // Only whether a copy's destination is live decides a deletion, and deletions add no
    // copy: the liveness of the other variables is not computed (after LCM each block's
    // live-out set held every LCM temporary live across it — most of the pass's time).
    let mut dests: EntitySet<ValueId> = EntitySet::new_empty(g.values.len());
    for (_, i) in g.placed_insts() {
        if let Some((d, _)) = as_copy(&g.insts[i]) {
            dests.insert(d);
        }
    }
    let mut live_outs = LiveOuts::new(g, cfg, |v| dests.contains(v));
    let mut todo: Vec<BlockId> = g.layout.clone();
    // One scratch set for every block's walk, cleared of what the walk set.
    let mut live: EntitySet<ValueId> = EntitySet::new_empty(g.values.len());
    let mut changed: Vec<ValueId> = Vec::new();
    let mut is_changed: EntitySet<ValueId> = EntitySet::new_empty(g.values.len());
    // Each round deletes at least one instruction, so there are at most as many rounds as
    // instructions; the bound only guards against a bug looping forever.
    for round in 1..=g.insts.len() as u32 + 1 {
        // In program order, so the trace reads top to bottom: blocks in layout order, each
        // block's deletions (found walking backwards) reversed.
        let mut dead = Vec::new();
        for &b in &todo {
            let outs = &live_outs.outs[b];
            for &v in outs {
                live.insert(v);
            }
            let first = dead.len();
            for i in g.blocks[b].all_insts().rev() {
                if let Some((d, _)) = as_copy(&g.insts[i]) {
                    if !live.contains(d) {
                        // Deleted: it neither defines nor uses anything any more.
                        dead.push((i, b));
                        continue;
                    }
                }
                live_step(g, &mut live, i);
            }
            for &v in outs {
                live.remove(v);
            }
            for i in g.blocks[b].all_insts() {
                for v in g.insts[i].uses() {
                    live.remove(v);
                }
            }
            dead[first..].reverse();
        }
        if dead.is_empty() {
            break;
        }
        for &(inst, _) in &dead {
            if let Some((_, src)) = as_copy(&g.insts[inst]) {
                if is_changed.insert(src) {
                    changed.push(src);
                }
            }
        }
        for (inst, block) in dead {
            let e = Event::Delete { inst, block, round };
            apply_event(g, first_index + events.len(), &e)?;
            events.push(e);
        }
        todo.clear();
        for v in changed.drain(..) {
            is_changed.remove(v);
            if !dests.contains(v) {
                // Live nowhere in the table, and no copy into it to delete.
                continue;
            }
            live_outs.update(g, cfg, v);
            todo.extend_from_slice(&copies_into[v]);
        }
        todo.sort_unstable_by_key(|&b| layout_pos[b]);
        todo.dedup();
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deletion as it was: all liveness recomputed and every block walked each round.
    fn by_full_rounds(g: &mut Function, original: &Function, cfg: &Cfg) -> Vec<Event> {
        let mut events = Vec::new();
        let made_self: Vec<(InstId, BlockId)> = g
            .placed_insts()
            .filter(|&(_, i)| is_self_copy(&g.insts[i]) && original.insts.get(i).is_some_and(|o| !is_self_copy(o)))
            .map(|(b, i)| (i, b))
            .collect();
        for (inst, block) in made_self {
            let e = Event::Delete { inst, block, round: 0 };
            apply_event(g, events.len(), &e).expect("applies");
            events.push(e);
        }
        for round in 1..=g.insts.len() as u32 + 1 {
            let outs = live_outs(g, cfg);
            let mut dead = Vec::new();
            for &b in &g.layout {
                let mut live: EntitySet<ValueId> = EntitySet::new_empty(g.values.len());
                for &v in &outs[b] {
                    live.insert(v);
                }
                let first = dead.len();
                for i in g.blocks[b].all_insts().rev() {
                    if let Some((d, _)) = as_copy(&g.insts[i]) {
                        if !live.contains(d) {
                            dead.push((i, b));
                            continue;
                        }
                    }
                    live_step(g, &mut live, i);
                }
                dead[first..].reverse();
            }
            if dead.is_empty() {
                break;
            }
            for (inst, block) in dead {
                let e = Event::Delete { inst, block, round };
                apply_event(g, events.len(), &e).expect("applies");
                events.push(e);
            }
        }
        events
    }

    fn check(f: &Function, what: &str) -> usize {
        let cfg = Cfg::new(f);
        let a = super::super::AvailCopies::new(f, &cfg);
        let mut g = f.clone();
        super::super::rewrite::rewrite(f, &cfg, &a, &mut g).expect("rewrite");
        let (mut want_g, mut got_g) = (g.clone(), g);
        let want = by_full_rounds(&mut want_g, f, &cfg);
        let got = delete_dead_copies(&mut got_g, f, &cfg, 0).expect("deletes");
        assert_eq!(got, want, "{what}");
        assert_eq!(crate::print::print_function(&got_g, crate::print::Naming::User), crate::print::print_function(&want_g, crate::print::Naming::User), "{what}");
        want.iter().map(|e| if let Event::Delete { round, .. } = e { *round as usize } else { 0 }).max().unwrap_or(0)
    }

    #[test]
    fn incremental_rounds_delete_what_full_rounds_delete() {
        let mut max_round = 0;
        for seed in 0..300u64 {
            let g = crate::testgen::generate(seed, &crate::testgen::GenConfig::default());
            for f in &g.module.functions {
                max_round = max_round.max(check(f, &format!("generated {seed}")));
                if let Ok(out) = crate::passes::lcm::run_function(f, &crate::passes::lcm::Options::default()) {
                    max_round = max_round.max(check(&out.result, &format!("generated {seed} after LCM")));
                }
            }
        }
        for (n, seed) in [(200, 1), (600, 2), (1500, 3)] {
            let text = crate::testgen::scale::bril_program(n, seed);
            let m = crate::parse_module(crate::ir::Lang::Bril, "t.bril", &text).expect("parses");
            let out = crate::passes::lcm::run_function(&m.functions[0], &crate::passes::lcm::Options::default()).expect("LCM");
            max_round = max_round.max(check(&out.result, &format!("scale {n}")));
        }
        assert!(max_round >= 2, "some deletions take more than one round");
    }
}
