//! The harness catches what it claims to: a panic, an allocation past the memory cap, a
//! stack overflow, a slow input and one past the hard time limit each get their verdict, the
//! worker is replaced after each abort, and minimisation finds the one line that fails.

use std::process::Command;

#[test]
fn every_kind_of_failure_is_caught_and_counted() {
    let out = Command::new(env!("CARGO_BIN_EXE_optlab-fuzz")).arg("--selftest").output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for check in ["panic", "memory cap", "stack overflow", "slow input", "hard time limit", "clean input after"] {
        assert!(stdout.contains(&format!("selftest {check}: ok")), "{check}:\n{stdout}");
    }
}

#[test]
fn a_fixed_seed_gives_the_same_inputs() {
    let Some(corpus) = std::env::var_os("OPTLAB_SHARED")
        .map(std::path::PathBuf::from)
        .or_else(|| Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")))
        .map(|d| d.join("corpus"))
        .filter(|d| d.is_dir())
    else {
        eprintln!("NOTICE: no shared corpus; skipping");
        return;
    };
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_optlab-fuzz"))
            .args(["--seed", "7", "--count", "40", "--corpus"])
            .arg(&corpus)
            .args(["--out", std::env::temp_dir().join("optlab-fuzz-test").to_str().unwrap_or("/tmp")])
            .output()
            .expect("runs");
        let s = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(s.starts_with("fuzzed 40 inputs: 0 panics, 0 aborts, slowest "), "{s}");
        // The count of inputs that reached the passes depends only on the inputs.
        s.split([',', ';']).map(str::trim).find(|p| p.ends_with("reached the passes")).map(str::to_string)
    };
    let first = run();
    assert!(first.is_some());
    assert_eq!(first, run());
}
