//! The LCM view: the seven steps of seed 004 and the rounds of their fixpoints, as a table of
//! the thirteen predicates and as bits on the CFG.
//!
//! The step list (positions in the trace, one-line descriptions) and the table at a step come
//! from core ([`optlab_core::passes::lcm::LcmOutput::steps`], [`optlab_core::passes::lcm::LcmOutput::snapshot`]).
//!
//! - [`model`]: the picker, and a step's sets, changes and edits in words.
//! - [`equations`]: each predicate's equation in words (hover text).
//! - [`decor`]: the CFG drawings and the bits and edits drawn on them.
//! - [`exercise`]: predicting a step's cells and grading the predictions.
//! - `view`, `table`: the components.

pub mod decor;
pub mod equations;
pub mod exercise;
pub mod model;
mod table;
mod view;

pub use view::LcmView;
pub(crate) use view::graph_style;

use crate::program::Analysis;
use optlab_core::passes::lcm::{LcmOutput, LcmSteps};
use optlab_core::passes::Detail;

/// LCM's output on the analysed function and its steps, or why there are none (SIL, a
/// malformed function): the detail of its run behind the pass contract.
pub fn run(a: &Analysis) -> Result<(&LcmOutput, &LcmSteps), String> {
    let run = a.run("lcm").ok_or_else(|| "LCM is not registered".to_string())?;
    match (&run.detail, run.problem()) {
        (_, Some(why)) => Err(why.to_string()),
        (Detail::Lcm { out, steps }, None) => Ok((out, steps)),
        _ => Err("LCM produced nothing".to_string()),
    }
}

/// LCM's output alone (see [`run`]).
pub fn output(a: &Analysis) -> Result<&LcmOutput, String> {
    run(a).map(|(out, _)| out)
}

#[cfg(test)]
mod tests;
