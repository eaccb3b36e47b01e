//! A function's control-flow graph as a [`Graph`], plus which instruction each code line
//! shows, so the DCE and LCM views can decorate instructions.
//!
//! Uses only optlab-core's public API: the block layout, block names, `successors` and the
//! printer (one block at a time, so the boxes show exactly what the printer writes).

use crate::graph::{Edge, EdgeKind, Graph, Node};
use optlab_core::cfg::{edge_roles, EdgeRole};
use optlab_core::print::{Line, LineKind};
use optlab_core::{BlockId, Function, InstId};
use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;

/// The CFG drawing of one function and how it maps back to the IR.
#[derive(Clone, Debug, PartialEq)]
pub struct CfgGraph {
    /// One node per block in layout order (the entry is node 0); node ids are block names.
    pub graph: Rc<Graph>,
    /// Per node, per code line: the instruction it shows (`None` for a SIL block header line
    /// such as `bb3(%6 : $Int):`).
    pub insts: Vec<Vec<Option<InstId>>>,
    /// The node of each block in the layout.
    pub node_of: HashMap<BlockId, usize>,
    /// The block of each node.
    pub blocks: Vec<BlockId>,
}

impl CfgGraph {
    /// The (node, line) showing `inst`, if it is placed in a block of the layout.
    pub fn line_of(&self, inst: InstId) -> Option<(usize, usize)> {
        self.insts.iter().enumerate().find_map(|(n, lines)| Some((n, lines.iter().position(|&i| i == Some(inst))?)))
    }

    /// The instruction on line `line` of node `node`.
    pub fn inst_at(&self, node: usize, line: usize) -> Option<InstId> {
        *self.insts.get(node)?.get(line)?
    }
}

/// Lets code that only draws use a `CfgGraph` where a `&Graph` is expected.
impl Deref for CfgGraph {
    type Target = Graph;
    fn deref(&self) -> &Graph {
        &self.graph
    }
}

/// One node per block in layout order (the entry is node 0), one edge per successor.
/// The two sides of a two-way branch are marked true (first) and false (second); the edges
/// of SIL's multi-way terminators carry their case or outcome as a label (core's
/// [`edge_roles`]).
pub fn cfg_graph(f: &Function) -> CfgGraph {
    let node_of: HashMap<BlockId, usize> = f.layout.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let (code, insts): (Vec<_>, Vec<_>) = block_code(f).into_iter().unzip();
    let nodes = f
        .layout
        .iter()
        .zip(code)
        .map(|(&b, lines)| {
            let name = f.block_name(b);
            Node::new(name.clone(), name, lines)
        })
        .collect();
    let mut edges = Vec::new();
    for (i, &b) in f.layout.iter().enumerate() {
        let succs = f.successors(b);
        let roles = edge_roles(f, b);
        for (s, role) in succs.iter().zip(roles) {
            let Some(&j) = node_of.get(s) else { continue };
            let kind = match role {
                EdgeRole::True => EdgeKind::True,
                EdgeRole::False => EdgeKind::False,
                EdgeRole::Plain | EdgeRole::Named(_) => EdgeKind::Normal,
            };
            edges.push(Edge { from: i, to: j, label: role.label().to_string(), kind });
        }
    }
    CfgGraph { graph: Rc::new(Graph { nodes, edges }), insts, node_of, blocks: f.layout.clone() }
}

/// The printed code of each block in layout order, one line per instruction (after a SIL
/// block header line with parameters, if the block has one), with the instruction of each
/// line — core's printer ([`crate::build::function_lines`]), so the boxes show exactly what
/// the printer writes.
///
/// Only the drawing is decided here: bare labels and blank lines are left out (the box's
/// title names the block), the block's common indentation is removed, and an instruction
/// whose SIL template spans lines is shown on one line, its whitespace runs collapsed.
pub fn block_code(f: &Function) -> Vec<(Vec<String>, Vec<Option<InstId>>)> {
    let printed = crate::build::function_lines(f);
    f.layout
        .iter()
        .map(|&b| {
            let Some(block) = printed.block(b) else { return (Vec::new(), Vec::new()) };
            let shown: Vec<&Line> =
                block.lines.iter().filter(|l| matches!(l.kind, LineKind::Params | LineKind::Inst(_))).collect();
            let indent = shown.iter().map(|l| l.text.len() - l.text.trim_start().len()).min().unwrap_or(0);
            let text = |l: &Line| -> String {
                if l.text.contains('\n') {
                    let own = l.text.len() - l.text.trim_start().len();
                    let collapsed = l.text.split_whitespace().collect::<Vec<_>>().join(" ");
                    format!("{}{collapsed}", " ".repeat(own.saturating_sub(indent)))
                } else {
                    l.text.get(indent..).unwrap_or(&l.text).trim_end().to_string()
                }
            };
            shown.iter().map(|&l| (text(l), l.inst())).unzip()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use optlab_core::passes::dce::inst_text;
    use optlab_core::print::{print_function, Naming};
    use optlab_core::{parse_module, Lang};

    fn first_function(lang: Lang, name: &str, text: &str) -> Function {
        let m = parse_module(lang, name, text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let f = m.bodies().next().expect("a function with a body").clone();
        f
    }

    #[test]
    fn every_bril_example_line_is_its_instruction() {
        for (file, text) in [
            ("loop.bril", include_str!("../../static/examples/loop.bril")),
            ("diamond.bril", include_str!("../../static/examples/diamond.bril")),
            ("partial.bril", include_str!("../../static/examples/partial.bril")),
        ] {
            let f = first_function(Lang::Bril, file, text);
            let cfg = cfg_graph(&f);
            assert_eq!(cfg.nodes.len(), f.layout.len(), "{file}");
            let mut seen = 0;
            for (n, node) in cfg.nodes.iter().enumerate() {
                let b = cfg.blocks[n];
                assert_eq!(cfg.node_of[&b], n);
                assert_eq!(node.id, f.blocks[b].name);
                assert_eq!(cfg.insts[n].len(), node.lines.len(), "{file} {}", node.id);
                let expected: Vec<Option<InstId>> = f.blocks[b].all_insts().map(Some).collect();
                assert_eq!(cfg.insts[n], expected, "{file} {}", node.id);
                for (k, line) in node.lines.iter().enumerate() {
                    let i = cfg.inst_at(n, k).unwrap();
                    assert_eq!(line, &inst_text(&f, i), "{file} {}:{k}", node.id);
                    assert_eq!(cfg.line_of(i), Some((n, k)));
                    seen += 1;
                }
            }
            assert_eq!(seen, f.placed_insts().count(), "{file}: every instruction shown once");
        }
    }

    #[test]
    fn a_sil_block_header_line_has_no_instruction() {
        let text = include_str!("../../core/tests/golden/dce/seed_control_dependent.sil");
        let f = first_function(Lang::Sil, "cd.sil", text);
        let cfg = cfg_graph(&f);
        let titles: Vec<&str> = cfg.nodes.iter().map(|n| n.title.as_str()).collect();
        assert_eq!(titles, ["bb0", "bb1", "bb2", "bb3"]);
        let bb3 = &cfg.nodes[3];
        assert_eq!(bb3.lines, ["bb3(%6 : $Int):", "  return %6 : $Int"]);
        assert_eq!(cfg.insts[3][0], None);
        let ret = cfg.insts[3][1].unwrap();
        assert_eq!(f.blocks[cfg.blocks[3]].term, Some(ret));
        // bb0 has no header line: every line is an instruction, terminator last.
        assert_eq!(cfg.nodes[0].lines, ["%0 = integer_literal $Int1, 1", "cond_br %0, bb1, bb2"]);
        assert!(cfg.insts[0].iter().all(Option::is_some));
        assert_eq!(cfg.insts[0][1], f.blocks[cfg.blocks[0]].term);
        let kinds: Vec<EdgeKind> = cfg.edges.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EdgeKind::True, EdgeKind::False, EdgeKind::Normal, EdgeKind::Normal]);
        assert_eq!(cfg.line_of(ret), Some((3, 1)));
        assert_eq!(cfg.inst_at(3, 0), None);
        assert_eq!(cfg.inst_at(9, 0), None);
    }

    #[test]
    fn a_multi_line_instruction_falls_back_to_one_line_each() {
        let text = "sil @f : $() -> () {\nbb0:\n  %0 = tuple ()\n  br bb1\nbb1:\n  return %0 : $()\n}\n";
        let mut f = first_function(Lang::Sil, "f.sil", text);
        // A template with a line break (as a hand-written multi-line instruction could have).
        let first = f.blocks[f.layout[0]].insts[0];
        for piece in f.insts[first].sil.iter_mut() {
            if let optlab_core::ir::Piece::Text(t) = piece {
                if t.contains("tuple") {
                    *t = t.replace("tuple", "tuple\n   ");
                }
            }
        }
        let printed = print_function(&f, Naming::User);
        assert!(printed.lines().count() > text.lines().count(), "{printed}");
        let cfg = cfg_graph(&f);
        assert_eq!(cfg.nodes[0].lines.len(), 2, "{:?}", cfg.nodes[0].lines);
        assert_eq!(cfg.insts[0], [Some(first), f.blocks[f.layout[0]].term]);
        assert!(!cfg.nodes[0].lines[0].contains('\n'));
    }

    #[test]
    fn a_large_generated_function_maps_every_block() {
        let f = optlab_core::testgen::structured_function(300, 5);
        let cfg = cfg_graph(&f);
        assert_eq!(cfg.nodes.len(), f.layout.len());
        let edges: usize = f.layout.iter().map(|&b| f.successors(b).len()).sum();
        assert_eq!(cfg.edges.len(), edges);
        assert!(cfg.insts.iter().all(|l| l.len() == 1 && l[0].is_some()));
    }
}
