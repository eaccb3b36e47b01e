//! The LCM view's CFG drawings: which function a step shows (before LCM, after step 1's
//! splits, after step 7) and what is drawn on it — the current step's predicate bits as
//! badges at each block's entry (`N…`, above the box) and exit (`X…`, below), blocks step 1
//! created, and step 7's inserted and deleted computations.

use super::equations;
use crate::cfg_graph::{cfg_graph, CfgGraph};
use crate::graph::{Badge, Decor, Graph};
use optlab_core::passes::dce::inst_text;
use optlab_core::passes::lcm::{stage_info, Edit, LcmOutput, Pos, Pred, Snapshot, Step};
use optlab_core::{Function, InstId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// How step 7 changed a line of the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEdit {
    /// `t = e` put at an insertion point.
    Inserted,
    /// A computation step 7 removed (drawn struck through where it was).
    Deleted,
    /// `d = e` that became `d = t`.
    Rewritten,
}

impl LineEdit {
    pub fn class(self) -> &'static str {
        match self {
            LineEdit::Inserted => "inserted",
            LineEdit::Deleted => "deleted",
            LineEdit::Rewritten => "rewritten",
        }
    }
}

/// The three drawings of one LCM run, made once per analysis.
#[derive(Debug, PartialEq)]
pub struct LcmGraphs {
    /// The function as written (step 0).
    pub before: CfgGraph,
    /// After step 1: what the predicates describe (steps 1–6).
    pub split: CfgGraph,
    /// After step 7, with each deleted computation kept as a struck-through line where it was.
    pub after: Rc<Graph>,
    /// Per node of `after`, per line: what step 7 did to it.
    pub after_edits: Vec<Vec<Option<LineEdit>>>,
}

impl LcmGraphs {
    pub fn new(original: &Function, out: &LcmOutput) -> LcmGraphs {
        let (after, after_edits) = after_graph(out);
        LcmGraphs { before: cfg_graph(original), split: cfg_graph(&out.split), after: Rc::new(after), after_edits }
    }

    /// The drawing step `pos` shows.
    pub fn graph_at(&self, out: &LcmOutput, pos: Pos) -> Rc<Graph> {
        match stage_at(out, pos) {
            None => self.before.graph.clone(),
            Some(Step::Transform { .. }) => self.after.clone(),
            Some(_) => self.split.graph.clone(),
        }
    }
}

fn stage_at(out: &LcmOutput, pos: Pos) -> Option<&Step> {
    out.trace.steps.get(pos.stage()?)
}

fn after_graph(out: &LcmOutput) -> (Graph, Vec<Vec<Option<LineEdit>>>) {
    let cfg = cfg_graph(&out.result);
    let mut edits: HashMap<InstId, LineEdit> = HashMap::new();
    // Deleted computations, by the instruction they stood just before (`d = t`).
    let mut deleted_before: HashMap<InstId, Vec<InstId>> = HashMap::new();
    let steps = &out.trace.steps;
    if let Some(Step::Transform { edits: list, .. }) = steps.iter().find(|s| matches!(s, Step::Transform { .. })) {
        let split_of: HashMap<InstId, InstId> = list
            .iter()
            .filter_map(|e| match e {
                Edit::Split { inst, temp, .. } => Some((*temp, *inst)),
                _ => None,
            })
            .collect();
        for e in list {
            match e {
                Edit::Insert { inst, .. } => {
                    edits.insert(*inst, LineEdit::Inserted);
                }
                Edit::Split { inst, .. } => {
                    edits.insert(*inst, LineEdit::Rewritten);
                }
                Edit::Delete { inst, block, .. } => {
                    if let Some(&at) = split_of.get(inst) {
                        deleted_before.entry(at).or_default().push(*inst);
                    } else if let Some(at) = sil_next_kept(out, *block, *inst) {
                        // SIL: the deleted computation itself (no `d = t` stays behind), shown
                        // before the first instruction after it that is still there.
                        deleted_before.entry(at).or_default().push(*inst);
                    }
                }
                _ => {}
            }
        }
    }
    let mut g = (*cfg.graph).clone();
    let mut marks = Vec::with_capacity(g.nodes.len());
    for (n, node) in g.nodes.iter_mut().enumerate() {
        let mut lines = Vec::with_capacity(node.lines.len());
        let mut node_marks = Vec::with_capacity(node.lines.len());
        for (k, line) in std::mem::take(&mut node.lines).into_iter().enumerate() {
            let inst = cfg.inst_at(n, k);
            for &gone in inst.and_then(|i| deleted_before.get(&i)).into_iter().flatten() {
                lines.push(format!("{};", inst_text(&out.result, gone)));
                node_marks.push(Some(LineEdit::Deleted));
            }
            lines.push(line);
            node_marks.push(inst.and_then(|i| edits.get(&i).copied()));
        }
        node.lines = lines;
        marks.push(node_marks);
    }
    (g, marks)
}

/// The first instruction after `inst` in `block` of the split function that the result
/// still has (its terminator at the latest).
fn sil_next_kept(out: &LcmOutput, block: optlab_core::ir::BlockId, inst: InstId) -> Option<InstId> {
    let placed = |i: InstId| out.result.blocks.get(block).is_some_and(|b| b.all_insts().any(|x| x == i));
    let all: Vec<InstId> = out.split.blocks.get(block)?.all_insts().collect();
    let k = all.iter().position(|&i| i == inst)?;
    all[k + 1..].iter().copied().find(|&i| placed(i)).or_else(|| out.result.blocks[block].term)
}

/// What the decor needs besides the step: the selected block and, in exercise mode, the
/// cells whose values are hidden.
pub struct DecorInput<'a> {
    pub selected: Option<&'a str>,
    /// Whether the badge of (row, predicate) must not give its value away.
    pub hidden: &'a dyn Fn(usize, Pred) -> bool,
}

/// The predicates drawn as badges at a step: the current step's, and at step 7 the two that
/// decide where computations go.
fn badge_preds(out: &LcmOutput, pos: Pos) -> &'static [Pred] {
    match stage_at(out, pos) {
        Some(Step::Transform { .. }) => &[Pred::NLatest, Pred::XLatest],
        Some(step) => stage_info(step).preds,
        None => &[],
    }
}

/// The decorations of `graph` (from [`LcmGraphs::graph_at`]) at `pos`.
pub fn decor(out: &LcmOutput, graphs: &LcmGraphs, pos: Pos, snap: &Snapshot, input: &DecorInput) -> Decor {
    let graph = graphs.graph_at(out, pos);
    let mut d = Decor::new();
    let index: HashMap<&str, usize> = graph.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let stage = stage_at(out, pos);
    let after_split = stage.is_some();
    let mut new_nodes = HashSet::new();
    for (row, b) in out.trace.blocks.iter().enumerate() {
        let Some(&i) = index.get(b.name.as_str()) else { continue };
        if after_split && b.new {
            d.node_class(i, "split");
            new_nodes.insert(i);
        }
        if after_split && !b.reachable {
            d.node_class(i, "unreachable");
            continue;
        }
        for &p in badge_preds(out, pos) {
            let Some(v) = snap.cell(row, p).value else { continue };
            let hide = (input.hidden)(row, p);
            let (text, class) = match (hide, v) {
                (true, _) => (format!("{p} ?"), "hidden".to_string()),
                (false, v) => {
                    let mut class = if v { "on" } else { "off" }.to_string();
                    if snap.cell(row, p).changed {
                        class.push_str(" changed");
                    }
                    (format!("{p} {}", u8::from(v)), class)
                }
            };
            let badge = Badge::new(text, class).with_title(equations::tooltip(p));
            if equations::doc(p).at == "exit" {
                d.exit_badge(i, badge);
            } else {
                d.entry_badge(i, badge);
            }
        }
    }
    // Step 1: the edges into and out of its new blocks.
    if matches!(stage, Some(Step::SplitEdges { .. })) {
        for (k, e) in graph.edges.iter().enumerate() {
            if new_nodes.contains(&e.from) || new_nodes.contains(&e.to) {
                d.edge_class(k, "highlight");
            }
        }
    }
    if matches!(stage, Some(Step::Transform { .. })) {
        for (n, lines) in graphs.after_edits.iter().enumerate() {
            for (k, m) in lines.iter().enumerate() {
                if let Some(m) = m {
                    d.line_class(n, k, m.class());
                }
            }
        }
    }
    if let Some(&i) = input.selected.and_then(|s| index.get(s)) {
        d.node_class(i, "selected");
    }
    d
}

/// Rows of the after-graph's lines by edit kind, for tests and the legend: (node id, line text).
pub fn edited_lines(graphs: &LcmGraphs, kind: LineEdit) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (node, marks) in graphs.after.nodes.iter().zip(&graphs.after_edits) {
        for (line, m) in node.lines.iter().zip(marks) {
            if *m == Some(kind) {
                out.entry(node.id.clone()).or_default().push(line.clone());
            }
        }
    }
    out
}
