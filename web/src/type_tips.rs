//! Type tooltips: each SIL `%value` with its type and its class by Swift's type lowering,
//! for the CFG drawing (per code line) and, through the Types view, the editor. Kept apart
//! from the view because the program's analysis builds the graph's tips, and views depend on
//! the program, not the other way round.

use crate::cfg_graph::CfgGraph;
use optlab_core::ir::{Function, Lang};
use optlab_core::sil::types::query::value_types;
use optlab_core::sil::types::FunctionTypes;
use std::collections::HashMap;
use std::rc::Rc;

/// Each value's tooltip by its written name (`%3`).
pub fn descriptions(f: &Function, ft: &FunctionTypes) -> HashMap<String, String> {
    value_types(f, ft).into_iter().map(|v| (v.name.clone(), v.describe())).collect()
}

/// The `%name` tokens of a SIL text, as byte ranges.
pub fn value_tokens(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let end = (i + 1..b.len()).find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_')).unwrap_or(b.len());
            if end > i + 1 {
                out.push((i, end));
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The CFG drawing's line tooltips: for each code line of a SIL function, the types and
/// classes of the values it names, one per line (`` `%4 : $*Box<Any>` — address-only … ``).
pub fn line_tips(cg: &mut CfgGraph, f: &Function, ft: &FunctionTypes) {
    if f.lang != Lang::Sil {
        return;
    }
    let by_name = descriptions(f, ft);
    let mut graph = (*cg.graph).clone();
    for node in &mut graph.nodes {
        node.tips = node
            .lines
            .iter()
            .map(|line| {
                let mut seen: Vec<&str> = Vec::new();
                for (i, end) in value_tokens(line) {
                    if let Some(d) = by_name.get(&line[i..end]) {
                        if !seen.contains(&d.as_str()) {
                            seen.push(d);
                        }
                    }
                }
                seen.join("\n")
            })
            .collect();
    }
    cg.graph = Rc::new(graph);
}

