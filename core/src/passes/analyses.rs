//! The analyses of one function that every pass and every view reads, built once per
//! function (per edit, in the web app) and shared — so the post-dominator tree DCE needs is
//! the one the post-dominator view draws, not a second construction.
//!
//! Reaching definitions are the exception: they cost a bit set per block over all
//! assignments (quadratic on big Bril functions) and only DCE on Bril reads them, so they are
//! built on first use.

use crate::cfg::Cfg;
use crate::dataflow::ReachingDefs;
use crate::dom::{ControlDeps, DomEvent, DomKind, DomTree, Frontiers};
use crate::ir::{Function, Lang};
use std::sync::OnceLock;

#[derive(Debug)]
pub struct Analyses {
    pub cfg: Cfg,
    pub dom: DomTree,
    /// The Lengauer–Tarjan trace of `dom` (the dominator view steps through it).
    pub dom_events: Vec<DomEvent>,
    /// Post-dominators, rooted at the virtual exit.
    pub pdom: DomTree,
    pub pdom_events: Vec<DomEvent>,
    /// The dominance and post-dominance frontiers of every block (Cytron et al.).
    pub frontiers: Frontiers,
    /// Control dependence: the post-dominance frontier.
    pub cdg: ControlDeps,
    reaching: OnceLock<Option<ReachingDefs>>,
}

impl Analyses {
    pub fn new(f: &Function) -> Analyses {
        let cfg = Cfg::new(f);
        let (dom, dom_events) = DomTree::build_traced(f, &cfg, DomKind::Dominators);
        let (pdom, pdom_events) = DomTree::build_traced(f, &cfg, DomKind::PostDominators);
        let frontiers = Frontiers::new(&cfg, &dom, &pdom);
        let cdg = ControlDeps::from_frontiers(&cfg, &pdom, &frontiers);
        Analyses { cfg, dom, dom_events, pdom, pdom_events, frontiers, cdg, reaching: OnceLock::new() }
    }

    /// Reaching definitions (Bril only: SIL values are defined once, so a use names its
    /// definition and needs no dataflow). `f` must be the function these analyses were built
    /// from.
    pub fn reaching(&self, f: &Function) -> Option<&ReachingDefs> {
        self.reaching.get_or_init(|| (f.lang == Lang::Bril).then(|| ReachingDefs::new(f, &self.cfg))).as_ref()
    }
}
