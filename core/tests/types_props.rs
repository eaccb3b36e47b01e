//! Properties of SIL type classification, each against an independent statement of the rule:
//!
//! - an aggregate (tuple or declared struct) is address-only iff some member is, unknown iff
//!   no member is address-only and some is unknown, trivial iff all are trivial — computed
//!   here from the members' classes alone;
//! - substitution commutes with classification: `G<X>` has the class of `G`'s body with
//!   `T := X` written out, and the what-if `T := X` on `G<T>` gives the class of `G<X>`;
//! - the type grammar never panics, on any text; what it accepts prints back to a text that
//!   parses to the same type; classification of anything it accepts never panics.

use optlab_core::sil::types::{parse_type, Assumptions, Class, Classifier, Decls, TypeEnv};
use optlab_core::sil::types::ty::GenericParam;
use proptest::prelude::*;

/// Member types with declarations below; their classes come from the classifier, and the
/// properties check how it combines them.
const POOL: &[&str] = &[
    "Int", "Builtin.Int1", "()", "K", "AnyObject", "Any", "T", "U", "Mystery", "Optional<K>", "Optional<Any>",
    "@sil_weak Optional<K>", "@thick T.Type", "@callee_guaranteed () -> ()", "@convention(thin) () -> ()",
    "Pair<Int>", "Pair<K>", "Pair<T>", "any P", "any CP", "Tag", "Payload<T>", "{ var T }", "String", "Unique",
];

const DECLS: &str = "
class K {}
struct Pair<X> { var a: X; var b: X }
enum Tag { case a, b }
enum Payload<X> { case none, some(X) }
protocol P {}
protocol CP: AnyObject {}
struct Unique: ~Copyable { var x: Int }
";

fn env(assume: Assumptions) -> TypeEnv {
    TypeEnv { decls: Decls::parse(DECLS), assume }
}

fn generics() -> Vec<GenericParam> {
    vec![GenericParam { name: "T".into(), bounds: vec![] }, GenericParam { name: "U".into(), bounds: vec![parse_type("AnyObject").unwrap()] }]
}

fn class_of(e: &TypeEnv, t: &str) -> Class {
    let c = Classifier::new(e, &generics(), &[]);
    c.classify(&parse_type(t).unwrap_or_else(|err| panic!("{t}: {err}"))).class
}

/// The member rule, stated on classes alone.
fn combine(members: &[Class]) -> Class {
    if members.contains(&Class::AddressOnly) {
        Class::AddressOnly
    } else if members.contains(&Class::Unknown) {
        Class::Unknown
    } else if members.contains(&Class::Loadable) {
        Class::Loadable
    } else {
        Class::Trivial
    }
}

fn members() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(POOL), 2..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_tuple_combines_its_elements(ms in members()) {
        let e = env(Assumptions::default());
        let expected = combine(&ms.iter().map(|m| class_of(&e, m)).collect::<Vec<_>>());
        let tuple = format!("({})", ms.join(", "));
        prop_assert_eq!(class_of(&e, &tuple), expected, "{}", tuple);
    }

    #[test]
    fn a_struct_combines_its_stored_properties(ms in members()) {
        let fields: String = ms.iter().enumerate().map(|(k, m)| format!("  var f{k}: {m}\n")).collect();
        // A computed property never counts.
        let decls = format!("{DECLS}\nstruct S<T, U> {{\n{fields}  var computed: Any {{ get }}\n}}\n");
        let e = TypeEnv { decls: Decls::parse(&decls), assume: Assumptions::default() };
        let expected = combine(&ms.iter().map(|m| class_of(&e, m)).collect::<Vec<_>>());
        prop_assert_eq!(class_of(&e, "S<T, U>"), expected);
    }

    #[test]
    fn substitution_commutes_with_classification(body in prop::sample::select(POOL), arg in prop::sample::select(POOL)) {
        // G<X> with `var v: body[T := X]`, against body with X written out.
        prop_assume!(!arg.contains("T") && !arg.contains('U'));
        let decls = format!("{DECLS}\nstruct G<T> {{ var v: {body} }}\n");
        let e = TypeEnv { decls: Decls::parse(&decls), assume: Assumptions::default() };
        let written_out = parse_type(body).unwrap().subst(&|n| (n == "T").then(|| parse_type(arg).unwrap()));
        let c = Classifier::new(&e, &generics(), &[]);
        let direct = combine(&[c.classify(&written_out).class]);
        prop_assert_eq!(class_of(&e, &format!("G<{arg}>")), direct, "G<{}> with v: {}", arg, body);
        // The what-if T := arg on G<T> agrees with G<arg>.
        let w = TypeEnv { decls: Decls::parse(&decls), assume: Assumptions { subst: [("T".to_string(), arg.to_string())].into(), ..Assumptions::default() } };
        prop_assert_eq!(class_of(&w, "G<T>"), class_of(&e, &format!("G<{arg}>")));
    }

    #[test]
    fn the_type_grammar_never_panics(text in "\\PC{0,40}") {
        let _ = parse_type(&text);
    }

    #[test]
    fn types_parse_print_back_and_classify(text in type_text()) {
        let t = parse_type(&text).unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
        let printed = t.to_string();
        let again = parse_type(&printed).unwrap_or_else(|e| panic!("`{text}` printed as `{printed}`, which does not parse: {e}"));
        prop_assert_eq!(&again, &t, "`{}` printed as `{}`", text, printed);
        let e = env(Assumptions::default());
        let v = Classifier::new(&e, &generics(), &[]).classify(&t);
        prop_assert!(!v.why.is_empty());
    }
}

/// Type texts from the grammar SIL writes: nested addresses, tuples (labelled too), generic
/// applications and their sugar, metatypes, reference storage, function types with
/// conventions, boxes, existentials, packs, opened archetypes.
fn type_text() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec!["Int", "T", "K", "Any", "Builtin.Int64", "()", "AnyObject", "τ_0_0", "Swift.Int", "T.Element"])
        .prop_map(str::to_string);
    leaf.prop_recursive(4, 40, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| format!("*{x}")),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("({x}, {y})")),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("(x: {x}, y: {y})")),
            inner.clone().prop_map(|x| format!("Pair<{x}>")),
            inner.clone().prop_map(|x| format!("Optional<{x}>")),
            inner.clone().prop_map(|x| format!("[{x}]")),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("[{x}: {y}]")),
            prop::sample::select(vec!["Int", "K", "T"]).prop_map(|x| format!("{x}?")),
            prop::sample::select(vec!["Int", "T", "any P"]).prop_map(|x| format!("@thick {x}.Type")),
            prop::sample::select(vec!["K", "Optional<K>"]).prop_map(|x| format!("@sil_weak {x}")),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("@callee_guaranteed ({x}) -> {y}")),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("@convention(thin) <T> (@in {x}, @owned {y}) -> (@out T, @error any Error)")),
            inner.clone().prop_map(|x| format!("{{ var {x} }}")),
            inner.clone().prop_map(|x| format!("<τ_0_0> {{ var τ_0_0 }} <{x}>")),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("Pack{{{x}, {y}}}")),
            Just("any P & CP".to_string()),
            Just("@opened(\"A\", any P) Self".to_string()),
            inner.prop_map(|x| format!("@moveOnly {x}")),
        ]
    })
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}Int{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(parse_type(&deep).is_err());
    let generic = format!("{}Int{}", "Optional<".repeat(5_000), ">".repeat(5_000));
    assert!(parse_type(&generic).is_err());
    // A generic struct whose expansion grows without end is unknown, not a hang.
    let e = TypeEnv { decls: Decls::parse("struct Grow<T> { var x: Grow<(T, T)> }"), assume: Assumptions::default() };
    let c = Classifier::new(&e, &[], &[]);
    let v = c.classify(&parse_type("Grow<Int>").unwrap());
    assert_eq!(v.class, Class::Unknown, "{}", v.chain());
}
