//! SIL type classification over every `.sil` file of Swift's tests in the shared corpus:
//! every type that appears gets a class, or `unknown` with a reason; the `unknown` count per
//! file is printed (the goal is 0 where a file declares its types); and no `load [trivial]`
//! or `store … [trivial]` is flagged — Swift accepted those files.

mod common;

use optlab_core::parse::parse_module;
use optlab_core::sil::types::{self, Class, FunctionTypes};

#[test]
fn every_type_in_swifts_tests_is_classified_and_no_trivial_qualifier_is_flagged() {
    let Some(shared) = common::shared_dir() else { return };
    let files = common::files_with_ext(&shared.join("corpus/swift"), "sil");
    assert!(files.len() >= 5, "expected Swift's test files, found {}", files.len());
    let mut total_unknown = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let m = parse_module(optlab_core::Lang::Sil, &name, &text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let env = types::env_of(&m);
        assert!(env.decls.errors.is_empty(), "{name}: declarations did not read: {:?}", env.decls.errors);
        let (mut rows, mut unknown) = (0, Vec::new());
        for f in &m.functions {
            let ft = FunctionTypes::new(f, env.clone());
            for r in &ft.rows {
                rows += 1;
                assert!(!r.verdict.why.is_empty(), "{name} @{}: `{}` has no reason", f.name, r.text);
                if r.verdict.class == Class::Unknown {
                    unknown.push(format!("@{}: ${} — {}", f.name, r.text, r.verdict.chain()));
                }
            }
            for w in &ft.warnings {
                assert!(
                    !w.message.contains("[trivial]"),
                    "{name} @{}: Swift accepted this, but it was flagged: {}",
                    f.name,
                    w.message
                );
            }
        }
        println!("{name}: {rows} types, {} unknown", unknown.len());
        for u in unknown.iter().take(20) {
            println!("    {u}");
        }
        total_unknown += unknown.len();
    }
    println!("total unknown: {total_unknown}");
}
