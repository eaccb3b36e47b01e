//! Properties of Lazy Code Motion (seed 004) on thousands of random programs:
//!
//! 1. **Same behaviour**: the transformed program prints, returns and fails exactly as the
//!    original on every input (`testgen`'s differential harness).
//! 2. **Safety**: on every run that ends normally, each expression is evaluated at most as
//!    often as before. Counted by instrumenting both programs: a marker `print` before every
//!    evaluation of a candidate expression (`t = e` insertions included, `d = t` copies not).
//! 3. **The bit vectors are the equations**: an independent re-computation of all thirteen
//!    predicates — per expression, plain `Vec<bool>` per block, straight from
//!    `docs/lcm-equations.md`, iterated in layout order until nothing changes — agrees with
//!    the pass's bit vectors in every block.
//!
//! Structured programs come from `testgen::generate` (loops, branches, guarded and unguarded
//! divisions, helpers); arbitrary graphs (irreducible loops, loops into the entry, infinite
//! loops, unreachable blocks, fall-through) from a small generator here.

use optlab_core::interp::RunConfig;
use optlab_core::ir::{BlockId, BrilOp, Effect, Function, Imm, Inst, Lang, Module, Op, Type, ValueDef};
use optlab_core::passes::lcm::{run_module, Edit, LcmOutput, Options, Pred, Step};
use optlab_core::print::{print_module, Naming};
use optlab_core::testgen::{self, build_module, BrilInst, FuncSpec, GenConfig, Rng};
use std::collections::{BTreeMap, BTreeSet};

// ---------------------------------------------------------------------------------------
// The naive oracle.

/// Operations whose computations are candidate expressions, by the definition.
const CANDIDATE_OPS: &[BrilOp] = {
    use BrilOp::*;
    &[
        Add, Sub, Mul, Div, Eq, Lt, Gt, Le, Ge, Not, And, Or, Fadd, Fsub, Fmul, Fdiv, Feq, Flt, Fgt, Fle, Fge, Ceq,
        Clt, Cgt, Cle, Cge, Char2Int, Int2Char,
    ]
};

fn is_candidate_op(op: &BrilOp) -> bool {
    CANDIDATE_OPS.contains(op)
}

fn traps(op: &BrilOp) -> bool {
    matches!(op, BrilOp::Div | BrilOp::Int2Char)
}

/// `op a b` of an instruction that computes a candidate, else `None`.
fn expr_text(f: &Function, inst: &Inst) -> Option<String> {
    let Op::Bril(op) = &inst.op else { return None };
    if !is_candidate_op(op) || inst.results.len() != 1 || inst.args.is_empty() {
        return None;
    }
    let mut s = op.name().to_string();
    for &a in &inst.args {
        s.push(' ');
        s.push_str(f.value_name(a));
    }
    Some(s)
}

struct NaiveGraph {
    blocks: Vec<BlockId>,
    succ: Vec<Vec<usize>>,
    /// Predecessors that are reachable.
    pred: Vec<Vec<usize>>,
    reach: Vec<bool>,
    to_exit: Vec<bool>,
}

fn naive_graph(f: &Function) -> NaiveGraph {
    let blocks = f.layout.clone();
    let n = blocks.len();
    let idx = |b: BlockId| blocks.iter().position(|&x| x == b).unwrap();
    let mut succ = vec![Vec::new(); n];
    let mut exit = vec![false; n];
    for (k, &b) in blocks.iter().enumerate() {
        match f.blocks[b].term {
            Some(t) => {
                for s in &f.insts[t].succs {
                    let j = idx(s.block);
                    if !succ[k].contains(&j) {
                        succ[k].push(j);
                    }
                }
                exit[k] = f.insts[t].op.is_function_exit();
            }
            None if k + 1 < n => succ[k].push(k + 1),
            None => exit[k] = true,
        }
    }
    let mut reach = vec![false; n];
    if n > 0 {
        reach[0] = true;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..n {
            if reach[k] {
                for &s in &succ[k] {
                    if !reach[s] {
                        reach[s] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    let mut pred = vec![Vec::new(); n];
    for k in 0..n {
        if reach[k] {
            for &s in &succ[k] {
                pred[s].push(k);
            }
        }
    }
    let mut to_exit: Vec<bool> = (0..n).map(|k| reach[k] && exit[k]).collect();
    changed = true;
    while changed {
        changed = false;
        for k in 0..n {
            if reach[k] && !to_exit[k] && succ[k].iter().any(|&s| to_exit[s]) {
                to_exit[k] = true;
                changed = true;
            }
        }
    }
    NaiveGraph { blocks, succ, pred, reach, to_exit }
}

/// All thirteen predicates of the expression `text` (its operation `op`, operands `args`),
/// `[pred][block]`, in layout order. `texts[i]` is what instruction `i` computes.
fn naive_predicates(f: &Function, g: &NaiveGraph, texts: &[Option<String>], text: &str) -> Vec<Vec<bool>> {
    let mut words = text.split(' ');
    let op = BrilOp::from_name(words.next().unwrap());
    let args: Vec<&str> = words.collect();
    let n = g.blocks.len();
    let (mut ncomp, mut xcomp, mut transp) = (vec![false; n], vec![false; n], vec![true; n]);
    for (k, &b) in g.blocks.iter().enumerate() {
        let (mut killed, mut available) = (false, false);
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            if texts[i.0 as usize].as_deref() == Some(text) {
                if !killed && !ncomp[k] {
                    ncomp[k] = true;
                }
                available = true;
            }
            let assigns = inst.results.iter().any(|&r| args.contains(&f.value_name(r)));
            let barrier = traps(&op)
                && (matches!(inst.effect(), Effect::SideEffect | Effect::ReadsMemory)
                    || matches!(&inst.op, Op::Bril(o) if traps(o) && *o != op));
            if assigns || barrier {
                killed = true;
                available = false;
            }
        }
        xcomp[k] = available && killed;
        transp[k] = !killed;
    }
    naive_global(g, ncomp, xcomp, transp)
}

/// The ten global predicates from the three local ones, `[pred][block]` for all thirteen.
fn naive_global(g: &NaiveGraph, ncomp: Vec<bool>, xcomp: Vec<bool>, transp: Vec<bool>) -> Vec<Vec<bool>> {
    let n = g.blocks.len();
    let r = &g.reach;
    let live: Vec<usize> = (0..n).filter(|&k| r[k]).collect();

    // Down-safety (greatest fixpoint: start from true, recompute until stable).
    let (mut nd, mut xd) = (r.clone(), r.clone());
    let mut changed = true;
    while changed {
        changed = false;
        for &k in &live {
            let x = xcomp[k] || (g.to_exit[k] && !g.succ[k].is_empty() && g.succ[k].iter().all(|&s| nd[s]));
            let nn = ncomp[k] || (transp[k] && x);
            changed |= x != xd[k] || nn != nd[k];
            xd[k] = x;
            nd[k] = nn;
        }
    }
    // Up-safety.
    let (mut nu, mut xu) = (r.clone(), r.clone());
    changed = true;
    while changed {
        changed = false;
        for &k in &live {
            let nn = k != 0 && g.pred[k].iter().all(|&p| xu[p]);
            let x = xcomp[k] || (transp[k] && (ncomp[k] || nn));
            changed |= x != xu[k] || nn != nu[k];
            nu[k] = nn;
            xu[k] = x;
        }
    }
    // Earliest.
    let mut ne = vec![false; n];
    let mut xe = vec![false; n];
    for &k in &live {
        ne[k] = nd[k] && (k == 0 || g.pred[k].iter().any(|&p| !(xu[p] || xd[p])));
        xe[k] = xd[k] && (!transp[k] || (!nd[k] && !nu[k]));
    }
    // Delayed.
    let (mut ndl, mut xdl) = (r.clone(), r.clone());
    changed = true;
    while changed {
        changed = false;
        for &k in &live {
            let nn = ne[k] || (k != 0 && g.pred[k].iter().all(|&p| xdl[p] && !xcomp[p]));
            let x = xe[k] || (nn && !ncomp[k]);
            changed |= x != xdl[k] || nn != ndl[k];
            ndl[k] = nn;
            xdl[k] = x;
        }
    }
    // Latest.
    let mut nl = vec![false; n];
    let mut xl = vec![false; n];
    for &k in &live {
        nl[k] = ndl[k] && (ncomp[k] || !xdl[k]);
        xl[k] = xdl[k] && (xcomp[k] || g.succ[k].iter().any(|&s| !ndl[s]));
    }
    vec![ncomp, xcomp, transp, nd, xd, nu, xu, ne, xe, ndl, xdl, nl, xl]
}

/// Checks one function's LCM output against the oracle; returns a description on mismatch.
fn oracle_agrees(o: &LcmOutput) -> Result<(), String> {
    let f = &o.split;
    let g = naive_graph(f);
    // Step 1 left no critical edge, and the entry has no predecessors.
    let mut npred = vec![0usize; g.blocks.len()];
    for s in g.succ.iter().flatten() {
        npred[*s] += 1;
    }
    if npred.first().is_some_and(|&p| p > 0) {
        return Err("the entry has predecessors after step 1".into());
    }
    for (k, ss) in g.succ.iter().enumerate() {
        for &s in ss {
            if ss.len() >= 2 && npred[s] >= 2 {
                return Err(format!(
                    "critical edge {} -> {} left",
                    f.blocks[g.blocks[k]].name, f.blocks[g.blocks[s]].name
                ));
            }
        }
    }
    let per_inst: Vec<Option<String>> = f.insts.values().map(|inst| expr_text(f, inst)).collect();
    let texts: BTreeSet<String> = f.placed_insts().filter_map(|(_, i)| per_inst[i.0 as usize].clone()).collect();
    let mine: BTreeSet<String> = o.exprs.values().map(|e| e.text()).collect();
    if texts != mine {
        return Err(format!("candidate expressions differ: oracle {texts:?}, pass {mine:?}"));
    }
    for (e, x) in o.exprs.iter() {
        let text = x.text();
        let want = naive_predicates(f, &g, &per_inst, &text);
        for (pi, p) in Pred::ALL.iter().enumerate() {
            for (k, &b) in g.blocks.iter().enumerate() {
                let got = o.preds.holds(*p, b, e);
                if got != want[pi][k] {
                    return Err(format!(
                        "{p}({}) for `{text}`: pass says {got}, the equations say {}",
                        f.blocks[b].name, want[pi][k]
                    ));
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Counting evaluations.

const MARK_BASE: i64 = -7_000_000_000_000;

/// A copy of `m` that prints `MARK_BASE - k` before every evaluation of the `k`-th
/// (function, expression) pair of `table`, adding pairs to `table` as it meets them.
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
                    c.imm = Imm::Int(i128::from(MARK_BASE - k as i64));
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

fn marks(stdout: &str) -> BTreeMap<i64, usize> {
    let mut m = BTreeMap::new();
    for line in stdout.lines() {
        if let Ok(v) = line.trim().parse::<i64>() {
            if v <= MARK_BASE && v > MARK_BASE - 1_000_000 {
                *m.entry(v).or_insert(0) += 1;
            }
        }
    }
    m
}

/// On each input where the original ends normally, no expression is evaluated more often
/// after LCM. Returns (evaluations before, after) summed over the inputs.
fn evaluations_never_grow(
    before: &Module,
    after: &Module,
    inputs: &[Vec<String>],
    limit: u64,
) -> Result<(usize, usize), String> {
    let mut table = Vec::new();
    let ib = instrument(before, &mut table);
    let ia = instrument(after, &mut table);
    let no_args = [Vec::new()];
    let inputs = if inputs.is_empty() { &no_args[..] } else { inputs };
    let (mut tb, mut ta) = (0, 0);
    for input in inputs {
        let cfg = RunConfig { args: input.clone(), step_limit: limit, ..RunConfig::default() };
        let rb = optlab_core::interp::bril::run(&ib, &cfg);
        if rb.error.is_some() {
            continue;
        }
        let ra = optlab_core::interp::bril::run(&ia, &cfg);
        if let Some(e) = &ra.error {
            return Err(format!("instrumented output failed: {e}"));
        }
        let (mb, ma) = (marks(&rb.stdout), marks(&ra.stdout));
        for (k, &n) in &ma {
            let was = mb.get(k).copied().unwrap_or(0);
            if n > was {
                let (func, text) = &table[(MARK_BASE - k) as usize];
                return Err(format!(
                    "`{text}` in @{func} evaluated {n} times, was {was}, on input [{}]",
                    input.join(" ")
                ));
            }
        }
        tb += mb.values().sum::<usize>();
        ta += ma.values().sum::<usize>();
    }
    Ok((tb, ta))
}

// ---------------------------------------------------------------------------------------
// Arbitrary control flow.

/// A random function with any control flow: loops into the entry, irreducible loops,
/// infinite loops, unreachable blocks, fall-through. All variables are defined first.
fn random_cfg(seed: u64) -> FuncSpec {
    let mut rng = Rng::new(seed);
    let nblocks = 1 + rng.below(9);
    random_cfg_sized(&mut rng, nblocks, &["a", "b", "c", "d"])
}

fn random_cfg_sized(rng: &mut Rng, nblocks: usize, ints: &[&'static str]) -> FuncSpec {
    let bools = ["p", "q"];
    let mut f = FuncSpec::new("main");
    let labels: Vec<String> = (0..nblocks).map(|k| format!("L{k}")).collect();
    // Sometimes the prologue is inside L0, so branches to L0 loop into the entry.
    let prologue_in_l0 = rng.chance(40);
    if prologue_in_l0 {
        f.label(&labels[0]);
    }
    for &v in ints {
        f.inst(BrilInst::constant(v, Type::Int, Imm::Int(rng.range(-2, 5).into())));
    }
    for v in bools {
        f.inst(BrilInst::constant(v, Type::Bool, Imm::Bool(rng.chance(50))));
    }
    for (k, l) in labels.iter().enumerate() {
        if k > 0 || !prologue_in_l0 {
            f.label(l);
        }
        for _ in 0..rng.below(5) {
            let x = *rng.pick::<&str>(ints);
            let y = *rng.pick::<&str>(ints);
            let inst = match rng.below(10) {
                0..=4 => {
                    let op = rng.pick(&[BrilOp::Add, BrilOp::Sub, BrilOp::Mul, BrilOp::Div, BrilOp::Add]).clone();
                    BrilInst::value(op, rng.pick::<&str>(ints), Type::Int, &[x, y])
                }
                5 => BrilInst::value(
                    rng.pick(&[BrilOp::Lt, BrilOp::Eq]).clone(),
                    rng.pick::<&str>(&bools),
                    Type::Bool,
                    &[x, y],
                ),
                6 => BrilInst::value(BrilOp::Not, rng.pick::<&str>(&bools), Type::Bool, &[rng.pick::<&str>(&bools)]),
                7 => BrilInst::effect(BrilOp::Print, &[x]),
                8 => BrilInst::constant(rng.pick::<&str>(ints), Type::Int, Imm::Int(rng.range(-1, 3).into())),
                _ => BrilInst::value(BrilOp::Id, rng.pick::<&str>(ints), Type::Int, &[y]),
            };
            f.inst(inst);
        }
        let target = |rng: &mut Rng| labels[rng.below(nblocks)].clone();
        match rng.below(8) {
            0..=2 => {
                let (t, e) = (target(rng), target(rng));
                f.inst(BrilInst::br(rng.pick::<&str>(&bools), &t, &e));
            }
            3 | 4 => {
                let t = target(rng);
                f.inst(BrilInst::jmp(&t));
            }
            5 => {
                f.inst(BrilInst::ret(None));
            }
            _ => {} // fall through (or off the end)
        }
    }
    f
}

// ---------------------------------------------------------------------------------------
// The tests.

fn lcm(m: &Module) -> (Module, Vec<LcmOutput>) {
    run_module(m, &Options::default()).unwrap_or_else(|e| panic!("LCM failed: {e}\n{}", print_module(m, Naming::User)))
}

#[test]
fn random_structured_programs_keep_behaviour_and_never_evaluate_more() {
    let configs = [
        (0..4000u64, GenConfig::default()),
        (100_000..100_500, GenConfig { statements: 30, max_depth: 4, int_vars: 3, ..GenConfig::default() }),
        // Many unguarded divisions: a division moved above a `print` shows as lost output.
        (200_000..200_500, GenConfig { unguarded_div_percent: 70, ..GenConfig::default() }),
    ];
    let (mut programs, mut moved, mut ev_before, mut ev_after) = (0, 0, 0, 0);
    for (seeds, cfg) in configs {
        for seed in seeds {
            let g = testgen::generate(seed, &cfg);
            let (out, outputs) = lcm(&g.module);
            programs += 1;
            moved += outputs.iter().filter(|o| !o.moved().is_empty()).count();
            for o in &outputs {
                if let Err(e) = oracle_agrees(o) {
                    panic!("seed {seed}, @{}: {e}\n{}", o.name, g.text);
                }
            }
            if let Err(m) = testgen::differential(&g.module, &out, &g.inputs) {
                panic!(
                    "seed {seed}: {m}\n--- original\n{}\n--- after LCM\n{}",
                    g.text,
                    print_module(&out, Naming::User)
                );
            }
            match evaluations_never_grow(&g.module, &out, &g.inputs, 5_000_000) {
                Ok((b, a)) => {
                    ev_before += b;
                    ev_after += a;
                }
                Err(e) => panic!(
                    "seed {seed}: {e}\n--- original\n{}\n--- after LCM\n{}",
                    g.text,
                    print_module(&out, Naming::User)
                ),
            }
        }
    }
    assert_eq!(programs, 5000);
    // The generator is built to contain redundancy: LCM must find some.
    assert!(moved > programs / 10, "LCM moved something in only {moved} of {programs} functions");
    assert!(ev_after < ev_before, "no evaluation saved overall: {ev_before} → {ev_after}");
    eprintln!("{programs} programs, {moved} functions changed, evaluations {ev_before} → {ev_after}");
}

#[test]
fn random_control_flow_graphs_agree_with_the_oracle_and_keep_behaviour() {
    let limit = 20_000;
    let (mut changed, mut endless) = (0, 0);
    for seed in 0..3000u64 {
        let spec = random_cfg(seed);
        let (text, m) = build_module(&format!("cfg-{seed}.bril"), std::slice::from_ref(&spec));
        let (out, outputs) = lcm(&m);
        for o in &outputs {
            if let Err(e) = oracle_agrees(o) {
                panic!("seed {seed}: {e}\n{text}");
            }
            changed += usize::from(!o.moved().is_empty());
        }
        // The printed result parses back (labels, fall-through and temporaries are valid).
        let printed = print_module(&out, Naming::User);
        let reparsed = optlab_core::parse_module(Lang::Bril, "out.bril", &printed)
            .unwrap_or_else(|d| panic!("seed {seed}: output does not parse: {d:?}\n{printed}"));
        let cfg = RunConfig { step_limit: limit, ..RunConfig::default() };
        if let Err(mm) = testgen::differential_entry(&m, &reparsed, "main", &[], &cfg) {
            panic!("seed {seed}: {mm}\n--- original\n{text}\n--- after LCM\n{printed}");
        }
        if let Err(e) = evaluations_never_grow(&m, &out, &[], limit) {
            panic!("seed {seed}: {e}\n--- original\n{text}\n--- after LCM\n{printed}");
        }
        // A run that never ends must still never end: LCM may not turn an endless loop into
        // a division by zero (down-safety does not hold vacuously where no exit is reachable).
        let before = optlab_core::interp::bril::run(&m, &cfg);
        if before.error.as_ref().is_some_and(|e| e.kind.is_limit()) {
            let after = optlab_core::interp::bril::run(&reparsed, &cfg);
            let ok = after.error.as_ref().is_some_and(|e| e.kind.is_limit())
                && (before.stdout.starts_with(&after.stdout) || after.stdout.starts_with(&before.stdout));
            assert!(
                ok,
                "seed {seed}: endless run became {:?}\n--- original\n{text}\n--- after LCM\n{printed}",
                after.error
            );
            endless += 1;
        }
    }
    assert!(endless > 100, "only {endless} endless runs");
    assert!(changed > 100, "only {changed} graphs changed");
}

#[test]
fn commute_is_also_safe() {
    for seed in 0..300u64 {
        let g = testgen::generate(seed, &GenConfig::default());
        let (out, _) = run_module(&g.module, &Options { commute: true }).unwrap();
        if let Err(m) = testgen::differential(&g.module, &out, &g.inputs) {
            panic!("seed {seed}: {m}\n{}", g.text);
        }
    }
}

#[test]
fn a_thousand_block_function_is_fast_and_its_trace_small() {
    let mut rng = Rng::new(7);
    let vars: Vec<&'static str> = (0..40).map(|k| &*Box::leak(format!("v{k}").into_boxed_str())).collect();
    let spec = random_cfg_sized(&mut rng, 1000, &vars);
    let (_, m) = build_module("big.bril", &[spec]);
    let start = std::time::Instant::now();
    let (_, outputs) = lcm(&m);
    let took = start.elapsed();
    let o = &outputs[0];
    let json = serde_json::to_string(&o.trace).unwrap();
    eprintln!(
        "1000 blocks, {} instructions, {} expressions: LCM {took:?}, trace {} KB",
        m.functions[0].insts.len(),
        o.exprs.len(),
        json.len() / 1024
    );
    assert!(took.as_secs_f64() < 10.0, "LCM took {took:?}");
    assert!(json.len() < 64 << 20, "trace of {} MB", json.len() >> 20);
    oracle_agrees(o).unwrap();
}

// ---------------------------------------------------------------------------------------
// SIL: random functions with loops (counters as block arguments, do-while loops whose back
// edge is a critical `cond_br` edge with arguments), if/else joins with block arguments,
// trapping divisions and remainders, and calls (observable effects).

const I64: &str = "$Builtin.Int64";
const SIL_OPS: &[&str] = &["add", "sub", "mul", "xor", "add", "sdiv", "srem"];

struct SilGen {
    out: String,
    rng: Rng,
    block: usize,
    value: usize,
    /// Values the current point may read (a stack: branches pop what they defined).
    scope: Vec<String>,
}

impl SilGen {
    fn v(&mut self) -> String {
        self.value += 1;
        format!("v{}", self.value)
    }
    fn b(&mut self) -> usize {
        self.block += 1;
        self.block
    }
    fn pick(&mut self) -> String {
        let k = self.rng.below(self.scope.len());
        self.scope[k].clone()
    }
    fn line(&mut self, s: String) {
        self.out.push_str("  ");
        self.out.push_str(&s);
        self.out.push('\n');
    }
    fn compute(&mut self) {
        // Few operands, so the same expression recurs on different paths.
        let (a, b) = (self.pick(), self.pick());
        if self.rng.chance(15) {
            // Aggregates of trivial values are candidates too.
            let (t, x) = (self.v(), self.v());
            let k = self.rng.below(2);
            self.line(format!("%{t} = tuple (%{a} : {I64}, %{b} : {I64})"));
            self.line(format!("%{x} = tuple_extract %{t} : $(Builtin.Int64, Builtin.Int64), {k}"));
            self.scope.push(x);
            return;
        }
        let op = *self.rng.pick(SIL_OPS);
        let x = self.v();
        self.line(format!("%{x} = builtin \"{op}_Int64\"(%{a} : {I64}, %{b} : {I64}) : {I64}"));
        if self.rng.chance(50) {
            self.scope.push(x);
        }
    }
    fn body(&mut self, depth: u32) {
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(10) {
                0..=5 => self.compute(),
                6 => {
                    let (a, x) = (self.pick(), self.v());
                    self.line(format!("%{x} = apply %observe(%{a}) : $@convention(thin) (Builtin.Int64) -> ()"));
                }
                7 if depth < 3 => self.if_else(depth + 1),
                8 if depth < 3 => self.while_loop(depth + 1),
                9 if depth < 3 => self.do_while(depth + 1),
                _ => self.compute(),
            }
        }
    }
    fn new_block(&mut self, l: usize, params: &str) {
        self.out.push_str(&format!("\nbb{l}{params}:\n"));
    }
    fn if_else(&mut self, depth: u32) {
        let (lt, le, lj) = (self.b(), self.b(), self.b());
        let (a, b, c) = (self.pick(), self.pick(), self.v());
        self.line(format!("%{c} = builtin \"cmp_slt_Int64\"(%{a} : {I64}, %{b} : {I64}) : $Builtin.Int1"));
        self.line(format!("cond_br %{c}, bb{lt}, bb{le}"));
        let mark = self.scope.len();
        self.new_block(lt, "");
        self.body(depth);
        let from_t = self.pick();
        self.line(format!("br bb{lj}(%{from_t} : {I64})"));
        self.scope.truncate(mark);
        self.new_block(le, "");
        if self.rng.chance(60) {
            self.body(depth);
        }
        let from_e = self.pick();
        self.line(format!("br bb{lj}(%{from_e} : {I64})"));
        self.scope.truncate(mark);
        let p = self.v();
        self.new_block(lj, &format!("(%{p} : {I64})"));
        self.scope.push(p);
    }
    fn while_loop(&mut self, depth: u32) {
        let (lh, lb, lx) = (self.b(), self.b(), self.b());
        let (i, c, n) = (self.v(), self.v(), self.v());
        self.line(format!("br bb{lh}(%zero : {I64})"));
        self.new_block(lh, &format!("(%{i} : {I64})"));
        self.line(format!("%{c} = builtin \"cmp_slt_Int64\"(%{i} : {I64}, %two : {I64}) : $Builtin.Int1"));
        self.line(format!("cond_br %{c}, bb{lb}, bb{lx}"));
        let mark = self.scope.len();
        self.new_block(lb, "");
        self.scope.push(i.clone());
        self.body(depth);
        self.line(format!("%{n} = builtin \"add_Int64\"(%{i} : {I64}, %one : {I64}) : {I64}"));
        self.line(format!("br bb{lh}(%{n} : {I64})"));
        self.scope.truncate(mark);
        self.new_block(lx, "");
    }
    fn do_while(&mut self, depth: u32) {
        let (lh, lx) = (self.b(), self.b());
        let (i, c, n) = (self.v(), self.v(), self.v());
        self.line(format!("br bb{lh}(%zero : {I64})"));
        self.new_block(lh, &format!("(%{i} : {I64})"));
        let mark = self.scope.len();
        self.body(depth);
        self.scope.truncate(mark);
        self.line(format!("%{n} = builtin \"add_Int64\"(%{i} : {I64}, %one : {I64}) : {I64}"));
        self.line(format!("%{c} = builtin \"cmp_slt_Int64\"(%{n} : {I64}, %two : {I64}) : $Builtin.Int1"));
        self.line(format!("cond_br %{c}, bb{lh}(%{n} : {I64}), bb{lx}"));
        self.new_block(lx, "");
    }
}

/// A random SIL module: `@observe` (external, so each call is a line of output) and `@f`
/// of three `Builtin.Int64` arguments.
fn random_sil(seed: u64) -> String {
    let mut g = SilGen {
        out: String::new(),
        rng: Rng::new(seed),
        block: 0,
        value: 0,
        scope: vec!["a".into(), "b".into(), "c".into(), "one".into()],
    };
    g.out.push_str("sil_stage canonical\n\nimport Builtin\n\n");
    g.out.push_str("sil @observe : $@convention(thin) (Builtin.Int64) -> ()\n\n");
    g.out.push_str(&format!(
        "sil @f : $@convention(thin) (Builtin.Int64, Builtin.Int64, Builtin.Int64) -> Builtin.Int64 {{\nbb0(%a : {I64}, %b : {I64}, %c : {I64}):\n"
    ));
    g.line(format!("%zero = integer_literal {I64}, 0"));
    g.line(format!("%one = integer_literal {I64}, 1"));
    g.line(format!("%two = integer_literal {I64}, 2"));
    g.line("%observe = function_ref @observe : $@convention(thin) (Builtin.Int64) -> ()".into());
    for _ in 0..2 + g.rng.below(3) {
        g.body(0);
    }
    let r = g.pick();
    g.line(format!("return %{r} : {I64}"));
    g.out.push_str("}\n");
    g.out
}

/// Text instrumentation: before every candidate computation (`%x = builtin "…"(…)`), a call
/// `@lcm_mark(k)` where `k` numbers the computation's right-hand side — the expression, as
/// insertions clone it. Done on the printed program after LCM ran, so it moves nothing.
///
/// SSA renames: a deleted computation's uses now read the value that reaches them (an
/// inserted computation or a new block argument), so `canon` maps all of those names, before
/// and after, to one name per moved expression; the right-hand sides then compare.
fn instrument_sil(text: &str, table: &mut Vec<String>, canon: &std::collections::HashMap<String, String>) -> String {
    let mut out = String::new();
    let mut n = 0;
    for line in text.lines() {
        if line.starts_with("sil @f ") {
            out.push_str("sil @lcm_mark : $@convention(thin) (Builtin.Int64) -> ()\n\n");
        }
        if let Some((_, rhs)) = line.split_once(" = builtin \"").filter(|_| line.trim_start().starts_with('%')) {
            let rhs: String = rhs
                .split_inclusive(['%', ' ', ',', ')'])
                .map(|w| {
                    let name = w.trim_end_matches([' ', ',', ')', '%']);
                    match canon.get(name) {
                        Some(c) => w.replacen(name, c, 1),
                        None => w.to_string(),
                    }
                })
                .collect();
            let k = table.iter().position(|x| *x == rhs).unwrap_or_else(|| {
                table.push(rhs.clone());
                table.len() - 1
            });
            n += 1;
            out.push_str(&format!("  %mk{n} = integer_literal {I64}, {k}\n"));
            out.push_str(&format!("  %mf{n} = function_ref @lcm_mark : $@convention(thin) (Builtin.Int64) -> ()\n"));
            out.push_str(&format!("  %mr{n} = apply %mf{n}(%mk{n}) : $@convention(thin) (Builtin.Int64) -> ()\n"));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn sil_marks(stdout: &str) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for l in stdout.lines().filter(|l| l.starts_with("@lcm_mark(")) {
        *m.entry(l.to_string()).or_insert(0) += 1;
    }
    m
}

/// The oracle's local predicates for SIL, from the rules: a block defining an operand
/// (a result, or a parameter of a block other than the entry) modifies the expression; for a
/// division or remainder, so do calls and the other trapping builtin.
fn naive_sil_predicates(f: &Function, g: &NaiveGraph, texts: &[Option<String>], text: &str) -> Vec<Vec<bool>> {
    let n = g.blocks.len();
    let operands: Vec<String> =
        text.split(['(', ',', ')', ' ']).filter(|w| w.starts_with('%')).map(|w| w[1..].to_string()).collect();
    let trap_name = ["sdiv_Int64", "srem_Int64"].into_iter().find(|t| text.contains(&format!("\"{t}\"")));
    let (mut ncomp, mut xcomp, mut transp) = (vec![false; n], vec![false; n], vec![true; n]);
    for (k, &b) in g.blocks.iter().enumerate() {
        let mut killed = k != 0 && f.blocks[b].params.iter().any(|&p| operands.contains(&f.values[p].name.to_string()));
        let mut available = false;
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            if texts[i.0 as usize].as_deref() == Some(text) {
                if !killed {
                    ncomp[k] = true;
                }
                available = true;
            }
            let defines = inst.results.iter().any(|&r| operands.contains(&f.values[r].name.to_string()));
            let barrier = trap_name.is_some_and(|t| match &inst.imm {
                Imm::Name(other) if inst.op == Op::Sil(optlab_core::ir::SilOp::Builtin) => {
                    other != t && (other.starts_with("sdiv") || other.starts_with("srem"))
                }
                _ => inst.effect() == Effect::SideEffect,
            });
            if defines || barrier {
                killed = true;
                available = false;
            }
        }
        xcomp[k] = available && killed;
        transp[k] = !killed;
    }
    naive_global(g, ncomp, xcomp, transp)
}

fn sil_expr_text(f: &Function, inst: &Inst) -> Option<String> {
    match (&inst.op, &inst.imm) {
        (Op::Sil(optlab_core::ir::SilOp::Builtin), Imm::Name(name)) if inst.results.len() == 1 => {
            let args: Vec<String> = inst.args.iter().map(|&a| format!("%{}", f.value_name(a))).collect();
            Some(format!("builtin \"{name}\"({})", args.join(", ")))
        }
        (Op::Sil(optlab_core::ir::SilOp::Tuple), _) if !inst.args.is_empty() => {
            let args: Vec<String> = inst.args.iter().map(|&a| format!("%{}", f.value_name(a))).collect();
            Some(format!("tuple ({})", args.join(", ")))
        }
        (Op::Sil(optlab_core::ir::SilOp::TupleExtract), Imm::Index(k)) => {
            Some(format!("tuple_extract %{}, {k}", f.value_name(inst.args[0])))
        }
        _ => None,
    }
}

fn sil_oracle_agrees(o: &LcmOutput) -> Result<(), String> {
    let f = &o.split;
    let g = naive_graph(f);
    let per_inst: Vec<Option<String>> = f.insts.values().map(|inst| sil_expr_text(f, inst)).collect();
    let texts: BTreeSet<String> = f.placed_insts().filter_map(|(_, i)| per_inst[i.0 as usize].clone()).collect();
    let mine: BTreeSet<String> = o.exprs.values().map(|e| e.text()).collect();
    if texts != mine {
        return Err(format!("candidate expressions differ: oracle {texts:?}, pass {mine:?}"));
    }
    for (e, x) in o.exprs.iter() {
        let text = x.text();
        let want = naive_sil_predicates(f, &g, &per_inst, &text);
        for (pi, p) in Pred::ALL.iter().enumerate() {
            for (k, &b) in g.blocks.iter().enumerate() {
                if o.preds.holds(*p, b, e) != want[pi][k] {
                    return Err(format!("{p}({}) for `{text}`: pass and equations differ", f.blocks[b].name));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn random_sil_functions_stay_ssa_keep_behaviour_and_never_evaluate_more() {
    use optlab_core::cfg::Cfg;
    use optlab_core::dom::{verify_ssa, DomTree};
    let inputs: Vec<Vec<String>> = [["7", "3", "2"], ["0", "5", "0"], ["-4", "0", "9"], ["100", "-7", "1"]]
        .iter()
        .map(|xs| xs.iter().map(|s| s.to_string()).collect())
        .collect();
    let (mut programs, mut moved, mut phis, mut ev_before, mut ev_after) = (0, 0, 0, 0, 0);
    for seed in 0..1500u64 {
        let text = random_sil(seed);
        let m = optlab_core::parse_module(Lang::Sil, "r.sil", &text).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
        let (out, outputs) = run_module(&m, &Options::default()).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        programs += 1;
        let after = print_module(&out, Naming::User);
        for o in &outputs {
            if o.name != "f" {
                continue;
            }
            if !o.moved().is_empty() {
                moved += 1;
            }
            if o.result.layout.iter().any(|&b| o.result.blocks[b].params.len() > o.split.blocks[b].params.len()) {
                phis += 1;
            }
            if let Err(e) = sil_oracle_agrees(o) {
                panic!("seed {seed}: {e}\n{text}");
            }
        }
        // Verifies and is SSA after a print → parse round trip.
        let again = optlab_core::parse_module(Lang::Sil, "a.sil", &after).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{after}"));
        for f in again.bodies() {
            optlab_core::ir::verify(f).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{after}"));
            let cfg = Cfg::new(f);
            let dt = DomTree::dominators(f, &cfg);
            verify_ssa(f, &cfg, &dt).unwrap_or_else(|d| panic!("seed {seed}: not SSA: {d:?}\n{after}"));
        }
        let run_cfg = RunConfig { step_limit: 1_000_000, ..RunConfig::default() };
        if let Err(mm) = testgen::harness::differential_entry(&m, &again, "f", &inputs, &run_cfg) {
            panic!("seed {seed}: {mm}\n--- original\n{text}\n--- after LCM\n{after}");
        }
        let mut canon = std::collections::HashMap::new();
        for o in &outputs {
            for st in &o.trace.steps {
                if let Step::Transform { edits, temps, .. } = st {
                    for t in temps {
                        canon.insert(t.name.clone(), format!("E{}", t.expr.0));
                    }
                    for e in edits {
                        if let Edit::Replace { expr, from, to, .. } = e {
                            canon.insert(o.split.value_name(*from).to_string(), format!("E{}", expr.0));
                            canon.insert(o.result.value_name(*to).to_string(), format!("E{}", expr.0));
                        }
                    }
                }
            }
        }
        let mut table = Vec::new();
        let ib = instrument_sil(&print_module(&m, Naming::User), &mut table, &canon);
        let ia = instrument_sil(&after, &mut table, &canon);
        let ib = optlab_core::parse_module(Lang::Sil, "ib.sil", &ib).unwrap_or_else(|d| panic!("{d:?}\n{ib}"));
        let ia = optlab_core::parse_module(Lang::Sil, "ia.sil", &ia).unwrap_or_else(|d| panic!("{d:?}\n{ia}"));
        for input in &inputs {
            let cfg = RunConfig { args: input.clone(), ..run_cfg.clone() };
            let rb = optlab_core::interp::sil::run(&ib, "f", &cfg);
            if rb.error.is_some() {
                continue;
            }
            let ra = optlab_core::interp::sil::run(&ia, "f", &cfg);
            assert!(ra.error.is_none(), "seed {seed}: instrumented run failed: {:?}\n{after}", ra.error);
            let (mb, ma) = (sil_marks(&rb.stdout), sil_marks(&ra.stdout));
            for (k, &n) in &ma {
                let was = mb.get(k).copied().unwrap_or(0);
                assert!(n <= was, "seed {seed}: {k} evaluated {n} times, was {was}, on {input:?}: `{}`\n{text}\n--- after\n{after}", k.trim_start_matches("@lcm_mark(").trim_end_matches(')').parse::<usize>().ok().and_then(|i| table.get(i)).cloned().unwrap_or_default());
            }
            ev_before += mb.values().sum::<usize>();
            ev_after += ma.values().sum::<usize>();
        }
    }
    eprintln!("{programs} SIL functions, {moved} changed, {phis} with new block arguments, evaluations {ev_before} → {ev_after}");
    assert!(moved > programs / 10, "LCM moved something in only {moved} of {programs} functions");
    assert!(phis > 0, "no function needed a new block argument");
    assert!(ev_after < ev_before);
}
