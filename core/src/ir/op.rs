//! Opcodes of both languages and what passes need to know about them.
//!
//! Bril's ops are its spec's (core, float, mem, char); SIL's are the instructions the seeds
//! and Swift's DCE tests use. Anything else parses as `Other(name)` and is treated as having
//! side effects, so a program with instructions we do not model still loads and stays correct
//! under every pass.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How an instruction interacts with the rest of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// A function of its operands only; dead if its results are unused.
    Pure,
    /// Reads memory but writes nothing: removable when dead, but not movable across stores.
    ReadsMemory,
    /// Writes memory, traps, performs I/O or calls unknown code: a DCE root.
    SideEffect,
    /// Ends a block.
    Terminator,
}

macro_rules! opcodes {
    ($(#[$m:meta])* $enum:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $enum {
            $($variant,)*
            /// An operation we do not model; kept by name, treated as side-effecting.
            Other(String),
        }

        impl $enum {
            /// The opcode for a mnemonic; unknown names become `Other`.
            pub fn from_name(name: &str) -> Self {
                match name {
                    $($text => $enum::$variant,)*
                    _ => $enum::Other(name.to_string()),
                }
            }
            /// The mnemonic as written in source.
            pub fn name(&self) -> &str {
                match self {
                    $($enum::$variant => $text,)*
                    $enum::Other(s) => s,
                }
            }
            /// Every modelled mnemonic, for completion and syntax colouring.
            pub const NAMES: &'static [&'static str] = &[$($text),*];
        }

        impl fmt::Display for $enum {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl fmt::Debug for $enum {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

opcodes! {
    /// Bril operations: core, float, memory and char extensions.
    BrilOp {
        Const = "const", Id = "id", Nop = "nop",
        Add = "add", Sub = "sub", Mul = "mul", Div = "div",
        Eq = "eq", Lt = "lt", Gt = "gt", Le = "le", Ge = "ge",
        Not = "not", And = "and", Or = "or",
        Call = "call", Print = "print",
        Jmp = "jmp", Br = "br", Ret = "ret",
        Fadd = "fadd", Fsub = "fsub", Fmul = "fmul", Fdiv = "fdiv",
        Feq = "feq", Flt = "flt", Fgt = "fgt", Fle = "fle", Fge = "fge",
        Alloc = "alloc", Free = "free", Store = "store", Load = "load", PtrAdd = "ptradd",
        Ceq = "ceq", Clt = "clt", Cgt = "cgt", Cle = "cle", Cge = "cge",
        Char2Int = "char2int", Int2Char = "int2char",
        // The speculation extension: `guard c .l` ends its block (it may jump to `.l`).
        Speculate = "speculate", Commit = "commit", Guard = "guard",
        // SSA form (docs/lang/ssa2.md): `set x v` writes `x`'s shadow, `x: T = get` reads it,
        // `x: T = undef` gives the undefined value.
        Set = "set", Get = "get", Undef = "undef",
        // The deprecated classic SSA form (docs/lang/ssa.md): `x: T = phi a b .l1 .l2` takes the
        // argument whose label names the block control came from. Its labels are kept as the
        // instruction's `succs` (it is no terminator: they are not CFG edges).
        Phi = "phi",
    }
}

opcodes! {
    /// SIL instructions with a dedicated model.
    SilOp {
        IntegerLiteral = "integer_literal", FloatLiteral = "float_literal",
        StringLiteral = "string_literal",
        Struct = "struct", StructExtract = "struct_extract",
        Tuple = "tuple", TupleExtract = "tuple_extract",
        DestructureStruct = "destructure_struct", DestructureTuple = "destructure_tuple",
        Enum = "enum", Builtin = "builtin",
        FunctionRef = "function_ref", Apply = "apply", TryApply = "try_apply",
        CondFail = "cond_fail", FixLifetime = "fix_lifetime", DebugValue = "debug_value",
        AllocStack = "alloc_stack", DeallocStack = "dealloc_stack",
        Load = "load", LoadBorrow = "load_borrow", Store = "store", StoreBorrow = "store_borrow",
        CopyAddr = "copy_addr", DestroyAddr = "destroy_addr",
        CopyValue = "copy_value", DestroyValue = "destroy_value", MoveValue = "move_value",
        BeginBorrow = "begin_borrow", EndBorrow = "end_borrow",
        BeginAccess = "begin_access", EndAccess = "end_access",
        StructElementAddr = "struct_element_addr", TupleElementAddr = "tuple_element_addr",
        StrongRetain = "strong_retain", StrongRelease = "strong_release",
        UnconditionalCheckedCast = "unconditional_checked_cast",
        EndLifetime = "end_lifetime", DropDeinit = "drop_deinit",
        MarkDependence = "mark_dependence", PointerToAddress = "pointer_to_address",
        Br = "br", CondBr = "cond_br", SwitchEnum = "switch_enum",
        Return = "return", Throw = "throw", Unreachable = "unreachable",
        // Terminators parsed by the generic path (successors are the block labels they name).
        SwitchValue = "switch_value", SwitchEnumAddr = "switch_enum_addr",
        CheckedCastBr = "checked_cast_br", CheckedCastAddrBr = "checked_cast_addr_br",
        DynamicMethodBr = "dynamic_method_br", AwaitAsyncContinuation = "await_async_continuation",
        Yield = "yield", Unwind = "unwind", ThrowAddr = "throw_addr",
        // Projections and conversions common in `swiftc -emit-sil` output: values computed
        // from their operands alone, so dead ones may be removed.
        Upcast = "upcast", UncheckedRefCast = "unchecked_ref_cast", RefElementAddr = "ref_element_addr",
        UncheckedAddrCast = "unchecked_addr_cast", UncheckedBitwiseCast = "unchecked_bitwise_cast",
        UncheckedTrivialBitCast = "unchecked_trivial_bit_cast",
        RefToRawPointer = "ref_to_raw_pointer", RawPointerToRef = "raw_pointer_to_ref",
        AddressToPointer = "address_to_pointer", ConvertFunction = "convert_function",
        ThinToThickFunction = "thin_to_thick_function", Metatype = "metatype",
        SelectEnum = "select_enum", SelectValue = "select_value",
        UncheckedEnumData = "unchecked_enum_data",
        RefTailAddr = "ref_tail_addr", IndexAddr = "index_addr", GlobalAddr = "global_addr",
    }
}

/// An opcode of either language.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Op {
    Bril(BrilOp),
    Sil(SilOp),
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// SIL builtins that compute a value from their operands and nothing else.
fn is_pure_builtin(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "cmp_", "add_", "sub_", "mul_", "sadd_with_overflow", "uadd_with_overflow",
        "ssub_with_overflow", "usub_with_overflow", "smul_with_overflow", "umul_with_overflow",
        "and_", "or_", "xor_", "shl_", "lshr_", "ashr_", "trunc", "zext", "sext", "zextOrBitCast",
        "truncOrBitCast", "fadd_", "fsub_", "fmul_", "fdiv_", "fcmp_", "s_to_", "u_to_",
        "bitcast",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

impl Op {
    pub fn name(&self) -> &str {
        match self {
            Op::Bril(o) => o.name(),
            Op::Sil(o) => o.name(),
        }
    }

    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Op::Bril(BrilOp::Jmp | BrilOp::Br | BrilOp::Ret | BrilOp::Guard)
                | Op::Sil(
                    SilOp::Br
                        | SilOp::CondBr
                        | SilOp::SwitchEnum
                        | SilOp::Return
                        | SilOp::Throw
                        | SilOp::Unreachable
                        | SilOp::TryApply
                        | SilOp::SwitchValue
                        | SilOp::SwitchEnumAddr
                        | SilOp::CheckedCastBr
                        | SilOp::CheckedCastAddrBr
                        | SilOp::DynamicMethodBr
                        | SilOp::AwaitAsyncContinuation
                        | SilOp::Yield
                        | SilOp::Unwind
                        | SilOp::ThrowAddr
                )
        )
    }

    /// Whether control leaves the function here (`ret`, `return`, `throw`, `unreachable`).
    pub fn is_function_exit(&self) -> bool {
        matches!(
            self,
            Op::Bril(BrilOp::Ret)
                | Op::Sil(SilOp::Return | SilOp::Throw | SilOp::ThrowAddr | SilOp::Unwind | SilOp::Unreachable)
        )
    }

    /// The effect class. `builtin_name` is the SIL builtin's name (only consulted for
    /// `builtin`): arithmetic builtins are pure, everything else is assumed to have effects.
    pub fn effect(&self, builtin_name: Option<&str>) -> Effect {
        use Effect::*;
        if self.is_terminator() {
            return Terminator;
        }
        match self {
            Op::Bril(o) => match o {
                BrilOp::Load => ReadsMemory,
                BrilOp::Call
                | BrilOp::Print
                | BrilOp::Alloc
                | BrilOp::Free
                | BrilOp::Store
                | BrilOp::Speculate
                | BrilOp::Commit
                | BrilOp::Set
                // A `get` reads what the last `set` of its shadow wrote, and removing a dead one
                // would leave `set`s of a shadow that no `get` names, which Bril's checker refuses.
                | BrilOp::Get
                | BrilOp::Other(_) => SideEffect,
                _ => Pure,
            },
            Op::Sil(o) => match o {
                SilOp::IntegerLiteral
                | SilOp::FloatLiteral
                | SilOp::StringLiteral
                | SilOp::Struct
                | SilOp::StructExtract
                | SilOp::Tuple
                | SilOp::TupleExtract
                | SilOp::DestructureStruct
                | SilOp::DestructureTuple
                | SilOp::Enum
                | SilOp::FunctionRef
                | SilOp::StructElementAddr
                | SilOp::TupleElementAddr
                | SilOp::CopyValue
                | SilOp::MoveValue
                | SilOp::BeginBorrow
                | SilOp::UnconditionalCheckedCast
                | SilOp::MarkDependence
                | SilOp::PointerToAddress
                | SilOp::DebugValue
                | SilOp::FixLifetime
                | SilOp::Upcast
                | SilOp::RefElementAddr
                | SilOp::UncheckedRefCast
                | SilOp::UncheckedAddrCast
                | SilOp::UncheckedBitwiseCast
                | SilOp::UncheckedTrivialBitCast
                | SilOp::RefToRawPointer
                | SilOp::RawPointerToRef
                | SilOp::AddressToPointer
                | SilOp::ConvertFunction
                | SilOp::ThinToThickFunction
                | SilOp::Metatype
                | SilOp::SelectEnum
                | SilOp::SelectValue
                | SilOp::UncheckedEnumData
                | SilOp::RefTailAddr
                | SilOp::IndexAddr
                | SilOp::GlobalAddr => Pure,
                SilOp::Builtin => {
                    if builtin_name.is_some_and(is_pure_builtin) {
                        Pure
                    } else {
                        SideEffect
                    }
                }
                SilOp::Load | SilOp::LoadBorrow => ReadsMemory,
                _ => SideEffect,
            },
        }
    }

    /// Whether evaluating the operation can fail at run time (division by zero, a failed
    /// cast); such operations may be removed when dead but never moved onto a new path.
    pub fn may_trap(&self) -> bool {
        matches!(
            self,
            Op::Bril(BrilOp::Div) | Op::Sil(SilOp::CondFail | SilOp::UnconditionalCheckedCast)
        )
    }

    /// Binary operations whose operands may be swapped (`--commute` in LCM).
    pub fn is_commutative(&self) -> bool {
        matches!(
            self,
            Op::Bril(
                BrilOp::Add
                    | BrilOp::Mul
                    | BrilOp::Eq
                    | BrilOp::And
                    | BrilOp::Or
                    | BrilOp::Fadd
                    | BrilOp::Fmul
                    | BrilOp::Feq
                    | BrilOp::Ceq
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknowns_are_side_effecting() {
        for n in BrilOp::NAMES {
            assert_eq!(BrilOp::from_name(n).name(), *n);
        }
        for n in SilOp::NAMES {
            assert_eq!(SilOp::from_name(n).name(), *n);
        }
        let other = Op::Sil(SilOp::from_name("frobnicate_value"));
        assert_eq!(other, Op::Sil(SilOp::Other("frobnicate_value".into())));
        assert_eq!(Op::Sil(SilOp::from_name("ref_element_addr")).effect(None), Effect::Pure);
        assert_eq!(other.effect(None), Effect::SideEffect);
        assert_eq!(Op::Bril(BrilOp::from_name("speculate")).effect(None), Effect::SideEffect);
        assert_eq!(Op::Bril(BrilOp::from_name("commit")).effect(None), Effect::SideEffect);
        assert_eq!(Op::Bril(BrilOp::from_name("guard")).effect(None), Effect::Terminator);
    }

    #[test]
    fn builtins_are_pure_only_when_arithmetic() {
        let b = Op::Sil(SilOp::Builtin);
        assert_eq!(b.effect(Some("sadd_with_overflow_Int32")), Effect::Pure);
        assert_eq!(b.effect(Some("cmp_slt_Int32")), Effect::Pure);
        assert_eq!(b.effect(Some("int_trap")), Effect::SideEffect);
        assert_eq!(b.effect(Some("once")), Effect::SideEffect);
        assert_eq!(b.effect(None), Effect::SideEffect);
    }

    #[test]
    fn every_sil_terminator_is_one_and_exits_are_terminators() {
        for n in [
            "br", "cond_br", "switch_enum", "switch_enum_addr", "switch_value", "checked_cast_br",
            "checked_cast_addr_br", "dynamic_method_br", "await_async_continuation", "yield",
            "unwind", "throw_addr", "try_apply", "return", "throw", "unreachable",
        ] {
            let op = Op::Sil(SilOp::from_name(n));
            assert!(!matches!(op, Op::Sil(SilOp::Other(_))), "{n} is modelled");
            assert!(op.is_terminator(), "{n}");
            assert_eq!(op.effect(None), Effect::Terminator, "{n}");
        }
        for n in ["return", "throw", "throw_addr", "unwind", "unreachable"] {
            assert!(Op::Sil(SilOp::from_name(n)).is_function_exit(), "{n}");
        }
        assert!(!Op::Sil(SilOp::Yield).is_function_exit());
        assert_eq!(Op::Sil(SilOp::Upcast).effect(None), Effect::Pure);
    }
}
