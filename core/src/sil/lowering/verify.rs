//! What must hold after AddressLowering, beyond the IR verifier: no object value of an
//! address-only type is left, and every `alloc_stack` is deallocated in stack order on
//! every path.

use crate::cfg::Cfg;
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function, Op, SilOp, Type, ValueId};
use crate::sil::types::{Class, FunctionTypes, TypeEnv};
use std::collections::HashMap;
use std::sync::Arc;

/// The problems, each a sentence naming the value or block; empty when the function is
/// properly lowered.
///
/// `ft` may be [`signature_types`] of `f`: a type's class depends only on the function's
/// generic signature, and each distinct type text is classified once here.
pub fn verify_lowered(f: &Function, ft: &FunctionTypes) -> Vec<String> {
    let mut errs = opaque_objects(f, ft);
    errs.extend(stack_discipline(f));
    errs
}

/// The first half of [`verify_lowered`]: every value of an address-only type that is still
/// an object. (The pass checks the second half, the stack discipline, with the CFG it builds
/// of its output anyway, see [`super::Lowering::stack_problems`].)
pub(crate) fn opaque_objects(f: &Function, ft: &FunctionTypes) -> Vec<String> {
    let mut errs = Vec::new();
    let mut opaque: HashMap<&str, bool> = HashMap::new();
    for (_, d) in f.values.iter() {
        if let Some(Type::Sil(t)) = &d.ty {
            let t = t.trim();
            if t.starts_with('*') {
                continue;
            }
            if *opaque.entry(t).or_insert_with(|| ft.class_of(t) == Class::AddressOnly) {
                errs.push(format!("%{} is still an object of the address-only type ${t}", d.name));
            }
        }
    }
    errs
}

/// The type context of `f` from its signature alone (no row per value): what
/// [`verify_lowered`] needs to classify a type, without a table of every value of a large
/// lowered function that the check would read once (6% of the pass's time at 10^4 blocks).
pub fn signature_types(f: &Function, env: Arc<TypeEnv>) -> FunctionTypes {
    let mut header = Function::new(f.name.clone(), f.lang);
    header.sil = f.sil.clone();
    header.span = f.span;
    FunctionTypes::new(&header, env)
}

/// Walks the CFG with the stack of live `alloc_stack`s: a block reached twice must be
/// reached with the same stack; `dealloc_stack` must free the top; exits must find it empty.
///
/// Why the stacks are interned: a lowered function allocates its slots in the entry, so
/// every block is reached with (nearly) all of them live. A copy of the stack per block and a
/// comparison per edge were quadratic (330 MB and 0.3 s at 10^4 blocks); as nodes of a
/// hash-consed tree (a stack is its top node, equal stacks are the same node) each block
/// costs its own instructions only.
pub(crate) fn stack_discipline(f: &Function) -> Vec<String> {
    stack_discipline_in(f, &Cfg::new(f))
}

/// [`stack_discipline`] with `f`'s CFG already built (the pass builds it once for this
/// check and its own analyses).
pub(crate) fn stack_discipline_in(f: &Function, cfg: &Cfg) -> Vec<String> {
    let Some(entry) = cfg.entry() else { return Vec::new() };
    let mut stacks = Stacks::default();
    let mut at: EntityVec<BlockId, Option<u32>> = EntityVec::filled(f.blocks.len(), None);
    let mut work = vec![(entry, EMPTY)];
    let mut errs = Vec::new();
    while let Some((b, mut stack)) = work.pop() {
        if let Some(seen) = at[b] {
            if seen != stack {
                errs.push(format!("{} is reached with different stacks of alloc_stack", f.block_name(b)));
            }
            continue;
        }
        at[b] = Some(stack);
        for i in f.blocks[b].all_insts() {
            let inst = &f.insts[i];
            match &inst.op {
                Op::Sil(SilOp::AllocStack) => {
                    if let Some(&v) = inst.results.first() {
                        stack = stacks.push(stack, v);
                    }
                }
                Op::Sil(SilOp::DeallocStack) => {
                    let a = inst.args.first().copied();
                    if stacks.top(stack) != a {
                        errs.push(format!("in {}: dealloc_stack of {} is not the most recent live alloc_stack", f.block_name(b), a.map_or("?".into(), |a| f.value_in_code(a))));
                    }
                    if let Some(a) = a {
                        stack = stacks.remove_last(stack, a);
                    }
                }
                Op::Sil(SilOp::Return | SilOp::Throw) if stack != EMPTY => {
                    errs.push(format!("{} returns with {} alloc_stack still live", f.block_name(b), stacks.depth(stack)));
                }
                _ => {}
            }
        }
        for &s in cfg.succs(b) {
            work.push((s, stack));
        }
    }
    errs
}

/// The empty stack.
const EMPTY: u32 = 0;

/// Stacks of values as the nodes of one tree: node `n` is the stack whose top is
/// `nodes[n].1` on top of the stack `nodes[n].0`. Nodes are interned by (below, top), so two
/// equal stacks are always the same node and compare in O(1).
struct Stacks {
    /// (the stack below, the top, the depth); node 0 is the empty stack.
    nodes: Vec<(u32, ValueId, u32)>,
    intern: HashMap<(u32, ValueId), u32>,
}

impl Default for Stacks {
    fn default() -> Self {
        Stacks { nodes: vec![(EMPTY, ValueId(u32::MAX), 0)], intern: HashMap::new() }
    }
}

impl Stacks {
    fn push(&mut self, below: u32, v: ValueId) -> u32 {
        let next = self.nodes.len() as u32;
        let depth = self.nodes[below as usize].2 + 1;
        let n = *self.intern.entry((below, v)).or_insert(next);
        if n == next {
            self.nodes.push((below, v, depth));
        }
        n
    }

    fn top(&self, s: u32) -> Option<ValueId> {
        (s != EMPTY).then(|| self.nodes[s as usize].1)
    }

    fn depth(&self, s: u32) -> usize {
        self.nodes[s as usize].2 as usize
    }

    /// The stack without the most recent `v` (unchanged if `v` is not on it). Popping the
    /// top is O(1); freeing a deeper slot (an error already reported) rebuilds above it.
    fn remove_last(&mut self, s: u32, v: ValueId) -> u32 {
        let mut above = Vec::new();
        let mut cur = s;
        while cur != EMPTY {
            let (below, top, _) = self.nodes[cur as usize];
            if top == v {
                return above.into_iter().rev().fold(below, |acc, x| self.push(acc, x));
            }
            above.push(top);
            cur = below;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::gen::Rng;

    /// The first version: a copy of the stack per block, compared element by element. It is
    /// obviously right and quadratic; the interned one must find exactly what it finds.
    fn stack_discipline_by_copies(f: &Function) -> Vec<String> {
        let cfg = Cfg::new(f);
        let Some(entry) = cfg.entry() else { return Vec::new() };
        let mut at: HashMap<BlockId, Vec<ValueId>> = HashMap::new();
        let mut work = vec![(entry, Vec::new())];
        let mut errs = Vec::new();
        while let Some((b, mut stack)) = work.pop() {
            if let Some(seen) = at.get(&b) {
                if *seen != stack {
                    errs.push(format!("{} is reached with different stacks of alloc_stack", f.block_name(b)));
                }
                continue;
            }
            at.insert(b, stack.clone());
            for i in f.blocks[b].all_insts() {
                let inst = &f.insts[i];
                match &inst.op {
                    Op::Sil(SilOp::AllocStack) => stack.extend(inst.results.first().copied()),
                    Op::Sil(SilOp::DeallocStack) => {
                        let a = inst.args.first().copied();
                        if stack.last().copied() != a {
                            errs.push(format!("in {}: dealloc_stack of {} is not the most recent live alloc_stack", f.block_name(b), a.map_or("?".into(), |a| f.value_in_code(a))));
                        }
                        if let Some(a) = a {
                            if let Some(p) = stack.iter().rposition(|&x| x == a) {
                                stack.remove(p);
                            }
                        }
                    }
                    Op::Sil(SilOp::Return | SilOp::Throw) if !stack.is_empty() => {
                        errs.push(format!("{} returns with {} alloc_stack still live", f.block_name(b), stack.len()));
                    }
                    _ => {}
                }
            }
            for &s in cfg.succs(b) {
                work.push((s, stack.clone()));
            }
        }
        errs
    }

    /// A random function of alloc_stacks and dealloc_stacks over a random CFG: mostly
    /// nested, sometimes freeing the wrong slot, one twice, or one never allocated, with
    /// joins and loops reached by equal and by different stacks.
    fn random_stacks(seed: u64) -> String {
        let mut rng = Rng::new(seed);
        let blocks = 1 + rng.below(8);
        let slots = 1 + rng.below(6);
        let mut out = String::from("sil @f : $@convention(thin) (Builtin.Int1) -> () {\n");
        for b in 0..blocks {
            if b == 0 {
                out.push_str("bb0(%c : $Builtin.Int1):\n");
                for s in 0..slots {
                    out.push_str(&format!("  %s{s} = alloc_stack $Builtin.Int64\n"));
                }
            } else {
                out.push_str(&format!("bb{b}:\n"));
            }
            let mut live: Vec<usize> = Vec::new();
            for k in 0..rng.below(5) {
                match rng.below(20) {
                    0..=9 => {
                        let n = slots + b * 10 + k;
                        out.push_str(&format!("  %s{n} = alloc_stack $Builtin.Int64\n"));
                        live.push(n);
                    }
                    10..=17 if !live.is_empty() => {
                        let n = live.pop().unwrap_or(0);
                        out.push_str(&format!("  dealloc_stack %s{n} : $*Builtin.Int64\n"));
                    }
                    _ => {
                        let n = rng.below(slots);
                        out.push_str(&format!("  dealloc_stack %s{n} : $*Builtin.Int64\n"));
                    }
                }
            }
            // Mostly, a block frees what it allocated (a branch with more live is a
            // different stack at the join).
            if rng.chance(85) {
                for n in live.drain(..).rev() {
                    out.push_str(&format!("  dealloc_stack %s{n} : $*Builtin.Int64\n"));
                }
            }
            // Branches go anywhere but the entry (it takes the function's arguments).
            let target = |rng: &mut Rng| 1 + rng.below(blocks - 1);
            match if blocks == 1 { 0 } else { rng.below(4) } {
                0 => {
                    if rng.chance(85) {
                        for n in (0..slots).rev() {
                            out.push_str(&format!("  dealloc_stack %s{n} : $*Builtin.Int64\n"));
                        }
                    }
                    out.push_str(&format!("  %r{b} = tuple ()\n  return %r{b} : $()\n"));
                }
                1 => out.push_str(&format!("  br bb{}\n", target(&mut rng))),
                _ => out.push_str(&format!("  cond_br %c, bb{}, bb{}\n", target(&mut rng), target(&mut rng))),
            }
        }
        out.push_str("}\n");
        out
    }

    /// The classes `verify_lowered` reads from the signature alone are those of the full
    /// table of the function's types: on opaque-values code (where every check fails) and
    /// on its lowered form, for a generic signature with a requirement.
    #[test]
    fn signature_types_classify_as_the_full_table() {
        let text = "\
protocol P {}

struct Pair<T> { var x: T; var y: T }

enum Optional<T> {
  case none
  case some(T)
}

sil [ossa] @f : $@convention(thin) <T, U where U : P> (@in T, @in U, Builtin.Int64) -> (@out T, @out Pair<U>) {
bb0(%0 : @owned $T, %1 : @owned $U, %i : $Builtin.Int64):
  %c = copy_value %1 : $U
  %p = struct $Pair<U> (%1 : $U, %c : $U)
  %o = enum $Optional<T>, #Optional.some!enumelt, %0 : $T
  %k = tuple (%i : $Builtin.Int64, %i : $Builtin.Int64)
  switch_enum %o : $Optional<T>, case #Optional.some!enumelt: bb1, case #Optional.none!enumelt: bb2
bb1(%t : @owned $T):
  %r = tuple (%t : $T, %p : $Pair<U>)
  return %r : $(T, Pair<U>)
bb2:
  unreachable
}
";
        let m = crate::parse::sil::parse("t.sil", text).unwrap_or_else(|d| panic!("{d:?}"));
        let env = crate::sil::types::env_of(&m);
        let f = &m.functions[0];
        let l = crate::sil::lowering::lower(f, &FunctionTypes::new(f, env.clone()), &env.decls).unwrap_or_else(|r| panic!("{r:?}"));
        let mut address_only = 0;
        for g in [f, &*l.function] {
            let (full, sig) = (FunctionTypes::new(g, env.clone()), signature_types(g, env.clone()));
            for (_, d) in g.values.iter() {
                let Some(Type::Sil(t)) = &d.ty else { continue };
                assert_eq!(full.class_of(t), sig.class_of(t), "@{} %{}: ${t}", g.name, d.name);
                address_only += usize::from(full.class_of(t) == Class::AddressOnly);
            }
            assert_eq!(verify_lowered(g, &full), verify_lowered(g, &sig));
        }
        assert!(!verify_lowered(f, &signature_types(f, env.clone())).is_empty(), "the input has opaque values");
        assert!(verify_lowered(&l.function, &signature_types(&l.function, env)).is_empty());
        assert!(address_only >= 6, "{address_only}");
    }

    #[test]
    fn interned_stacks_find_what_copied_stacks_find() {
        let mut found = 0;
        let mut checked = 0;
        for seed in 0..3000 {
            let text = random_stacks(seed);
            let Ok(m) = crate::parse::sil::parse("t.sil", &text) else { continue };
            let f = &m.functions[0];
            let want = stack_discipline_by_copies(f);
            assert_eq!(stack_discipline(f), want, "seed {seed}:\n{text}");
            checked += 1;
            found += usize::from(!want.is_empty());
        }
        // The generator must reach both answers often, or the comparison proves little.
        assert!(checked > 2000, "only {checked} generated functions parse");
        assert!(found > 300 && found + 300 < checked, "{found} of {checked} have problems");
    }
}
