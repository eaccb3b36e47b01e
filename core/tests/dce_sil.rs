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
    let mut tolerated = 0;
    let mut names = Vec::new();
    for (file, text) in sources() {
        let m = optlab_core::parse_module(Lang::Sil, &file, &text).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let out = dce::run_module(&m).module;
        for f in m.bodies() {
            let Some(runs) = inputs(&m, &f.name) else { continue };
            let mut ran = false;
            for args in runs {
                let cfg = RunConfig { step_limit: 1_000_000, ..RunConfig::with_args(args.clone()) };
                let before = sil::run(&m, &f.name, &cfg);
                // Runs the interpreter cannot model, and runs of undefined behaviour (the
                // original reads `undef`, e.g. `cond_br undef`), prove nothing.
                let modelled = !before.error.as_ref().is_some_and(|e| {
                    matches!(e.kind, ErrorKind::NotModelled(_)) || e.kind.is_limit() || e.kind == ErrorKind::UndefinedVariable("undef".into())
                });
                if !modelled {
                    continue;
                }
                let after = sil::run(&out, &f.name, &cfg);
                if passes_undef_to_a_block(&out, &f.name, &after) {
                    // The interpreter refuses to pass `undef` along a branch even into a
                    // dead argument; nothing to compare on this run.
                    tolerated += 1;
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
    eprintln!(
        "{compared} runs compared over {} functions ({tolerated} skipped: undef passed along a branch): {names:?}",
        names.len()
    );
    // `test_dce_bbargs` joins the list once the interpreter passes `undef` along branches.
    assert!(names.iter().any(|n| n.ends_with("seed_dead1.sil/dead1")), "{names:?}");
}

/// Whether the run stopped reading `undef` at a `br`/`cond_br` — a branch passing `undef` to a
/// dead block argument, which DCE produces and the interpreter does not evaluate lazily.
fn passes_undef_to_a_block(m: &Module, name: &str, r: &optlab_core::interp::RunResult) -> bool {
    let Some(e) = &r.error else { return false };
    if e.kind != ErrorKind::UndefinedVariable("undef".into()) {
        return false;
    }
    let Some(f) = m.function(name) else { return false };
    f.placed_insts().any(|(_, i)| {
        let inst = &f.insts[i];
        inst.span == e.span
            && matches!(inst.op, optlab_core::ir::Op::Sil(optlab_core::ir::SilOp::Br | optlab_core::ir::SilOp::CondBr))
            && inst.args.iter().all(|&a| f.values[a].def != optlab_core::ir::ValueDef::Undef)
    })
}
