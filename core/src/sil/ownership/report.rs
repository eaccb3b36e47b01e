//! Reports: the ownership dump (each value's kind, each operand's constraint, in the spirit of
//! `sil-opt -ownership-dumper`), Swift's textual error dump of the verifier, and JSON.

use super::analysis::FunctionOwnership;
use super::names::Names;
use super::rules::Kind;
use super::verify::Verdict;
use crate::diag::SourceFile;
use crate::ir::{Function, InstId};
use serde_json::{json, Value};
use std::fmt::Write;

/// The ownership of one function as text: values with kind and reason, operands of
/// instructions that touch values with ownership, lifetimes, borrow scopes, dead ends.
pub fn dump_text(f: &Function, fo: &FunctionOwnership, names: &Names) -> String {
    let mut out = String::new();
    if !fo.ossa {
        let _ = writeln!(out, "@{}: not [ossa]; no ownership", f.name);
        return out;
    }
    let _ = writeln!(out, "@{} [ossa]", f.name);
    let _ = writeln!(out, "  values:");
    for vi in &fo.values {
        let b = vi.block.map(|b| names.block(f, b)).unwrap_or_default();
        let assumed = if vi.assumed { " (assumed)" } else { "" };
        let _ = writeln!(out, "    {:<6} {:<10} {:<5} {}{assumed}", names.value(f, vi.value), vi.kind.word(), b, vi.why);
    }
    let _ = writeln!(out, "  operands:");
    let mut last: Option<InstId> = None;
    for op in &fo.operands {
        if fo.kind(op.value) == Kind::None {
            continue;
        }
        if last != Some(op.inst) {
            let _ = writeln!(out, "    {}  ({})", names.inst(f, op.inst).replace('\n', " "), names.block(f, op.block));
            last = Some(op.inst);
        }
        let slot = match op.slot {
            super::Slot::Arg(k) => format!("#{k}"),
            super::Slot::SuccArg(s, j) => format!("succ {s} arg {j}"),
        };
        let c = op.constraint;
        let _ = writeln!(
            out,
            "      {slot} {} ({}): {:?}, accepts {}, {}{}",
            names.value(f, op.value),
            fo.kind(op.value),
            c.role,
            c.accepts,
            if c.ending { "lifetime-ending" } else { "not lifetime-ending" },
            if op.compatible { "" } else { "  INCOMPATIBLE" }
        );
    }
    let list = |is: &[InstId]| -> String {
        if is.is_empty() {
            "-".into()
        } else {
            is.iter().map(|&i| format!("`{}`", names.inst(f, i))).collect::<Vec<_>>().join(", ")
        }
    };
    let blocks = |bs: &[crate::ir::BlockId]| bs.iter().map(|&b| names.block(f, b)).collect::<Vec<_>>().join(", ");
    if !fo.lifetimes.is_empty() {
        let _ = writeln!(out, "  lifetimes:");
        for l in &fo.lifetimes {
            let _ = writeln!(
                out,
                "    {}: from {}; consumed by {}; live in {}",
                names.value(f, l.value),
                names.block(f, l.def_block),
                list(&l.consuming),
                blocks(&l.live_blocks)
            );
        }
    }
    if !fo.scopes.is_empty() {
        let _ = writeln!(out, "  borrow scopes:");
        for s in &fo.scopes {
            let base = s.base.map(|b| format!(" of {}", names.value(f, b))).unwrap_or_default();
            let re = if s.reborrows.is_empty() {
                String::new()
            } else {
                format!(
                    "; reborrowed as {}",
                    s.reborrows.iter().map(|&(_, p)| names.value(f, p)).collect::<Vec<_>>().join(", ")
                )
            };
            let _ = writeln!(out, "    {}{base}: ended by {}{re}; live in {}", names.value(f, s.introducer), list(&s.ends), blocks(&s.live_blocks));
        }
    }
    if !fo.dead_end_blocks.is_empty() {
        let _ = writeln!(out, "  dead-end blocks: {}", blocks(&fo.dead_end_blocks));
    }
    out
}

/// The verifier's findings as Swift's textual error dumper prints them
/// (`Begin Error in Function: 'f'` … `End Error in Function: 'f'`), with Swift's numbering.
pub fn swift_dump(f: &Function, verdict: &Verdict) -> String {
    let names = Names::swift(f);
    let mut out = String::new();
    for fd in &verdict.findings {
        let _ = writeln!(out, "Begin Error in Function: '{}'", f.name);
        for l in fd.lines(f, &names) {
            let _ = writeln!(out, "{l}");
        }
        let _ = writeln!(out, "End Error in Function: '{}'", f.name);
    }
    out
}

/// One function's ownership and verdict as JSON, with line:col for every finding.
pub fn json(file: &SourceFile, f: &Function, fo: &FunctionOwnership, verdict: Option<&Verdict>) -> Value {
    let names = Names::user(f);
    let at = |span: crate::diag::Span| {
        let lc = file.line_col(span.lo);
        json!({ "line": lc.line, "col": lc.col })
    };
    let values: Vec<Value> = fo
        .values
        .iter()
        .map(|vi| {
            json!({
                "value": names.value(f, vi.value),
                "id": vi.value,
                "block": vi.block.map(|b| names.block(f, b)),
                "kind": vi.kind,
                "source": vi.source,
                "why": vi.why,
                "from": vi.from.map(|x| names.value(f, x)),
                "assumed": vi.assumed,
                "reborrow": vi.reborrow,
            })
        })
        .collect();
    let operands: Vec<Value> = fo
        .operands
        .iter()
        .map(|o| {
            json!({
                "inst": names.inst(f, o.inst),
                "inst_id": o.inst,
                "block": names.block(f, o.block),
                "slot": o.slot,
                "value": names.value(f, o.value),
                "kind": fo.kind(o.value),
                "role": o.constraint.role,
                "accepts": o.constraint.accepts,
                "lifetime_ending": o.constraint.ending,
                "compatible": o.compatible,
                "why": o.why,
            })
        })
        .collect();
    let mut obj = json!({
        "function": f.name,
        "ossa": fo.ossa,
        "values": values,
        "operands": operands,
        "lifetimes": fo.lifetimes,
        "scopes": fo.scopes,
        "dead_end_blocks": fo.dead_end_blocks.iter().map(|&b| names.block(f, b)).collect::<Vec<_>>(),
    });
    if let Some(v) = verdict {
        let findings: Vec<Value> = v
            .findings
            .iter()
            .map(|fd| {
                json!({
                    "category": fd.category,
                    "message": fd.message,
                    "explanation": fd.category.explain(),
                    "at": at(fd.span),
                    "value": names.value(f, fd.value),
                    "user": fd.user.map(|i| names.inst(f, i)),
                    "other_user": fd.other_user.map(|i| names.inst(f, i)),
                    "block": fd.block.map(|b| names.block(f, b)),
                    "blocks": fd.blocks.iter().map(|&b| names.block(f, b)).collect::<Vec<_>>(),
                    "lines": fd.lines(f, &names),
                })
            })
            .collect();
        obj["verifier"] = json!({ "checked": v.checked, "note": v.note, "findings": findings, "steps": v.steps });
    }
    obj
}
