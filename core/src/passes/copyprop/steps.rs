//! One sentence per step of the pass, for the step-through view and the golden files:
//! the copies before, each round of the available-copies fixpoint, each rewrite with the
//! copies that justify it, each deletion, each copy recomputed from the expression its source
//! holds. Step `k`'s program is
//! `replay_to(original, trace, trace.events_at_step(k))` and its table
//! `trace.avail_at_round(k)`.

use super::trace::{apply_event, AvailRound, Event, Trace};
use super::CopyPropOutput;
use crate::entity::EntityVec;
use crate::ir::{BlockId, Function, InstId};
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
    // Every set the table marks changed is named: the in-sets and the out-sets.
    match (r.ins.is_empty(), r.outs.is_empty()) {
        (true, true) => format!("{head}nothing changed — the fixpoint is reached"),
        (false, true) => format!("{head}in-set changed in {}", blocks(&r.ins)),
        (true, false) => format!("{head}no in-set changed; out-set changed in {}", blocks(&r.outs)),
        (false, false) => format!("{head}in-set changed in {}; out-set changed in {}", blocks(&r.ins), blocks(&r.outs)),
    }
}

/// The sentence of event `e`. `g` is the program before it, except for a rematerialisation,
/// whose text reads the recomputed instruction: there `g` is the program after it (`applied`
/// says whether the event applied; the two programs differ in that one instruction only, so
/// every other name is the same). `block_of` is each placed instruction's block.
fn event_text(g: &Function, t: &Trace, e: &Event, inst: InstId, applied: bool, block_of: &EntityVec<InstId, Option<BlockId>>) -> String {
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
            // The program is not cloned per rematerialisation (issue 17: at 10^4 blocks the
            // pipeline's step texts took 6.6 s doing so): the caller applied the event to `g`.
            let recomputed = if applied { inst_text(g, inst) } else { "?".to_string() };
            let expr = g.insts.get(inst).map_or_else(String::new, |x| {
                let op = x.op.to_string();
                let words = std::iter::once(op).chain(x.args.iter().map(|&a| g.value_in_code(a)));
                words.collect::<Vec<_>>().join(" ")
            });
            let t = g.value_in_code(*from);
            let mut blocks: Vec<String> = Vec::new();
            for &i in via {
                if let Some(b) = block_of.get(i).copied().flatten() {
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
    trace_step_texts(f, &out.trace)
}

/// [`step_texts`] from the trace alone (what a deferred [`crate::steps::Steps`] keeps).
pub(crate) fn trace_step_texts(f: &Function, t: &Trace) -> Vec<String> {
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
    // Where each placed instruction is, kept up to date as deletions go: a rematerialisation
    // names the blocks of the instructions that justify it (a search of the whole program
    // per instruction before).
    let mut block_of: EntityVec<InstId, Option<BlockId>> = EntityVec::filled(g.insts.len(), None);
    for (b, i) in g.placed_insts() {
        block_of[i] = Some(b);
    }
    for (k, e) in t.events.iter().enumerate() {
        let applied = match e {
            Event::Rematerialize { .. } => {
                let applied = apply_event(&mut g, k, e).is_ok();
                steps.push(event_text(&g, t, e, e.inst(), applied, &block_of));
                applied
            }
            _ => {
                steps.push(event_text(&g, t, e, e.inst(), true, &block_of));
                apply_event(&mut g, k, e).is_ok()
            }
        };
        if !applied {
            break;
        }
        if let Event::Delete { inst, .. } = e {
            if let Some(slot) = block_of.get_mut(*inst) {
                *slot = None;
            }
        }
    }
    steps
}
