//! The copy elimination view: the SIL opaque-values proposal's redundant copy (seed 001) —
//! `%copy = copy_value %arg`, consumed once, then `destroy_value %arg` — removed when three
//! facts hold: `%arg` cannot be mutated, it is consumed in scope by the destroy, it is not
//! used after `%copy` is consumed. Each candidate is one step of the step bar; its facts come
//! from core (`optlab_core::sil::lowering::copyelim`), proved on the CFG from the ownership
//! analysis, with the blocks and instructions each rests on, which this view highlights.
//!
//! - [`model`]: the facts of a candidate and their marks on the CFG and in the code (pure);
//! - `view`: the component.

pub mod model;
mod view;

pub use view::CopyElimView;

use crate::program::Analysis;
use optlab_core::passes::Detail;
use optlab_core::sil::lowering::copyelim::CopyElim;

/// Copy elimination's result on the analysed function.
pub fn result(a: &Analysis) -> Option<&CopyElim> {
    match &a.run("copy-elim")?.detail {
        Detail::CopyElim(r) => Some(r),
        _ => None,
    }
}
