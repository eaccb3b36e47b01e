//! optlab core: one IR for Swift SIL and Bril, their parsers and printers, the CFG,
//! dominance (Lengauer–Tarjan, forward and post), dominance frontiers and control
//! dependence, and the passes the lab shows step by step. No web dependency: the web app and
//! the CLI use only this crate's public API.
//!
//! Data flows one way: `parse` → `ir` ← `cfg` ← `dom` ← analyses and passes → traces.

pub mod cfg;
pub mod dataflow;
pub mod diag;
pub mod dom;
pub mod entity;
pub mod ir;
pub mod parse;
pub mod passes;
pub mod print;
pub mod steps;

pub use diag::{Diagnostic, Diagnostics, SourceFile, Span};
pub use ir::{BlockId, Function, Inst, InstId, Lang, Module, ValueId};
pub use parse::parse_module;
pub mod interp;
pub mod testgen;
