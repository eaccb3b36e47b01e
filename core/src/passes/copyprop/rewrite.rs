//! The rewrite: every operand `v` read where a copy `v ← w` is available reads `w` instead.
//!
//! Chains are followed at the same point: with `c ← b` and `b ← a` both available before an
//! instruction, `c` becomes `a` at once. That is sound because availability is a statement
//! about this point on every path: here `c == b` and `b == a`, so `c == a`, and reading `a`
//! here reads the value `c` holds. (Resolving only one link and relying on a later pass would
//! be sound too, but leaves `b` alive for nothing.)
//!
//! All facts come from the function before the rewrite. A rewrite changes no assignment, so
//! every equality the analysis found still holds in the rewritten function — also where the
//! rewritten instruction is itself a copy (`c = id b` becoming `c = id a` still gives `c` the
//! same value). Blocks unreachable from the entry are skipped: their sets are ⊤ by
//! construction and justify nothing.

use super::avail::{AvailCopies, CopyId};
use super::trace::{apply_event, Event, ReplayError, Via};
use crate::cfg::Cfg;
use crate::entity::{EntitySet, EntityVec};
use crate::ir::{BlockId, Function, InstId, ValueId};

/// `v` resolved through the copies available in `s`: the final source and the chain used
/// (empty if no copy of `v` is available). The chain cannot loop at a reachable point (a copy
/// `a ← b` kills `b ← a`), but a visited check keeps a corrupt set from hanging the pass.
pub fn resolve(a: &AvailCopies, s: &EntitySet<CopyId>, v: ValueId) -> (ValueId, Vec<CopyId>) {
    let mut cur = v;
    let mut chain = Vec::new();
    while let Some(c) = a.copy_of(s, cur) {
        if chain.contains(&c) || a.table[c].src == v {
            break;
        }
        chain.push(c);
        cur = a.table[c].src;
    }
    (cur, chain)
}

/// The instructions of copy `c` that reach the point just before position `pos` of `block`:
/// walking backwards, the first assignment of `c`'s destination or source on each path.
/// Because `c` is available there, each such assignment is an instruction of `c`.
pub fn reaching_instances(f: &Function, cfg: &Cfg, a: &AvailCopies, c: CopyId, block: BlockId, pos: usize) -> Vec<InstId> {
    let (d, s) = (a.table[c].dest, a.table[c].src);
    let touches = |i: InstId| f.insts[i].results.iter().any(|&r| r == d || r == s);
    reaching(f, cfg, block, pos, touches, |i| a.made_by(i) == Some(c))
}

/// The justification of a must-fact at the point just before position `pos` of `block`:
/// walking backwards on every path from there, the first instruction that `touches` the
/// fact's variables, kept if `makes` the fact (where the fact holds, every one does). Sorted
/// by id, without repeats.
pub(crate) fn reaching(
    f: &Function,
    cfg: &Cfg,
    block: BlockId,
    pos: usize,
    touches: impl Fn(InstId) -> bool,
    makes: impl Fn(InstId) -> bool,
) -> Vec<InstId> {
    // The last instruction before `end` in `b` that touches the fact.
    let last_in = |b: BlockId, end: usize| -> Option<InstId> {
        let all: Vec<InstId> = f.blocks[b].all_insts().collect();
        all[..end.min(all.len())].iter().rev().copied().find(|&i| touches(i))
    };
    let mut found = Vec::new();
    let push = |i: InstId, found: &mut Vec<InstId>| {
        if makes(i) && !found.contains(&i) {
            found.push(i);
        }
    };
    if let Some(i) = last_in(block, pos) {
        push(i, &mut found);
        return found;
    }
    let mut seen: EntitySet<BlockId> = EntitySet::new_empty(f.blocks.len());
    let mut work: Vec<BlockId> = cfg.preds(block).iter().copied().filter(|&p| cfg.is_reachable(p)).collect();
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        match last_in(b, usize::MAX) {
            Some(i) => push(i, &mut found),
            None => work.extend(cfg.preds(b).iter().copied().filter(|&p| cfg.is_reachable(p))),
        }
    }
    found.sort();
    found
}

/// A point in a block: before its instruction at this position.
type Point = (BlockId, usize);

/// Rewrites `g` (a clone of `f`, which the analysis `a` describes) and returns the events.
pub fn rewrite(f: &Function, cfg: &Cfg, a: &AvailCopies, g: &mut Function) -> Result<Vec<Event>, ReplayError> {
    let mut events = Vec::new();
    let mut planned = Vec::new();
    for &b in &f.layout {
        if !a.reachable.contains(b) {
            continue;
        }
        let mut pos = 0;
        a.walk(f, b, |i, s| {
            for (k, &v) in f.insts[i].args.iter().enumerate() {
                let (w, chain) = resolve(a, s, v);
                if w != v {
                    planned.push((i, b, pos, k as u32, v, w, chain));
                }
            }
            pos += 1;
        });
    }
    // The justification of each link, computed once per (copy, point).
    let mut vias: EntityVec<CopyId, Vec<(Point, Vec<InstId>)>> = EntityVec::filled(a.table.len(), Vec::new());
    for (inst, block, pos, operand, from, to, chain) in planned {
        let via = chain
            .into_iter()
            .map(|c| {
                let insts = match vias[c].iter().find(|(p, _)| *p == (block, pos)) {
                    Some((_, v)) => v.clone(),
                    None => {
                        let v = reaching_instances(f, cfg, a, c, block, pos);
                        vias[c].push(((block, pos), v.clone()));
                        v
                    }
                };
                Via { copy: c, insts }
            })
            .collect();
        let e = Event::Rewrite { inst, block, operand, from, to, via };
        apply_event(g, events.len(), &e)?;
        events.push(e);
    }
    Ok(events)
}
