//! What SIL's text says beyond instructions: the type system (seed 002). Ownership and
//! AddressLowering build on it.

pub mod demangle;
pub mod insts;
pub mod lowering;
pub mod ownership;
pub mod types;
