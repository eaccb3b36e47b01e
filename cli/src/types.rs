//! `optlab types`: every type of each function classified the way Swift's type lowering
//! does — trivial, loadable, address-only, or unknown when the text cannot decide — with its
//! why-chain and where each fact is declared. Warnings (instruction qualifiers that contradict
//! the classification, declarations that did not read) go to stderr as FILE:LINE:COL.

use crate::input::{Failure, Input};
use crate::opt::Done;
use clap::ValueEnum;
use optlab_core::diag::{SourceFile, Span};
use optlab_core::sil::types::{report, Assumptions, Decls, FunctionTypes, TypeEnv};
use std::fmt::Write;
use std::sync::Arc;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum TypesFormat {
    Text,
    Json,
    Markdown,
}

pub struct TypesArgs<'a> {
    pub function: Option<&'a str>,
    pub format: TypesFormat,
    /// `T=Int` what-ifs.
    pub subst: &'a [String],
    pub resilient: &'a [String],
    pub opaque_values: Option<bool>,
}

pub fn types(input: &Input, a: &TypesArgs) -> Result<Done, Failure> {
    let m = &input.module;
    let mut assume = Assumptions { opaque_values: a.opaque_values, ..Assumptions::default() };
    for s in a.subst {
        let (k, v) = s
            .split_once([':', '='])
            .map(|(k, v)| (k.trim().trim_end_matches(':'), v.trim().trim_start_matches('=').trim()))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| Failure(format!("error: `--subst {s}`: write it as `T=Int`")))?;
        optlab_core::sil::types::parse_type(v).map_err(|e| Failure(format!("error: `--subst {s}`: `{v}` is not a type: {}", e.message)))?;
        assume.subst.insert(k.to_string(), v.to_string());
    }
    let decls = Decls::of_module(m);
    for r in a.resilient {
        if decls.nominal(r).is_none() {
            return Err(Failure(format!("error: `--resilient {r}`: no struct or enum `{r}` is declared in this file")));
        }
        assume.resilient.insert(r.clone());
    }
    let env = Arc::new(TypeEnv { decls, assume });
    let functions: Vec<FunctionTypes> = match a.function {
        Some(name) => {
            let f = m.function(name).ok_or_else(|| Failure(format!("error: no function `{name}` in this file")))?;
            vec![FunctionTypes::new(f, env.clone())]
        }
        None => m.functions.iter().map(|f| FunctionTypes::new(f, env.clone())).collect(),
    };
    let file = &input.file;
    let mut notes = String::new();
    for e in &env.decls.errors {
        let _ = writeln!(notes, "{}: warning: {}", pos(file, e.span), e.message);
    }
    for ft in &functions {
        for w in &ft.warnings {
            let _ = writeln!(notes, "{}: warning: in @{}: {}", pos(file, w.span), ft.function, w.message);
        }
    }
    let stdout = match a.format {
        TypesFormat::Text => report::text(file, &functions),
        TypesFormat::Markdown => report::markdown(file, &functions),
        TypesFormat::Json => {
            let mut s = serde_json::to_string_pretty(&report::json(file, m.lang, &env, &functions)).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    Ok(Done { stdout, notes })
}

fn pos(file: &SourceFile, span: Span) -> String {
    let lc = file.line_col(span.lo);
    format!("{}:{}:{}", file.name, lc.line, lc.col)
}

