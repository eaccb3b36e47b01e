//! `optlab`: the lab's analyses on the command line, as JSON, DOT, Markdown or text for
//! scripts and slides. Every subcommand reads one program (`-` for stdin); the language comes
//! from the extension (`.sil`, `.bril`) or `--lang`.

mod graphs;
mod input;
mod opt;
mod ownership;
mod passes;
mod types;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use input::{Failure, LangArg, Source};
use optlab_core::ir::verify;
use optlab_core::passes::{by_slug, pipeline, slugs};
use optlab_core::print::{print_function, print_module, Naming};
use std::process::ExitCode;

/// mimalloc rather than glibc's malloc: the analyses of a large function make and free
/// hundreds of thousands of small objects, and glibc's free lists and consolidations were up
/// to a third of a pass at 10^5 blocks (see the workspace's Cargo.toml, BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "optlab", version, about = "See compiler optimizations work: SIL and Bril analyses from the command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
        /// Also run the ownership verifier on OSSA functions (Swift's messages, with the value,
        /// user and block).
        #[arg(long)]
        ownership: bool,
        /// With --ownership: text diagnostics or JSON.
        #[arg(long, value_enum, default_value = "text")]
        format: ownership::OwnershipFormat,
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
    /// Natural loops (back edges whose target dominates their source; Aho, Lam, Sethi, Ullman
    /// §9.6): each loop's header, back edges, body, depth and nesting, and the edges where the
    /// graph is irreducible.
    Loops {
        #[command(flatten)]
        src: Source,
        #[arg(long, value_enum, default_value = "text")]
        format: GraphFormat,
    },
    /// Run a pipeline of passes on every function and print the optimized program (the
    /// passes and the default pipeline are listed below).
    Opt {
        #[command(flatten)]
        src: Source,
        /// The passes, in order, separated by commas (e.g. `lcm,copyprop,dce`); a pass may repeat.
        #[arg(long, value_name = "LIST", default_value = pipeline::DEFAULT)]
        passes: String,
        #[command(flatten)]
        out: passes::PassOpts,
        /// LCM: treat `add a b` and `add b a` as one expression.
        #[arg(long)]
        commute: bool,
        /// Into SSA: write φs as Bril's deprecated `phi` instead of `set`/`get`.
        #[arg(long)]
        phi: bool,
    },
    /// Classify every type of each SIL function as Swift's type lowering does — trivial,
    /// loadable, address-only (or unknown when the text cannot decide) — with the reason and
    /// where it is declared; warnings (e.g. `load [trivial]` of a non-trivial type) go to stderr.
    Types {
        #[command(flatten)]
        src: Source,
        /// Only this function.
        #[arg(long)]
        function: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: types::TypesFormat,
        /// What-if: substitute a generic parameter, e.g. `--subst T=Int` (repeatable).
        #[arg(long, value_name = "PARAM=TYPE")]
        subst: Vec<String>,
        /// Treat this declared struct or enum as resilient (library evolution, used from another
        /// module): address-only (repeatable).
        #[arg(long, value_name = "TYPE")]
        resilient: Vec<String>,
        /// Opaque-values SIL (address-only object values allowed); default: as the file's RUN
        /// line says (`-enable-sil-opaque-values`).
        #[arg(long)]
        opaque_values: Option<bool>,
    },
    /// Ownership of each OSSA function: every value's kind (none, owned, guaranteed,
    /// unowned) with its reason, every operand's constraint, lifetimes and borrow scopes.
    Ownership {
        #[command(flatten)]
        src: Source,
        /// Only this function.
        #[arg(long)]
        function: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: ownership::OwnershipFormat,
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
        /// Arguments of the entry function, after the file or after `--`. Negative numbers
        /// (`-5`, `-2.5`) are arguments, not options.
        // Not `allow_hyphen_values`: with it the first argument swallows everything after it,
        // so `run p.bril 5 --profile` passed `--profile` to the program and a mistyped
        // option became a silent argument. Anything else starting with `-` goes after `--`.
        #[arg(allow_negative_numbers = true)]
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

fn run(command: Command) -> Result<String, Failure> {
    match command {
        Command::Gen { blocks, seed, lang } => gen(blocks, seed, lang),
        Command::Check { src, .. } => {
            let input = src.load()?;
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
            let input = src.load()?;
            let naming = if renumber { Naming::Renumber } else { Naming::User };
            Ok(print_module(&input.module, naming))
        }
        Command::Cfg { src, format } => {
            let input = src.load()?;
            graphs::cfg(&input.module, format)
        }
        Command::Dom { src, post, format } => {
            let input = src.load()?;
            graphs::dom(&input.module, post, format)
        }
        Command::Cdg { src, format } => {
            let input = src.load()?;
            graphs::cdg(&input.module, format)
        }
        Command::Loops { src, format } => {
            let input = src.load()?;
            graphs::loops(&input.module, format)
        }
        // `main` handles these itself: they write to both streams.
        Command::Run { .. } | Command::Opt { .. } | Command::Types { .. } | Command::Ownership { .. } => Err(Failure("error: handled separately".into())),
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
    let input = match src.load() {
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

/// The subcommands that come before the passes in `--help`, in this order.
const FIRST: &[&str] = &["check", "print", "cfg", "dom", "cdg", "types", "ownership"];

/// The command line: the derived subcommands, one subcommand per registered pass (built from
/// the registry, see `passes`), and help that lists the passes and the default pipeline.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    for (k, name) in FIRST.iter().enumerate() {
        cmd = cmd.mut_subcommand(name, |c| c.display_order(k));
    }
    let cmd = passes::add_subcommands(cmd, FIRST.len());
    let next = FIRST.len() + optlab_core::passes::REGISTRY.len();
    let opt_about = format!(
        "Run passes in order on every function and print the optimized program (--passes: {}; default {})",
        slugs(),
        pipeline::DEFAULT
    );
    cmd.mut_subcommand("opt", |c| c.about(opt_about).after_help(passes::help_listing()).display_order(next))
        .mut_subcommand("gen", |c| c.display_order(next + 1))
        .mut_subcommand("run", |c| c.display_order(next + 2))
        .after_help(passes::help_listing())
}

/// Prints an answer (notes on stderr) or the failure, and gives the exit code.
fn finish(r: Result<opt::Done, Failure>) -> ExitCode {
    match r {
        Ok(done) => {
            print!("{}", done.stdout);
            eprint!("{}", done.notes);
            ExitCode::SUCCESS
        }
        Err(Failure(msg)) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}

fn answer(r: Result<String, Failure>) -> Result<opt::Done, Failure> {
    r.map(|stdout| opt::Done { stdout, notes: String::new() })
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    if let Some((name, sub)) = matches.subcommand() {
        if let Some(pass) = by_slug(name) {
            return finish(answer(passes::run_pass(pass, sub)));
        }
    }
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.command {
        Command::Run { src, args, function, profile, step_limit } => run_program(src, args, function, profile, step_limit),
        Command::Opt { src, passes, out, commute, phi } => {
            let a = opt::OptArgs { passes: &passes, renumber: out.renumber, trace_json: out.trace.is_some(), stats: out.stats, commute, phi };
            finish(src.load().and_then(|input| opt::opt(&input, &a)))
        }
        Command::Types { src, function, format, subst, resilient, opaque_values } => {
            let a = types::TypesArgs { function: function.as_deref(), format, subst: &subst, resilient: &resilient, opaque_values };
            finish(src.load().and_then(|input| types::types(&input, &a)))
        }
        Command::Ownership { src, function, format } => {
            finish(src.load().and_then(|input| ownership::ownership(&input, function.as_deref(), format)))
        }
        Command::Check { src, ownership: true, format } => {
            // Structural errors first: the verifier assumes a well-formed function.
            let structural = run(Command::Check { src: Source { file: src.file.clone(), lang: src.lang, with: src.with.clone() }, ownership: false, format });
            if let Err(e) = structural {
                return finish(Err(e));
            }
            finish(src.load().and_then(|input| ownership::check(&input, format)))
        }
        command => finish(answer(run(command))),
    }
}
