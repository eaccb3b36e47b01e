//! The graph the DCE view shows during the sweep: every block of the original function with
//! both its old and its new code, so deleted lines can be struck out where they were and a
//! rewritten branch can sit under the branch it replaces.
//!
//! One graph serves every step of the sweep (so the boxes do not move while stepping); what
//! a step has done so far is decided per row by comparing the row's text with the code of
//! the function replayed to that step ([`Now`]).

use crate::cfg_graph::block_code;
use crate::graph::{Edge, EdgeKind, Graph, Node};
use optlab_core::{BlockId, Function, InstId};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// How a row relates to the pass as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// The line is the same before and after the pass.
    Same,
    /// The line as it was before: the pass deletes or rewrites it.
    Old,
    /// The line as the pass leaves it: created, or the rewritten form of an `Old` row.
    New,
}

/// One code line of a box. `inst: None` is a SIL block header (`bb3(%6 : $Int):`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub inst: Option<InstId>,
    pub version: Version,
    pub text: String,
}

/// Where a row is at some step of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowState {
    /// In the function as it is at this step, with this text.
    Present,
    /// Deleted or rewritten by an event already applied.
    Gone,
    /// A `New` row whose event has not happened yet.
    Pending,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SweepGraph {
    pub graph: Rc<Graph>,
    /// Per node (original layout order), its rows; `graph.nodes[n].lines` are their texts.
    pub rows: Vec<Vec<Row>>,
    pub blocks: Vec<BlockId>,
    /// Per edge of `graph`, its ends as blocks.
    pub edge_blocks: Vec<(BlockId, BlockId)>,
}

/// The printed code of one function, by block: header line and instruction texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Now {
    pub headers: HashMap<BlockId, String>,
    pub texts: HashMap<InstId, String>,
    pub edges: HashSet<(BlockId, BlockId)>,
    /// The blocks still in the layout.
    pub blocks: HashSet<BlockId>,
}

impl Now {
    pub fn of(f: &Function) -> Now {
        let mut now = Now::default();
        for (&b, (lines, ids)) in f.layout.iter().zip(block_code(f)) {
            now.blocks.insert(b);
            for (line, id) in lines.into_iter().zip(ids) {
                match id {
                    Some(i) => {
                        now.texts.insert(i, line);
                    }
                    None => {
                        now.headers.insert(b, line);
                    }
                }
            }
            for s in f.successors(b) {
                now.edges.insert((b, s));
            }
        }
        now
    }
}

impl SweepGraph {
    /// The state of row `r` of node `n` when the function looks like `now`.
    pub fn state(&self, n: usize, r: usize, now: &Now) -> RowState {
        let (Some(row), Some(&b)) = (self.rows.get(n).and_then(|rows| rows.get(r)), self.blocks.get(n)) else {
            return RowState::Gone;
        };
        let current = match row.inst {
            Some(i) => now.texts.get(&i),
            None => now.headers.get(&b),
        };
        match (current == Some(&row.text), row.version) {
            (true, _) => RowState::Present,
            (false, Version::New) => RowState::Pending,
            (false, _) => RowState::Gone,
        }
    }

    /// The node and row showing `inst` (its newest version if it has two).
    pub fn row_of(&self, inst: InstId) -> Option<(usize, usize)> {
        self.rows.iter().enumerate().rev().find_map(|(n, rows)| Some((n, rows.iter().rposition(|r| r.inst == Some(inst))?)))
    }

    pub fn inst_at(&self, n: usize, r: usize) -> Option<InstId> {
        self.rows.get(n)?.get(r)?.inst
    }
}

/// Per block: the header line (if any) and each instruction's text.
struct Code {
    header: Option<String>,
    texts: HashMap<InstId, String>,
}

fn code_by_block(f: &Function) -> HashMap<BlockId, Code> {
    f.layout
        .iter()
        .zip(block_code(f))
        .map(|(&b, (lines, ids))| {
            let mut code = Code { header: None, texts: HashMap::new() };
            for (line, id) in lines.into_iter().zip(ids) {
                match id {
                    Some(i) => {
                        code.texts.insert(i, line);
                    }
                    None => code.header = Some(line),
                }
            }
            (b, code)
        })
        .collect()
}

/// Rows for one thing that exists before as `old` and after as `new` (texts; `None`: absent).
fn pair(rows: &mut Vec<Row>, inst: Option<InstId>, old: Option<&String>, new: Option<&String>) {
    match (old, new) {
        (Some(o), Some(n)) if o == n => rows.push(Row { inst, version: Version::Same, text: o.clone() }),
        (o, n) => {
            if let Some(o) = o {
                rows.push(Row { inst, version: Version::Old, text: o.clone() });
            }
            if let Some(n) = n {
                rows.push(Row { inst, version: Version::New, text: n.clone() });
            }
        }
    }
}

/// The rows of block `b`: original order, each deleted instruction where it was (before
/// anything inserted at its place), a replaced terminator above its replacement.
fn block_rows(f: &Function, after: &Function, b: BlockId, old: &Code, new: Option<&Code>) -> Vec<Row> {
    let mut rows = Vec::new();
    let empty = HashMap::new();
    let new_texts = new.map_or(&empty, |c| &c.texts);
    pair(&mut rows, None, old.header.as_ref(), new.and_then(|c| c.header.as_ref()));
    let o: &[InstId] = f.blocks.get(b).map_or(&[], |x| &x.insts);
    let n: &[InstId] = match (new, after.blocks.get(b)) {
        (Some(_), Some(x)) => &x.insts,
        _ => &[],
    };
    let in_new: HashSet<InstId> = n.iter().copied().collect();
    let in_old: HashSet<InstId> = o.iter().copied().collect();
    let (mut i, mut j) = (0, 0);
    while i < o.len() || j < n.len() {
        match n.get(j) {
            Some(&x) if in_old.contains(&x) => {
                while i < o.len() && o[i] != x {
                    pair(&mut rows, Some(o[i]), old.texts.get(&o[i]), new_texts.get(&o[i]));
                    i += 1;
                }
                pair(&mut rows, Some(x), old.texts.get(&x), new_texts.get(&x));
                i += 1;
                j += 1;
            }
            Some(&x) => {
                while i < o.len() && !in_new.contains(&o[i]) {
                    pair(&mut rows, Some(o[i]), old.texts.get(&o[i]), None);
                    i += 1;
                }
                pair(&mut rows, Some(x), None, new_texts.get(&x));
                j += 1;
            }
            None => {
                pair(&mut rows, Some(o[i]), old.texts.get(&o[i]), None);
                i += 1;
            }
        }
    }
    let t_old = f.blocks.get(b).and_then(|x| x.term);
    let t_new = new.and(after.blocks.get(b)).and_then(|x| x.term);
    match (t_old, t_new) {
        (Some(x), Some(y)) if x == y => pair(&mut rows, Some(x), old.texts.get(&x), new_texts.get(&x)),
        (x, y) => {
            if let Some(x) = x {
                pair(&mut rows, Some(x), old.texts.get(&x), None);
            }
            if let Some(y) = y {
                pair(&mut rows, Some(y), None, new_texts.get(&y));
            }
        }
    }
    rows
}

/// The merged drawing of `f` (before the pass) and `after` (the pass's output, whose ids
/// extend `f`'s). Edges: those of `f` with their branch kinds, then the new ones dashed.
pub fn sweep_graph(f: &Function, after: &Function) -> SweepGraph {
    let old = code_by_block(f);
    let new = code_by_block(after);
    let mut rows = Vec::new();
    let mut nodes = Vec::new();
    for &b in &f.layout {
        let r = match old.get(&b) {
            Some(code) => block_rows(f, after, b, code, new.get(&b)),
            None => Vec::new(),
        };
        let name = f.block_name(b);
        nodes.push(Node::new(name.clone(), name, r.iter().map(|x| x.text.clone()).collect()));
        rows.push(r);
    }
    let node_of: HashMap<BlockId, usize> = f.layout.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let mut edges = Vec::new();
    let mut edge_blocks = Vec::new();
    let mut seen = HashSet::new();
    for &b in &f.layout {
        let succs = f.successors(b);
        let two_way = succs.len() == 2;
        for (k, s) in succs.into_iter().enumerate() {
            let (Some(&i), Some(&j)) = (node_of.get(&b), node_of.get(&s)) else { continue };
            let kind = match (two_way, k) {
                (true, 0) => EdgeKind::True,
                (true, _) => EdgeKind::False,
                _ => EdgeKind::Normal,
            };
            seen.insert((b, s));
            edges.push(Edge { kind, ..Edge::new(i, j) });
            edge_blocks.push((b, s));
        }
    }
    for &b in &after.layout {
        for s in after.successors(b) {
            let (Some(&i), Some(&j)) = (node_of.get(&b), node_of.get(&s)) else { continue };
            if seen.insert((b, s)) {
                edges.push(Edge { kind: EdgeKind::Dashed, ..Edge::new(i, j) });
                edge_blocks.push((b, s));
            }
        }
    }
    SweepGraph { graph: Rc::new(Graph { nodes, edges }), rows, blocks: f.layout.clone(), edge_blocks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use optlab_core::passes::dce;
    use super::super::fixtures::*;
    use optlab_core::Lang;


    fn kinds(rows: &[Row]) -> Vec<(Version, &str)> {
        rows.iter().map(|r| (r.version, r.text.trim())).collect()
    }

    #[test]
    fn a_rewritten_branch_sits_under_the_old_one_and_removed_blocks_keep_their_code() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT_DEAD);
        let r = dce::run(&f);
        let g = sweep_graph(&f, &r.function);
        let titles: Vec<&str> = g.graph.nodes.iter().map(|n| n.title.as_str()).collect();
        assert_eq!(titles, ["bb0", "bb1", "bb2", "bb3"]);
        assert_eq!(
            kinds(&g.rows[0]),
            [
                (Version::Old, "%0 = integer_literal $Builtin.Int1, 1"),
                (Version::Old, "cond_br %0, bb1, bb2"),
                (Version::New, "br bb3(undef : $Builtin.Int64)"),
            ]
        );
        assert!(g.rows[1].iter().all(|r| r.version == Version::Old), "{:?}", g.rows[1]);
        assert!(g.rows[3].iter().all(|r| r.version == Version::Same));
        // The new edge bb0 → bb3 is added, dashed; the old ones stay.
        assert_eq!(g.graph.edges.len(), 5);
        assert_eq!(g.graph.edges[4].kind, EdgeKind::Dashed);
        assert_eq!(g.edge_blocks[4], (f.layout[0], f.layout[3]));
        // Every row's text is its node's line.
        for (n, rows) in g.rows.iter().enumerate() {
            assert_eq!(g.graph.nodes[n].lines, rows.iter().map(|r| r.text.clone()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn row_states_follow_the_replay() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT_DEAD);
        let r = dce::run(&f);
        let g = sweep_graph(&f, &r.function);
        let before = Now::of(&f);
        let after = Now::of(&r.function);
        // Before the sweep: old rows are there, the new branch is pending.
        assert_eq!(g.state(0, 1, &before), RowState::Present);
        assert_eq!(g.state(0, 2, &before), RowState::Pending);
        assert_eq!(g.state(1, 0, &before), RowState::Present);
        // After it: the old branch is gone, the new one present, bb1's code gone with bb1.
        assert_eq!(g.state(0, 1, &after), RowState::Gone);
        assert_eq!(g.state(0, 2, &after), RowState::Present);
        assert_eq!(g.state(1, 0, &after), RowState::Gone);
        assert_eq!(g.state(3, 1, &after), RowState::Present);
        assert_eq!(g.state(9, 0, &after), RowState::Gone);
        assert!(after.edges.contains(&(f.layout[0], f.layout[3])));
        assert!(!after.edges.contains(&(f.layout[0], f.layout[1])));
        // The rewritten branch's id is the new row's.
        let new_br = r.function.blocks[f.layout[0]].term.unwrap();
        assert_eq!(g.row_of(new_br), Some((0, 2)));
        assert_eq!(g.inst_at(0, 2), Some(new_br));
    }

    #[test]
    fn undef_operands_show_old_and_new_text_in_place() {
        // %2 is dead but passed to bb1's parameter, which is dead too: the branch passes undef.
        let text = "sil @f : $@convention(thin) () -> () {\nbb0:\n  %0 = integer_literal $Builtin.Int64, 3\n  br bb1(%0 : $Builtin.Int64)\nbb1(%2 : $Builtin.Int64):\n  %3 = tuple ()\n  return %3 : $()\n}\n";
        let f = function(Lang::Sil, text);
        let r = dce::run(&f);
        let g = sweep_graph(&f, &r.function);
        let rows = kinds(&g.rows[0]);
        assert_eq!(rows[0], (Version::Old, "%0 = integer_literal $Builtin.Int64, 3"));
        assert_eq!(rows[1], (Version::Old, "br bb1(%0 : $Builtin.Int64)"));
        assert_eq!(rows[2], (Version::New, "br bb1(undef : $Builtin.Int64)"));
        assert_eq!(g.rows[0][1].inst, g.rows[0][2].inst, "an in-place rewrite keeps the instruction");
    }

    #[test]
    fn bril_deleted_lines_stay_in_order() {
        let f = function(Lang::Bril, BRIL[0]);
        let r = dce::run(&f);
        let g = sweep_graph(&f, &r.function);
        for (n, &b) in f.layout.iter().enumerate() {
            let old: Vec<Option<InstId>> = f.blocks[b].all_insts().map(Some).collect();
            let shown: Vec<Option<InstId>> =
                g.rows[n].iter().filter(|r| r.version != Version::New).map(|r| r.inst).collect();
            assert_eq!(shown, old, "block {}", f.blocks[b].name);
        }
    }
}
