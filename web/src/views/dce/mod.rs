//! The DCE view: stepping through seed 000's aggressive dead code elimination — the marking
//! in order, each live instruction with its reason, then the sweep and the branch rewrites —
//! by replaying the [`optlab_core::passes::dce::Trace`] of the selected function. The step
//! texts and the reasons in words come from core ([`optlab_core::passes::dce::steps()`],
//! [`optlab_core::passes::dce::words`]).
//!
//! - [`sweep_graph`]: the before-and-after drawing used from the sweep on;
//! - [`model`]: what one step draws (pure);
//! - [`exercise`]: the questions of exercise mode and their grading;
//! - [`view`]: the component.

pub mod exercise;
pub mod model;
pub mod sweep_graph;
mod view;

pub use view::DceView;

use crate::program::Analysis;
use optlab_core::passes::dce::DceResult;
use optlab_core::passes::Detail;

/// DCE's result on the analysed function (the detail of its run behind the pass contract);
/// `None` when the contract refused the function before DCE saw it.
pub fn result(a: &Analysis) -> Option<&DceResult> {
    match &a.run("dce")?.detail {
        Detail::Dce(r) => Some(r),
        _ => None,
    }
}

/// Programs the tests of this view run on: the seed's examples (as core's golden tests keep
/// them) and the gallery's Bril programs.
#[cfg(test)]
pub(crate) mod fixtures {
    use optlab_core::{parse_module, Function, Lang};

    pub const DEAD1: &str = include_str!("../../../../core/tests/golden/dce/seed_dead1.sil");
    pub const CONTROL_DEPENDENT: &str = include_str!("../../../../core/tests/golden/dce/seed_control_dependent.sil");
    pub const CONTROL_DEPENDENT_DEAD: &str = include_str!("../../../../core/tests/golden/dce/control_dependent_dead.sil");
    pub const BRIL: [&str; 3] = [
        include_str!("../../../../static/examples/loop.bril"),
        include_str!("../../../../static/examples/diamond.bril"),
        include_str!("../../../../static/examples/partial.bril"),
    ];

    /// The first function with a body.
    pub fn function(lang: Lang, text: &str) -> Function {
        let m = parse_module(lang, "test", text).unwrap_or_else(|e| panic!("{e:?}"));
        let f = m.bodies().next().expect("a function with a body").clone();
        f
    }
}
