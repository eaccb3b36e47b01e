//! `optlab ownership` prints each value's ownership kind and each operand's constraint per
//! function (in the spirit of `sil-opt -ownership-dumper`), with lifetimes and borrow scopes;
//! `optlab check --ownership` runs the ownership verifier and reports Swift's errors as
//! FILE:LINE:COL with the value, user and block lines Swift prints.

use crate::input::{Failure, Input};
use crate::opt::Done;
use clap::ValueEnum;
use optlab_core::ir::Function;
use optlab_core::sil::ownership::{analyze, dump_text, json, verify, FunctionOwnership, Names, Verdict};
use optlab_core::sil::types::{env_of, FunctionTypes};
use std::fmt::Write;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OwnershipFormat {
    Text,
    Json,
}

fn functions<'m>(input: &'m Input, only: Option<&str>) -> Result<Vec<&'m Function>, Failure> {
    if input.module.lang != optlab_core::Lang::Sil {
        return Err(Failure(format!("{}: error: ownership is a SIL notion; this is a Bril program", input.file.name)));
    }
    match only {
        Some(name) => {
            let f = input.module.function(name).ok_or_else(|| Failure(format!("error: no function `{name}` in this file")))?;
            Ok(vec![f])
        }
        None => Ok(input.module.bodies().collect()),
    }
}

fn analyses<'m>(input: &'m Input, only: Option<&str>) -> Result<Vec<(&'m Function, FunctionOwnership, Verdict)>, Failure> {
    let env = env_of(&input.module);
    Ok(functions(input, only)?
        .into_iter()
        .map(|f| {
            let fo = analyze(f, &FunctionTypes::new(f, env.clone()));
            let v = verify(f, &fo);
            (f, fo, v)
        })
        .collect())
}

/// `optlab ownership FILE`.
pub fn ownership(input: &Input, function: Option<&str>, format: OwnershipFormat) -> Result<Done, Failure> {
    let all = analyses(input, function)?;
    let stdout = match format {
        OwnershipFormat::Text => {
            let mut out = String::new();
            for (f, fo, _) in &all {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&dump_text(f, fo, &Names::user(f)));
            }
            out
        }
        OwnershipFormat::Json => {
            let fs: Vec<serde_json::Value> = all.iter().map(|(f, fo, v)| json(&input.file, f, fo, Some(v))).collect();
            let mut s = serde_json::to_string_pretty(&serde_json::json!({ "file": input.file.name, "functions": fs })).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    Ok(Done { stdout, notes: String::new() })
}

/// `optlab check --ownership FILE`: the verifier's findings as diagnostics; exit 1 if any.
pub fn check(input: &Input, format: OwnershipFormat) -> Result<Done, Failure> {
    let all = analyses(input, None)?;
    let n: usize = all.iter().map(|(_, _, v)| v.findings.len()).sum();
    if format == OwnershipFormat::Json {
        let fs: Vec<serde_json::Value> = all.iter().map(|(f, fo, v)| json(&input.file, f, fo, Some(v))["verifier"].clone()).collect();
        let names: Vec<&str> = all.iter().map(|(f, _, _)| f.name.as_str()).collect();
        let body = serde_json::json!({ "file": input.file.name, "errors": n, "functions": names.iter().zip(fs).map(|(n, v)| serde_json::json!({"function": n, "verifier": v})).collect::<Vec<_>>() });
        let mut s = serde_json::to_string_pretty(&body).unwrap_or_default();
        s.push('\n');
        return if n == 0 { Ok(Done { stdout: s, notes: String::new() }) } else { Err(Failure(s.trim_end().to_string())) };
    }
    let mut out = String::new();
    let mut notes = String::new();
    for (f, _, v) in &all {
        if !v.checked {
            if let Some(note) = &v.note {
                let _ = writeln!(notes, "{}", input.at(f.span, "note", &format!("@{}: {note}", f.name)));
            }
            continue;
        }
        let names = Names::user(f);
        for fd in &v.findings {
            let lines = fd.lines(f, &names);
            let head = format!("in @{}: {} ({})", f.name, fd.message, fd.category.explain());
            let _ = writeln!(out, "{}", input.at(fd.span, "error", &head));
            for l in lines.iter().skip(1) {
                let _ = writeln!(out, "  {l}");
            }
        }
    }
    if n > 0 {
        let _ = write!(out, "{}: {n} ownership error{}", input.file.name, if n == 1 { "" } else { "s" });
        return Err(Failure(format!("{notes}{out}")));
    }
    let k = all.iter().filter(|(_, _, v)| v.checked).count();
    Ok(Done { stdout: format!("{}: ok ({k} OSSA function{} verified)\n", input.file.name, if k == 1 { "" } else { "s" }), notes })
}
