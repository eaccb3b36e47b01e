//! `optlab`: the lab's analyses on the command line, as JSON, DOT, Markdown or text for
//! scripts and slides. Every subcommand reads one program (`-` for stdin); the language comes
//! from the extension (`.sil`, `.bril`) or `--lang`.

mod graphs;
mod input;
mod passes;

use clap::{Parser, Subcommand, ValueEnum};
use input::{load, Failure};
use optlab_core::ir::{verify, Lang};
use optlab_core::print::{print_function, print_module, Naming};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "optlab", version, about = "See compiler optimizations work: SIL and Bril analyses from the command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum LangArg {
    Bril,
    Sil,
}

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Lang {
        match l {
            LangArg::Bril => Lang::Bril,
            LangArg::Sil => Lang::Sil,
        }
    }
}

#[derive(clap::Args)]
struct Source {
    /// The program to read; `-` reads standard input.
    file: String,
    /// The language, when the file name does not say (`.bril`, `.sil`).
    #[arg(long, value_enum)]
    lang: Option<LangArg>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum GraphFormat {
    Json,
    Dot,
    Text,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and verify; print errors as FILE:LINE:COL and exit 1 if there are any.
    Check {
        #[command(flatten)]
        src: Source,
    },
    /// Print the program back (user names kept).
    Print {
        #[command(flatten)]
        src: Source,
        /// SIL: number blocks bb0… and values %0… in order, as sil-opt prints.
        #[arg(long)]
        renumber: bool,
    },
    /// The control-flow graph of every function.
    Cfg {
        #[command(flatten)]
        src: Source,
        #[arg(long, value_enum, default_value = "json")]
        format: GraphFormat,
    },
    /// Immediate dominators and dominance frontiers (post-dominators with --post).
    Dom {
        #[command(flatten)]
        src: Source,
        /// Post-dominators (a virtual exit joins every exit block).
        #[arg(long)]
        post: bool,
        #[arg(long, value_enum, default_value = "json")]
        format: GraphFormat,
    },
    /// Control dependence: for each block, the blocks whose branch decides whether it runs.
    Cdg {
        #[command(flatten)]
        src: Source,
        #[arg(long, value_enum, default_value = "json")]
        format: GraphFormat,
    },
    /// Aggressive dead code elimination (seed 000): prints the optimized program.
    Dce {
        #[command(flatten)]
        src: Source,
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
    },
    /// Lazy code motion (seed 004) on Bril: predicate tables, or the transformed program.
    Lcm {
        #[command(flatten)]
        src: Source,
        /// json (every expression), or a table: markdown, latex, csv.
        #[arg(long)]
        format: Option<String>,
        /// The expression a table shows, as `op arg1 arg2` (e.g. "add a b").
        #[arg(long)]
        expr: Option<String>,
        /// Print the transformed program instead.
        #[arg(long)]
        emit: bool,
        /// Treat `add a b` and `add b a` as one expression.
        #[arg(long)]
        commute: bool,
    },
    /// Print a generated structured function of about N blocks (loops, branches, early
    /// returns): stress input for benchmarks and the browser.
    Gen {
        /// How many blocks, roughly (the generator finishes the construct it is in).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_GEN_BLOCKS))]
        blocks: u64,
        /// Seed of the generator: the same seed and size give the same program.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The language to print (only Bril is generated).
        #[arg(long, value_enum, default_value = "bril")]
        lang: LangArg,
    },
    /// Run the program in the interpreter (Bril: @main; SIL: --function NAME).
    Run {
        #[command(flatten)]
        src: Source,
        /// Arguments of the entry function.
        args: Vec<String>,
        #[arg(long)]
        function: Option<String>,
        /// Print `total_dyn_inst: N` (executed instructions) on stderr.
        #[arg(long)]
        profile: bool,
        /// Stop after this many executed instructions.
        #[arg(long)]
        step_limit: Option<u64>,
    },
}

/// More blocks than any browser view can show; bigger asks are a typo.
const MAX_GEN_BLOCKS: u64 = 100_000;

fn run(cli: Cli) -> Result<String, Failure> {
    match cli.command {
        Command::Gen { blocks, seed, lang } => gen(blocks, seed, lang),
        Command::Check { src } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            let mut errors = optlab_core::Diagnostics::default();
            for f in input.module.bodies() {
                if let Err(d) = verify(f) {
                    errors.0.extend(d.0);
                }
            }
            if errors.has_errors() {
                return Err(Failure(errors.render(&input.file)));
            }
            let n = input.module.bodies().count();
            Ok(format!("{}: ok ({n} function{})\n", input.file.name, if n == 1 { "" } else { "s" }))
        }
        Command::Print { src, renumber } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            let naming = if renumber { Naming::Renumber } else { Naming::User };
            Ok(print_module(&input.module, naming))
        }
        Command::Cfg { src, format } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            graphs::cfg(&input.module, format)
        }
        Command::Dom { src, post, format } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            graphs::dom(&input.module, post, format)
        }
        Command::Cdg { src, format } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            graphs::cdg(&input.module, format)
        }
        Command::Dce { src, renumber, trace, explain, function, stats } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            let args = passes::DceArgs {
                renumber,
                trace_json: trace.is_some(),
                explain: explain.as_deref(),
                function: function.as_deref(),
                stats,
            };
            passes::dce(&input, args)
        }
        Command::Lcm { src, format, expr, emit, commute } => {
            let input = load(&src.file, src.lang.map(Into::into))?;
            let args = passes::LcmArgs { format: format.as_deref(), expr: expr.as_deref(), emit, commute };
            passes::lcm(&input, args)
        }
        // `main` handles `run` itself: it writes to both streams.
        Command::Run { .. } => Err(Failure("error: `run` is handled separately".into())),
    }
}

fn gen(blocks: u64, seed: u64, lang: LangArg) -> Result<String, Failure> {
    if let LangArg::Sil = lang {
        return Err(Failure("error: gen makes Bril programs only (--lang bril)".into()));
    }
    let blocks = usize::try_from(blocks).map_err(|_| Failure("error: --blocks is too large".into()))?;
    let f = optlab_core::testgen::structured_function(blocks, seed);
    Ok(print_function(&f, Naming::User))
}

/// `run` prints the program's own output and, separately, errors and the profile.
fn run_program(src: Source, args: Vec<String>, function: Option<String>, profile: bool, step_limit: Option<u64>) -> ExitCode {
    let input = match load(&src.file, src.lang.map(Into::into)) {
        Ok(i) => i,
        Err(Failure(msg)) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    let a = passes::RunArgs { args: &args, function: function.as_deref(), profile, step_limit };
    let (out, err, ok) = passes::run(&input, a);
    print!("{out}");
    eprint!("{err}");
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Run { src, args, function, profile, step_limit } = cli.command {
        return run_program(src, args, function, profile, step_limit);
    }
    match run(cli) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(Failure(msg)) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}
