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
use crate::sil::ownership::{self, FunctionOwnership};
use crate::sil::types::{FunctionTypes, TypeEnv};
use std::sync::{Arc, OnceLock};

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
    /// The module's declarations and the user's type assumptions.
    pub type_env: Arc<TypeEnv>,
    types: OnceLock<FunctionTypes>,
    ownership: OnceLock<Option<Arc<FunctionOwnership>>>,
}

impl Analyses {
    /// The analyses of `f` with no declarations but the standard library's (a SIL function
    /// alone, or Bril). Use [`Analyses::with_types`] when the function's module is at hand.
    pub fn new(f: &Function) -> Analyses {
        Analyses::with_types(f, Arc::new(TypeEnv::default()))
    }

    /// The analyses of `f`, classifying its types against its module's declarations.
    pub fn with_types(f: &Function, type_env: Arc<TypeEnv>) -> Analyses {
        Analyses::build(f, type_env, true)
    }

    /// [`Analyses::with_types`] without the Lengauer–Tarjan traces (`dom_events` and
    /// `pdom_events` empty): for a pass that only reads the trees, as the later stages of a
    /// pipeline do (no view steps through their constructions; the traces are a third of the
    /// analyses' memory).
    pub fn untraced(f: &Function, type_env: Arc<TypeEnv>) -> Analyses {
        Analyses::build(f, type_env, false)
    }

    fn build(f: &Function, type_env: Arc<TypeEnv>, traced: bool) -> Analyses {
        let cfg = Cfg::new(f);
        let tree = |kind| if traced { DomTree::build_traced(f, &cfg, kind) } else { (DomTree::build(f, &cfg, kind), Vec::new()) };
        let (dom, dom_events) = tree(DomKind::Dominators);
        let (pdom, pdom_events) = tree(DomKind::PostDominators);
        let frontiers = Frontiers::new(&cfg, &dom, &pdom);
        let cdg = ControlDeps::from_frontiers(&cfg, &pdom, &frontiers);
        Analyses {
            cfg,
            dom,
            dom_events,
            pdom,
            pdom_events,
            frontiers,
            cdg,
            reaching: OnceLock::new(),
            type_env,
            types: OnceLock::new(),
            ownership: OnceLock::new(),
        }
    }

    /// The analyses of `g`, taking the trees, frontiers and control dependences from `self`
    /// when `g`'s control-flow graph is the one `self` was built from (same blocks, layout,
    /// entry and successors: the trees, frontiers and dependences are functions of the graph
    /// alone); `None` when it is not. What reads instructions (reaching definitions, types,
    /// ownership) starts afresh. A pipeline stage that rewrites instructions but no branch
    /// (copy propagation) hands its analyses to the next one this way instead of building
    /// both trees again.
    pub fn for_same_graph(self, g: &Function) -> Option<Analyses> {
        let cfg = Cfg::new(g);
        if !same_graph(&self.cfg, &cfg) {
            return None;
        }
        Some(Analyses {
            cfg,
            dom: self.dom,
            dom_events: self.dom_events,
            pdom: self.pdom,
            pdom_events: self.pdom_events,
            frontiers: self.frontiers,
            cdg: self.cdg,
            reaching: OnceLock::new(),
            type_env: self.type_env,
            types: OnceLock::new(),
            ownership: OnceLock::new(),
        })
    }

    /// Every type of `f` classified (trivial / loadable / address-only / unknown), built on
    /// first use. `f` must be the function these analyses were built from.
    pub fn types(&self, f: &Function) -> &FunctionTypes {
        self.types.get_or_init(|| FunctionTypes::new(f, self.type_env.clone()))
    }

    /// Reaching definitions (Bril only: SIL values are defined once, so a use names its
    /// definition and needs no dataflow). `f` must be the function these analyses were built
    /// from.
    pub fn reaching(&self, f: &Function) -> Option<&ReachingDefs> {
        self.reaching.get_or_init(|| (f.lang == Lang::Bril).then(|| ReachingDefs::new(f, &self.cfg))).as_ref()
    }

    /// The ownership analysis of a SIL function (`None` for Bril), built on first use: DCE's
    /// sweep and the ownership view share the same one. `f` must be the function these
    /// analyses were built from.
    pub fn ownership(&self, f: &Function) -> Option<&Arc<FunctionOwnership>> {
        self.ownership
            .get_or_init(|| (f.lang == Lang::Sil).then(|| Arc::new(ownership::analyze(f, self.types(f)))))
            .as_ref()
    }
}

/// Whether two graphs are the same: the same number of blocks, entry and layout, and every
/// placed block the same successors in the same order (predecessors, orders, reachability and
/// exits follow from these).
fn same_graph(a: &Cfg, b: &Cfg) -> bool {
    a.num_blocks() == b.num_blocks()
        && a.entry() == b.entry()
        && a.blocks() == b.blocks()
        && a.blocks().iter().all(|&x| a.succs(x) == b.succs(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::DomNode;

    /// Every answer the views and passes read from the trees, frontiers and dependences.
    fn answers(f: &Function, a: &Analyses) -> Vec<String> {
        let mut out = Vec::new();
        for (b, _) in f.blocks.iter() {
            let pd = a.pdom.parent(b);
            out.push(format!(
                "{b}: idom {:?} depth {:?} ipdom {:?} children {:?}",
                a.dom.idom(b),
                a.dom.depth(b),
                pd,
                a.dom.children(DomNode::Block(b)),
            ));
        }
        out.push(format!("{:?} {:?} {:?}", a.frontiers, a.cdg, a.cfg.blocks()));
        out
    }

    /// Reused analyses answer as freshly built ones wherever the graph is unchanged: on the
    /// input of each stage of the default pipeline and its output (copy propagation keeps the
    /// graph; LCM does not, and there nothing is reused).
    #[test]
    fn reused_analyses_equal_fresh_ones_and_a_changed_graph_is_refused() {
        let mut reused = 0;
        let mut refused = 0;
        for seed in 0..40u64 {
            let g = crate::testgen::generate(seed, &crate::testgen::GenConfig::default());
            for f in g.module.bodies() {
                let run = crate::passes::pipeline::Pipeline::default_pipeline().run(f, &Analyses::new(f), &Default::default());
                for k in 0..run.num_stages() - 1 {
                    let (x, y) = (run.function_at(k), run.function_at(k + 1));
                    match Analyses::untraced(x, Arc::default()).for_same_graph(y) {
                        Some(a) => {
                            assert_eq!(answers(y, &a), answers(y, &Analyses::untraced(y, Arc::default())), "seed {seed} stage {k}");
                            reused += 1;
                        }
                        None => {
                            assert!(!same_graph(&Cfg::new(x), &Cfg::new(y)));
                            refused += 1;
                        }
                    }
                }
            }
        }
        assert!(reused > 20 && refused > 5, "{reused} reused, {refused} refused");
    }
}
