//! The semantic safety net: random Bril programs and a differential harness.
//!
//! A pass is correct on a program if the program behaves the same after it: same printed
//! output, same return value, same error (or none). [`gen`] makes seeded random programs that
//! always terminate and are full of what DCE and LCM act on (dead temporaries, recomputed
//! expressions on different paths, guarded and unguarded divisions); [`harness`] runs the
//! original and the transformed module in the interpreter and compares them, also returning
//! both dynamic instruction counts so an LCM test can assert the count never grows.
//!
//! A pass test is one line:
//!
//! ```
//! use optlab_core::{passes::dce, testgen};
//! let stats = testgen::check_pass(0..20, |m| dce::run_module(m).module)
//!     .unwrap_or_else(|fail| panic!("{fail}"));   // prints the seed and both programs
//! assert_eq!(stats.programs, 20);
//! assert!(stats.dyn_after <= stats.dyn_before);      // DCE never adds work
//! ```
//!
//! For a single program, `testgen::differential(&before, &after, &inputs)` compares any two
//! modules (Bril `@main`, or `differential_entry` for a SIL function and its arguments).
//! [`build`] makes a module and its text from lines, for hand-written test programs.

pub mod build;
pub mod gen;
pub mod harness;
pub mod scale;
pub mod structured;

pub use build::{build_module, BrilInst, FuncSpec, Line};
pub use gen::{generate, GenConfig, Generated, Rng};
pub use structured::structured_function;
pub use harness::{check_pass, check_pass_with, differential, differential_entry, Counts, Mismatch, PassFailure, PassStats};

/// Every file under `dir`, at any depth (none if it cannot be read): the unit tests that
/// read the corpus in `../shared`.
#[cfg(test)]
pub(crate) fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}
