//! optlab core: one IR for Swift SIL and Bril, their parsers and printers, the CFG,
//! dominance (Lengauer–Tarjan, forward and post), dominance frontiers and control
//! dependence, and the passes the lab shows step by step. No web dependency: the web app and
//! the CLI use only this crate's public API.
//!
//! Data flows one way: `parse` → `ir` ← `cfg` ← `dom` ← analyses and passes → traces.
//! The step lists the lab steps through ([`steps::Steps`]: how many steps, a sentence for
//! each) and the state at step `k` are computed from those traces here too
//! ([`dom::lt_steps`], [`passes::dce::steps()`], [`passes::lcm::LcmOutput::steps`]), so the web
//! app only renders them.

pub mod cfg;
pub mod dataflow;
pub mod diag;
pub mod dom;
pub mod entity;
pub mod ir;
pub mod parse;
pub mod passes;
pub mod print;
pub mod sil;
pub mod steps;

pub use diag::{Diagnostic, Diagnostics, SourceFile, Span};
pub use ir::{BlockId, Function, Inst, InstId, Lang, Module, ValueId};
pub use parse::parse_module;
pub mod interp;
pub mod testgen;
