//! Golden files for Lazy Code Motion (seed 004): every `tests/golden/lcm/NAME.bril` has its
//! hand-checked predicate tables beside it (`NAME.md`, every expression) and the program LCM
//! makes of it (`NAME.lcm.bril`); the seed's 13-node example also has its JSON, LaTeX and CSV
//! reports. `UPDATE_GOLDEN=1 cargo test --test lcm_golden` rewrites them — then check the
//! diff by hand before keeping it.

use optlab_core::interp::{bril, RunConfig};
use optlab_core::passes::lcm::{report, run_module, LcmOutput, Options, Pred};
use optlab_core::{parse_module, Lang, Module};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/lcm")
}

fn load(name: &str) -> (String, Module) {
    let path = dir().join(format!("{name}.bril"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = parse_module(Lang::Bril, &format!("{name}.bril"), &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    (text, m)
}

/// Compares `actual` with the golden file, or rewrites it under `UPDATE_GOLDEN`.
fn golden(file: &str, actual: &str) {
    let path = dir().join(file);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(expected == actual, "{file} differs from the golden file:\n--- expected\n{expected}\n--- actual\n{actual}");
}

fn run_lcm(name: &str) -> (String, Module, Module, Vec<LcmOutput>) {
    let (text, m) = load(name);
    let (out, outputs) = run_module(&m, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    (text, m, out, outputs)
}

/// Checks the tables and the output program, and that the output prints what the input does.
fn check_example(name: &str) -> Vec<LcmOutput> {
    let (text, m, out, outputs) = run_lcm(name);
    golden(&format!("{name}.md"), &report::table(&outputs, report::TableFormat::Markdown, None).unwrap());
    let emitted = report::emit(&out);
    golden(&format!("{name}.lcm.bril"), &emitted);
    // The emitted text parses back and runs like the original.
    let reparsed =
        parse_module(Lang::Bril, "out.bril", &emitted).unwrap_or_else(|d| panic!("{name}: {d:?}\n{emitted}"));
    let cfg = RunConfig::with_args(bril::args_from_source(&text));
    let before = bril::run(&m, &cfg);
    let after = bril::run(&reparsed, &cfg);
    assert_eq!(before.stdout, after.stdout, "{name}");
    assert_eq!(before.error.map(|e| e.kind), after.error.map(|e| e.kind), "{name}");
    outputs
}

fn set(o: &LcmOutput, p: Pred, expr: &str) -> Vec<String> {
    let e = o.expr_by_text(expr).unwrap();
    o.blocks().iter().filter(|&&b| o.preds.holds(p, b, e)).map(|&b| o.split.blocks[b].name.clone()).collect()
}

fn nodes(ns: &[u32]) -> Vec<String> {
    ns.iter().map(|n| format!("n{n}")).collect()
}

#[test]
fn seed_13_node_example_gives_exactly_the_seeds_sets() {
    let outputs = check_example("seed13");
    let o = &outputs[0];
    // Step 1 adds nothing: the reconstructed graph has no critical edge.
    let names: Vec<&str> = o.blocks().iter().map(|&b| o.split.blocks[b].name.as_str()).collect();
    let mut want = vec!["s".to_string()];
    want.extend(nodes(&(1..=13).collect::<Vec<_>>()));
    assert_eq!(names, want);

    let e = "add a b";
    let transp: Vec<u32> = (1..=13).filter(|n| ![2, 5].contains(n)).collect();
    let mut all_transp = vec!["s".to_string()];
    all_transp.extend(nodes(&transp));
    assert_eq!(set(o, Pred::NComp, e), nodes(&[7, 11, 12]));
    assert_eq!(set(o, Pred::XComp, e), nodes(&[2]));
    assert_eq!(set(o, Pred::Transp, e), all_transp);
    assert_eq!(set(o, Pred::NdSafe, e), nodes(&[6, 7, 9, 10, 11, 12]));
    assert_eq!(set(o, Pred::XdSafe, e), nodes(&[2, 5, 6, 9, 10, 11]));
    assert_eq!(set(o, Pred::NuSafe, e), nodes(&[6, 8, 13]));
    assert_eq!(set(o, Pred::XuSafe, e), nodes(&[2, 6, 7, 8, 11, 12, 13]));
    assert_eq!(set(o, Pred::NEarliest, e), nodes(&[9]));
    assert_eq!(set(o, Pred::XEarliest, e), nodes(&[2, 5]));
    assert_eq!(set(o, Pred::NDelayed, e), nodes(&[9, 10, 11]));
    assert_eq!(set(o, Pred::XDelayed, e), nodes(&[2, 5, 9, 10]));
    assert_eq!(set(o, Pred::NLatest, e), nodes(&[11]));
    assert_eq!(set(o, Pred::XLatest, e), nodes(&[2, 5, 10]));

    golden("seed13.json", &(report::json(&outputs, true) + "\n"));
    golden("seed13.add_a_b.tex", &report::table(&outputs, report::TableFormat::Latex, Some(e)).unwrap());
    golden("seed13.add_a_b.csv", &report::table(&outputs, report::TableFormat::Csv, Some(e)).unwrap());
}

#[test]
fn seed_13_node_example_after_lcm_matches_the_seeds_description() {
    let (_, _, out, _) = run_lcm("seed13");
    let f = &out.functions[0];
    let block_text = |name: &str| -> Vec<String> {
        let b = f.block_by_name(name).unwrap();
        f.blocks[b]
            .all_insts()
            .map(|i| {
                let inst = &f.insts[i];
                let dest = inst.results.first().map(|&v| f.value_name(v).to_string()).unwrap_or_default();
                let args: Vec<&str> = inst.args.iter().map(|&v| f.value_name(v)).collect();
                format!("{dest}={} {}", inst.op, args.join(" ")).trim().to_string()
            })
            .collect()
    };
    // The loop invariant of 6/7 now sits at the end of 5, and 7 only copies it.
    assert_eq!(block_text("n5"), ["b=const", "add.a.b=add a b", "=jmp"]);
    assert_eq!(block_text("n7")[0], "r=id add.a.b");
    // 10 computes for 12; 11 keeps its computation; 12's is gone.
    assert_eq!(block_text("n10"), ["add.a.b=add a b", "=jmp"]);
    assert_eq!(block_text("n11"), ["add.a.b=add a b", "r=id add.a.b"]);
    assert_eq!(block_text("n12")[0], "x=id add.a.b");
    // No insertion into 3: LCM does not speculate.
    assert!(block_text("n3").is_empty());
}

#[test]
fn textbook_examples() {
    for name in ["diamond", "licm", "critical", "while_div"] {
        check_example(name);
    }
    // Hand-checked sets (see each file's header), independent of the golden tables.
    let (_, _, _, o) = run_lcm("licm");
    assert_eq!(set(&o[0], Pred::XLatest, "mul a b"), ["b0"]);
    assert_eq!(set(&o[0], Pred::NdSafe, "mul a b"), ["b0", "body", "body_body"]);
    assert_eq!(set(&o[0], Pred::NuSafe, "mul a b"), ["body_body", "done"]);
    let (_, _, _, o) = run_lcm("critical");
    assert_eq!(set(&o[0], Pred::XLatest, "add a b"), ["b0_join"]);
    assert_eq!(set(&o[0], Pred::NDelayed, "add a b"), ["b0", "left", "b0_join"]);
    let (_, m, out, o) = run_lcm("while_div");
    assert!(o[0].moved().is_empty());
    assert_eq!(report::emit(&out), report::emit(&m));
    assert_eq!(set(&o[0], Pred::NEarliest, "div a b"), ["body"]);
    assert_eq!(set(&o[0], Pred::Transp, "div a b"), ["b0", "head", "body"]);
}
