//! IR → text in each language's own syntax.

pub mod bril;
pub mod sil;

use crate::ir::{Function, Lang, Module};

/// How names are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Naming {
    /// The user's own block and value names (the before/after view).
    #[default]
    User,
    /// SIL only: blocks `bb0…` and values `%0…` numbered in order, as `sil-opt` prints
    /// (what Swift's FileCheck lines expect). Bril ignores it.
    Renumber,
}

/// The whole module as source text.
pub fn print_module(m: &Module, naming: Naming) -> String {
    match m.lang {
        Lang::Bril => bril::print_module(m),
        Lang::Sil => sil::print_module(m, naming),
    }
}

/// One function as source text.
pub fn print_function(f: &Function, naming: Naming) -> String {
    match f.lang {
        Lang::Bril => bril::print_function(f),
        Lang::Sil => sil::print_function(f, naming),
    }
}
