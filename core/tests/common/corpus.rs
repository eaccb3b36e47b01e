//! What each file of the shared corpus is expected to do — the one place every corpus-walking
//! test asks, instead of assuming that every file under a folder parses.
//!
//! The expectation comes from the corpus's own notes, never from a list kept here:
//!
//! - Swift files: the `SOURCES.md` beside them. A row whose note says *error expected* is a
//!   file Swift rejects (its parser or verifier), unless the note adds that the SIL itself
//!   parses (the error comes from a diagnostic pass the lab does not have).
//! - Bril files: the `turnt.toml` of their folder and the file's own `# RETURN:` line, as Bril's
//!   test runner reads them. A folder whose checker (`brilck`) is expected to exit non-zero holds
//!   invalid programs; the `.err` beside each gives the positions Bril's checker reports.
//!
//! A third state is the lab's, not the corpus's: *not read yet*, a known gap, listed in
//! `core/tests/corpus/not-read-yet.txt` with the missing feature and the issue that adds it.
//! That list may only shrink: `corpus_expectations.rs` fails when a listed file starts to meet
//! its expectation (take it off) and when an unlisted one stops meeting it.

use optlab_core::ir::{verify, Lang, Module};
use optlab_core::print::{print_module, Naming};
use optlab_core::{parse_module, SourceFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a corpus file should do in the lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Valid: parses, every function verifies, and it prints back to the same module.
    Parses,
    /// Invalid on purpose: refused with errors at source positions. `lines` are the lines the
    /// reference tool reports (Bril's `.err`, Swift's `expected-error` annotations); empty
    /// where the corpus does not say.
    Rejected { by: Refuser, lines: Vec<u32> },
}

/// Which part of the lab must refuse an invalid file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refuser {
    /// The parser or the verifier, whichever: the reference names the lines.
    Either,
    /// A verifier (structure or ownership), after the parser accepts: a Swift file without
    /// `expected-error` lines is one Swift's parser reads and its verifier rejects.
    Verifier,
}

/// A known gap from the shrink-only list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    pub missing: String,
    pub added_by: String,
}

/// The check a gap is about: `read` (the file's own expectation: parse, verify, print back),
/// or the name of one later check on a file that is read (`types`: every type classified).
pub type Check = String;

#[derive(Clone, Debug)]
pub struct CorpusFile {
    pub path: PathBuf,
    /// The path under `corpus/`, with `/` separators: the key of the shrink-only list.
    pub rel: String,
    pub lang: Lang,
    pub expect: Expect,
    /// Its gap in reading, from the shrink-only list.
    pub gap: Option<Gap>,
    /// Its gaps in later checks (keyed by check), from the same list.
    pub later_gaps: BTreeMap<Check, Gap>,
}

impl CorpusFile {
    /// The folder its counts are reported under: the first two levels of `rel`
    /// (`bril/benchmarks`, `swift/conformance`) or the language's root (`swift`).
    pub fn folder(&self) -> String {
        let parts: Vec<&str> = self.rel.split('/').collect();
        parts[..parts.len().saturating_sub(1).clamp(1, 2)].join("/")
    }

    /// Valid and read by the lab: the files a test of a valid program's behaviour takes.
    pub fn is_read_valid(&self) -> bool {
        self.expect == Expect::Parses && self.gap.is_none()
    }

    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap_or_else(|e| panic!("{}: {e}", self.path.display()))
    }

    /// The program the file is part of: its text, and for a Bril file with imports, every
    /// file it imports after a `// file:` line, found next to the importing file or in the
    /// folders its `# ARGS:` line names when its folder's `turnt.toml` passes them as
    /// `--libs` (Bril's linking tests). Those folders are paths of Bril's repository,
    /// mapped into the corpus through the table of `bril/SOURCES.md`.
    pub fn program_text(&self) -> String {
        let text = self.text();
        if self.lang != Lang::Bril || optlab_core::parse::bril::import_paths(&text).is_empty() {
            return text;
        }
        let dir = self.path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let folders: Vec<PathBuf> = if turnt_passes_libs(&dir) {
            optlab_core::interp::bril::args_from_source(&text).iter().filter_map(|a| corpus_folder(&self.path, a)).collect()
        } else {
            Vec::new()
        };
        // Files are named by their paths, so an import is looked for next to the file that
        // imports it, then in the folders.
        let first = vec![(self.path.to_string_lossy().to_string(), text)];
        let files = optlab_core::parse::bril::with_imported(first, |imp, importer| {
            let here = Path::new(importer).parent().unwrap_or(Path::new(".")).join(imp);
            let found = std::iter::once(here).chain(folders.iter().map(|d| d.join(imp))).find(|p| p.is_file());
            Ok::<_, std::convert::Infallible>(found.map(|p| (p.to_string_lossy().to_string(), std::fs::read_to_string(&p).unwrap_or_default())))
        });
        let Ok(files) = files;
        optlab_core::parse::bril::join_files(&files)
    }

    /// What running the program prints, when the corpus says: the `.out` beside it, where
    /// its folder has no `turnt.toml` (the interpreter's tests) or one whose default
    /// environment pipes the program into an interpreter (`brili`, `brilirs`) and keeps its
    /// standard output as `.out`. With the arguments of its `# ARGS:` line (none where the
    /// runner passes them as `--libs`).
    pub fn expected_run(&self) -> Option<(Vec<String>, String)> {
        if self.lang != Lang::Bril {
            return None;
        }
        let out = std::fs::read_to_string(self.path.with_extension("out")).ok()?;
        let dir = self.path.parent()?;
        let text = self.text();
        let args = optlab_core::interp::bril::args_from_source(&text);
        match std::fs::read_to_string(dir.join("turnt.toml")) {
            Err(_) => Some((args, out)),
            Ok(toml) => {
                let env = turnt_envs(&toml).into_iter().find(|e| {
                    let last = e.command.rsplit('|').next().unwrap_or("");
                    e.default && last.contains("brili") && (e.outputs.is_empty() || e.outputs.iter().any(|o| o == "out"))
                })?;
                let args = if env.command.contains("--libs {args}") { Vec::new() } else { args };
                Some((args, out))
            }
        }
    }

    /// Parses the file; panics with the rendered diagnostics if it does not.
    pub fn module(&self) -> Module {
        let text = self.program_text();
        parse_module(self.lang, &self.rel, &text)
            .unwrap_or_else(|d| panic!("{} does not parse:\n{}", self.rel, d.render(&SourceFile::new(&*self.rel, &*text))))
    }
}

/// Every `.bril` and `.sil` file of `shared/corpus`, sorted, each with its expectation and
/// its entry on the shrink-only list. Panics on a list entry that names no corpus file, so
/// the list cannot keep stale lines.
pub fn files(shared: &Path) -> Vec<CorpusFile> {
    let root = shared.join("corpus");
    let gaps = not_read_yet();
    let mut out = Vec::new();
    for ext in ["bril", "sil"] {
        for path in super::files_with_ext(&root, ext) {
            let rel = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            let lang = Lang::from_path(&rel).expect("a .bril or .sil file");
            let expect = match lang {
                Lang::Sil => swift_expectation(&path),
                Lang::Bril => bril_expectation(&path),
            };
            let gap = gaps.get(&(rel.clone(), "read".to_string())).cloned();
            let later_gaps =
                gaps.iter().filter(|((p, c), _)| *p == rel && c != "read").map(|((_, c), g)| (c.clone(), g.clone())).collect();
            out.push(CorpusFile { path, rel, lang, expect, gap, later_gaps });
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    let stale: Vec<&String> = gaps.keys().map(|(p, _)| p).filter(|k| !out.iter().any(|f| &f.rel == *k)).collect();
    assert!(stale.is_empty(), "not-read-yet.txt lists files the corpus does not hold: {stale:?}");
    out
}

/// The files of one language that are valid and read: what the tests of valid programs walk.
pub fn read_valid(shared: &Path, lang: Lang) -> Vec<CorpusFile> {
    files(shared).into_iter().filter(|f| f.lang == lang && f.is_read_valid()).collect()
}

/// The shrink-only list, keyed by (path, check): lines `path | what is missing | the issue
/// that adds it`, where `path` may end in ` [check]` for a gap in a later check than reading
/// the file; `#` starts a comment.
pub fn not_read_yet() -> BTreeMap<(String, Check), Gap> {
    let text = include_str!("../corpus/not-read-yet.txt");
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [path, missing, added_by] = cells[..] else {
            panic!("not-read-yet.txt:{}: want `path | what is missing | issue`, found `{line}`", n + 1)
        };
        assert!(!missing.is_empty() && !added_by.is_empty(), "not-read-yet.txt:{}: empty cell", n + 1);
        let (path, check) = match path.strip_suffix(']').and_then(|p| p.rsplit_once(" [")) {
            Some((p, c)) => (p.trim(), c.trim()),
            None => (path, "read"),
        };
        let key = (path.to_string(), check.to_string());
        let dup = out.insert(key, Gap { missing: missing.into(), added_by: added_by.into() });
        assert!(dup.is_none(), "not-read-yet.txt:{}: `{path} [{check}]` listed twice", n + 1);
    }
    out
}

/// A later check's verdict on one read file against the shrink-only list: the file's
/// `problems` in `check` must be empty unless the list names a gap there, and must not be
/// empty if it does (then the gap is fixed: take it off the list). Returns what is wrong.
pub fn against_gap_list(file: &CorpusFile, check: &str, problems: &[String]) -> Option<String> {
    match (file.later_gaps.get(check), problems.first()) {
        (None, Some(p)) => Some(format!("{} [{check}]: {p}", file.rel)),
        (Some(_), None) => {
            Some(format!("{} [{check}]: now passes: take it off core/tests/corpus/not-read-yet.txt", file.rel))
        }
        _ => None,
    }
}

/// A Swift file's expectation from the `SOURCES.md` of its folder: the row whose first cell
/// names the file (a path relative to that folder).
fn swift_expectation(path: &Path) -> Expect {
    let Some(dir) = path.parent() else { return Expect::Parses };
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    // The file may sit in a subfolder of the one whose SOURCES.md lists it.
    let mut here = Some(dir);
    while let Some(d) = here {
        if let Ok(sources) = std::fs::read_to_string(d.join("SOURCES.md")) {
            let rel = path.strip_prefix(d).unwrap_or(path).to_string_lossy().replace('\\', "/");
            for row in sources.lines().filter(|l| l.starts_with('|')) {
                let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
                if cells.first().is_some_and(|c| *c == rel || *c == name) {
                    let note = cells.last().copied().unwrap_or("");
                    let rejected = note.contains("*error expected*") && !note.contains("the SIL itself parses");
                    return if rejected { swift_rejection(path) } else { Expect::Parses };
                }
            }
            return Expect::Parses;
        }
        here = d.parent().filter(|p| p.file_name().is_some_and(|n| n != "corpus"));
    }
    Expect::Parses
}

/// How Swift rejects a file: at the lines of its `expected-error` annotations (`-verify`
/// mode: on the annotation's own line, or `@+N`/`@-N` lines from it), or, when it has none,
/// in its verifier (the `RUN: not --crash` tests): the parser accepts it.
fn swift_rejection(path: &Path) -> Expect {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(k) = line.find("expected-error") else { continue };
        let rest = line[k + "expected-error".len()..].trim_start();
        let offset = rest
            .strip_prefix('@')
            .and_then(|r| {
                let end = r.find(|c: char| !(c == '+' || c == '-' || c.is_ascii_digit())).unwrap_or(r.len());
                r[..end].trim_start_matches('+').parse::<i64>().ok()
            })
            .unwrap_or(0);
        lines.push((i as i64 + 1 + offset).max(1) as u32);
    }
    let by = if lines.is_empty() { Refuser::Verifier } else { Refuser::Either };
    Expect::Rejected { by, lines }
}

/// A Bril file's expectation from its folder's `turnt.toml` as Bril's test runner reads it:
/// when an environment that runs by default checks the program with `brilck` and expects a
/// non-zero exit (after the file's own `# RETURN: N`), the program is invalid, and its `.err`
/// lists the `LINE:COL: message` errors the checker gives.
fn bril_expectation(path: &Path) -> Expect {
    let Some(dir) = path.parent() else { return Expect::Parses };
    let Ok(toml) = std::fs::read_to_string(dir.join("turnt.toml")) else { return Expect::Parses };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let own_return = text.lines().find_map(|l| l.trim().strip_prefix("# RETURN:").and_then(|v| v.trim().parse::<i32>().ok()));
    let checks_invalid = turnt_envs(&toml).iter().any(|env| {
        env.default && env.command.contains("brilck") && own_return.unwrap_or(env.return_code) != 0
    });
    if !checks_invalid {
        return Expect::Parses;
    }
    let err = std::fs::read_to_string(path.with_extension("err")).unwrap_or_default();
    let lines = err.lines().filter_map(|l| l.split(':').next()?.trim().parse::<u32>().ok()).collect();
    Expect::Rejected { by: Refuser::Either, lines }
}

struct TurntEnv {
    command: String,
    return_code: i32,
    default: bool,
    /// The outputs it checks, by extension (`out`, `prof`, `crude`); empty when none is named
    /// (turnt then keeps standard output as `.out`).
    outputs: Vec<String>,
}

/// Whether the `turnt.toml` of `dir` passes a program's `# ARGS:` to Bril's linker as
/// library folders (`--libs {args}`).
fn turnt_passes_libs(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("turnt.toml")).is_ok_and(|t| turnt_envs(&t).iter().any(|e| e.command.contains("--libs {args}")))
}

/// The corpus folder a path of Bril's repository, relative to a corpus file, stands for:
/// the file's folder and the path are both translated through the table of the corpus's
/// `bril/SOURCES.md` (corpus folder | path in sampsyo/bril).
fn corpus_folder(file: &Path, relative: &str) -> Option<PathBuf> {
    let bril_root = file.ancestors().find(|a| a.join("SOURCES.md").is_file() && a.file_name().is_some_and(|n| n == "bril"))?;
    let table = std::fs::read_to_string(bril_root.join("SOURCES.md")).ok()?;
    let rows: Vec<(String, String)> = table
        .lines()
        .filter(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(|c| c.trim().trim_matches('`').trim_end_matches('/')).collect();
            let (ours, theirs) = (cells.first()?.to_string(), cells.get(1)?.to_string());
            (!theirs.contains('{') && !theirs.is_empty() && !ours.contains(' ')).then_some((ours, theirs))
        })
        .collect();
    let here = file.parent()?.strip_prefix(bril_root).ok()?.to_string_lossy().replace('\\', "/");
    let (ours, theirs) = rows.iter().find(|(o, _)| here == *o || here.starts_with(&format!("{o}/")))?;
    let mut path: Vec<String> = format!("{theirs}{}", &here[ours.len()..]).split('/').map(str::to_string).collect();
    for part in relative.split('/') {
        match part {
            ".." => {
                path.pop()?;
            }
            "." | "" => {}
            p => path.push(p.to_string()),
        }
    }
    let target = path.join("/");
    let (ours, theirs) = rows.iter().find(|(_, t)| target == *t || target.starts_with(&format!("{t}/")))?;
    let dir = bril_root.join(format!("{ours}{}", &target[theirs.len()..]));
    dir.is_dir().then_some(dir)
}

/// The environments of a `turnt.toml` (the top level is one when it has a command): just the
/// three keys that decide whether a program is meant to be valid.
fn turnt_envs(toml: &str) -> Vec<TurntEnv> {
    let fresh = || TurntEnv { command: String::new(), return_code: 0, default: true, outputs: Vec::new() };
    let mut envs = vec![fresh()];
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            envs.push(fresh());
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let env = envs.last_mut().expect("one environment at least");
        if let Some(out) = key.trim().strip_prefix("output.") {
            env.outputs.push(out.trim_matches('"').to_string());
            continue;
        }
        if key.trim() == "output" && value.trim() == "{}" {
            env.outputs.push(String::new());
            continue;
        }
        match key.trim() {
            "command" => env.command = value.trim().trim_matches('"').to_string(),
            "return_code" => env.return_code = value.trim().parse().unwrap_or(0),
            "default" => env.default = value.trim() != "false",
            _ => {}
        }
    }
    envs.retain(|e| !e.command.is_empty());
    envs
}

/// What the lab did with a file, in the terms of [`Expect`].
#[derive(Debug)]
pub enum Outcome {
    /// Parsed, verified and printed back to the same module.
    Read,
    /// Parsed and verified, but did not print back to the same module.
    NoRoundTrip(String),
    /// Refused by the parser (`parsed` false) or a verifier: each error's `(line, col,
    /// message)`, `line` 0 when it had no position.
    Refused { parsed: bool, errors: Vec<(u32, u32, String)> },
    /// The parser, verifier or printer panicked.
    Panicked(String),
}

/// Parses, verifies (for `by_verifier`, also Swift's ownership rules on OSSA functions) and
/// round-trips one text, catching a panic as an outcome.
pub fn outcome(lang: Lang, name: &str, text: &str, by_verifier: bool) -> Outcome {
    let run = || {
        let file = SourceFile::new(name, text);
        let at = |span: optlab_core::Span, message: &str| {
            if span.is_empty() && span.lo == 0 {
                (0, 0, message.to_string())
            } else {
                let p = file.line_col(span.lo);
                (p.line, p.col, message.to_string())
            }
        };
        let m = match parse_module(lang, name, text) {
            Ok(m) => m,
            Err(d) => return Outcome::Refused { parsed: false, errors: d.iter().map(|e| at(e.span, &e.message)).collect() },
        };
        let mut errors: Vec<_> = m.bodies().filter_map(|f| verify(f).err()).flat_map(|d| d.0).map(|e| at(e.span, &e.message)).collect();
        if errors.is_empty() && by_verifier && lang == Lang::Sil {
            use optlab_core::sil::{ownership, types};
            let env = types::env_of(&m);
            for f in m.bodies() {
                let fo = ownership::analyze(f, &types::FunctionTypes::new(f, env.clone()));
                errors.extend(ownership::verify(f, &fo).findings.iter().map(|fd| at(fd.span, fd.message)));
            }
        }
        if !errors.is_empty() {
            return Outcome::Refused { parsed: true, errors };
        }
        let printed = print_module(&m, Naming::User);
        match parse_module(lang, name, &printed) {
            Ok(again) if again == m => Outcome::Read,
            Ok(_) => Outcome::NoRoundTrip("printing and parsing again changes the module".into()),
            Err(d) => Outcome::NoRoundTrip(format!(
                "the printed module does not parse: {}",
                d.iter().next().map(|e| e.message.clone()).unwrap_or_default()
            )),
        }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(o) => o,
        Err(p) => Outcome::Panicked(
            p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default(),
        ),
    }
}

impl CorpusFile {
    /// What the lab does with this file.
    pub fn outcome(&self) -> Outcome {
        let by_verifier = matches!(self.expect, Expect::Rejected { by: Refuser::Verifier, .. });
        outcome(self.lang, &self.rel, &self.program_text(), by_verifier)
    }
}

/// Whether `outcome` is what `expect` asks for; the reason when it is not.
pub fn meets(expect: &Expect, outcome: &Outcome) -> Result<(), String> {
    match (expect, outcome) {
        (_, Outcome::Panicked(p)) => Err(format!("panicked: {p}")),
        (Expect::Parses, Outcome::Read) => Ok(()),
        (Expect::Parses, Outcome::NoRoundTrip(why)) => Err(why.clone()),
        (Expect::Parses, Outcome::Refused { errors, .. }) => {
            let (l, c, m) = &errors[0];
            Err(format!("refused a valid file at {l}:{c}: {m}"))
        }
        (Expect::Rejected { .. }, Outcome::Read | Outcome::NoRoundTrip(_)) => Err("accepted a file meant to be invalid".into()),
        (Expect::Rejected { by: Refuser::Verifier, .. }, Outcome::Refused { parsed: false, errors }) => {
            let (l, c, m) = &errors[0];
            Err(format!("the parser refused at {l}:{c} what Swift's parser reads (its verifier rejects it): {m}"))
        }
        (Expect::Rejected { lines, .. }, Outcome::Refused { errors, .. }) => {
            if let Some((_, _, m)) = errors.iter().find(|e| e.0 == 0) {
                return Err(format!("an error without a source position: {m}"));
            }
            // Where the reference names its lines, an error on any other line is a
            // different error from the one the file is about.
            match errors.iter().find(|e| !lines.is_empty() && !lines.contains(&e.0)) {
                Some((l, c, m)) => Err(format!("an error at {l}:{c} where the reference reports none ({m})")),
                None => Ok(()),
            }
        }
    }
}
