//! Reading a program: file or stdin, language from the extension or `--lang`, errors
//! rendered the way compilers print them.

use clap::ValueEnum;
use optlab_core::diag::{SourceFile, Span};
use optlab_core::ir::{Lang, Module};
use std::io::Read;

#[derive(Clone, Copy, ValueEnum)]
pub enum LangArg {
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

/// The program argument every reading subcommand shares.
#[derive(clap::Args)]
pub struct Source {
    /// The program to read; `-` reads standard input.
    pub file: String,
    /// The language, when the file name does not say (`.bril`, `.sil`).
    #[arg(long, value_enum)]
    pub lang: Option<LangArg>,
}

impl Source {
    pub fn load(&self) -> Result<Input, Failure> {
        load(&self.file, self.lang.map(Into::into))
    }
}

/// A failure the CLI reports and exits 1 on; the text is already formatted for the user.
#[derive(Debug)]
pub struct Failure(pub String);

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure(s)
    }
}

/// The program named on the command line, read and parsed.
pub struct Input {
    pub module: Module,
    pub file: SourceFile,
}

pub fn lang_of(path: &str, explicit: Option<Lang>) -> Result<Lang, Failure> {
    if let Some(l) = explicit {
        return Ok(l);
    }
    Lang::from_path(path).ok_or_else(|| {
        Failure(format!(
            "{path}: error: cannot tell the language from the file name; use `--lang bril` or `--lang sil`"
        ))
    })
}

pub fn read_text(path: &str) -> Result<String, Failure> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| Failure(format!("<stdin>: error: cannot read: {e}")))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| Failure(format!("{path}: error: cannot read: {e}")))
    }
}

impl Input {
    /// `FILE:LINE:COL: severity: message`, one line, at `span` (a function's header): for
    /// notes and errors about a whole function, where the source excerpt would be noise.
    pub fn at(&self, span: Span, severity: &str, message: &str) -> String {
        let lc = self.file.line_col(span.lo);
        format!("{}:{}:{}: {severity}: {message}", self.file.name, lc.line, lc.col)
    }
}

/// Reads and parses `path`; any parse error becomes a rendered failure.
pub fn load(path: &str, lang: Option<Lang>) -> Result<Input, Failure> {
    let lang = lang_of(path, lang)?;
    let text = read_text(path)?;
    let name = if path == "-" { "<stdin>" } else { path };
    let file = SourceFile::new(name, text);
    match optlab_core::parse_module(lang, name, &file.text) {
        Ok(module) => Ok(Input { module, file }),
        Err(diags) => Err(Failure(diags.render(&file))),
    }
}
