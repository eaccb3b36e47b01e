//! SIL types: trivial, loadable or address-only — with the reason.
//!
//! Swift's type lowering decides, for every type, whether a value of it can live in a
//! register and be copied bit for bit (**trivial**), can live in a register but needs retains
//! and releases (**loadable**, non-trivial), or must live in memory (**address-only**:
//! runtime-sized generics and existentials, weak references, aggregates containing one). Seed
//! 002 ("How to talk to your kids about SIL type use") is built around that question; this
//! module answers it from the text of a SIL file alone:
//!
//! - [`ty`]: the grammar of SIL type text (`$*Box<T>`, `$@convention(thin) <T> (@in T) -> @out T`,
//!   `$<τ_0_0> { var τ_0_0 } <Int>`, …);
//! - [`decl`]: the Swift declarations SIL files carry (`struct`, `class`, `enum`, `protocol`,
//!   `typealias`);
//! - [`stdlib`]: the standard-library types files use without declaring;
//! - [`classify`]: the rules, with a why-chain per verdict, and **unknown** where the text
//!   cannot decide;
//! - [`function`]: every type of a function, classified in its generic context;
//! - [`check`]: instruction qualifiers that contradict the classification.

pub mod check;
pub mod classify;
pub mod decl;
pub mod function;
pub mod operand;
pub mod query;
pub mod report;
pub mod stdlib;
pub mod ty;

pub use classify::{Assumptions, Class, Classifier, Source, Step, TypeEnv, Verdict};
pub use decl::Decls;
pub use check::Warning;
pub use function::{Category, FunctionTypes, Row, Use};
pub use ty::{parse as parse_type, Ty};

use crate::ir::Module;
use std::sync::Arc;

/// Whether a type text (after `$`) is trivial *for certain* with no declarations but the
/// standard library's and no generic context — for callers that see one function without its
/// module (an address, an unknown name or a generic parameter is not trivial).
pub fn is_trivial_without_declarations(text: &str) -> bool {
    static ENV: std::sync::OnceLock<TypeEnv> = std::sync::OnceLock::new();
    let text = text.trim();
    if text.starts_with('*') {
        return false;
    }
    let env = ENV.get_or_init(TypeEnv::default);
    parse_type(text).is_ok_and(|t| Classifier::new(env, &[], &[]).classify(&t).class == Class::Trivial)
}

/// The type environment of a module: its declarations and no assumptions.
pub fn env_of(m: &Module) -> Arc<TypeEnv> {
    Arc::new(TypeEnv::new(Decls::of_module(m)))
}

#[cfg(test)]
mod tests;
