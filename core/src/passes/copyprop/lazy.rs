//! The available-copies table of every copy, solved when first asked for.
//!
//! Why: the rewrite finds in a block's in-set only copies into variables read before any
//! assignment in some block, and the sources of those (`avail_read` in `mod.rs`). After LCM
//! most copies are `c = id lt` of a branch condition, read by the branch right after it, and
//! `t = id tmp` into a temporary nobody reads; each stays available until `lt` or `tmp` is
//! assigned again — further away the larger the function — so the whole table grows faster
//! than the function (issue 17, on the scale benchmark's first generator: 262 / 39,919 /
//! 4,251,702 entries at 10^3 / 10^4 / 10^5 blocks, 3,383 / 94,452 / 3,597,969 on today's;
//! solving and listing it was the super-linear part of the pass). The pass solves the
//! copies the rewrite can find (1,456 of 78,246 at 10^5, 396,260 entries); the table of
//! all of them, the rounds and the trace's lists are solved from the same prepared input by
//! the same solver when the trace is written, the view shows the table, or a caller reads
//! [`CopyPropOutput::avail`].
//!
//! [`CopyPropOutput::avail`]: super::CopyPropOutput::avail

use super::avail::{AvailCopies, CopyId};
use super::deferred::Deferred;
use super::solve::{FactSet, Prepared};
use super::trace::{AvailRound, BlockLists, SetChange};
use crate::ir::BlockId;
use std::sync::{Arc, OnceLock};

/// What solving every copy takes, kept from the pass: its copy table (solved for the copies
/// the rewrite reads) and the solver's input.
struct Solver {
    part: AvailCopies,
    prepared: Prepared,
    full: OnceLock<AvailCopies>,
}

impl Solver {
    fn full(&self) -> &AvailCopies {
        self.full.get_or_init(|| {
            let mut a = self.part.clone();
            a.facts = self.prepared.solve(&self.part, |_| true, true);
            a
        })
    }
}

/// The available-copies analysis of every copy of the pass's input, solved when first read
/// (module comment); reads as an [`AvailCopies`].
#[derive(Clone)]
pub struct LazyAvail(Arc<Solver>);

impl LazyAvail {
    /// From the pass's analysis `part` (its table is every copy; its sets may hold only some)
    /// and the solver's input for the same function.
    pub(crate) fn new(part: AvailCopies, prepared: Prepared) -> LazyAvail {
        LazyAvail(Arc::new(Solver { part, prepared, full: OnceLock::new() }))
    }

    /// Whether the table of every copy has been solved (for the tests: the pass must not).
    pub fn is_solved(&self) -> bool {
        self.0.full.get().is_some()
    }

    /// The trace's fixpoint lists, made when first read.
    pub(crate) fn fixpoint(&self) -> Deferred<BlockLists> {
        let s = self.0.clone();
        Deferred::new(move || fixpoint_lists(s.full()))
    }

    /// The trace's rounds, made when first read.
    pub(crate) fn rounds(&self) -> Deferred<Vec<AvailRound>> {
        let s = self.0.clone();
        Deferred::new(move || round_lists(s.full()))
    }
}

impl std::ops::Deref for LazyAvail {
    type Target = AvailCopies;

    fn deref(&self) -> &AvailCopies {
        self.0.full()
    }
}

impl std::fmt::Debug for LazyAvail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// The trace's fixpoint from the analysis: ⊤ (an unreachable block) lists nothing.
pub(crate) fn fixpoint_lists(a: &AvailCopies) -> BlockLists {
    let list = |s: &FactSet<CopyId>| match s {
        FactSet::Listed(v) => v.clone(),
        FactSet::All(_) => Vec::new(),
    };
    BlockLists { ins: a.facts.ins.values().map(list).collect(), outs: a.facts.outs.values().map(list).collect() }
}

/// The trace's rounds from the analysis's (which the solver records in the trace's form:
/// removals per block, none for round 1).
pub(crate) fn round_lists(a: &AvailCopies) -> Vec<AvailRound> {
    let changes = |cs: &[(BlockId, Vec<CopyId>)]| cs.iter().map(|(b, r)| SetChange { block: *b, removed: r.clone() }).collect();
    a.facts.rounds.iter().map(|r| AvailRound { ins: changes(&r.ins), outs: changes(&r.outs) }).collect()
}
