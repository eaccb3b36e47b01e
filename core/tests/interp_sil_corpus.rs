//! The SIL interpreter on Swift's DCE tests (`shared/corpus/swift`): the integer functions
//! run to the values Swift's semantics give, and every other function — classes, addresses,
//! enums — ends with a clear error instead of a guess or a panic.

mod common;

use optlab_core::interp::{sil, ErrorKind, RunConfig};
use optlab_core::{parse_module, Lang, Module};

fn load(shared: &std::path::Path, file: &str) -> Module {
    let path = shared.join("corpus/swift").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_module(Lang::Sil, file, &text).unwrap_or_else(|d| {
        panic!("{file} does not parse:\n{}", d.render(&optlab_core::SourceFile::new(file, text.clone())))
    })
}

#[test]
fn integer_functions_compute_what_swift_would() {
    let Some(shared) = common::shared_dir() else { return };
    for file in ["dead_code_elimination.sil", "dead_code_elimination_ossa.sil"] {
        let m = load(&shared, file);
        let r = sil::run(&m, "dead1", &RunConfig::with_args(["2", "40"]));
        assert_eq!((r.returned.as_deref(), r.error), (Some("Int32(2)"), None), "{file} dead1");
        assert_eq!(r.dyn_inst, 7);

        // A loop over block arguments: entry, 100 × (test + body), the last test, the exit.
        let r = sil::run(&m, "dead2", &RunConfig::default());
        assert_eq!((r.returned.as_deref(), r.error), (Some("()"), None), "{file} dead2");
        assert_eq!(r.dyn_inst, 3 + 100 * (3 + 8) + 3 + 2);

        // The harness compares SIL functions too.
        let inputs = [vec!["2".to_string(), "40".to_string()], vec!["2147483647".into(), "1".into()]];
        let counts = optlab_core::testgen::differential_entry(&m, &m.clone(), "dead1", &inputs, &RunConfig::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(counts.len(), 2);

        let r = sil::run(&m, "remove_fix_lifetime", &RunConfig::default());
        assert_eq!(r.returned.as_deref(), Some("()"));
        let r = sil::run(&m, "dont_remove_fix_lifetime", &RunConfig::default());
        assert_eq!(r.returned.as_deref(), Some("Int32(0)"));

        // Calls of the body-less `@take_int32` are the observable output.
        let r = sil::run(&m, "test_dce_bbargs", &RunConfig { step_limit: 1000, ..RunConfig::default() });
        assert!(r.stdout.starts_with("@take_int32(Int32(-1))\n@take_int32(Int32(-2))\n"), "{}", r.stdout);
        assert_eq!(r.error.unwrap().kind, ErrorKind::StepLimit(1000));

        // `dead3` loops forever; the step limit ends it.
        let r = sil::run(&m, "dead3", &RunConfig { step_limit: 500, ..RunConfig::default() });
        assert_eq!(r.error.unwrap().kind, ErrorKind::StepLimit(500));

        let r = sil::run(&m, "deal_with_infinite_loop", &RunConfig::default());
        assert_eq!(r.error.unwrap().kind, ErrorKind::UndefinedVariable("undef".into()));
    }
}

#[test]
fn every_function_runs_or_stops_with_a_reason() {
    let Some(shared) = common::shared_dir() else { return };
    let (mut ran, mut stopped) = (0, 0);
    for file in ["dead_code_elimination.sil", "dead_code_elimination_ossa.sil", "dead_code_elimination_nontrivial_ossa.sil"] {
        let m = load(&shared, file);
        for f in m.bodies() {
            let n = f.entry().map_or(0, |b| f.blocks[b].params.len());
            let cfg = RunConfig { step_limit: 10_000, ..RunConfig::with_args((0..n).map(|_| "1")) };
            let r = sil::run(&m, &f.name, &cfg);
            match &r.error {
                None => ran += 1,
                Some(e) => {
                    stopped += 1;
                    assert!(!matches!(e.kind, ErrorKind::Malformed(_)), "{file} {}: {}", f.name, e);
                }
            }
        }
    }
    println!("swift DCE tests: {ran} functions ran to completion, {stopped} stopped with a reason");
    assert!(ran >= 8, "only {ran} functions ran");
}
