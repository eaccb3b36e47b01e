//! SSA construction and the translation out of SSA on every Bril program of the corpus that
//! comes with the output of a run (the benchmarks, Bril's interpreter tests, its SSA tests):
//!
//! - into SSA (in `set`/`get` form and in `phi` form), every function is in SSA form (one
//!   assignment per variable, φs at block tops) and the program prints its `.out`;
//! - the round trip (into SSA, out of it) prints its `.out` too, and so does the translation
//!   out of SSA of programs the corpus writes in SSA form;
//! - the round trip of a program that needs no φ costs nothing: the same instructions, static
//!   and dynamic.
//!
//! It prints, per folder, the static and dynamic instruction counts of the originals, of
//! their SSA form and of the round trip: the overhead BENCHMARKS.md reports.

mod common;

use optlab_core::interp::{bril, RunConfig};
use optlab_core::ir::check_ssa_form;
use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::{Options, Outcome};
use optlab_core::{Lang, Module};
use std::collections::BTreeMap;

/// The module after `passes`, and every internal error a stage reported.
fn through(m: &Module, passes: &str, opts: &Options) -> (Module, Vec<String>) {
    let pipeline = Pipeline::parse(passes).expect("registered passes");
    let (out, runs) = pipeline.run_module(m, opts);
    let mut failed = Vec::new();
    for r in &runs {
        for s in &r.stages {
            if let Outcome::Failed(msg) = &s.outcome {
                failed.push(format!("{}: {msg}", s.pass.slug));
            }
        }
    }
    (out, failed)
}

fn static_count(m: &Module) -> usize {
    m.functions.iter().map(|f| f.placed_insts().count()).sum()
}

#[derive(Default)]
struct Row {
    programs: usize,
    static_: [usize; 3],
    dynamic: [u64; 3],
}

#[test]
fn into_ssa_and_back_keep_every_corpus_program_printing_its_output() {
    let Some(shared) = common::shared_dir() else { return };
    let mut problems = Vec::new();
    let mut table: BTreeMap<String, Row> = BTreeMap::new();
    let mut no_phi_unchanged = 0;
    for file in common::corpus::read_valid(&shared, Lang::Bril) {
        let Some((args, want)) = file.expected_run() else { continue };
        let m = file.module();
        let cfg = RunConfig::with_args(args);
        let original = bril::run(&m, &cfg);
        if original.stdout != want {
            // Not this test's business (bril_runs and interp_bril_corpus say why).
            continue;
        }
        let mut check = |what: &str, out: &Module, failed: Vec<String>| -> Option<u64> {
            for msg in failed {
                problems.push(format!("{}: {what}: {msg}", file.rel));
            }
            let r = bril::run(out, &cfg);
            if r.stdout != want {
                let why = r.error.as_ref().map(|e| format!(" (stopped: {})", e.kind)).unwrap_or_default();
                problems.push(format!("{}: {what} printed {:?}, expected {:?}{why}", file.rel, r.stdout, want));
                return None;
            }
            Some(r.dyn_inst)
        };
        let uses_ssa = m.functions.iter().any(|f| {
            f.placed_insts().any(|(_, i)| matches!(f.insts[i].op.name(), "set" | "get" | "phi"))
        });
        if uses_ssa {
            let (out, failed) = through(&m, "out-of-ssa", &Options::default());
            check("out of SSA", &out, failed);
            continue;
        }
        let (ssa, failed) = through(&m, "ssa", &Options::default());
        let not_ssa: Vec<String> = (ssa.functions.iter().filter(|f| !f.speculates()))
            .filter_map(|f| check_ssa_form(f).err().map(|d| format!("{}: @{} is not in SSA form: {}", file.rel, f.name, d.iter().next().map_or("", |d| d.message.as_str()))))
            .collect();
        let ssa_dyn = check("into SSA", &ssa, failed);
        let (phi, failed) = through(&m, "ssa", &Options { phi_form: true, ..Options::default() });
        check("into SSA (phi form)", &phi, failed);
        let (phi_back, failed) = through(&m, "ssa,out-of-ssa", &Options { phi_form: true, ..Options::default() });
        check("into SSA (phi form) and out", &phi_back, failed);
        let (back, failed) = through(&m, "ssa,out-of-ssa", &Options::default());
        let back_dyn = check("into SSA and out", &back, failed);
        problems.extend(not_ssa);
        let no_phi = ssa.functions.iter().all(|f| f.placed_insts().all(|(_, i)| f.insts[i].op.name() != "get"));
        if no_phi {
            // Renamed, perhaps (`x.1`, `x.2` for a variable assigned twice), but not one
            // instruction more, statically or run.
            if static_count(&back) != static_count(&m) || back_dyn.is_some_and(|d| d != original.dyn_inst) {
                problems.push(format!("{}: needs no φ, but its round trip costs more", file.rel));
            } else {
                no_phi_unchanged += 1;
            }
        }
        if let (Some(s), Some(b)) = (ssa_dyn, back_dyn) {
            // The benchmarks per suite (`core`, `mem`, …), as Bril's own measurements are.
            let folder = match file.rel.strip_prefix("bril/benchmarks/").and_then(|r| r.split_once('/')) {
                Some((suite, _)) => format!("bril/benchmarks/{suite}"),
                None => file.folder(),
            };
            let row = table.entry(folder).or_default();
            row.programs += 1;
            row.static_[0] += static_count(&m);
            row.static_[1] += static_count(&ssa);
            row.static_[2] += static_count(&back);
            row.dynamic[0] += original.dyn_inst;
            row.dynamic[1] += s;
            row.dynamic[2] += b;
        }
    }
    let pct = |a: u64, b: u64| if b == 0 { 0.0 } else { 100.0 * (a as f64 - b as f64) / b as f64 };
    println!("| folder | programs | static: original | SSA | round trip | dynamic: original | SSA | round trip |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (folder, r) in &table {
        println!(
            "| {folder} | {} | {} | {} ({:+.1}%) | {} ({:+.1}%) | {} | {} ({:+.1}%) | {} ({:+.1}%) |",
            r.programs,
            r.static_[0],
            r.static_[1],
            pct(r.static_[1] as u64, r.static_[0] as u64),
            r.static_[2],
            pct(r.static_[2] as u64, r.static_[0] as u64),
            r.dynamic[0],
            r.dynamic[1],
            pct(r.dynamic[1], r.dynamic[0]),
            r.dynamic[2],
            pct(r.dynamic[2], r.dynamic[0]),
        );
    }
    println!("{no_phi_unchanged} programs need no φ; their round trip costs nothing");
    assert!(table.values().map(|r| r.programs).sum::<usize>() > 100, "too few programs ran");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
