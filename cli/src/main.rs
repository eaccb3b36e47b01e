//! `optlab`: the lab's analyses on the command line, as JSON, DOT, Markdown or text for
//! scripts and slides. Every subcommand reads one program (`-` for stdin); the language comes
//! from the extension (`.sil`, `.bril`) or `--lang`.

mod graphs;
mod input;

use clap::{Parser, Subcommand, ValueEnum};
use input::{load, Failure};
use optlab_core::ir::{verify, Lang};
use optlab_core::print::{print_module, Naming};
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
}

fn run(cli: Cli) -> Result<String, Failure> {
    match cli.command {
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
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
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
