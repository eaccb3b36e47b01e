//! Golden files for SIL type classification: seed 002's vectors (Box, Transform, Phantom with
//! Int, NSObject, Any and `() -> ()`, and the what-if substitutions of their generic form),
//! one row per line of the type-lowering rule table (`rules.sil`, plus the resilience
//! assumption), and the declarations of Swift's own `address_lowering.sil`. Each `.out` holds
//! the text report (class, category, why-chain with declaration lines).
//!
//! `UPDATE_GOLDEN=1 cargo test -p optlab-core --test types_golden` rewrites the `.out` files;
//! review the diff before committing.

mod common;

use optlab_core::ir::{Lang, Module};
use optlab_core::sil::types::{report, Assumptions, Class, Decls, FunctionTypes, TypeEnv};
use optlab_core::SourceFile;
use std::path::PathBuf;
use std::sync::Arc;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/types")
}

fn parse(name: &str, text: &str) -> Module {
    optlab_core::parse_module(Lang::Sil, name, text)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.render(&SourceFile::new(name, text))))
}

fn report_with(m: &Module, assume: Assumptions) -> String {
    let env = Arc::new(TypeEnv { decls: Decls::of_module(m), assume });
    assert!(env.decls.errors.is_empty(), "declarations did not read: {:?}", env.decls.errors);
    let fs: Vec<FunctionTypes> = m.functions.iter().map(|f| FunctionTypes::new(f, env.clone())).collect();
    report::text(&m.source, &fs)
}

fn check_golden(out_name: &str, actual: &str) {
    let path = golden_dir().join(out_name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
    if expected != actual {
        let diff = similar_lines(&expected, actual);
        panic!("{out_name} differs from its golden file:\n{diff}");
    }
}

fn similar_lines(a: &str, b: &str) -> String {
    let (al, bl): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let k = al.iter().zip(&bl).take_while(|(x, y)| x == y).count();
    format!("first difference at line {}:\n- {}\n+ {}", k + 1, al.get(k).unwrap_or(&"<end>"), bl.get(k).unwrap_or(&"<end>"))
}

/// The class of `ty` as it appears in function `f` of `m`.
fn class(m: &Module, f: &str, ty: &str, assume: Assumptions) -> Class {
    let env = Arc::new(TypeEnv { decls: Decls::of_module(m), assume });
    let func = m.function(f).unwrap_or_else(|| panic!("no @{f}"));
    let ft = FunctionTypes::new(func, env);
    ft.row(ty).unwrap_or_else(|| panic!("@{f} has no row `{ty}`: {:?}", ft.rows.iter().map(|r| &r.text).collect::<Vec<_>>())).verdict.class
}

fn read(name: &str) -> (String, Module) {
    let text = std::fs::read_to_string(golden_dir().join(name)).unwrap();
    let m = parse(name, &text);
    (text, m)
}

#[test]
fn seed_002_vectors() {
    let (_, m) = read("seed002.sil");
    let none = Assumptions::default;
    for (f, ty, want) in [
        ("box_int", "Box<Int>", Class::Trivial),
        ("box_object", "Box<NSObject>", Class::Loadable),
        ("box_any", "Box<Any>", Class::AddressOnly),
        ("transform_any", "Transform<Any>", Class::Loadable),
        ("phantoms", "Phantom<Any>", Class::Trivial),
        ("phantoms", "Phantom<() -> ()>", Class::Trivial),
        ("phantoms", "Phantom<NSObject>", Class::Trivial),
        ("generic", "*Box<T>", Class::AddressOnly),
        ("generic", "Transform<T>", Class::Loadable),
        ("generic", "Phantom<T>", Class::Trivial),
    ] {
        assert_eq!(class(&m, f, ty, none()), want, "@{f} ${ty}");
    }
    // What-ifs on the generic form: substituting T gives the concrete vectors' classes.
    let mut out = report_with(&m, none());
    for (t, want) in [("Int", Class::Trivial), ("NSObject", Class::Loadable), ("Any", Class::AddressOnly), ("() -> ()", Class::Loadable)] {
        let assume = Assumptions { subst: [("T".to_string(), t.to_string())].into(), ..Assumptions::default() };
        assert_eq!(class(&m, "generic", "*Box<T>", assume.clone()), want, "Box<T> with T := {t}");
        assert_eq!(class(&m, "generic", "Phantom<T>", assume.clone()), Class::Trivial, "Phantom<T> with T := {t}");
        assert_eq!(class(&m, "generic", "Transform<T>", assume.clone()), Class::Loadable, "Transform<T> with T := {t}");
        let env = Arc::new(TypeEnv { decls: Decls::of_module(&m), assume });
        let ft = FunctionTypes::new(m.function("generic").unwrap(), env);
        out.push_str(&format!("==== what-if T := {t}\n"));
        out.push_str(&report::text(&m.source, std::slice::from_ref(&ft)));
    }
    check_golden("seed002.out", &out);
}

#[test]
fn every_row_of_the_rule_table() {
    let (_, m) = read("rules.sil");
    let none = Assumptions::default;
    use Class::*;
    let table: &[(&str, &str, Class)] = &[
        ("builtin_trivial", "Builtin.Int64", Trivial),
        ("builtin_trivial", "Builtin.FPIEEE64", Trivial),
        ("builtin_trivial", "Builtin.Word", Trivial),
        ("builtin_trivial", "Builtin.Vec4xInt32", Trivial),
        ("builtin_trivial", "Builtin.RawPointer", Trivial),
        ("builtin_trivial", "Builtin.PackIndex", Trivial),
        ("builtin_trivial", "()", Trivial),
        ("builtin_references", "Builtin.NativeObject", Loadable),
        ("builtin_references", "Builtin.BridgeObject", Loadable),
        ("builtin_references", "AnyObject", Loadable),
        ("builtin_references", "Builtin.UnknownObject", Loadable),
        ("builtin_address_only", "Builtin.UnsafeValueBuffer", AddressOnly),
        ("builtin_address_only", "Builtin.DefaultActorStorage", AddressOnly),
        ("stdlib_trivial", "Int", Trivial),
        ("stdlib_trivial", "Bool", Trivial),
        ("stdlib_trivial", "Double", Trivial),
        ("stdlib_trivial", "UnsafePointer<K>", Trivial),
        ("stdlib_trivial", "OpaquePointer", Trivial),
        ("stdlib_trivial", "Word", Trivial),
        ("stdlib_loadable", "String", Loadable),
        ("stdlib_loadable", "Array<Int>", Loadable),
        ("stdlib_loadable", "Dictionary<String, Any>", Loadable),
        ("stdlib_loadable", "Set<Int>", Loadable),
        ("classes", "K", Loadable),
        ("classes", "NSObject", Loadable),
        ("aggregates", "Pair<Int>", Trivial),
        ("aggregates", "Pair<K>", Loadable),
        ("aggregates", "Pair<Any>", AddressOnly),
        ("aggregates", "Computed", Trivial),
        ("aggregates", "(Int, K)", Loadable),
        ("aggregates", "(K, Any)", AddressOnly),
        ("aggregates", "(x: Int, y: Double)", Trivial),
        ("generics", "T", AddressOnly),
        ("generics", "U", Loadable),
        ("generics", "V", Loadable),
        ("generics", "W", Trivial),
        ("generics", "X", AddressOnly),
        ("generics", "Y", Loadable),
        ("generics", "Z", AddressOnly),
        ("generics", "T.Element", AddressOnly),
        ("canonical_generics", "τ_0_0", AddressOnly),
        ("existentials", "Any", AddressOnly),
        ("existentials", "any P", AddressOnly),
        ("existentials", "any P & CP", Loadable),
        ("existentials", "any CP2", Loadable),
        ("existentials", "any Error", Loadable),
        ("existentials", "any P & Equatable", AddressOnly),
        ("metatypes", "@thin Int.Type", Trivial),
        ("metatypes", "@thick T.Type", Trivial),
        ("metatypes", "@thick any P.Type", Trivial),
        ("references", "@sil_weak Optional<K>", AddressOnly),
        ("references", "@sil_unowned K", Loadable),
        ("references", "@sil_unowned Objc", AddressOnly),
        ("references", "@sil_unmanaged K", Trivial),
        ("references", "Weakly", AddressOnly),
        ("functions", "@convention(thin) (Int) -> Int", Trivial),
        ("functions", "@convention(c) (Int) -> Int", Trivial),
        ("functions", "@callee_guaranteed (Int) -> Int", Loadable),
        ("functions", "@convention(thick) () -> ()", Loadable),
        ("functions", "@noescape @callee_guaranteed () -> ()", Loadable),
        ("functions", "@convention(block) () -> ()", Loadable),
        ("boxes", "{ var T }", Loadable),
        ("boxes", "<τ_0_0> { var τ_0_0 } <Any>", Loadable),
        ("optionals", "Optional<Int>", Trivial),
        ("optionals", "Optional<K>", Loadable),
        ("optionals", "Optional<Any>", AddressOnly),
        ("enums", "Tag", Trivial),
        ("enums", "Payload<Int>", Loadable),
        ("enums", "Payload<T>", AddressOnly),
        ("enums", "Chain", Loadable),
        ("enums", "Tree", Loadable),
        ("packs", "Pack{Int, K}", AddressOnly),
        ("packs", "(Int, repeat each T)", AddressOnly),
        ("recursion", "Loop", AddressOnly),
        ("move_only", "Unique", Loadable),
        ("move_only", "@moveOnly Int", Loadable),
        ("undeclared", "Mystery", Unknown),
        ("undeclared", "any Unseen", Unknown),
    ];
    for (f, ty, want) in table {
        assert_eq!(class(&m, f, ty, none()), *want, "@{f} ${ty}");
    }
    // Resilience is not decidable from the text: an assumption the user switches on.
    let resilient = Assumptions { resilient: ["Pair".to_string()].into(), ..Assumptions::default() };
    assert_eq!(class(&m, "aggregates", "Pair<Int>", resilient.clone()), AddressOnly);
    let mut out = report_with(&m, none());
    out.push_str("==== assumption: Pair is resilient\n");
    let env = Arc::new(TypeEnv { decls: Decls::of_module(&m), assume: resilient });
    out.push_str(&report::text(&m.source, &[FunctionTypes::new(m.function("aggregates").unwrap(), env)]));
    check_golden("rules.out", &out);
}

/// Swift's AddressLowering test declares its types; in opaque-values SIL the values that get
/// storage are exactly the address-only ones, so these classes are what the file implies.
#[test]
fn the_declarations_of_swifts_address_lowering_test() {
    let Some(shared) = common::shared_dir() else { return };
    let path = shared.join("corpus/swift/address_lowering.sil");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = parse("address_lowering.sil", &text);
    let env = Arc::new(TypeEnv::new(Decls::of_module(&m)));
    assert!(env.decls.opaque_values, "the RUN line asks for opaque values");
    let c = optlab_core::sil::types::Classifier::new(&env, &[optlab_core::sil::types::ty::GenericParam { name: "T".into(), bounds: vec![] }], &[]);
    let class_of = |t: &str| c.classify(&optlab_core::sil::types::parse_type(t).unwrap()).class;
    use Class::*;
    for (t, want) in [
        ("Int", Trivial), // typealias Int = Builtin.Int64
        ("Bool", Trivial),
        ("AnyObject", Loadable), // typealias AnyObject = Builtin.AnyObject
        ("I", Trivial),
        ("SI<T>", AddressOnly),
        ("SI<AnyObject>", Loadable),
        ("SI<Int>", Trivial),
        ("SRef<T>", AddressOnly),
        ("SRef<Int>", Loadable),
        ("Pair<T>", AddressOnly),
        ("Pair<Pair<T>>", AddressOnly),
        ("Mixed<T>", AddressOnly),
        ("Mixed<Int>", Loadable), // case o(AnyObject)
        ("Optional<T>", AddressOnly),
        ("Optional<Int>", Trivial),
        ("TestGeneric<T>", Loadable),
        ("any C", Loadable), // protocol C : AnyObject
        ("any P", AddressOnly),
        ("any Error", Loadable),
    ] {
        assert_eq!(class_of(t), want, "${t} in address_lowering.sil");
    }
    // Every object value of an address-only type there is an opaque value: no warning about
    // it (the file is opaque-values SIL), and every such value's type has no class decided
    // by an assumption.
    let fs: Vec<FunctionTypes> = m.functions.iter().map(|f| FunctionTypes::new(f, env.clone())).collect();
    for ft in &fs {
        assert!(ft.warnings.is_empty(), "@{}: {:?}", ft.function, ft.warnings);
    }
    check_golden("address_lowering.out", &report::text(&m.source, &fs));
}
