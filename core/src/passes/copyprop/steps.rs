//! One sentence per step of the pass, for the step-through view and the golden files:
//! the copies before, each round of the available-copies fixpoint, each rewrite with the
//! copies that justify it, each deletion, each copy recomputed from the expression its source
//! holds. Step `k`'s program is
//! `replay_to(original, trace, trace.events_at_step(k))` and its table
//! `trace.avail_at_round(k)`.

use super::trace::{apply_event, AvailRound, Event, Trace};
use super::CopyPropOutput;
use crate::ir::{Function, InstId};
use crate::passes::dce::inst_text;

fn copy_text(t: &Trace, c: super::CopyId) -> String {
    t.copies.get(c.0 as usize).map_or_else(|| c.to_string(), |x| x.text.clone())
}

/// Why a copy of `dest` was deleted in liveness round `round` (0: the self-copy the rewrite
/// made): the step text's and the view's words.
pub fn delete_reason(dest: &str, round: u32) -> String {
    match round {
        0 => format!("the rewrite made it copy {dest} to itself, which does nothing"),
        1 => format!("{dest} is not used afterwards"),
        _ => format!("{dest} is no longer used afterwards, now that the copies reading it are gone"),
    }
}

/// `a`, `a and b`, `a, b and c`: how the step texts and the view's explanations list copies.
pub fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn round_text(f: &Function, r: &AvailRound, k: usize, n: usize) -> String {
    let head = format!("Available copies, round {k} of {n}: ");
    let blocks = |cs: &[super::trace::SetChange]| list(&cs.iter().map(|c| f.block_in_code(c.block)).collect::<Vec<_>>());
    if !r.ins.is_empty() {
        format!("{head}in-set changed in {}", blocks(&r.ins))
    } else if !r.outs.is_empty() {
        format!("{head}no in-set changed; out-set changed in {}", blocks(&r.outs))
    } else {
        format!("{head}nothing changed — the fixpoint is reached")
    }
}

fn event_text(g: &Function, t: &Trace, e: &Event, inst: InstId) -> String {
    match e {
        Event::Rewrite { block, from, to, via, more, .. } => {
            let mut copies: Vec<String> = via.iter().map(|v| format!("`{}`", copy_text(t, v.copy))).collect();
            if *more > 0 {
                copies.push(format!("{more} more"));
            }
            let noun = if copies.len() == 1 { "copy" } else { "copies" };
            let verb = if copies.len() == 1 { "reaches" } else { "reach" };
            format!(
                "Rewrite `{}` to `{}` in `{}` ({}): {noun} {} {verb} it on every path",
                g.value_in_code(*from),
                g.value_in_code(*to),
                inst_text(g, inst),
                g.block_in_code(*block),
                list(&copies)
            )
        }
        Event::Delete { block, round, .. } => {
            let dest = g.insts.get(inst).and_then(|i| i.results.first()).map_or_else(|| "?".to_string(), |&d| g.value_in_code(d));
            format!("Delete `{}` ({}): {}", inst_text(g, inst), g.block_in_code(*block), delete_reason(&dest, *round))
        }
        Event::Rematerialize { block, from, args, via, .. } => {
            let mut after = g.clone();
            let recomputed = match apply_event(&mut after, 0, e) {
                Ok(()) => inst_text(&after, inst),
                Err(_) => "?".to_string(),
            };
            let expr = after.insts.get(inst).map_or_else(String::new, |x| {
                let op = x.op.to_string();
                let words = std::iter::once(op).chain(x.args.iter().map(|&a| g.value_in_code(a)));
                words.collect::<Vec<_>>().join(" ")
            });
            let t = g.value_in_code(*from);
            let mut blocks: Vec<String> = Vec::new();
            for &i in via {
                if let Some((b, _)) = g.placed_insts().find(|&(_, x)| x == i) {
                    let name = g.block_in_code(b);
                    if !blocks.contains(&name) {
                        blocks.push(name);
                    }
                }
            }
            let mut names: Vec<String> = Vec::new();
            for &a in args {
                let n = format!("`{}`", g.value_in_code(a));
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            let unchanged = match names.as_slice() {
                [one] => format!("{one} has not changed since"),
                [a, b] => format!("neither {a} nor {b} has changed since"),
                _ => format!("none of {} has changed since", list(&names)),
            };
            format!(
                "Recompute `{recomputed}` instead of copying `{t}` ({}): `{t}` holds `{expr}` on every path here (computed in {}) and {unchanged}; the cost is the same, and the computation of `{t}` is left for dead code elimination if nothing else reads it",
                g.block_in_code(*block),
                list(&blocks)
            )
        }
    }
}

/// The step texts of a run of the pass on `f` (the original function). One line each.
pub fn step_texts(f: &Function, out: &CopyPropOutput) -> Vec<String> {
    let t = &out.trace;
    let mut steps = Vec::new();
    let n_insts: usize = t.copies.iter().map(|c| c.insts.len()).sum();
    let first = if t.copies.is_empty() {
        format!("Before copy propagation: @{} has no copies, so there is nothing to propagate", f.name)
    } else {
        let texts: Vec<String> = t
            .copies
            .iter()
            .map(|c| match c.insts.len() {
                1 => format!("`{}`", c.text),
                k => format!("`{}` ({k} instructions)", c.text),
            })
            .collect();
        let noun = if t.copies.len() == 1 { "copy" } else { "copies" };
        format!(
            "Before copy propagation: @{} has {} {noun} in {n_insts} instruction{}: {}",
            f.name,
            t.copies.len(),
            if n_insts == 1 { "" } else { "s" },
            list(&texts)
        )
    };
    steps.push(first);
    let n = t.rounds.len();
    for (k, r) in t.rounds.iter().enumerate() {
        steps.push(round_text(f, r, k + 1, n));
    }
    let mut g = f.clone();
    for (k, e) in t.events.iter().enumerate() {
        steps.push(event_text(&g, t, e, e.inst()));
        if apply_event(&mut g, k, e).is_err() {
            break;
        }
    }
    steps
}
