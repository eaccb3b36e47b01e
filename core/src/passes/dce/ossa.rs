//! OSSA repairs: deleting a dead instruction must not leak what it consumed.
//!
//! In ownership SSA every `@owned` value is consumed exactly once. When the sweep deletes a
//! dead instruction that consumed a value which stays live (Swift's test
//! `nested_destructure_tuple`: a dead `destructure_tuple` of a live tuple element), the value
//! would leak, so a `destroy_value` takes the deleted instruction's place — Swift's
//! `endLifetimeOfLiveValue`. A dead `load [take]` moved a value out of memory; deleting it
//! leaves the value in memory, so a `destroy_addr` of the address takes its place (Swift's
//! `InstructionDeleter`, test `keep_new_destroy_addr`).
//!
//! Dead block arguments with ownership are handled as Swift's `removeDead` does: a dead
//! `@owned` argument that is not a phi (a function argument, a `try_apply` result, a
//! `switch_enum` payload) gets a `destroy_value` at the top of its block, since its consuming
//! users are deleted; a dead phi with ownership is erased, and each predecessor that passed
//! it a live value ends that value's lifetime before its branch (`destroy_value` of an owned
//! value, `end_borrow` of a borrow scope it reborrowed).
//!
//! The ownership of a value is inferred from its definition, conservatively: a repair is
//! made only when the value is known to be `@owned` (or, for `end_borrow`, a local borrow
//! scope). Not done (Swift does them): keeping borrow scopes alive across reborrows and
//! guaranteed phis (`processBorrow`, `guaranteedPhiDependencies`), lifetime completion.

use super::types::{is_trivial_type, operand_type};
use crate::ir::{Function, Inst, Op, SilOp, Type, ValueDef, ValueId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// Trivial values, addresses, `undef`.
    None,
    Owned,
    Guaranteed,
    /// Anything the rules below do not cover.
    Unknown,
}

pub(crate) fn ownership(f: &Function, v: ValueId) -> Ownership {
    ownership_counted(f, v).0
}

fn trivial_or_address(t: &str) -> bool {
    t.starts_with('*') || is_trivial_type(t)
}

/// What a value's ownership depends on.
enum Rule {
    /// Known from the value's type or definition alone.
    Known(Ownership),
    /// That of its first operand (forwarding instructions).
    Forward(ValueId),
    /// The common ownership of the operands, trivial ones aside (`struct`, `tuple`, `enum`).
    Aggregate(Vec<ValueId>),
}

fn rule(f: &Function, v: ValueId) -> Rule {
    use Ownership::*;
    use Rule::*;
    let Some(d) = f.values.get(v) else { return Known(Unknown) };
    if let Some(Type::Sil(t)) = &d.ty {
        if trivial_or_address(t) {
            return Known(None);
        }
    }
    match d.def {
        ValueDef::Undef => Known(None),
        ValueDef::Var => Known(Unknown),
        ValueDef::Param { .. } => Known(match d.ownership.as_deref() {
            Some("owned") => Owned,
            Some("guaranteed") => Guaranteed,
            _ => Unknown,
        }),
        ValueDef::Result { inst, index } => {
            let Some(i) = f.insts.get(inst) else { return Known(Unknown) };
            let Op::Sil(op) = &i.op else { return Known(Unknown) };
            let first = || i.args.first().map_or(Known(Unknown), |&a| Forward(a));
            match op {
                SilOp::CopyValue | SilOp::MoveValue | SilOp::Apply => Known(Owned),
                SilOp::Load if i.attrs.iter().any(|a| a == "copy" || a == "take") => Known(Owned),
                SilOp::BeginBorrow | SilOp::LoadBorrow => Known(Guaranteed),
                SilOp::DestructureTuple => {
                    // An element the operand's tuple type shows to be trivial owns nothing.
                    let elem = i
                        .args
                        .first()
                        .and_then(|&a| operand_type(f, i, 0, a))
                        .and_then(|t| tuple_element(&t, index as usize));
                    if elem.as_deref().is_some_and(trivial_or_address) {
                        return Known(None);
                    }
                    first()
                }
                SilOp::DestructureStruct
                | SilOp::StructExtract
                | SilOp::TupleExtract
                | SilOp::MarkDependence
                | SilOp::DropDeinit => first(),
                SilOp::Struct | SilOp::Tuple | SilOp::Enum => Aggregate(i.args.clone()),
                _ => Known(Unknown),
            }
        }
    }
}

/// The ownership of `v`, and how many values were evaluated to find it.
///
/// Each value is evaluated once (memoised) with an explicit stack, so the cost is the size of
/// the definitions `v` depends on and no recursion follows the input's depth. The recursive
/// version re-evaluated shared operands: a chain of aggregates each using the one below
/// twice (struct of struct of tuple …) doubled the work per level — 12 s at depth 24
/// (issue 17). A value reached again while its own evaluation is under way (a cycle, which
/// only malformed or unreachable code has) counts as `Unknown`, as does an unknown operand.
/// The memo is a map, not a table over all values: the dependencies are usually a handful
/// of values and the sweep asks once per dead instruction.
fn ownership_counted(f: &Function, v: ValueId) -> (Ownership, usize) {
    use std::collections::HashMap;
    // `None`: under evaluation.
    let mut memo: HashMap<ValueId, Option<Ownership>> = HashMap::new();
    let mut stack: Vec<(ValueId, Option<Rule>)> = vec![(v, Option::None)];
    let result = |memo: &HashMap<ValueId, Option<Ownership>>, x: ValueId| memo.get(&x).copied().flatten().unwrap_or(Ownership::Unknown);
    while let Some((x, pending)) = stack.pop() {
        match pending {
            Option::None => {
                if memo.contains_key(&x) {
                    continue;
                }
                match rule(f, x) {
                    Rule::Known(o) => {
                        memo.insert(x, Some(o));
                    }
                    r => {
                        memo.insert(x, Option::None);
                        let deps: Vec<ValueId> = match &r {
                            Rule::Forward(a) => vec![*a],
                            Rule::Aggregate(args) => args.clone(),
                            Rule::Known(_) => Vec::new(),
                        };
                        stack.push((x, Some(r)));
                        for a in deps.into_iter().rev() {
                            if !memo.contains_key(&a) {
                                stack.push((a, Option::None));
                            }
                        }
                    }
                }
            }
            Some(Rule::Forward(a)) => {
                let o = result(&memo, a);
                memo.insert(x, Some(o));
            }
            Some(Rule::Aggregate(args)) => {
                use Ownership::*;
                let mut acc = None;
                for a in args {
                    match (acc, result(&memo, a)) {
                        (_, Unknown) | (Unknown, _) => {
                            acc = Unknown;
                            break;
                        }
                        (_, None) => {}
                        (None, o) => acc = o,
                        (a, o) if a == o => {}
                        _ => {
                            acc = Unknown;
                            break;
                        }
                    }
                }
                memo.insert(x, Some(acc));
            }
            Some(Rule::Known(o)) => {
                memo.insert(x, Some(o));
            }
        }
    }
    (result(&memo, v), memo.len())
}

/// The `k`-th element type of a tuple type text `(A, B, …)`.
fn tuple_element(t: &str, k: usize) -> Option<String> {
    let inner = t.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut depth = 0i32;
    let mut start = 0;
    let mut elems = Vec::new();
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                elems.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    elems.push(&inner[start..]);
    let e = elems.get(k)?.trim();
    let e = match e.split_once(':') {
        Some((l, r)) if l.chars().all(|c| c.is_alphanumeric() || c == '_') => r.trim(),
        _ => e,
    };
    Some(e.to_string())
}

/// How a repair ends a lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// `destroy_value %v` of an owned value.
    DestroyValue,
    /// `destroy_addr %a` of memory a deleted `load [take]` would have emptied.
    DestroyAddr,
    /// `end_borrow %b` of a borrow scope a dead phi would have ended.
    EndBorrow,
}

/// The repairs deleting `inst` needs: `(kind, value)` pairs, in operand order.
pub(crate) fn repairs(f: &Function, inst: &Inst) -> Vec<(EndKind, ValueId)> {
    let Op::Sil(op) = &inst.op else { return Vec::new() };
    match op {
        SilOp::Load if inst.attrs.iter().any(|a| a == "take") => {
            inst.args.first().map(|&a| (EndKind::DestroyAddr, a)).into_iter().collect()
        }
        SilOp::Struct
        | SilOp::Tuple
        | SilOp::Enum
        | SilOp::DestructureStruct
        | SilOp::DestructureTuple
        | SilOp::MoveValue
        | SilOp::DropDeinit => owned_operands(f, &inst.args),
        // Only the forwarded value is consumed, not the base it depends on.
        SilOp::MarkDependence => owned_operands(f, &inst.args[..inst.args.len().min(1)]),
        _ => Vec::new(),
    }
}

fn owned_operands(f: &Function, args: &[ValueId]) -> Vec<(EndKind, ValueId)> {
    let mut out: Vec<(EndKind, ValueId)> = Vec::new();
    for &a in args {
        if ownership(f, a) == Ownership::Owned && !out.iter().any(|(_, v)| *v == a) {
            out.push((EndKind::DestroyValue, a));
        }
    }
    out
}

/// The instruction a repair inserts, printed `destroy_value %v : $T`.
pub(crate) fn make_end(f: &Function, kind: EndKind, v: ValueId, ty: Option<String>, span: crate::diag::Span) -> Inst {
    let (op, name) = match kind {
        EndKind::DestroyValue => (SilOp::DestroyValue, "destroy_value "),
        EndKind::DestroyAddr => (SilOp::DestroyAddr, "destroy_addr "),
        EndKind::EndBorrow => (SilOp::EndBorrow, "end_borrow "),
    };
    let mut inst = Inst::new(Op::Sil(op));
    inst.args.push(v);
    inst.sil.push(crate::ir::Piece::Text(name.into()));
    inst.sil.push(crate::ir::Piece::Arg(0));
    let ty = ty.or_else(|| match f.values.get(v).and_then(|d| d.ty.as_ref()) {
        Some(Type::Sil(t)) => Some(t.clone()),
        _ => None,
    });
    if let Some(t) = ty {
        inst.sil.push(crate::ir::Piece::Text(format!(" : ${t}")));
    }
    inst.span = span;
    inst
}

/// Whether the parameter `index` of `block` is a phi: every predecessor passes it explicitly
/// with `br`/`cond_br` (not the entry's function arguments, not a terminator's result).
pub(crate) fn is_phi(f: &Function, preds: &[crate::ir::BlockId], block: crate::ir::BlockId) -> bool {
    f.entry() != Some(block)
        && !preds.is_empty()
        && preds.iter().all(|&p| {
            f.blocks[p].term.is_some_and(|t| matches!(f.insts[t].op, Op::Sil(SilOp::Br | SilOp::CondBr)))
        })
}

/// The ownership a block parameter is annotated with.
pub(crate) fn param_ownership(f: &Function, v: ValueId) -> Ownership {
    let Some(d) = f.values.get(v) else { return Ownership::Unknown };
    if let Some(Type::Sil(t)) = &d.ty {
        if trivial_or_address(t) {
            return Ownership::None;
        }
    }
    match d.ownership.as_deref() {
        Some("owned") => Ownership::Owned,
        Some("guaranteed") => Ownership::Guaranteed,
        None => Ownership::None,
        Some(_) => Ownership::Unknown,
    }
}

/// Whether `v` opens a borrow scope of its own that an `end_borrow` closes (Swift's
/// `BorrowedValue::isLocalScope`): a `begin_borrow` or `load_borrow` result, or a reborrow.
pub(crate) fn is_local_borrow(f: &Function, v: ValueId) -> bool {
    match f.values.get(v).map(|d| d.def) {
        Some(ValueDef::Result { inst, .. }) => {
            f.insts.get(inst).is_some_and(|i| matches!(i.op, Op::Sil(SilOp::BeginBorrow | SilOp::LoadBorrow)))
        }
        _ => false,
    }
}

/// The branch's printed form rebuilt from its operands (after a phi argument is erased):
/// `br bb1(%a : $T, …)`, `cond_br %c, bb1(…), bb2(…)`. Types are the target parameters'.
pub(crate) fn branch_pieces(f: &Function, inst: &Inst) -> Option<Vec<crate::ir::Piece>> {
    use crate::ir::Piece;
    let mut out = Vec::new();
    let push_succ = |out: &mut Vec<Piece>, s: u32| {
        out.push(Piece::Succ(s));
        let Some(succ) = inst.succs.get(s as usize) else { return };
        if succ.args.is_empty() {
            return;
        }
        out.push(Piece::Text("(".into()));
        for j in 0..succ.args.len() {
            if j > 0 {
                out.push(Piece::Text(", ".into()));
            }
            out.push(Piece::SuccArg(s, j as u32));
            let ty = f.blocks.get(succ.block).and_then(|b| b.params.get(j)).and_then(|&p| f.values[p].ty.as_ref());
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
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{ownership_counted, tuple_element, Ownership};
    use crate::ir::Lang;

    /// A forwarding chain `depth` deep, each level an aggregate using the level below twice:
    /// tuples of structs of tuples … of an owned argument.
    fn chain(depth: usize) -> String {
        let mut text = String::from("sil [ossa] @deep : $@convention(thin) (@owned Klass) -> () {\nbb0(%0 : @owned $Klass):\n");
        let mut ty = "Klass".to_string();
        for k in 1..=depth {
            let p = k - 1;
            if k % 2 == 1 {
                text.push_str(&format!("  %{k} = tuple (%{p} : ${ty}, %{p} : ${ty})\n"));
                ty = format!("({ty}, {ty})");
            } else {
                text.push_str(&format!("  %{k} = struct $S{k} (%{p} : ${ty}, %{p} : ${ty})\n"));
                ty = format!("S{k}");
            }
        }
        text.push_str(&format!("  destroy_value %{depth} : ${ty}\n  %r = tuple ()\n  return %r : $()\n}}\n"));
        text
    }

    #[test]
    fn ownership_of_a_deep_forwarding_chain_evaluates_each_value_once() {
        // Exponential evaluation would visit 2^40 values; memoised, each of the 41 once.
        let depth = 40;
        let m = crate::parse_module(Lang::Sil, "deep.sil", &chain(depth)).unwrap_or_else(|d| panic!("{d:?}"));
        let f = &m.functions[0];
        let top = f.values.iter().find(|(_, d)| d.name == depth.to_string()).map(|(v, _)| v).unwrap();
        let (own, visits) = ownership_counted(f, top);
        assert_eq!(own, Ownership::Owned);
        assert_eq!(visits, depth + 1);
    }

    #[test]
    fn tuple_elements_split_at_top_level_commas() {
        assert_eq!(tuple_element("(String, (Int, Int, String))", 1).as_deref(), Some("(Int, Int, String)"));
        assert_eq!(tuple_element("(a: Int, b: S)", 1).as_deref(), Some("S"));
        assert_eq!(tuple_element("Int", 0), None);
    }
}
