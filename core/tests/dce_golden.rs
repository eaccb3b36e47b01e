//! Golden files for ADCE: each input under `tests/golden/dce/` (the seed's `dead1` and
//! control-dependent examples, and a few more) and each of Bril's `tdce` examples has a `.out`
//! beside it holding the optimized program (SIL: with the user's names and renumbered), the
//! trace summary and the "why live" explanation of every original instruction.
//!
//! `UPDATE_GOLDEN=1 cargo test -p optlab-core --test dce_golden` rewrites the `.out` files;
//! review the diff before committing.

use optlab_core::ir::{Lang, Module};
use optlab_core::passes::dce;
use optlab_core::print::{print_function, Naming};
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/dce")
}

mod common;

/// The golden text of one input.
fn render(name: &str, text: &str) -> String {
    let lang = Lang::from_path(name).expect("a .sil or .bril file");
    let m: Module = optlab_core::parse_module(lang, name, text)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.render(&optlab_core::SourceFile::new(name, text))));
    let r = dce::run_module(&m);
    let mut out = String::new();
    for (f, res) in m.functions.iter().zip(&r.results) {
        if f.is_declaration() {
            continue;
        }
        optlab_core::ir::verify(&res.function).unwrap_or_else(|e| panic!("{name}/{}: {e:?}", f.name));
        let replayed = dce::try_replay(f, &res.trace).unwrap_or_else(|e| panic!("{name}/{}: {e}", f.name));
        assert_eq!(replayed.without_spans(), res.function.without_spans(), "{name}/{}: replay differs", f.name);
        let json = dce::trace_json(&res.trace);
        let back: dce::Trace = serde_json::from_str(&json).expect("the trace JSON reads back");
        assert_eq!(back, res.trace, "{name}/{}: trace JSON round trip", f.name);

        out.push_str(&format!("=== function {}\n", f.name));
        let s = &res.stats;
        out.push_str(&format!(
            "=== stats: {} -> {} instructions ({} removed, {} live), {} branch(es) rewritten, {} undef(s), {} block(s) removed\n",
            s.insts_before, s.insts_after, s.insts_removed, s.live_insts, s.branches_rewritten, s.undefs, s.blocks_removed
        ));
        out.push_str("=== output\n");
        out.push_str(print_function(&res.function, Naming::User).trim_end());
        out.push('\n');
        if lang == Lang::Sil {
            out.push_str("=== output (renumbered)\n");
            out.push_str(print_function(&res.function, Naming::Renumber).trim_end());
            out.push('\n');
        }
        out.push_str("=== trace\n");
        out.push_str(&dce::summarize(f, &res.trace));
        for &b in &f.layout {
            for (k, i) in f.blocks[b].all_insts().enumerate() {
                let spec = format!("{}:{k}", f.blocks[b].name);
                assert_eq!(dce::locate(f, &spec), Some(i), "{spec}");
                out.push_str(&format!("=== explain {spec}\n"));
                for line in dce::explain(f, &res.trace, i) {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

fn check(input: &Path, golden: &Path) {
    let name = input.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let got = render(&name, &text);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(golden, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(golden)
        .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1 to create it", golden.display()));
    if got != want {
        panic!("{} differs from the golden file {}:\n{got}", name, golden.display());
    }
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "sil" || x == "bril"));
    v.sort();
    v
}

#[test]
fn golden_inputs() {
    let dir = golden_dir();
    let files = inputs(&dir);
    assert!(files.len() >= 3, "golden inputs missing in {}", dir.display());
    for input in files {
        check(&input, &input.with_extension("out"));
    }
}

#[test]
fn golden_bril_tdce_examples() {
    let Some(shared) = common::shared_dir() else { return };
    let dir = shared.join("corpus/bril/examples-test/tdce");
    let files = inputs(&dir);
    assert!(!files.is_empty(), "{} not found: the Bril corpus is required", dir.display());
    for input in files {
        let name = input.file_stem().unwrap().to_string_lossy().to_string();
        check(&input, &golden_dir().join("tdce").join(format!("{name}.out")));
    }
}

#[test]
fn seed_dead1_keeps_only_the_return() {
    let text = std::fs::read_to_string(golden_dir().join("seed_dead1.sil")).unwrap();
    let m = optlab_core::parse_module(Lang::Sil, "seed_dead1.sil", &text).unwrap();
    let r = dce::run(&m.functions[0]);
    assert_eq!(r.stats.insts_after, 1);
    let f = &m.functions[0];
    let ret = f.blocks[f.layout[0]].term.unwrap();
    let why = dce::explain(f, &r.trace, ret);
    assert_eq!(why.len(), 1);
    assert!(why[0].contains("control leaves the function"), "{why:?}");
    // A deleted instruction explains its fate.
    let first = f.blocks[f.layout[0]].insts[0];
    assert!(dce::explain(f, &r.trace, first)[0].contains("deleted"));
}

#[test]
fn seed_control_dependent_explains_the_branch_by_control_dependence() {
    let text = std::fs::read_to_string(golden_dir().join("seed_control_dependent.sil")).unwrap();
    let m = optlab_core::parse_module(Lang::Sil, "seed_control_dependent.sil", &text).unwrap();
    let f = &m.functions[0];
    let r = dce::run(f);
    assert_eq!(r.stats.insts_removed, 0, "everything is live in the seed's example");
    let cond_br = dce::locate(f, "bb0:1").unwrap();
    let why = dce::explain(f, &r.trace, cond_br).join("\n");
    assert!(why.contains("decides whether bb1 runs") || why.contains("decides whether bb2 runs"), "{why}");
    assert!(why.ends_with("it is a root — control leaves the function here"), "{why}");
    // The literal in bb1 is live as the incoming value of %6.
    let lit = dce::locate(f, "bb1:0").unwrap();
    let why = dce::explain(f, &r.trace, lit);
    assert!(why[0].contains("passed for the live argument %6 of bb3"), "{why:?}");
}

#[test]
fn replay_to_each_step_stays_well_formed_at_phase_ends() {
    let text = std::fs::read_to_string(golden_dir().join("control_dependent_dead.sil")).unwrap();
    let m = optlab_core::parse_module(Lang::Sil, "x.sil", &text).unwrap();
    let f = &m.functions[0];
    let r = dce::run(f);
    for n in 0..=r.trace.events.len() {
        dce::replay_to(f, &r.trace, n).unwrap_or_else(|e| panic!("step {n}: {e}"));
    }
    assert_eq!(dce::replay(f, &r.trace).without_spans(), r.function.without_spans());
    // A trace replayed on another function stops early instead of panicking.
    let other = dce::run(&m.functions[0]);
    let mut g = f.clone();
    g.layout.truncate(1);
    let _ = dce::replay(&g, &other.trace);
}
