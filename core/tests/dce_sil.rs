//! ADCE on SIL preserves behaviour where the SIL interpreter can tell: every function of the
//! Swift test files and of the golden inputs whose original run the interpreter models is run
//! before and after DCE on a few argument vectors; the printed external calls (`apply` of a
//! body-less function), the result and any error must be the same.

use optlab_core::interp::{sil, ErrorKind, RunConfig};
use optlab_core::ir::{Lang, Module, Type};
use optlab_core::passes::dce;
use std::path::PathBuf;

mod common;

/// The Swift test files (when `../shared` is present) and the golden SIL inputs.
fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let swift = common::shared_dir().map(|s| s.join("corpus/swift"));
    for name in ["dead_code_elimination.sil", "dead_code_elimination_ossa.sil", "dead_code_elimination_nontrivial_ossa.sil"] {
        let Some(dir) = &swift else { break };
        let p = dir.join(name);
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        out.push((name.to_string(), text));
    }
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/dce");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&golden).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for p in files.into_iter().filter(|p| p.extension().is_some_and(|x| x == "sil")) {
        out.push((p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read_to_string(&p).unwrap()));
    }
    out
}

/// Argument vectors for the function's entry parameters, or `None` if a parameter type has
/// no command-line form.
fn inputs(m: &Module, name: &str) -> Option<Vec<Vec<String>>> {
    let f = m.function(name)?;
    let entry = f.entry()?;
    let mut per_param: Vec<&[&str]> = Vec::new();
    for &p in &f.blocks[entry].params {
        let Some(Type::Sil(t)) = &f.values[p].ty else { return None };
        let t = t.trim();
        let vals: &[&str] = if t == "Bool" || t == "Builtin.Int1" {
            &["true", "false"]
        } else if t.starts_with("Int") || t.starts_with("UInt") || t.starts_with("Builtin.Int") {
            &["0", "1", "7", "100"]
        } else {
            return None;
        };
        per_param.push(vals);
    }
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for vals in per_param {
        out = out.into_iter().flat_map(|prefix| vals.iter().map(move |v| [prefix.clone(), vec![v.to_string()]].concat())).collect();
    }
    out.truncate(16);
    Some(out)
}

#[test]
fn sil_functions_behave_the_same_after_dce() {
    let mut compared = 0;
    let mut names = Vec::new();
    for (file, text) in sources() {
        let m = optlab_core::parse_module(Lang::Sil, &file, &text).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let out = dce::run_module(&m).module;
        for f in m.bodies() {
            let Some(runs) = inputs(&m, &f.name) else { continue };
            let mut ran = false;
            for args in runs {
                let cfg = RunConfig { step_limit: 200_000, ..RunConfig::with_args(args.clone()) };
                let before = sil::run(&m, &f.name, &cfg);
                // Runs the interpreter cannot model, and runs of undefined behaviour (the
                // original reads `undef`, e.g. `cond_br undef`), prove nothing.
                let modelled = !before.error.as_ref().is_some_and(|e| {
                    matches!(e.kind, ErrorKind::NotModelled(_)) || e.kind == ErrorKind::UndefinedVariable("undef".into())
                });
                if !modelled {
                    continue;
                }
                let after = sil::run(&out, &f.name, &cfg);
                if before.error.as_ref().is_some_and(|e| e.kind.is_limit()) {
                    // A run that does not end within the limit: DCE makes each iteration
                    // cheaper, so the optimized run gets further; what both printed must agree
                    // up to where the original stopped.
                    assert!(after.error.as_ref().is_some_and(|e| e.kind.is_limit()), "{file}/{}: the optimized run ended", f.name);
                    assert!(
                        after.stdout.starts_with(&before.stdout),
                        "{file}/{} {args:?}: output differs before the step limit",
                        f.name
                    );
                    ran = true;
                    compared += 1;
                    continue;
                }
                let kind = |r: &optlab_core::interp::RunResult| r.error.as_ref().map(|e| e.kind.clone());
                assert_eq!(after.stdout, before.stdout, "{file}/{} {args:?}: output ({:?})", f.name, after.error);
                assert_eq!(after.returned, before.returned, "{file}/{} {args:?}: result ({:?})", f.name, after.error);
                assert_eq!(kind(&after), kind(&before), "{file}/{} {args:?}: error", f.name);
                assert!(after.dyn_inst <= before.dyn_inst, "{file}/{} {args:?}: longer run", f.name);
                ran = true;
                compared += 1;
            }
            if ran {
                names.push(format!("{file}/{}", f.name));
            }
        }
    }
    eprintln!("{compared} runs compared over {} functions: {names:?}", names.len());
    assert!(names.iter().any(|n| n.ends_with("seed_dead1.sil/dead1")), "{names:?}");
    if common::shared_dir().is_some() {
        // DCE passes `undef` to the dead block arguments here (Swift's CHECK lines say so).
        assert!(names.iter().any(|n| n.ends_with("/test_dce_bbargs")), "{names:?}");
    }
}
