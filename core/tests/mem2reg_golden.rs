//! Mem2Reg on SIL: golden files, runs before and after, and Swift's own SIL files.
//!
//! - Each input under `tests/golden/mem2reg/` has a `.out` beside it: per function, the
//!   summary line, the promoted program (user names) and one line per step. Every run's
//!   output verifies, passes `dom::verify_ssa`, and equals the replay of its whole trace.
//!   `UPDATE_GOLDEN=1 cargo test -p optlab-core --test mem2reg_golden` rewrites the `.out`
//!   files; review the diff before committing.
//! - A `// RUN: FUNCTION ARGS…` line in an input runs that function in the SIL interpreter
//!   before and after the pass: the same result, output and error.
//! - Every function of `../shared/corpus/swift/**/*.sil` that parses is promoted or left as
//!   it is, never with an internal error; the number of promoted slots is printed.

mod common;

use optlab_core::interp::{sil, RunConfig};
use optlab_core::passes::mem2reg;
use optlab_core::passes::{self as passes, Analyses, Detail, Options, Outcome, PassRun};
use optlab_core::print::{print_function, Naming};
use optlab_core::{parse_module, Lang, Module};
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/mem2reg")
}

/// Mem2Reg on every body of `m`, each checked: the output verifies and is in SSA form
/// (`run` checks both), the whole trace replays to it, and every prefix replays.
fn promote(m: &Module, name: &str) -> (Module, Vec<(usize, PassRun)>) {
    let env = optlab_core::sil::types::env_of(m);
    let mut out = m.clone();
    let mut runs = Vec::new();
    for (k, f) in m.functions.iter().enumerate() {
        if f.is_declaration() {
            continue;
        }
        let a = Analyses::with_types(f, env.clone());
        let r = passes::run(&mem2reg::MEM2REG_PASS, f, &a, &Options::default());
        if let Outcome::Failed(msg) = &r.outcome {
            panic!("{name}/@{}: {msg}", f.name);
        }
        if let Detail::Mem2Reg(o) = &r.detail {
            let replayed = mem2reg::replay_to(f, &o.trace, o.trace.events.len()).unwrap_or_else(|e| panic!("{name}/@{}: {e}", f.name));
            assert_eq!(replayed.without_spans(), r.function.without_spans(), "{name}/@{}: the replay differs", f.name);
            out.functions[k] = (*r.function).clone();
        }
        runs.push((k, r));
    }
    (out, runs)
}

fn render(name: &str, text: &str) -> String {
    let m = parse_module(Lang::Sil, name, text).unwrap_or_else(|e| panic!("{name} does not parse: {e:?}"));
    let (_, runs) = promote(&m, name);
    let mut s = String::new();
    for (k, r) in &runs {
        let f = &m.functions[*k];
        s.push_str(&format!("=== {}\n", r.summary()));
        s.push_str(print_function(&r.function, Naming::User).trim_end());
        s.push_str("\n=== steps\n");
        for (k, t) in r.steps.texts().iter().enumerate() {
            s.push_str(&format!("{k}. {t}\n"));
        }
        if let Detail::Mem2Reg(o) = &r.detail {
            let json = serde_json::to_string(&o.trace).expect("the trace serializes");
            let back: mem2reg::Trace = serde_json::from_str(&json).expect("the trace reads back");
            assert_eq!(back, o.trace, "{name}: trace JSON round trip");
            // Every prefix replays, and the steps are one per event after the first.
            for n in 0..=o.trace.events.len() {
                mem2reg::replay_to(f, &o.trace, n).unwrap_or_else(|e| panic!("{name}/@{} step {n}: {e}", f.name));
            }
            assert_eq!(r.steps.len(), o.trace.events.len() + 1, "{name}: one step per event");
        }
    }
    s
}

fn inputs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(golden_dir()).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "sil"));
    v.sort();
    v
}

#[test]
fn golden_inputs() {
    let files = inputs();
    assert!(files.len() >= 6, "golden inputs missing in {}", golden_dir().display());
    for input in files {
        let name = input.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&input).unwrap();
        let got = render(&name, &text);
        let golden = input.with_extension("out");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", golden.display()));
        assert!(got == want, "{name} differs from {}:\n{got}", golden.display());
    }
}

/// The `// RUN: FUNCTION ARGS…` lines of an input.
fn run_lines(text: &str) -> Vec<(String, Vec<String>)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("// RUN:"))
        .filter_map(|l| {
            let mut words = l.split_whitespace().map(str::to_string);
            Some((words.next()?, words.collect()))
        })
        .collect()
}

#[test]
fn goldens_run_the_same_before_and_after() {
    let mut runs = 0;
    for input in inputs() {
        let name = input.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&input).unwrap();
        let m = parse_module(Lang::Sil, &name, &text).unwrap();
        let (after, _) = promote(&m, &name);
        for (function, args) in run_lines(&text) {
            let cfg = RunConfig::with_args(args.clone());
            let (x, y) = (sil::run(&m, &function, &cfg), sil::run(&after, &function, &cfg));
            assert!(x.is_ok(), "{name}: @{function} {args:?} does not run before the pass: {:?}", x.error);
            assert_eq!((&x.returned, &x.stdout, &x.error), (&y.returned, &y.stdout, &y.error), "{name}: @{function} {args:?}");
            // Each promoted load and store was an executed instruction.
            assert!(y.dyn_inst <= x.dyn_inst, "{name}: @{function} {args:?}");
            runs += 1;
        }
    }
    assert!(runs >= 6, "only {runs} runs");
}

/// Every function of Swift's SIL files is promoted or left alone, never failed.
#[test]
fn swift_corpus_promotes_without_internal_errors() {
    let Some(shared) = common::shared_dir() else { return };
    let files = common::files_with_ext(&shared.join("corpus/swift"), "sil");
    assert!(!files.is_empty(), "no SIL corpus files");
    let (mut functions, mut unparsed, mut slots, mut promoted, mut args, mut refused) = (0, 0, 0, 0, 0, 0);
    let mut with_promotion = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(m) = parse_module(Lang::Sil, &path.display().to_string(), &text) else {
            unparsed += 1;
            continue;
        };
        let env = optlab_core::sil::types::env_of(&m);
        for f in m.bodies() {
            functions += 1;
            let a = Analyses::with_types(f, env.clone());
            let r = passes::run(&mem2reg::MEM2REG_PASS, f, &a, &Options::default());
            match (&r.outcome, &r.detail) {
                (Outcome::Failed(msg), _) => panic!("{}/@{}: {msg}", path.display(), f.name),
                (Outcome::Ran, Detail::Mem2Reg(o)) => {
                    slots += o.stats.slots;
                    promoted += o.stats.promoted;
                    args += o.stats.args;
                    with_promotion += usize::from(o.stats.promoted > 0);
                    let replayed = mem2reg::replay_to(f, &o.trace, o.trace.events.len()).unwrap();
                    assert_eq!(replayed.without_spans(), r.function.without_spans(), "{}/@{}", path.display(), f.name);
                }
                _ => refused += 1,
            }
        }
    }
    println!(
        "Swift SIL corpus: {} files ({unparsed} not parsed), {functions} functions ({refused} refused as malformed), {slots} alloc_stack slots, {promoted} promoted in {with_promotion} functions, {args} block arguments added",
        files.len()
    );
    assert!(promoted > 0, "no slot of the corpus was promoted");
}
