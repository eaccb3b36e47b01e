//! Mem2Reg on random programs of stack slots, checked against the definition rather than
//! the algorithm: the SIL interpreter runs each before and after (same result), and the
//! output has no promoted slot left, verifies and is in SSA form; every trace replays.

use super::*;
use crate::interp::{sil, RunConfig};
use crate::ir::Module;

/// A small deterministic generator (xorshift): the tests need reproducible programs, not
/// good randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A function of `slots` stack slots of `Builtin.Int64` over a random graph of blocks:
/// forward branches on comparisons of loaded values, and back edges guarded by a counter
/// slot so that every run ends. Each block loads, stores and adds at random; the result is
/// the sum of the slots at the end. Slot 0 is stored in the entry, the others may be read
/// before any store (then the run before the pass fails, and the run is not compared).
fn program(seed: u64, ossa: bool) -> String {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let nblocks = 3 + r.below(6);
    let slots = 1 + r.below(3);
    let (ld, st) = if ossa { ("load [trivial]", "to [trivial]") } else { ("load", "to") };
    let mut next = 2;
    let mut fresh = || {
        next += 1;
        format!("%{next}")
    };
    let mut s = format!("sil {}@f : $@convention(thin) (Builtin.Int64, Builtin.Int64) -> Builtin.Int64 {{\n", if ossa { "[ossa] " } else { "" });
    s.push_str("bb0(%0 : $Builtin.Int64, %1 : $Builtin.Int64):\n");
    let slot_names: Vec<String> = (0..=slots).map(|_| fresh()).collect();
    for n in &slot_names {
        s.push_str(&format!("  {n} = alloc_stack $Builtin.Int64\n"));
    }
    // The last slot is the loop counter.
    let counter = &slot_names[slots];
    let zero = fresh();
    s.push_str(&format!("  {zero} = integer_literal $Builtin.Int64, 0\n  store {zero} {st} {counter} : $*Builtin.Int64\n"));
    s.push_str(&format!("  store %0 {st} {} : $*Builtin.Int64\n", slot_names[0]));
    for b in 0..nblocks {
        if b > 0 {
            s.push_str(&format!("\nbb{b}:\n"));
        }
        let mut avail = vec!["%0".to_string(), "%1".to_string()];
        for _ in 0..1 + r.below(4) {
            let k = r.below(slots);
            match r.below(3) {
                0 => {
                    let v = avail[r.below(avail.len())].clone();
                    s.push_str(&format!("  store {v} {st} {} : $*Builtin.Int64\n", slot_names[k]));
                }
                1 => {
                    let v = fresh();
                    s.push_str(&format!("  {v} = {ld} {} : $*Builtin.Int64\n", slot_names[k]));
                    avail.push(v);
                }
                _ => {
                    let (x, y) = (avail[r.below(avail.len())].clone(), avail[r.below(avail.len())].clone());
                    let v = fresh();
                    s.push_str(&format!("  {v} = builtin \"xor_Int64\"({x} : $Builtin.Int64, {y} : $Builtin.Int64) : $Builtin.Int64\n"));
                    avail.push(v);
                }
            }
        }
        if b + 1 == nblocks {
            let mut acc = fresh();
            s.push_str(&format!("  {acc} = {ld} {} : $*Builtin.Int64\n", slot_names[0]));
            for n in &slot_names[1..slots] {
                let v = fresh();
                let sum = fresh();
                s.push_str(&format!("  {v} = {ld} {n} : $*Builtin.Int64\n"));
                s.push_str(&format!("  {sum} = builtin \"add_Int64\"({acc} : $Builtin.Int64, {v} : $Builtin.Int64) : $Builtin.Int64\n"));
                acc = sum;
            }
            for n in slot_names.iter().rev() {
                s.push_str(&format!("  dealloc_stack {n} : $*Builtin.Int64\n"));
            }
            s.push_str(&format!("  return {acc} : $Builtin.Int64\n}}\n"));
            break;
        }
        let fwd = |r: &mut Rng| b + 1 + r.below(nblocks - b - 1);
        match r.below(4) {
            0 => s.push_str(&format!("  br bb{}\n", fwd(&mut r))),
            1 if b > 0 => {
                // A back edge taken while the counter is below 3.
                let (c, one, c2, lim, cond) = (fresh(), fresh(), fresh(), fresh(), fresh());
                s.push_str(&format!("  {c} = {ld} {counter} : $*Builtin.Int64\n"));
                s.push_str(&format!("  {one} = integer_literal $Builtin.Int64, 1\n"));
                s.push_str(&format!("  {c2} = builtin \"add_Int64\"({c} : $Builtin.Int64, {one} : $Builtin.Int64) : $Builtin.Int64\n"));
                s.push_str(&format!("  store {c2} {st} {counter} : $*Builtin.Int64\n"));
                s.push_str(&format!("  {lim} = integer_literal $Builtin.Int64, 3\n"));
                s.push_str(&format!("  {cond} = builtin \"cmp_slt_Int64\"({c2} : $Builtin.Int64, {lim} : $Builtin.Int64) : $Builtin.Int1\n"));
                s.push_str(&format!("  cond_br {cond}, bb{}, bb{}\n", 1 + r.below(b), fwd(&mut r)));
            }
            _ => {
                let x = avail[r.below(avail.len())].clone();
                let cond = fresh();
                s.push_str(&format!("  {cond} = builtin \"cmp_slt_Int64\"({x} : $Builtin.Int64, %1 : $Builtin.Int64) : $Builtin.Int1\n"));
                s.push_str(&format!("  cond_br {cond}, bb{}, bb{}\n", fwd(&mut r), fwd(&mut r)));
            }
        }
    }
    s
}

fn promote(m: &Module) -> (Module, Mem2RegOutput) {
    let f = &m.functions[0];
    let a = Analyses::new(f);
    let out = mem2reg(f, &a).unwrap_or_else(|e| panic!("{e}"));
    let mut after = m.clone();
    after.functions[0] = (*out.function).clone();
    (after, out)
}

#[test]
fn random_slot_programs_run_the_same_after_promotion() {
    let (mut compared, mut promoted, mut args) = (0, 0, 0);
    for seed in 0..300u64 {
        let text = program(seed, seed % 2 == 0);
        let m = crate::parse_module(Lang::Sil, "r.sil", &text).unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{text}"));
        let (after, out) = promote(&m);
        let f = &m.functions[0];
        // Every slot is promotable, and none is left.
        assert_eq!(out.stats.promoted, out.stats.slots, "seed {seed}\n{text}");
        assert!(out.function.placed_insts().all(|(_, i)| !matches!(
            out.function.insts[i].op,
            Op::Sil(SilOp::AllocStack | SilOp::Load | SilOp::Store | SilOp::DeallocStack)
        )));
        let replayed = replay_to(f, &out.trace, out.trace.events.len()).unwrap();
        assert_eq!(replayed.without_spans(), out.function.without_spans(), "seed {seed}");
        // The output parses back from its printed form.
        let printed = crate::print::print_module(&after, crate::print::Naming::User);
        crate::parse_module(Lang::Sil, "again.sil", &printed).unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{printed}"));
        promoted += out.stats.promoted;
        args += out.stats.args;
        for input in [["3", "5"], ["-2", "9"], ["7", "1"]] {
            let cfg = RunConfig { step_limit: 10_000, ..RunConfig::with_args(input) };
            let x = sil::run(&m, "f", &cfg);
            if !x.is_ok() {
                continue;
            }
            let y = sil::run(&after, "f", &cfg);
            assert_eq!((&x.returned, &x.error), (&y.returned, &y.error), "seed {seed} {input:?}\n{text}\n{printed}");
            compared += 1;
        }
    }
    eprintln!("{compared} runs compared, {promoted} slots promoted, {args} arguments");
    assert!(compared > 200 && args > 50, "{compared} runs compared, {promoted} slots promoted, {args} arguments");
}

#[test]
fn a_qualified_load_and_an_entry_argument_are_refused_with_reasons() {
    let text = "sil [ossa] @f : $@convention(thin) (Builtin.Int64) -> Builtin.Int64 {\n\
        bb0(%0 : $Builtin.Int64):\n  %1 = alloc_stack $Builtin.Int64\n  store %0 to [trivial] %1 : $*Builtin.Int64\n\
        %3 = load [copy] %1 : $*Builtin.Int64\n  dealloc_stack %1 : $*Builtin.Int64\n  return %3 : $Builtin.Int64\n}\n";
    let m = crate::parse_module(Lang::Sil, "q.sil", text).unwrap();
    let (_, out) = promote(&m);
    assert_eq!(out.stats.promoted, 0);
    assert!(matches!(&out.trace.events[0], Event::Rejected { reason: Reason::Qualifier { attr, .. }, .. } if attr == "copy"), "{:?}", out.trace.events);
}

/// A function that uses a value before its definition is refused with the user's reason,
/// not reported as the pass's own failure (the fuzzer's input, reduced).
#[test]
fn a_use_before_its_definition_is_refused_not_failed() {
    let text = "sil_stage canonical\nsil [ossa] @f : $@convention(thin) () -> () {\nbb0:\n  debug_value %1 : $Builtin.Int64\n  %1 = integer_literal $Builtin.Int64, 0\n  %2 = tuple ()\n  return %2 : $()\n}\n";
    let m = crate::parse_module(Lang::Sil, "f.sil", text).unwrap();
    let f = &m.functions[0];
    assert!(matches!(mem2reg(f, &Analyses::new(f)), Err(Mem2RegError::NotSsa { .. })), "{:?}", mem2reg(f, &Analyses::new(f)).map(|o| o.stats));
}

#[test]
fn bril_is_refused() {
    let m = crate::parse_module(Lang::Bril, "b.bril", "@main { x: int = const 1; print x; }").unwrap();
    let f = &m.functions[0];
    assert!(matches!(mem2reg(f, &Analyses::new(f)), Err(Mem2RegError::NotSil { .. })));
}

#[test]
fn state_follows_placement_and_the_walk() {
    let m = crate::parse_module(Lang::Sil, "r.sil", &program(7, false)).unwrap();
    let (_, out) = promote(&m);
    let t = &out.trace;
    for k in 0..=t.events.len() {
        let s = state_at(t, k);
        // The walk's path is as deep as the enters not yet left.
        let enters = t.events[..k].iter().filter(|e| matches!(e, Event::Enter { .. })).count();
        let leaves = t.events[..k].iter().filter(|e| matches!(e, Event::Leave { .. })).count();
        assert_eq!(s.path.len(), enters - leaves);
    }
    let texts = step_texts(&m.functions[0], &out.function, t);
    assert_eq!(texts.len(), t.events.len() + 1);
}
