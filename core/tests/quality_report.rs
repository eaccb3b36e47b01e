//! The quality report: what each registered pass, and the default pipeline, does to the
//! dynamic instruction count (brili's `-p` count) of every Bril benchmark in
//! `../shared/corpus/bril/benchmarks/{core,mem,float,mixed,long}`.
//!
//! Every variant goes through text, as a user of `optlab opt` gets it (printed, parsed back),
//! and must print the benchmark's `.out`. The goals it checks, each over every program:
//!
//! - the default pipeline (`pipeline::DEFAULT`) never executes more than the original;
//! - DCE alone and copy propagation alone never execute more than the original (they only
//!   delete instructions and rewrite operands; LCM alone may add work: its copies);
//! - on every program LCM changes, LCM then copy propagation executes strictly less than LCM
//!   alone (copy propagation exists to remove the copies `d = id t` LCM leaves), and the
//!   default pipeline no more than the original. (Until copy propagation rematerialised the
//!   copies it cannot remove, this read "LCM then copy propagation no more than the
//!   original". A rematerialised copy `d = e` costs what the copy cost; the gain is the
//!   computation of `t` it leaves dead, which copy propagation deliberately leaves to DCE —
//!   it deletes only copies, so a run that fails on a division fails at the same place — so
//!   the bound now holds after DCE, as the default pipeline runs them.)
//! - the default pipeline's total on `core` is at most 7,118,194, what the course pipeline
//!   (local value numbering with copy propagation and constant folding, then trivial DCE;
//!   Cornell CS 6120, lesson 3) reaches from 8,569,342 on the same 67 programs.
//!
//! `cargo test -p optlab-core --test quality_report -- --nocapture` prints the Markdown
//! tables `BENCHMARKS.md` quotes. Every goal is checked on every program before the test
//! fails, so a failure lists all the programs responsible with their numbers. Skips with a
//! notice when `../shared` is absent.

mod common;

use optlab_core::interp::{bril, RunConfig};
use optlab_core::ir::{BrilOp, Op};
use optlab_core::passes::pipeline::{self, Pipeline};
use optlab_core::passes::{Detail, Options, Outcome, REGISTRY};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang, Module};
use std::fmt::Write;
use std::path::Path;

const FOLDERS: &[&str] = &["core", "mem", "float", "mixed", "long"];

/// The course pipeline's total on the core benchmarks, the bar the default pipeline meets.
const CORE_GOAL: u64 = 7_118_194;

/// One way of optimizing a program: a column of the table.
struct Variant {
    /// The column heading.
    title: String,
    pipeline: Pipeline,
}

fn variants() -> Vec<Variant> {
    let mut v = vec![Variant { title: "original".into(), pipeline: Pipeline { passes: Vec::new() } }];
    for p in REGISTRY {
        let info = p.info();
        v.push(Variant { title: info.title.to_string(), pipeline: Pipeline { passes: vec![*p] } });
    }
    let lcm_cp = Pipeline::parse("lcm,copyprop").unwrap_or_else(|e| panic!("{e}"));
    v.push(Variant { title: "lcm,copyprop".into(), pipeline: lcm_cp });
    v.push(Variant { title: pipeline::DEFAULT.into(), pipeline: Pipeline::default_pipeline() });
    v
}

/// What running one variant on one program gave.
struct Measured {
    dyn_inst: u64,
    /// The printed program differs from the original's.
    changed: bool,
    /// Refusals (a note, not a failure), one line each.
    refusals: Vec<String>,
    /// Expressions LCM moved, over the functions (0 for variants without LCM).
    lcm_moved: usize,
    /// Self-copies `x = id x` in the result, and how many instructions they account for in
    /// the run (measured by running the result without them).
    self_copies: usize,
    self_copy_runs: u64,
}

/// `m` without its self-copies `x = id x`: copy propagation leaves them (they relate no two
/// variables) and DCE keeps them when `x` is used later, so they are what is left of the
/// copies in the benchmarks.
fn without_self_copies(m: &Module) -> (Module, usize) {
    let mut out = m.clone();
    let mut n = 0;
    for f in &mut out.functions {
        for &b in &f.layout {
            let insts = &f.insts;
            let before = f.blocks[b].insts.len();
            f.blocks[b].insts.retain(|&i| {
                let inst = &insts[i];
                !(inst.op == Op::Bril(BrilOp::Id) && inst.results.len() == 1 && inst.args == inst.results)
            });
            n += before - f.blocks[b].insts.len();
        }
    }
    (out, n)
}

struct Program {
    folder: &'static str,
    name: String,
    /// One per variant, in `variants()` order.
    runs: Vec<Measured>,
}

/// Runs `v` on `m`, prints and re-parses the result, runs it and checks it prints `expected`.
fn measure(name: &str, m: &Module, original_text: &str, v: &Variant, cfg: &RunConfig, expected: &str) -> Result<Measured, String> {
    let (out, runs) = v.pipeline.run_module(m, &Options::default());
    let mut refusals = Vec::new();
    let mut lcm_moved = 0;
    for r in &runs {
        for s in &r.stages {
            match &s.outcome {
                Outcome::Ran => {}
                Outcome::Refused(msg) => refusals.push(format!("{name}: {} refused: {msg}", s.pass.title)),
                Outcome::Failed(msg) => return Err(format!("{name} ({}): {} failed: {msg}", v.title, s.pass.title)),
            }
            if let Detail::Lcm { out: o, .. } = &s.detail {
                lcm_moved += o.moved().len();
            }
        }
    }
    let text = print_module(&out, Naming::User);
    let prog = parse_module(Lang::Bril, name, &text).map_err(|d| format!("{name} ({}): does not parse back: {d:?}\n{text}", v.title))?;
    let r = bril::run(&prog, cfg);
    if let Some(e) = &r.error {
        return Err(format!("{name} ({}): the run failed: {e}", v.title));
    }
    if r.stdout != expected {
        return Err(format!("{name} ({}): prints something else than its .out", v.title));
    }
    let (bare, self_copies) = without_self_copies(&prog);
    let self_copy_runs = if self_copies == 0 { 0 } else { r.dyn_inst.saturating_sub(bril::run(&bare, cfg).dyn_inst) };
    Ok(Measured { dyn_inst: r.dyn_inst, changed: text != original_text, refusals, lcm_moved, self_copies, self_copy_runs })
}

fn percent(after: u64, before: u64) -> String {
    let p = after as f64 / before.max(1) as f64 * 100.0 - 100.0;
    // A minus sign, not a hyphen, as in the rest of the report.
    format!("{p:+.1}%").replace('-', "−")
}

/// `8569342` → `8,569,342`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The programs of one folder; those without a `.out` file are listed in `skipped` (as
/// Bril's own runner skips them: there is nothing to check the output against).
fn load_folder(root: &Path, folder: &'static str, vs: &[Variant], problems: &mut Vec<String>, skipped: &mut Vec<String>) -> Vec<Program> {
    let dir = root.join(folder);
    let files = common::files_with_ext(&dir, "bril");
    assert!(!files.is_empty(), "no benchmarks in {}", dir.display());
    let mut programs = Vec::new();
    for path in &files {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Ok(expected) = std::fs::read_to_string(path.with_extension("out")) else {
            skipped.push(format!("{folder}/{name}"));
            continue;
        };
        let m = parse_module(Lang::Bril, &name, &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let original_text = print_module(&m, Naming::User);
        let cfg = RunConfig { output_limit: 1 << 30, ..RunConfig::with_args(bril::args_from_source(&text)) };
        let mut runs = Vec::new();
        for v in vs {
            match measure(&name, &m, &original_text, v, &cfg, &expected) {
                Ok(r) => runs.push(r),
                Err(why) => {
                    problems.push(format!("{folder}/{why}"));
                    // Keep the row: the original's count stands in, the failure is listed.
                    let dyn_inst = runs.first().map_or(0, |r: &Measured| r.dyn_inst);
                    runs.push(Measured { dyn_inst, changed: false, refusals: Vec::new(), lcm_moved: 0, self_copies: 0, self_copy_runs: 0 });
                }
            }
        }
        programs.push(Program { folder, name, runs });
    }
    programs
}

#[test]
fn quality_report_over_every_bril_benchmark() {
    let Some(shared) = common::shared_dir() else { return };
    let root = shared.join("corpus/bril/benchmarks");
    let vs = variants();
    let col = |title: &str| vs.iter().position(|v| v.title == title).unwrap_or_else(|| panic!("no column {title}"));
    let (orig, lcm, lcm_cp, default) = (0, col("LCM"), col("lcm,copyprop"), col(pipeline::DEFAULT));
    let never_raise: Vec<usize> = ["DCE", "Copy propagation"].iter().map(|t| col(t)).collect();

    let mut problems = Vec::new();
    let (mut programs, mut skipped) = (Vec::new(), Vec::new());
    for &folder in FOLDERS {
        programs.extend(load_folder(&root, folder, &vs, &mut problems, &mut skipped));
    }

    // The goals, over every program.
    let mut lcm_changed = Vec::new();
    let mut refusals = Vec::new();
    for p in &programs {
        let n = |k: usize| p.runs[k].dyn_inst;
        let id = format!("{}/{}", p.folder, p.name);
        if n(default) > n(orig) {
            problems.push(format!("{id}: the default pipeline raised the count {} → {}", n(orig), n(default)));
        }
        for &k in &never_raise {
            if n(k) > n(orig) {
                problems.push(format!("{id}: {} alone raised the count {} → {}", vs[k].title, n(orig), n(k)));
            }
        }
        if p.runs[lcm].changed {
            if n(lcm_cp) >= n(lcm) {
                problems.push(format!("{id}: LCM then copy propagation {} is not below LCM alone {}", n(lcm_cp), n(lcm)));
            }
            if n(default) > n(orig) {
                problems.push(format!("{id}: LCM changes it and the default pipeline raised the count {} → {}", n(orig), n(default)));
            }
            lcm_changed.push(p);
        }
        for r in &p.runs {
            for line in &r.refusals {
                if !refusals.contains(line) {
                    refusals.push(line.clone());
                }
            }
        }
    }

    // The tables.
    let shown: Vec<usize> = (0..vs.len()).filter(|&k| k != lcm_cp).collect();
    let mut table = String::from("| folder | programs |");
    for &k in &shown {
        let _ = write!(table, " {} |", vs[k].title);
    }
    table.push_str(" change |\n|---|---:|");
    table.push_str(&"---:|".repeat(shown.len() + 1));
    table.push('\n');
    let mut totals = vec![0u64; vs.len()];
    let mut core_total = None;
    for &folder in FOLDERS {
        let rows: Vec<&Program> = programs.iter().filter(|p| p.folder == folder).collect();
        let sums: Vec<u64> = (0..vs.len()).map(|k| rows.iter().map(|p| p.runs[k].dyn_inst).sum()).collect();
        let _ = write!(table, "| {folder} | {} |", rows.len());
        for &k in &shown {
            let cell = if k == orig { thousands(sums[k]) } else { format!("{} ({})", thousands(sums[k]), percent(sums[k], sums[orig])) };
            let _ = write!(table, " {cell} |");
        }
        let _ = writeln!(table, " {} |", percent(sums[default], sums[orig]));
        for (t, s) in totals.iter_mut().zip(&sums) {
            *t += s;
        }
        if folder == "core" {
            core_total = Some((sums[orig], sums[default]));
        }
    }
    let _ = write!(table, "| **all** | {} |", programs.len());
    for &k in &shown {
        let cell = if k == orig { thousands(totals[k]) } else { format!("{} ({})", thousands(totals[k]), percent(totals[k], totals[orig])) };
        let _ = write!(table, " {cell} |");
    }
    let _ = writeln!(table, " {} |", percent(totals[default], totals[orig]));

    let mut changed = format!(
        "\nPrograms LCM changes ({}):\n\n| program | expressions moved | original | LCM | lcm,copyprop | {} |\n|---|---:|---:|---:|---:|---:|\n",
        lcm_changed.len(),
        pipeline::DEFAULT
    );
    for p in &lcm_changed {
        let n = |k: usize| thousands(p.runs[k].dyn_inst);
        let _ = writeln!(
            changed,
            "| {}/{} | {} | {} | {} | {} | {} |",
            p.folder,
            p.name,
            p.runs[lcm].lcm_moved,
            n(orig),
            n(lcm),
            n(lcm_cp),
            n(default)
        );
    }
    // Every program, for finding where a folder's change comes from.
    let mut each = String::from("\nPer program:\n\n| program |");
    for &k in &shown {
        let _ = write!(each, " {} |", vs[k].title);
    }
    each.push_str("\n|---|");
    each.push_str(&"---:|".repeat(shown.len()));
    each.push('\n');
    for p in &programs {
        let _ = write!(each, "| {}/{} |", p.folder, p.name);
        for &k in &shown {
            let _ = write!(each, " {} |", p.runs[k].dyn_inst);
        }
        each.push('\n');
    }
    eprintln!("{table}{changed}{each}");
    for k in [orig, default] {
        let (st, dy): (usize, u64) = programs.iter().fold((0, 0), |(s, d), p| (s + p.runs[k].self_copies, d + p.runs[k].self_copy_runs));
        let with = programs.iter().filter(|p| p.runs[k].self_copies > 0).count();
        eprintln!("Self-copies `x = id x` ({}): {st} in {with} programs, {} executed", vs[k].title, thousands(dy));
    }
    if !skipped.is_empty() {
        eprintln!("Skipped (no .out file): {}", skipped.join(", "));
    }
    if !refusals.is_empty() {
        eprintln!("Refusals:\n{}", refusals.join("\n"));
    }

    let (core_orig, core_default) = core_total.unwrap_or_default();
    eprintln!("core: original {}, default pipeline {} (goal ≤ {})", thousands(core_orig), thousands(core_default), thousands(CORE_GOAL));
    if core_default > CORE_GOAL {
        problems.push(format!(
            "core: the default pipeline's total {} is above the course pipeline's {} (original {})",
            thousands(core_default),
            thousands(CORE_GOAL),
            thousands(core_orig)
        ));
    }
    assert!(!lcm_changed.is_empty(), "LCM changed no benchmark");
    assert!(problems.is_empty(), "{} goal(s) failed:\n{}", problems.len(), problems.join("\n"));
}
