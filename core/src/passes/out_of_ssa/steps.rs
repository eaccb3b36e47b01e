//! One sentence per event of the translation out of SSA; step 0 is the program before it.

use super::trace::{Conflict, Event, Trace};
use crate::ir::{Function, InstId, ValueId};

/// `f` is the input, `base` the function the events apply to (it names the `x.in`s).
pub fn step_texts(f: &Function, base: &Function, trace: &Trace) -> Vec<String> {
    let v = |x: ValueId| base.value_in_code(x);
    let at = |i: Option<InstId>| match i.and_then(|i| base.block_of(i)) {
        Some(b) => format!(" in `{}`", base.block_in_code(b)),
        None => " on entry".to_string(),
    };
    let mut texts = vec![format!(
        "Before the translation out of SSA: each φ of @{} gets a variable of its own (Sreedhar's Method I), then copies are coalesced where their variables do not interfere",
        f.name
    )];
    for e in &trace.events {
        let t = match e {
            Event::SetToCopy { inst, shadow_in } => match f.insts.get(*inst).and_then(|i| i.args.get(1)) {
                Some(&src) => format!("`set` becomes a copy: `{} = id {}`", v(*shadow_in), v(src)),
                None => "`set` becomes a copy".into(),
            },
            Event::GetToCopy { inst, shadow_in } | Event::PhiToCopy { inst, shadow_in } => {
                match f.insts.get(*inst).and_then(|i| i.results.first()) {
                    Some(&d) => format!("The φ `{}` becomes a copy: `{} = id {}`", v(d), v(d), v(*shadow_in)),
                    None => "A φ becomes a copy".into(),
                }
            }
            Event::PhiArgToCopy { pred, arg, shadow_in, .. } => {
                format!("The φ's value from `{}` becomes a copy at its end: `{} = id {}`", base.block_in_code(*pred), v(*shadow_in), v(*arg))
            }
            Event::Coalesce { dest, src, conflict: None, merged: false, .. } => {
                format!("Copy `{} = id {}`: already one variable", v(*dest), v(*src))
            }
            Event::Coalesce { dest, src, conflict: None, .. } => {
                format!("Coalesce `{} = id {}`: their classes do not interfere, so they become one variable", v(*dest), v(*src))
            }
            Event::Coalesce { dest, src, conflict: Some(Conflict::Interfere { defined, live, at: i }), .. } => format!(
                "Keep `{} = id {}`: `{}` is assigned{} while `{}` is live",
                v(*dest),
                v(*src),
                v(*defined),
                at(*i),
                v(*live)
            ),
            Event::Coalesce { dest, src, conflict: Some(Conflict::TwoParams { a, b }), .. } => format!(
                "Keep `{} = id {}`: the parameters `{}` and `{}` keep their names",
                v(*dest),
                v(*src),
                v(*a),
                v(*b)
            ),
            Event::Rename { map, .. } => format!("Rename: {} variables take their class's name", map.len()),
            Event::Delete { insts } => format!("Delete the {} copies that became `x = id x`", insts.len()),
        };
        texts.push(t);
    }
    texts
}
