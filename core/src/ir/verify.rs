//! Structural invariants of a function; every pass ends by calling [`verify`].
//!
//! Checked here (no analysis needed): the layout lists each block once; each placed
//! instruction sits in exactly one block, terminators only at the end; ids are in range;
//! successors are placed blocks; SIL blocks all end in a terminator and pass as many
//! arguments as the target has parameters; a Bril `guard` goes on into the next block in
//! layout; a Bril `phi` names as many labels (placed blocks) as it has arguments; SIL values are defined once, where their
//! `ValueDef` says, and every used value is defined by a placed instruction, a placed block's
//! parameter, or is `undef`. Dominance of SIL uses is checked by `dom::verify_ssa`.

use super::{BrilOp, Function, Lang, Op, ValueDef};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::entity::{EntityRef, EntitySet};

pub fn verify(f: &Function) -> Result<(), Diagnostics> {
    let mut errs = Diagnostics::default();
    let mut err = |span: Span, msg: String| errs.push(Diagnostic::error(span, format!("in function `{}`: {msg}", f.name)));

    let nb = f.blocks.len();
    let ni = f.insts.len();
    let nv = f.values.len();
    let mut placed_blocks = EntitySet::new_empty(nb);
    for &b in &f.layout {
        if b.index() >= nb {
            err(f.span, format!("layout names missing block {b}"));
            return Err(errs);
        }
        if !placed_blocks.insert(b) {
            err(f.blocks[b].span, format!("block `{}` appears twice in the layout", f.blocks[b].name));
        }
    }

    let mut placed_insts = EntitySet::new_empty(ni);
    let mut defined = EntitySet::new_empty(nv);
    for (pos, &b) in f.layout.iter().enumerate() {
        let block = &f.blocks[b];
        for (k, &p) in block.params.iter().enumerate() {
            if p.index() >= nv {
                err(block.span, format!("block `{}` has a parameter with missing value {p}", block.name));
                continue;
            }
            if f.lang == Lang::Sil && f.values[p].def != (ValueDef::Param { block: b, index: k as u32 }) {
                err(block.span, format!("parameter {k} of `{}` does not record its definition", block.name));
            }
            if !defined.insert(p) {
                err(block.span, format!("value `%{}` defined twice", f.values[p].name));
            }
        }
        for i in block.all_insts() {
            if i.index() >= ni {
                err(block.span, format!("block `{}` lists missing instruction {i}", block.name));
                continue;
            }
            if !placed_insts.insert(i) {
                err(f.insts[i].span, format!("instruction {i} is placed twice"));
            }
            let inst = &f.insts[i];
            let is_term = block.term == Some(i);
            if inst.is_terminator() != is_term {
                let what = if is_term { "is not a terminator" } else { "is a terminator in the middle of a block" };
                err(inst.span, format!("`{}` in block `{}` {what}", inst.op, block.name));
            }
            let is_phi = inst.op == Op::Bril(BrilOp::Phi);
            if !inst.is_terminator() && !inst.succs.is_empty() && !is_phi {
                err(inst.span, format!("`{}` has successors but is not a terminator", inst.op));
            }
            if is_phi && inst.succs.len() != inst.args.len() {
                err(inst.span, format!("`phi` in block `{}` has {} arguments and {} labels", block.name, inst.args.len(), inst.succs.len()));
            }
            for (k, &r) in inst.results.iter().enumerate() {
                if r.index() >= nv {
                    err(inst.span, format!("result {k} of `{}` is a missing value", inst.op));
                    continue;
                }
                if f.lang == Lang::Sil {
                    if f.values[r].def != (ValueDef::Result { inst: i, index: k as u32 }) {
                        err(inst.span, format!("result `%{}` does not record its definition", f.values[r].name));
                    }
                    if !defined.insert(r) {
                        err(inst.span, format!("value `%{}` defined twice", f.values[r].name));
                    }
                }
            }
            for s in &inst.succs {
                if s.block.index() >= nb || !placed_blocks.contains(s.block) {
                    err(inst.span, format!("`{}` branches to a block that is not in the function", inst.op));
                    continue;
                }
                let target = &f.blocks[s.block];
                if f.lang == Lang::Sil && s.args.len() != target.params.len() {
                    err(
                        inst.span,
                        format!(
                            "branch to `{}` passes {} argument(s); the block takes {}",
                            target.name,
                            s.args.len(),
                            target.params.len()
                        ),
                    );
                }
            }
        }
        // A `guard` goes on into the block after it: the text cannot name any other.
        if let Some(t) = block.term.filter(|&t| t.index() < ni && f.insts[t].op == Op::Bril(BrilOp::Guard)) {
            let next = f.layout.get(pos + 1).copied();
            let succs = &f.insts[t].succs;
            if succs.len() != 2 || Some(succs[0].block) != next {
                err(f.insts[t].span, format!("`guard` in block `{}` must go on into the block after it and name one label", block.name));
            }
        }
        if f.lang == Lang::Sil && block.term.is_none() {
            err(block.span, format!("block `{}` has no terminator", block.name));
        }
    }

    // Every use refers to an existing value; in SIL, to one defined in a placed position.
    for (_, i) in f.placed_insts() {
        let inst = &f.insts[i];
        for v in inst.uses() {
            if v.index() >= nv {
                err(inst.span, format!("`{}` uses missing value {v}", inst.op));
                continue;
            }
            // The bit first: nearly every use is of a defined value, and its `ValueData`,
            // somewhere in an arena of 10^5s, then need not be fetched.
            if f.lang == Lang::Sil && !defined.contains(v) && f.values[v].def != ValueDef::Undef {
                err(inst.span, format!("`{}` uses `%{}`, which is not defined in the function", inst.op, f.values[v].name));
            }
        }
    }
    for &p in &f.params {
        if p.index() >= nv {
            err(f.span, format!("parameter is a missing value {p}"));
        }
    }

    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::verify;

    fn sil_fn() -> Function {
        let mut f = Function::new("f", Lang::Sil);
        let b0 = f.add_block(Block::new("bb0"));
        let b1 = f.add_block(Block::new("bb1"));
        let p = f.add_value("1", None, ValueDef::Param { block: b1, index: 0 });
        f.blocks[b1].params.push(p);
        let v = f.add_value("0", None, ValueDef::Undef);
        let mut lit = Inst::new(Op::Sil(SilOp::IntegerLiteral));
        lit.results.push(v);
        let lit = f.add_inst(lit);
        f.blocks[b0].insts.push(lit);
        let mut br = Inst::new(Op::Sil(SilOp::Br));
        br.succs.push(Succ { block: b1, args: vec![v].into() });
        let br = f.add_inst(br);
        f.blocks[b0].term = Some(br);
        let mut ret = Inst::new(Op::Sil(SilOp::Return));
        ret.args.push(p);
        let ret = f.add_inst(ret);
        f.blocks[b1].term = Some(ret);
        f
    }

    #[test]
    fn a_well_formed_function_verifies() {
        verify(&sil_fn()).unwrap();
    }

    #[test]
    fn argument_count_mismatch_and_missing_terminator_are_reported() {
        let mut f = sil_fn();
        let b0 = f.layout[0];
        let t = f.blocks[b0].term.unwrap();
        f.insts[t].succs[0].args.clear();
        let b1 = f.layout[1];
        f.blocks[b1].term = None;
        let errs = verify(&f).unwrap_err();
        let text: Vec<String> = errs.iter().map(|d| d.message.clone()).collect();
        assert!(text.iter().any(|m| m.contains("passes 0 argument(s); the block takes 1")), "{text:?}");
        assert!(text.iter().any(|m| m.contains("has no terminator")), "{text:?}");
    }

    #[test]
    fn use_of_a_value_from_a_deleted_instruction_is_reported() {
        let mut f = sil_fn();
        let b0 = f.layout[0];
        f.blocks[b0].insts.clear();
        let errs = verify(&f).unwrap_err();
        assert!(errs.iter().any(|d| d.message.contains("not defined in the function")));
    }
}
