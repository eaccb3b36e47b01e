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
    /// Bril: another file of the same program, which its imports name (`from "lib.bril"
    /// import @f;`); repeatable. Imported files next to the importing one, or in the
    /// folders its `# ARGS:` line names (as Bril's linking tests give them), are found
    /// without it.
    #[arg(long = "with", value_name = "FILE")]
    pub with: Vec<String>,
}

impl Source {
    pub fn load(&self) -> Result<Input, Failure> {
        load_with(&self.file, self.lang.map(Into::into), &self.with)
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
    /// Whether the program's `# ARGS:` line names the folders its imports come from (a program
    /// with imports: Bril's linking tests pass it to the linker) rather than `@main`'s
    /// arguments.
    pub args_are_folders: bool,
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

/// Reads and parses `path` (for a Bril program, with the files its imports name: `with` and
/// files found next to the importing file or in its `# ARGS:` folders, read into one text of
/// several files); any parse error becomes a rendered failure.
pub fn load_with(path: &str, lang: Option<Lang>, with: &[String]) -> Result<Input, Failure> {
    let lang = lang_of(path, lang)?;
    let text = read_text(path)?;
    let name = if path == "-" { "<stdin>" } else { path };
    let (text, args_are_folders) = if lang == Lang::Bril { with_imports(path, text, with)? } else { (text, false) };
    let file = optlab_core::parse::source_file(lang, name, &text);
    match optlab_core::parse_module(lang, name, &file.text) {
        Ok(module) => Ok(Input { module, file, args_are_folders }),
        Err(diags) => Err(Failure(diags.render(&file))),
    }
}

/// The program's text with every file it imports, transitively, after `// file:` lines.
/// An import no file answers stays unresolved: the parser reports it at its line.
fn with_imports(path: &str, text: String, with: &[String]) -> Result<(String, bool), Failure> {
    use optlab_core::parse::bril::{import_paths, join_files, with_imported};
    use std::path::Path;
    let imports = !import_paths(&text).is_empty();
    if !imports && with.is_empty() {
        return Ok((text, false));
    }
    let dir_of = |p: &str| Path::new(p).parent().map(Path::to_path_buf).unwrap_or_default();
    // Folders named by the `# ARGS:` line, relative to the program: Bril's linking tests pass
    // their library folders this way (brild's `--libs`).
    let folders: Vec<std::path::PathBuf> =
        optlab_core::interp::bril::args_from_source(&text).iter().map(|a| dir_of(path).join(a)).filter(|d| d.is_dir()).collect();
    let mut files: Vec<(String, String)> = vec![(path.to_string(), text)];
    for w in with {
        files.push((w.clone(), read_text(w)?));
    }
    // An imported file is looked for next to the file that imports it, then in the folders.
    let files = with_imported(files, |imp, importer| {
        let found = std::iter::once(dir_of(importer).join(imp)).chain(folders.iter().map(|d| d.join(imp))).find(|p| p.is_file());
        found.map(|p| p.to_string_lossy().to_string()).map(|p| read_text(&p).map(|t| (p, t))).transpose()
    })?;
    // In a program with imports, `# ARGS:` is the linker's (as in Bril's linking tests), not
    // `@main`'s.
    Ok((join_files(&files), imports))
}
