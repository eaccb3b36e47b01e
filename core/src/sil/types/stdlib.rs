//! The types SIL files use without declaring them: the standard library's (hidden behind
//! `import Swift`), Foundation's `NSObject`, and the well-known protocols generic constraints
//! name. Each entry states where its fact comes from, because the why-chain shows it.
//!
//! Where the standard library's own declaration is a simple frozen struct over a builtin
//! (`Int` is `struct Int { var _value: Builtin.Int64 }`), the entry is that declaration, so
//! the chain reaches the builtin the way Swift's type lowering does; the collections and
//! `String` are leaves: their stored properties are private buffer types, and what matters is
//! the documented fact that each holds one strong reference.

use super::Class;

pub enum Std {
    /// A frozen struct with these stored fields (type texts, parsed on use).
    Struct { params: &'static [&'static str], fields: &'static [(&'static str, &'static str)] },
    /// A type whose class is stated, with why.
    Leaf { class: Class, why: &'static str },
    /// `Optional<Wrapped>`: lowering looks through it to the payload.
    Optional,
    /// An ObjC class (a reference; `@sil_unowned` of it is not loadable).
    ObjcClass,
    /// A protocol; `true` when class-bound.
    Protocol { class_bound: bool },
}

pub struct Entry {
    pub name: &'static str,
    pub std: Std,
    pub source: &'static str,
}

const STDLIB: &str = "Swift standard library";

macro_rules! scalar {
    ($name:literal, $builtin:literal) => {
        Entry {
            name: $name,
            std: Std::Struct { params: &[], fields: &[("_value", $builtin)] },
            source: concat!(
                "Swift standard library: `@frozen struct ",
                $name,
                " { var _value: ",
                $builtin,
                " }`"
            ),
        }
    };
}

macro_rules! leaf {
    ($name:literal, $class:expr, $why:literal, $source:literal) => {
        Entry { name: $name, std: Std::Leaf { class: $class, why: $why }, source: $source }
    };
}

pub const TABLE: &[Entry] = &[
    scalar!("Int", "Builtin.Int64"),
    scalar!("Int8", "Builtin.Int8"),
    scalar!("Int16", "Builtin.Int16"),
    scalar!("Int32", "Builtin.Int32"),
    scalar!("Int64", "Builtin.Int64"),
    scalar!("UInt", "Builtin.Int64"),
    scalar!("UInt8", "Builtin.Int8"),
    scalar!("UInt16", "Builtin.Int16"),
    scalar!("UInt32", "Builtin.Int32"),
    scalar!("UInt64", "Builtin.Int64"),
    scalar!("Bool", "Builtin.Int1"),
    scalar!("Float", "Builtin.FPIEEE32"),
    scalar!("Double", "Builtin.FPIEEE64"),
    scalar!("Float80", "Builtin.FPIEEE80"),
    scalar!("Float16", "Builtin.FPIEEE16"),
    scalar!("UnsafeRawPointer", "Builtin.RawPointer"),
    scalar!("UnsafeMutableRawPointer", "Builtin.RawPointer"),
    scalar!("OpaquePointer", "Builtin.RawPointer"),
    Entry {
        name: "UnsafePointer",
        std: Std::Struct { params: &["Pointee"], fields: &[("_rawValue", "Builtin.RawPointer")] },
        source: "Swift standard library: `@frozen struct UnsafePointer<Pointee> { let _rawValue: Builtin.RawPointer }`",
    },
    Entry {
        name: "UnsafeMutablePointer",
        std: Std::Struct { params: &["Pointee"], fields: &[("_rawValue", "Builtin.RawPointer")] },
        source: "Swift standard library: `@frozen struct UnsafeMutablePointer<Pointee> { let _rawValue: Builtin.RawPointer }`",
    },
    Entry {
        name: "Unmanaged",
        std: Std::Struct { params: &["Instance"], fields: &[("_value", "@sil_unmanaged Instance")] },
        source: "Swift standard library: `@frozen struct Unmanaged<Instance: AnyObject> { unowned(unsafe) var _value: Instance }`",
    },
    Entry {
        name: "ObjectIdentifier",
        std: Std::Struct { params: &[], fields: &[("_value", "Builtin.RawPointer")] },
        source: "Swift standard library: `@frozen struct ObjectIdentifier { let _value: Builtin.RawPointer }`",
    },
    Entry { name: "Void", std: Std::Struct { params: &[], fields: &[] }, source: "Swift standard library: `typealias Void = ()`" },
    leaf!("Never", Class::Trivial, "an enum with no cases: no value ever exists", "Swift standard library: `@frozen enum Never {}`"),
    leaf!("String", Class::Loadable, "a fixed-layout struct holding a reference to its storage", "Swift standard library: `@frozen struct String` (its `_guts` hold a bridge object)"),
    leaf!("Substring", Class::Loadable, "a fixed-layout struct holding a String", "Swift standard library: `@frozen struct Substring`"),
    leaf!("Character", Class::Loadable, "a fixed-layout struct holding a String", "Swift standard library: `@frozen struct Character { var _str: String }`"),
    leaf!("Array", Class::Loadable, "a fixed-layout struct holding one reference to its buffer, whatever the element type", "Swift standard library: `@frozen struct Array<Element>` (one buffer reference)"),
    leaf!("ContiguousArray", Class::Loadable, "a fixed-layout struct holding one reference to its buffer", "Swift standard library: `@frozen struct ContiguousArray<Element>`"),
    leaf!("Dictionary", Class::Loadable, "a fixed-layout struct holding one reference to its storage", "Swift standard library: `@frozen struct Dictionary<Key, Value>`"),
    leaf!("Set", Class::Loadable, "a fixed-layout struct holding one reference to its storage", "Swift standard library: `@frozen struct Set<Element>`"),
    Entry { name: "Optional", std: Std::Optional, source: "Swift standard library: `@frozen enum Optional<Wrapped> { case none, some(Wrapped) }`" },
    leaf!("Any", Class::AddressOnly, "a non-class existential: an inline buffer whose contents can be any type, of any size", "Swift: `Any` is the empty protocol composition"),
    leaf!("AnyObject", Class::Loadable, "a class existential: a single strong reference", "Swift: `AnyObject` is the class-bound empty composition"),
    Entry { name: "NSObject", std: Std::ObjcClass, source: "Objective-C runtime (Foundation): `class NSObject`" },
];

/// Standard-library protocols generic constraints name; none is class-bound.
pub const PROTOCOLS: &[&str] = &[
    "Error",
    "Equatable",
    "Hashable",
    "Comparable",
    "Sendable",
    "Copyable",
    "Escapable",
    "BitwiseCopyable",
    "CustomStringConvertible",
    "Sequence",
    "Collection",
    "IteratorProtocol",
    "Numeric",
    "BinaryInteger",
    "FixedWidthInteger",
    "Codable"
];

/// The entry of a standard-library name (`Swift.` prefix allowed).
pub fn lookup(name: &str) -> Option<&'static Entry> {
    static PROTOCOL: Entry = Entry { name: "", std: Std::Protocol { class_bound: false }, source: STDLIB };
    let name = name.strip_prefix("Swift.").unwrap_or(name);
    TABLE.iter().find(|e| e.name == name).or_else(|| PROTOCOLS.contains(&name).then_some(&PROTOCOL))
}

/// The class of a `Builtin.*` type (without the `Builtin.` prefix), with why; `None` for a
/// name Swift does not have.
pub fn builtin(name: &str) -> Option<(Class, &'static str)> {
    let int_like = |p: &str| name.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if int_like("Int") || int_like("FPIEEE") || name == "Word" || name == "IntLiteral" || name.starts_with("Vec") {
        return Some((Class::Trivial, "a builtin scalar"));
    }
    match name {
        "RawPointer" | "Executor" | "Job" | "RawUnsafeContinuation" | "PackIndex" | "SILToken" | "FPIEEE80"
        | "ImplicitActor" | "TheTupleType" => Some((Class::Trivial, "a builtin scalar")),
        "NativeObject" | "BridgeObject" | "AnyObject" | "UnknownObject" => {
            Some((Class::Loadable, "a single strong reference"))
        }
        "UnsafeValueBuffer" | "DefaultActorStorage" | "NonDefaultDistributedActorStorage" => {
            Some((Class::AddressOnly, "its address is registered with the runtime, so it never lives in a register"))
        }
        _ => None,
    }
}
