//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod corpus;
pub mod filecheck;

use std::path::PathBuf;

/// `../shared` beside the repository (or `$OPTLAB_SHARED`). `None`, with a printed notice,
/// when it is absent: the conformance suites then skip, as the developers' guide allows.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("OPTLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    if dir.join("corpus").is_dir() {
        Some(dir)
    } else {
        eprintln!("NOTICE: {} not found; skipping the conformance suite that needs it", dir.display());
        None
    }
}

/// All files under `dir` (recursively) with extension `ext`, sorted.
pub fn files_with_ext(dir: &std::path::Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The naive oracle's reachability: nodes of `succ` reachable from `from` without ever
/// entering `avoid` (dominance by definition: `a` dominates `b` iff removing `a` cuts `b` off).
pub fn reach_avoiding(succ: &[Vec<usize>], from: &[usize], avoid: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; succ.len()];
    let mut stack: Vec<usize> = Vec::new();
    for &s in from {
        if Some(s) != avoid && !seen[s] {
            seen[s] = true;
            stack.push(s);
        }
    }
    while let Some(v) = stack.pop() {
        for &w in &succ[v] {
            if Some(w) != avoid && !seen[w] {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    seen
}

/// An arbitrary Bril function over few variables with many copies among them: chains, cycles
/// of copies, kills by other assignments, loops (into the entry too), unreachable blocks,
/// fall-through, a parameter defined on entry. With `defined`, every variable is assigned
/// before the first block, so any path runs (endless loops are for a step limit to cut);
/// without it, some seeds leave variables undefined on some paths, which only analyses may
/// see. Copy propagation's oracle and its properties both draw from it.
pub fn copy_graph(seed: u64, defined: bool) -> optlab_core::testgen::FuncSpec {
    use optlab_core::ir::{BrilOp, Imm, Type};
    use optlab_core::testgen::{BrilInst, FuncSpec, Rng};
    let mut rng = Rng::new(seed);
    let nblocks = 1 + rng.below(8);
    let vars = ["a", "b", "c", "d"];
    let mut f = FuncSpec::new("main");
    f.params = vec![("a".into(), Type::Int)];
    let labels: Vec<String> = (0..nblocks).map(|k| format!("L{k}")).collect();
    // Without `defined`, a label first: the entry is a loop header some paths reach with
    // `b`, `c`, `d` unassigned.
    if !defined && rng.chance(40) {
        f.label(&labels[0]);
    } else {
        for v in &vars[1..] {
            f.inst(BrilInst::constant(v, Type::Int, Imm::Int(rng.range(0, 3).into())));
        }
        f.label(&labels[0]);
    }
    f.inst(BrilInst::constant("p", Type::Bool, Imm::Bool(rng.chance(50))));
    for (k, l) in labels.iter().enumerate() {
        if k > 0 {
            f.label(l);
        }
        for _ in 0..rng.below(6) {
            let x = *rng.pick(&vars);
            let y = *rng.pick(&vars);
            let inst = match rng.below(10) {
                0..=4 => BrilInst::value(BrilOp::Id, x, Type::Int, &[y]),
                5 | 6 => BrilInst::value(BrilOp::Add, x, Type::Int, &[y, *rng.pick(&vars)]),
                7 => BrilInst::constant(x, Type::Int, Imm::Int(rng.range(0, 3).into())),
                8 => BrilInst::effect(BrilOp::Print, &[y]),
                _ => BrilInst::value(BrilOp::Lt, "p", Type::Bool, &[x, y]),
            };
            f.inst(inst);
        }
        let target = |rng: &mut Rng| labels[rng.below(nblocks)].clone();
        match rng.below(8) {
            0..=2 => {
                let (t, e) = (target(&mut rng), target(&mut rng));
                f.inst(BrilInst::br("p", &t, &e));
            }
            3 | 4 => {
                let t = target(&mut rng);
                f.inst(BrilInst::jmp(&t));
            }
            5 => {
                let v = *rng.pick(&vars);
                f.inst(BrilInst::effect(BrilOp::Print, &[v]));
                f.inst(BrilInst::ret(None));
            }
            _ => {}
        }
    }
    f
}
