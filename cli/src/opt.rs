//! `opt`: a pipeline of registered passes (`--passes lcm,copyprop,dce`) on every function,
//! and the one-pass case behind the subcommand of a pass without options of its own.
//!
//! In a pipeline a pass that refuses a function (LCM on SIL) leaves it as it was and the
//! pipeline goes on, as in the web app's pipeline view: that is a note on stderr, not an
//! error. A pass asked for alone that refuses is an error: there is nothing else to do. A
//! pass that fails (its output does not verify: a bug in the lab) is always an error.

use crate::input::{Failure, Input};
use optlab_core::diag::Span;
use optlab_core::ir::Module;
use optlab_core::passes::pipeline::{Pipeline, PipelineRun};
use optlab_core::passes::{Count, Options, Outcome};
use optlab_core::print::{print_module, Naming};
use serde::Serialize;
use std::fmt::Write;

pub struct OptArgs<'a> {
    pub passes: &'a str,
    pub renumber: bool,
    pub trace_json: bool,
    pub stats: bool,
    pub commute: bool,
    /// SSA construction: write φs as `phi`.
    pub phi: bool,
}

/// What `opt` prints: the answer on stdout, the notes (refused stages) on stderr.
pub struct Done {
    pub stdout: String,
    pub notes: String,
}

/// A refused stage: where (the function's header) and why.
struct Refusal {
    span: Span,
    message: String,
}

/// Runs `pipeline` on every function with a body. A failed stage is an error at its
/// function; refused stages are returned for the caller to report.
fn run(input: &Input, pipeline: &Pipeline, opts: &Options) -> Result<(Module, Vec<PipelineRun>, Vec<Refusal>), Failure> {
    let (module, runs) = pipeline.run_module(&input.module, opts);
    let mut refusals = Vec::new();
    for r in &runs {
        for s in &r.stages {
            match &s.outcome {
                Outcome::Ran => {}
                Outcome::Refused(m) => refusals.push(Refusal { span: r.input.span, message: m.clone() }),
                Outcome::Failed(m) => return Err(Failure(input.at(r.input.span, "error", m))),
            }
        }
    }
    Ok((module, runs, refusals))
}

/// `opt --trace json`, one per function; the field order is the documented shape.
#[derive(Serialize)]
struct FunctionJson<'a> {
    function: &'a str,
    stages: Vec<StageJson<'a>>,
}

#[derive(Serialize)]
struct StageJson<'a> {
    pass: &'static str,
    outcome: OutcomeJson<'a>,
    counts: &'a [Count],
    summary: String,
    trace: serde_json::Value,
}

/// `{kind, message}` for every outcome (`message` is null when the pass ran), so readers
/// need not tell a missing field from an absent message.
#[derive(Serialize)]
struct OutcomeJson<'a> {
    kind: &'static str,
    message: Option<&'a str>,
}

fn outcome_json(o: &Outcome) -> OutcomeJson<'_> {
    match o {
        Outcome::Ran => OutcomeJson { kind: "ran", message: None },
        Outcome::Refused(m) => OutcomeJson { kind: "refused", message: Some(m) },
        Outcome::Failed(m) => OutcomeJson { kind: "failed", message: Some(m) },
    }
}

fn pretty<T: Serialize>(v: &T) -> Result<String, Failure> {
    let mut s = serde_json::to_string_pretty(v).map_err(|e| Failure(format!("error: cannot write JSON: {e}")))?;
    s.push('\n');
    Ok(s)
}

fn naming(renumber: bool) -> Naming {
    if renumber {
        Naming::Renumber
    } else {
        Naming::User
    }
}

/// Every stage's summary line, function by function.
fn stats_lines(out: &mut String, runs: &[PipelineRun]) {
    for r in runs {
        for s in &r.stages {
            let _ = writeln!(out, "{}", s.summary());
        }
    }
}

/// `optlab opt`.
pub fn opt(input: &Input, a: &OptArgs) -> Result<Done, Failure> {
    let pipeline = Pipeline::parse(a.passes).map_err(|e| Failure(format!("error: --passes: {e}")))?;
    let (module, runs, refusals) = run(input, &pipeline, &Options { commute: a.commute, phi_form: a.phi })?;
    let mut notes = String::new();
    for r in &refusals {
        let message = format!("{}; the pipeline goes on with the function as it was", r.message);
        let _ = writeln!(notes, "{}", input.at(r.span, "note", &message));
    }
    let stdout = if a.trace_json {
        let all: Vec<FunctionJson> = runs
            .iter()
            .map(|r| FunctionJson {
                function: &r.input.name,
                stages: r
                    .stages
                    .iter()
                    .map(|s| StageJson {
                        pass: s.pass.slug,
                        outcome: outcome_json(&s.outcome),
                        counts: &s.counts,
                        summary: s.summary(),
                        trace: s.detail.trace_json(),
                    })
                    .collect(),
            })
            .collect();
        pretty(&all)?
    } else {
        let mut out = print_module(&module, naming(a.renumber));
        if a.stats {
            stats_lines(&mut out, &runs);
        }
        out
    };
    Ok(Done { stdout, notes })
}

/// The subcommand of a registered pass without options of its own (`optlab copyprop`):
/// the optimized program, or the pass's trace of every function as a JSON array.
///
/// AddressLowering is the exception: a module mixes functions it lowers with functions
/// that use an instruction it does not lower yet; those are left as they were, with a note
/// on stderr each, and the others are printed lowered.
pub fn single(input: &Input, slug: &str, renumber: bool, trace_json: bool, stats: bool, opts: &Options) -> Result<String, Failure> {
    let pipeline = Pipeline::parse(slug).map_err(|e| Failure(format!("error: {e}")))?;
    let (module, runs, refusals) = run(input, &pipeline, opts)?;
    if slug == "address-lowering" {
        for r in &refusals {
            eprintln!("{}", input.at(r.span, "note", &format!("{}; left unchanged", r.message)));
        }
    } else if let Some(r) = refusals.first() {
        return Err(Failure(input.at(r.span, "error", &r.message)));
    }
    if trace_json {
        let traces: Vec<serde_json::Value> = runs.iter().flat_map(|r| r.stages.iter().map(|s| s.detail.trace_json())).collect();
        return pretty(&traces);
    }
    let mut out = print_module(&module, naming(renumber));
    if stats {
        stats_lines(&mut out, &runs);
    }
    Ok(out)
}
