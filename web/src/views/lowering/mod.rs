//! The AddressLowering view: Swift's AddressLowering (seed 001, the SIL opaque-values
//! proposal; `AddressLowering.cpp`) stepped with the shared step bar. Step 0 is the storage
//! assignment (the opaque values in reverse postorder, each with the storage it gets), step 1
//! the allocation (the storage tree, and the `alloc_stack`s on the lowered CFG), every later
//! step one rewritten line, old and new side by side. Everything shown is core's run of the
//! pass (`optlab_core::sil::lowering`, `optlab_core::passes::address_lowering`); this
//! module only lays it out.
//!
//! - [`model`]: what a step shows, as plain data (tested natively);
//! - [`listing`]: a function's printed lines with marks (shared with copy elimination);
//! - `view`: the component, which only renders and dispatches.

pub mod listing;
pub mod model;
mod view;

pub use view::LoweringView;

use crate::program::Analysis;
use optlab_core::passes::Detail;
use optlab_core::sil::lowering::Lowering;

/// AddressLowering's result on the analysed function; `None` when it was refused.
pub fn result(a: &Analysis) -> Option<&Lowering> {
    match &a.run("address-lowering")?.detail {
        Detail::AddressLowering(l) => Some(l),
        _ => None,
    }
}

/// States on the gallery's opaque-values examples, for the tests of this view and of copy
/// elimination's.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::state::{Action, State};

    /// The gallery example `id` with function `func` selected.
    pub fn state(id: &str, func: &str) -> State {
        State::default().apply(Action::LoadExample(id.into())).apply(Action::SelectFunction(func.into()))
    }
}
