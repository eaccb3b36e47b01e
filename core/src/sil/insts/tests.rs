use super::*;
use crate::ir::{Op, SilOp};
use std::collections::HashSet;

#[test]
fn mnemonics_are_unique_and_every_variant_has_an_entry() {
    let mut seen = HashSet::new();
    for e in all() {
        assert!(seen.insert(e.name), "`{}` appears twice", e.name);
        assert_eq!(lookup(e.name).map(|x| x.name), Some(e.name));
    }
    for n in SilOp::NAMES {
        assert!(lookup(n).is_some(), "SilOp variant `{n}` has no table entry");
        assert_eq!(SilOp::from_name(n).info().map(|e| e.name), Some(*n));
    }
    assert!(lookup("frobnicate_value").is_none());
}

#[test]
fn operand_and_result_positions_are_consistent() {
    for e in all() {
        if let Some(Own::Forwarded(k)) = e.result_own() {
            assert!(e.operand(k as usize).is_some(), "`{}` forwards a missing operand {k}", e.name);
        }
        if e.is_terminator() {
            assert!(e.has_no_results(), "terminator `{}` defines values", e.name);
        }
        if e.projects_address() {
            assert_ne!(e.result(0).map(|v| v.form), Some(Form::Object), "`{}` projects an address", e.name);
        }
        if e.proj == Proj::Value {
            assert_ne!(e.result(0).map(|v| v.form), Some(Form::Address), "`{}` projects a value", e.name);
        }
    }
}

#[test]
fn unmodelled_instructions_get_facts_from_the_table() {
    let op = |n: &str| Op::Sil(SilOp::from_name(n));
    assert!(matches!(op("unchecked_take_enum_data_addr"), Op::Sil(SilOp::Other(_))));
    assert!(!op("unchecked_take_enum_data_addr").is_terminator());
    assert!(op("checked_cast_addr_br").is_terminator());
    assert!(op("return_borrow").is_function_exit());
    assert_eq!(op("inject_enum_addr").effect(None), Effect::SideEffect);
    assert_eq!(op("unchecked_value_cast").effect(None), Effect::Pure);
    assert_eq!(op("select_enum_addr").effect(None), Effect::ReadsMemory);
    assert!(op("load_unowned").may_trap());
    assert_eq!(op("no_such_instruction").effect(None), Effect::SideEffect);
}
