//! Ownership analysis + verifier, and DCE (whose OSSA repairs read the analysis), on
//! forwarding chains of depth 10 to 10,000 (time must grow linearly: kinds are memoised with
//! an explicit stack, lifetimes walked once) and on each of
//! Swift's OSSA test files (each must stay under 100 ms). Prints a Markdown table:
//! `cargo bench -p optlab-core --bench ownership`.

use optlab_core::ir::{Lang, Module};
use optlab_core::sil::ownership::{analyze, verify};
use optlab_core::sil::types::{env_of, FunctionTypes};
use std::time::{Duration, Instant};

/// An owned value forwarded `depth` times, rotating `struct`, `destructure_struct` and
/// `unchecked_ref_cast` — each consumes its operand and forwards its ownership.
fn chain(depth: usize) -> String {
    let mut s = String::from("sil_stage canonical\nimport Builtin\nclass K {}\nstruct W { var k: K }\n");
    s.push_str("sil [ossa] @chain : $@convention(thin) (@owned K) -> () {\nbb0(%0 : @owned $K):\n");
    let mut cur = "%0".to_string();
    let mut wrapped = false;
    for k in 1..=depth {
        let next = format!("%v{k}");
        if wrapped {
            s.push_str(&format!("  ({next}) = destructure_struct {cur} : $W\n"));
            wrapped = false;
        } else if k % 3 == 0 {
            s.push_str(&format!("  {next} = unchecked_ref_cast {cur} : $K to $K\n"));
        } else {
            s.push_str(&format!("  {next} = struct $W ({cur} : $K)\n"));
            wrapped = true;
        }
        cur = next;
    }
    let ty = if wrapped { "W" } else { "K" };
    s.push_str(&format!("  destroy_value {cur} : ${ty}\n  %r = tuple ()\n  return %r : $()\n}}\n"));
    s
}

fn time_module(m: &Module, reps: usize) -> (Duration, usize) {
    let env = env_of(m);
    let mut best = Duration::MAX;
    let mut findings = 0;
    for _ in 0..reps {
        let t = Instant::now();
        findings = 0;
        for f in m.bodies() {
            let fo = analyze(f, &FunctionTypes::new(f, env.clone()));
            findings += verify(f, &fo).findings.len();
        }
        best = best.min(t.elapsed());
    }
    (best, findings)
}

fn time_dce(m: &Module, reps: usize) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        std::hint::black_box(optlab_core::passes::dce::run_module(m));
        best = best.min(t.elapsed());
    }
    best
}

fn main() {
    println!("| forwarding chain depth | analysis + verifier | per link | findings | DCE | DCE per link |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for depth in [10usize, 100, 1_000, 10_000] {
        let text = chain(depth);
        let m = optlab_core::parse_module(Lang::Sil, "chain.sil", &text).expect("the chain parses");
        let reps = if depth >= 10_000 { 3 } else { 10 };
        let (t, n) = time_module(&m, reps);
        let d = time_dce(&m, reps);
        println!(
            "| {depth} | {:.3} ms | {:.2} µs | {n} | {:.3} ms | {:.2} µs |",
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e6 / depth as f64,
            d.as_secs_f64() * 1e3,
            d.as_secs_f64() * 1e6 / depth as f64
        );
        assert_eq!(n, 0, "a valid chain verifies silently");
    }
    let shared = std::env::var_os("OPTLAB_SHARED").map(std::path::PathBuf::from).unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    println!();
    println!("| Swift test file | functions | analysis + verifier (all functions) |");
    println!("|---|---:|---:|");
    for file in ["dead_code_elimination.sil", "dead_code_elimination_ossa.sil", "dead_code_elimination_nontrivial_ossa.sil", "address_lowering.sil", "ownership-verifier/over_consume.sil"] {
        let Ok(text) = std::fs::read_to_string(shared.join("corpus/swift").join(file)) else { continue };
        let Ok(m) = optlab_core::parse_module(Lang::Sil, file, &text) else { continue };
        let (t, _) = time_module(&m, 10);
        println!("| {file} | {} | {:.3} ms |", m.bodies().count(), t.as_secs_f64() * 1e3);
        assert!(t < Duration::from_millis(100), "{file} takes {t:?}");
    }
}
