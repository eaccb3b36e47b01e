//! The vocabulary of the instruction table: what one entry can say about an instruction.
//!
//! Operand roles carry the names of Swift's `OperandOwnership` (see `docs/SIL/Ownership.md`),
//! so the table reads like the ownership verifier's own rules.

use serde::Serialize;
use std::fmt;

/// The section of the reference an instruction is documented in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Allocation,
    Debug,
    Testing,
    Profiling,
    MemoryAccess,
    ReferenceCounting,
    Literals,
    DynamicDispatch,
    FunctionApplication,
    Metatypes,
    Aggregates,
    Enums,
    Existentials,
    Blocks,
    PackIndexing,
    VariadicGenerics,
    ValueGenerics,
    UncheckedConversions,
    CheckedConversions,
    RuntimeFailures,
    Terminators,
    Differentiable,
    Markers,
    MoveOnly,
    WeakLinking,
    BorrowBuiltin,
    Miscellaneous,
}

impl Category {
    pub fn title(self) -> &'static str {
        use Category::*;
        match self {
            Allocation => "allocation and deallocation",
            Debug => "debug information",
            Testing => "testing",
            Profiling => "profiling",
            MemoryAccess => "memory access",
            ReferenceCounting => "reference counting",
            Literals => "literals",
            DynamicDispatch => "dynamic dispatch",
            FunctionApplication => "function application",
            Metatypes => "metatypes",
            Aggregates => "aggregates",
            Enums => "enums",
            Existentials => "existentials",
            Blocks => "blocks",
            PackIndexing => "pack indexing",
            VariadicGenerics => "variadic generics",
            ValueGenerics => "value generics",
            UncheckedConversions => "unchecked conversions",
            CheckedConversions => "checked conversions",
            RuntimeFailures => "runtime failures",
            Terminators => "terminators",
            Differentiable => "differentiable programming",
            Markers => "optimizer markers",
            MoveOnly => "move-only wrappers",
            WeakLinking => "weak linking",
            BorrowBuiltin => "Builtin.Borrow",
            Miscellaneous => "miscellaneous",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// What an instruction does to memory reachable through addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mem {
    None,
    Reads,
    Writes,
    ReadsWrites,
}

impl Mem {
    pub fn reads(self) -> bool {
        matches!(self, Mem::Reads | Mem::ReadsWrites)
    }
    pub fn writes(self) -> bool {
        matches!(self, Mem::Writes | Mem::ReadsWrites)
    }
}

/// Effects beyond memory, as a small set of flags.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Fx(pub u8);

impl Fx {
    pub const NONE: Fx = Fx(0);
    /// Runs code the caller cannot see (a call, a deinit, a coroutine, a suspension).
    pub const CALL: Fx = Fx(1);
    /// May stop the program (a failed check, a failed cast, an exclusivity violation).
    pub const TRAP: Fx = Fx(2);
    /// Changes a reference count by itself (retain, release): not a value's copy.
    pub const RC: Fx = Fx(4);
    /// Opens or closes a scope or a lifetime that other instructions pair with.
    pub const SCOPE: Fx = Fx(8);
    /// Allocates or deallocates (stack discipline, heap objects, boxes).
    pub const ALLOC: Fx = Fx(16);
    /// No run-time effect, but a diagnostic pass, the debugger or a test reads it, so it is
    /// not dead code.
    pub const MARKER: Fx = Fx(32);
    /// Defines a local type (an opened archetype) that later instructions name in their
    /// types: a use the operands do not show.
    pub const OPENS: Fx = Fx(64);

    pub const fn with(self, o: Fx) -> Fx {
        Fx(self.0 | o.0)
    }
    pub fn has(self, o: Fx) -> bool {
        self.0 & o.0 != 0
    }
}

impl fmt::Debug for Fx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [(Fx::CALL, "call"), (Fx::TRAP, "trap"), (Fx::RC, "rc"), (Fx::SCOPE, "scope"), (Fx::ALLOC, "alloc"), (Fx::MARKER, "marker"), (Fx::OPENS, "opens")];
        let on: Vec<&str> = names.iter().filter(|(x, _)| self.has(*x)).map(|(_, n)| *n).collect();
        if on.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&on.join("+"))
        }
    }
}

/// How an instruction ends its block, if it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Term {
    /// Not a terminator.
    No,
    /// Leaves the function towards the caller (`return`, `throw`, `unwind`).
    Exit,
    /// Transfers control to successor blocks of this function.
    Branch,
    /// Control never gets here (`unreachable`): also an exit for post-dominance.
    Unreachable,
}

/// Whether a value is an object, an address, or either (fixed by the operand's type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    Object,
    Address,
    Either,
}

/// What an operand does with the value it uses: Swift's `OperandOwnership`, plus the cases
/// where the instruction's attributes or the callee's convention decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Use {
    /// Only the operand's type matters (an opened archetype, a base with no run-time role).
    NonUse,
    /// A trivial value or an address: no ownership rule.
    Trivial,
    /// Read for the moment of the instruction.
    Instantaneous,
    /// Lets the reference escape as bits.
    BitwiseEscape,
    /// Opens a borrow scope whose ends are uses of the operand.
    Borrow,
    /// Ends the operand's lifetime and destroys it.
    DestroyingConsume,
    /// Ends the operand's lifetime by handing ownership on.
    ForwardingConsume,
    /// Projects an address into a borrowed object.
    InteriorPointer,
    /// Projects an address into an object of any ownership.
    AnyInteriorPointer,
    /// Forwards the operand's ownership to the results: consumes an owned operand, stays
    /// inside the borrow of a guaranteed one.
    Forwarding,
    /// Forwards a borrowed operand only (a part of a borrowed value).
    GuaranteedForwarding,
    /// Ends a borrow scope.
    EndBorrow,
    /// Decided by the callee's parameter convention (`@owned` consumes, `@guaranteed` reads).
    Convention,
    /// Decided by the instruction's attributes (`store [init]` consumes, `[trivial]` does not;
    /// `partial_apply [on_stack]` borrows its captures, otherwise it consumes them).
    ByAttribute,
}

impl Use {
    /// Whether the use ends the operand's lifetime: `Some(true)`/`Some(false)` when the
    /// table decides, `None` when the operand's own kind, the callee or an attribute does.
    pub fn ends_lifetime(self) -> Option<bool> {
        match self {
            Use::DestroyingConsume | Use::ForwardingConsume | Use::EndBorrow => Some(true),
            Use::Forwarding | Use::Convention | Use::ByAttribute => None,
            _ => Some(false),
        }
    }
}

/// One operand position: its form and its use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Operand {
    pub form: Form,
    #[serde(rename = "use")]
    pub use_: Use,
}

/// The ownership kind of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Own {
    /// Never owned or borrowed: trivial values, addresses, literals, method lookups.
    None,
    /// A new lifetime the function must end.
    Owned,
    /// A borrowed value inside a scope.
    Guaranteed,
    /// A reference nobody keeps alive.
    Unowned,
    /// The ownership of operand N.
    Forwarded(u8),
    /// The ownership of its operands taken together (an aggregate).
    ForwardedAll,
    /// The callee's result convention decides.
    Convention,
    /// The instruction's attributes decide (`load [copy]` is owned, `load [trivial]` none).
    ByAttribute,
}

/// One result position: its form and its ownership.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Value {
    pub form: Form,
    pub own: Own,
}

/// The results an instruction defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Results {
    /// Exactly these (none for `store`, one for most, two for `begin_cow_mutation`).
    Fixed(&'static [Value]),
    /// Any number, all alike (`destructure_struct`, `begin_apply`).
    Variadic(Value),
}

/// Whether the result is a part of its first operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Proj {
    No,
    /// An address inside the memory its address operand points at (`struct_element_addr`).
    Address,
    /// An address inside an object or box (`ref_element_addr`, `project_box`): valid while
    /// the object is.
    InteriorPointer,
    /// A part of an object value (`struct_extract`).
    Value,
}
