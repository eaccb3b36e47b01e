//! One table of SIL instructions, written from Swift's `docs/SIL/Instructions.md` (with
//! `SIL.md` and `Ownership.md`): for each mnemonic its category, memory behaviour and other
//! effects, terminator kind, operand and result forms, ownership and projection.
//!
//! Everything in core that needs a property of an instruction — is it a terminator, does it
//! write memory, does this operand end a lifetime, is the result owned — asks here instead of
//! comparing opcode names, so an instruction without a dedicated [`SilOp`] variant still gets
//! its facts, and one missing from the table is known to be unknown.
//!
//! [`SilOp`]: crate::ir::SilOp

mod kinds;
mod table;

pub use kinds::{Category, Form, Fx, Mem, Operand, Own, Proj, Results, Term, Use, Value};

use crate::ir::Effect;
use serde::Serialize;
use std::fmt;
use std::sync::OnceLock;

/// What the reference says about one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct InstInfo {
    /// The mnemonic as written in SIL (`struct_extract`).
    pub name: &'static str,
    pub category: Category,
    pub mem: Mem,
    pub fx: Fx,
    pub term: Term,
    /// The operands at fixed positions, in source order.
    pub operands: &'static [Operand],
    /// The operand every position after the fixed ones has (a variadic list), if any.
    pub rest: Option<Operand>,
    pub results: Results,
    /// Whether the (first) result is a part of the first operand.
    pub proj: Proj,
    /// In the reference (false for the few that Swift's parser accepts but the reference does
    /// not describe).
    pub documented: bool,
}

impl fmt::Display for InstInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Every entry, in the reference's order.
pub fn all() -> &'static [InstInfo] {
    table::TABLE
}

/// The entry for a mnemonic, if the table has one.
pub fn lookup(name: &str) -> Option<&'static InstInfo> {
    static SORTED: OnceLock<Vec<(&'static str, u16)>> = OnceLock::new();
    let sorted = SORTED.get_or_init(|| {
        let mut v: Vec<(&'static str, u16)> = table::TABLE.iter().enumerate().map(|(i, e)| (e.name, i as u16)).collect();
        v.sort_unstable();
        v
    });
    let k = sorted.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
    table::TABLE.get(sorted[k].1 as usize)
}

impl InstInfo {
    pub fn is_terminator(&self) -> bool {
        self.term != Term::No
    }

    /// Whether control leaves the function here: a return-like exit or `unreachable`.
    pub fn is_function_exit(&self) -> bool {
        matches!(self.term, Term::Exit | Term::Unreachable)
    }

    pub fn may_trap(&self) -> bool {
        self.fx.has(Fx::TRAP)
    }

    /// Whether it binds an opened archetype that later types name.
    pub fn opens_archetype(&self) -> bool {
        self.fx.has(Fx::OPENS)
    }

    /// Whether it defines no value at all.
    pub fn has_no_results(&self) -> bool {
        matches!(self.results, Results::Fixed([]))
    }

    /// The effect class passes read. A write, a call, a reference-count change, a scope or
    /// lifetime boundary, an allocation, a marker for other tools or a local type that later
    /// types name (an opened archetype, whose users the operands do not show) keeps the
    /// instruction; so
    /// does a possible trap when the instruction exists only to check (`cond_fail`). A check
    /// that produces a value (`unconditional_checked_cast`) is removable when that value is
    /// dead, like Bril's `div`.
    pub fn effect(&self) -> Effect {
        if self.is_terminator() {
            return Effect::Terminator;
        }
        let kept = Fx::CALL.with(Fx::RC).with(Fx::SCOPE).with(Fx::ALLOC).with(Fx::MARKER).with(Fx::OPENS);
        if self.mem.writes() || self.fx.has(kept) || (self.may_trap() && self.has_no_results()) {
            Effect::SideEffect
        } else if self.mem.reads() {
            Effect::ReadsMemory
        } else {
            Effect::Pure
        }
    }

    /// The operand at position `k` (a fixed one, or the repeated one after them).
    pub fn operand(&self, k: usize) -> Option<Operand> {
        self.operands.get(k).copied().or(self.rest)
    }

    /// The use of operand `k`.
    pub fn use_of(&self, k: usize) -> Option<Use> {
        self.operand(k).map(|o| o.use_)
    }

    /// The result at position `k`.
    pub fn result(&self, k: usize) -> Option<Value> {
        match self.results {
            Results::Fixed(r) => r.get(k).copied(),
            Results::Variadic(v) => Some(v),
        }
    }

    /// The ownership of the first result, if it has one.
    pub fn result_own(&self) -> Option<Own> {
        self.result(0).map(|v| v.own)
    }

    /// Whether the first result forwards the ownership of operand 0 (or of all operands).
    pub fn forwards(&self) -> bool {
        matches!(self.result_own(), Some(Own::Forwarded(_) | Own::ForwardedAll))
    }

    /// Whether the result is an address derived from the operand (a projection or an
    /// interior pointer).
    pub fn projects_address(&self) -> bool {
        matches!(self.proj, Proj::Address | Proj::InteriorPointer)
    }
}

#[cfg(test)]
mod tests;
