//! The trace of the translation out of SSA — each φ made into copies, each coalescing
//! decision with its reason, the renaming of the merged classes, the copies deleted — and the
//! replay that rebuilds the program at any step through the same [`apply_event`] as the pass.

use crate::ir::{BlockId, BrilOp, Function, Inst, InstId, Name, Op, Type, ValueDef, ValueId};
use serde::{Deserialize, Serialize};

/// A variable the pass made: the one copy a φ's incoming values go through (`x.in`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewValue {
    pub id: ValueId,
    pub name: Name,
    pub ty: Option<Type>,
}

/// Why two classes were not merged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Conflict {
    /// `defined` is assigned where `live` is live (by `at`, or on entry for a parameter).
    Interfere { defined: ValueId, live: ValueId, at: Option<InstId> },
    /// Both classes hold a parameter: they must keep two names.
    TwoParams { a: ValueId, b: ValueId },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// `set s v` becomes `s.in = id v` (in place).
    SetToCopy { inst: InstId, shadow_in: ValueId },
    /// `s: T = get` becomes `s: T = id s.in` (in place).
    GetToCopy { inst: InstId, shadow_in: ValueId },
    /// A `phi`'s argument from `pred` becomes `x.in = id a` at the end of `pred`.
    PhiArgToCopy { phi: InstId, pred: BlockId, arg: ValueId, shadow_in: ValueId, copy: InstId },
    /// `x: T = phi …` becomes `x: T = id x.in` (in place).
    PhiToCopy { inst: InstId, shadow_in: ValueId },
    /// The copy `copy` (`dest = id src`) is tried: its two variables' classes merge, or a
    /// conflict keeps them apart (`None`: already in one class).
    Coalesce { copy: InstId, dest: ValueId, src: ValueId, conflict: Option<Conflict>, merged: bool },
    /// Every variable of a merged class takes its class's name.
    Rename { map: Vec<(ValueId, ValueId)>, names: Vec<(ValueId, Name)> },
    /// The copies that became `x = id x`.
    Delete { insts: Vec<InstId> },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub values: Vec<NewValue>,
    pub events: Vec<Event>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the trace does not fit the function: {0}")]
pub struct ReplayError(pub String);

/// The function the events apply to: the input and the variables the pass made.
pub fn base(f: &Function, trace: &Trace) -> Function {
    let mut g = f.clone_with_room(trace.values.len() * 2, trace.values.len());
    for v in &trace.values {
        g.add_value(v.name.clone(), v.ty.clone(), ValueDef::Var);
    }
    g
}

fn to_copy(g: &mut Function, inst: InstId, result: ValueId, src: ValueId, ty: Option<Type>) -> Result<(), ReplayError> {
    let i = g.insts.get_mut(inst).ok_or_else(|| ReplayError("no such instruction".into()))?;
    i.op = Op::Bril(BrilOp::Id);
    i.results.clear();
    i.results.push(result);
    i.args.clear();
    i.args.push(src);
    i.succs.clear();
    if ty.is_some() {
        i.ty = ty;
    }
    Ok(())
}

pub fn apply_event(g: &mut Function, e: &Event) -> Result<(), ReplayError> {
    let bad = |m: &str| ReplayError(m.to_string());
    match e {
        Event::SetToCopy { inst, shadow_in } => {
            let src = *g.insts.get(*inst).and_then(|i| i.args.get(1)).ok_or_else(|| bad("set without a value"))?;
            let ty = g.values.get(*shadow_in).and_then(|v| v.ty.clone());
            to_copy(g, *inst, *shadow_in, src, ty)?;
        }
        Event::GetToCopy { inst, shadow_in } | Event::PhiToCopy { inst, shadow_in } => {
            let dest = *g.insts.get(*inst).and_then(|i| i.results.first()).ok_or_else(|| bad("no destination"))?;
            to_copy(g, *inst, dest, *shadow_in, None)?;
        }
        Event::PhiArgToCopy { pred, arg, shadow_in, copy, .. } => {
            let mut i = Inst::new(Op::Bril(BrilOp::Id));
            i.results.push(*shadow_in);
            i.args.push(*arg);
            i.ty = g.values.get(*shadow_in).and_then(|v| v.ty.clone());
            let id = g.add_inst(i);
            if id != *copy {
                return Err(bad("the copy's instruction id differs"));
            }
            g.blocks.get_mut(*pred).ok_or_else(|| bad("no such block"))?.insts.push(id);
        }
        Event::Coalesce { .. } => {}
        Event::Rename { map, names } => {
            let n = g.values.len();
            let mut to: Vec<ValueId> = (0..n as u32).map(ValueId).collect();
            for &(a, b) in map {
                if let Some(slot) = to.get_mut(a.0 as usize) {
                    *slot = b;
                }
            }
            let sub = |v: &mut ValueId| {
                if let Some(&t) = to.get(v.0 as usize) {
                    *v = t;
                }
            };
            let placed: Vec<InstId> = g.placed_insts().map(|(_, i)| i).collect();
            for i in placed {
                let inst = &mut g.insts[i];
                inst.args.iter_mut().for_each(sub);
                inst.results.iter_mut().for_each(sub);
            }
            g.params.iter_mut().for_each(sub);
            for (v, name) in names {
                if let Some(d) = g.values.get_mut(*v) {
                    d.name = name.clone();
                }
            }
        }
        Event::Delete { insts } => {
            let mut gone = crate::entity::EntitySet::<InstId>::new_empty(g.insts.len());
            for &i in insts {
                if i.0 < g.insts.len() as u32 {
                    gone.insert(i);
                }
            }
            for k in 0..g.layout.len() {
                let b = g.layout[k];
                g.blocks[b].insts.retain(|&i| !gone.contains(i));
            }
        }
    }
    Ok(())
}

pub fn replay_to(f: &Function, trace: &Trace, k: usize) -> Result<Function, ReplayError> {
    let mut g = base(f, trace);
    for e in trace.events.iter().take(k) {
        apply_event(&mut g, e)?;
    }
    Ok(g)
}

/// The classes after the first `k` events: each a list of variables, the first the one the
/// class is known by. Variables never merged are left out.
pub fn classes_at(trace: &Trace, k: usize) -> Vec<Vec<ValueId>> {
    let mut classes: Vec<Vec<ValueId>> = Vec::new();
    for e in trace.events.iter().take(k) {
        if let Event::Coalesce { dest, src, merged: true, .. } = e {
            let find = |cs: &Vec<Vec<ValueId>>, v: ValueId| cs.iter().position(|c| c.contains(&v));
            match (find(&classes, *dest), find(&classes, *src)) {
                (Some(a), Some(b)) if a != b => {
                    let moved = classes.remove(b.max(a));
                    let keep = b.min(a);
                    classes[keep].extend(moved);
                }
                (Some(a), None) => classes[a].push(*src),
                (None, Some(b)) => classes[b].push(*dest),
                (None, None) => classes.push(vec![*dest, *src]),
                _ => {}
            }
        }
    }
    classes
}
