//! φ placement for every variable: the iterated dominance frontier of the blocks that assign
//! it, pruned where it is dead (`idf.rs`), each worklist step recorded as an event.

use super::idf::{FrontierWalk, Step};
use super::live::{LiveIn, Mentions};
use super::trace::{Event, Frontier};
use crate::cfg::Cfg;
use crate::dom::Frontiers;
use crate::ir::{BlockId, Function, ValueId};

/// The φs of one variable.
pub struct Placed {
    pub var: ValueId,
    /// Blocks that get a φ for `var`, in the order they were found.
    pub blocks: Vec<BlockId>,
    /// Blocks of the iterated frontier where `var` is dead (no φ).
    pub pruned: usize,
}

/// Places the φs of every variable in `vars` (each with the blocks that define it, the
/// entry included for a parameter), recording each worklist step in `events`.
pub fn place(
    f: &Function,
    cfg: &Cfg,
    frontiers: &Frontiers,
    mentions: &Mentions,
    vars: &[(ValueId, Vec<BlockId>)],
    events: &mut Vec<Event>,
) -> Vec<Placed> {
    let n = f.blocks.len();
    let mut live = LiveIn::new(n);
    let mut walk = FrontierWalk::new(n);
    let mut out = Vec::new();
    for (var, defs) in vars {
        let Some(work) = walk.start(frontiers, defs.iter().copied()) else { continue };
        live.compute(mentions, cfg, *var);
        events.push(Event::Worklist { var: *var, defs: work.clone() });
        let mut pruned = 0;
        let blocks = walk.walk(frontiers, work, |y| live.is_live_in(y), |step| match step {
            Step::Take { block, frontier } => events.push(Event::Take { var: *var, block, frontier: frontier.to_vec() }),
            Step::Frontier { from, to, live, joins } => {
                pruned += usize::from(!live);
                let outcome = if live { Frontier::Phi } else { Frontier::Dead };
                events.push(Event::Frontier { var: *var, from, to, outcome, joins });
            }
        });
        if !blocks.is_empty() || pruned > 0 {
            out.push(Placed { var: *var, blocks, pruned });
        }
    }
    out
}
