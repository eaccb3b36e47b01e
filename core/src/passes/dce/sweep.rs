//! The sweep: delete what marking left dead, keep the control flow that live code needs.
//!
//! In order (each step one kind of event, so the trace reads as phases):
//! 1. each dead conditional branch becomes a jump to its nearest post-dominator holding a
//!    live instruction (seed 000, "cond_brをbrに置き換える"), passing `undef` for that block's
//!    parameters — Swift's `replaceBranchWithJump`; then, in OSSA, dead block arguments with
//!    ownership are dealt with ([`super::ossa`]);
//! 2. dead instructions of the blocks still reachable are deleted (`br`/`jmp` never are);
//! 3. a live instruction that still reads a deleted value, and an edge passing a value to a
//!    dead block argument, get a fresh `undef` instead (seed 000, "使われていない引数を
//!    undefに置き換える");
//! 4. Bril: a block that falls through to a block that no longer follows it gets a `jmp`;
//! 5. blocks no longer reachable from the entry are removed.
//!
//! Every edit goes through a [`Replayer`], as the replay of a trace does.

use super::classify::{is_conditional_branch, is_ossa};
use crate::sil::types::operand::operand_type;
use super::ossa::{is_local_borrow, is_phi, repairs, EndKind, Kinds, Ownership};
use super::mark::{nearest_live_post_dominator, Liveness};
use super::trace::{Event, Phase, Replayer, ReplayError, Slot};
use crate::passes::Analyses;
use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntitySet, EntityVec};
use crate::ir::{BlockId, Function, Lang, ValueDef, ValueId};

struct Sweeper<'a, 'f> {
    /// Applies the edits with O(1) bookkeeping each; `r.f` is the function being swept.
    r: Replayer<'f>,
    events: &'a mut Vec<Event>,
}

impl Sweeper<'_, '_> {
    fn emit(&mut self, e: Event) -> Result<(), ReplayError> {
        self.r.apply(self.events.len(), &e)?;
        self.events.push(e);
        Ok(())
    }
}

pub(crate) fn sweep(
    f: &mut Function,
    a: &Analyses,
    live: &Liveness,
    events: &mut Vec<Event>,
) -> Result<(), ReplayError> {
    // Ownership kinds of the function as it is now, before any edit.
    let kinds = Kinds::new(f, a);
    let mut s = Sweeper { r: Replayer::new(f), events };
    s.events.push(Event::Phase { phase: Phase::Sweep });

    // 1. Dead conditional branches → jumps. `redirect[b]` is the one successor a rewritten
    // branch leaves `b`.
    let mut redirect: EntityVec<BlockId, Option<BlockId>> = EntityVec::filled(s.r.f.blocks.len(), None);
    for &b in a.cfg.blocks() {
        if !a.cfg.is_reachable(b) {
            continue;
        }
        let Some(t) = s.r.f.blocks[b].term else { continue };
        if live.insts.contains(t) || !is_conditional_branch(&s.r.f.insts[t].op) {
            continue;
        }
        let Some(target) = nearest_live_post_dominator(a, live, b) else { continue };
        let nparams = match s.r.f.lang {
            Lang::Sil => s.r.f.blocks[target].params.len(),
            Lang::Bril => 0,
        };
        let first = s.r.f.values.len();
        let undefs = (first..first + nparams).map(ValueId::new).collect();
        let new = s.r.f.insts.next_key();
        s.emit(Event::RewriteBranch { block: b, old: t, new, target, undefs })?;
        redirect[b] = Some(target);
    }

    // Reachability after the rewrites; it only shrinks (a rewrite jumps to a post-dominator,
    // which was reachable).
    let reachable = reachable_after(&a.cfg, &redirect);
    let kept: Vec<BlockId> = s.r.f.layout.iter().copied().filter(|&b| reachable.contains(b)).collect();

    let ossa = is_ossa(s.r.f);
    if ossa {
        ossa_dead_arguments(&mut s, &kinds, live, &reachable, &kept)?;
    }

    // 2. Dead instructions (in OSSA, ending the lifetimes they consumed first). One buffer
    // for every block's list.
    let mut dead = Vec::new();
    for &b in &kept {
        // Only original instructions: the repairs inserted above are not in `live`.
        dead.clear();
        dead.extend(
            s.r.f.blocks[b].insts.iter().copied().filter(|&i| i.index() < live.block_of.len() && !live.insts.contains(i)),
        );
        for &inst in &dead {
            if ossa {
                let data = &s.r.f.insts[inst];
                let mut ends = Vec::new();
                for (kind, value) in repairs(&kinds, data) {
                    if value_stays(s.r.f, live, value) {
                        let k = data.args.iter().position(|&a| a == value).unwrap_or(0);
                        let ty = operand_type(s.r.f, data, k, value).map(|t| match kind {
                            EndKind::DestroyAddr if !t.starts_with('*') => format!("*{t}"),
                            _ => t,
                        });
                        ends.push((kind, value, ty));
                    }
                }
                for (kind, value, ty) in ends {
                    let new = s.r.f.insts.next_key();
                    s.emit(Event::EndLifetime { block: b, before: Some(inst), new, value, kind, ty })?;
                }
            }
            s.emit(Event::Delete { inst, block: b })?;
        }
    }

    // 3. Reads of deleted values, and values passed to dead block arguments.
    if s.r.f.lang == Lang::Sil {
        let (mut insts, mut slots) = (Vec::new(), Vec::new());
        for &b in &kept {
            insts.clear();
            insts.extend(s.r.f.blocks[b].all_insts());
            for &i in &insts {
                slots.clear();
                let inst = &s.r.f.insts[i];
                for (k, &v) in inst.args.iter().enumerate() {
                    if is_gone(s.r.f, live, &reachable, v) {
                        slots.push((Slot::Arg { index: k as u32 }, v));
                    }
                }
                for (si, succ) in inst.succs.iter().enumerate() {
                    let params = &s.r.f.blocks[succ.block].params;
                    for (k, &v) in succ.args.iter().enumerate() {
                        let param_dead = params.get(k).is_none_or(|&p| !live.args.contains(p));
                        if (param_dead || is_gone(s.r.f, live, &reachable, v)) && !is_undef(s.r.f, live, v) {
                            slots.push((Slot::SuccArg { succ: si as u32, index: k as u32 }, v));
                        }
                    }
                }
                for &(slot, old) in &slots {
                    let new = s.r.f.values.next_key();
                    s.emit(Event::Undef { inst: i, slot, old, new })?;
                }
            }
        }
    }

    // 4. Bril fall-through whose next block changes when unreachable blocks go.
    if s.r.f.lang == Lang::Bril {
        let layout = s.r.f.layout.clone();
        // The next kept block after each layout position, from one backward pass.
        let mut next_kept = vec![None; layout.len() + 1];
        for k in (0..layout.len()).rev() {
            next_kept[k] = if reachable.contains(layout[k]) { Some(layout[k]) } else { next_kept[k + 1] };
        }
        for (k, &b) in layout.iter().enumerate() {
            if !reachable.contains(b) || s.r.f.blocks[b].term.is_some() {
                continue;
            }
            let old_next = layout.get(k + 1).copied();
            let new_next = next_kept[k + 1];
            if let Some(target) = old_next {
                if Some(target) != new_next {
                    let new = s.r.f.insts.next_key();
                    s.emit(Event::ExplicitJump { block: b, new, target })?;
                }
            }
        }
    }

    // 5. Unreachable blocks.
    for b in s.r.f.layout.clone() {
        if !reachable.contains(b) {
            s.emit(Event::RemoveBlock { block: b })?;
        }
    }
    s.r.finish();
    Ok(())
}

/// How many branches step 1 rewrites (so many instructions the sweep adds, besides OSSA's
/// repairs): every dead conditional branch of a reachable block, since marking kept those
/// without a live post-dominator.
pub(crate) fn rewrites(f: &Function, a: &Analyses, live: &Liveness) -> usize {
    a.cfg
        .blocks()
        .iter()
        .filter(|&&b| a.cfg.is_reachable(b))
        .filter_map(|&b| f.blocks[b].term)
        .filter(|&t| !live.insts.contains(t) && is_conditional_branch(&f.insts[t].op))
        .count()
}

/// The blocks the entry reaches once each block in `redirect` jumps to its one target
/// instead of its original successors; every other block keeps `cfg`'s edges, since step 1
/// changes no other terminator and no layout. Read off the analyses' CFG rather than a
/// [`Cfg`] rebuilt from the edited function: that rebuild allocated two lists per block and
/// re-read every terminator, a fifth of the sweep's time at 10^5 blocks (issue 17).
pub(crate) fn reachable_after(cfg: &Cfg, redirect: &EntityVec<BlockId, Option<BlockId>>) -> EntitySet<BlockId> {
    let mut set = EntitySet::new_empty(cfg.num_blocks());
    let Some(entry) = cfg.entry() else { return set };
    set.insert(entry);
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        let one;
        let succs = match redirect.get(b).copied().flatten() {
            Some(t) => {
                one = [t];
                &one[..]
            }
            None => cfg.succs(b),
        };
        for &x in succs {
            if x.index() < cfg.num_blocks() && set.insert(x) {
                stack.push(x);
            }
        }
    }
    set
}

/// Whether the value will not exist after the sweep: the result of a dead instruction, or a
/// parameter of a removed block.
fn is_gone(f: &Function, live: &Liveness, reachable: &EntitySet<BlockId>, v: ValueId) -> bool {
    match def_of(f, live, v) {
        Some(ValueDef::Result { inst, .. }) => !live.insts.contains(inst),
        Some(ValueDef::Param { block, .. }) => !reachable.contains(block),
        _ => false,
    }
}

/// OSSA, for dead block arguments with ownership (see [`super::ossa`]): an owned non-phi gets
/// a `destroy_value` at the top of its block; a phi is erased after each predecessor ends the
/// lifetime of the live value it passed.
fn ossa_dead_arguments(
    s: &mut Sweeper<'_, '_>,
    kinds: &Kinds,
    live: &Liveness,
    reachable: &EntitySet<BlockId>,
    kept: &[BlockId],
) -> Result<(), ReplayError> {
    // The current predecessors (rewrites may have added some): placed blocks branching to
    // each block, in layout order, each once — built once; nothing below changes a target.
    let mut preds_of: EntityVec<BlockId, Vec<BlockId>> = EntityVec::filled(s.r.f.blocks.len(), Vec::new());
    for &p in &s.r.f.layout {
        let Some(t) = s.r.f.blocks[p].term else { continue };
        for x in &s.r.f.insts[t].succs {
            let list = &mut preds_of[x.block];
            if list.last() != Some(&p) {
                list.push(p);
            }
        }
    }
    for &b in kept {
        let preds = std::mem::take(&mut preds_of[b]);
        let phi = is_phi(s.r.f, &preds, b);
        let params = s.r.f.blocks[b].params.clone();
        // Highest index first, so each erasure leaves the indices still to visit unchanged.
        for (k, &p) in params.iter().enumerate().rev() {
            if live.args.contains(p) {
                continue;
            }
            let own = kinds.of(p);
            if !phi {
                if own == Ownership::Owned {
                    let before = s.r.f.blocks[b].insts.first().copied();
                    let ty = value_type(s.r.f, p);
                    let new = s.r.f.insts.next_key();
                    s.emit(Event::EndLifetime { block: b, before, new, value: p, kind: EndKind::DestroyValue, ty })?;
                }
                continue;
            }
            if own == Ownership::None || own == Ownership::Unknown {
                continue;
            }
            for &pred in &preds {
                if !reachable.contains(pred) {
                    continue;
                }
                let Some(t) = s.r.f.blocks[pred].term else { continue };
                let incoming: Vec<ValueId> = s.r.f.insts[t]
                    .succs
                    .iter()
                    .filter(|x| x.block == b)
                    .filter_map(|x| x.args.get(k).copied())
                    .collect();
                for x in incoming {
                    if !value_stays(s.r.f, live, x) {
                        continue;
                    }
                    let kind = match own {
                        Ownership::Owned if kinds.of(x) == Ownership::Owned => EndKind::DestroyValue,
                        Ownership::Guaranteed if is_local_borrow(s.r.f, x) => EndKind::EndBorrow,
                        _ => continue,
                    };
                    let ty = value_type(s.r.f, x).or_else(|| value_type(s.r.f, p));
                    let new = s.r.f.insts.next_key();
                    s.emit(Event::EndLifetime { block: pred, before: None, new, value: x, kind, ty })?;
                }
            }
            s.emit(Event::ErasePhi { block: b, index: k as u32, arg: p })?;
        }
    }
    Ok(())
}

fn value_type(f: &Function, v: ValueId) -> Option<String> {
    match f.values.get(v).and_then(|d| d.ty.as_ref()) {
        Some(crate::ir::Type::Sil(t)) => Some(t.to_string()),
        _ => None,
    }
}

/// Whether a value survives the sweep and so needs its lifetime ended: a live instruction's
/// result or a live block argument.
fn value_stays(f: &Function, live: &Liveness, v: ValueId) -> bool {
    match def_of(f, live, v) {
        Some(ValueDef::Result { inst, .. }) => live.insts.contains(inst),
        Some(ValueDef::Param { .. }) => live.args.contains(v),
        _ => false,
    }
}

fn is_undef(f: &Function, live: &Liveness, v: ValueId) -> bool {
    def_of(f, live, v) == Some(ValueDef::Undef)
}

/// Where `v` comes from: from marking's table for the input's values, from the function for
/// the `undef`s the sweep added. The sweep changes no value's kind of definition nor its
/// block (an erased phi only renumbers the parameters after it), so the table stays right.
fn def_of(f: &Function, live: &Liveness, v: ValueId) -> Option<ValueDef> {
    match live.defs.get(v) {
        Some(&d) => Some(d),
        None => f.values.get(v).map(|d| d.def),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::dce::trace::make_jump;
    use crate::testgen::{structured::structured_function, Rng};

    /// The old reading of a value's definition, from the function itself: the oracle for
    /// [`def_of`] and its table.
    fn def_in_function(f: &Function, v: ValueId) -> Option<ValueDef> {
        f.values.get(v).map(|d| d.def)
    }

    /// `def_of` gives what the function says — in kind and block — for every value, before
    /// the sweep and after it (its fresh `undef`s included), on generated SIL of many shapes.
    #[test]
    fn the_definition_table_agrees_with_the_function() {
        use crate::passes::dce::mark::mark;
        let same = |a: Option<ValueDef>, b: Option<ValueDef>| match (a, b) {
            (Some(ValueDef::Param { block: x, .. }), Some(ValueDef::Param { block: y, .. })) => x == y,
            (a, b) => a == b,
        };
        let mut checked = 0;
        for seed in 0..30u64 {
            let text = crate::testgen::scale::sil_program(4 + (seed as usize * 11) % 120, seed);
            let m = crate::parse_module(crate::ir::Lang::Sil, "t", &text).expect("generated programs parse");
            for f in m.bodies() {
                let a = Analyses::new(f);
                let mut events = Vec::new();
                let live = mark(f, &a, &mut events);
                let mut g = f.clone();
                for v in g.values.keys() {
                    assert_eq!(def_of(&g, &live, v), def_in_function(&g, v));
                }
                sweep(&mut g, &a, &live, &mut events).expect("the sweep applies");
                for v in g.values.keys() {
                    assert!(same(def_of(&g, &live, v), def_in_function(&g, v)), "seed {seed}, {v}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000);
    }

    /// `rewrites`, which sizes the copy before the sweep, counts exactly the branches the
    /// sweep rewrites, on generated SIL and Bril functions of many shapes.
    #[test]
    fn rewrites_counts_the_rewritten_branches() {
        use crate::passes::dce::mark::mark;
        let mut total = 0;
        for seed in 0..48u64 {
            let n = 4 + (seed as usize * 13) % 150;
            let (lang, text) = crate::testgen::scale::either_program(n, seed);
            let m = crate::parse_module(lang, "t", &text).expect("generated programs parse");
            for f in m.bodies() {
                let a = Analyses::new(f);
                let mut events = Vec::new();
                let live = mark(f, &a, &mut events);
                let want = rewrites(f, &a, &live);
                let mut g = f.clone();
                sweep(&mut g, &a, &live, &mut events).expect("the sweep applies");
                let got = events.iter().filter(|e| matches!(e, Event::RewriteBranch { .. })).count();
                assert_eq!(want, got, "seed {seed}, function {}", f.name);
                total += got;
            }
        }
        assert!(total > 20, "only {total} rewrites: the test checks little");
    }

    /// `reachable_after` against the slow way it replaced: rebuild the CFG of the function
    /// with the branches actually rewritten and read its reachability.
    #[test]
    fn reachability_after_rewrites_matches_a_rebuilt_cfg() {
        for seed in 0..200u64 {
            let f = structured_function(5 + (seed as usize * 7) % 120, seed);
            let cfg = Cfg::new(&f);
            let mut rng = Rng::new(seed ^ 0x5eed);
            let mut g = f.clone();
            let mut redirect = EntityVec::filled(f.blocks.len(), None);
            let blocks = cfg.blocks().to_vec();
            for &b in &blocks {
                if f.blocks[b].term.is_none() || rng.below(3) != 0 {
                    continue;
                }
                let target = blocks[rng.below(blocks.len())];
                let span = g.blocks[b].span;
                let jump = make_jump(&g, target, Vec::new(), span);
                let t = g.add_inst(jump);
                g.blocks[b].term = Some(t);
                redirect[b] = Some(target);
            }
            let rebuilt = Cfg::new(&g);
            let fast = reachable_after(&cfg, &redirect);
            for &b in &blocks {
                assert_eq!(fast.contains(b), rebuilt.is_reachable(b), "seed {seed}, block {b}");
            }
            assert!(fast.contains(blocks[0]), "the entry is reachable");
        }
    }
}
