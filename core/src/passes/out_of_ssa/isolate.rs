//! Sreedhar's Method I: every φ's value goes through a variable of its own, `x.in`, written
//! by copies where the incoming values are known and read by one copy where the φ stands.

use super::trace::{apply_event, base, Event, NewValue, Trace};
use crate::cfg::Cfg;
use crate::entity::{EntityRef, EntityVec};
use crate::ir::{BlockId, BrilOp, Function, InstId, NewNames, Op, ValueId};

/// A copy the isolation made: `dest = id src`, instruction `inst` in `block`.
#[derive(Clone, Copy, Debug)]
pub struct Made {
    pub inst: InstId,
    pub dest: ValueId,
    pub src: ValueId,
    pub block: BlockId,
}

/// Isolates every φ of `f`; returns the function, the copies made and the number of φs.
pub fn isolate(f: &Function, cfg: &Cfg, trace: &mut Trace) -> (Function, Vec<Made>, usize) {
    let is = |i: InstId, op: BrilOp| f.insts[i].op == Op::Bril(op);
    // The shadow variables, in the order they first appear, each with its `x.in`.
    let mut shadow_in: EntityVec<ValueId, Option<ValueId>> = EntityVec::filled(f.values.len(), None);
    let mut names = NewNames::new(f);
    let mut next_id = f.values.len() as u32;
    for (_, i) in f.placed_insts() {
        let inst = &f.insts[i];
        let shadow = if is(i, BrilOp::Set) {
            inst.args.first().copied()
        } else if is(i, BrilOp::Get) || is(i, BrilOp::Phi) {
            inst.results.first().copied()
        } else {
            None
        };
        let Some(s) = shadow.filter(|s| s.index() < f.values.len()) else { continue };
        if shadow_in[s].is_some() {
            continue;
        }
        let name = names.claim(&format!("{}.in", f.values[s].name));
        // The set's value gives the type where the shadow variable has none of its own.
        let ty = f.values[s].ty.clone().or_else(|| inst.args.get(1).and_then(|&v| f.values.get(v)).and_then(|v| v.ty.clone()));
        let id = ValueId(next_id);
        next_id += 1;
        trace.values.push(NewValue { id, name, ty });
        shadow_in[s] = Some(id);
    }
    let mut g = base(f, trace);
    let mut made = Vec::new();
    let mut phis = 0;
    let placed: Vec<(BlockId, InstId)> = f.placed_insts().collect();
    for (b, i) in placed {
        let inst = &f.insts[i];
        let mut events = Vec::new();
        if is(i, BrilOp::Set) {
            let (Some(&s), Some(&v)) = (inst.args.first(), inst.args.get(1)) else { continue };
            let Some(sin) = shadow_in.get(s).copied().flatten() else { continue };
            events.push(Event::SetToCopy { inst: i, shadow_in: sin });
            made.push(Made { inst: i, dest: sin, src: v, block: b });
        } else if is(i, BrilOp::Get) || is(i, BrilOp::Phi) {
            let Some(&x) = inst.results.first() else { continue };
            let Some(sin) = shadow_in.get(x).copied().flatten() else { continue };
            phis += 1;
            if is(i, BrilOp::Phi) {
                let mut seen: Vec<BlockId> = Vec::new();
                for (&a, s) in inst.args.iter().zip(&inst.succs) {
                    let p = s.block;
                    // A label that names no predecessor is never chosen.
                    if seen.contains(&p) || !cfg.preds(b).contains(&p) {
                        continue;
                    }
                    seen.push(p);
                    let copy = g.insts.next_key();
                    events.push(Event::PhiArgToCopy { phi: i, pred: p, arg: a, shadow_in: sin, copy });
                    made.push(Made { inst: copy, dest: sin, src: a, block: p });
                    // Applied now, so the next copy's id is known.
                    let e = events.pop().expect("just pushed");
                    let _ = apply_event(&mut g, &e);
                    trace.events.push(e);
                }
                events.push(Event::PhiToCopy { inst: i, shadow_in: sin });
            } else {
                events.push(Event::GetToCopy { inst: i, shadow_in: sin });
            }
            made.push(Made { inst: i, dest: x, src: sin, block: b });
        }
        for e in events {
            let _ = apply_event(&mut g, &e);
            trace.events.push(e);
        }
    }
    (g, made, phis)
}
