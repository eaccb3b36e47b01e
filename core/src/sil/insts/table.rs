//! The data: one row per instruction of Swift's `docs/SIL/Instructions.md`, in the order of
//! its sections, then the few instructions Swift's parser accepts that the reference does not
//! document (marked `extra`). Facts come from the reference, `SIL.md` and `Ownership.md`;
//! the rows are this lab's own summary of them.
//!
//! Columns: mnemonic, category, memory, other effects, terminator kind, fixed operands, the
//! repeated operand after them, results, projection. Operands are `o(..)` objects, `a(..)`
//! addresses, `x(..)` either; their argument is what the operand does with its value.
//!
//! Two modelling choices follow the lab's passes rather than the run-time cost: an owned copy
//! (`copy_value`) is a value operation, not a reference-count effect, because its lifetime
//! end is a separate instruction that uses it; and debug or lifetime markers that use a value
//! (`debug_value`, `fix_lifetime`) have no effect of their own, because they live exactly as
//! long as the value they describe.

use super::kinds::Category::*;
use super::kinds::Use::*;
use super::kinds::{Category, Form, Fx, Mem, Operand, Own, Proj, Results, Term, Use, Value};
use super::InstInfo;

const fn o(u: Use) -> Operand {
    Operand { form: Form::Object, use_: u }
}
const fn a(u: Use) -> Operand {
    Operand { form: Form::Address, use_: u }
}
const fn x(u: Use) -> Operand {
    Operand { form: Form::Either, use_: u }
}
const fn v(form: Form, own: Own) -> Value {
    Value { form, own }
}

const M0: Mem = Mem::None;
const MR: Mem = Mem::Reads;
const MW: Mem = Mem::Writes;
const MRW: Mem = Mem::ReadsWrites;

const F0: Fx = Fx::NONE;
const CALL: Fx = Fx::CALL;
const TRAP: Fx = Fx::TRAP;
const RC: Fx = Fx::RC;
const SCOPE: Fx = Fx::SCOPE;
const ALLOC: Fx = Fx::ALLOC;
const MARK: Fx = Fx::MARKER;
const OPENS: Fx = Fx::OPENS;

const NT: Term = Term::No;
const EXIT: Term = Term::Exit;
const BR: Term = Term::Branch;

const NO: Option<Operand> = None;
const P0: Proj = Proj::No;
const PA: Proj = Proj::Address;
const PI: Proj = Proj::InteriorPointer;
const PV: Proj = Proj::Value;

const R0: Results = Results::Fixed(&[]);
/// An address without ownership.
const RA: Results = Results::Fixed(&[v(Form::Address, Own::None)]);
/// An object without ownership (trivial values, literals, method lookups).
const RN: Results = Results::Fixed(&[v(Form::Object, Own::None)]);
const ROWN: Results = Results::Fixed(&[v(Form::Object, Own::Owned)]);
const RG: Results = Results::Fixed(&[v(Form::Object, Own::Guaranteed)]);
const RU: Results = Results::Fixed(&[v(Form::Object, Own::Unowned)]);
const RF0: Results = Results::Fixed(&[v(Form::Object, Own::Forwarded(0))]);
const RF1: Results = Results::Fixed(&[v(Form::Object, Own::Forwarded(1))]);
const RXF0: Results = Results::Fixed(&[v(Form::Either, Own::Forwarded(0))]);
const RXN: Results = Results::Fixed(&[v(Form::Either, Own::None)]);
const RFA: Results = Results::Fixed(&[v(Form::Object, Own::ForwardedAll)]);
const RCONV: Results = Results::Fixed(&[v(Form::Object, Own::Convention)]);
const RATTR: Results = Results::Fixed(&[v(Form::Object, Own::ByAttribute)]);

#[allow(clippy::too_many_arguments)]
const fn doc(
    name: &'static str,
    category: Category,
    mem: Mem,
    fx: Fx,
    term: Term,
    operands: &'static [Operand],
    rest: Option<Operand>,
    results: Results,
    proj: Proj,
) -> InstInfo {
    InstInfo { name, category, mem, fx, term, operands, rest, results, proj, documented: true }
}

#[allow(clippy::too_many_arguments)]
const fn extra(
    name: &'static str,
    category: Category,
    mem: Mem,
    fx: Fx,
    term: Term,
    operands: &'static [Operand],
    rest: Option<Operand>,
    results: Results,
    proj: Proj,
) -> InstInfo {
    InstInfo { name, category, mem, fx, term, operands, rest, results, proj, documented: false }
}

#[rustfmt::skip]
pub(super) const TABLE: &[InstInfo] = &[
    // Allocation and deallocation.
    doc("alloc_stack", Allocation, M0, ALLOC, NT, &[], NO, RA, P0),
    doc("alloc_pack", Allocation, M0, ALLOC, NT, &[], NO, RA, P0),
    doc("alloc_pack_metadata", Allocation, M0, ALLOC, NT, &[], NO, RN, P0),
    doc("alloc_ref", Allocation, M0, ALLOC, NT, &[], Some(o(Trivial)), ROWN, P0),
    doc("alloc_ref_dynamic", Allocation, M0, ALLOC, NT, &[], Some(o(Trivial)), ROWN, P0),
    doc("alloc_box", Allocation, M0, ALLOC, NT, &[], NO, ROWN, P0),
    doc("alloc_global", Allocation, MW, ALLOC, NT, &[], NO, R0, P0),
    doc("get_async_continuation", Allocation, M0, SCOPE, NT, &[], NO, RN, P0),
    doc("get_async_continuation_addr", Allocation, MW, SCOPE, NT, &[a(Trivial)], NO, RN, P0),
    doc("hop_to_executor", Allocation, MRW, CALL, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("extract_executor", Allocation, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("merge_isolation_region", Allocation, M0, MARK, NT, &[], Some(x(Instantaneous)), R0, P0),
    doc("dealloc_stack", Allocation, M0, ALLOC, NT, &[a(Trivial)], NO, R0, P0),
    doc("dealloc_pack", Allocation, M0, ALLOC, NT, &[a(Trivial)], NO, R0, P0),
    doc("dealloc_pack_metadata", Allocation, M0, ALLOC, NT, &[o(Trivial)], NO, R0, P0),
    doc("dealloc_box", Allocation, M0, ALLOC, NT, &[o(DestroyingConsume)], NO, R0, P0),
    doc("project_box", Allocation, M0, F0, NT, &[o(AnyInteriorPointer)], NO, RA, PI),
    doc("dealloc_stack_ref", Allocation, M0, ALLOC, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("dealloc_ref", Allocation, M0, ALLOC, NT, &[o(DestroyingConsume)], NO, R0, P0),
    doc("dealloc_partial_ref", Allocation, M0, ALLOC.with(CALL), NT, &[o(DestroyingConsume), o(Trivial)], NO, R0, P0),
    // Debug information, testing, profiling.
    doc("debug_value", Debug, M0, F0, NT, &[x(Instantaneous)], NO, R0, P0),
    doc("debug_step", Debug, M0, MARK, NT, &[], NO, R0, P0),
    doc("specify_test", Testing, M0, MARK, NT, &[], NO, R0, P0),
    doc("increment_profiler_counter", Profiling, MW, F0, NT, &[], NO, R0, P0),
    // Accessing memory.
    doc("load", MemoryAccess, MR, F0, NT, &[a(Trivial)], NO, RATTR, P0),
    doc("store", MemoryAccess, MW, F0, NT, &[o(ByAttribute), a(Trivial)], NO, R0, P0),
    doc("load_borrow", MemoryAccess, MR, F0, NT, &[a(Trivial)], NO, RG, P0),
    doc("store_borrow", MemoryAccess, MW, F0, NT, &[o(Borrow), a(Trivial)], NO, RA, P0),
    doc("begin_borrow", MemoryAccess, M0, F0, NT, &[o(Borrow)], NO, RG, P0),
    doc("end_borrow", MemoryAccess, M0, SCOPE, NT, &[x(EndBorrow)], NO, R0, P0),
    doc("borrowed", MemoryAccess, M0, F0, NT, &[o(Forwarding)], Some(o(Instantaneous)), RG, P0),
    doc("end_lifetime", MemoryAccess, M0, SCOPE, NT, &[x(DestroyingConsume)], NO, R0, P0),
    doc("extend_lifetime", MemoryAccess, M0, MARK, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("assign", MemoryAccess, MRW, RC.with(CALL), NT, &[o(DestroyingConsume), a(Trivial)], NO, R0, P0),
    doc("assign_or_init", MemoryAccess, MRW, CALL, NT, &[x(Instantaneous), o(DestroyingConsume), o(Instantaneous), o(Instantaneous)], NO, R0, P0),
    doc("mark_uninitialized", MemoryAccess, M0, F0, NT, &[x(Forwarding)], NO, RXF0, P0),
    doc("mark_function_escape", MemoryAccess, M0, MARK, NT, &[], Some(a(Trivial)), R0, P0),
    doc("mark_uninitialized_behavior", MemoryAccess, M0, MARK, NT, &[], Some(x(Instantaneous)), R0, P0),
    doc("unchecked_ownership", MemoryAccess, M0, MARK, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("copy_addr", MemoryAccess, MRW, RC.with(CALL), NT, &[a(Trivial), a(Trivial)], NO, R0, P0),
    doc("explicit_copy_addr", MemoryAccess, MRW, RC.with(CALL), NT, &[a(Trivial), a(Trivial)], NO, R0, P0),
    doc("destroy_addr", MemoryAccess, MRW, RC.with(CALL), NT, &[a(Trivial)], NO, R0, P0),
    doc("tuple_addr_constructor", MemoryAccess, MRW, RC.with(CALL), NT, &[a(Trivial)], Some(x(DestroyingConsume)), R0, P0),
    doc("index_addr", MemoryAccess, M0, F0, NT, &[a(Trivial), o(Trivial)], NO, RA, PA),
    doc("tail_addr", MemoryAccess, M0, F0, NT, &[a(Trivial), o(Trivial)], NO, RA, PA),
    doc("index_raw_pointer", MemoryAccess, M0, F0, NT, &[o(Trivial), o(Trivial)], NO, RN, P0),
    doc("bind_memory", MemoryAccess, MW, F0, NT, &[o(Trivial), o(Trivial)], NO, RN, P0),
    doc("rebind_memory", MemoryAccess, MW, F0, NT, &[o(Trivial), o(Trivial)], NO, RN, P0),
    doc("begin_access", MemoryAccess, M0, SCOPE.with(TRAP), NT, &[a(Trivial)], NO, RA, P0),
    doc("end_access", MemoryAccess, M0, SCOPE, NT, &[a(Trivial)], NO, R0, P0),
    doc("begin_unpaired_access", MemoryAccess, MW, SCOPE.with(TRAP), NT, &[a(Trivial), a(Trivial)], NO, R0, P0),
    doc("end_unpaired_access", MemoryAccess, MW, SCOPE, NT, &[a(Trivial)], NO, R0, P0),
    // Reference counting.
    doc("strong_retain", ReferenceCounting, M0, RC, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("strong_release", ReferenceCounting, MRW, RC.with(CALL), NT, &[o(Instantaneous)], NO, R0, P0),
    doc("begin_dealloc_ref", ReferenceCounting, M0, SCOPE, NT, &[o(Forwarding), o(NonUse)], NO, RF0, P0),
    doc("end_init_let_ref", ReferenceCounting, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("strong_copy_unowned_value", ReferenceCounting, M0, TRAP, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("strong_retain_unowned", ReferenceCounting, M0, RC.with(TRAP), NT, &[o(Instantaneous)], NO, R0, P0),
    doc("unowned_retain", ReferenceCounting, M0, RC, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("unowned_release", ReferenceCounting, M0, RC, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("load_weak", ReferenceCounting, MR, F0, NT, &[a(Trivial)], NO, ROWN, P0),
    doc("strong_copy_weak_value", ReferenceCounting, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("store_weak", ReferenceCounting, MW, RC, NT, &[o(Instantaneous), a(Trivial)], NO, R0, P0),
    doc("weak_copy_value", ReferenceCounting, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("load_unowned", ReferenceCounting, MR, TRAP, NT, &[a(Trivial)], NO, ROWN, P0),
    doc("store_unowned", ReferenceCounting, MW, RC, NT, &[o(Instantaneous), a(Trivial)], NO, R0, P0),
    doc("unowned_copy_value", ReferenceCounting, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("fix_lifetime", ReferenceCounting, M0, F0, NT, &[x(Instantaneous)], NO, R0, P0),
    doc("mark_dependence", ReferenceCounting, M0, F0, NT, &[x(Forwarding), x(Instantaneous)], NO, RXF0, P0),
    doc("mark_dependence_addr", ReferenceCounting, M0, MARK, NT, &[a(Trivial), x(Instantaneous)], NO, R0, P0),
    doc("is_unique", ReferenceCounting, MR, F0, NT, &[a(Trivial)], NO, RN, P0),
    doc("begin_cow_mutation", ReferenceCounting, MR, SCOPE, NT, &[o(ForwardingConsume)], NO,
        Results::Fixed(&[v(Form::Object, Own::None), v(Form::Object, Own::Owned)]), P0),
    doc("end_cow_mutation", ReferenceCounting, M0, SCOPE, NT, &[o(ForwardingConsume)], NO, ROWN, P0),
    doc("end_cow_mutation_addr", ReferenceCounting, M0, SCOPE, NT, &[a(Trivial)], NO, R0, P0),
    doc("destroy_not_escaped_closure", ReferenceCounting, MRW, RC.with(CALL), NT, &[o(DestroyingConsume)], NO, RN, P0),
    doc("copy_block", ReferenceCounting, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("copy_block_without_escaping", ReferenceCounting, M0, F0, NT, &[o(Instantaneous), o(ForwardingConsume)], NO, ROWN, P0),
    // Literals.
    doc("function_ref", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("dynamic_function_ref", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("prev_dynamic_function_ref", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("global_addr", Literals, M0, F0, NT, &[], Some(o(Trivial)), RA, P0),
    doc("global_value", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("integer_literal", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("float_literal", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("string_literal", Literals, M0, F0, NT, &[], NO, RN, P0),
    doc("base_addr_for_offset", Literals, M0, F0, NT, &[], NO, RA, P0),
    // Dynamic dispatch.
    doc("class_method", DynamicDispatch, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("objc_method", DynamicDispatch, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("com_method", DynamicDispatch, M0, F0, NT, &[x(Instantaneous)], NO, RN, P0),
    doc("super_method", DynamicDispatch, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("objc_super_method", DynamicDispatch, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("witness_method", DynamicDispatch, M0, F0, NT, &[], Some(x(NonUse)), RN, P0),
    // Function application.
    doc("apply", FunctionApplication, MRW, CALL, NT, &[o(Convention)], Some(x(Convention)), RCONV, P0),
    doc("begin_apply", FunctionApplication, MRW, CALL.with(SCOPE), NT, &[o(Convention)], Some(x(Convention)),
        Results::Variadic(v(Form::Either, Own::Convention)), P0),
    doc("abort_apply", FunctionApplication, MRW, CALL.with(SCOPE), NT, &[o(Trivial)], NO, R0, P0),
    doc("end_apply", FunctionApplication, MRW, CALL.with(SCOPE), NT, &[o(Trivial)], NO, RCONV, P0),
    doc("partial_apply", FunctionApplication, M0, ALLOC, NT, &[o(Instantaneous)], Some(x(ByAttribute)), ROWN, P0),
    doc("builtin", FunctionApplication, MRW, CALL.with(TRAP), NT, &[], Some(x(Instantaneous)), ROWN, P0),
    // Metatypes.
    doc("metatype", Metatypes, M0, F0, NT, &[], NO, RN, P0),
    doc("value_metatype", Metatypes, M0, F0, NT, &[x(Instantaneous)], NO, RN, P0),
    doc("existential_metatype", Metatypes, M0, F0, NT, &[x(Instantaneous)], NO, RN, P0),
    doc("objc_protocol", Metatypes, M0, F0, NT, &[], NO, RN, P0),
    // Aggregate types (and the value copies and destroys the reference lists with them).
    doc("retain_value", Aggregates, M0, RC, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("retain_value_addr", Aggregates, MR, RC, NT, &[a(Trivial)], NO, R0, P0),
    doc("unmanaged_retain_value", Aggregates, M0, RC, NT, &[o(Instantaneous)], NO, R0, P0),
    doc("strong_copy_unmanaged_value", Aggregates, M0, F0, NT, &[o(Trivial)], NO, ROWN, P0),
    doc("copy_value", Aggregates, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("explicit_copy_value", Aggregates, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("move_value", Aggregates, M0, F0, NT, &[o(ForwardingConsume)], NO, ROWN, P0),
    doc("drop_deinit", Aggregates, M0, SCOPE, NT, &[x(Forwarding)], NO, RXF0, P0),
    doc("release_value", Aggregates, MRW, RC.with(CALL), NT, &[o(Instantaneous)], NO, R0, P0),
    doc("release_value_addr", Aggregates, MRW, RC.with(CALL), NT, &[a(Trivial)], NO, R0, P0),
    doc("unmanaged_release_value", Aggregates, MRW, RC.with(CALL), NT, &[o(Instantaneous)], NO, R0, P0),
    doc("destroy_value", Aggregates, MRW, RC.with(CALL), NT, &[o(DestroyingConsume)], NO, R0, P0),
    doc("autorelease_value", Aggregates, M0, RC, NT, &[o(ForwardingConsume)], NO, R0, P0),
    doc("function_extract_isolation", Aggregates, M0, F0, NT, &[o(GuaranteedForwarding)], NO, RG, PV),
    doc("tuple", Aggregates, M0, F0, NT, &[], Some(o(Forwarding)), RFA, P0),
    doc("tuple_extract", Aggregates, M0, F0, NT, &[o(GuaranteedForwarding)], NO, RF0, PV),
    doc("tuple_pack_extract", Aggregates, M0, F0, NT, &[o(Trivial), o(GuaranteedForwarding)], NO, RF1, PV),
    doc("tuple_element_addr", Aggregates, M0, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("tuple_pack_element_addr", Aggregates, M0, F0, NT, &[o(Trivial), a(Trivial)], NO, RA, PA),
    doc("destructure_tuple", Aggregates, M0, F0, NT, &[o(Forwarding)], NO, Results::Variadic(v(Form::Object, Own::Forwarded(0))), PV),
    doc("struct", Aggregates, M0, F0, NT, &[], Some(o(Forwarding)), RFA, P0),
    doc("struct_extract", Aggregates, M0, F0, NT, &[o(GuaranteedForwarding)], NO, RF0, PV),
    doc("struct_element_addr", Aggregates, M0, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("destructure_struct", Aggregates, M0, F0, NT, &[o(Forwarding)], NO, Results::Variadic(v(Form::Object, Own::Forwarded(0))), PV),
    doc("object", Aggregates, M0, F0, NT, &[], Some(o(Instantaneous)), ROWN, P0),
    doc("vector", Aggregates, M0, F0, NT, &[], Some(o(Instantaneous)), RN, P0),
    doc("vector_base_addr", Aggregates, M0, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("ref_element_addr", Aggregates, M0, F0, NT, &[o(InteriorPointer)], NO, RA, PI),
    doc("ref_tail_addr", Aggregates, M0, F0, NT, &[o(InteriorPointer)], NO, RA, PI),
    // Enums.
    doc("enum", Enums, M0, F0, NT, &[], Some(o(Forwarding)), RF0, P0),
    doc("unchecked_enum_data", Enums, M0, F0, NT, &[o(Forwarding)], NO, RF0, PV),
    doc("init_enum_data_addr", Enums, M0, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("inject_enum_addr", Enums, MW, F0, NT, &[a(Trivial)], NO, R0, P0),
    doc("unchecked_take_enum_data_addr", Enums, MRW, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("unchecked_borrow_enum_data_addr", Enums, MRW, F0, NT, &[a(Trivial), a(Trivial)], NO, RA, PA),
    doc("unchecked_inplace_enum_data_addr", Enums, M0, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("select_enum", Enums, M0, F0, NT, &[o(Instantaneous)], Some(o(Instantaneous)), RN, P0),
    doc("select_enum_addr", Enums, MR, F0, NT, &[a(Trivial)], Some(o(Instantaneous)), RN, P0),
    // Protocol and protocol composition types.
    doc("init_existential_addr", Existentials, MW, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("init_existential_value", Existentials, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("deinit_existential_addr", Existentials, MW, F0, NT, &[a(Trivial)], NO, R0, P0),
    doc("deinit_existential_value", Existentials, M0, ALLOC, NT, &[o(DestroyingConsume)], NO, R0, P0),
    doc("open_existential_addr", Existentials, MR, OPENS, NT, &[a(Trivial)], NO, RA, PA),
    doc("open_existential_value", Existentials, M0, OPENS, NT, &[o(Forwarding)], NO, RF0, PV),
    doc("init_existential_ref", Existentials, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("open_existential_ref", Existentials, M0, OPENS, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("open_com_existential", Existentials, M0, OPENS, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("init_existential_metatype", Existentials, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("open_existential_metatype", Existentials, M0, OPENS, NT, &[o(Trivial)], NO, RN, P0),
    doc("alloc_existential_box", Existentials, M0, ALLOC, NT, &[], NO, ROWN, P0),
    doc("project_existential_box", Existentials, M0, F0, NT, &[o(AnyInteriorPointer)], NO, RA, PI),
    doc("open_existential_box", Existentials, M0, OPENS, NT, &[o(AnyInteriorPointer)], NO, RA, PI),
    doc("open_existential_box_value", Existentials, M0, OPENS, NT, &[o(GuaranteedForwarding)], NO, RF0, PV),
    doc("dealloc_existential_box", Existentials, M0, ALLOC, NT, &[o(DestroyingConsume)], NO, R0, P0),
    // Blocks.
    doc("project_block_storage", Blocks, M0, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("init_block_storage_header", Blocks, MW, F0, NT, &[a(Trivial), o(Instantaneous)], NO, RN, P0),
    // Pack indexing, variadic and value generics.
    doc("scalar_pack_index", PackIndexing, M0, F0, NT, &[], NO, RN, P0),
    doc("pack_pack_index", PackIndexing, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("dynamic_pack_index", PackIndexing, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("pack_length", VariadicGenerics, M0, F0, NT, &[], NO, RN, P0),
    doc("open_pack_element", VariadicGenerics, M0, MARK.with(OPENS), NT, &[o(Trivial)], NO, RN, P0),
    doc("pack_element_get", VariadicGenerics, MR, F0, NT, &[o(Trivial), a(Trivial)], NO, RXN, PA),
    doc("pack_element_set", VariadicGenerics, MW, F0, NT, &[x(Trivial), o(Trivial), a(Trivial)], NO, R0, P0),
    doc("type_value", ValueGenerics, M0, F0, NT, &[], NO, RN, P0),
    // Unchecked conversions.
    doc("upcast", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("address_to_pointer", UncheckedConversions, M0, F0, NT, &[a(BitwiseEscape)], NO, RN, P0),
    doc("pointer_to_address", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RA, P0),
    doc("unchecked_ref_cast", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("unchecked_ref_cast_addr", UncheckedConversions, MRW, F0, NT, &[a(Trivial), a(Trivial)], NO, R0, P0),
    doc("unchecked_addr_cast", UncheckedConversions, M0, F0, NT, &[a(Trivial)], NO, RA, P0),
    doc("unchecked_trivial_bit_cast", UncheckedConversions, M0, F0, NT, &[o(BitwiseEscape)], NO, RN, P0),
    doc("unchecked_bitwise_cast", UncheckedConversions, M0, F0, NT, &[o(BitwiseEscape)], NO, RU, P0),
    doc("unchecked_value_cast", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("unchecked_ownership_conversion", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RATTR, P0),
    doc("ref_to_raw_pointer", UncheckedConversions, M0, F0, NT, &[o(BitwiseEscape)], NO, RN, P0),
    doc("raw_pointer_to_ref", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RU, P0),
    doc("ref_to_unowned", UncheckedConversions, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("unowned_to_ref", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RU, P0),
    doc("ref_to_unmanaged", UncheckedConversions, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("unmanaged_to_ref", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RU, P0),
    doc("convert_function", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("convert_escape_to_noescape", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("thunk", UncheckedConversions, M0, F0, NT, &[o(Instantaneous)], NO, ROWN, P0),
    doc("classify_bridge_object", UncheckedConversions, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("value_to_bridge_object", UncheckedConversions, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("ref_to_bridge_object", UncheckedConversions, M0, F0, NT, &[o(Forwarding), o(Trivial)], NO, RF0, P0),
    doc("bridge_object_to_ref", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("bridge_object_to_word", UncheckedConversions, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("thin_to_thick_function", UncheckedConversions, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("thick_to_objc_metatype", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("objc_to_thick_metatype", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("objc_metatype_to_object", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("objc_existential_metatype_to_object", UncheckedConversions, M0, F0, NT, &[o(Trivial)], NO, RN, P0),
    doc("cast_implicitactor_to_opaqueisolation", UncheckedConversions, M0, F0, NT, &[o(GuaranteedForwarding)], NO, RG, P0),
    // Checked conversions and runtime failures.
    doc("unconditional_checked_cast", CheckedConversions, M0, TRAP, NT, &[x(Forwarding)], NO, RXF0, P0),
    doc("unconditional_checked_cast_addr", CheckedConversions, MRW, TRAP.with(RC), NT, &[a(Trivial), a(Trivial)], NO, R0, P0),
    doc("cond_fail", RuntimeFailures, M0, TRAP, NT, &[o(Instantaneous)], NO, R0, P0),
    // Terminators. A branch's arguments are its successors' (they take the phi's ownership).
    doc("unreachable", Terminators, M0, F0, Term::Unreachable, &[], NO, R0, P0),
    doc("return", Terminators, M0, F0, EXIT, &[x(ForwardingConsume)], NO, R0, P0),
    doc("return_borrow", Terminators, M0, F0, EXIT, &[o(GuaranteedForwarding)], Some(o(EndBorrow)), R0, P0),
    doc("throw", Terminators, M0, F0, EXIT, &[x(ForwardingConsume)], NO, R0, P0),
    doc("throw_addr", Terminators, M0, F0, EXIT, &[], NO, R0, P0),
    doc("yield", Terminators, MRW, CALL, BR, &[], Some(x(Convention)), R0, P0),
    doc("unwind", Terminators, M0, F0, EXIT, &[], NO, R0, P0),
    doc("br", Terminators, M0, F0, BR, &[], NO, R0, P0),
    doc("cond_br", Terminators, M0, F0, BR, &[o(Instantaneous)], NO, R0, P0),
    doc("switch_value", Terminators, M0, F0, BR, &[o(Instantaneous)], Some(o(Instantaneous)), R0, P0),
    doc("switch_enum", Terminators, M0, F0, BR, &[o(Forwarding)], NO, R0, P0),
    doc("switch_enum_addr", Terminators, MR, F0, BR, &[a(Trivial)], NO, R0, P0),
    doc("dynamic_method_br", Terminators, M0, F0, BR, &[o(Instantaneous)], NO, R0, P0),
    doc("checked_cast_br", Terminators, M0, F0, BR, &[x(Forwarding)], NO, R0, P0),
    doc("checked_cast_addr_br", Terminators, MRW, F0, BR, &[a(Trivial)], Some(a(Trivial)), R0, P0),
    doc("try_apply", Terminators, MRW, CALL, BR, &[o(Convention)], Some(x(Convention)), R0, P0),
    doc("await_async_continuation", Terminators, MRW, CALL, BR, &[o(Trivial)], NO, R0, P0),
    // Differentiable programming.
    doc("differentiable_function", Differentiable, M0, F0, NT, &[o(Forwarding)], Some(o(Forwarding)), RFA, P0),
    doc("linear_function", Differentiable, M0, F0, NT, &[o(Forwarding)], Some(o(Forwarding)), RFA, P0),
    doc("differentiable_function_extract", Differentiable, M0, F0, NT, &[o(GuaranteedForwarding)], NO, RF0, PV),
    doc("linear_function_extract", Differentiable, M0, F0, NT, &[o(GuaranteedForwarding)], NO, RF0, PV),
    doc("differentiability_witness_function", Differentiable, M0, F0, NT, &[], NO, RN, P0),
    // Optimizer dataflow markers, move-only wrappers, weak linking.
    doc("mark_unresolved_non_copyable_value", Markers, M0, F0, NT, &[x(Forwarding)], NO, RXF0, P0),
    doc("end_formal_scope", Markers, M0, MARK, NT, &[x(Instantaneous)], NO, R0, P0),
    doc("copyable_to_moveonlywrapper", MoveOnly, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("moveonlywrapper_to_copyable", MoveOnly, M0, F0, NT, &[o(Forwarding)], NO, RF0, P0),
    doc("copyable_to_moveonlywrapper_addr", MoveOnly, M0, F0, NT, &[a(Trivial)], NO, RA, P0),
    doc("moveonlywrapper_to_copyable_addr", MoveOnly, M0, F0, NT, &[a(Trivial)], NO, RA, P0),
    doc("has_symbol", WeakLinking, M0, F0, NT, &[], NO, RN, P0),
    // Builtin.Borrow.
    doc("make_borrow", BorrowBuiltin, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    doc("dereference_borrow", BorrowBuiltin, M0, F0, NT, &[o(Trivial)], NO, RG, P0),
    doc("make_addr_borrow", BorrowBuiltin, M0, F0, NT, &[a(Trivial)], NO, RN, P0),
    doc("dereference_borrow_addr", BorrowBuiltin, MR, F0, NT, &[a(Trivial)], NO, RA, PA),
    doc("init_borrow_addr", BorrowBuiltin, MW, F0, NT, &[a(Trivial), a(Trivial)], NO, R0, P0),
    doc("dereference_addr_borrow", BorrowBuiltin, M0, F0, NT, &[o(Trivial)], NO, RA, P0),
    // Miscellaneous: a use that is dead code once diagnostics have run.
    doc("ignored_use", Miscellaneous, M0, F0, NT, &[x(Instantaneous)], NO, R0, P0),
    // Accepted by Swift's parser and seen in its tests, not documented in the reference.
    extra("select_value", Enums, M0, F0, NT, &[o(Instantaneous)], Some(o(Instantaneous)), RN, P0),
    extra("keypath", FunctionApplication, M0, ALLOC, NT, &[], Some(o(Instantaneous)), ROWN, P0),
    extra("alloc_vector", Allocation, M0, ALLOC, NT, &[o(Trivial)], NO, RA, P0),
    extra("is_escaping_closure", ReferenceCounting, M0, F0, NT, &[o(Instantaneous)], NO, RN, P0),
    extra("copy_unowned_value", ReferenceCounting, M0, TRAP, NT, &[o(Instantaneous)], NO, ROWN, P0),
    extra("unmanaged_copy_value", ReferenceCounting, M0, F0, NT, &[o(Trivial)], NO, ROWN, P0),
];
