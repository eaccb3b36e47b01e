//! The views of SSA construction and of the translation out of SSA: the CFG of the program at
//! the step (core's replay), marked with what the step's phase is about, beside the tables a
//! lecture on SSA writes on the board — the worklist of φ placement, the stacks of renaming,
//! the copies of the translation out and what became of each.

mod into;
pub(crate) mod model;
mod out;

pub use into::SsaView;
pub use out::OutOfSsaView;
