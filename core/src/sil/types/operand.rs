//! What the text says about an operand's or a value's type: the recorded type of a value,
//! or the `: $T` annotation an instruction was written with.

use crate::ir::{Function, Inst, Piece, Type, ValueDef, ValueId};

/// The SIL type text (after `$`) of operand `k` of `inst`: the value's recorded type, or
/// else the `: $T` annotation the instruction was written with.
pub fn operand_type(f: &Function, inst: &Inst, k: usize, v: ValueId) -> Option<String> {
    if let Some(Type::Sil(t)) = f.values.get(v).and_then(|d| d.ty.as_ref()) {
        return Some(t.to_string());
    }
    let pos = inst.sil.iter().position(|p| *p == Piece::Arg(k as u32))?;
    match inst.sil.get(pos + 1)? {
        Piece::Text(t) => {
            let t = t.trim_start().strip_prefix(':')?.trim_start().strip_prefix('$')?;
            Some(type_prefix(t).to_string())
        }
        _ => None,
    }
}

/// The leading type in `text` (up to a top-level `,` or the end), e.g. `Int32` of
/// `Int32, #Int32._value`.
fn type_prefix(text: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => {
                if depth == 0 {
                    return text[..i].trim_end();
                }
                depth -= 1;
            }
            ',' if depth == 0 => return text[..i].trim_end(),
            _ => {}
        }
    }
    text.trim_end()
}

/// Whether `v` is a value whose written type is an object (not an address) — block
/// arguments and results with a recorded type.
pub fn object_type(f: &Function, v: ValueId) -> Option<&str> {
    let d = f.values.get(v)?;
    if matches!(d.def, ValueDef::Undef) {
        return None;
    }
    match &d.ty {
        Some(Type::Sil(t)) if !t.trim_start().starts_with('*') => Some(t.as_str()),
        _ => None,
    }
}
