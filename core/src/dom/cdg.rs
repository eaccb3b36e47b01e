//! Control dependence: Ferrante, Ottenstein & Warren, "The Program Dependence Graph and Its
//! Use in Optimization", TOPLAS 9(3), 1987, §3.1, computed as in Cytron et al., TOPLAS 13(4),
//! 1991, §6: `Y` is control-dependent on `X` iff `X ∈ PDF(Y)`, the post-dominance frontier.
//! Equivalently: `X` has a successor `S` that `Y` post-dominates, and `Y` does not strictly
//! post-dominate `X` — taking one edge out of `X` commits to reaching `Y`, another may not.
//! This is the relation ADCE (seed 000, condition 3) follows to keep branches alive.
//!
//! Conventions, from the post-dominator tree's virtual exit:
//! * A block executed whenever the function is entered (it post-dominates the entry) has no
//!   dependences — nothing decides whether it runs.
//! * A loop header is control-dependent on the branch that closes the loop (often itself).
//! * Inside a region that cannot reach an exit, the block the infinite-loop rule joined to the
//!   virtual exit behaves like a branch with an extra edge "out" ([`super::exit`]): blocks that
//!   run again only if the loop continues depend on it. An exit-free straight chain `bb0 → bb1,
//!   bb1 → bb1` gives `bb1` a dependence on itself and `bb0` none.

use super::{frontier, DomKind, DomTree, Frontiers};
use crate::cfg::Cfg;
use crate::entity::{EntityVec, Rows};
use crate::ir::{BlockId, Function};

/// The control-dependence graph of a function.
#[derive(Clone, Debug)]
pub struct ControlDeps {
    deps: EntityVec<BlockId, Vec<BlockId>>,
    /// The reverse of `deps` in compressed rows: row `x` is `x`'s dependents. Rows rather
    /// than a `Vec` per block and a `Vec` per dependence: at 10^5 blocks those small
    /// allocations were most of the work.
    dependents: Rows<BlockId, BlockId>,
    /// Row `k` for the `k`-th dependence of `dependents.flat()` (`x`, `y`): the successors of
    /// `x` whose edge commits to `y` (see [`ControlDeps::deciding_edges`]).
    edges: Rows<usize, BlockId>,
}

impl ControlDeps {
    /// Builds the graph from the post-dominator tree `pdt` of `f`.
    ///
    /// # Panics
    /// If `pdt` is a forward dominator tree (a programming error, not an input error).
    pub fn new(f: &Function, cfg: &Cfg, pdt: &DomTree) -> ControlDeps {
        assert_eq!(pdt.kind(), DomKind::PostDominators, "control dependence needs the post-dominator tree");
        debug_assert_eq!(f.blocks.len(), cfg.num_blocks(), "the CFG was built from another function");
        ControlDeps::from_pdf(cfg, pdt, frontier(cfg, pdt))
    }

    /// Builds the graph from frontiers already computed (by the shared analyses of a
    /// function), so the post-dominance frontier is walked once, not once more here.
    ///
    /// # Panics
    /// If `pdt` is a forward dominator tree.
    pub fn from_frontiers(cfg: &Cfg, pdt: &DomTree, frontiers: &Frontiers) -> ControlDeps {
        assert_eq!(pdt.kind(), DomKind::PostDominators, "control dependence needs the post-dominator tree");
        ControlDeps::from_pdf(cfg, pdt, frontiers.pdom.clone())
    }

    fn from_pdf(cfg: &Cfg, pdt: &DomTree, deps: EntityVec<BlockId, Vec<BlockId>>) -> ControlDeps {
        // Rows in layout order of `y` (the order `Rows::grouped` keeps).
        let pairs = cfg.blocks().iter().flat_map(|&y| deps[y].iter().map(move |&x| (x, y)));
        let dependents = Rows::grouped(cfg.num_blocks(), pairs);
        let mut edges = Rows::with_capacity(dependents.flat().len(), dependents.flat().len());
        for (x, ys) in dependents.values().enumerate() {
            for &y in ys {
                // `dominates` is reflexive, so `s == y` counts: the edge x → y itself decides.
                let mut last = None;
                for &s in cfg.succs(BlockId(x as u32)) {
                    if pdt.dominates(y, s) && last != Some(s) {
                        edges.extend_row([s]);
                        last = Some(s);
                    }
                }
                edges.end_row();
            }
        }
        ControlDeps { deps, dependents, edges }
    }

    /// The blocks whose branch decides whether `b` runs, in layout order.
    pub fn deps(&self, b: BlockId) -> &[BlockId] {
        self.deps.get(b).map_or(&[], |v| v.as_slice())
    }

    /// The blocks control-dependent on `x`, in layout order.
    pub fn dependents(&self, x: BlockId) -> &[BlockId] {
        self.dependents.of(x)
    }

    /// Whether `y` is control-dependent on `x`.
    pub fn depends_on(&self, y: BlockId, x: BlockId) -> bool {
        self.deps(y).contains(&x)
    }

    /// The successors `s` of `x` (in successor order) whose edge `x → s` makes `y` control
    /// dependent on `x`: those `y` post-dominates (or that are `y`). Taking one of them
    /// commits to running `y`. Empty if `y` does not depend on `x`. (The frontier walk only
    /// follows real CFG edges, so a dependence always has at least one.)
    ///
    /// Computed here, with the tree at hand, so that views colouring the CDG's edges by
    /// branch side ask instead of re-walking the post-dominator tree.
    pub fn deciding_edges(&self, x: BlockId, y: BlockId) -> &[BlockId] {
        let Some(lo) = self.dependents.offset(x) else { return &[] };
        match self.dependents(x).iter().position(|&d| d == y) {
            Some(k) => &self.edges[lo + k],
            None => &[],
        }
    }

    /// Every dependence as an edge `(x, y)`: `y` is control-dependent on `x`; ordered by `x`'s
    /// block id, then `y`'s layout position. What the CDG view draws.
    pub fn edges(&self) -> impl Iterator<Item = (BlockId, BlockId)> + '_ {
        (0..self.dependents.len()).flat_map(move |i| {
            let x = BlockId(i as u32);
            self.dependents(x).iter().map(move |&y| (x, y))
        })
    }
}
