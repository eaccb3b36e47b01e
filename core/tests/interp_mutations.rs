//! The interpreter must never panic, whatever IR a buggy pass hands it: random mutations of
//! generated programs (wrong operands, ids past the arenas, unknown or mistyped operations,
//! missing terminators, retargeted branches, deleted blocks) all end in a result or an error.

use optlab_core::interp::{bril, ErrorKind, RunConfig};
use optlab_core::ir::{BlockId, BrilOp, Imm, InstId, Op, Type, ValueId};
use optlab_core::testgen::{generate, GenConfig, Rng};
use optlab_core::Module;

fn mutate(m: &mut Module, rng: &mut Rng) {
    let fi = rng.below(m.functions.len());
    let f = &mut m.functions[fi];
    let (ni, nv, nb) = (f.insts.len(), f.values.len(), f.blocks.len());
    let inst = InstId(rng.below(ni + 2) as u32);
    let any_value = |rng: &mut Rng| ValueId(rng.below(nv + 3) as u32);
    let any_block = |rng: &mut Rng| BlockId(rng.below(nb + 2) as u32);
    match rng.below(12) {
        0 => {
            if let Some(i) = f.insts.get_mut(inst) {
                let name: &str = BrilOp::NAMES[rng.below(BrilOp::NAMES.len())];
                i.op = Op::Bril(BrilOp::from_name(name));
            }
        }
        1 => {
            if let Some(i) = f.insts.get_mut(inst) {
                let v = any_value(rng);
                i.args.push(v);
            }
        }
        2 => {
            if let Some(i) = f.insts.get_mut(inst) {
                i.args.clear();
                i.results.clear();
            }
        }
        3 => {
            if let Some(i) = f.insts.get_mut(inst) {
                let v = any_value(rng);
                if let Some(a) = i.args.first_mut() {
                    *a = v;
                }
            }
        }
        4 => {
            if let Some(i) = f.insts.get_mut(inst) {
                let b = any_block(rng);
                if let Some(s) = i.succs.first_mut() {
                    s.block = b;
                }
            }
        }
        5 => {
            let b = any_block(rng);
            if let Some(block) = f.blocks.get_mut(b) {
                block.term = None;
            }
        }
        6 => {
            if !f.layout.is_empty() {
                let k = rng.below(f.layout.len());
                f.layout.remove(k);
            }
        }
        7 => {
            let b = any_block(rng);
            f.layout.push(b);
        }
        8 => {
            let b = any_block(rng);
            if let Some(block) = f.blocks.get_mut(b) {
                block.insts.push(inst);
            }
        }
        9 => {
            if let Some(i) = f.insts.get_mut(inst) {
                i.imm = match rng.below(4) {
                    0 => Imm::None,
                    1 => Imm::Float(f64::NAN),
                    2 => Imm::Char('\u{10FFFF}'),
                    _ => Imm::Int(i128::MAX),
                };
                i.ty = [None, Some(Type::Float), Some(Type::Ptr(Box::new(Type::Char))), Some(Type::Sil("Int32".into()))]
                    [rng.below(4)]
                .clone();
            }
        }
        10 => {
            if let Some(i) = f.insts.get_mut(inst) {
                i.funcs = vec![["main", "helper", "nowhere"][rng.below(3)].to_string()];
            }
        }
        _ => {
            if !f.params.is_empty() || rng.chance(50) {
                let v = any_value(rng);
                f.params.push(v);
            }
        }
    }
}

#[test]
fn mutated_programs_never_panic() {
    let mut rng = Rng::new(7);
    let (mut errors, mut ok) = (0, 0);
    for seed in 0..3000 {
        let g = generate(seed, &GenConfig::default());
        let mut m = g.module.clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut m, &mut rng);
        }
        let args = g.inputs.first().cloned().unwrap_or_default();
        let cfg = RunConfig { step_limit: 20_000, depth_limit: 200, ..RunConfig::with_args(args) };
        let r = std::panic::catch_unwind(|| bril::run(&m, &cfg))
            .unwrap_or_else(|_| panic!("seed {seed}: the interpreter panicked on a mutation of\n{}", g.text));
        match r.error {
            Some(e) => {
                errors += 1;
                assert!(!matches!(e.kind, ErrorKind::Trap(_)), "{e}");
            }
            None => ok += 1,
        }
    }
    println!("mutated programs: {ok} ran, {errors} stopped with an error");
    assert!(errors > 500);
}
