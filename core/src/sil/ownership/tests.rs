//! Unit tests of the rules on small functions (the corpus and property suites are in
//! `core/tests/ownership_*.rs`).

use super::*;
use crate::ir::Lang;
use crate::sil::types::{env_of, FunctionTypes};

fn run(src: &str) -> Vec<(String, Vec<Category>)> {
    let m = crate::parse_module(Lang::Sil, "t.sil", src).expect("parses");
    let env = env_of(&m);
    m.bodies()
        .map(|f| {
            let fo = analyze(f, &FunctionTypes::new(f, env.clone()));
            let v = verify(f, &fo);
            (f.name.clone(), v.findings.iter().map(|x| x.category).collect())
        })
        .collect()
}

const HEAD: &str = "sil_stage canonical\nimport Builtin\nclass K {}\n";

#[test]
fn a_balanced_owned_argument_is_silent_and_a_dropped_destroy_is_a_parameter_error() {
    let ok = format!("{HEAD}sil [ossa] @f : $@convention(thin) (@owned K) -> () {{\nbb0(%0 : @owned $K):\n  destroy_value %0 : $K\n  %r = tuple ()\n  return %r : $()\n}}\n");
    assert_eq!(run(&ok), vec![("f".into(), vec![])]);
    let leak = ok.replace("  destroy_value %0 : $K\n", "");
    assert_eq!(run(&leak)[0].1, vec![Category::OwnedParameterWithoutLifetimeEnd]);
}

#[test]
fn a_copy_never_destroyed_leaks_unless_its_block_is_a_dead_end() {
    let src = format!("{HEAD}sil [ossa] @f : $@convention(thin) (@guaranteed K) -> () {{\nbb0(%0 : @guaranteed $K):\n  %1 = copy_value %0 : $K\n  %r = tuple ()\n  return %r : $()\n}}\n");
    assert_eq!(run(&src)[0].1, vec![Category::LeakNeverConsumed]);
    let dead = src.replace("  %r = tuple ()\n  return %r : $()\n", "  unreachable\n");
    assert_eq!(run(&dead)[0].1, vec![]);
}

#[test]
fn non_ossa_functions_are_not_checked() {
    let src = format!("{HEAD}sil @f : $@convention(thin) (@owned K) -> () {{\nbb0(%0 : $K):\n  %r = tuple ()\n  return %r : $()\n}}\n");
    let m = crate::parse_module(Lang::Sil, "t.sil", &src).unwrap();
    let f = &m.functions[1.min(m.functions.len() - 1)];
    let f = m.bodies().next().unwrap_or(f);
    let fo = analyze(f, &FunctionTypes::new(f, env_of(&m)));
    let v = verify(f, &fo);
    assert!(!v.checked);
    assert!(v.note.unwrap().contains("not an OSSA function"));
}

/// `analyze_kinds` is `analyze_operands` without texts: the same kinds, sources and operand
/// constraints on Swift's OSSA DCE tests, with every name and reason left empty; and
/// `analyze_constraints` holds its kinds and constraints.
#[test]
fn analyze_kinds_is_analyze_operands_without_names() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/swift/dead_code_elimination_ossa.sil");
    let src = std::fs::read_to_string(path).expect("the shared corpus (../shared/corpus) is present");
    let m = crate::parse_module(Lang::Sil, "t.sil", &src).expect("parses");
    let env = env_of(&m);
    let (mut values, mut lifetimes) = (0, 0);
    for f in m.bodies() {
        let ft = FunctionTypes::new(f, env.clone());
        let (full, lean) = (analyze_operands(f, &ft), analyze_kinds(f, &ft));
        assert_eq!(full.values.len(), lean.values.len());
        for (a, b) in full.values.iter().zip(&lean.values) {
            assert!(b.name.is_empty() && !a.name.is_empty());
            assert!(b.why.is_empty() && !a.why.is_empty());
            assert_eq!(a.from, b.from);
            assert_eq!((a.value, a.kind, a.source, a.block, a.assumed, a.reborrow), (b.value, b.kind, b.source, b.block, b.assumed, b.reborrow));
            values += 1;
        }
        assert_eq!(full.operands.len(), lean.operands.len());
        for (a, b) in full.operands.iter().zip(&lean.operands) {
            assert_eq!((a.inst, a.slot, a.value, a.constraint, a.compatible), (b.inst, b.slot, b.value, b.constraint, b.compatible));
            assert!(b.why.is_empty() && !a.why.is_empty());
        }
        // The compact tables hold the same kinds, lifetimes and constraints.
        let c = analyze_constraints(f, &ft);
        let kinds: Vec<Kind> = f.values.keys().map(|v| full.kind(v)).collect();
        assert_eq!(c.kinds, kinds, "@{}", f.name);
        let with_lifetime: Vec<bool> = f.values.keys().map(|v| full.value(v).is_some_and(|x| x.kind == Kind::Owned && x.block.is_some())).collect();
        assert_eq!(c.has_lifetime, with_lifetime, "@{}", f.name);
        let briefs: Vec<OperandBrief> = full.operands.iter().map(|o| OperandBrief { inst: o.inst, value: o.value, ending: o.constraint.ending, compatible: o.compatible }).collect();
        assert_eq!(c.operands, briefs, "@{}", f.name);
        lifetimes += c.has_lifetime.iter().filter(|&&x| x).count();
    }
    assert!(values > 100 && lifetimes > 10, "the corpus file has OSSA functions ({values} values, {lifetimes} owned)");
}
