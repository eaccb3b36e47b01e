//! Parser for Bril's text format (the language `bril2txt` prints and `bril2json` reads):
//! functions with typed parameters and return types, labels, value and effect instructions
//! with `@function`, `.label` and variable operands in any order, and the core, float, memory
//! and char extensions' operations and literals. Blocks are formed as Bril's `form_blocks`
//! forms them.
//!
//! Four stages: [`lex`] (never fails), [`syntax`] (recovers at statement boundaries),
//! [`build`] (IR, plus the checks that need a whole function) and [`typeck`] (Bril's type
//! rules, as its checker `brilck` applies them, on a program the first three accept). Every
//! stage adds to one list of diagnostics, so a file with several independent mistakes reports
//! them all at once.
//!
//! Unlabeled blocks are named `b<index>` (their position in the function, as Bril's tools
//! name them). If a label of the same function already has that name, the block becomes
//! `b<index>_1` (or `_2`, … — the first name no label and no earlier block uses), which depends
//! only on the text, so parsing the printed form gives the same names again.

mod build;
mod lex;
mod syntax;
mod typeck;

pub(crate) use lex::escape as escape_char;

use crate::diag::{Diagnostics, SourceFile};
use crate::ir::{Item, Lang, Module};
use std::collections::HashMap;
use std::sync::Arc;

/// Parses a Bril program. `name` is the file name errors are reported against.
pub fn parse(name: &str, text: &str) -> Result<Module, Diagnostics> {
    let mut diags = Diagnostics::default();
    let tokens = lex::lex(text, &mut diags);
    let asts = syntax::Parser::new(text, tokens, &mut diags).parse_program();

    let mut seen = HashMap::new();
    let mut functions = Vec::with_capacity(asts.len());
    for ast in &asts {
        if seen.insert(ast.name.as_str(), ast.name_span).is_some() {
            diags.error(ast.name_span, format!("duplicate function `@{}`", ast.name));
        }
        functions.push(build::function(text, ast, &mut diags));
    }
    if !diags.has_errors() {
        // The type rules only on a program that is otherwise well formed: on a malformed
        // instruction they would repeat the builder's error in other words.
        typeck::check(text, &functions, &mut diags);
    }
    if diags.has_errors() {
        diags.0.sort_by_key(|d| (d.span.lo, d.span.hi));
        return Err(diags);
    }
    Ok(Module {
        lang: Lang::Bril,
        items: (0..functions.len()).map(Item::Function).collect(),
        functions,
        source: Arc::new(SourceFile::new(name, text)),
    })
}
