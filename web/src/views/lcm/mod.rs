//! The LCM view: the seven steps of seed 004 and the rounds of their fixpoints, as a table of
//! the thirteen predicates and as bits on the CFG.
//!
//! - [`steps`]: the step list (positions in the trace, one-line descriptions).
//! - [`model`]: the table at a step, replayed from the trace.
//! - [`equations`]: each predicate's equation in words (hover text).
//! - [`decor`]: the CFG drawings and the bits and edits drawn on them.
//! - [`exercise`]: predicting a step's cells and grading the predictions.
//! - `view`, `table`: the components.

pub mod decor;
pub mod equations;
pub mod exercise;
pub mod model;
pub mod steps;
mod table;
mod view;

pub use steps::{Pos, Steps};
pub use view::LcmView;

#[cfg(test)]
mod tests;
