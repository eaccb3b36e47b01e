//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared` beside the repository (or `$OPTLAB_SHARED`). `None`, with a printed notice,
/// when it is absent: the conformance suites then skip, as the developers' guide allows.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("OPTLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    if dir.join("corpus").is_dir() {
        Some(dir)
    } else {
        eprintln!("NOTICE: {} not found; skipping the conformance suite that needs it", dir.display());
        None
    }
}

/// All files under `dir` (recursively) with extension `ext`, sorted.
pub fn files_with_ext(dir: &std::path::Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The naive oracle's reachability: nodes of `succ` reachable from `from` without ever
/// entering `avoid` (dominance by definition: `a` dominates `b` iff removing `a` cuts `b` off).
pub fn reach_avoiding(succ: &[Vec<usize>], from: &[usize], avoid: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    let mut stack: Vec<usize> = Vec::new();
    for &s in from {
        if Some(s) != avoid && !seen[s] {
            seen[s] = true;
            stack.push(s);
        }
    }
    while let Some(v) = stack.pop() {
        for &w in &succ[v] {
            if Some(w) != avoid && !seen[w] {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    seen
}
