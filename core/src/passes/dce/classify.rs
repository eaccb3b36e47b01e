//! Which instructions are live by themselves (roots), which are live only if a value is
//! (reverse dependencies), and which need a live user.
//!
//! The roots are the article's condition 1 (seed 000: "関数からの戻り、副作用を生じる可能性
//! がある文") refined the way Swift's `seemsUseful` and `DCE::markLive` refine it; the
//! reverse dependencies are the seed's "Reverse dependency" section, which the seed's own
//! implementation skipped and Swift's test files check.

use super::trace::RootKind;
use crate::ir::{BrilOp, Function, Inst, InstId, Op, Piece, SilOp, Type, ValueDef, ValueId};

/// What marking needs to know about one instruction before propagation starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Live by itself.
    Root(RootKind),
    /// Live if and only if this value (its defining instruction or parameter) is live.
    Reverse(ValueId),
    /// Live only if something live needs it.
    Normal,
}

/// Whether the SIL function has ownership (`sil [ossa] @f`).
pub(crate) fn is_ossa(f: &Function) -> bool {
    f.sil.as_ref().is_some_and(|h| h.attrs.iter().any(|a| a == "ossa"))
}

pub(crate) fn classify(f: &Function, i: InstId, ossa: bool) -> Class {
    let inst = &f.insts[i];
    match &inst.op {
        Op::Bril(op) => classify_bril(op, inst),
        Op::Sil(op) => classify_sil(f, op, inst, ossa),
    }
}

fn classify_bril(op: &BrilOp, inst: &Inst) -> Class {
    match op {
        BrilOp::Ret => Class::Root(RootKind::FunctionExit),
        // Branches live only through control dependence; `jmp` is never deleted by itself.
        BrilOp::Jmp | BrilOp::Br => Class::Normal,
        BrilOp::Other(_) => Class::Root(RootKind::Unknown),
        _ => match inst.effect() {
            crate::ir::Effect::SideEffect => Class::Root(RootKind::SideEffect),
            _ => Class::Normal,
        },
    }
}

fn classify_sil(f: &Function, op: &SilOp, inst: &Inst, ossa: bool) -> Class {
    let arg0 = inst.args.first().copied();
    // The result of a lexical lifetime must stay (Swift: `result->isLexical()`).
    if inst.attrs.iter().any(|a| a == "lexical") {
        return Class::Root(RootKind::Lexical);
    }
    match op {
        SilOp::Return | SilOp::Throw | SilOp::Unreachable => Class::Root(RootKind::FunctionExit),
        // A call: its effects are unknown.
        SilOp::TryApply => Class::Root(RootKind::SideEffect),
        SilOp::Br | SilOp::CondBr | SilOp::SwitchEnum => Class::Normal,
        SilOp::CondFail => match arg0.and_then(|c| overflow_producer(f, c)) {
            // `cond_fail` of `tuple_extract` of a builtin's result checks that builtin's
            // overflow: without the arithmetic there is nothing to check.
            Some(result) => Class::Reverse(result),
            None => Class::Root(RootKind::SideEffect),
        },
        SilOp::FixLifetime => match arg0 {
            Some(v) if operand_is_trivial_scalar(f, inst, 0, v) => Class::Reverse(v),
            _ => Class::Root(RootKind::FixLifetime),
        },
        SilOp::EndLifetime => match arg0 {
            Some(v) if !operand_is_address(f, inst, 0, v) => Class::Reverse(v),
            _ => Class::Root(RootKind::AddressEndLifetime),
        },
        // Scope and lifetime ends live exactly as long as what they end.
        SilOp::EndAccess | SilOp::DestroyValue | SilOp::EndBorrow => match arg0 {
            Some(v) => Class::Reverse(v),
            None => Class::Root(RootKind::SideEffect),
        },
        SilOp::DebugValue => match arg0 {
            Some(v) if is_function_argument_or_undef(f, v) => Class::Root(RootKind::DebugOfArgument),
            Some(v) => Class::Reverse(v),
            None => Class::Normal,
        },
        SilOp::BeginAccess if !ossa => Class::Root(RootKind::AccessScope),
        // Swift's `seemsUseful` exceptions: side-effecting on paper, but removable when
        // nothing live depends on them.
        SilOp::BeginAccess | SilOp::CopyValue | SilOp::UnconditionalCheckedCast => Class::Normal,
        SilOp::Load if inst.attrs.iter().any(|a| a == "copy") => Class::Normal,
        SilOp::Other(_) => Class::Root(RootKind::Unknown),
        _ => match inst.effect() {
            crate::ir::Effect::SideEffect | crate::ir::Effect::Terminator => Class::Root(RootKind::SideEffect),
            _ => Class::Normal,
        },
    }
}

/// `%c` = `tuple_extract %r, n` with `%r` the result of a `builtin`: returns `%r`.
fn overflow_producer(f: &Function, cond: ValueId) -> Option<ValueId> {
    let ValueDef::Result { inst: te, .. } = f.values.get(cond)?.def else { return None };
    let te = f.insts.get(te)?;
    if te.op != Op::Sil(SilOp::TupleExtract) {
        return None;
    }
    let r = *te.args.first()?;
    let ValueDef::Result { inst: b, .. } = f.values.get(r)?.def else { return None };
    (f.insts.get(b)?.op == Op::Sil(SilOp::Builtin)).then_some(r)
}

fn is_function_argument_or_undef(f: &Function, v: ValueId) -> bool {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Undef) => true,
        Some(ValueDef::Param { block, .. }) => f.entry() == Some(block),
        _ => false,
    }
}

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

fn operand_is_address(f: &Function, inst: &Inst, k: usize, v: ValueId) -> bool {
    // Unknown types count as addresses: the conservative side (the instruction stays).
    operand_type(f, inst, k, v).is_none_or(|t| t.trim_start().starts_with('*'))
}

fn operand_is_trivial_scalar(f: &Function, inst: &Inst, k: usize, v: ValueId) -> bool {
    operand_type(f, inst, k, v).is_some_and(|t| is_trivial_type(&t))
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

/// Whether the terminator may be replaced by a jump when dead (the others are roots, or,
/// for `br`/`jmp`, never deleted on their own).
pub(crate) fn is_conditional_branch(op: &Op) -> bool {
    matches!(op, Op::Bril(BrilOp::Br) | Op::Sil(SilOp::CondBr | SilOp::SwitchEnum))
}

/// Whether the instruction is an unconditional branch (kept even when dead).
pub(crate) fn is_jump(op: &Op) -> bool {
    matches!(op, Op::Bril(BrilOp::Jmp) | Op::Sil(SilOp::Br))
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
