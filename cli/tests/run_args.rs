//! `optlab run FILE ARGS` and `optlab run FILE -- ARGS` pass every Bril benchmark's `# ARGS:`
//! line through clap unchanged — three of them take negative numbers, which clap read as
//! unknown options (`unexpected argument '-5'`) — and the program prints its `.out` file.

mod common;

use common::optlab;
use std::path::{Path, PathBuf};

fn benchmarks() -> Option<Vec<(PathBuf, Vec<String>)>> {
    let dir = std::env::var_os("OPTLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
        .join("corpus/bril/benchmarks");
    if !dir.is_dir() {
        eprintln!("NOTICE: {} not found; skipping", dir.display());
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "bril") {
                let text = std::fs::read_to_string(&p).ok()?;
                let args = optlab_core::interp::bril::args_from_source(&text);
                if !args.is_empty() && p.with_extension("out").is_file() {
                    out.push((p, args));
                }
            }
        }
    }
    out.sort();
    Some(out)
}

#[test]
fn every_benchmark_args_line_runs_with_and_without_the_separator() {
    let Some(all) = benchmarks() else { return };
    assert!(all.len() > 50, "expected the whole suite, found {}", all.len());
    let negative = all.iter().filter(|(_, a)| a.iter().any(|x| x.starts_with('-'))).count();
    assert!(negative >= 3, "the suite's benchmarks with negative arguments are missing ({negative})");
    let mut failures = Vec::new();
    for (path, args) in &all {
        let expected = std::fs::read_to_string(path.with_extension("out")).unwrap_or_default();
        let file = path.to_string_lossy();
        let plain: Vec<&str> = ["run", &file].into_iter().chain(args.iter().map(String::as_str)).collect();
        let dashed: Vec<&str> = ["run", &file, "--"].into_iter().chain(args.iter().map(String::as_str)).collect();
        for argv in [plain, dashed] {
            let o = optlab(&argv, None);
            let out = String::from_utf8_lossy(&o.stdout);
            if !o.status.success() || out != expected {
                let err = String::from_utf8_lossy(&o.stderr);
                failures.push(format!("{}: {}", argv.join(" "), err.lines().next().unwrap_or("wrong output")));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} runs failed:\n{}", failures.len(), 2 * all.len(), failures.join("\n"));
}

/// Options still work after the arguments, and a mistyped option is still an error, not a
/// program argument.
#[test]
fn options_after_negative_arguments_stay_options() {
    let src = "@main(a: int, b: int) {\n  s: int = add a b;\n  print s;\n}\n";
    let dir = std::env::temp_dir().join(format!("optlab-run-args-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("add.bril");
    std::fs::write(&p, src).unwrap();
    let p = p.to_string_lossy().to_string();
    let o = optlab(&["run", &p, "-5", "-7", "--profile"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "-12\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("total_dyn_inst: 2"));
    let o = optlab(&["run", &p, "-5", "-profile"], None);
    assert_eq!(o.status.code(), Some(2), "clap's usage error");
    let _ = std::fs::remove_dir_all(&dir);
}
