//! `dce`, `lcm` and `run`: the passes and the interpreter on the command line.

use crate::input::{Failure, Input};
use optlab_core::interp::{self, RunConfig};
use optlab_core::ir::{Function, Lang, Module};
use optlab_core::passes::{dce, lcm};
use optlab_core::print::{print_module, Naming};
use std::fmt::Write;

/// The one function a per-function option talks about: `--function NAME`, or the only
/// function with a body, or `main`.
fn pick<'a>(m: &'a Module, name: Option<&str>) -> Result<&'a Function, Failure> {
    if let Some(n) = name {
        return m.function(n).ok_or_else(|| Failure(format!("error: no function `{n}` in this file")));
    }
    let bodies: Vec<&Function> = m.bodies().collect();
    match bodies.as_slice() {
        [one] => Ok(one),
        _ => m.function("main").filter(|f| !f.is_declaration()).ok_or_else(|| {
            let names: Vec<&str> = bodies.iter().map(|f| f.name.as_str()).collect();
            Failure(format!("error: several functions ({}); choose one with `--function NAME`", names.join(", ")))
        }),
    }
}

pub struct DceArgs<'a> {
    pub renumber: bool,
    pub trace_json: bool,
    pub explain: Option<&'a str>,
    pub function: Option<&'a str>,
    pub stats: bool,
}

pub fn dce(input: &Input, a: DceArgs) -> Result<String, Failure> {
    let m = &input.module;
    if let Some(spec) = a.explain {
        let f = pick(m, a.function)?;
        let inst = dce::locate(f, spec).ok_or_else(|| {
            Failure(format!(
                "error: no instruction at `{spec}` in `{}` (use BLOCK:INDEX, index 0-based, terminator last)",
                f.name
            ))
        })?;
        let r = dce::run(f);
        let mut out = String::new();
        for line in dce::explain(f, &r.trace, inst) {
            let _ = writeln!(out, "{line}");
        }
        return Ok(out);
    }
    let r = dce::run_module(m);
    if a.trace_json {
        if let Some(name) = a.function {
            let one = r
                .results
                .iter()
                .find(|x| x.function.name == name)
                .ok_or_else(|| Failure(format!("error: no function `{name}` in this file")))?;
            let mut s = dce::trace_json(&one.trace);
            s.push('\n');
            return Ok(s);
        }
        let mut s = r.traces_json();
        s.push('\n');
        return Ok(s);
    }
    let mut out = print_module(&r.module, if a.renumber { Naming::Renumber } else { Naming::User });
    if a.stats {
        let t = r.total();
        let _ = writeln!(
            out,
            "{} instructions before, {} after: {} removed, {} branches rewritten, {} blocks removed",
            t.insts_before, t.insts_after, t.insts_removed, t.branches_rewritten, t.blocks_removed
        );
    }
    Ok(out)
}

pub struct LcmArgs<'a> {
    pub format: Option<&'a str>,
    pub expr: Option<&'a str>,
    pub emit: bool,
    pub commute: bool,
}

pub fn lcm(input: &Input, a: LcmArgs) -> Result<String, Failure> {
    let opts = lcm::Options { commute: a.commute };
    let (module, outputs) = lcm::run_module(&input.module, &opts).map_err(|e| Failure(format!("error: {e}")))?;
    if a.emit {
        return Ok(lcm::report::emit(&module));
    }
    match a.format.unwrap_or("json") {
        "json" => {
            if a.expr.is_some() {
                return Err(Failure("error: `--expr` selects a table; JSON always lists every expression".into()));
            }
            let mut s = lcm::report::json(&outputs, true);
            s.push('\n');
            Ok(s)
        }
        name => {
            let format = lcm::report::TableFormat::from_name(name).ok_or_else(|| {
                Failure(format!("error: unknown format `{name}` (json, markdown, latex, csv)"))
            })?;
            lcm::report::table(&outputs, format, a.expr).map_err(|e| Failure(format!("error: {e}")))
        }
    }
}

pub struct RunArgs<'a> {
    pub args: &'a [String],
    pub function: Option<&'a str>,
    pub profile: bool,
    pub step_limit: Option<u64>,
}

/// Runs the program; output goes to stdout as it would from the program, errors and the
/// profile to stderr. Returns the stdout text and the stderr text separately.
pub fn run(input: &Input, a: RunArgs) -> (String, String, bool) {
    // Bril benchmarks carry their arguments in a `# ARGS:` line, as Bril's runner reads them.
    let args = if a.args.is_empty() && input.module.lang == Lang::Bril {
        interp::bril::args_from_source(&input.file.text)
    } else {
        a.args.to_vec()
    };
    let mut cfg = RunConfig::with_args(args);
    if let Some(n) = a.step_limit {
        cfg.step_limit = n;
    }
    let result = match input.module.lang {
        Lang::Bril => interp::bril::run_function(&input.module, a.function.unwrap_or("main"), &cfg),
        Lang::Sil => match pick(&input.module, a.function) {
            Ok(f) => interp::sil::run(&input.module, &f.name, &cfg),
            Err(Failure(msg)) => return (String::new(), msg, false),
        },
    };
    let mut err = String::new();
    if let Some(msg) = result.render_error(&input.file) {
        let _ = writeln!(err, "{msg}");
    }
    let mut out = result.stdout.clone();
    if input.module.lang == Lang::Sil {
        if let Some(v) = &result.returned {
            let _ = writeln!(out, "{v}");
        }
    }
    if a.profile {
        let _ = writeln!(err, "total_dyn_inst: {}", result.dyn_inst);
    }
    (out, err, result.is_ok())
}
