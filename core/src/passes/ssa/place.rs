//! φ placement (Cytron et al. 1991, §5.1, figure 11): for each variable, a worklist of the
//! blocks that define it; a block taken off the list puts a φ at every block of its dominance
//! frontier, and a block that gets a φ joins the list, since the φ defines the variable there.
//! The result is the iterated dominance frontier of the definitions.
//!
//! Pruned: a φ is kept only where the variable is live on entry (Choi, Cytron, Ferrante
//! 1991). The iteration itself is the minimal form's — a block whose φ is pruned still joins
//! the worklist — so the kept φs are exactly the minimal form's live ones.

use super::live::{LiveIn, Mentions};
use super::trace::{Event, Frontier};
use crate::cfg::Cfg;
use crate::dom::{DomKind, Frontiers};
use crate::entity::EntityVec;
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
    // Per block, the last variable (index + 1) that put it on the worklist or gave it a φ.
    let mut on_list: EntityVec<BlockId, u32> = EntityVec::filled(n, 0);
    let mut has_phi: EntityVec<BlockId, u32> = EntityVec::filled(n, 0);
    let mut out = Vec::new();
    for (k, (var, defs)) in vars.iter().enumerate() {
        let stamp = k as u32 + 1;
        let mut work: Vec<BlockId> = Vec::new();
        for &b in defs {
            if on_list[b] != stamp {
                on_list[b] = stamp;
                work.push(b);
            }
        }
        // The frontier of a single definition is usually empty: skip the variable's events
        // and its liveness then.
        if work.iter().all(|&b| frontiers.get(DomKind::Dominators, b).is_empty()) {
            continue;
        }
        live.compute(mentions, cfg, *var);
        events.push(Event::Worklist { var: *var, defs: work.clone() });
        let mut placed = Placed { var: *var, blocks: Vec::new(), pruned: 0 };
        // Taken in the order the definitions come (a queue reads like the paper's example).
        let mut next = 0;
        while next < work.len() {
            let b = work[next];
            next += 1;
            let df = frontiers.get(DomKind::Dominators, b);
            events.push(Event::Take { var: *var, block: b, frontier: df.to_vec() });
            for &y in df {
                if has_phi[y] == stamp {
                    continue;
                }
                has_phi[y] = stamp;
                let outcome = if live.is_live_in(y) {
                    placed.blocks.push(y);
                    Frontier::Phi
                } else {
                    placed.pruned += 1;
                    Frontier::Dead
                };
                let joins = on_list[y] != stamp;
                if joins {
                    on_list[y] = stamp;
                    work.push(y);
                }
                events.push(Event::Frontier { var: *var, from: b, to: y, outcome, joins });
            }
        }
        if !placed.blocks.is_empty() || placed.pruned > 0 {
            out.push(placed);
        }
    }
    out
}
