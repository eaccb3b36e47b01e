//! Bril's import extension (`docs/lang/import.md`): `from "lib.bril" import @f, @g as @h;`.
//!
//! A program may hold several files, one text joined by `// file: NAME` lines (the page's
//! editor, the command line's several paths). An import's path names one of those files —
//! by its whole name, its last path component, or its stem (`lib.json` for `lib.bril`, as
//! Bril's linker reads either). Linking renames as Bril's linker (`brild`) does, so that
//! every file keeps its own namespace: a function of any file but the first is called
//! `FILE___NAME` (the file's last path component, made a Bril identifier), the first file's
//! functions keep their names, and every `call` names its callee's new name. The result is
//! one self-contained program, printed without imports.

use super::syntax::{FuncAst, ImportAst};
use crate::diag::{Diagnostics, Span};
use std::collections::HashMap;

/// Each file's function names, old → new, and each file's calls' resolution.
pub(super) struct Names {
    /// Each file's identifier in linked names.
    idents: Vec<String>,
    /// Per file: every name a `call` in it may use (its own functions and its imports),
    /// mapped to the linked name.
    scope: Vec<HashMap<String, String>>,
}

impl Names {
    /// The linked name of a function definition.
    pub fn function_name(&self, f: &FuncAst) -> String {
        linked(&self.idents, f.file, &f.name)
    }

    /// The linked name a call in file `file` means by `@name`; `None` for a name that file
    /// neither defines nor imports (a call to an undefined function, reported later).
    pub fn resolve(&self, file: usize, name: &str) -> Option<&str> {
        self.scope.get(file)?.get(name).map(String::as_str)
    }
}

/// The linked name of function `name` of file `file`.
fn linked(files: &[String], file: usize, name: &str) -> String {
    if file == 0 {
        return name.to_string();
    }
    format!("{}___{name}", files[file])
}

/// A file name's last component as a Bril identifier (`bitwise-ops.bril` →
/// `bitwise_ops.bril`); `f<index>` when nothing of it is left.
fn ident_of(name: &str, index: usize) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let mut s: String =
        last.chars().map(|c| if super::lex::is_ident_continue(c) { c } else { '_' }).collect();
    if !s.starts_with(super::lex::is_ident_start) {
        s.insert_str(0, &format!("f{index}_"));
    }
    s
}

use super::{last, stem};

/// Which file an import's path names, among `files`: the whole name first, then the last
/// component, then the stem.
fn find_file(files: &[(String, Span)], path: &str) -> Option<usize> {
    (files.iter().position(|(n, _)| n == path))
        .or_else(|| files.iter().position(|(n, _)| last(n) == last(path)))
        .or_else(|| files.iter().position(|(n, _)| stem(n) == stem(path)))
}

/// Resolves every import: which file and function it names, and the names each file's calls
/// may use. Problems (a file not in the program, a function the file does not define, a
/// local name given twice) are reported at the import.
pub(super) fn link(files: &[(String, Span)], imports: &[ImportAst], funcs: &[FuncAst], diags: &mut Diagnostics) -> Names {
    let idents = file_idents(files);
    let mut defined: Vec<HashMap<&str, Span>> = vec![HashMap::new(); files.len()];
    for f in funcs {
        if let Some(d) = defined.get_mut(f.file) {
            if d.contains_key(f.name.as_str()) {
                diags.error(f.name_span, format!("duplicate function `@{}`", f.name));
            } else {
                d.insert(f.name.as_str(), f.name_span);
            }
        }
    }
    let mut scope: Vec<HashMap<String, String>> = (0..files.len())
        .map(|k| defined[k].keys().map(|n| (n.to_string(), linked(&idents, k, n))).collect())
        .collect();
    for imp in imports {
        let Some(target) = find_file(files, &imp.path) else {
            let known: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
            diags.error(
                imp.path_span,
                format!(
                    "`{}` is not a file of this program (it has {}): add it after a `// file: {}` line, \
                     or name it on the command line",
                    imp.path,
                    known.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                    imp.path
                ),
            );
            continue;
        };
        for name in &imp.names {
            if !defined[target].contains_key(name.name.as_str()) {
                diags.error(name.span, format!("`{}` defines no function `@{}`", files[target].0, name.name));
                continue;
            }
            let (local, span) = name.alias.as_ref().map_or((&name.name, name.span), |(a, s)| (a, *s));
            let to = linked(&idents, target, &name.name);
            let here = &mut scope[imp.file];
            match here.get(local.as_str()) {
                Some(existing) if *existing == to => {}
                Some(_) => {
                    diags.error(span, format!("`@{local}` is already a function of `{}`: import it under another name (`as @…`)", files[imp.file].0));
                }
                None => {
                    here.insert(local.clone(), to);
                }
            }
        }
    }
    Names { idents, scope }
}

/// Unique identifiers for the files (two `lib.bril` in different folders get `_2`).
fn file_idents(files: &[(String, Span)]) -> Vec<String> {
    let mut idents: Vec<String> = Vec::with_capacity(files.len());
    for (k, (name, _)) in files.iter().enumerate() {
        let base = ident_of(name, k);
        let mut id = base.clone();
        let mut n = 2;
        while idents.contains(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        idents.push(id);
    }
    idents
}
