//! Copy propagation over every Bril core benchmark (`../shared/corpus/bril/benchmarks/core/`):
//! the dynamic instruction count (brili's `-p` count) of the original, of copy propagation
//! alone, of LCM alone and of LCM followed by copy propagation. Every variant must print the
//! benchmark's `.out`; on every benchmark LCM changes, LCM then copy propagation must execute
//! no more instructions than the original (LCM leaves a copy `d = id t` for each computation
//! it removes, which is what copy propagation exists to clean up).
//!
//! `cargo test -p optlab-core --test copyprop_corpus -- --nocapture` prints the table. Skips
//! with a notice when `../shared` is absent.

mod common;

use optlab_core::interp::{bril, RunConfig};
use optlab_core::passes::{copyprop, lcm};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang, Module};

/// Through text, as a user of the CLI gets it: the printed program must parse back.
fn reparse(name: &str, m: &Module) -> Module {
    let text = print_module(m, Naming::User);
    parse_module(Lang::Bril, name, &text).unwrap_or_else(|d| panic!("{name}: {d:?}\n{text}"))
}

#[test]
fn every_core_benchmark_keeps_its_output_and_lcm_plus_copyprop_is_never_worse() {
    let Some(shared) = common::shared_dir() else { return };
    let dir = shared.join("corpus/bril/benchmarks/core");
    let files = common::files_with_ext(&dir, "bril");
    assert!(files.len() >= 60, "only {} benchmarks found in {}", files.len(), dir.display());

    let mut table = String::from(
        "| benchmark | original | copyprop | LCM | LCM + copyprop | LCM changed it |\n|---|---:|---:|---:|---:|:---:|\n",
    );
    let mut totals = [0u64; 4];
    let mut changed_totals = [0u64; 4];
    let (mut changed, mut worse) = (0, Vec::new());
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
        let m = parse_module(Lang::Bril, &name, &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));

        let (cp, _) = copyprop::run_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (l, outputs) = lcm::run_module(&m, &lcm::Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (lcp, _) = copyprop::run_module(&l).unwrap_or_else(|e| panic!("{name} after LCM: {e}"));
        let lcm_changed = outputs.iter().any(|o| !o.moved().is_empty());

        let cfg = RunConfig { output_limit: 1 << 30, ..RunConfig::with_args(bril::args_from_source(&text)) };
        let mut counts = [0u64; 4];
        for (k, (what, prog)) in [("original", &m), ("copyprop", &cp), ("LCM", &l), ("LCM + copyprop", &lcp)].into_iter().enumerate() {
            let prog = reparse(&name, prog);
            let r = bril::run(&prog, &cfg);
            assert!(r.error.is_none(), "{name} ({what}): {:?}\n{}", r.error, print_module(&prog, Naming::User));
            assert_eq!(r.stdout, expected, "{name} ({what}) prints something else\n{}", print_module(&prog, Naming::User));
            counts[k] = r.dyn_inst;
        }
        assert!(counts[1] <= counts[0], "{name}: copy propagation alone raised the count {} → {}", counts[0], counts[1]);
        assert!(counts[3] <= counts[2], "{name}: copy propagation after LCM raised the count {} → {}", counts[2], counts[3]);
        if lcm_changed {
            changed += 1;
            if counts[3] > counts[0] {
                worse.push(format!("{name}: {} → {}", counts[0], counts[3]));
            }
            for k in 0..4 {
                changed_totals[k] += counts[k];
            }
        }
        for k in 0..4 {
            totals[k] += counts[k];
        }
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} |\n",
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            if lcm_changed { "yes" } else { "" }
        ));
    }
    let [o, c, l, lc] = totals;
    table.push_str(&format!("| **total** ({} programs) | {o} | {c} | {l} | {lc} | {changed} |\n", files.len()));
    let [o, c, l, lc] = changed_totals;
    table.push_str(&format!("| **total where LCM changed something** | {o} | {c} | {l} | {lc} | |\n"));
    eprintln!("{table}");
    assert!(changed > 0, "LCM changed no benchmark");
    assert!(worse.is_empty(), "LCM then copy propagation is worse than the original on:\n{}", worse.join("\n"));
}
