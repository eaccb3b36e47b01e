//! Every valid Bril program of the corpus that comes with the output of a run (its `.out`,
//! where the corpus's runner keeps the interpreter's output there: `common::corpus`) runs in
//! the lab's interpreter to that output, with its `# ARGS:`; programs with imports run
//! linked with the files they import. The benchmarks, with their instruction counts, are
//! `interp_bril_corpus.rs`'s. Known gaps are `[run]` entries of the shrink-only list.

mod common;

use optlab_core::interp::{bril, RunConfig};
use optlab_core::Lang;
use std::collections::BTreeMap;

#[test]
fn every_corpus_program_with_an_expected_output_prints_it() {
    let Some(shared) = common::shared_dir() else { return };
    let mut problems = Vec::new();
    let mut ran: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for f in common::corpus::read_valid(&shared, Lang::Bril) {
        if f.rel.starts_with("bril/benchmarks/") {
            continue;
        }
        let Some((args, want)) = f.expected_run() else { continue };
        let m = f.module();
        let r = bril::run(&m, &RunConfig::with_args(args));
        let mut mine = Vec::new();
        if r.stdout != want {
            let why = r.error.as_ref().map(|e| format!(" (stopped: {})", e.kind)).unwrap_or_default();
            mine.push(format!("printed {:?}, expected {:?}{why}", r.stdout, want));
        }
        let row = ran.entry(f.folder()).or_default();
        row.0 += 1;
        if mine.is_empty() && !f.later_gaps.contains_key("run") {
            row.1 += 1;
        }
        problems.extend(common::corpus::against_gap_list(&f, "run", &mine));
    }
    for (folder, (n, ok)) in &ran {
        println!("{folder}: {ok} of {n} programs print their .out");
    }
    assert!(ran.values().map(|r| r.0).sum::<usize>() > 50, "too few programs with an expected output: {ran:?}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
