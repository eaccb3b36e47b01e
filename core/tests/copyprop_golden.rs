//! Golden files for copy propagation: every `tests/golden/copyprop/NAME.bril` (its header
//! says what should happen, worked out by hand) has beside it the program the pass makes of it
//! (`NAME.copyprop.bril`) and the step texts the UI shows (`NAME.steps.txt`).
//! `UPDATE_GOLDEN=1 cargo test -p optlab-core --test copyprop_golden` rewrites them — then
//! check the diff by hand before keeping it.

use optlab_core::interp::{bril, RunConfig};
use optlab_core::passes::copyprop;
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/copyprop")
}

fn golden(file: &str, actual: &str) {
    let path = dir().join(file);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1 to create it", path.display()));
    assert!(expected == actual, "{file} differs from the golden file:\n--- expected\n{expected}\n--- actual\n{actual}");
}

fn check(name: &str) {
    let path = dir().join(format!("{name}.bril"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = parse_module(Lang::Bril, &format!("{name}.bril"), &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    let (out, outputs) = copyprop::run_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));

    let emitted = print_module(&out, Naming::User);
    golden(&format!("{name}.copyprop.bril"), &emitted);
    let mut steps = String::new();
    for (f, o) in m.functions.iter().zip(&outputs) {
        assert_eq!(copyprop::replay_to(f, &o.trace, usize::MAX), *o.function, "{name}: replay");
        steps.push_str(&format!("=== @{}\n", f.name));
        for (k, s) in copyprop::step_texts(f, o).iter().enumerate() {
            steps.push_str(&format!("{k}. {s}\n"));
        }
    }
    golden(&format!("{name}.steps.txt"), &steps);

    // The emitted text parses back and runs like the original, with no more instructions.
    let reparsed = parse_module(Lang::Bril, "out.bril", &emitted).unwrap_or_else(|d| panic!("{name}: {d:?}\n{emitted}"));
    let cfg = RunConfig::with_args(bril::args_from_source(&text));
    let (before, after) = (bril::run(&m, &cfg), bril::run(&reparsed, &cfg));
    assert!(before.error.is_none(), "{name}: {:?}", before.error);
    assert_eq!(before.stdout, after.stdout, "{name}");
    assert_eq!(before.error.map(|e| e.kind), after.error.map(|e| e.kind), "{name}");
    assert!(after.dyn_inst <= before.dyn_inst, "{name}: {} → {}", before.dyn_inst, after.dyn_inst);
}

#[test]
fn chain() {
    check("chain");
}

#[test]
fn join() {
    check("join");
}

#[test]
fn loop_() {
    check("loop");
}

#[test]
fn redefine() {
    check("redefine");
}

#[test]
fn lcm_outputs() {
    check("lcm_critical");
    check("lcm_licm");
}
