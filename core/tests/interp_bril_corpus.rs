//! Conformance of the Bril interpreter with the reference interpreter on Bril's benchmark
//! suite: every benchmark with a `.out` file must print exactly that, and its dynamic
//! instruction count must equal the `total_dyn_inst` of its `.prof` file (`brili -p`).
//! Arguments come from the benchmark's `# ARGS:` line, as Bril's test runner passes them.

mod common;

use optlab_core::interp::{bril, RunConfig};
use optlab_core::{parse_module, Lang};
use std::path::Path;
use std::time::Instant;

/// Benchmarks that cannot match, each with its reason. The test asserts the failures are
/// exactly these, so a fix shows up as well as a regression.
const EXCLUDED: &[(&str, &str)] = &[];

#[test]
fn every_benchmark_matches_brili() {
    let Some(shared) = common::shared_dir() else { return };
    let root = shared.join("corpus/bril/benchmarks");
    let start = Instant::now();
    let mut passed = 0;
    let mut failures: Vec<(String, String)> = Vec::new();
    let files = common::files_with_ext(&root, "bril");
    let mut slowest = (0.0f64, String::new());
    for path in &files {
        let out_path = path.with_extension("out");
        let Ok(expected) = std::fs::read_to_string(&out_path) else { continue };
        let rel = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        let t = Instant::now();
        match check(path, &expected) {
            Ok(()) => passed += 1,
            Err(why) => failures.push((rel.clone(), why)),
        }
        let secs = t.elapsed().as_secs_f64();
        if secs > slowest.0 {
            slowest = (secs, rel);
        }
    }
    let total = passed + failures.len();
    println!(
        "bril corpus: {passed}/{total} benchmarks match brili (output and dynamic count) in {:.2}s; slowest {} ({:.2}s)",
        start.elapsed().as_secs_f64(),
        slowest.1,
        slowest.0
    );
    for (name, why) in &failures {
        println!("  FAIL {name}: {why}");
    }
    let mut got: Vec<&str> = failures.iter().map(|(n, _)| n.as_str()).collect();
    let mut want: Vec<&str> = EXCLUDED.iter().map(|(n, _)| *n).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "the failing benchmarks are not exactly the documented exclusions");
    assert!(total > 100, "expected the whole suite, found {total} benchmarks with .out files");
}

fn check(path: &Path, expected: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path.display().to_string();
    let module = parse_module(Lang::Bril, &name, &text).map_err(|d| format!("parse error: {}", d.render(&optlab_core::SourceFile::new(name.clone(), text.clone()))))?;
    let cfg = RunConfig::with_args(bril::args_from_source(&text));
    let r = bril::run(&module, &cfg);
    if let Some(e) = &r.error {
        return Err(format!("error: {}", r.render_error(&module.source).unwrap_or_else(|| e.to_string())));
    }
    if r.stdout != expected {
        let diff = r.stdout.lines().zip(expected.lines()).position(|(a, b)| a != b);
        return Err(format!(
            "output differs (first differing line {:?}; got {} lines, want {})",
            diff.map(|i| (i + 1, r.stdout.lines().nth(i), expected.lines().nth(i))),
            r.stdout.lines().count(),
            expected.lines().count()
        ));
    }
    let prof = std::fs::read_to_string(path.with_extension("prof")).map_err(|e| format!("no .prof: {e}"))?;
    let want: u64 = prof
        .lines()
        .find_map(|l| l.trim().strip_prefix("total_dyn_inst:"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or("no total_dyn_inst in .prof")?;
    if r.dyn_inst != want {
        return Err(format!("dynamic count {} but brili counts {want}", r.dyn_inst));
    }
    Ok(())
}
