//! Conformance of AddressLowering with Swift's own test, `address_lowering.sil`: every
//! function is lowered, printed the way `sil-opt -emit-sorted-sil` prints it (renumbered),
//! and checked by LLVM's real FileCheck against that function's own `// CHECK` lines.
//!
//! Each lowered function must also pass `verify_lowered`. Functions expected to fail would
//! be listed below with the reason — an instruction the lab does not lower yet, or a known
//! difference in the output (none is, now) — so a new pass or a regression both show up as
//! a failure of this test, and at least [`FLOOR`] functions must pass. The tally is printed
//! (`address_lowering.sil: N of 66 functions pass`); the test command prints it too.

mod common;

use common::filecheck::{check_groups, filecheck, run_filecheck, temp};
use optlab_core::ir::{Lang, Module};
use optlab_core::print::{print_function, Naming};
use optlab_core::sil::lowering::{lower_module, verify_lowered};
use optlab_core::sil::types::{env_of, FunctionTypes};

/// The fewest functions that must pass: a regression fails the test even if the list
/// below were edited to match it.
const FLOOR: usize = 66;

/// Functions expected to fail, with why.
const EXPECTED_FAILING: &[(&str, &str)] = &[];

fn load(text: &str) -> Module {
    optlab_core::parse_module(Lang::Sil, "address_lowering.sil", text).expect("address_lowering.sil parses")
}

#[test]
fn address_lowering_sil_passes_filecheck_per_function() {
    filecheck();
    let Some(shared) = common::shared_dir() else { return };
    let text = std::fs::read_to_string(shared.join("corpus/swift/address_lowering.sil")).expect("read address_lowering.sil");
    let m = load(&text);
    let (out, report) = lower_module(&m);
    let groups = check_groups(&text);
    let mut failures: Vec<(String, String)> = Vec::new();
    for (k, (name, lines)) in groups.iter().enumerate() {
        if let Some((_, Err(r))) = report.iter().find(|(n, _)| n == name) {
            failures.push((name.clone(), format!("not lowered: {}", r.message.lines().next().unwrap_or(""))));
            continue;
        }
        let Some(f) = out.function(name) else {
            failures.push((name.clone(), "no such function in the output".into()));
            continue;
        };
        // What FileCheck does not see: the lowered function is well formed and lowered.
        let problems = verify_lowered(f, &FunctionTypes::new(f, env_of(&out)));
        if let Some(p) = problems.first() {
            failures.push((name.clone(), format!("does not verify: {p}")));
            continue;
        }
        let tag = format!("address_lowering-{k}-{name}");
        let check_path = temp(&format!("{tag}.checks"));
        // A group that uses a variable the previous group defines (`[[PAIR_ADDR]]`) is
        // checked after that group, on both functions' output, as the whole-file run does.
        let uses_earlier = k > 0 && {
            let defined = |ls: &[String], v: &str| ls.iter().any(|l| l.contains(&format!("[[{v}:")));
            lines.iter().flat_map(|l| l.match_indices("[[").map(move |(i, _)| &l[i + 2..])).any(|rest| {
                let v: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                !v.is_empty() && !rest[v.len()..].starts_with(':') && !defined(lines, &v) && defined(&groups[k - 1].1, &v)
            })
        };
        let (check_lines, prefix) = if uses_earlier {
            let prev = &groups[k - 1];
            let printed_prev = out.function(&prev.0).map(|g| print_function(g, Naming::Renumber)).unwrap_or_default();
            (prev.1.iter().chain(lines.iter()).cloned().collect::<Vec<_>>(), printed_prev + "\n")
        } else {
            (lines.clone(), String::new())
        };
        std::fs::write(&check_path, check_lines.join("\n") + "\n").expect("write checks");
        // A function whose checks are plain `CHECK: sil … @g` lines (no label of its own)
        // is checked inside the previous function's group: print it there too.
        let mut printed = prefix + &print_function(f, Naming::Renumber);
        for l in lines.iter().filter(|l| l.contains("// CHECK: sil ")) {
            let Some(at) = l.find(" @") else { continue };
            let g: String = l[at + 2..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if let Some(gf) = out.function(&g) {
                printed.push('\n');
                printed.push_str(&print_function(gf, Naming::Renumber));
            }
        }
        if let Err(msg) = run_filecheck(&check_path, &printed, &tag) {
            // `…checks:4:11: error: CHECK: expected string not found in input` then the line.
            let mut lines = msg.lines();
            let err = lines.find(|l| l.contains("error:")).unwrap_or("");
            let what = err.split("error: ").nth(1).unwrap_or(err);
            let check = lines.next().unwrap_or("").trim();
            failures.push((name.clone(), format!("FileCheck: {what}: `{check}`")));
            if std::env::var_os("SHOW").is_some_and(|s| s == name.as_str()) {
                eprintln!("{msg}\n{printed}");
            }
        }
    }
    let checked = groups.len();
    let passed = checked - failures.len();
    eprintln!("address_lowering.sil: {passed} of {checked} functions pass FileCheck");
    for (n, why) in &failures {
        let expected = EXPECTED_FAILING.iter().find(|(e, _)| e == n).map_or("UNEXPECTED", |(_, w)| w);
        eprintln!("  {n}: {why}\n      expected: {expected}");
    }
    for (name, why) in EXPECTED_FAILING {
        assert!(failures.iter().any(|(n, _)| n == name), "`{name}` is listed as failing ({why}) but passes: update the list");
    }
    assert!(passed >= FLOOR, "only {passed} of {checked} functions pass; at least {FLOOR} did");
    let unexpected: Vec<&str> = failures.iter().map(|(n, _)| n.as_str()).filter(|n| !EXPECTED_FAILING.iter().any(|(e, _)| e == n)).collect();
    assert!(unexpected.is_empty(), "unexpected failures: {unexpected:?}");
}
