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
#[cfg(feature = "bril-imports")]
mod link;
mod syntax;
#[cfg(feature = "bril-types")]
mod typeck;

pub(crate) use lex::escape as escape_char;
use std::collections::HashMap;
pub use lex::FILE_MARK;

use crate::diag::{Diagnostics, SourceFile};
use crate::ir::{Item, Lang, Module};
use std::sync::Arc;

/// The paths a text's imports name (`from "PATH" import …`), in order, each once.
pub fn import_paths(text: &str) -> Vec<String> {
    let mut scratch = Diagnostics::default();
    let toks = lex::lex(text, &mut scratch);
    let mut out: Vec<String> = Vec::new();
    for w in toks.windows(2) {
        let word = text.get(w[0].span.lo as usize..w[0].span.hi as usize).unwrap_or("");
        if w[0].kind == lex::Tok::Ident && word == "from" && w[1].kind == lex::Tok::Str {
            let path = lex::unquoted(text.get(w[1].span.lo as usize..w[1].span.hi as usize).unwrap_or("")).to_string();
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// Whether an import of `path` means the file called `name` (its whole name, its last path
/// component, or its stem: `lib.json` names `lib.bril`).
pub fn names_file(path: &str, name: &str) -> bool {
    name == path || last(name) == last(path) || stem(name) == stem(path)
}

/// A path's last component.
fn last(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

/// A path's last component without its extension.
fn stem(p: &str) -> &str {
    let l = last(p);
    l.rsplit_once('.').map_or(l, |(s, _)| s)
}

/// A program's files (the program first) with every file their imports name, transitively:
/// an import that none of the files answers ([`names_file`]) is asked of `find`, with its
/// path and the name of the file that imports it, which gives the file (name and text), or
/// nothing — the parser then reports that import at its line.
pub fn with_imported<E>(
    mut files: Vec<(String, String)>,
    mut find: impl FnMut(&str, &str) -> Result<Option<(String, String)>, E>,
) -> Result<Vec<(String, String)>, E> {
    let mut k = 0;
    while k < files.len() {
        for imp in import_paths(&files[k].1) {
            if !files.iter().any(|(n, _)| names_file(&imp, n)) {
                if let Some(file) = find(&imp, &files[k].0)? {
                    files.push(file);
                }
            }
        }
        k += 1;
    }
    Ok(files)
}

/// Files dropped or given together as one program text ([`join_files`]): first a file that
/// no other one imports — of those, one that defines `@main` — then the rest in their order.
pub fn join_program(mut files: Vec<(String, String)>) -> String {
    let imports: Vec<Vec<String>> = files.iter().map(|(_, t)| import_paths(t)).collect();
    let imported = |k: usize| (imports.iter().enumerate()).any(|(j, i)| j != k && i.iter().any(|p| names_file(p, &files[k].0)));
    let roots: Vec<usize> = (0..files.len()).filter(|&k| !imported(k)).collect();
    let first = roots.iter().copied().find(|&k| files[k].1.contains("@main")).or(roots.first().copied()).unwrap_or(0);
    if first < files.len() {
        let f = files.remove(first);
        files.insert(0, f);
    }
    join_files(&files)
}

/// One text of several files, as [`parse`] reads them: the first file's text, then each
/// other after a `// file: NAME` line.
pub fn join_files(files: &[(String, String)]) -> String {
    let mut out = String::new();
    for (k, (name, text)) in files.iter().enumerate() {
        if k > 0 {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(FILE_MARK);
            out.push(' ');
            out.push_str(name);
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// The imports of a program of several files resolved ([`link`]).
#[cfg(feature = "bril-imports")]
fn link_program(prog: &syntax::Program, diags: &mut Diagnostics) -> Option<link::Names> {
    Some(link::link(&prog.files, &prog.imports, &prog.funcs, diags))
}

/// Without linking (the page's first-visit build, within its size budget), a program of
/// several files or with imports waits for the full lab, which reads it a moment later.
#[cfg(not(feature = "bril-imports"))]
fn link_program(prog: &syntax::Program, diags: &mut Diagnostics) -> Option<()> {
    let at = prog.imports.first().map(|i| i.path_span).or_else(|| prog.files.get(1).map(|f| f.1)).unwrap_or_default();
    diags.error(at, "imports and `// file:` lines are read by the rest of the lab, which is loading");
    None
}

/// Parses a Bril program. `name` is the file name errors are reported against.
pub fn parse(name: &str, text: &str) -> Result<Module, Diagnostics> {
    let mut diags = Diagnostics::default();
    let tokens = lex::lex(text, &mut diags);
    let prog = syntax::Parser::new(text, tokens, &mut diags).parse_program(name);
    #[cfg_attr(not(feature = "bril-imports"), allow(unused_variables))]
    let names = if prog.files.len() > 1 || !prog.imports.is_empty() {
        link_program(&prog, &mut diags)
    } else {
        // One file: its function names are its own (and each may be defined once).
        let mut seen = HashMap::new();
        for ast in &prog.funcs {
            if seen.insert(ast.name.as_str(), ast.name_span).is_some() {
                diags.error(ast.name_span, format!("duplicate function `@{}`", ast.name));
            }
        }
        None
    };

    let mut functions = Vec::with_capacity(prog.funcs.len());
    for ast in &prog.funcs {
        #[allow(unused_mut)]
        let mut f = build::function(text, ast, &mut diags);
        #[cfg(feature = "bril-imports")]
        if let Some(names) = &names {
            f.name = names.function_name(ast);
            // Calls name their callee by its linked name; a name the file neither defines
            // nor imports stays as written (the call fails when run, as in brili).
            for inst in f.insts.values_mut() {
                for callee in &mut inst.funcs {
                    if let Some(to) = names.resolve(ast.file, callee) {
                        *callee = to.to_string();
                    }
                }
            }
        }
        functions.push(f);
    }
    // The type rules only on a program that is otherwise well formed: on a malformed
    // instruction they would repeat the builder's error in other words.
    #[cfg(feature = "bril-types")]
    if !diags.has_errors() {
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
        source: Arc::new(SourceFile::with_files(name, text, lex::FILE_MARK)),
    })
}
