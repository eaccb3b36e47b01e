//! Ownership and borrowing in OSSA SIL (seed 003; Swift's `docs/SIL/Ownership.md`; the
//! verifier after Swift's `lib/SIL/Verifier/SILOwnershipVerifier.cpp` and
//! `LinearLifetimeChecker.cpp`).
//!
//! Seed 003 states the model in three sentences: "a copy or forward produces an owned value; an
//! owned value has a single consumer; a borrow has static scope". In `sil [ossa]` functions every
//! value therefore carries an ownership *kind* — none (trivial values, addresses, `undef`),
//! owned, guaranteed (borrowed) or unowned — and every operand a *constraint*: the kind it
//! accepts and whether it ends the value's lifetime. From those two facts follow
//!
//! - [`analyze`]: each value's kind with the reason (its definition), each operand's constraint
//!   (Swift's operand-ownership role: `DestroyingConsume`, `Borrow`, `GuaranteedForwarding` …),
//!   each owned value's lifetime (definition, consuming uses, the blocks in between) and each
//!   borrow scope (introducer, `end_borrow`s, reborrows through phis);
//! - [`verify`]: Swift's ownership verifier — over consumes, leaks, uses outside a lifetime,
//!   operands of incompatible ownership — with Swift's own wording, so Swift's verifier tests
//!   can be checked line by line, and a step list of what the walk looked at.
//!
//! Everything here is linear in the size of the function: kinds are computed once per value with
//! an explicit stack (a chain of 10,000 forwarding instructions is a loop, not a recursion), use
//! lists are built in one scan, and each lifetime walk visits a block at most once. Non-OSSA
//! functions have no ownership: they are analysed as all-`none` and not verified.

mod analysis;
pub(crate) mod lists;
mod names;
mod report;
mod rules;
mod verify;
pub mod query;

pub use analysis::{analyze, analyze_constraints, analyze_kinds, analyze_operands, BorrowScope, Constraints, OperandBrief, FunctionOwnership, Lifetime, OperandInfo, Slot, ValueInfo};
pub use names::Names;
pub use report::{dump_text, json, swift_dump};
pub use rules::{Accepts, Constraint, Kind, Role};
pub use verify::{verify, Category, Finding, Verdict};

use crate::ir::Function;

/// Whether the function is in ownership SSA (`sil [ossa] @f`): only those have ownership.
pub fn is_ossa(f: &Function) -> bool {
    f.sil.as_ref().is_some_and(|h| h.attrs.iter().any(|a| a == "ossa"))
}

#[cfg(test)]
mod tests;
