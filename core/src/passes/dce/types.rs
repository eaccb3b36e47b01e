//! What the text of a SIL type says about it, for DCE's ownership repairs and its roots:
//! an operand's type, and whether a type is trivial. Both `classify` (roots) and `ossa`
//! (end-of-lifetime repairs) ask; keeping it apart lets neither depend on the other.

use crate::ir::{Function, Inst, Piece, Type, ValueId};

/// The SIL type text (after `$`) of operand `k` of `inst`: the value's recorded type, or
/// else the `: $T` annotation the instruction was written with.
pub(crate) fn operand_type(f: &Function, inst: &Inst, k: usize, v: ValueId) -> Option<String> {
    if let Some(Type::Sil(t)) = f.values.get(v).and_then(|d| d.ty.as_ref()) {
        return Some(t.clone());
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

/// Whether a SIL type (text after `$`) is trivial — copying it is a bit copy and no reference
/// hides in it — *as far as its text shows*. The rule, deliberately conservative since a
/// wrong "trivial" would delete a `fix_lifetime` that keeps an object alive:
///
/// - `Builtin.*` is trivial except the reference types `Builtin.NativeObject`,
///   `Builtin.BridgeObject`, `Builtin.UnknownObject` and `Builtin.UnsafeValueBuffer`;
/// - the standard library's fixed-size scalars are trivial: `Int`, `Int8`…`Int64`, `UInt`,
///   `UInt8`…`UInt64`, `Bool`, `Float`, `Double`, `Float80`, and the unsafe pointer types
///   (`UnsafePointer<T>`, `UnsafeMutablePointer<T>`, `UnsafeRawPointer`,
///   `UnsafeMutableRawPointer`, `OpaquePointer`), which do not own what they point to;
/// - a tuple is trivial if every element is (`()` included; element labels are ignored);
/// - everything else — addresses `*T`, classes, user structs and enums whose declarations we
///   do not read, `Optional`, existentials, generics — is not.
pub fn is_trivial_type(t: &str) -> bool {
    let t = t.trim();
    if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        return split_top_level(inner).into_iter().all(|e| {
            let e = e.trim();
            if e.is_empty() {
                return true;
            }
            // `label: T`
            let ty = match e.split_once(':') {
                Some((l, r)) if l.chars().all(|c| c.is_alphanumeric() || c == '_') => r,
                _ => e,
            };
            is_trivial_type(ty)
        });
    }
    if let Some(b) = t.strip_prefix("Builtin.") {
        return !matches!(b, "NativeObject" | "BridgeObject" | "UnknownObject" | "UnsafeValueBuffer");
    }
    let base = t.split('<').next().unwrap_or(t).trim();
    let base = base.strip_prefix("Swift.").unwrap_or(base);
    matches!(
        base,
        "Int" | "Int8" | "Int16" | "Int32" | "Int64" | "UInt" | "UInt8" | "UInt16" | "UInt32" | "UInt64"
            | "Bool" | "Float" | "Double" | "Float80" | "UnsafePointer" | "UnsafeMutablePointer"
            | "UnsafeRawPointer" | "UnsafeMutableRawPointer" | "OpaquePointer"
    )
}

/// Splits at commas not nested in brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triviality_follows_the_documented_rule() {
        for t in ["Int32", "Builtin.Int1", "Bool", "()", "(Int, Builtin.Int64)", "(x: Int, y: Bool)", "Builtin.RawPointer", "UnsafePointer<Int>"] {
            assert!(is_trivial_type(t), "{t}");
        }
        for t in ["*Int32", "S", "AnyObject", "(S, AnyObject)", "Builtin.NativeObject", "String", "Optional<Int>", "(Int, String)", "Klass"] {
            assert!(!is_trivial_type(t), "{t}");
        }
    }

    #[test]
    fn type_prefix_stops_at_a_top_level_comma() {
        assert_eq!(type_prefix("Int32, #Int32._value"), "Int32");
        assert_eq!(type_prefix("(Builtin.Int32, Builtin.Int1), 0"), "(Builtin.Int32, Builtin.Int1)");
        assert_eq!(type_prefix("*Container"), "*Container");
    }
}
