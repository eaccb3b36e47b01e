//! The example gallery: programs built into the app, each with a line on what it teaches.
//! The files live in `static/examples/` (written for optlab; the SIL ones carry the seed
//! articles' programs); the stress example is generated when it is opened.
//!
//! An example's `id` is a stable slug: links and the app's state name examples by it, so an
//! id is never renamed or reused once published.

use optlab_core::testgen::structured_function;
use optlab_core::Lang;
use std::borrow::Cow;

/// Where an example's text comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    File(&'static str),
    /// Made on demand (large programs that would bloat the page if stored).
    Generated(fn() -> String),
}

#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// Stable slug (links name examples by it).
    pub id: &'static str,
    /// Shown in the example menu.
    pub title: &'static str,
    /// One line: what the example teaches.
    pub teaches: &'static str,
    pub lang: Lang,
    /// File name, used in error messages.
    pub file: &'static str,
    pub source: Source,
    /// Where the page opens when the example is loaded.
    pub opens: Opens,
    /// Its text is left out of the first-visit build (it opens on a view only the full app
    /// has, which takes the page over at once): the first visit's budget.
    pub full_only: bool,
}

/// What the page shows when an example is loaded: the function the function menu lands on
/// (`None`: the first with a body) and the tab (`None`: the one the user is on), by slug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opens {
    pub function: Option<&'static str>,
    pub tab: Option<&'static str>,
}

impl Opens {
    /// The first function, on the current tab.
    pub const AS_IS: Opens = Opens { function: None, tab: None };
}

/// Examples are the same example when their ids are (ids are unique; comparing the
/// generator functions would not be meaningful).
impl PartialEq for Example {
    fn eq(&self, other: &Example) -> bool {
        self.id == other.id
    }
}
impl Eq for Example {}

impl Example {
    pub fn text(&self) -> Cow<'static, str> {
        match self.source {
            Source::File(text) => Cow::Borrowed(text),
            Source::Generated(make) => Cow::Owned(make()),
        }
    }
}

/// The example with this id.
pub fn by_id(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

/// Blocks and seed of the stress example.
pub const STRESS_BLOCKS: usize = 200;
pub const STRESS_SEED: u64 = 7;

fn stress() -> String {
    let mut f = structured_function(STRESS_BLOCKS, STRESS_SEED);
    // Named `main` so that the interpreter runs it; with `c` false every loop exits at once.
    f.name = "main".into();
    format!(
        "# Generated: optlab_core::testgen::structured_function({STRESS_BLOCKS}, {STRESS_SEED}), renamed @main.\n\
         # About {STRESS_BLOCKS} blocks of nested loops, branches and early returns, all steered by `c`:\n\
         # use it to see how the views scale (layout, dominator trees, tables).\n\
         # ARGS: false\n{}",
        crate::build::print_bril(&f)
    )
}

macro_rules! example_file {
    ($name:literal) => {
        Source::File(first_visit_text($name, include_str!(concat!("../../static/examples/", $name))))
    };
}

/// The text of an example marked `full_only`: empty in the first-visit build.
macro_rules! full_only_file {
    ($name:literal) => {
        Source::File(if cfg!(feature = "full") { include_str!(concat!("../../static/examples/", $name)) } else { "" })
    };
}

/// An example file's text in this build: the first-visit build (without the `full` feature)
/// reads Bril only and leaves the SIL examples' text to the full app, which loads it when it
/// takes the page over (`crate::handoff::Handoff::state`).
const fn first_visit_text(name: &str, text: &'static str) -> &'static str {
    let b = name.as_bytes();
    let sil = b.len() > 4 && b[b.len() - 4] == b'.' && b[b.len() - 3] == b's' && b[b.len() - 2] == b'i' && b[b.len() - 1] == b'l';
    if sil && !cfg!(feature = "full") {
        ""
    } else {
        text
    }
}

/// The gallery, in teaching order. The first one is loaded at start.
pub const EXAMPLES: &[Example] = &[
    Example {
        id: "loop",
        title: "Loop with a branch (Bril)",
        teaches: "A first look: a loop with a branch inside, its CFG, its dominator trees, and what DCE and LCM make of it.",
        lang: Lang::Bril,
        file: "loop.bril",
        source: example_file!("loop.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "diamond",
        title: "Diamond (Bril)",
        teaches: "The smallest join: an if/else whose arms both assign `a`; dominance frontiers and control dependence.",
        lang: Lang::Bril,
        file: "diamond.bril",
        source: example_file!("diamond.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "partial",
        title: "Partially redundant add (Bril)",
        teaches: "Partial redundancy: LCM inserts `add a b` on the arm that lacks it and deletes the recomputation after the join.",
        lang: Lang::Bril,
        file: "partial.bril",
        source: example_file!("partial.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "lcm-article",
        title: "The LCM article's 13 nodes (Bril)",
        teaches: "Every LCM predicate on the article's graph (Knoop, Rüthing, Steffen): block nK is its node K, so each set can be checked step by step.",
        lang: Lang::Bril,
        file: "lcm_article.bril",
        source: example_file!("lcm_article.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "loop-invariant",
        title: "Loop-invariant bound (Bril)",
        teaches: "Loop-invariant code motion falls out of LCM: a product recomputed in the loop header moves before the loop.",
        lang: Lang::Bril,
        file: "loop_invariant.bril",
        source: example_file!("loop_invariant.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "lcm-article-sil",
        title: "The LCM article's 13 nodes (SIL)",
        teaches: "The same graph in SIL (bbK is node K): the same 13 sets, and in SSA the moved division reaches bb12 as a new block argument.",
        lang: Lang::Sil,
        file: "lcm_article.sil",
        source: example_file!("lcm_article.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "loop-invariant-sil",
        title: "Loop-invariant bound (SIL)",
        teaches: "LCM on SIL: the loop bound `builtin \"mul_Int64\"` recomputed in the header moves to bb0; the additions on the loop's block arguments stay.",
        lang: Lang::Sil,
        file: "loop_invariant.sil",
        source: example_file!("loop_invariant.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "functions",
        title: "Several functions (Bril)",
        teaches: "Analyses and passes work per function: pick @gcd or @multiples; the interpreter runs @main, which calls them.",
        lang: Lang::Bril,
        file: "functions.bril",
        source: example_file!("functions.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "speculation",
        title: "Speculation with rollback (Bril)",
        teaches: "A guard that holds commits its writes; one that fails restores the variables and jumps: DCE keeps what the rollback needs.",
        lang: Lang::Bril,
        file: "speculation.bril",
        source: example_file!("speculation.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "imports",
        title: "A program of two files (Bril)",
        teaches: "Bril's imports: a `// file: NAME` line starts another file; linking renames its functions as Bril's linker does.",
        lang: Lang::Bril,
        file: "imports.bril",
        source: example_file!("imports.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "ssa-loop",
        title: "Into SSA and out again: a loop (Bril)",
        teaches: "φs at the iterated dominance frontier (none where a variable is dead), renaming with a stack per variable, then back.",
        lang: Lang::Bril,
        file: "ssa_loop.bril",
        source: full_only_file!("ssa_loop.bril"),
        opens: Opens { function: None, tab: Some("ssa") },
        full_only: true,
    },
    Example {
        id: "ssa-swap",
        title: "Out of SSA: the swap and lost-copy problems (Bril)",
        teaches: "φs that read each other, a φ live after its loop: each φ gets its own variable; coalescing keeps only the swap's copy.",
        lang: Lang::Bril,
        file: "ssa_swap.bril",
        source: full_only_file!("ssa_swap.bril"),
        opens: Opens { function: None, tab: Some("out-of-ssa") },
        full_only: true,
    },
    Example {
        id: "dead1",
        title: "dead1: an unused sum (SIL)",
        teaches: "ADCE's first two rules: only the return is live, so the whole overflow-checked addition is deleted.",
        lang: Lang::Sil,
        file: "dead1.sil",
        source: example_file!("dead1.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "control-dependent",
        title: "A control-dependent branch (SIL)",
        teaches: "ADCE's third rule: live code in bb1 and bb2 keeps bb0's cond_br alive through control dependence.",
        lang: Lang::Sil,
        file: "control_dependent.sil",
        source: example_file!("control_dependent.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "infinite-loop",
        title: "An infinite loop DCE must keep (SIL)",
        teaches: "A loop with no way out is kept with the branch into it, though nothing live follows it.",
        lang: Lang::Sil,
        file: "infinite_loop.sil",
        source: example_file!("infinite_loop.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "dead-block-args",
        title: "Dead block arguments (SIL)",
        teaches: "An unused block argument keeps its place, but every branch into it passes `undef` and its producers go.",
        lang: Lang::Sil,
        file: "dead_block_args.sil",
        source: example_file!("dead_block_args.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "identity",
        title: "identity<T>: address-only vs loadable (SIL)",
        teaches: "One Swift function as address-lowered generic SIL, with opaque values, and specialized to Int; opens on AddressLowering.",
        lang: Lang::Sil,
        file: "identity.sil",
        source: example_file!("identity.sil"),
        opens: Opens { function: Some("identity_opaque"), tab: Some("address-lowering") },
        full_only: false,
    },
    Example {
        id: "witness-thunk",
        title: "A protocol witness thunk (SIL)",
        teaches: "Reabstraction: a thunk loads @in arguments, calls the method and stores the @out result; AddressLowering makes the loads.",
        lang: Lang::Sil,
        file: "witness_thunk.sil",
        source: example_file!("witness_thunk.sil"),
        opens: Opens { function: Some("witness_opaque"), tab: Some("address-lowering") },
        full_only: false,
    },
    Example {
        id: "redundant-copy",
        title: "A redundant copy (SIL, opaque values)",
        teaches: "The proposal's copy elimination: a copy_value removed when three facts hold, and one kept because the third fails.",
        lang: Lang::Sil,
        file: "redundant_copy.sil",
        source: example_file!("redundant_copy.sil"),
        opens: Opens { function: Some("redundant_copy"), tab: Some("copy-elim") },
        full_only: false,
    },
    Example {
        id: "type-lowering",
        title: "Box, Transform, Phantom: type lowering (SIL)",
        teaches: "Type lowering: Box<Int> is trivial, Box<NSObject> loadable, Box<Any> address-only; open the Types tab and substitute T.",
        lang: Lang::Sil,
        file: "type_lowering.sil",
        source: example_file!("type_lowering.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "ownership",
        title: "Ownership: borrows, copies, reborrows (SIL)",
        teaches: "OSSA ownership (docs/SIL/Ownership.md): a borrow scope, a copy consumed on two arms, a reborrow, an over consume; open the Ownership tab.",
        lang: Lang::Sil,
        file: "ownership.sil",
        source: example_file!("ownership.sil"),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "stress-200",
        title: "200 generated blocks (Bril)",
        teaches: "Scale: a generated function of about 200 blocks, to see how layout, trees and tables cope.",
        lang: Lang::Bril,
        file: "stress200.bril",
        source: Source::Generated(stress),
        opens: Opens::AS_IS,
        full_only: false,
    },
    Example {
        id: "copies",
        title: "Copies: chains, joins and loops (Bril)",
        teaches: "Copy propagation: a chain resolves to its root, a copy made on both arms survives the join, a loop kills one.",
        lang: Lang::Bril,
        file: "copies.bril",
        source: example_file!("copies.bril"),
        opens: Opens::AS_IS,
        full_only: false,
    },
];

// Native only: running both passes on every example is slow in wasm and proves nothing more.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
