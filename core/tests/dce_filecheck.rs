//! Conformance of ADCE with Swift's own tests: the pass runs on every function of
//! `dead_code_elimination*.sil`, the output is printed the way `sil-opt` prints it
//! (renumbered), and LLVM's real FileCheck checks it against the file's own `// CHECK` lines.
//!
//! - `dead_code_elimination.sil`: the whole file at once, exactly like Swift's RUN line.
//! - `dead_code_elimination_ossa.sil`: per function (the check lines from one function's
//!   `CHECK-LABEL: … @name` up to the next function's), so a failure names its function; the
//!   whole file is checked at once too.
//! - `dead_code_elimination_nontrivial_ossa.sil`: per function, with the functions that need
//!   OSSA repairs this pass does not make listed below with the reason.
//!
//! FileCheck comes from Debian's `llvm-15-tools` (the setup script installs it); `FILECHECK`
//! overrides the path. Without it these tests fail — they never skip silently. Without
//! `../shared` (the corpus) they skip with a notice, like the other corpus suites.

use optlab_core::ir::{Lang, Module};
use optlab_core::passes::dce;
use optlab_core::print::{print_function, print_module, Naming};
use std::path::{Path, PathBuf};

/// OSSA functions of `dead_code_elimination_ossa.sil` expected to fail, with the reason.
const OSSA_FAILING: &[(&str, &str)] = &[];

/// Functions of `dead_code_elimination_nontrivial_ossa.sil` expected to fail, with the reason.
const NONTRIVIAL_FAILING: &[(&str, &str)] = &[
    (
        "dce_borrowlifetime1",
        "a live reborrow phi keeps its base value's phi alive (Swift's guaranteedPhiDependencies); not modelled",
    ),
    (
        "dce_reborrow_with_different_basevalues",
        "reborrows with different base values per edge (guaranteedPhiDependencies); not modelled",
    ),
    ("borrow_none", "nested borrow scopes kept by Swift's processBorrow; not modelled"),
    ("reborrowed_begin_borrow", "outer borrow scopes of a reborrowed nested borrow (processBorrow); not modelled"),
    ("reborrowed_guaranteed_phi", "guaranteed phi of a reborrow keeps its base (processBorrow); not modelled"),
    ("reborrow_guaranteed_phi2", "nested borrow of a switch_enum payload (processBorrow); not modelled"),
    ("reborrow_load_borrow", "nested borrow of a load_borrow that is reborrowed (processBorrow); not modelled"),
    ("reborrow_load_borrow2", "nested borrow of a load_borrow that is reborrowed (processBorrow); not modelled"),
    ("borrow_guaranteed_tuple", "guaranteed forwarding phis of borrowed aggregates (processBorrow); not modelled"),
    ("borrow_guaranteed_struct", "guaranteed forwarding phis of borrowed aggregates (processBorrow); not modelled"),
];

mod common;

use common::filecheck::{check_groups, filecheck, run_filecheck, temp};

/// `../shared`, or `None` (with a notice) when it is absent: the suite then skips, as the
/// developers' guide allows. FileCheck missing is a failure, never a skip.
fn shared() -> Option<PathBuf> {
    common::shared_dir()
}

fn load(shared: &Path, name: &str) -> (String, PathBuf, Module) {
    let path = shared.join("corpus/swift").join(name);
    let text = std::fs::read_to_string(&path).expect("read corpus file");
    let m = optlab_core::parse_module(Lang::Sil, name, &text)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.render(&optlab_core::SourceFile::new(name, text.clone()))));
    (text, path, m)
}

/// Every function's output is verified and equals the replay of its trace.
fn check_pass_invariants(m: &Module, r: &dce::ModuleResult) {
    for (f, res) in m.functions.iter().zip(&r.results) {
        assert!(res.trace.skipped.is_none(), "{}: {:?}", f.name, res.trace.skipped);
        optlab_core::ir::verify(&res.function).unwrap_or_else(|e| panic!("{}: output does not verify: {e:?}", f.name));
        let replayed = dce::try_replay(f, &res.trace).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert_eq!(replayed.without_spans(), res.function.without_spans(), "{}: replay differs", f.name);
    }
}

/// Checks each function against its own check lines; returns the failures with FileCheck's
/// first lines.
fn per_function(shared: &Path, file: &str) -> (usize, Vec<(String, String)>) {
    let (text, _, m) = load(shared, file);
    let r = dce::run_module(&m);
    check_pass_invariants(&m, &r);
    let mut failures = Vec::new();
    let groups = check_groups(&text);
    for (k, (name, lines)) in groups.iter().enumerate() {
        let Some(f) = r.module.function(name) else {
            failures.push((name.clone(), "no such function in the output".to_string()));
            continue;
        };
        let tag = format!("{}-{k}-{name}", file.trim_end_matches(".sil"));
        let check_path = temp(&format!("{tag}.checks"));
        std::fs::write(&check_path, lines.join("\n") + "\n").expect("write checks");
        if let Err(msg) = run_filecheck(&check_path, &print_function(f, Naming::Renumber), &tag) {
            failures.push((name.clone(), msg.lines().take(3).collect::<Vec<_>>().join("\n")));
        }
    }
    (groups.len(), failures)
}

fn assert_expected_failures(file: &str, expected: &[(&str, &str)]) {
    filecheck();
    let Some(shared) = shared() else { return };
    let (checked, failures) = per_function(&shared, file);
    let failed: Vec<&str> = failures.iter().map(|(n, _)| n.as_str()).collect();
    let mut report = String::new();
    for (n, msg) in &failures {
        report.push_str(&format!("--- {n}\n{msg}\n"));
    }
    eprintln!("{file}: {} of {checked} functions pass", checked - failures.len());
    for (name, why) in expected {
        assert!(failed.contains(name), "{file}: `{name}` is listed as failing ({why}) but passes: update the list");
    }
    let unexpected: Vec<&&str> = failed.iter().filter(|n| !expected.iter().any(|(e, _)| e == *n)).collect();
    assert!(unexpected.is_empty(), "{file}: unexpected FileCheck failures {unexpected:?}:\n{report}");
}

#[test]
fn dead_code_elimination_sil_passes_filecheck_as_a_whole() {
    filecheck();
    let Some(shared) = shared() else { return };
    let (_, path, m) = load(&shared, "dead_code_elimination.sil");
    let r = dce::run_module(&m);
    check_pass_invariants(&m, &r);
    let out = print_module(&r.module, Naming::Renumber);
    if let Err(msg) = run_filecheck(&path, &out, "dead_code_elimination") {
        panic!("FileCheck failed on dead_code_elimination.sil:\n{msg}\n--- output:\n{out}");
    }
}

#[test]
fn dead_code_elimination_ossa_sil_passes_filecheck_per_function() {
    assert_expected_failures("dead_code_elimination_ossa.sil", OSSA_FAILING);
}

#[test]
fn dead_code_elimination_ossa_sil_passes_filecheck_as_a_whole() {
    filecheck();
    let Some(shared) = shared() else { return };
    let (_, path, m) = load(&shared, "dead_code_elimination_ossa.sil");
    let r = dce::run_module(&m);
    let out = print_module(&r.module, Naming::Renumber);
    if let Err(msg) = run_filecheck(&path, &out, "dead_code_elimination_ossa") {
        panic!("FileCheck failed on dead_code_elimination_ossa.sil:\n{msg}");
    }
}

#[test]
fn dead_code_elimination_nontrivial_ossa_sil_per_function() {
    assert_expected_failures("dead_code_elimination_nontrivial_ossa.sil", NONTRIVIAL_FAILING);
}

#[test]
fn check_groups_split_at_function_labels() {
    let text = "// CHECK-LABEL: sil [ossa] @f :\n// CHECK: bb0\n// CHECK-LABEL: } // end sil function 'f'\n\
                // CHECK-LABEL: @g : $@convention(thin) () -> () {\n// CHECK: x\n";
    let g = check_groups(text);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].0, "f");
    assert_eq!(g[0].1.len(), 3);
    assert_eq!(g[1].0, "g");
}
