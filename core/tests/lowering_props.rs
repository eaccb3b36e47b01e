//! Properties of AddressLowering on random opaque-values programs.
//!
//! The generator writes generic OSSA functions over an address-only `T` that move values
//! through every construct the pass lowers: copies and destroys, `struct`/`tuple` and their
//! destructuring, borrowed field projections, `enum`/`unchecked_enum_data`/`switch_enum`,
//! calls of other generic functions (`@in`, `@out`), a store/load round trip through an
//! `alloc_stack`, and diamonds that join at a phi (fed by values from before the branch or
//! made in it, which share the phi's storage). `@main` calls the last one with
//! `Builtin.Int64` (a loadable type at a generic call site). Each module is checked on the
//! oracle the interpreter gives — the opaque form and the lowered form run to the same
//! result on every input (reading memory after a move is an error there, so a lowering that
//! reuses moved storage fails) — and on two structural facts: every lowered function
//! verifies (no address-only object values, `alloc_stack`s nested on every path), and
//! lowering never copies more than the input did. Copy elimination, before and after
//! lowering, keeps the result as well.

use optlab_core::interp::sil::{run_values, SilValue};
use optlab_core::interp::RunConfig;
use optlab_core::ir::{Module, Op, SilOp};
use optlab_core::sil::lowering::{copyelim, lower, lower_module, verify_lowered};
use optlab_core::sil::types::{env_of, FunctionTypes};
use optlab_core::{parse_module, Lang};
use proptest::prelude::*;
use std::fmt::Write;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const GENERIC_TY: &str = "$@convention(thin) <τ_0_0> (@in τ_0_0, @in τ_0_0, Builtin.Int1) -> @out τ_0_0";

/// One generic function's body, written as it is generated.
struct Body {
    out: String,
    n: usize,
    blocks: usize,
    t: Vec<String>,
    pairs: Vec<String>,
    tuples: Vec<String>,
    opts: Vec<String>,
}

impl Body {
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }
    fn block(&mut self) -> String {
        self.blocks += 1;
        format!("bb{}", self.blocks)
    }
    fn line(&mut self, l: String) {
        self.out.push_str("  ");
        self.out.push_str(&l);
        self.out.push('\n');
    }
    fn take(v: &mut Vec<String>, r: &mut Rng) -> String {
        let k = r.below(v.len());
        v.swap_remove(k)
    }
    /// Every owned value but `keep` destroyed (the end of a branch or of the function).
    fn destroy_all(&mut self, keep: &str) {
        for x in std::mem::take(&mut self.t) {
            if x != keep {
                self.line(format!("destroy_value {x} : $T"));
            }
        }
        for x in std::mem::take(&mut self.pairs) {
            self.line(format!("destroy_value {x} : $Pair<T>"));
        }
        for x in std::mem::take(&mut self.tuples) {
            self.line(format!("destroy_value {x} : $(T, T)"));
        }
        for x in std::mem::take(&mut self.opts) {
            self.line(format!("destroy_value {x} : $Optional<T>"));
        }
    }
}

fn function(k: usize, r: &mut Rng) -> String {
    let mut b = Body { out: String::new(), n: 0, blocks: 0, t: vec!["%a".into(), "%b".into()], pairs: vec![], tuples: vec![], opts: vec![] };
    let steps = 4 + r.below(10);
    for _ in 0..steps {
        match r.below(13) {
            0 | 1 if !b.t.is_empty() => {
                let x = b.t[r.below(b.t.len())].clone();
                let n = b.fresh();
                b.line(format!("{n} = copy_value {x} : $T"));
                b.t.push(n);
            }
            2 if b.t.len() > 1 => {
                let x = Body::take(&mut b.t, r);
                b.line(format!("destroy_value {x} : $T"));
            }
            3 if b.t.len() >= 2 => {
                let (x, y) = (Body::take(&mut b.t, r), Body::take(&mut b.t, r));
                let n = b.fresh();
                b.line(format!("{n} = struct $Pair<T> ({x} : $T, {y} : $T)"));
                b.pairs.push(n);
            }
            4 if !b.pairs.is_empty() => {
                let p = Body::take(&mut b.pairs, r);
                let (u, v) = (b.fresh(), b.fresh());
                b.line(format!("({u}, {v}) = destructure_struct {p} : $Pair<T>"));
                b.t.extend([u, v]);
            }
            5 if !b.pairs.is_empty() => {
                let p = b.pairs[r.below(b.pairs.len())].clone();
                let (bb, e, c) = (b.fresh(), b.fresh(), b.fresh());
                let field = if r.below(2) == 0 { "x" } else { "y" };
                b.line(format!("{bb} = begin_borrow {p} : $Pair<T>"));
                b.line(format!("{e} = struct_extract {bb} : $Pair<T>, #Pair.{field}"));
                b.line(format!("{c} = copy_value {e} : $T"));
                b.line(format!("end_borrow {bb} : $Pair<T>"));
                b.t.push(c);
            }
            6 if b.t.len() >= 2 => {
                let (x, y) = (Body::take(&mut b.t, r), Body::take(&mut b.t, r));
                let n = b.fresh();
                b.line(format!("{n} = tuple ({x} : $T, {y} : $T)"));
                b.tuples.push(n);
            }
            7 if !b.tuples.is_empty() => {
                let t = Body::take(&mut b.tuples, r);
                let (u, v) = (b.fresh(), b.fresh());
                b.line(format!("({u}, {v}) = destructure_tuple {t} : $(T, T)"));
                b.t.extend([u, v]);
            }
            8 if !b.t.is_empty() => {
                let x = Body::take(&mut b.t, r);
                let n = b.fresh();
                b.line(format!("{n} = enum $Optional<T>, #Optional.some!enumelt, {x} : $T"));
                b.opts.push(n);
            }
            9 if !b.opts.is_empty() => {
                let o = Body::take(&mut b.opts, r);
                let d = b.fresh();
                b.line(format!("{d} = unchecked_enum_data {o} : $Optional<T>, #Optional.some!enumelt"));
                b.t.push(d);
            }
            10 if !b.opts.is_empty() => {
                let o = Body::take(&mut b.opts, r);
                let (some, none) = (b.block(), b.block());
                let p = b.fresh();
                b.line(format!("switch_enum {o} : $Optional<T>, case #Optional.some!enumelt: {some}, case #Optional.none!enumelt: {none}"));
                let _ = write!(b.out, "\n{none}:\n  unreachable\n\n{some}({p} : @owned $T):\n");
                b.t.push(p);
            }
            11 if k > 0 && b.t.len() >= 2 => {
                let callee = r.below(k);
                let (x, y) = (Body::take(&mut b.t, r), Body::take(&mut b.t, r));
                let (f, n) = (b.fresh(), b.fresh());
                b.line(format!("{f} = function_ref @g{callee} : {GENERIC_TY}"));
                b.line(format!("{n} = apply {f}<T>({x}, {y}, %flag) : {GENERIC_TY}"));
                b.t.push(n);
            }
            12 if !b.t.is_empty() => {
                if r.below(2) == 0 {
                    let x = Body::take(&mut b.t, r);
                    let (s, l) = (b.fresh(), b.fresh());
                    b.line(format!("{s} = alloc_stack $T"));
                    b.line(format!("store {x} to [init] {s} : $*T"));
                    b.line(format!("{l} = load [take] {s} : $*T"));
                    b.line(format!("dealloc_stack {s} : $*T"));
                    b.t.push(l);
                } else {
                    // A diamond: each side keeps one value and destroys the rest.
                    let (left, right, join) = (b.block(), b.block(), b.block());
                    let j = b.fresh();
                    b.line(format!("cond_br %flag, {left}, {right}"));
                    let saved = (b.t.clone(), b.pairs.clone(), b.tuples.clone(), b.opts.clone());
                    for side in [&left, &right] {
                        (b.t, b.pairs, b.tuples, b.opts) = saved.clone();
                        let keep = b.t[r.below(b.t.len())].clone();
                        let _ = write!(b.out, "\n{side}:\n");
                        b.destroy_all(&keep);
                        if r.below(2) == 0 {
                            // A value made in the branch itself: it shares the phi's storage.
                            let c = b.fresh();
                            b.line(format!("{c} = copy_value {keep} : $T"));
                            b.line(format!("destroy_value {keep} : $T"));
                            b.line(format!("br {join}({c} : $T)"));
                        } else {
                            b.line(format!("br {join}({keep} : $T)"));
                        }
                    }
                    let _ = write!(b.out, "\n{join}({j} : @owned $T):\n");
                    b.t = vec![j];
                    b.pairs.clear();
                    b.tuples.clear();
                    b.opts.clear();
                }
            }
            _ => {}
        }
    }
    if b.t.is_empty() {
        if let Some(p) = b.pairs.pop() {
            let (u, v) = (b.fresh(), b.fresh());
            b.line(format!("({u}, {v}) = destructure_struct {p} : $Pair<T>"));
            b.t.extend([u, v]);
        } else if let Some(t) = b.tuples.pop() {
            let (u, v) = (b.fresh(), b.fresh());
            b.line(format!("({u}, {v}) = destructure_tuple {t} : $(T, T)"));
            b.t.extend([u, v]);
        } else if let Some(o) = b.opts.pop() {
            let d = b.fresh();
            b.line(format!("{d} = unchecked_enum_data {o} : $Optional<T>, #Optional.some!enumelt"));
            b.t.push(d);
        }
    }
    let ret = b.t[r.below(b.t.len())].clone();
    b.destroy_all(&ret);
    b.line(format!("return {ret} : $T"));
    format!(
        "sil [ossa] @g{k} : $@convention(thin) <T> (@in T, @in T, Builtin.Int1) -> @out T {{\nbb0(%a : @owned $T, %b : @owned $T, %flag : $Builtin.Int1):\n{}}}\n",
        b.out
    )
}

fn program(seed: u64, functions: usize) -> String {
    let mut r = Rng(seed | 1);
    let mut text = String::from(
        "// RUN: -enable-sil-opaque-values\nsil_stage raw\n\nimport Builtin\n\nstruct Pair<T> { var x: T; var y: T }\n\nenum Optional<T> {\n  case none\n  case some(T)\n}\n\n",
    );
    for k in 0..functions {
        text.push_str(&function(k, &mut r));
        text.push('\n');
    }
    let last = functions - 1;
    let _ = write!(
        text,
        "sil [ossa] @main : $@convention(thin) (Builtin.Int64, Builtin.Int64, Builtin.Int1) -> Builtin.Int64 {{\nbb0(%i : $Builtin.Int64, %j : $Builtin.Int64, %c : $Builtin.Int1):\n  %f = function_ref @g{last} : {GENERIC_TY}\n  %r = apply %f<Builtin.Int64>(%i, %j, %c) : {GENERIC_TY}\n  return %r : $Builtin.Int64\n}}\n"
    );
    text
}

/// Copies a module makes: `copy_value`, `load [copy]`, `copy_addr` without `[take]`.
fn copies(m: &Module) -> usize {
    m.functions
        .iter()
        .flat_map(|f| f.layout.iter().flat_map(move |&b| f.blocks[b].all_insts().map(move |i| &f.insts[i])))
        .filter(|i| match &i.op {
            Op::Sil(SilOp::CopyValue) => true,
            Op::Sil(SilOp::Load) => i.attrs.iter().any(|a| a == "copy"),
            Op::Sil(SilOp::CopyAddr) => !i.attrs.iter().any(|a| a == "take"),
            _ => false,
        })
        .count()
}

fn check(seed: u64, functions: usize) -> Result<(), TestCaseError> {
    let text = program(seed, functions);
    let m = parse_module(Lang::Sil, "gen.sil", &text).map_err(|d| TestCaseError::fail(format!("generated program does not parse: {d:?}\n{text}")))?;
    let (lowered, report) = lower_module(&m);
    for (name, r) in &report {
        if let Err(e) = r {
            return Err(TestCaseError::fail(format!("@{name} not lowered: {}\n{text}", e.message)));
        }
    }
    let env = env_of(&lowered);
    for f in lowered.functions.iter().filter(|f| !f.is_declaration()) {
        optlab_core::ir::verify(f).map_err(|e| TestCaseError::fail(format!("@{} does not verify: {e:?}\n{text}", f.name)))?;
        let problems = verify_lowered(f, &FunctionTypes::new(f, env.clone()));
        prop_assert!(problems.is_empty(), "@{}: {problems:?}\n{}", f.name, optlab_core::print::print_module(&lowered, optlab_core::print::Naming::User));
    }
    prop_assert!(copies(&lowered) <= copies(&m), "lowering added copies: {} → {}\n{text}", copies(&m), copies(&lowered));
    // Copy elimination, on the opaque form and on the lowered form, keeps behaviour too.
    let elim = |m: &Module| -> Module {
        let env = env_of(m);
        let mut out = m.clone();
        for f in out.functions.iter_mut().filter(|f| !f.is_declaration()) {
            *f = (*copyelim::run(f, &FunctionTypes::new(f, env.clone())).function).clone();
        }
        out
    };
    let (elided, lowered_elided) = (elim(&m), elim(&lowered));
    for f in elided.functions.iter().chain(&lowered_elided.functions) {
        optlab_core::ir::verify(f).map_err(|e| TestCaseError::fail(format!("copy elimination broke @{}: {e:?}\n{text}", f.name)))?;
    }
    let cfg = RunConfig::default();
    for (i, j, c) in [(3, 4, 0), (3, 4, 1), (-7, 11, 1)] {
        let args = [SilValue::int(64, i), SilValue::int(64, j), SilValue::int(1, c)];
        let before = run_values(&m, "main", &args, &cfg);
        let after = run_values(&lowered, "main", &args, &cfg);
        prop_assert!(before.result.error.is_none(), "the opaque form fails: {:?}\n{text}", before.result.error);
        prop_assert_eq!(
            &before.value,
            &after.value,
            "runs differ on ({}, {}, {}): {:?}\n--- input\n{}\n--- lowered\n{}",
            i,
            j,
            c,
            after.result.error,
            text,
            optlab_core::print::print_module(&lowered, optlab_core::print::Naming::User)
        );
        for (what, m2) in [("copy elimination", &elided), ("copy elimination after lowering", &lowered_elided)] {
            let r = run_values(m2, "main", &args, &cfg);
            prop_assert_eq!(&before.value, &r.value, "{} changed the result: {:?}\n{}\n--- after\n{}", what, r.result.error, text, optlab_core::print::print_module(m2, optlab_core::print::Naming::User));
        }
    }
    Ok(())
}

/// Seeds the property test once failed on, kept so they run every time.
#[test]
fn past_failures_keep_behaviour() {
    // A copy of a field extracted from a borrow, stored later, after the aggregate was
    // destructured: made late, at the store, it read the moved-out field.
    check(8471271489234954328, 1).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn lowering_keeps_behaviour_verifies_and_adds_no_copies(seed in any::<u64>(), functions in 1usize..4) {
        check(seed, functions)?;
    }
}

#[test]
fn the_generator_reaches_every_construct() {
    let all: String = (1..40u64).map(|s| program(s * 7919, 3)).collect();
    for needle in ["copy_value", "destructure_struct", "struct_extract", "destructure_tuple", "unchecked_enum_data", "switch_enum", "apply", "alloc_stack", "cond_br"] {
        assert!(all.contains(needle), "no generated program uses {needle}");
    }
    // Copy elimination removes some copies and keeps others, in both forms; some phi
    // shares its storage with an incoming value.
    let (mut removed, mut kept, mut removed_lowered, mut coalesced) = (0, 0, 0, 0);
    for s in 1..40u64 {
        let m = parse_module(Lang::Sil, "gen.sil", &program(s * 7919, 3)).unwrap();
        let env = env_of(&m);
        for f in m.functions.iter().filter(|f| !f.is_declaration()) {
            if let Ok(l) = lower(f, &FunctionTypes::new(f, env.clone()), &env.decls) {
                coalesced += l.values.iter().filter(|v| v.why.starts_with("coalesced with the phi")).count();
            }
        }
        let (lowered, _) = lower_module(&m);
        for f in m.functions.iter().filter(|f| !f.is_declaration()) {
            let r = copyelim::run(f, &FunctionTypes::new(f, env.clone()));
            removed += r.candidates.iter().filter(|c| c.eliminated).count();
            kept += r.candidates.iter().filter(|c| !c.eliminated).count();
        }
        for f in lowered.functions.iter().filter(|f| !f.is_declaration()) {
            removed_lowered += copyelim::run(f, &FunctionTypes::new(f, env.clone())).candidates.iter().filter(|c| c.eliminated).count();
        }
    }
    eprintln!("copy elimination on 39 programs: {removed} removed, {kept} kept; after lowering {removed_lowered} removed");
    assert!(removed > 0 && kept > 0 && removed_lowered > 0);
    assert!(coalesced > 0, "no generated phi shares its storage with an incoming value");
}


/// Copy elimination decides every copy once and, after each removal, again only the copies
/// whose decision reads what the removal changed; it must decide exactly as removing one copy
/// at a time and deciding every other afresh after each removal would (same candidates, same
/// facts, same output), on the opaque form and after lowering.
#[test]
fn copy_elimination_with_a_worklist_equals_one_at_a_time() {
    let (mut functions, mut removed) = (0, 0);
    for s in 1..150u64 {
        let m = parse_module(Lang::Sil, "gen.sil", &program(s * 104_729, 3)).unwrap();
        let env = env_of(&m);
        let (lowered, _) = lower_module(&m);
        for f in m.functions.iter().chain(lowered.functions.iter()).filter(|f| !f.is_declaration()) {
            let ft = FunctionTypes::new(f, env.clone());
            let (rounds, single) = (copyelim::run(f, &ft), copyelim::run_one_at_a_time(f, &ft));
            assert_eq!(rounds.candidates, single.candidates, "seed {s}, @{}", f.name);
            let print = |g: &optlab_core::Function| optlab_core::print::print_function(g, optlab_core::print::Naming::User);
            assert_eq!(print(&rounds.function), print(&single.function), "seed {s}, @{}", f.name);
            functions += 1;
            removed += single.candidates.iter().filter(|c| c.eliminated).count();
        }
    }
    assert!(functions > 300 && removed > 10, "{functions} functions, {removed} copies removed");
}

/// Copy elimination reads an owned value's consuming uses off the operands of
/// `analyze_operands` instead of the lifetimes of `analyze` (which cost every value's live
/// blocks): on the programs it sees, the two agree — the same kinds and operands, a lifetime
/// exactly for each owned value the function places, and its consuming uses are its
/// compatible lifetime-ending operands in program order.
#[test]
fn consuming_uses_from_operands_equal_the_lifetimes() {
    use optlab_core::sil::ownership::{analyze, analyze_operands, Kind};
    let (mut owned, mut consumed) = (0, 0);
    for s in 1..60u64 {
        let m = parse_module(Lang::Sil, "gen.sil", &program(s * 7_919, 3)).unwrap();
        let env = env_of(&m);
        let (lowered, _) = lower_module(&m);
        for f in m.functions.iter().chain(lowered.functions.iter()).filter(|f| !f.is_declaration()) {
            let ft = FunctionTypes::new(f, env.clone());
            let (full, lean) = (analyze(f, &ft), analyze_operands(f, &ft));
            assert_eq!(full.values, lean.values, "seed {s}, @{}", f.name);
            assert_eq!(full.operands, lean.operands, "seed {s}, @{}", f.name);
            assert!(lean.lifetimes.is_empty() && lean.scopes.is_empty());
            for vi in &lean.values {
                let lt = full.lifetime(vi.value);
                assert_eq!(lt.is_some(), vi.kind == Kind::Owned && vi.block.is_some(), "seed {s}, @{} {}", f.name, vi.name);
                let Some(lt) = lt else { continue };
                let mut ends: Vec<_> = lean.operands.iter().filter(|o| o.value == vi.value && o.compatible && o.constraint.ending).map(|o| o.inst).collect();
                ends.dedup();
                assert_eq!(lt.consuming, ends, "seed {s}, @{} {}", f.name, vi.name);
                owned += 1;
                consumed += usize::from(!ends.is_empty());
            }
        }
    }
    assert!(owned > 100 && consumed > 100, "{owned} owned values, {consumed} consumed");
}

/// Lines the generic parser accepts but that lack what their instruction always has, and an
/// input whose own stack slots are not nested (both found by the fuzzer as a panic and an
/// "internal error"): refused with the reason, by name.
#[test]
fn malformed_input_is_refused_by_name() {
    let cases = [
        (
            "sil [ossa] @f : $@convention(thin) (@in AnyObject) -> () {\nbb0(%0 : @owned $AnyObject):\n  %1 = init_existential_value -> : $AnyObject, $AnyObject, $Any\n  destroy_value %0 : $AnyObject\n  %3 = tuple ()\n  return %3 : $()\n}\n",
            "`init_existential_value` in bb0 needs at least 1 operand(s)",
        ),
        (
            "sil [ossa] @f : $@convention(thin) <T> (@in T) -> () {\nbb0(%0 : @owned $T):\n  copy_value %0 : $T\n  destroy_value %0 : $T\n  %3 = tuple ()\n  return %3 : $()\n}\n",
            "`copy_value` in bb0 needs at least 1 operand(s) and 1 result(s)",
        ),
        (
            "sil [ossa] @f : $@convention(thin) <T> (@in T) -> () {\nbb0(%0 : @owned $T):\n  %1 = alloc_stack $T\n  destroy_value %0 : $T\n  %3 = tuple ()\n  return %3 : $()\n}\n",
            "the input's own alloc_stack and dealloc_stack are not nested",
        ),
        (
            // `P` undeclared: the existential is not known to be address-only, but the
            // archetype it opens is, so the opened value would get a slot nothing writes.
            "sil [ossa] @f : $@convention(thin) (@in P) -> () {\nbb0(%0 : @owned $P):\n  %b = begin_borrow %0 : $P\n  %o = open_existential_value %b : $P to $@opened(\"EF755EF2-B636-11E7-B7B4-A45E60ECC541\", P) Self\n  %c = copy_value %o : $@opened(\"EF755EF2-B636-11E7-B7B4-A45E60ECC541\", P) Self\n  end_borrow %b : $P\n  destroy_value %c : $@opened(\"EF755EF2-B636-11E7-B7B4-A45E60ECC541\", P) Self\n  destroy_value %0 : $P\n  %r = tuple ()\n  return %r : $()\n}\n",
            "cannot lower `%o`: it is address-only, and `open_existential_value` reads it in place from `%b`, whose type `$P` is not known to be address-only",
        ),
        (
            // A result convention that is not one (`@in` where `@out` was): no address for
            // the address-only result to leave through.
            "struct SI<T> {\n  var element: T\n}\n\nsil [ossa] @f : $@convention(thin) <T> (@in SI<T>) -> @in T {\nbb0(%0 : @owned $SI<T>):\n  (%e) = destructure_struct %0 : $SI<T>\n  return %e : $T\n}\n",
            "@f returns `T` directly, but it is address-only: an address-only result is `@out`",
        ),
        (
            // A return of another type than the signature's results (a fuzzer's mangled
            // `-> Aout`): the tuple would be lowered into a slot no `@out` leaves through,
            // and the output would return a name it no longer defines.
            "sil [ossa] @f : $@convention(thin) <T> (@in (T, T)) -> Aout {\nbb0(%0 : @owned $(T, T)):\n  (%a, %b) = destructure_tuple %0 : $(T, T)\n  %r = tuple (%a : $T, %b : $T)\n  return %r : $(T, T)\n}\n",
            "`return` in bb0 returns `$(T, T)`, but @f's type returns `$Aout`",
        ),
        (
            // A substitution that is not a type (a fuzzer's right-to-left override inside `Int`):
            // read as no substitution at all, the call's result stayed `τ_0_0` and was never lowered.
            "sil [ossa] @f : $@convention(thin) <T> (@in T) -> @out T {\nbb0(%0 : @owned $T):\n  %1 = function_ref @g : $@convention(thin) <τ_0_0> (@in τ_0_0) -> @out τ_0_0\n  %2 = apply %1<T\u{202e}>(%0) : $@convention(thin) <τ_0_0> (@in τ_0_0) -> @out τ_0_0\n  return %2 : $T\n}\n\nsil [ossa] @g : $@convention(thin) <T> (@in T) -> @out T {\nbb0(%0 : @owned $T):\n  return %0 : $T\n}\n",
            "a call whose callee type or substitutions do not read",
        ),
        (
            // Two substitutions for one generic parameter.
            "sil [ossa] @f : $@convention(thin) <T> (@in T) -> @out T {\nbb0(%0 : @owned $T):\n  %1 = function_ref @g : $@convention(thin) <τ_0_0> (@in τ_0_0) -> @out τ_0_0\n  %2 = apply %1<T, T>(%0) : $@convention(thin) <τ_0_0> (@in τ_0_0) -> @out τ_0_0\n  return %2 : $T\n}\n\nsil [ossa] @g : $@convention(thin) <T> (@in T) -> @out T {\nbb0(%0 : @owned $T):\n  return %0 : $T\n}\n",
            "a call whose callee type or substitutions do not read",
        ),
        (
            // A misspelt parameter convention (the fuzzer's `@mn_guaranteed`, long run of
            // session 13): read as a direct parameter, the call was kept as written and read
            // `%x`, which lowering had replaced by its address ("use of undefined value").
            "sil [ossa] @f : $@convention(thin) <T> (@in T) -> () {\nbb0(%0 : @owned $T):\n  %1 = function_ref @g : $@convention(thin) <τ_0_0> (@mn_guaranteed τ_0_0) -> ()\n  %2 = apply %1<T>(%0) : $@convention(thin) <τ_0_0> (@mn_guaranteed τ_0_0) -> ()\n  destroy_value %0 : $T\n  %r = tuple ()\n  return %r : $()\n}\n",
            "the call passes the address-only value `%0` as parameter 1, which the callee's type does not pass by address",
        ),
        (
            // The same through a direct convention that exists (`@guaranteed`).
            "sil [ossa] @f : $@convention(thin) <T> (@in T) -> () {\nbb0(%0 : @owned $T):\n  %1 = function_ref @g : $@convention(thin) <τ_0_0> (@guaranteed τ_0_0) -> ()\n  %2 = apply %1<T>(%0) : $@convention(thin) <τ_0_0> (@guaranteed τ_0_0) -> ()\n  destroy_value %0 : $T\n  %r = tuple ()\n  return %r : $()\n}\n",
            "the call passes the address-only value `%0` as parameter 1, which the callee's type does not pass by address",
        ),
    ];
    for (text, want) in cases {
        let m = match parse_module(Lang::Sil, "bad.sil", text) {
            Ok(m) => m,
            Err(d) => panic!("does not parse: {d:?}\n{text}"),
        };
        let env = env_of(&m);
        let f = &m.functions[0];
        match lower(f, &FunctionTypes::new(f, env.clone()), &env.decls) {
            Ok(_) => panic!("lowered:\n{text}"),
            Err(r) => assert!(r.message.contains(want), "{}\nwanted: {want}", r.message),
        }
    }
}

/// The input's own slot allocated before two slots of an opened type (each opened value
/// with a storage of its own, as when the `enum` that would hold one lost its operand):
/// the input's `dealloc_stack` must wait for both, not only the innermost (found by the
/// fuzzer as "dealloc_stack of %2 is not the most recent live alloc_stack").
#[test]
fn the_inputs_slot_outlives_every_opened_slot_inside_it() {
    let opened = "$@opened(\"EF755EF2-B636-11E7-B7B4-A45E60ECC541\", P) Self";
    let text = format!(
        "protocol P {{\n  func foo()\n}}\n\nsil [ossa] @f : $@convention(thin) (@in P) -> () {{\nbb0(%0 : @owned $P):\n  %2 = alloc_stack $P\n  %3 = copy_value %0 : $P\n  store %3 to [init] %2 : $*P\n  %b = begin_borrow %0 : $P\n  %o = open_existential_value %b : $P to {opened}\n  %c = copy_value %o : {opened}\n  %d = copy_value %o : {opened}\n  end_borrow %b : $P\n  destroy_value %c : {opened}\n  destroy_value %d : {opened}\n  destroy_addr %2 : $*P\n  dealloc_stack %2 : $*P\n  destroy_value %0 : $P\n  %r = tuple ()\n  return %r : $()\n}}\n"
    );
    let m = parse_module(Lang::Sil, "nest.sil", &text).unwrap_or_else(|d| panic!("{d:?}"));
    let env = env_of(&m);
    let f = &m.functions[0];
    let l = lower(f, &FunctionTypes::new(f, env.clone()), &env.decls).unwrap_or_else(|r| panic!("{r:?}"));
    let problems = verify_lowered(&l.function, &optlab_core::sil::lowering::signature_types(&l.function, env.clone()));
    assert!(problems.is_empty(), "{problems:?}\n{}", l.text);
    let deallocs: Vec<&str> = l.text.lines().filter(|x| x.trim_start().starts_with("dealloc_stack")).collect();
    assert_eq!(deallocs.len(), 3, "{}", l.text);
    assert!(deallocs[2].contains("dealloc_stack %2 "), "the input's slot is freed last:\n{}", l.text);
}
