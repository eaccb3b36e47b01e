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
//!
//! Cost: resolving a use follows its chain, O(chain) per use. Only the first [`VIA_SHOWN`]
//! links of a chain are recorded, the rest counted, and the instructions justifying a link
//! are found by a memoised backward walk ([`Justifier`]): a function of n blocks with a
//! chain of n copies (`v1 = id v0; v2 = id v1; …`, each read) no longer records n² links
//! nor walks back along the chain for each (minutes at 5,000 blocks before).

use super::avail::{AvailCopies, CopyId};
use super::holds::Point;
use super::trace::{apply_event, Event, ReplayError, Via};
use crate::cfg::Cfg;
use crate::entity::EntityVec;

/// The links of a chain the trace records (and a step sentence can name) per rewrite.
pub const VIA_SHOWN: usize = 8;
use crate::ir::{BlockId, BrilOp, Function, InstId, Op, ValueId};

/// `v` resolved through the copies available in `s`: the final source and the chain used
/// (empty if no copy of `v` is available). The chain cannot loop at a reachable point (a copy
/// `a ← b` kills `b ← a`), but a visited check keeps a corrupt set from hanging the pass.
pub fn resolve(a: &AvailCopies, s: &Point<CopyId>, v: ValueId) -> (ValueId, Vec<CopyId>) {
    let mut cur = v;
    let mut chain = Vec::new();
    while let Some(c) = a.copy_of(s, cur) {
        // A chain longer than the copy table has repeated a copy: a corrupt set.
        if chain.len() >= a.table.len() || a.table[c].src == v {
            break;
        }
        chain.push(c);
        cur = a.table[c].src;
    }
    (cur, chain)
}

/// The instructions of a copy that justify it at a point: walking backwards on every path,
/// the first instruction that assigns the copy's destination or source (where the copy is
/// available, every such instruction makes it). The answer at a block's entry is memoised
/// per (copy, block), and a walk that meets a block with a memoised entry takes that answer
/// instead of walking on: the uses of a copy far above them (a copy in the entry block read
/// in 5,000 blocks below) then cost one step each instead of a walk back to the entry each.
pub struct Justifier<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    a: &'a AvailCopies,
    /// foldhash: only `get` and `insert`, so its per-process seed changes nothing visible.
    memo: foldhash::HashMap<(CopyId, BlockId), Vec<InstId>>,
    /// The blocks a walk has seen: those holding the walk's number (one table for every
    /// walk, where a set per walk cost the number of blocks each).
    seen: EntityVec<BlockId, u32>,
    walks: u32,
}

impl<'a> Justifier<'a> {
    pub fn new(f: &'a Function, cfg: &'a Cfg, a: &'a AvailCopies) -> Justifier<'a> {
        Justifier { f, cfg, a, memo: foldhash::HashMap::default(), seen: EntityVec::filled(f.blocks.len(), 0), walks: 0 }
    }

    /// The last instruction of `b` before position `end` that assigns `c`'s variables.
    fn last_touch(&self, c: CopyId, b: BlockId, end: usize) -> Option<InstId> {
        let (d, s) = (self.a.table[c].dest, self.a.table[c].src);
        let touches = |i: &InstId| self.f.insts[*i].results.iter().any(|&r| r == d || r == s);
        self.f.blocks[b].all_insts().take(end).filter(touches).last()
    }

    /// The instructions of `c` reaching the entry of `block` (sorted, without repeats).
    fn entry(&mut self, c: CopyId, block: BlockId) -> Vec<InstId> {
        if let Some(v) = self.memo.get(&(c, block)) {
            return v.clone();
        }
        let reachable = |p: &&BlockId| self.cfg.is_reachable(**p);
        let mut found: Vec<InstId> = Vec::new();
        self.walks += 1;
        let walk = self.walks;
        let mut work: Vec<BlockId> = self.cfg.preds(block).iter().filter(reachable).copied().collect();
        while let Some(b) = work.pop() {
            if self.seen[b] == walk {
                continue;
            }
            self.seen[b] = walk;
            if let Some(i) = self.last_touch(c, b, usize::MAX) {
                if self.a.made_by(i) == Some(c) {
                    found.push(i);
                }
            } else if let Some(known) = self.memo.get(&(c, b)) {
                found.extend_from_slice(known);
            } else {
                work.extend(self.cfg.preds(b).iter().filter(reachable).copied());
            }
        }
        found.sort();
        found.dedup();
        self.memo.insert((c, block), found.clone());
        found
    }

    /// The instructions of copy `c` that reach the point just before position `pos` of
    /// `block` (sorted, without repeats).
    pub fn at(&mut self, c: CopyId, block: BlockId, pos: usize) -> Vec<InstId> {
        match self.last_touch(c, block, pos) {
            Some(i) if self.a.made_by(i) == Some(c) => vec![i],
            Some(_) => Vec::new(),
            None => self.entry(c, block),
        }
    }
}

/// The blocks one backward walk of [`reaching`] has seen, for many walks: those holding the
/// walk's number. One table for every walk: a fresh set per walk cost the number of blocks
/// each, and there is a walk per rematerialisation (tens of thousands at 10^5 blocks).
pub(crate) struct Seen {
    stamp: EntityVec<BlockId, u32>,
    walk: u32,
}

impl Seen {
    pub(crate) fn new(f: &Function) -> Seen {
        Seen { stamp: EntityVec::filled(f.blocks.len(), 0), walk: 0 }
    }
}

/// The justification of a must-fact at the point just before position `pos` of `block`:
/// walking backwards on every path from there, the first instruction that `touches` the
/// fact's variables, kept if `makes` the fact (where the fact holds, every one does). Sorted
/// by id, without repeats. `seen` is scratch for the walk, made for `f`.
pub(crate) fn reaching(
    f: &Function,
    cfg: &Cfg,
    seen: &mut Seen,
    block: BlockId,
    pos: usize,
    touches: impl Fn(InstId) -> bool,
    makes: impl Fn(InstId) -> bool,
) -> Vec<InstId> {
    // The last instruction before `end` in `b` that touches the fact.
    let last_in = |b: BlockId, end: usize| -> Option<InstId> { f.blocks[b].all_insts().take(end).filter(|&i| touches(i)).last() };
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
    seen.walk += 1;
    let walk = seen.walk;
    let mut work: Vec<BlockId> = cfg.preds(block).iter().copied().filter(|&p| cfg.is_reachable(p)).collect();
    while let Some(b) = work.pop() {
        match seen.stamp.get_mut(b) {
            Some(s) if *s != walk => *s = walk,
            _ => continue,
        }
        match last_in(b, usize::MAX) {
            Some(i) => push(i, &mut found),
            None => work.extend(cfg.preds(b).iter().copied().filter(|&p| cfg.is_reachable(p))),
        }
    }
    found.sort();
    found
}

/// Rewrites `g` (a clone of `f`, which the analysis `a` describes) and returns the events.
pub fn rewrite(f: &Function, cfg: &Cfg, a: &AvailCopies, g: &mut Function) -> Result<Vec<Event>, ReplayError> {
    let mut events = Vec::new();
    let mut planned = Vec::new();
    let mut point = a.point();
    for &b in &f.layout {
        if !a.reachable.contains(b) {
            continue;
        }
        let mut pos = 0;
        a.walk_with(&mut point, f, b, |i, s| {
            let inst = &f.insts[i];
            // `set x v` names the shadow of `x`, not the value of `x`: never rewritten.
            let named = usize::from(inst.op == Op::Bril(BrilOp::Set));
            for (k, &v) in inst.args.iter().enumerate().skip(named) {
                let (w, chain) = resolve(a, s, v);
                if w != v {
                    planned.push((i, b, pos, k as u32, v, w, chain));
                }
            }
            pos += 1;
        });
    }
    let mut justify = Justifier::new(f, cfg, a);
    for (inst, block, pos, operand, from, to, chain) in planned {
        let more = u32::try_from(chain.len().saturating_sub(VIA_SHOWN)).unwrap_or(u32::MAX);
        let via = chain.into_iter().take(VIA_SHOWN).map(|c| Via { copy: c, insts: justify.at(c, block, pos) }).collect();
        let e = Event::Rewrite { inst, block, operand, from, to, via, more };
        apply_event(g, events.len(), &e)?;
        events.push(e);
    }
    Ok(events)
}
