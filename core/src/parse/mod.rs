//! Text → IR for both languages.

pub mod bril;
pub mod detect;
pub mod sil;

pub use detect::detect_lang;

use crate::diag::Diagnostics;
use crate::ir::{Lang, Module};

/// Parses a whole file. `name` is used in error messages (`name:line:col: error: …`).
pub fn parse_module(lang: Lang, name: &str, text: &str) -> Result<Module, Diagnostics> {
    match lang {
        Lang::Bril => bril::parse(name, text),
        Lang::Sil => sil::parse(name, text),
    }
}
