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
    o.blocks().iter().filter(|&&b| o.preds.holds(p, b, e)).map(|&b| o.split.blocks[b].name.to_string()).collect()
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

// ---------------------------------------------------------------------------------------
// SIL: the article's example written in SIL (the gallery's `lcm_article.sil`, block bbK for
// node nK, bb0 for s) against the Bril one.

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../static/examples")
}

fn load_example(file: &str, lang: Lang) -> (String, Module) {
    let text = std::fs::read_to_string(examples().join(file)).unwrap();
    let m = parse_module(lang, file, &text).unwrap_or_else(|d| panic!("{file}: {d:?}"));
    (text, m)
}

/// Node names of the blocks where `p` holds, with SIL's bbK read as nK and bb0 as s.
fn article_set(o: &LcmOutput, p: Pred, expr: &str) -> Vec<String> {
    set(o, p, expr)
        .into_iter()
        .map(|b| match b.strip_prefix("bb") {
            Some("0") => "s".to_string(),
            Some(k) => format!("n{k}"),
            None => b,
        })
        .collect()
}

fn edit_blocks(o: &LcmOutput, insert: bool) -> Vec<String> {
    use optlab_core::passes::lcm::{Edit, Step};
    let mut v: Vec<String> = o
        .trace
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Transform { edits, .. } => Some(edits),
            _ => None,
        })
        .flatten()
        .filter_map(|e| match (e, insert) {
            (Edit::Insert { block, .. }, true) | (Edit::Delete { block, .. }, false) => Some(*block),
            _ => None,
        })
        .map(|b| {
            let name = o.split.blocks[b].name.to_string();
            name.strip_prefix("bb").map_or(name.clone(), |k| format!("n{k}"))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_article_in_sil_gives_the_same_13_sets_and_edits_as_in_bril() {
    let (_, mb) = load_example("lcm_article.bril", Lang::Bril);
    let (text, ms) = load_example("lcm_article.sil", Lang::Sil);
    let (_, ob) = run_module(&mb, &Options::default()).unwrap();
    let (out, os) = run_module(&ms, &Options::default()).unwrap();
    let (b, s) = (&ob[0], os.iter().find(|o| o.name == "main").unwrap());
    let sdiv = r#"builtin "sdiv_Int64"(%a, %b)"#;
    for p in Pred::ALL {
        assert_eq!(article_set(s, p, sdiv), set(b, p, "add a b"), "{p}");
    }
    assert_eq!(edit_blocks(s, true), edit_blocks(b, true), "insertions");
    assert_eq!(edit_blocks(s, false), edit_blocks(b, false), "deletions");
    assert_eq!(edit_blocks(s, true), ["n10", "n5"]);

    golden("lcm_article_sil.md", &report::table(&os, report::TableFormat::Markdown, Some(sdiv)).unwrap());
    let emitted = report::emit(&out);
    golden("lcm_article.lcm.sil", &emitted);
    // bb12 receives the quotient from bb10 (inserted) and bb11 (kept) as a new argument.
    assert!(emitted.contains("bb12(%t12 : $Builtin.Int64, %2 : $Builtin.Int64):"), "{emitted}");
    // It runs like the original, calls included, on the example's arguments and more.
    let reparsed = parse_module(Lang::Sil, "out.sil", &emitted).unwrap();
    let args_line = text.lines().find_map(|l| l.strip_prefix("// ARGS: ")).unwrap().to_string();
    for args in [args_line.as_str(), "40 5 0 1 3", "40 5 1 1 3", "7 0 0 0 2", "9 0 1 1 2"] {
        let cfg = RunConfig::with_args(args.split(' '));
        let before = optlab_core::interp::sil::run(&ms, "main", &cfg);
        let after = optlab_core::interp::sil::run(&reparsed, "main", &cfg);
        assert_eq!(before.stdout, after.stdout, "{args}");
        assert_eq!(before.returned, after.returned, "{args}");
        assert_eq!(before.error.map(|e| e.kind), after.error.map(|e| e.kind), "{args}");
    }
}

#[test]
fn the_loop_invariant_sil_example_computes_the_bound_once_before_the_loop() {
    let (_, m) = load_example("loop_invariant.sil", Lang::Sil);
    let (out, os) = run_module(&m, &Options::default()).unwrap();
    let o = &os[0];
    let mul = r#"builtin "mul_Int64"(%n, %k)"#;
    assert_eq!(set(o, Pred::XLatest, mul), ["bb0"]);
    assert_eq!(set(o, Pred::NComp, mul), ["bb1"]);
    let emitted = report::emit(&out);
    golden("loop_invariant.lcm.sil", &emitted);
    let reparsed = parse_module(Lang::Sil, "out.sil", &emitted).unwrap();
    for args in [["4", "3"], ["0", "9"]] {
        let cfg = RunConfig::with_args(args);
        let (b, a) = (optlab_core::interp::sil::run(&m, "main", &cfg), optlab_core::interp::sil::run(&reparsed, "main", &cfg));
        assert_eq!(b.returned, a.returned);
        assert!(a.dyn_inst < b.dyn_inst || args[0] == "0");
    }
}
