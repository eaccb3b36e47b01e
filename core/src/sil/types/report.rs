//! The classification as text, Markdown and JSON — one rendering for the CLI, the golden
//! files and the web app's exports.

use super::classify::{Source, Step, TypeEnv};
use super::function::{Category, FunctionTypes, Row};
use crate::diag::{SourceFile, Span};
use crate::ir::Lang;
use serde_json::{json, Value};
use std::fmt::Write;

fn line(file: &SourceFile, span: Span) -> u32 {
    file.line_col(span.lo).line
}

fn tag(file: &SourceFile, s: &Step) -> String {
    match (s.source, s.at) {
        (Source::Declared, Some(at)) => format!("  [line {}]", line(file, at)),
        (Source::Stdlib, _) => "  [standard library]".into(),
        (Source::Assumption, _) => "  [assumption]".into(),
        (Source::WhatIf, _) => "  [what-if]".into(),
        (_, Some(at)) => format!("  [line {}]", line(file, at)),
        _ => String::new(),
    }
}

fn header(ft: &FunctionTypes) -> String {
    if ft.generics.is_empty() {
        format!("@{}", ft.function)
    } else {
        format!("@{} <{}>", ft.function, ft.generics.join(", "))
    }
}

fn shown(r: &Row) -> String {
    format!("${}", r.text)
}

/// One block per function: each type, its class and its why-chain, a line per step.
pub fn text(file: &SourceFile, fs: &[FunctionTypes]) -> String {
    let mut out = String::new();
    for ft in fs {
        let _ = writeln!(out, "{}", header(ft));
        if ft.rows.is_empty() {
            let _ = writeln!(out, "  (no types)");
        }
        for r in &ft.rows {
            let mo = if r.verdict.move_only { ", move-only" } else { "" };
            let _ = writeln!(out, "  {:<13} {}  ({:?}{mo})", r.verdict.class.word(), shown(r), r.category);
            for s in &r.verdict.why {
                let _ = writeln!(out, "      {}{}", s.text, tag(file, s));
            }
            if let Some(stub) = &r.verdict.stub {
                let _ = writeln!(out, "      declare: {stub}");
            }
        }
        let _ = writeln!(out);
    }
    out
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A table per function (for slides and notes).
pub fn markdown(file: &SourceFile, fs: &[FunctionTypes]) -> String {
    let mut out = String::new();
    for ft in fs {
        let _ = writeln!(out, "### `{}`\n", header(ft));
        let _ = writeln!(out, "| type | value | class | why |");
        let _ = writeln!(out, "|---|---|---|---|");
        for r in &ft.rows {
            let why: Vec<String> = r.verdict.why.iter().map(|s| format!("{}{}", s.text, tag(file, s))).collect();
            let _ = writeln!(
                out,
                "| `{}` | {} | **{}** | {} |",
                cell(&shown(r)),
                match r.category {
                    Category::Object => "object",
                    Category::Address => "address",
                },
                r.verdict.class.word(),
                cell(&why.join(" → "))
            );
        }
        let _ = writeln!(out);
    }
    out
}

/// Everything: declarations, per-function rows with why-chains and uses, warnings.
pub fn json(file: &SourceFile, lang: Lang, env: &TypeEnv, fs: &[FunctionTypes]) -> Value {
    let at = |span: Span| {
        let lc = file.line_col(span.lo);
        json!({ "line": lc.line, "col": lc.col })
    };
    let functions: Vec<Value> = fs
        .iter()
        .map(|ft| {
            let rows: Vec<Value> = ft
                .rows
                .iter()
                .map(|r| {
                    json!({
                        "type": shown(r),
                        "category": r.category,
                        "class": r.verdict.class,
                        "move_only": r.verdict.move_only,
                        "why": r.verdict.why.iter().map(|s| json!({
                            "text": s.text,
                            "source": s.source,
                            "at": s.at.map(at),
                        })).collect::<Vec<_>>(),
                        "stub": r.verdict.stub,
                        "uses": r.uses.iter().map(|u| json!({ "what": u.what, "at": at(u.span) })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({
                "function": ft.function,
                "generics": ft.generics,
                "types": rows,
                "warnings": ft.warnings.iter().map(|w| json!({ "message": w.message, "at": at(w.span) })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let declarations: Vec<Value> = env
        .decls
        .nominals
        .iter()
        .map(|n| json!({ "name": n.name, "kind": n.kind.word(), "at": at(n.span), "stored": n.fields.iter().map(|f| format!("{}: {}", f.name, f.ty)).collect::<Vec<_>>() }))
        .chain(env.decls.aliases.iter().map(|a| json!({ "name": a.name, "kind": "typealias", "at": at(a.span), "aliased": a.ty.to_string() })))
        .collect();
    json!({
        "file": file.name,
        "lang": lang,
        "opaque_values": env.opaque_values(),
        "declarations": declarations,
        "declaration_errors": env.decls.errors.iter().map(|e| json!({ "message": e.message, "at": at(e.span) })).collect::<Vec<_>>(),
        "functions": functions,
    })
}
