//! The printed form of a SIL `br`/`cond_br` rebuilt from its operands, for passes that change
//! a branch's successor arguments (DCE erasing a phi argument, LCM passing a new one).

use super::{Function, Inst, Op, Piece, Pieces, SilOp, Type};

/// Where the `: $T` of each successor argument comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgTypes {
    /// The argument value's own type (LCM: a new value passed along).
    Argument,
    /// The target block parameter's type (DCE: the argument may be an `undef` with none).
    Target,
}

/// `br bb1(%a : $T, …)`, `cond_br %c, bb1(…), bb2(…)`; `None` for other instructions.
pub fn branch_pieces(f: &Function, inst: &Inst, types: ArgTypes) -> Option<Pieces> {
    let mut out = Vec::new();
    let push_succ = |out: &mut Vec<Piece>, s: u32| {
        out.push(Piece::Succ(s));
        let Some(succ) = inst.succs.get(s as usize) else { return };
        if succ.args.is_empty() {
            return;
        }
        out.push(Piece::Text("(".into()));
        for (j, &a) in succ.args.iter().enumerate() {
            if j > 0 {
                out.push(Piece::Text(", ".into()));
            }
            out.push(Piece::SuccArg(s, j as u32));
            let ty: Option<&Type> = match types {
                ArgTypes::Argument => f.values.get(a).and_then(|v| v.ty.as_ref()),
                ArgTypes::Target => f.blocks.get(succ.block).and_then(|b| b.params.get(j)).and_then(|&p| f.values[p].ty.as_ref()),
            };
            if let Some(ty) = ty {
                out.push(Piece::Text(format!(" : {ty}")));
            }
        }
        out.push(Piece::Text(")".into()));
    };
    match inst.op {
        Op::Sil(SilOp::Br) if inst.succs.len() == 1 => {
            out.push(Piece::Text("br ".into()));
            push_succ(&mut out, 0);
        }
        Op::Sil(SilOp::CondBr) if inst.succs.len() == 2 && !inst.args.is_empty() => {
            out.push(Piece::Text("cond_br ".into()));
            out.push(Piece::Arg(0));
            out.push(Piece::Text(", ".into()));
            push_succ(&mut out, 0);
            out.push(Piece::Text(", ".into()));
            push_succ(&mut out, 1);
        }
        _ => return None,
    }
    Some(out.into())
}
