//! No import circles between the source files of a crate.
//!
//! A cycle (file A uses something of B and B of A) means neither can be read, tested or
//! moved without the other; the shared piece belongs in a module both depend on. This test
//! reads the sources of `core/src` (and of `web/src`, which it can reach from here) and fails
//! if their file-level dependency graph has a cycle.
//!
//! The rule, at file granularity:
//! - A file's module path is its path under `src/` (`dom/cdg.rs` is `dom::cdg`; `mod.rs`,
//!   `lib.rs` and `main.rs` stand for their directory).
//! - Every `use crate::…`, `use super::…` and `use self::…` item (braces expanded), and
//!   every path written in code as `crate::a::b` or `super::x`, is an edge to the file of the
//!   longest prefix of the path that is a module. An item re-exported by a `mod.rs` is an edge
//!   to that `mod.rs`, not to the file defining it.
//! - Edges from a module to its own descendants are ignored: a parent declares its children
//!   and re-exports them, which would make every child's `use super::X` a trivial cycle. An
//!   edge from a child up to its parent counts.
//! - Test code does not count: files named `tests.rs`, `#[cfg(test)] mod … { … }` blocks
//!   (rustfmt puts their closing `}` alone in column 0) and items right after `#[cfg(test)]`.
//! - Lines that are comments (`//`, `///`, `//!`) are skipped, so intra-doc links are not
//!   dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The one known cycle in the web app (the UI state, the analysed program and the views
/// refer to each other). Another branch is taking it apart; this entry goes with it.
const WEB_ALLOWED: &[&[&str]] = &[];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p.strip_prefix(root).map(Path::to_path_buf).unwrap_or(p));
        }
    }
}

/// `dom/cdg.rs` → `["dom", "cdg"]`; `dom/mod.rs` → `["dom"]`; `lib.rs` → `[]`.
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib" || l == "main") {
        parts.pop();
    }
    parts
}

/// The source without test code and comment lines.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if t == "#[cfg(test)]" {
            let next = lines.get(i + 1).map_or("", |l| *l);
            let is_block = next.starts_with("mod ") || next.starts_with("pub mod ") || next.starts_with("pub(crate) mod ");
            if is_block && next.trim_end().ends_with('{') {
                i += 2;
                while i < lines.len() && lines[i] != "}" {
                    i += 1;
                }
            } else {
                i += 1;
            }
            i += 1;
            continue;
        }
        if !t.starts_with("//") {
            out.push(lines[i]);
        }
        i += 1;
    }
    out.join("\n")
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e` (whitespace already removed).
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else { return vec![path.to_string()] };
    let (prefix, inner) = (&path[..open], path[open + 1..].strip_suffix('}').unwrap_or(&path[open + 1..]));
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).flat_map(|p| expand(&format!("{prefix}{p}"))).collect()
}

/// Every `crate::`/`super::`/`self::` path the code names: `use` items and paths in code.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    // `use` items, possibly spanning lines.
    let mut without_uses = String::new();
    while let Some(k) = find_use(rest) {
        without_uses.push_str(&rest[..k]);
        let after = &rest[k..];
        let end = after.find(';').map_or(after.len(), |e| e + 1);
        let item: String = after[..end].chars().filter(|c| !c.is_whitespace()).collect();
        let body = item.trim_start_matches("use").trim_end_matches(';');
        out.extend(expand(body));
        rest = &after[end..];
    }
    without_uses.push_str(rest);
    // Paths in code: `crate::x::y`, `super::super::z`.
    let bytes = without_uses.as_bytes();
    for start in ["crate::", "super::"].iter().flat_map(|w| without_uses.match_indices(w).map(|(i, _)| i)) {
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || matches!(bytes[start - 1], b'_' | b':')) {
            continue;
        }
        let tail = &without_uses[start..];
        let n = tail.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(tail.len());
        out.push(tail[..n].trim_end_matches(':').to_string());
    }
    out
}

/// The byte offset of the next `use` item (`use`, `pub use`, `pub(crate) use` at a line start).
fn find_use(s: &str) -> Option<usize> {
    let mut at = 0;
    for line in s.split_inclusive('\n') {
        let t = line.trim_start();
        let body = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub(super) ")).or_else(|| t.strip_prefix("pub ")).unwrap_or(t);
        if body.starts_with("use ") {
            return Some(at + (line.len() - t.len()) + (t.len() - body.len()));
        }
        at += line.len();
    }
    None
}

/// The file-level dependency graph of the crate whose sources are under `root`.
fn graph(root: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(root, root, &mut files);
    let files: Vec<String> = files.iter().map(|p| p.to_string_lossy().replace('\\', "/")).collect();
    let modules: BTreeMap<Vec<String>, String> = files.iter().map(|f| (module_path(f), f.clone())).collect();
    let mut g = Graph::new();
    for file in &files {
        let edges = g.entry(file.clone()).or_default();
        if file.ends_with("/tests.rs") || file == "tests.rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(file)) else { continue };
        let me = module_path(file);
        for p in paths(&code_of(&text)) {
            let mut segs = p.split("::").filter(|s| !s.is_empty()).peekable();
            let mut path: Vec<String> = match segs.peek().copied() {
                Some("crate") => {
                    segs.next();
                    Vec::new()
                }
                Some("super" | "self") => me.clone(),
                _ => continue,
            };
            while let Some(&s) = segs.peek() {
                match s {
                    "super" => path.truncate(path.len().saturating_sub(1)),
                    "self" => {}
                    _ => break,
                }
                segs.next();
            }
            path.extend(segs.map(str::to_string));
            let Some(target) = (0..=path.len()).rev().find_map(|k| modules.get(&path[..k])) else { continue };
            let tm = module_path(target);
            let descendant = tm.len() > me.len() && tm[..me.len()] == me[..];
            if target != file && !descendant && !target.ends_with("tests.rs") {
                edges.insert(target.clone());
            }
        }
    }
    g
}

/// The strongly connected components with more than one file (Tarjan's algorithm).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct St<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn src(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn describe(g: &Graph, comp: &[String]) -> String {
    comp.iter()
        .map(|f| {
            let to: Vec<&str> = g[f].iter().filter(|t| comp.contains(t)).map(String::as_str).collect();
            format!("  {f} → {}", to.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn core_has_no_import_cycles() {
    let g = graph(&src("src"));
    assert!(g.len() > 50, "read the sources ({} files)", g.len());
    let found = cycles(&g);
    let text: Vec<String> = found.iter().map(|c| describe(&g, c)).collect();
    assert!(found.is_empty(), "import cycles in core/src:\n{}", text.join("\n\n"));
}

#[test]
fn web_has_no_import_cycles_but_the_known_one() {
    let root = src("../web/src");
    if !root.is_dir() {
        return; // core alone (a published crate) has no web app beside it
    }
    let g = graph(&root);
    let found: Vec<Vec<String>> = cycles(&g)
        .into_iter()
        .filter(|c| !WEB_ALLOWED.iter().any(|a| a.iter().copied().eq(c.iter().map(String::as_str))))
        .collect();
    let text: Vec<String> = found.iter().map(|c| describe(&g, c)).collect();
    assert!(found.is_empty(), "import cycles in web/src:\n{}", text.join("\n\n"));
}

#[test]
fn the_checker_finds_a_cycle_and_follows_the_rules() {
    let dir = std::env::temp_dir().join(format!("optlab-cycles-{}", std::process::id()));
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("temp dir");
        std::fs::write(p, text).expect("temp file");
    };
    write("lib.rs", "pub mod a;\npub mod p;\nuse crate::a::A;\n");
    write("a.rs", "use crate::{b::B, p::q::Q};\npub struct A;\n");
    write("b.rs", "pub struct B(crate::a::A);\n");
    // A parent using its child, and the child using the parent: not a cycle by the rule.
    write("p/mod.rs", "mod q;\npub use q::Q;\npub struct P;\n");
    write("p/q.rs", "use super::P;\npub struct Q;\n// crate::a::A in a comment is no edge\n");
    // Test code does not count.
    write("p/r.rs", "pub fn r() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n");
    write("p/tests.rs", "use crate::a::A;\n");
    let g = graph(&dir);
    let c = cycles(&g);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(c, vec![vec!["a.rs".to_string(), "b.rs".to_string()]], "{g:?}");
    assert!(g["p/q.rs"].contains("p/mod.rs") && !g["p/mod.rs"].contains("p/q.rs"));
    assert!(g["a.rs"].contains("p/q.rs"), "a re-export-free path reaches the defining file");
    assert!(g["p/r.rs"].is_empty() && g["p/tests.rs"].is_empty());
}
