//! How values, blocks and instructions are spelled in reports: the user's own names, or the
//! numbering Swift's verifier prints (so its FileCheck lines can be matched verbatim).

use crate::ir::{BlockId, Function, InstId, Piece, Type, ValueDef, ValueId};

/// Spelling of one function's names.
#[derive(Clone, Debug)]
pub struct Names {
    /// Per value: its number in Swift's printing, if numbered.
    values: Vec<Option<u32>>,
    /// Per block: its position in the layout, if numbered.
    blocks: Vec<Option<u32>>,
    /// Per instruction without results: its number, printed for value-producing ones
    /// (`%4 = apply …` even if the source wrote no result).
    insts: Vec<Option<u32>>,
}

/// Instructions that produce no value in SIL (everything else prints a result in Swift), as
/// the instruction table says; a mnemonic it does not know is assumed to produce one.
fn produces_no_value(op: &str) -> bool {
    crate::sil::insts::lookup(op).is_some_and(|e| e.has_no_results())
}

impl Names {
    /// The names the user wrote (`%x`, `bbLoop`).
    pub fn user(f: &Function) -> Names {
        let _ = f;
        Names { values: Vec::new(), blocks: Vec::new(), insts: Vec::new() }
    }

    /// Swift's verifier numbering: blocks `bb0…` in order; every block argument and every
    /// instruction result takes the next number, and so does an instruction without results
    /// (Swift's printer numbers instructions, not only values: a `%5 = unchecked_ref_cast` after
    /// an `end_borrow` is the sixth line of the function).
    pub fn swift(f: &Function) -> Names {
        let mut values = vec![None; f.values.len()];
        let mut blocks = vec![None; f.blocks.len()];
        let mut insts = vec![None; f.insts.len()];
        let mut n = 0u32;
        for (k, &b) in f.layout.iter().enumerate() {
            let Some(blk) = f.blocks.get(b) else { continue };
            if let Some(x) = blocks.get_mut(b.0 as usize) {
                *x = Some(k as u32);
            }
            for &p in &blk.params {
                if let Some(x) = values.get_mut(p.0 as usize) {
                    *x = Some(n);
                }
                n += 1;
            }
            for i in blk.all_insts() {
                let Some(inst) = f.insts.get(i) else { continue };
                if inst.results.is_empty() {
                    if !inst.is_terminator() && !produces_no_value(inst.op.name()) {
                        if let Some(x) = insts.get_mut(i.0 as usize) {
                            *x = Some(n);
                        }
                    }
                    n += 1;
                }
                for &r in &inst.results {
                    if let Some(x) = values.get_mut(r.0 as usize) {
                        *x = Some(n);
                    }
                    n += 1;
                }
            }
        }
        Names { values, blocks, insts }
    }

    pub fn value(&self, f: &Function, v: ValueId) -> String {
        if f.values.get(v).is_some_and(|d| d.def == ValueDef::Undef) {
            return "undef".into();
        }
        match self.values.get(v.0 as usize).copied().flatten() {
            Some(n) => format!("%{n}"),
            None => f.value_in_code(v),
        }
    }

    pub fn block(&self, f: &Function, b: BlockId) -> String {
        match self.blocks.get(b.0 as usize).copied().flatten() {
            Some(n) => format!("bb{n}"),
            None => f.block_in_code(b),
        }
    }

    /// An instruction as printed: `%2 = begin_borrow %0 : $Klass`.
    pub fn inst(&self, f: &Function, i: InstId) -> String {
        let Some(inst) = f.insts.get(i) else { return i.to_string() };
        let mut out = String::new();
        match inst.results.len() {
            0 => {
                if let Some(k) = self.insts.get(i.0 as usize).copied().flatten() {
                    out.push_str(&format!("%{k} = "));
                }
            }
            1 => out.push_str(&format!("{} = ", self.value(f, inst.results[0]))),
            _ => {
                let rs: Vec<String> = inst.results.iter().map(|&r| self.value(f, r)).collect();
                out.push_str(&format!("({}) = ", rs.join(", ")));
            }
        }
        if inst.sil.is_empty() {
            out.push_str(inst.op.name());
            let args: Vec<String> = inst.args.iter().map(|&a| self.value(f, a)).collect();
            if !args.is_empty() {
                out.push(' ');
                out.push_str(&args.join(", "));
            }
            return out;
        }
        for p in &inst.sil {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Arg(k) => match inst.args.get(*k as usize) {
                    Some(&a) => out.push_str(&self.value(f, a)),
                    None => out.push('?'),
                },
                Piece::Succ(s) => match inst.succs.get(*s as usize) {
                    Some(s) => out.push_str(&self.block(f, s.block)),
                    None => out.push('?'),
                },
                Piece::SuccArg(s, j) => match inst.succs.get(*s as usize).and_then(|s| s.args.get(*j as usize)) {
                    Some(&a) => out.push_str(&self.value(f, a)),
                    None => out.push('?'),
                },
            }
        }
        out
    }

    /// A value as Swift's verifier prints it after `Value:` — the defining instruction, or
    /// `%0 = argument of bb0 : $T` for a block argument.
    pub fn def(&self, f: &Function, v: ValueId) -> String {
        match f.values.get(v).map(|d| d.def) {
            Some(ValueDef::Result { inst, .. }) => self.inst(f, inst),
            Some(ValueDef::Param { block, .. }) => {
                let ty = match f.values.get(v).and_then(|d| d.ty.as_ref()) {
                    Some(Type::Sil(t)) => format!(" : ${t}"),
                    _ => String::new(),
                };
                format!("{} = argument of {}{ty}", self.value(f, v), self.block(f, block))
            }
            _ => self.value(f, v),
        }
    }
}
