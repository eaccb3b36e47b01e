//! The differential harness: run a program and its transformation on the same inputs and
//! demand the same observable behaviour — printed output, the returned value, and how (or
//! whether) the run failed.

use super::gen::{generate, GenConfig, Generated};
use crate::interp::{bril, sil, RunConfig, RunResult};
use crate::ir::{Lang, Module};
use std::fmt;
use std::ops::Range;

/// Dynamic instruction counts of one input, before and after the transformation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub before: u64,
    pub after: u64,
    /// The original hit a resource limit, so this input proved nothing (not compared).
    pub inconclusive: bool,
    /// Both runs ended with the same error (division by zero, …) rather than normally.
    pub failed: bool,
}

/// Where the two programs behaved differently.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub input: Vec<String>,
    pub what: String,
    pub before: RunResult,
    pub after: RunResult,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let err = |r: &RunResult| r.error.as_ref().map_or_else(|| "none".to_string(), |e| e.to_string());
        writeln!(f, "{} on input [{}]", self.what, self.input.join(" "))?;
        writeln!(f, "--- before ({} instructions, error: {}):", self.before.dyn_inst, err(&self.before))?;
        writeln!(f, "{}", self.before.stdout.trim_end())?;
        writeln!(f, "--- after ({} instructions, error: {}):", self.after.dyn_inst, err(&self.after))?;
        write!(f, "{}", self.after.stdout.trim_end())
    }
}

impl std::error::Error for Mismatch {}

/// Runs `main` of both modules on every input (default limits) and compares them.
///
/// Inputs on which the original hits a resource limit prove nothing and are marked
/// `inconclusive`; a transformed run that executes more than 4× the original's instructions
/// plus 100,000 is stopped and reported as a mismatch (it most likely no longer terminates).
pub fn differential(original: &Module, transformed: &Module, inputs: &[Vec<String>]) -> Result<Vec<Counts>, Box<Mismatch>> {
    differential_entry(original, transformed, "main", inputs, &RunConfig::default())
}

/// As [`differential`], for any entry function (SIL modules rarely have a `main`) and limits.
/// `cfg.args` is ignored: each input supplies the arguments.
pub fn differential_entry(
    original: &Module,
    transformed: &Module,
    entry: &str,
    inputs: &[Vec<String>],
    cfg: &RunConfig,
) -> Result<Vec<Counts>, Box<Mismatch>> {
    let no_args = [Vec::new()];
    let inputs = if inputs.is_empty() { &no_args[..] } else { inputs };
    let mut counts = Vec::with_capacity(inputs.len());
    for input in inputs {
        let cfg = RunConfig { args: input.clone(), ..cfg.clone() };
        let before = run_entry(original, entry, &cfg);
        // A transformation that turns a finite loop into an endless one must be caught in
        // milliseconds, not at the default limit: the transformed run gets a budget relative
        // to the original's count, generous enough for edge splits and the like.
        let budget = before.dyn_inst.saturating_mul(4).saturating_add(100_000).min(cfg.step_limit);
        let after = run_entry(transformed, entry, &RunConfig { step_limit: budget, ..cfg.clone() });
        let kind = |r: &RunResult| r.error.as_ref().map(|e| e.kind.clone());
        let inconclusive = kind(&before).is_some_and(|k| k.is_limit());
        let failed = before.error.is_some();
        let c = Counts { before: before.dyn_inst, after: after.dyn_inst, inconclusive, failed };
        if !inconclusive {
            let what = if before.stdout != after.stdout {
                Some("different output")
            } else if kind(&before) != kind(&after) {
                Some("different error")
            } else if before.returned != after.returned {
                Some("different return value")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(Box::new(Mismatch { input: input.clone(), what: what.into(), before, after }));
            }
        }
        counts.push(c);
    }
    Ok(counts)
}

fn run_entry(m: &Module, entry: &str, cfg: &RunConfig) -> RunResult {
    match m.lang {
        Lang::Bril => bril::run_function(m, entry, cfg),
        Lang::Sil => sil::run(m, entry, cfg),
    }
}

/// Totals over a range of generated programs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    pub programs: usize,
    pub runs: usize,
    /// Runs that ended in an error (the same error on both sides).
    pub failing_runs: usize,
    pub dyn_before: u64,
    pub dyn_after: u64,
    /// The run whose dynamic count grew the most: (seed, input index, before, after).
    pub worst_growth: Option<(u64, usize, u64, u64)>,
}

impl PassStats {
    /// No run executed more instructions after the pass (what LCM promises).
    pub fn never_grew(&self) -> bool {
        self.worst_growth.is_none()
    }
}

/// A generated program on which the pass changed behaviour.
#[derive(Debug)]
pub struct PassFailure {
    pub seed: u64,
    /// The original program's text.
    pub text: String,
    /// The transformed program, printed (empty if the printer could not print it).
    pub transformed: String,
    pub mismatch: Mismatch,
}

impl fmt::Display for PassFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "seed {}: {}", self.seed, self.mismatch)?;
        writeln!(f, "--- original program (seed {}):\n{}", self.seed, self.text)?;
        write!(f, "--- transformed program:\n{}", self.transformed)
    }
}

impl std::error::Error for PassFailure {}

/// Generates a program per seed (default [`GenConfig`]), applies `pass`, and compares the
/// two on the program's inputs. Stops at the first mismatch, reporting its seed and text.
pub fn check_pass(seeds: Range<u64>, pass: impl FnMut(&Module) -> Module) -> Result<PassStats, Box<PassFailure>> {
    check_pass_with(&GenConfig::default(), seeds, pass)
}

pub fn check_pass_with(
    cfg: &GenConfig,
    seeds: Range<u64>,
    mut pass: impl FnMut(&Module) -> Module,
) -> Result<PassStats, Box<PassFailure>> {
    let mut stats = PassStats::default();
    for seed in seeds {
        let Generated { text, module, inputs, .. } = generate(seed, cfg);
        let transformed = pass(&module);
        match differential(&module, &transformed, &inputs) {
            Ok(counts) => {
                stats.programs += 1;
                for (k, c) in counts.iter().enumerate() {
                    stats.runs += 1;
                    stats.dyn_before += c.before;
                    stats.dyn_after += c.after;
                    let grew = c.after.saturating_sub(c.before);
                    if grew > 0 && stats.worst_growth.is_none_or(|(_, _, b, a)| grew > a - b) {
                        stats.worst_growth = Some((seed, k, c.before, c.after));
                    }
                }
                stats.failing_runs += counts.iter().filter(|c| c.failed).count();
            }
            Err(mismatch) => {
                let printed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::print::print_module(&transformed, crate::print::Naming::User)
                }))
                .unwrap_or_default();
                return Err(Box::new(PassFailure { seed, text, transformed: printed, mismatch: *mismatch }));
            }
        }
    }
    Ok(stats)
}
