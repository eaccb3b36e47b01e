//! One sentence per step of local value numbering; step 0 is the program before it.

use super::{Event, Outcome, Trace};
use crate::ir::Function;

/// `base` is the function the events apply to (it names the fresh variables).
pub fn step_texts(base: &Function, trace: &Trace) -> Vec<String> {
    let v = |x| base.value_in_code(x);
    let mut texts = vec![match trace.options {
        Some(o) => format!(
            "Before local value numbering (copy propagation {}, commutativity {}, constant folding {}): a table per block, from empty",
            if o.prop { "on" } else { "off" },
            if o.commute { "on" } else { "off" },
            if o.fold { "on" } else { "off" }
        ),
        None => "Before local value numbering".into(),
    }];
    for e in &trace.events {
        texts.push(match e {
            Event::Block { block } => format!("Block `{}`: the table starts empty", base.block_in_code(*block)),
            Event::Inst { outcome, dest, added, moved, renamed, .. } => {
                let d = dest.map(v).unwrap_or_default();
                let mut t = match outcome {
                    Outcome::New => match added.last() {
                        Some(r) => format!("`{d}`: new value #{} = {}, home `{d}`", r.num, r.expr),
                        None => format!("`{d}`: a new value"),
                    },
                    Outcome::Reuse { num } => format!("`{d}`: its value is #{num}, already in the table: copy its home"),
                    Outcome::Fold => format!("`{d}`: its operands are constants: folded to a constant"),
                    Outcome::Copy { num } => format!("`{d}`: a copy: it takes #{num}, the value of its operand"),
                    Outcome::Effect if dest.is_some() => format!("`{d}`: an effect: a new value no other instruction matches"),
                    Outcome::Effect => "An instruction without destination: its operands read the homes of their values".to_string(),
                };
                if *renamed {
                    t.push_str(&format!("; named `{d}` because the variable is assigned again later in the block"));
                }
                for (num, home) in moved {
                    match home {
                        Some(h) => t.push_str(&format!("; #{num} now lives in `{}`", v(*h))),
                        None => t.push_str(&format!("; #{num} is held by no variable any more, so it leaves the table")),
                    }
                }
                t
            }
        });
    }
    texts
}
