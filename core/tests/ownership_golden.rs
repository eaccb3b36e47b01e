//! Golden files for ownership kinds and operand constraints: the OSSA functions of Swift's
//! DCE tests and of the verifier's `over_consume.sil` (`../shared/corpus/swift`), one `.out`
//! per input holding `optlab ownership`'s text dump (values with kind and reason, operands with
//! role and constraint, lifetimes, borrow scopes, dead-end blocks).
//!
//! `UPDATE_GOLDEN=1 cargo test -p optlab-core --test ownership_golden` rewrites the `.out` files;
//! review the diff before committing.

mod common;

use optlab_core::ir::Lang;
use optlab_core::sil::ownership::{analyze, dump_text, verify, Names};
use optlab_core::sil::types::{env_of, FunctionTypes};
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/ownership")
}

fn check_golden(out_name: &str, actual: &str) {
    let path = golden_dir().join(out_name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
    if expected != actual {
        let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
        let k = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        panic!("{out_name} differs at line {}:\n- {}\n+ {}", k + 1, a.get(k).unwrap_or(&"<end>"), b.get(k).unwrap_or(&"<end>"));
    }
}

#[test]
fn kinds_and_constraints_of_swifts_ossa_tests() {
    let Some(shared) = common::shared_dir() else { return };
    for (file, out) in [
        ("dead_code_elimination_ossa.sil", "dead_code_elimination_ossa.out"),
        ("dead_code_elimination_nontrivial_ossa.sil", "dead_code_elimination_nontrivial_ossa.out"),
        ("ownership-verifier/over_consume.sil", "over_consume.out"),
    ] {
        let text = std::fs::read_to_string(shared.join("corpus/swift").join(file)).unwrap();
        let m = optlab_core::parse_module(Lang::Sil, file, &text).unwrap();
        let env = env_of(&m);
        let mut dump = String::new();
        let mut unchecked = 0;
        for f in m.bodies().filter(|f| optlab_core::sil::ownership::is_ossa(f)) {
            let fo = analyze(f, &FunctionTypes::new(f, env.clone()));
            // Every operand has a constraint; every value a kind.
            assert_eq!(fo.operands.len(), f.placed_insts().map(|(_, i)| f.insts[i].args.len() + if matches!(f.insts[i].op.name(), "br" | "cond_br") { f.insts[i].succs.iter().map(|s| s.args.len()).sum() } else { 0 }).sum::<usize>());
            unchecked += verify(f, &fo).steps.iter().filter(|s| s.contains("not checked")).count();
            dump.push_str(&dump_text(f, &fo, &Names::user(f)));
            dump.push('\n');
        }
        println!("{file}: {unchecked} value(s) not checked (unmodelled instructions)");
        check_golden(out, &dump);
    }
}
