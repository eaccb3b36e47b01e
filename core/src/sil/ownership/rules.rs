//! The rule tables: which kind an instruction's result has, and what each operand accepts.
//!
//! Kinds and constraints follow `docs/SIL/Ownership.md` and the table in sil-semantics.md §(c);
//! operand roles carry the names of Swift's `OperandOwnership` so what the lab prints reads
//! like `sil-opt -ownership-dumper`.

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

/// Instructions (by mnemonic) whose result is owned whatever their operands: they allocate
/// or copy.
pub(super) const OWNED_RESULT: &[&str] = &[
    "alloc_ref", "alloc_ref_dynamic", "alloc_box", "alloc_existential_box", "partial_apply", "keypath",
    "load_weak", "load_unowned", "strong_copy_unowned_value", "strong_copy_weak_value",
    "strong_copy_unmanaged_value", "unowned_copy_value", "weak_copy_value", "explicit_copy_value",
    "copy_block", "copy_block_without_escaping", "unmanaged_copy_value", "object",
];

/// Instructions whose result is unowned (casts from bits or from unowned storage).
pub(super) const UNOWNED_RESULT: &[&str] = &["raw_pointer_to_ref", "unmanaged_to_ref", "unowned_to_ref", "unchecked_bitwise_cast"];

/// Instructions whose result is never owned or borrowed: method lookups, addresses, literals.
pub(super) const NONE_RESULT: &[&str] = &[
    "integer_literal", "float_literal", "string_literal", "function_ref", "dynamic_function_ref",
    "prev_dynamic_function_ref", "metatype", "value_metatype", "existential_metatype", "alloc_stack",
    "global_addr", "struct_element_addr", "tuple_element_addr", "ref_element_addr", "ref_tail_addr",
    "index_addr", "pointer_to_address", "address_to_pointer", "unchecked_addr_cast",
    "unchecked_trivial_bit_cast", "ref_to_raw_pointer", "begin_access", "store_borrow", "class_method",
    "super_method", "objc_method", "objc_super_method", "witness_method", "project_box",
    "init_enum_data_addr", "unchecked_take_enum_data_addr", "init_existential_addr",
    "open_existential_addr", "project_block_storage", "ref_to_unmanaged", "ref_to_unowned",
    "mark_uninitialized_addr", "tail_addr", "begin_unpaired_access", "alloc_pack", "pack_element_get",
    "vector", "global_value", "objc_protocol", "objc_to_thick_metatype", "thick_to_objc_metatype",
    "select_value", "select_enum", "select_enum_addr", "is_unique", "is_escaping_closure",
    "value_to_bridge_object", "classify_bridge_object", "bridge_object_to_word", "cond_fail",
];

/// Instructions that forward the ownership of their (first) operand to their results: an owned
/// operand is consumed and the result is owned; a borrowed operand stays borrowed and so does
/// the result.
pub(super) const FORWARDING: &[&str] = &[
    "struct", "tuple", "enum", "upcast", "unchecked_ref_cast", "unchecked_enum_data",
    "unconditional_checked_cast", "convert_function", "thin_to_thick_function", "mark_dependence",
    "destructure_struct", "destructure_tuple", "drop_deinit", "init_existential_ref",
    "open_existential_ref", "ref_to_bridge_object", "bridge_object_to_ref", "unchecked_value_cast",
    "mark_uninitialized", "begin_dealloc_ref", "end_init_let_ref", "copyable_to_moveonlywrapper",
    "moveonlywrapper_to_copyable", "mark_unresolved_non_copyable_value", "convert_escape_to_noescape",
    "init_existential_value", "open_existential_value", "unchecked_ownership_conversion",
    "move_only_wrapper_to_copyable", "borrowed_from",
];

/// Forwarding instructions that take every operand (aggregates); the others forward only their
/// first operand.
pub(super) fn forwards_all_operands(op: &str) -> bool {
    matches!(op, "struct" | "tuple")
}

/// Projections that only borrow: the operand must be guaranteed, the result is guaranteed.
pub(super) fn is_guaranteed_projection(op: &str) -> bool {
    matches!(op, "struct_extract" | "tuple_extract" | "open_existential_box_value" | "tuple_pack_extract")
}

/// Instructions that consume and destroy their (first) operand.
pub(super) fn is_destroying(op: &str) -> bool {
    matches!(
        op,
        "destroy_value" | "end_lifetime" | "dealloc_box" | "dealloc_ref" | "destroy_not_escaped_closure"
            | "dealloc_existential_box" | "extend_lifetime_consume"
    )
}

/// Operands read only for the moment of the instruction.
pub(super) fn is_instantaneous(op: &str) -> bool {
    matches!(
        op,
        "copy_value" | "debug_value" | "fix_lifetime" | "class_method" | "objc_method" | "super_method"
            | "objc_super_method" | "value_metatype" | "existential_metatype" | "strong_retain"
            | "strong_release" | "select_enum" | "select_value" | "is_unique" | "is_escaping_closure"
            | "extend_lifetime" | "ref_to_unowned" | "ref_to_unmanaged" | "unowned_copy_value"
            | "weak_copy_value" | "explicit_copy_value" | "store_weak" | "store_unowned"
            | "classify_bridge_object" | "bridge_object_to_word" | "value_to_bridge_object"
            | "keypath" | "copy_block"
    )
}

/// Operands whose bits escape (the result is trivial or unowned).
pub(super) fn is_bitwise_escape(op: &str) -> bool {
    matches!(op, "ref_to_raw_pointer" | "unchecked_bitwise_cast" | "unchecked_trivial_bit_cast" | "address_to_pointer")
}
