//! What must hold after AddressLowering, beyond the IR verifier: no object value of an
//! address-only type is left, and every `alloc_stack` is deallocated in stack order on
//! every path.

use crate::cfg::Cfg;
use crate::ir::{BlockId, Function, Op, SilOp, Type, ValueId};
use crate::sil::types::{Class, FunctionTypes};
use std::collections::HashMap;

/// The problems, each a sentence naming the value or block; empty when the function is
/// properly lowered.
pub fn verify_lowered(f: &Function, ft: &FunctionTypes) -> Vec<String> {
    let mut errs = Vec::new();
    for (_, d) in f.values.iter() {
        if let Some(Type::Sil(t)) = &d.ty {
            let t = t.trim();
            if !t.starts_with('*') && ft.class_of(t) == Class::AddressOnly {
                errs.push(format!("%{} is still an object of the address-only type ${t}", d.name));
            }
        }
    }
    errs.extend(stack_discipline(f));
    errs
}

/// Walks the CFG with the stack of live `alloc_stack`s: a block reached twice must be
/// reached with the same stack; `dealloc_stack` must free the top; exits must find it empty.
pub(crate) fn stack_discipline(f: &Function) -> Vec<String> {
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
