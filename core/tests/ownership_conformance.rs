//! Conformance of the ownership verifier with Swift's own test
//! `../shared/corpus/swift/ownership-verifier/over_consume.sil` (SOURCES.md: Swift's
//! `test/SIL/OwnershipVerifier/over_consume.sil`). Its RUN line runs sil-opt with the textual
//! error dumper and FileChecks the report: per function a `CHECK-LABEL: Function: 'name'` and
//! `CHECK:` lines with the headline, the `Value:`, the user(s) and the block.
//!
//! The lab prints its findings the way that dumper does (with Swift's numbering, see
//! `ownership::Names::swift`) and this test matches the CHECK lines with a small FileCheck of
//! its own: within a function's report, each CHECK line must occur, in order, as a substring
//! after whitespace runs are collapsed (FileCheck's default). Every function with CHECK lines
//! must match (reported as "N of M functions"), which implies the same category of error for
//! the same value.
//!
//! The OSSA functions of Swift's DCE tests (which Swift verifies after DCE, and whose inputs are
//! valid OSSA) must verify silently.

mod common;

use optlab_core::ir::{Lang, Module};
use optlab_core::sil::ownership::{analyze, swift_dump, verify, Category, Verdict};
use optlab_core::sil::types::{env_of, FunctionTypes};
use optlab_core::SourceFile;
use std::collections::BTreeMap;

fn parse(name: &str, text: &str) -> Module {
    optlab_core::parse_module(Lang::Sil, name, text)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.render(&SourceFile::new(name, text))))
}

fn verdicts(m: &Module) -> Vec<(String, Verdict, String)> {
    let env = env_of(m);
    m.bodies()
        .map(|f| {
            let fo = analyze(f, &FunctionTypes::new(f, env.clone()));
            let v = verify(f, &fo);
            let dump = swift_dump(f, &v);
            (f.name.clone(), v, dump)
        })
        .collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `CHECK-LABEL: Function: 'f'` sections: function name → its `CHECK:` patterns in order.
fn check_lines(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        let l = line.trim_start().trim_start_matches("//").trim();
        if let Some(rest) = l.strip_prefix("CHECK-LABEL:") {
            let name = rest.trim().strip_prefix("Function: '").and_then(|r| r.strip_suffix('\'')).map(str::to_string);
            if let Some(n) = &name {
                out.entry(n.clone()).or_default();
            }
            cur = name;
        } else if let Some(rest) = l.strip_prefix("CHECK:") {
            if let Some(c) = &cur {
                out.entry(c.clone()).or_default().push(squash(rest));
            }
        }
    }
    out
}

/// FileCheck's in-order substring matching on whitespace-collapsed lines; the first pattern
/// that does not match, if any.
fn first_mismatch(report: &str, patterns: &[String]) -> Option<String> {
    let lines: Vec<String> = report.lines().map(squash).collect();
    let mut at = 0;
    for p in patterns {
        match lines[at..].iter().position(|l| l.contains(p.as_str())) {
            Some(k) => at += k + 1,
            None => return Some(p.clone()),
        }
    }
    None
}

#[test]
fn over_consume_matches_swifts_check_lines() {
    let Some(shared) = common::shared_dir() else { return };
    let path = shared.join("corpus/swift/ownership-verifier/over_consume.sil");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = parse("over_consume.sil", &text);
    let checks = check_lines(&text);
    let results = verdicts(&m);
    let mut passed = 0;
    let mut failures = Vec::new();
    for (name, patterns) in &checks {
        let Some((_, _, dump)) = results.iter().find(|(n, _, _)| n == name) else {
            failures.push(format!("@{name}: no such function"));
            continue;
        };
        match first_mismatch(dump, patterns) {
            None => passed += 1,
            Some(p) => failures.push(format!("@{name}: no line matches `{p}` in\n{dump}")),
        }
    }
    println!("over_consume.sil: {passed} of {} functions match Swift's CHECK lines", checks.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Functions without CHECK lines. `eliminate_copy_try_apple_callee` takes an `@owned`
    // argument and returns without consuming it. Swift's SILOwnershipVerifier.cpp
    // (`checkFunctionArgWithoutLifetimeEndingUses`) reports exactly this — "Owned function
    // parameter without life ending uses!" — unless the entry block is a dead end, and in the
    // testing mode the RUN line uses (`-sil-ownership-verifier-enable-testing`) it prints and
    // goes on; FileCheck does not mind, since no CHECK line is about this function (it is only
    // the callee of the last test).
    for (name, v, dump) in &results {
        if checks.contains_key(name) {
            continue;
        }
        println!("@{name} (no CHECK lines): {} finding(s)\n{dump}", v.findings.len());
        if name == "eliminate_copy_try_apple_callee" {
            let cats: Vec<Category> = v.findings.iter().map(|f| f.category).collect();
            assert_eq!(cats, vec![Category::OwnedParameterWithoutLifetimeEnd]);
        } else {
            panic!("@{name} has no CHECK lines and is not accounted for");
        }
    }
}

/// Swift runs its DCE tests with the verifier on (`-enable-sil-verify-all` is the default in
/// assert builds), so their OSSA inputs verify: the lab must be silent on them.
#[test]
fn swifts_dce_tests_verify_silently() {
    let Some(shared) = common::shared_dir() else { return };
    for file in ["dead_code_elimination_ossa.sil", "dead_code_elimination_nontrivial_ossa.sil"] {
        let text = std::fs::read_to_string(shared.join("corpus/swift").join(file)).unwrap();
        let m = parse(file, &text);
        let results = verdicts(&m);
        let checked = results.iter().filter(|(_, v, _)| v.checked).count();
        let mut noisy = Vec::new();
        for (name, v, dump) in &results {
            if !v.findings.is_empty() {
                noisy.push(format!("@{name}:\n{dump}"));
            }
        }
        println!("{file}: {checked} OSSA functions verified, {} with findings", noisy.len());
        assert!(noisy.is_empty(), "{file}:\n{}", noisy.join("\n"));
    }
}
