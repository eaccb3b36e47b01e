//! LCM's predicates as text other programs and people read: the JSON of `optlab lcm
//! --format json` (a fixed shape other tools parse, so it is built from structs whose field
//! order is the key order), and per-expression tables in Markdown, LaTeX and CSV for slides.
//! The web app exports through the same functions, so both give identical text.
//!
//! Tables: one row per block after step 1 (layout order), one column per predicate in the
//! seed's order; `T` = true, `F` = false in every format. ASCII letters survive every
//! editor, font and LaTeX preamble, and a lecturer can still scan a column for its `T`s.

use super::{ExprId, LcmError, LcmOutput, Pred};
use crate::print::{print_module, Naming};
use crate::Module;
use serde::Serialize;
use std::fmt::Write as _;

/// `{"functions":[…]}`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsonReport {
    pub functions: Vec<JsonFunction>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsonFunction {
    pub name: String,
    /// Every block after edge splitting, labels without the dot.
    pub blocks: Vec<String>,
    pub expressions: Vec<JsonExpr>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsonExpr {
    /// `op arg1 arg2`
    pub expr: String,
    pub blocks: Vec<JsonRow>,
}

/// One block's predicates for one expression; the keys are the seed's names, in its order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsonRow {
    pub label: String,
    #[serde(rename = "NComp")]
    pub ncomp: bool,
    #[serde(rename = "XComp")]
    pub xcomp: bool,
    #[serde(rename = "Transp")]
    pub transp: bool,
    #[serde(rename = "NdSafe")]
    pub nd_safe: bool,
    #[serde(rename = "XdSafe")]
    pub xd_safe: bool,
    #[serde(rename = "NuSafe")]
    pub nu_safe: bool,
    #[serde(rename = "XuSafe")]
    pub xu_safe: bool,
    #[serde(rename = "NEarliest")]
    pub n_earliest: bool,
    #[serde(rename = "XEarliest")]
    pub x_earliest: bool,
    #[serde(rename = "NDelayed")]
    pub n_delayed: bool,
    #[serde(rename = "XDelayed")]
    pub x_delayed: bool,
    #[serde(rename = "NLatest")]
    pub n_latest: bool,
    #[serde(rename = "XLatest")]
    pub x_latest: bool,
}

impl JsonRow {
    /// The thirteen values in [`Pred::ALL`] order.
    pub fn values(&self) -> [bool; 13] {
        [
            self.ncomp,
            self.xcomp,
            self.transp,
            self.nd_safe,
            self.xd_safe,
            self.nu_safe,
            self.xu_safe,
            self.n_earliest,
            self.x_earliest,
            self.n_delayed,
            self.x_delayed,
            self.n_latest,
            self.x_latest,
        ]
    }
}

/// The predicate rows of one expression, one per block of the split function.
pub fn rows(o: &LcmOutput, e: ExprId) -> Vec<JsonRow> {
    o.blocks()
        .iter()
        .map(|&b| {
            let h = |p: Pred| o.preds.holds(p, b, e);
            JsonRow {
                label: o.split.blocks[b].name.to_string(),
                ncomp: h(Pred::NComp),
                xcomp: h(Pred::XComp),
                transp: h(Pred::Transp),
                nd_safe: h(Pred::NdSafe),
                xd_safe: h(Pred::XdSafe),
                nu_safe: h(Pred::NuSafe),
                xu_safe: h(Pred::XuSafe),
                n_earliest: h(Pred::NEarliest),
                x_earliest: h(Pred::XEarliest),
                n_delayed: h(Pred::NDelayed),
                x_delayed: h(Pred::XDelayed),
                n_latest: h(Pred::NLatest),
                x_latest: h(Pred::XLatest),
            }
        })
        .collect()
}

/// The JSON report as data.
pub fn json_report(outputs: &[LcmOutput]) -> JsonReport {
    JsonReport {
        functions: outputs
            .iter()
            .map(|o| JsonFunction {
                name: o.name.clone(),
                blocks: o.blocks().iter().map(|&b| o.split.blocks[b].name.to_string()).collect(),
                expressions: o.exprs.iter().map(|(e, x)| JsonExpr { expr: x.text(), blocks: rows(o, e) }).collect(),
            })
            .collect(),
    }
}

/// `optlab lcm --format json`: compact, or indented with two spaces if `pretty`.
pub fn json(outputs: &[LcmOutput], pretty: bool) -> String {
    let r = json_report(outputs);
    let s = if pretty { serde_json::to_string_pretty(&r) } else { serde_json::to_string(&r) };
    // Serializing plain structs of strings and bools cannot fail.
    s.unwrap_or_default()
}

/// A table format for slides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    Markdown,
    Latex,
    Csv,
}

impl TableFormat {
    pub fn from_name(name: &str) -> Option<TableFormat> {
        match name {
            "markdown" | "md" => Some(TableFormat::Markdown),
            "latex" | "tex" => Some(TableFormat::Latex),
            "csv" => Some(TableFormat::Csv),
            _ => None,
        }
    }
}

fn tf(v: bool) -> &'static str {
    if v {
        "T"
    } else {
        "F"
    }
}

/// The (function, expression) pairs to print: all, or those whose text is `expr`.
fn selection<'a>(outputs: &'a [LcmOutput], expr: Option<&str>) -> Result<Vec<(&'a LcmOutput, ExprId)>, LcmError> {
    let mut out = Vec::new();
    for o in outputs {
        match expr {
            None => out.extend(o.exprs.keys().map(|e| (o, e))),
            Some(text) => out.extend(o.expr_by_text(text).map(|e| (o, e))),
        }
    }
    if let (Some(text), true) = (expr, out.is_empty()) {
        let mut available: Vec<String> = outputs.iter().flat_map(|o| o.exprs.values().map(|x| x.text())).collect();
        available.sort();
        available.dedup();
        let function = match outputs {
            [one] => Some(one.name.clone()),
            _ => None,
        };
        return Err(LcmError::UnknownExpr {
            expr: text.split_whitespace().collect::<Vec<_>>().join(" "),
            function,
            available,
        });
    }
    Ok(out)
}

/// `optlab lcm --format markdown|latex|csv [--expr "add a b"]`: one table per selected
/// expression (CSV: one table whose first two columns name the function and expression).
/// An `expr` no function has is an error listing the expressions there are.
pub fn table(outputs: &[LcmOutput], format: TableFormat, expr: Option<&str>) -> Result<String, LcmError> {
    let sel = selection(outputs, expr)?;
    let mut s = String::new();
    match format {
        TableFormat::Markdown => {
            for (k, (o, e)) in sel.iter().enumerate() {
                if k > 0 {
                    s.push('\n');
                }
                markdown(&mut s, o, *e);
            }
        }
        TableFormat::Latex => {
            for (k, (o, e)) in sel.iter().enumerate() {
                if k > 0 {
                    s.push('\n');
                }
                latex(&mut s, o, *e);
            }
        }
        TableFormat::Csv => {
            s.push_str("function,expr,block");
            for p in Pred::ALL {
                let _ = write!(s, ",{p}");
            }
            s.push('\n');
            for (o, e) in &sel {
                let text = o.exprs[*e].text();
                for r in rows(o, *e) {
                    let _ = write!(s, "{},{},{}", csv_field(&o.name), csv_field(&text), csv_field(&r.label));
                    for v in r.values() {
                        let _ = write!(s, ",{}", tf(v));
                    }
                    s.push('\n');
                }
            }
        }
    }
    Ok(s)
}

fn markdown(s: &mut String, o: &LcmOutput, e: ExprId) {
    let rows = rows(o, e);
    let label_w = rows.iter().map(|r| r.label.chars().count()).max().unwrap_or(0).max("block".len());
    let _ = writeln!(s, "### `@{}`: `{}`\n", o.name, o.exprs[e].text());
    let _ = write!(s, "| {:<label_w$} |", "block");
    for p in Pred::ALL {
        let _ = write!(s, " {p} |");
    }
    s.push('\n');
    let _ = write!(s, "|{}|", "-".repeat(label_w + 2));
    for p in Pred::ALL {
        let _ = write!(s, ":{}:|", "-".repeat(p.name().len()));
    }
    s.push('\n');
    for r in &rows {
        let label = r.label.replace('|', "\\|");
        let pad = label_w.saturating_sub(r.label.chars().count());
        let _ = write!(s, "| {label}{} |", " ".repeat(pad));
        for (p, v) in Pred::ALL.iter().zip(r.values()) {
            let w = p.name().len();
            let _ = write!(s, " {:^w$} |", tf(v));
        }
        s.push('\n');
    }
}

/// Escapes LaTeX's special characters in a label or expression.
fn tex(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '_' | '%' | '&' | '#' | '$' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            _ => out.push(c),
        }
    }
    out
}

fn latex(s: &mut String, o: &LcmOutput, e: ExprId) {
    let text = o.exprs[e].text();
    let _ = writeln!(s, "% LCM predicates of `{}` in @{} (T = true, F = false)", text, o.name);
    // Column groups: local | down-safe | up-safe | earliest | delayed | latest.
    s.push_str("\\begin{tabular}{l|ccc|cc|cc|cc|cc|cc}\n");
    let _ = writeln!(s, "\\multicolumn{{14}}{{l}}{{\\texttt{{@{}}}: \\texttt{{{}}}}} \\\\", tex(&o.name), tex(&text));
    s.push_str("\\hline\n");
    s.push_str("block");
    for p in Pred::ALL {
        let _ = write!(s, " & {p}");
    }
    s.push_str(" \\\\\n\\hline\n");
    for r in rows(o, e) {
        s.push_str(&tex(&r.label));
        for v in r.values() {
            let _ = write!(s, " & {}", tf(v));
        }
        s.push_str(" \\\\\n");
    }
    s.push_str("\\hline\n\\end{tabular}\n");
}

/// RFC 4180 quoting where needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// `optlab lcm --emit`: the transformed module as Bril text.
pub fn emit(module: &Module) -> String {
    print_module(module, Naming::User)
}
