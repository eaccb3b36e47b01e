//! SIL type classification over every valid `.sil` file of Swift's tests in the shared corpus
//! that the lab reads (`common::corpus`):
//! every type that appears gets a class, or `unknown` with a reason; the `unknown` count per
//! file is printed (the goal is 0 where a file declares its types); and no `load [trivial]`
//! or `store … [trivial]` is flagged — Swift accepted those files.

mod common;

use optlab_core::sil::types::{self, Class, FunctionTypes};

#[test]
fn every_type_in_swifts_tests_is_classified_and_no_trivial_qualifier_is_flagged() {
    let Some(shared) = common::shared_dir() else { return };
    let files = common::corpus::read_valid(&shared, optlab_core::Lang::Sil);
    assert!(files.len() >= 5, "expected Swift's test files, found {}", files.len());
    let mut total_unknown = 0;
    let mut problems = Vec::new();
    for file in &files {
        let name = file.rel.clone();
        let m = file.module();
        let env = types::env_of(&m);
        let mut mine = Vec::new();
        if let Some(e) = env.decls.errors.first() {
            mine.push(format!("declarations did not read: {}", e.message));
        }
        let (mut rows, mut unknown) = (0, Vec::new());
        for f in &m.functions {
            let ft = FunctionTypes::new(f, env.clone());
            for r in &ft.rows {
                rows += 1;
                if r.verdict.why.is_empty() {
                    mine.push(format!("@{}: `{}` has no reason", f.name, r.text));
                }
                if r.verdict.class == Class::Unknown {
                    unknown.push(format!("@{}: ${} — {}", f.name, r.text, r.verdict.chain()));
                }
            }
            for w in ft.warnings.iter().filter(|w| w.message.contains("[trivial]")) {
                mine.push(format!("@{}: Swift accepted this, but it was flagged: {}", f.name, w.message));
            }
        }
        println!("{name}: {rows} types, {} unknown", unknown.len());
        for u in unknown.iter().take(20) {
            println!("    {u}");
        }
        total_unknown += unknown.len();
        problems.extend(common::corpus::against_gap_list(file, "types", &mine));
    }
    println!("total unknown: {total_unknown}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
