//! One sentence per event of Mem2Reg; step 0 is the function before it. What the step does
//! comes before the first `: `, what it found after (as the other passes' steps).

use super::trace::{Event, Frontier, Reason, Trace};
use crate::ir::{BlockId, Function, InstId, ValueId};

/// The step texts of a run: `start` is the input, `out` the result (it names the values the
/// pass made).
pub fn step_texts(start: &Function, out: &Function, trace: &Trace) -> Vec<String> {
    let b = |x: BlockId| start.block_in_code(x);
    let v = |x: ValueId| out.value_in_code(x);
    let opt = |x: Option<ValueId>| x.map_or_else(|| "undef".to_string(), v);
    let slot = |s: u32| match trace.slots.get(s as usize) {
        Some(info) => {
            let ty = info.ty.as_ref().map_or_else(String::new, |t| format!(" : {t}"));
            format!("`{}{ty}`", start.value_in_code(info.addr))
        }
        None => format!("slot {s}"),
    };
    let op = |i: InstId| match start.insts.get(i) {
        Some(inst) => format!("`{}`", inst.op.name()),
        None => i.to_string(),
    };
    let blocks = |xs: &[BlockId]| -> String {
        if xs.is_empty() {
            "nothing".into()
        } else {
            xs.iter().map(|&x| format!("`{}`", b(x))).collect::<Vec<_>>().join(", ")
        }
    };
    let mut texts = Vec::with_capacity(trace.events.len() + 1);
    let n = trace.slots.len();
    texts.push(format!(
        "Before Mem2Reg: {n} `alloc_stack` slot{} to examine; each promoted slot's stores become values, its loads read them, and block arguments join them where paths meet",
        if n == 1 { "" } else { "s" }
    ));
    for e in &trace.events {
        let t = match e {
            Event::Chosen { slot: s, loads, stores } => format!(
                "Promote {}: its type is trivial and its address is only loaded from, stored to, described and deallocated ({loads} load{}, {stores} store{})",
                slot(*s),
                if *loads == 1 { "" } else { "s" },
                if *stores == 1 { "" } else { "s" }
            ),
            Event::Rejected { slot: s, reason } => {
                let why = match reason {
                    Reason::Escapes { inst, op } => {
                        let blk = start.block_of(*inst).map_or_else(String::new, |x| format!(" in `{}`", b(x)));
                        format!("its address escapes into the `{op}`{blk}, which may read or write it behind the pass's back")
                    }
                    Reason::Qualifier { inst, .. } => {
                        let blk = start.block_of(*inst).map_or_else(String::new, |x| format!(" (in `{}`)", b(x)));
                        format!("{reason}{blk}")
                    }
                    Reason::Edge { block, pred, .. } => format!("{reason} (the edge `{}` → `{}`)", b(*pred), b(*block)),
                    _ => reason.to_string(),
                };
                format!("Leave {} in memory: {why}", slot(*s))
            }
            Event::Worklist { slot: s, defs } => {
                format!("Place the arguments of {}: its worklist starts as the blocks that store to it: {}", slot(*s), blocks(defs))
            }
            Event::Take { block, frontier, .. } => {
                format!("Take `{}` off the worklist: its dominance frontier is {}", b(*block), blocks(frontier))
            }
            Event::Frontier { slot: s, from, to, outcome, joins } => {
                let then = if *joins { "; it joins the worklist" } else { "" };
                match outcome {
                    Frontier::Arg => format!(
                        "An argument for {} at `{}`: it is in the frontier of `{}`, and a load there or below reads the slot before any store{then}",
                        slot(*s),
                        b(*to),
                        b(*from)
                    ),
                    Frontier::Dead => format!(
                        "No argument for {} at `{}`: it is in the frontier of `{}`, but no load reads the slot from there before a store (pruned){then}",
                        slot(*s),
                        b(*to),
                        b(*from)
                    ),
                }
            }
            Event::AddArg { slot: s, block, value, .. } => {
                format!("Add the argument `{}` to `{}`: the value {} holds on entry", v(*value), b(*block), slot(*s))
            }
            Event::Enter { block } => format!("Rename in `{}`: entered in dominator-tree order", b(*block)),
            Event::ReplaceLoad { slot: s, block, result, value, uses, .. } => format!(
                "Replace the load `{}` in `{}` by `{}`: what {} holds there ({} use{} rewritten)",
                v(*result),
                b(*block),
                opt(*value),
                slot(*s),
                uses.len(),
                if uses.len() == 1 { "" } else { "s" }
            ),
            Event::RemoveStore { slot: s, block, value, .. } => {
                format!("Remove the store to {} in `{}`: the slot now holds `{}`", slot(*s), b(*block), opt(*value))
            }
            Event::PassArg { slot: s, from, to, value, .. } => format!(
                "Edge `{}` → `{}` passes `{}`: what {} holds at the end of `{}`",
                b(*from),
                b(*to),
                opt(*value),
                slot(*s),
                b(*from)
            ),
            Event::Leave { block } => format!("Leave `{}`: the slots hold again what they held in its immediate dominator", b(*block)),
            Event::Delete { slot: s, block, inst } => {
                format!("Delete the {} of {} in `{}`: the slot is gone", op(*inst), slot(*s), b(*block))
            }
        };
        texts.push(t);
    }
    texts
}
