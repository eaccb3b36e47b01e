//! `optlab opt` (pipelines of registered passes) and the subcommands the registry makes
//! (`copyprop`), end to end.

use optlab_core::passes::{pipeline, slugs, REGISTRY};
use serde_json::Value;
use std::process::Output;

mod common;
use common::optlab;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file in a fresh temp dir, removed when the guard drops.
struct Temp(std::path::PathBuf, String);

impl Temp {
    fn new(name: &str, text: &str) -> Temp {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("optlab-opt-test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let s = p.to_string_lossy().into_owned();
        Temp(dir, s)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A loop with a partially redundant expression (LCM's job), the copies LCM leaves and one
/// the program has (copy propagation's), and dead code (DCE's); a helper function too.
const LOOP: &str = "@main(n: int, a: int, b: int) {
  i: int = const 0;
  one: int = const 1;
  acc: int = const 0;
.head:
  more: bool = lt i n;
  br more .body .done;
.body:
  odd: bool = call @is_odd i;
  br odd .left .join;
.left:
  s: int = add a b;
  acc: int = add acc s;
  jmp .join;
.join:
  t: int = add a b;
  u: int = id t;
  dead: int = mul u u;
  acc: int = add acc u;
  i: int = add i one;
  jmp .head;
.done:
  print acc;
}
@is_odd(x: int): bool {
  two: int = const 2;
  h: int = div x two;
  d: int = mul h two;
  e: bool = eq d x;
  o: bool = not e;
  ret o;
}
";

const SIL: &str = "sil_stage canonical

import Builtin

sil @dead : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {
bb0(%0 : $Builtin.Int64):
  %1 = integer_literal $Builtin.Int64, 3
  return %0 : $Builtin.Int64
}
";

/// `optlab run FILE ARGS… --profile`: (stdout, dynamic instruction count).
fn run(path: &str, args: &[&str]) -> (String, u64) {
    let mut a = vec!["run", path, "--profile", "--"];
    a.extend_from_slice(args);
    let o = optlab(&a, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let n = err.lines().find_map(|l| l.strip_prefix("total_dyn_inst: ")).and_then(|n| n.trim().parse().ok());
    (stdout(&o), n.unwrap_or_else(|| panic!("no profile in {err}")))
}

#[test]
fn opt_default_pipeline_output_parses_back_and_runs_like_the_input() {
    let input = Temp::new("loop.bril", LOOP);
    let o = optlab(&["opt", &input.1], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "a Bril program needs no note");
    let text = stdout(&o);
    assert!(!text.contains("dead"), "DCE ran last:\n{text}");
    // The same as naming the default pipeline.
    let named = optlab(&["opt", "--passes", pipeline::DEFAULT, &input.1], None);
    assert_eq!(stdout(&named), text);

    let output = Temp::new("optimized.bril", &text);
    let check = optlab(&["check", &output.1], None);
    assert!(check.status.success(), "the output does not parse back: {}\n{text}", stderr(&check));
    for args in [["10", "2", "3"], ["0", "1", "1"], ["7", "-4", "9"]] {
        let (want, before) = run(&input.1, &args);
        let (got, after) = run(&output.1, &args);
        assert_eq!(got, want, "on {args:?}:\n{text}");
        // With n = 0 the loop does not run: nothing to save.
        let saves = args[0] != "0";
        assert!(if saves { after < before } else { after <= before }, "on {args:?}: {before} → {after} instructions\n{text}");
    }
}

#[test]
fn opt_trace_json_has_one_object_per_function_with_every_stage() {
    let input = Temp::new("loop.bril", LOOP);
    let o = optlab(&["opt", "--trace", "json", "--passes", "lcm,copyprop,dce,copyprop", &input.1], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let v: Value = serde_json::from_str(&text).unwrap();
    let functions = v.as_array().unwrap();
    let names: Vec<&str> = functions.iter().map(|f| f["function"].as_str().unwrap()).collect();
    assert_eq!(names, ["main", "is_odd"]);
    for f in functions {
        let stages = f["stages"].as_array().unwrap();
        let passes: Vec<&str> = stages.iter().map(|s| s["pass"].as_str().unwrap()).collect();
        assert_eq!(passes, ["lcm", "copyprop", "dce", "copyprop"]);
        for s in stages {
            assert_eq!(s["outcome"]["kind"], "ran", "{s}");
            assert_eq!(s["outcome"]["message"], Value::Null);
            let counts = s["counts"].as_array().unwrap();
            assert!(counts.len() >= 2 && counts.iter().all(|c| c["label"].is_string() && c["value"].is_u64()), "{s}");
            let summary = s["summary"].as_str().unwrap();
            assert!(summary.contains(&format!(" on @{}: ", f["function"].as_str().unwrap())), "{summary}");
            assert!(s["trace"].is_object() || s["trace"].is_array(), "{s}");
        }
    }
    // LCM moved `add a b` in main: the counts say so.
    let lcm = &functions[0]["stages"][0];
    let moved = lcm["counts"].as_array().unwrap().iter().find(|c| c["label"] == "moved").unwrap();
    assert_eq!(moved["value"], 1, "{lcm}");
    // The documented field order, as text.
    let order = ["\"function\"", "\"stages\"", "\"pass\"", "\"outcome\"", "\"kind\"", "\"message\"", "\"counts\"", "\"summary\"", "\"trace\""];
    let pos: Vec<usize> = order.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
}

#[test]
fn opt_commute_reaches_lcm() {
    let src = "@main(c: bool, a: int, b: int) {
  br c .left .join;
.left:
  x: int = add a b;
  print x;
.join:
  y: int = add b a;
  print y;
}
";
    let input = Temp::new("commute.bril", src);
    let moved = |extra: &[&str]| {
        let mut args = vec!["opt", "--passes", "lcm", "--trace", "json", &input.1];
        args.extend_from_slice(extra);
        let o = optlab(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let counts = v[0]["stages"][0]["counts"].as_array().unwrap().clone();
        counts.iter().find(|c| c["label"] == "moved").unwrap()["value"].as_u64().unwrap()
    };
    assert_eq!(moved(&[]), 0, "`add a b` and `add b a` are two expressions");
    assert_eq!(moved(&["--commute"]), 1, "one expression with --commute");
}

#[test]
fn opt_unknown_pass_is_an_error_listing_the_passes() {
    let input = Temp::new("loop.bril", LOOP);
    let o = optlab(&["opt", "--passes", "lcm,licm,dce", &input.1], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.contains("no pass `licm`"), "{err}");
    assert!(err.contains(&slugs()), "lists the passes: {err}");
}

#[test]
fn opt_on_sil_notes_the_refused_copyprop_and_goes_on() {
    let input = Temp::new("dead.sil", SIL);
    let o = optlab(&["opt", "--passes", "copyprop,lcm,dce", "--renumber", "--stats", &input.1], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    // At the function's header, as compilers print notes; LCM runs on SIL and has nothing to say.
    assert!(err.starts_with(&format!("{}:5:1: note: Copy propagation runs on Bril; @dead is SIL", input.1)), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = stdout(&o);
    assert!(!out.contains("integer_literal"), "DCE still ran after the refusal:\n{out}");
    assert!(out.contains("bb0(%0 : $Builtin.Int64):\n  return %0 : $Builtin.Int64"), "{out}");
    assert!(out.contains("Copy propagation on @dead: Copy propagation runs on Bril"), "the stage's summary: {out}");
    assert!(out.contains("LCM on @dead:"), "LCM ran on SIL: {out}");
    assert!(out.contains("DCE on @dead: 2 instructions before, 1 after"), "{out}");
}

#[test]
fn opt_stats_appends_one_summary_line_per_stage_and_function() {
    let input = Temp::new("loop.bril", LOOP);
    let o = optlab(&["opt", "--stats", &input.1], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let program = stdout(&optlab(&["opt", &input.1], None));
    let stats = out.strip_prefix(program.as_str()).unwrap_or_else(|| panic!("the program first:\n{out}"));
    let lines: Vec<&str> = stats.lines().collect();
    let titles = ["LCM", "Copy propagation", "DCE"];
    let mut want = Vec::new();
    for f in ["main", "is_odd"] {
        for t in titles {
            want.push(format!("{t} on @{f}: "));
        }
    }
    assert_eq!(lines.len(), want.len(), "{stats}");
    for (l, w) in lines.iter().zip(&want) {
        assert!(l.starts_with(w.as_str()), "{l} should start with {w}");
    }
    assert!(lines[0].contains("1 moved"), "{}", lines[0]);
    assert!(lines[1].contains("copies deleted"), "{}", lines[1]);
}

#[test]
fn copyprop_subcommand_propagates_a_copy_chain() {
    let src = "@main(n: int) {
  a: int = id n;
  b: int = id a;
  c: int = id b;
  one: int = const 1;
  d: int = add c one;
  print d;
}
";
    let input = Temp::new("chain.bril", src);
    let o = optlab(&["copyprop", &input.1, "--stats"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "@main(n: int) {
  one: int = const 1;
  d: int = add n one;
  print d;
}
Copy propagation on @main: 6 instructions before, 3 after, 3 operands rewritten, 3 copies deleted
"
    );
    let o = optlab(&["copyprop", &input.1, "--trace", "json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(1), "one trace per function: {v}");
    assert_eq!(v[0]["function"], "main");
    // Asked for alone, a pass that refuses the program is an error.
    let sil = Temp::new("dead.sil", SIL);
    let o = optlab(&["copyprop", &sil.1], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with(&format!("{}:5:1: error: Copy propagation runs on Bril", sil.1)), "{}", stderr(&o));
}

#[test]
fn help_lists_every_pass_and_the_default_pipeline() {
    let o = optlab(&["--help"], None);
    assert!(o.status.success());
    let help = stdout(&o);
    assert!(help.contains("  opt "), "{help}");
    assert!(help.contains(&format!("Default pipeline: {}", pipeline::DEFAULT)), "{help}");
    for p in REGISTRY {
        let i = p.info();
        assert!(help.contains(&format!("  {}", i.slug)), "{} is a subcommand: {help}", i.slug);
        assert!(help.contains(i.name), "{help}");
    }
    for cmd in ["--help", "opt --help", "dce --help", "lcm --help", "copyprop --help"] {
        let args: Vec<&str> = cmd.split(' ').collect();
        let text = stdout(&optlab(&args, None));
        assert!(!text.to_lowercase().contains("seed 0"), "internal names in `{cmd}`: {text}");
    }
}

#[test]
fn lcm_emit_says_why_a_function_is_left_unchanged() {
    let input = Temp::new("dead.sil", SIL);
    let o = optlab(&["lcm", "--emit", &input.1], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("note: @dead left unchanged: it has no candidate expression"), "{err}");
    let bril = Temp::new("loop.bril", LOOP);
    let o = optlab(&["lcm", "--emit", &bril.1], None);
    let err = stderr(&o);
    // `add a b` in @main is partially redundant and moves: no note; @is_odd has candidates,
    // none movable.
    assert!(!err.contains("@main left unchanged"), "{err}");
    assert!(err.contains("note: @is_odd left unchanged: none of its") && err.contains("partially redundant"), "{err}");
}

/// `ssa` writes φs as `set`/`get`, or as `phi` with `--phi` (also `opt --phi`); either form,
/// taken out of SSA again, runs as the original.
#[test]
fn ssa_in_either_form_and_back_runs_as_the_original() {
    let f = Temp::new(
        "swap.bril",
        "@main(n: int) {\n  a: int = const 1;\n  b: int = const 2;\n  one: int = const 1;\n  zero: int = const 0;\n.loop:\n  done: bool = le n zero;\n  br done .exit .body;\n.body:\n  t: int = id a;\n  a: int = id b;\n  b: int = id t;\n  n: int = sub n one;\n  jmp .loop;\n.exit:\n  print a b;\n}\n",
    );
    let setget = optlab(&["ssa", &f.1], None);
    assert!(setget.status.success(), "{}", stderr(&setget));
    assert!(stdout(&setget).contains("= get;") && stdout(&setget).contains("  set "), "{}", stdout(&setget));
    let phi = optlab(&["ssa", "--phi", &f.1], None);
    assert!(stdout(&phi).contains(" = phi ") && !stdout(&phi).contains("= get;"), "{}", stdout(&phi));
    assert_eq!(stdout(&optlab(&["opt", "--phi", "--passes", "ssa", &f.1], None)), stdout(&phi));
    let run = |text: &str| {
        let g = Temp::new("p.bril", text);
        stdout(&optlab(&["run", &g.1, "3"], None))
    };
    let want = stdout(&optlab(&["run", &f.1, "3"], None));
    assert_eq!(want, "2 1\n");
    for form in [&["opt", "--passes", "ssa,out-of-ssa", &f.1][..], &["opt", "--phi", "--passes", "ssa,out-of-ssa", &f.1]] {
        let back = optlab(form, None);
        assert!(back.status.success(), "{}", stderr(&back));
        assert!(!stdout(&back).contains("get") && !stdout(&back).contains("phi"), "{}", stdout(&back));
        assert_eq!(run(&stdout(&back)), want);
    }
    assert_eq!(run(&stdout(&setget)), want);
    assert_eq!(run(&stdout(&phi)), want);
}
