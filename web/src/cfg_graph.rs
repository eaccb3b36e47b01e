//! A function's control-flow graph as a [`Graph`] for [`crate::graph_svg`].
//!
//! Uses only optlab-core's public API: the block layout, block names, `successors` and the
//! printer (one block at a time, so the boxes show exactly what the printer writes).

use crate::graph_svg::{Edge, EdgeKind, Graph, Node};
use optlab_core::print::{print_function, Naming};
use optlab_core::{BlockId, Function};
use std::collections::HashMap;

/// One node per block in layout order (the entry is node 0), one edge per successor.
/// The two sides of a two-way branch are marked true (first) and false (second).
pub fn cfg_graph(f: &Function) -> Graph {
    let index: HashMap<BlockId, usize> = f.layout.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let code = block_code(f);
    let nodes = f
        .layout
        .iter()
        .zip(code)
        .map(|(&b, lines)| {
            let name = &f.blocks[b].name;
            Node::new(name.clone(), name.clone(), lines)
        })
        .collect();
    let mut edges = Vec::new();
    for (i, &b) in f.layout.iter().enumerate() {
        let succs = f.successors(b);
        let two_way = succs.len() == 2;
        for (k, s) in succs.iter().enumerate() {
            let Some(&j) = index.get(s) else { continue };
            let kind = match (two_way, k) {
                (true, 0) => EdgeKind::True,
                (true, _) => EdgeKind::False,
                _ => EdgeKind::Normal,
            };
            edges.push(Edge { from: i, to: j, label: String::new(), kind });
        }
    }
    Graph { nodes, edges }
}

/// The printed code of each block in layout order, without its label line, dedented.
///
/// The printer prints whole functions; printing a copy whose layout holds one block gives
/// that block's text inside the function's header and closing brace.
pub fn block_code(f: &Function) -> Vec<Vec<String>> {
    let mut one = f.clone();
    f.layout
        .iter()
        .map(|&b| {
            one.layout = vec![b];
            body_lines(&print_function(&one, Naming::User), &f.blocks[b].name)
        })
        .collect()
}

/// The lines between the function header (up to the first line ending in `{`) and the
/// closing `}`, without blank lines and without the bare label line (`.name:` / `name:`).
fn body_lines(text: &str, block_name: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim_end().ends_with('{')).map_or(0, |i| i + 1);
    let end = lines.iter().rposition(|l| l.trim_start().starts_with('}')).filter(|&e| e >= start).unwrap_or(lines.len());
    let bril_label = format!(".{block_name}:");
    let plain_label = format!("{block_name}:");
    let body: Vec<&str> = lines[start..end]
        .iter()
        .copied()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && t != bril_label && t != plain_label
        })
        .collect();
    let indent = body.iter().map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    body.iter().map(|l| l[indent..].trim_end().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_lines_strips_header_label_and_indent() {
        let text = "@main {\n.loop:\n  cond: bool = lt i n;\n  br cond .body .done;\n}\n";
        assert_eq!(body_lines(text, "loop"), vec!["cond: bool = lt i n;", "br cond .body .done;"]);
        let sil = "sil @f : $@convention(thin) () -> () {\nbb1(%0 : $Builtin.Int1):\n  %1 = tuple ()\n  return %1 : $()\n} // end sil function 'f'\n";
        assert_eq!(body_lines(sil, "bb1"), vec!["bb1(%0 : $Builtin.Int1):", "  %1 = tuple ()", "  return %1 : $()"]);
        assert!(body_lines("", "x").is_empty());
    }
}
