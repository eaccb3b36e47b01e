//! LCM over every Bril core benchmark (`../shared/corpus/bril/benchmarks/core/`): the
//! transformed program prints the benchmark's `.out`, and no candidate expression is
//! evaluated more often than before. `cargo test --test lcm_corpus -- --nocapture` prints
//! the per-benchmark table of dynamic instruction counts (brili's `-p` count) and
//! evaluations of candidate expressions, before and after.


mod common;
use optlab_core::interp::{bril, RunConfig};
use optlab_core::ir::{BrilOp, Function, Imm, Inst, Module, Op, Type, ValueDef};
use optlab_core::passes::lcm::{run_module, Options};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, Lang};
use std::collections::BTreeMap;

/// Operations whose computations are candidate expressions, by the definition.
const CANDIDATE_OPS: &[BrilOp] = {
    use BrilOp::*;
    &[
        Add, Sub, Mul, Div, Eq, Lt, Gt, Le, Ge, Not, And, Or, Fadd, Fsub, Fmul, Fdiv, Feq, Flt, Fgt, Fle, Fge, Ceq,
        Clt, Cgt, Cle, Cge, Char2Int, Int2Char,
    ]
};

/// The text of the expression an instruction evaluates (`add a b`), if it is a candidate.
fn expr_text(f: &Function, inst: &Inst) -> Option<String> {
    let Op::Bril(op) = &inst.op else { return None };
    let candidate = CANDIDATE_OPS.contains(op);
    if !candidate || inst.results.len() != 1 || inst.args.is_empty() {
        return None;
    }
    Some(std::iter::once(op.name()).chain(inst.args.iter().map(|&a| f.value_name(a))).collect::<Vec<_>>().join(" "))
}

/// Prints marker `k` before every evaluation of the `k`-th (function, expression) of
/// `table`. The program's own output is the same before and after LCM (checked first), so
/// comparing how often each marker value appears compares the evaluations exactly, even if
/// the program happens to print a marker value itself.
fn instrument(m: &Module, table: &mut Vec<(String, String)>) -> Module {
    let mut out = m.clone();
    for f in &mut out.functions {
        let mark = f.add_value("__lcm_mark", Some(Type::Int), ValueDef::Var);
        for b in f.layout.clone() {
            let old = std::mem::take(&mut f.blocks[b].insts);
            let mut insts = Vec::new();
            for i in old {
                if let Some(text) = expr_text(f, &f.insts[i]) {
                    let key = (f.name.clone(), text);
                    let k = table.iter().position(|x| *x == key).unwrap_or_else(|| {
                        table.push(key);
                        table.len() - 1
                    });
                    let mut c = Inst::new(Op::Bril(BrilOp::Const));
                    c.results.push(mark);
                    c.ty = Some(Type::Int);
                    c.imm = Imm::Int(k as i128);
                    let mut p = Inst::new(Op::Bril(BrilOp::Print));
                    p.args.push(mark);
                    insts.push(f.add_inst(c));
                    insts.push(f.add_inst(p));
                }
                insts.push(i);
            }
            f.blocks[b].insts = insts;
        }
    }
    out
}

fn count_lines(stdout: &str) -> BTreeMap<&str, u64> {
    let mut m = BTreeMap::new();
    for l in stdout.lines() {
        *m.entry(l).or_insert(0) += 1;
    }
    m
}

#[test]
fn every_core_benchmark_prints_its_out_file_and_evaluates_no_more() {
    let Some(shared) = common::shared_dir() else { return };
    let dir = shared.join("corpus/bril/benchmarks/core");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bril"))
        .collect();
    files.sort();
    assert!(files.len() >= 60, "only {} benchmarks found", files.len());

    let mut table = String::from(
        "| benchmark | dyn. instructions before | after | change | evaluations before | after | expressions moved |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let (mut total_b, mut total_a, mut ev_b, mut ev_a) = (0u64, 0u64, 0u64, 0u64);
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
        let m = parse_module(Lang::Bril, &name, &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let (out, outputs) = run_module(&m, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Through text, as `optlab lcm --emit` users get it.
        let emitted = print_module(&out, Naming::User);
        let out = parse_module(Lang::Bril, &name, &emitted).unwrap_or_else(|d| panic!("{name}: {d:?}\n{emitted}"));

        let cfg = RunConfig { output_limit: 1 << 30, ..RunConfig::with_args(bril::args_from_source(&text)) };
        let before = bril::run(&m, &cfg);
        let after = bril::run(&out, &cfg);
        assert!(before.error.is_none(), "{name}: {:?}", before.error);
        assert!(after.error.is_none(), "{name} after LCM: {:?}\n{emitted}", after.error);
        assert_eq!(before.stdout, expected, "{name}: the interpreter disagrees with the .out file");
        assert_eq!(after.stdout, expected, "{name}: LCM changed the output\n{emitted}");

        let mut keys = Vec::new();
        let ib = bril::run(&instrument(&m, &mut keys), &cfg);
        let ia = bril::run(&instrument(&out, &mut keys), &cfg);
        assert!(ib.error.is_none() && ia.error.is_none(), "{name}: instrumented runs failed");
        let (cb, ca) = (count_lines(&ib.stdout), count_lines(&ia.stdout));
        for (k, key) in keys.iter().enumerate() {
            let k = k.to_string();
            let (nb, na) = (cb.get(k.as_str()).copied().unwrap_or(0), ca.get(k.as_str()).copied().unwrap_or(0));
            assert!(na <= nb, "{name}: `{}` in @{} evaluated {na} times after LCM, {nb} before", key.1, key.0);
        }
        let evals = |out: &str, own: &str| out.lines().count() as u64 - own.lines().count() as u64;
        let (eb, ea) = (evals(&ib.stdout, &before.stdout), evals(&ia.stdout, &after.stdout));
        let moved: usize = outputs.iter().map(|o| o.moved().len()).sum();
        let change = after.dyn_inst as f64 / before.dyn_inst.max(1) as f64 * 100.0 - 100.0;
        table.push_str(&format!(
            "| {name} | {} | {} | {change:+.1}% | {eb} | {ea} | {moved} |\n",
            before.dyn_inst, after.dyn_inst
        ));
        total_b += before.dyn_inst;
        total_a += after.dyn_inst;
        ev_b += eb;
        ev_a += ea;
    }
    let change = total_a as f64 / total_b as f64 * 100.0 - 100.0;
    table.push_str(&format!("| **total** | {total_b} | {total_a} | {change:+.1}% | {ev_b} | {ev_a} | |\n"));
    eprintln!("{table}");
    assert!(ev_a <= ev_b);
}

/// Swift's own SIL test files (`../shared/corpus/swift/**/*.sil`): LCM on every function
/// either transforms it into SIL that verifies, is in SSA form (both checked inside
/// `run_function`) and parses again to the same module, or refuses with a stated reason —
/// never an error for being SIL, never an internal error.
#[test]
fn every_swift_corpus_function_is_transformed_or_refused_with_a_reason() {
    use optlab_core::passes::lcm::{run_module_lenient, LcmError};
    let Some(shared) = common::shared_dir() else { return };
    let files: Vec<_> = common::corpus::files(&shared).into_iter().filter(|f| f.lang == Lang::Sil).collect();
    assert!(!files.is_empty(), "no SIL corpus files");
    let (mut changed, mut unchanged, mut refused, mut unparsed, mut with_candidates) = (0, 0, Vec::new(), 0, 0);
    for file in &files {
        let path = &file.path;
        let text = file.program_text();
        let Ok(m) = parse_module(Lang::Sil, &file.rel, &text) else {
            // Files meant to be invalid, and the known gaps, are not LCM's business; every
            // valid file the lab reads parses (the corpus expectations say which).
            assert!(!file.is_read_valid(), "{}: a valid file does not parse", file.rel);
            unparsed += 1;
            continue;
        };
        let (out, results) = run_module_lenient(&m, &Options::default());
        for r in &results {
            if r.as_ref().is_ok_and(|o| !o.exprs.is_empty()) {
                with_candidates += 1;
            }
            match r {
                Ok(o) if o.moved().is_empty() => unchanged += 1,
                Ok(_) => changed += 1,
                Err(e @ LcmError::Unsupported { .. }) => refused.push(format!("{}: {e}", path.display())),
                Err(e @ LcmError::Malformed { .. }) => refused.push(format!("{}: {e}", path.display())),
                Err(e) => panic!("{}: {e}", path.display()),
            }
        }
        let printed = print_module(&out, Naming::User);
        let again = parse_module(Lang::Sil, "again.sil", &printed)
            .unwrap_or_else(|d| panic!("{}: the result does not parse again: {d:?}\n{printed}", path.display()));
        for f in again.bodies() {
            optlab_core::ir::verify(f).unwrap_or_else(|d| panic!("{}: @{} does not verify: {d:?}", path.display(), f.name));
        }
    }
    println!(
        "SIL corpus: {} files ({unparsed} not parsed), {changed} functions transformed, {unchanged} unchanged (nothing to move; {with_candidates} with candidate expressions), {} refused",
        files.len(),
        refused.len()
    );
    for r in &refused {
        println!("  refused: {r}");
    }
    assert!(refused.iter().all(|r| !r.contains("runs on Bril")));
}
