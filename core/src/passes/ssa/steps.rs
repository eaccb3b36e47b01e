//! One sentence per event of SSA construction; step 0 is the program before it. What the
//! step does comes before the first `: `, what it found after (exercise mode shows the first
//! part only).

use super::trace::{Event, Form, Frontier, Trace};
use crate::ir::{BlockId, Function, ValueId};

/// The step texts of a run: `start` is what the events apply to (the input, with its fresh
/// entry if it got one), `out` the result (it names the values the pass made).
pub fn step_texts(start: &Function, out: &Function, trace: &Trace) -> Vec<String> {
    let b = |x: BlockId| start.block_in_code(x);
    let v = |x: ValueId| out.value_in_code(x);
    let blocks = |xs: &[BlockId]| -> String {
        if xs.is_empty() {
            "nothing".into()
        } else {
            xs.iter().map(|&x| format!("`{}`", b(x))).collect::<Vec<_>>().join(", ")
        }
    };
    let mut texts = Vec::with_capacity(trace.events.len() + 1);
    if trace.events.is_empty() && out.placed_insts().any(|(_, i)| matches!(out.insts[i].op.name(), "get" | "phi")) {
        return vec![format!("@{} is in SSA form already: every variable is assigned once, its φs at the tops of their blocks", out.name)];
    }
    let mut first = format!(
        "Before SSA construction: {} φ{} to place (pruned SSA: only where the variable is live), then renaming along the dominator tree",
        trace.phis.len(),
        if trace.phis.len() == 1 { "" } else { "s" }
    );
    if trace.flattened {
        first.push_str("; it used `set`/`get` or `phi` without being in SSA form, so it was translated out of SSA first");
    }
    if let Some(e) = trace.fresh_entry {
        first.push_str(&format!("; the entry had predecessors, so `{}` was put in front of it", b(e)));
    }
    texts.push(first);
    for e in &trace.events {
        let t = match e {
            Event::Worklist { var, defs } => {
                format!("Place the φs of `{}`: its worklist starts as the blocks that assign it: {}", v(*var), blocks(defs))
            }
            Event::Take { var, block, frontier } => format!(
                "Take `{}` off `{}`'s worklist: its dominance frontier is {}",
                b(*block),
                v(*var),
                blocks(frontier)
            ),
            Event::Frontier { var, from, to, outcome, joins } => {
                let then = if *joins { format!("; `{}` joins the worklist", b(*to)) } else { String::new() };
                match outcome {
                    Frontier::Phi => format!(
                        "φ for `{}` at `{}`: it is in the frontier of `{}` and `{}` is live into it{then}",
                        v(*var),
                        b(*to),
                        b(*from),
                        v(*var)
                    ),
                    Frontier::Dead => format!(
                        "No φ for `{}` at `{}`: it is in the frontier of `{}`, but `{}` is dead there (pruned){then}",
                        v(*var),
                        b(*to),
                        b(*from),
                        v(*var)
                    ),
                }
            }
            Event::Enter { block } => format!("Rename in `{}`: entered in dominator-tree order", b(*block)),
            Event::PhiDef { phi } => match trace.phis.get(*phi as usize) {
                Some(p) => format!("The φ for `{}` at `{}` defines `{}`: pushed on `{}`'s stack", v(p.var), b(p.block), v(p.name), v(p.var)),
                None => "A φ defines a name".into(),
            },
            Event::Use { var, name, .. } if var == name => {
                format!("A read of `{}` keeps its name: no assignment of `{}` reaches it", v(*var), v(*var))
            }
            Event::Use { var, name, .. } => format!("A read of `{}` becomes `{}`: the top of its stack", v(*var), v(*name)),
            Event::Def { var, name, .. } => format!("An assignment of `{}` now defines `{}`: pushed on its stack", v(*var), v(*name)),
            Event::Arg { phi, from, value } => match trace.phis.get(*phi as usize) {
                Some(p) => format!(
                    "Edge `{}` → `{}`: the φ for `{}` receives `{}`",
                    b(*from),
                    b(p.block),
                    v(p.var),
                    v(*value)
                ),
                None => "An edge gives a φ its argument".into(),
            },
            Event::Leave { block, popped } if popped.is_empty() => format!("Leave `{}`: nothing to pop", b(*block)),
            Event::Leave { block, popped } => format!(
                "Leave `{}`: pop {}",
                b(*block),
                popped.iter().map(|&x| format!("`{}`", v(x))).collect::<Vec<_>>().join(", ")
            ),
            Event::Undef { var, name } => {
                format!("`{}: … = undef` at the top of the entry: `{}` where no assignment of it reaches a φ", v(*name), v(*var))
            }
            Event::Emit { phi } => match trace.phis.get(*phi as usize) {
                Some(p) => match trace.form {
                    Form::SetGet => format!(
                        "Write the φ for `{}` at `{}`: `{} = get` at its top, a `set` at the end of {}",
                        v(p.var),
                        b(p.block),
                        v(p.name),
                        blocks(&p.args.iter().map(|a| a.0).collect::<Vec<_>>())
                    ),
                    Form::Phi => format!("Write the φ for `{}` at `{}`: `{} = phi …`", v(p.var), b(p.block), v(p.name)),
                },
                None => "Write a φ".into(),
            },
        };
        texts.push(t);
    }
    texts
}
