//! Every file of the shared corpus against what it is expected to do (`common::corpus`):
//! valid files parse, verify and print back to the same module; files invalid on purpose are
//! refused with errors at source positions (for Bril's checker tests, on the lines Bril's
//! checker reports); nothing panics. Files on the shrink-only list (`corpus/not-read-yet.txt`)
//! must still fall short, so a fixed gap is taken off the list. Prints, per corpus folder,
//! `N parse, M rejected as expected, K not read yet`.

mod common;

use common::corpus::{self, Expect, Outcome};
use std::collections::BTreeMap;

#[test]
fn every_corpus_file_meets_its_expectation_and_the_gap_list_only_shrinks() {
    let Some(shared) = common::shared_dir() else { return };
    let files = corpus::files(&shared);
    assert!(files.len() > 300, "the corpus looks incomplete: {} files", files.len());
    // folder → (parse, rejected as expected, not read yet)
    let mut counts: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut problems = Vec::new();
    for f in &files {
        let outcome = f.outcome();
        let verdict = corpus::meets(&f.expect, &outcome);
        let row = counts.entry(f.folder()).or_default();
        match (&f.gap, verdict) {
            (None, Ok(())) if f.expect == Expect::Parses => row.0 += 1,
            (None, Ok(())) => row.1 += 1,
            (None, Err(why)) => problems.push(format!("{}: {why}", f.rel)),
            (Some(_), Ok(())) => problems.push(format!(
                "{}: now meets its expectation ({:?}): take it off core/tests/corpus/not-read-yet.txt",
                f.rel, f.expect
            )),
            (Some(_), Err(_)) if matches!(outcome, Outcome::Panicked(_)) => {
                problems.push(format!("{}: panicked (a known gap is no licence to panic): {outcome:?}", f.rel))
            }
            (Some(_), Err(_)) => row.2 += 1,
        }
    }
    println!("{:<28} {:>6} {:>22} {:>14}", "corpus folder", "parse", "rejected as expected", "not read yet");
    let mut total = (0, 0, 0);
    for (folder, (p, r, k)) in &counts {
        println!("{folder:<28} {p:>6} {r:>22} {k:>14}");
        total = (total.0 + p, total.1 + r, total.2 + k);
    }
    println!("{:<28} {:>6} {:>22} {:>14}", "all", total.0, total.1, total.2);
    let list = corpus::not_read_yet();
    let later = list.keys().filter(|(_, check)| check != "read").count();
    println!("shrink-only list: {} entries ({} files not read, {later} gaps in later checks)", list.len(), list.len() - later);
    assert!(problems.is_empty(), "{} corpus files do not meet their expectation:\n{}", problems.len(), problems.join("\n"));
}

/// The expectations are read from the corpus's own notes as Bril's and Swift's test runners
/// read them: a `# RETURN: 0` line overrides the folder's `return_code`; `.err` gives the
/// lines; `expected-error @-1` is the line above; a Swift file without annotations is
/// rejected by the verifier; a note saying the SIL itself parses keeps the file valid.
#[test]
fn expectations_follow_the_corpus_notes() {
    use common::corpus::Refuser;
    let Some(shared) = common::shared_dir() else { return };
    let files = corpus::files(&shared);
    let expect = |rel: &str| files.iter().find(|f| f.rel == rel).unwrap_or_else(|| panic!("no {rel}")).expect.clone();
    assert_eq!(expect("bril/check/tiny.bril"), Expect::Parses);
    assert_eq!(expect("bril/check/argtype.bril"), Expect::Rejected { by: Refuser::Either, lines: vec![2] });
    assert_eq!(expect("bril/check/noret.bril"), Expect::Rejected { by: Refuser::Either, lines: vec![1] });
    assert_eq!(expect("bril/benchmarks/core/ackermann.bril"), Expect::Parses);
    let Expect::Rejected { by: Refuser::Either, lines } = expect("swift/conformance/SIL__Parser__moveonlywrapped_diagnostics.sil") else {
        panic!("annotated Swift file")
    };
    assert_eq!(lines.first(), Some(&15), "`expected-error @-1` on line 16");
    assert!(matches!(
        expect("swift/conformance/SIL__Parser__coroutines_failure_merge.sil"),
        Expect::Rejected { by: Refuser::Verifier, .. }
    ));
    assert_eq!(expect("swift/conformance/SILOptimizer__lifetime_dependence__verify_diagnostics.sil"), Expect::Parses);
    assert_eq!(expect("swift/dead_code_elimination.sil"), Expect::Parses);

    // The verdicts: an error away from the reference's lines, or without a position, is not
    // the expected rejection; a parse error is not a verifier's.
    let on = |line| Outcome::Refused { parsed: true, errors: vec![(line, 3, "e".into())] };
    let either = Expect::Rejected { by: Refuser::Either, lines: vec![2, 5] };
    assert!(corpus::meets(&either, &on(5)).is_ok());
    assert!(corpus::meets(&either, &on(4)).is_err());
    assert!(corpus::meets(&either, &on(0)).is_err());
    assert!(corpus::meets(&either, &Outcome::Read).is_err());
    let verifier = Expect::Rejected { by: Refuser::Verifier, lines: vec![] };
    assert!(corpus::meets(&verifier, &on(9)).is_ok());
    assert!(corpus::meets(&verifier, &Outcome::Refused { parsed: false, errors: vec![(9, 1, "e".into())] }).is_err());
    assert!(corpus::meets(&Expect::Parses, &Outcome::Panicked("p".into())).is_err());
}
