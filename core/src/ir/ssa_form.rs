//! Whether a Bril function is in SSA form: what SSA construction promises of its output.
//!
//! The rules (Bril's docs/lang/ssa2.md and ssa.md): every variable is assigned at most once in
//! the function, a parameter counting as an assignment — so each shadow variable has at most
//! one `get` — and `get`s and `phi`s stand at the top of their block, before any other
//! instruction, where a φ belongs. `ir::verify` does not ask this of every function: a Bril
//! program may use `set`/`get` and still assign a variable twice.

use super::{BrilOp, Function, Lang, Op, ValueId};
use crate::diag::{Diagnostic, Diagnostics};
use crate::entity::{EntityRef, EntityVec};

pub fn check_ssa_form(f: &Function) -> Result<(), Diagnostics> {
    let mut errs = Diagnostics::default();
    if f.lang != Lang::Bril {
        return Ok(());
    }
    let mut count: EntityVec<ValueId, u32> = EntityVec::filled(f.values.len(), 0);
    for &p in &f.params {
        if p.index() < count.len() {
            count[p] += 1;
        }
    }
    for &b in &f.layout {
        let Some(block) = f.blocks.get(b) else { continue };
        let mut at_top = true;
        for i in block.all_insts() {
            let Some(inst) = f.insts.get(i) else { continue };
            let phi_like = matches!(inst.op, Op::Bril(BrilOp::Get | BrilOp::Phi));
            if phi_like && !at_top {
                errs.push(Diagnostic::error(
                    inst.span,
                    format!("in function `{}`: `{}` in block `.{}` is not at the top of its block", f.name, inst.op, block.name),
                ));
            }
            at_top &= phi_like;
            for &r in &inst.results {
                if r.index() < count.len() {
                    count[r] += 1;
                    if count[r] == 2 {
                        errs.push(Diagnostic::error(
                            inst.span,
                            format!("in function `{}`: `{}` is assigned more than once", f.name, f.values[r].name),
                        ));
                    }
                }
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}
