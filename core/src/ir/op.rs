//! Opcodes of both languages and what passes need to know about them.
//!
//! Bril's ops are its spec's (core, float, mem, char). SIL's facts — effects, terminator
//! kind, exits, traps — come from the instruction table ([`crate::sil::insts`]); the variants
//! of [`SilOp`] are the instructions some pass has a rule for, and every other mnemonic parses
//! as `Other(name)` and still gets its facts from the table. A name the table does not know is
//! treated as having side effects, so a program with such instructions still loads and stays
//! correct under every pass.

use crate::sil::insts::{self, InstInfo};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

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
            /// The variant's position in [`Self::NAMES`] (`None` for `Other`).
            #[allow(unused_assignments)]
            pub fn ordinal(&self) -> Option<usize> {
                let mut k = 0usize;
                $(
                    if matches!(self, $enum::$variant) {
                        return Some(k);
                    }
                    k += 1;
                )*
                None
            }
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
        // Instructions AddressLowering and the ownership analysis have rules for.
        BeginApply = "begin_apply", WitnessMethod = "witness_method",
        InitExistentialValue = "init_existential_value", OpenExistentialValue = "open_existential_value",
        ReturnBorrow = "return_borrow",
    }
}

impl SilOp {
    /// The table's entry for this instruction; `None` only for a mnemonic the table does not
    /// know. Variants find theirs by position, without a search.
    ///
    /// Without the `sil` feature (the page's first-visit build, which parses Bril only) the
    /// table is left out and every SIL opcode is unknown.
    pub fn info(&self) -> Option<&'static InstInfo> {
        if !cfg!(feature = "sil") {
            return None;
        }
        static BY_VARIANT: OnceLock<Vec<Option<&'static InstInfo>>> = OnceLock::new();
        match self {
            SilOp::Other(name) => insts::lookup(name),
            v => {
                let table = BY_VARIANT.get_or_init(|| SilOp::NAMES.iter().map(|n| insts::lookup(n)).collect());
                table.get(v.ordinal()?).copied().flatten()
            }
        }
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
            // Without the `sil` feature (the first-visit build, which reads Bril only) no SIL
            // instruction exists to name, and the mnemonics stay out of the download.
            Op::Sil(_) if !cfg!(feature = "sil") => "sil",
            Op::Sil(o) => o.name(),
        }
    }

    /// The table's entry for a SIL instruction (`None` for Bril and for unknown mnemonics).
    pub fn sil_info(&self) -> Option<&'static InstInfo> {
        match self {
            Op::Sil(o) => o.info(),
            Op::Bril(_) => None,
        }
    }

    /// A SIL mnemonic the instruction table does not know.
    pub fn is_unknown_sil(&self) -> bool {
        matches!(self, Op::Sil(o) if o.info().is_none())
    }

    pub fn is_terminator(&self) -> bool {
        match self {
            Op::Bril(o) => matches!(o, BrilOp::Jmp | BrilOp::Br | BrilOp::Ret | BrilOp::Guard),
            Op::Sil(o) => o.info().is_some_and(InstInfo::is_terminator),
        }
    }

    /// Whether control leaves the function here (`ret`, `return`, `throw`, `unreachable`).
    pub fn is_function_exit(&self) -> bool {
        match self {
            Op::Bril(o) => *o == BrilOp::Ret,
            Op::Sil(o) => o.info().is_some_and(InstInfo::is_function_exit),
        }
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
            Op::Sil(SilOp::Builtin) if builtin_name.is_some_and(is_pure_builtin) => Pure,
            Op::Sil(o) => o.info().map_or(SideEffect, InstInfo::effect),
        }
    }

    /// Whether evaluating the operation can fail at run time (division by zero, a failed
    /// cast); such operations may be removed when dead but never moved onto a new path.
    pub fn may_trap(&self) -> bool {
        match self {
            Op::Bril(o) => *o == BrilOp::Div,
            Op::Sil(o) => o.info().is_some_and(InstInfo::may_trap),
        }
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
