//! The rule tables: which kind an instruction's result has, and what each operand accepts.
//!
//! Kinds and constraints follow `docs/SIL/Ownership.md` and the table in sil-semantics.md §(c);
//! operand roles carry the names of Swift's `OperandOwnership` so what the lab prints reads
//! like `sil-opt -ownership-dumper`.

use crate::sil::insts::{self, InstInfo, Own, Use};
use serde::Serialize;
use std::fmt;

/// The ownership kind of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Trivial values, addresses, `undef`, payload-less enum cases: no ownership rules.
    None,
    /// Must be consumed exactly once on every path.
    Owned,
    /// Borrowed: used only inside a borrow scope, never consumed.
    Guaranteed,
    /// Not kept alive by anyone: must be copied before an owned or guaranteed use.
    Unowned,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::None => "none",
            Kind::Owned => "owned",
            Kind::Guaranteed => "guaranteed",
            Kind::Unowned => "unowned",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The kind an operand accepts (Swift's constraint "preferred kind").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Accepts {
    Any,
    Owned,
    Guaranteed,
    Unowned,
}

impl fmt::Display for Accepts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Accepts::Any => "any",
            Accepts::Owned => "owned",
            Accepts::Guaranteed => "guaranteed",
            Accepts::Unowned => "unowned",
        })
    }
}

/// What an operand does with its value — Swift's `OperandOwnership`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Role {
    /// A trivial (or address) value: nothing to check.
    TrivialUse,
    /// Reads the value for the moment of the instruction (`copy_value`, `debug_value`, a
    /// `@guaranteed` argument).
    InstantaneousUse,
    /// A use that lets the reference escape as bits (`ref_to_raw_pointer`, `unchecked_bitwise_cast`).
    BitwiseEscape,
    /// Opens a borrow scope whose ends become uses of the borrowed value (`begin_borrow`,
    /// `store_borrow`).
    Borrow,
    /// Ends the lifetime and destroys (`destroy_value`, `store [init]`, `end_lifetime`).
    DestroyingConsume,
    /// Ends the lifetime by handing ownership on (`@owned` argument, `return`, owned forwarding).
    ForwardingConsume,
    /// Forwards an unowned value.
    ForwardingUnowned,
    /// Projects an address into a borrowed object (`ref_element_addr`): needs a guaranteed base.
    InteriorPointer,
    /// Projects an address into any object (`project_box`).
    AnyInteriorPointer,
    /// Forwards a borrowed value to a result or a payload inside the same scope.
    GuaranteedForwarding,
    /// `end_borrow`: ends a borrow scope.
    EndBorrow,
    /// Passes a borrow scope to a `@guaranteed` phi, which continues it.
    Reborrow,
    /// An instruction this lab does not model: accepted as anything, and the value it uses is
    /// not checked (an unknown instruction might consume it).
    Unmodelled,
}

impl Role {
    /// The constraint this role puts on its operand.
    pub fn constraint(self) -> Constraint {
        use Role::*;
        let (accepts, ending) = match self {
            TrivialUse | InstantaneousUse | BitwiseEscape | Borrow | AnyInteriorPointer | Unmodelled => (Accepts::Any, false),
            ForwardingUnowned => (Accepts::Unowned, false),
            DestroyingConsume | ForwardingConsume => (Accepts::Owned, true),
            InteriorPointer | GuaranteedForwarding => (Accepts::Guaranteed, false),
            EndBorrow | Reborrow => (Accepts::Guaranteed, true),
        };
        Constraint { role: self, accepts, ending }
    }
}

/// An operand's constraint: the kind it accepts and whether it ends the value's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Constraint {
    pub role: Role,
    pub accepts: Accepts,
    /// Lifetime-ending (consuming, or ending a borrow scope).
    pub ending: bool,
}

impl Constraint {
    /// Whether a value of `kind` may be used here: `none` goes anywhere; otherwise the kinds
    /// must agree unless the operand accepts any.
    pub fn satisfied_by(&self, kind: Kind) -> bool {
        matches!(
            (self.accepts, kind),
            (_, Kind::None)
                | (Accepts::Any, _)
                | (Accepts::Owned, Kind::Owned)
                | (Accepts::Guaranteed, Kind::Guaranteed)
                | (Accepts::Unowned, Kind::Unowned)
        )
    }

    /// `<Constraint Kind:guaranteed LifetimeConstraint:NonLifetimeEnding>` as Swift prints it.
    pub fn swift_text(&self) -> String {
        format!(
            "<Constraint Kind:{} LifetimeConstraint:{}>",
            self.accepts,
            if self.ending { "LifetimeEnding" } else { "NonLifetimeEnding" }
        )
    }
}

// The per-instruction facts below come from the instruction table (`crate::sil::insts`);
// these helpers only phrase its answers in the terms the analysis asks them.

fn info(op: &str) -> Option<&'static InstInfo> {
    insts::lookup(op)
}

fn result_is(op: &str, own: Own) -> bool {
    info(op).and_then(InstInfo::result_own) == Some(own)
}

/// Instructions whose result is owned whatever their operands: they allocate or copy.
pub(super) fn owned_result(op: &str) -> bool {
    result_is(op, Own::Owned)
}

/// Instructions whose result is unowned (casts from bits or from unowned storage).
pub(super) fn unowned_result(op: &str) -> bool {
    result_is(op, Own::Unowned)
}

/// Instructions whose result is never owned or borrowed: method lookups, addresses, literals.
pub(super) fn none_result(op: &str) -> bool {
    result_is(op, Own::None)
}

/// Instructions that forward the ownership of their (first) operand to their results: an owned
/// operand is consumed and the result is owned; a borrowed operand stays borrowed and so does
/// the result.
pub(super) fn forwarding(op: &str) -> bool {
    info(op).and_then(|e| e.use_of(0)) == Some(Use::Forwarding)
}

/// Forwarding instructions that take every operand (aggregates); the others forward only their
/// first operand.
pub(super) fn forwards_all_operands(op: &str) -> bool {
    result_is(op, Own::ForwardedAll)
}

/// Projections that only borrow: the operand must be guaranteed, the result is guaranteed.
pub(super) fn is_guaranteed_projection(op: &str) -> bool {
    info(op).is_some_and(|e| e.forwards() && e.operands.iter().any(|o| o.use_ == Use::GuaranteedForwarding))
}

/// Instructions that consume and destroy their (first) operand.
pub(super) fn is_destroying(op: &str) -> bool {
    info(op).and_then(|e| e.use_of(0)) == Some(Use::DestroyingConsume)
}

/// Operand `k` is read only for the moment of the instruction.
pub(super) fn is_instantaneous(op: &str, k: usize) -> bool {
    info(op).and_then(|e| e.use_of(k)) == Some(Use::Instantaneous)
}

/// Operand `k`'s bits escape (the result is trivial or unowned).
pub(super) fn is_bitwise_escape(op: &str, k: usize) -> bool {
    info(op).and_then(|e| e.use_of(k)) == Some(Use::BitwiseEscape)
}
