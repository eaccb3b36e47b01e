//! The passes and the interpreter on the command line.
//!
//! Every registered pass ([`REGISTRY`]) is a subcommand named by its slug, its help taken
//! from its [`PassInfo`]; clap's derive cannot make variants at run time, so these
//! subcommands are built with clap's builder API from the registry. A pass with options of
//! its own (DCE's `--explain`, LCM's tables) has a [`Driver`] here; any other pass gets the
//! generic one (`--renumber`, `--trace json`, `--stats`), the one-pass case of `opt`. So a
//! new pass needs no CLI edit unless it brings options of its own.

use crate::input::{Failure, Input, Source};
use crate::opt;
use clap::{ArgMatches, Args, FromArgMatches};
use optlab_core::interp::{self, RunConfig};
use optlab_core::ir::{Function, Lang, Module};
use optlab_core::passes::{dce, lcm, pipeline, Options, Pass, PassInfo, REGISTRY};
use optlab_core::print::{print_function, print_module, Naming};
use std::fmt::Write;

/// How the CLI drives one pass: what its subcommand prints, the options it adds, and how it
/// answers given the parsed arguments.
struct Driver {
    slug: &'static str,
    /// Completes the pass's name in its one-line help: "…: prints the optimized program".
    prints: &'static str,
    augment: fn(clap::Command) -> clap::Command,
    run: fn(&'static PassInfo, &Input, &ArgMatches) -> Result<String, Failure>,
}

fn parsed<T: FromArgMatches>(m: &ArgMatches) -> Result<T, Failure> {
    T::from_arg_matches(m).map_err(|e| Failure(format!("error: {e}")))
}

/// The passes with options of their own; the others get [`GENERIC`].
static DRIVERS: &[Driver] = &[
    Driver {
        slug: "dce",
        prints: "prints the optimized program",
        augment: DceOpts::augment_args,
        run: |_, input, m| {
            let o: DceOpts = parsed(m)?;
            let args = DceArgs {
                renumber: o.renumber,
                trace_json: o.trace.is_some(),
                explain: o.explain.as_deref(),
                function: o.function.as_deref(),
                stats: o.stats,
            };
            dce(input, args)
        },
    },
    Driver {
        slug: "lcm",
        prints: "predicate tables, or the transformed program",
        augment: LcmOpts::augment_args,
        run: |_, input, m| {
            let o: LcmOpts = parsed(m)?;
            let args = LcmArgs { format: o.format.as_deref(), expr: o.expr.as_deref(), emit: o.emit, commute: o.commute };
            lcm(input, args)
        },
    },
    Driver {
        slug: "ssa",
        prints: "prints the program in SSA form",
        augment: SsaOpts::augment_args,
        run: |info, input, m| {
            let o: SsaOpts = parsed(m)?;
            let opts = Options { phi_form: o.phi, ..Options::default() };
            opt::single(input, info.slug, o.pass.renumber, o.pass.trace.is_some(), o.pass.stats, &opts)
        },
    },
];

#[derive(Args)]
struct SsaOpts {
    #[command(flatten)]
    pass: PassOpts,
    /// Write φs as Bril's deprecated `phi` (`x.2: int = phi x.1 x.3 .entry .body`) instead of
    /// `set`/`get`.
    #[arg(long)]
    phi: bool,
}

/// A pass without options of its own: the one-pass pipeline, where a refusal is an error
/// (the user asked for this pass on this program).
static GENERIC: Driver = Driver {
    slug: "",
    prints: "prints the optimized program",
    augment: PassOpts::augment_args,
    run: |info, input, m| {
        let o: PassOpts = parsed(m)?;
        opt::single(input, info.slug, o.renumber, o.trace.is_some(), o.stats, &Options::default())
    },
};

fn driver(slug: &str) -> &'static Driver {
    DRIVERS.iter().find(|d| d.slug == slug).unwrap_or(&GENERIC)
}

#[derive(Args)]
struct DceOpts {
    /// SIL: number blocks and values as sil-opt prints.
    #[arg(long)]
    renumber: bool,
    /// Print the pass's trace instead of the program (`json`).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    trace: Option<String>,
    /// Explain why the instruction at BLOCK:INDEX (0-based, terminator last) is live or dead.
    #[arg(long, value_name = "BLOCK:INDEX")]
    explain: Option<String>,
    /// The function for --explain / --trace (default: the only one, or main).
    #[arg(long)]
    function: Option<String>,
    /// Append a line counting what was removed.
    #[arg(long)]
    stats: bool,
}

#[derive(Args)]
struct LcmOpts {
    /// json (every expression), or a table: markdown, latex, csv.
    #[arg(long)]
    format: Option<String>,
    /// The expression a table shows, as `op arg1 arg2` (e.g. "add a b"); in SIL as the tables
    /// write it (e.g. 'builtin "add_Int64"(%0, %1)')
    #[arg(long)]
    expr: Option<String>,
    /// Print the transformed program instead.
    #[arg(long)]
    emit: bool,
    /// Treat `add a b` and `add b a` as one expression.
    #[arg(long)]
    commute: bool,
}

/// The options every pass run shares, alone or in `opt`'s pipeline.
#[derive(Args)]
pub struct PassOpts {
    /// SIL: number blocks and values as sil-opt prints.
    #[arg(long)]
    pub renumber: bool,
    /// Print every function's stages (outcome, counts, summary line, the pass's own trace)
    /// instead of the program (`json`).
    #[arg(long, value_name = "FORMAT", value_parser = ["json"])]
    pub trace: Option<String>,
    /// Append each stage's summary line for every function.
    #[arg(long)]
    pub stats: bool,
}

/// The subcommand of `pass`, from its registry entry and its driver.
fn subcommand(info: &'static PassInfo) -> clap::Command {
    let d = driver(info.slug);
    let about = format!("{}: {}", info.name, d.prints);
    let mut summary = info.summary.chars();
    let first = summary.next().map(|c| c.to_uppercase().to_string()).unwrap_or_default();
    let long_about = format!("{about}.\n\n{first}{}. Runs on {}.", summary.as_str(), info.lang_names());
    // Augmenting with derived arguments sets the help from their doc comments: ours last.
    let cmd = (d.augment)(Source::augment_args(clap::Command::new(info.slug)));
    cmd.about(about).long_about(long_about)
}

/// Adds a subcommand per registered pass to `cmd`, with display order from `order` on.
pub fn add_subcommands(mut cmd: clap::Command, order: usize) -> clap::Command {
    for (k, p) in REGISTRY.iter().enumerate() {
        cmd = cmd.subcommand(subcommand(p.info()).display_order(order + k));
    }
    cmd
}

/// The lines `optlab --help` ends with: every pass and the default pipeline.
pub fn help_listing() -> String {
    let width = REGISTRY.iter().map(|p| p.info().slug.len()).max().unwrap_or(0);
    let mut s = String::from("Passes (subcommands, and names for `opt --passes`):\n");
    for p in REGISTRY {
        let i = p.info();
        let _ = writeln!(s, "  {:width$}  {}; {}", i.slug, i.name, i.lang_names());
    }
    let _ = write!(s, "Default pipeline: {}", pipeline::DEFAULT);
    s
}

/// Runs the pass subcommand `pass` with its arguments.
pub fn run_pass(pass: &dyn Pass, m: &ArgMatches) -> Result<String, Failure> {
    let src: Source = parsed(m)?;
    let input = src.load()?;
    let info = pass.info();
    (driver(info.slug).run)(info, &input, m)
}

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
    // A function LCM cannot transform for a stated reason (a SIL critical edge out of a
    // `switch_enum` …) is left unchanged with a note on stderr; a malformed one is an error.
    let (module, results) = lcm::run_module_lenient(&input.module, &opts);
    let mut outputs = Vec::new();
    for r in results {
        match r {
            Ok(o) => outputs.push(o),
            Err(e @ lcm::LcmError::Unsupported { .. }) => eprintln!("note: left unchanged: {e}"),
            Err(e) => return Err(Failure(format!("error: {e}"))),
        }
    }
    if a.emit {
        // Say why a function comes out as it went in, so an unchanged function is never
        // mistaken for one LCM did not look at.
        for o in &outputs {
            let Some(before) = input.module.function(&o.name) else { continue };
            if print_function(before, Naming::User) != print_function(&o.result, Naming::User) {
                continue;
            }
            let n = o.exprs.len();
            let why = if n == 0 {
                "it has no candidate expression (a pure computation on trivial values)".to_string()
            } else {
                format!("none of its {n} candidate expression{} is partially redundant", if n == 1 { "" } else { "s" })
            };
            eprintln!("note: @{} left unchanged: {why}", o.name);
        }
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
    let args = if a.args.is_empty() && input.module.lang == Lang::Bril && !input.args_are_folders {
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
