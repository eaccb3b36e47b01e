//! Golden files for AddressLowering and copy elimination on the opaque-values proposal's
//! own examples (the gallery's `identity.sil`, `witness_thunk.sil`, `redundant_copy.sil`):
//! for each function, the three steps (storage per opaque value, the stack slots, every
//! rewritten line) and the lowered function; for the copy example also copy elimination's
//! facts and the function after copy elimination and lowering.
//! `UPDATE_GOLDEN=1 cargo test -p optlab-core --test lowering_golden` rewrites them — check
//! the diff by hand before keeping it.

use optlab_core::passes::{self, address_lowering, Analyses, Options, Outcome};
use optlab_core::print::{print_function, Naming};
use optlab_core::sil::lowering::{copyelim, lower};
use optlab_core::sil::types::{env_of, FunctionTypes};
use optlab_core::{parse_module, Lang};
use std::fmt::Write;
use std::path::{Path, PathBuf};

fn example(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../static/examples").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn golden_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/lowering").join(file)
}

fn golden(file: &str, actual: &str) {
    let path = golden_path(file);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", path.display()));
    assert!(expected == actual, "{file} differs from the golden file:\n--- expected\n{expected}\n--- actual\n{actual}");
}

/// The lowering of every function with a body, as the steps view shows it.
fn lowering_report(name: &str) -> String {
    let text = example(name);
    let m = parse_module(Lang::Sil, name, &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    let env = env_of(&m);
    let mut out = String::new();
    for f in m.functions.iter().filter(|f| !f.is_declaration()) {
        let _ = writeln!(out, "=== @{}", f.name);
        let ft = FunctionTypes::new(f, env.clone());
        match lower(f, &ft, &env.decls) {
            Err(r) => {
                let _ = writeln!(out, "not lowered: {}\n", r.message);
            }
            Ok(l) => {
                let _ = writeln!(out, "-- step 1 and 2: storage");
                for v in &l.values {
                    let _ = writeln!(out, "{} : ${} ({}) → {} — {}", v.name, v.ty, v.def, v.storage.kind(), v.why);
                }
                for s in &l.stacks {
                    let _ = writeln!(out, "stack {} : {} holds {}", s.name, s.ty, s.values.join(", "));
                }
                let _ = writeln!(out, "-- step 3: rewrites");
                for r in &l.rewrites {
                    if r.after.len() == 1 && r.after[0] == r.before {
                        continue;
                    }
                    let _ = writeln!(out, "{}: {}  →  {}   ({})", r.block, r.before, if r.after.is_empty() { "(nothing)".into() } else { r.after.join(" ; ") }, r.why);
                }
                let _ = writeln!(out, "-- lowered");
                out.push_str(&print_function(&l.function, Naming::User));
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn identity_before_and_after() {
    golden("identity.txt", &lowering_report("identity.sil"));
}

#[test]
fn witness_thunk() {
    golden("witness_thunk.txt", &lowering_report("witness_thunk.sil"));
}

/// A candidate's precondition and three facts, one line each.
fn facts(out: &mut String, c: &copyelim::Candidate) {
    let word = |holds: bool| if holds { "holds" } else { "FAILS" };
    let _ = writeln!(out, "  precondition {}: {}", word(c.single_consumer.holds), c.single_consumer.text);
    for (k, x) in c.facts.iter().enumerate() {
        let _ = writeln!(out, "  fact {} {}: {}", k + 1, word(x.holds), x.text);
    }
}

#[test]
fn redundant_copy_is_removed_with_its_three_facts_and_a_needed_one_is_kept() {
    let name = "redundant_copy.sil";
    let text = example(name);
    let m = parse_module(Lang::Sil, name, &text).unwrap();
    let env = env_of(&m);
    let mut out = lowering_report(name);
    for f in m.functions.iter().filter(|f| !f.is_declaration()) {
        let ft = FunctionTypes::new(f, env.clone());
        let r = copyelim::run(f, &ft);
        let _ = writeln!(out, "=== copy elimination on @{}", f.name);
        for c in &r.candidates {
            let _ = writeln!(out, "{} = copy_value {}: {}", f.value_in_code(c.value), f.value_in_code(c.source), if c.eliminated { "removed" } else { "kept" });
            facts(&mut out, c);
        }
        out.push_str(&print_function(&r.function, Naming::User));
        out.push('\n');
        // Copy elimination, then AddressLowering: the pipeline the proposal describes.
        let a = Analyses::with_types(&r.function, env.clone());
        let run = passes::run(&address_lowering::ADDRESS_LOWERING_PASS, &r.function, &a, &Options::default());
        assert_eq!(run.outcome, Outcome::Ran, "{}", run.summary());
        let _ = writeln!(out, "--- then lowered\n{}", print_function(&run.function, Naming::User));
        // The other order: lowered first, the copy is a copy_addr into a temporary.
        let l = lower(f, &ft, &env.decls).expect("lowers");
        let lft = FunctionTypes::new(&l.function, env.clone());
        let r2 = copyelim::run(&l.function, &lft);
        let _ = writeln!(out, "=== copy elimination on the lowered @{}", f.name);
        for c in &r2.candidates {
            let _ = writeln!(out, "copy_addr {} → {}: {}", l.function.value_in_code(c.source), l.function.value_in_code(c.value), if c.eliminated { "removed" } else { "kept" });
            facts(&mut out, c);
        }
        out.push_str(&print_function(&r2.function, Naming::User));
        out.push('\n');
        optlab_core::ir::verify(&r2.function).unwrap_or_else(|e| panic!("{e:?}"));
    }
    golden("redundant_copy.txt", &out);
    // What the proposal says: the copy goes in the first function, stays in the second.
    assert!(out.contains("%copy = copy_value %arg: removed"));
    assert!(out.matches("kept").count() >= 2);
    assert!(out.contains("copy_addr %arg → %copy_addr: removed"), "the address form of the copy is removed too");
}
