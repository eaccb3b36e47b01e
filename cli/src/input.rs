//! Reading a program: file or stdin, language from the extension or `--lang`, errors
//! rendered the way compilers print them.

use optlab_core::diag::SourceFile;
use optlab_core::ir::{Lang, Module};
use std::io::Read;

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
