//! Text → IR for both languages.

pub mod bril;
pub mod detect;
pub mod sil;

pub use detect::detect_lang;

use crate::diag::{Diagnostics, SourceFile};
use crate::ir::{Lang, Module};

/// The source file errors in `text` are told against: for Bril, a text of several files
/// (joined by [`bril::FILE_MARK`] lines) tells each position in its own file.
pub fn source_file(lang: Lang, name: &str, text: &str) -> SourceFile {
    match lang {
        Lang::Bril => SourceFile::with_files(name, text, bril::FILE_MARK),
        Lang::Sil => SourceFile::new(name, text),
    }
}

/// Parses a whole file. `name` is used in error messages (`name:line:col: error: …`).
pub fn parse_module(lang: Lang, name: &str, text: &str) -> Result<Module, Diagnostics> {
    match lang {
        Lang::Bril => bril::parse(name, text),
        Lang::Sil => sil::parse(name, text),
    }
}
