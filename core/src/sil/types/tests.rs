use super::*;

const SEED: &str = "
class NSObjectSub {}
struct Box<T> {
  var value: T
}
struct Transform<T> {
  var fn: (T) -> T
}
struct Phantom<T> {
  var counter: Int
}
";

fn class_in(decls: &str, t: &str) -> (Class, String) {
    let env = TypeEnv::new(Decls::parse(decls));
    let c = Classifier::new(&env, &[], &[]);
    let v = c.classify(&parse_type(t).unwrap_or_else(|e| panic!("{t}: {e}")));
    (v.class, v.chain())
}

#[test]
fn seed_vectors() {
    for (t, want) in [
        ("Box<Int>", Class::Trivial),
        ("Box<NSObject>", Class::Loadable),
        ("Box<Any>", Class::AddressOnly),
        ("*Box<Any>", Class::AddressOnly),
        ("Transform<Any>", Class::Loadable),
        ("Phantom<Any>", Class::Trivial),
        ("Phantom<() -> ()>", Class::Trivial),
        ("Phantom<NSObject>", Class::Trivial),
    ] {
        let (c, why) = class_in(SEED, t);
        assert_eq!(c, want, "{t}: {why}");
    }
    let (_, why) = class_in(SEED, "Box<Any>");
    assert!(why.contains("stored property `value: T` = `Any`") && why.contains("non-class existential"), "{why}");
}
