//! What the DCE view draws at step `k` (the trace's first `k` events applied): which graph,
//! and the classes of its lines, boxes and edges. Pure, so it is tested natively.
//!
//! While marking, the graph is the function's own CFG and lines light up as they are marked.
//! From the sweep on, it is the merged before/after drawing of [`super::sweep_graph`]:
//! unmarked lines are dead, then struck out as the sweep deletes them, and new code appears
//! under what it replaces.

use super::exercise::Grade;
use super::sweep_graph::{sweep_graph, Now, RowState, SweepGraph, Version};
use optlab_core::passes::dce::words;
use crate::cfg_graph::{cfg_graph, CfgGraph};
use crate::graph::{Decor, Graph};
use optlab_core::passes::dce::{self, DceResult, Event, Node, Phase};
use optlab_core::{BlockId, Function, InstId, ValueId};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// Code lines in the drawings are cut to this many characters: one SIL `builtin` with its
/// types would make its box wider than the pane and shrink the whole graph to fit. The full
/// text is in the editor and in the why-live panel.
pub const GRAPH_LINE: usize = 48;

/// The two drawings of one DCE run.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub marking: CfgGraph,
    pub sweep: SweepGraph,
    /// What is drawn: the two graphs with long lines cut ([`GRAPH_LINE`]).
    shown_marking: Rc<Graph>,
    shown_sweep: Rc<Graph>,
    /// The index of the `Phase::Sweep` event (steps after it show `sweep`).
    pub sweep_at: Option<usize>,
}

/// What the user has selected or guessed, drawn over the step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlay {
    pub inst: Option<InstId>,
    pub block: Option<String>,
    /// Exercise mode: the node the question is about.
    pub visitor: Option<Node>,
    pub guesses: BTreeSet<InstId>,
    /// Set once the answer is revealed.
    pub grade: Option<Grade>,
}

/// One line of the "marked live" list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marked {
    pub event: usize,
    /// The instruction, if the node is one (arguments are not selectable).
    pub inst: Option<InstId>,
    pub code: String,
    pub block: String,
    pub reason: String,
}

/// The nodes marked live by the first `k` events, with the event that marked each.
pub struct Marks {
    pub insts: HashMap<InstId, usize>,
    pub args: HashMap<ValueId, usize>,
}

impl Marks {
    pub fn at(r: &DceResult, k: usize) -> Marks {
        let mut m = Marks { insts: HashMap::new(), args: HashMap::new() };
        for (i, e) in r.trace.events.iter().take(k).enumerate() {
            match e {
                Event::Live { inst, .. } => {
                    m.insts.entry(*inst).or_insert(i);
                }
                Event::LiveArg { arg, .. } => {
                    m.args.entry(*arg).or_insert(i);
                }
                _ => {}
            }
        }
        m
    }
}

impl Model {
    pub fn new(f: &Function, r: &DceResult) -> Model {
        let sweep_at = r.trace.events.iter().position(|e| matches!(e, Event::Phase { phase: Phase::Sweep }));
        let (marking, sweep) = (cfg_graph(f), sweep_graph(f, &r.function));
        let (shown_marking, shown_sweep) = (Rc::new(cut_lines(&marking.graph)), Rc::new(cut_lines(&sweep.graph)));
        Model { marking, sweep, shown_marking, shown_sweep, sweep_at }
    }

    /// Whether step `k` shows the sweep drawing.
    pub fn in_sweep(&self, k: usize) -> bool {
        self.sweep_at.is_some_and(|s| k > s)
    }

    /// The drawing of step `k` (one of two graphs, so stepping only repaints).
    pub fn graph(&self, k: usize) -> Rc<Graph> {
        if self.in_sweep(k) {
            self.shown_sweep.clone()
        } else {
            self.shown_marking.clone()
        }
    }

    /// The instruction on `line` of box `node` at step `k`.
    pub fn inst_at(&self, k: usize, node: usize, line: usize) -> Option<InstId> {
        if self.in_sweep(k) {
            self.sweep.inst_at(node, line)
        } else {
            self.marking.inst_at(node, line)
        }
    }

    /// The lines showing `inst` at step `k` (two in the sweep drawing for an in-place rewrite).
    fn lines_of(&self, k: usize, inst: InstId) -> Vec<(usize, usize)> {
        if self.in_sweep(k) {
            let mut v = Vec::new();
            for (n, rows) in self.sweep.rows.iter().enumerate() {
                v.extend(rows.iter().enumerate().filter(|(_, r)| r.inst == Some(inst)).map(|(l, _)| (n, l)));
            }
            v
        } else {
            self.marking.line_of(inst).into_iter().collect()
        }
    }

    fn node_of_block(&self, k: usize, b: BlockId) -> Option<usize> {
        let blocks = if self.in_sweep(k) { &self.sweep.blocks } else { &self.marking.blocks };
        blocks.iter().position(|&x| x == b)
    }

    /// The decoration of step `k`.
    pub fn decor(&self, f: &Function, r: &DceResult, k: usize, o: &Overlay) -> Decor {
        let mut d = Decor::new();
        let marks = Marks::at(r, k);
        let graph = self.graph(k);
        let add = |d: &mut Decor, n: usize, l: usize, class: &str| {
            d.line_class(n, l, class);
        };
        if self.in_sweep(k) {
            let now = match dce::replay_to(f, &r.trace, k) {
                Ok(g) => Now::of(&g),
                Err(_) => Now::of(&r.function),
            };
            for (n, rows) in self.sweep.rows.iter().enumerate() {
                for (l, row) in rows.iter().enumerate() {
                    let class = match (self.sweep.state(n, l, &now), row.version) {
                        (RowState::Gone, _) => "deleted",
                        (RowState::Pending, _) => "pending",
                        (RowState::Present, Version::New) => "inserted",
                        (RowState::Present, version) => match row.inst {
                            Some(i) if marks.insts.contains_key(&i) => "live",
                            // Unmarked but kept (a `jmp` is never deleted by itself).
                            Some(_) if version == Version::Same => "",
                            Some(_) => "dead",
                            None => "",
                        },
                    };
                    if !class.is_empty() {
                        add(&mut d, n, l, class);
                    }
                }
                let b = self.sweep.blocks[n];
                if !now.blocks.contains(&b) {
                    d.node_class(n, "unreachable");
                }
            }
            for (e, pair) in self.sweep.edge_blocks.iter().enumerate() {
                if !now.edges.contains(pair) {
                    d.edge_class(e, "dim");
                }
            }
        } else {
            for (n, lines) in self.marking.insts.iter().enumerate() {
                for (l, i) in lines.iter().enumerate() {
                    if i.is_some_and(|i| marks.insts.contains_key(&i)) {
                        add(&mut d, n, l, "live");
                    }
                }
            }
        }
        // The last step's event.
        if let Some(e) = k.checked_sub(1).and_then(|i| r.trace.events.get(i)) {
            let (insts, block) = touched(e);
            for i in insts {
                for (n, l) in self.lines_of(k, i) {
                    if self.in_sweep(k) || matches!(e, Event::Live { .. }) {
                        add(&mut d, n, l, "current");
                    }
                }
            }
            if let Some(n) = block.and_then(|b| self.node_of_block(k, b)) {
                d.node_class(n, "current");
            }
        }
        if let Some(Node::Inst(v)) = o.visitor {
            for (n, l) in self.lines_of(k, v) {
                add(&mut d, n, l, "cause");
            }
        }
        for &g in &o.guesses {
            for (n, l) in self.lines_of(k, g) {
                add(&mut d, n, l, "guess");
            }
        }
        if let Some(grade) = &o.grade {
            for i in grade.right.iter().chain(&grade.wrong).chain(&grade.missed) {
                if let Some(class) = grade.class(*i) {
                    for (n, l) in self.lines_of(k, *i) {
                        add(&mut d, n, l, class);
                    }
                }
            }
        }
        if let Some(i) = o.inst {
            for (n, l) in self.lines_of(k, i) {
                add(&mut d, n, l, "selected");
            }
        }
        if let Some(n) = o.block.as_deref().and_then(|b| graph.node_index(b)) {
            d.node_class(n, "selected");
        }
        d
    }
}

fn cut_lines(g: &Graph) -> Graph {
    let mut g = g.clone();
    for n in &mut g.nodes {
        for l in &mut n.lines {
            *l = words::shorten(l, GRAPH_LINE);
        }
    }
    g
}

/// The instructions and the block an event is about (for the "current" highlight).
fn touched(e: &Event) -> (Vec<InstId>, Option<BlockId>) {
    match e {
        Event::Phase { .. } => (Vec::new(), None),
        Event::Live { inst, block, .. } => (vec![*inst], Some(*block)),
        Event::LiveArg { block, .. } => (Vec::new(), Some(*block)),
        Event::RewriteBranch { block, old, new, .. } => (vec![*old, *new], Some(*block)),
        Event::EndLifetime { block, new, .. } => (vec![*new], Some(*block)),
        Event::ErasePhi { block, .. } => (Vec::new(), Some(*block)),
        Event::Delete { inst, block } => (vec![*inst], Some(*block)),
        Event::Undef { inst, .. } => (vec![*inst], None),
        Event::ExplicitJump { block, new, .. } => (vec![*new], Some(*block)),
        Event::RemoveBlock { block } => (Vec::new(), Some(*block)),
    }
}

/// The newest `limit` nodes marked by the first `k` events, newest first, and how many
/// were marked in all (a big function marks thousands; only the shown ones are worded).
pub fn marked(f: &Function, r: &DceResult, k: usize, limit: usize) -> (Vec<Marked>, usize) {
    let events = &r.trace.events[..k.min(r.trace.events.len())];
    let is_mark = |e: &Event| matches!(e, Event::Live { .. } | Event::LiveArg { .. });
    let total = events.iter().filter(|e| is_mark(e)).count();
    let shown = events
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(event, e)| match e {
            Event::Live { inst, block, reason } => Some(Marked {
                event,
                inst: Some(*inst),
                code: words::code(f, *inst),
                block: f.block_in_code(*block),
                reason: words::reason_short(f, reason, f.insts.get(*inst).map_or("", |x| x.op.name())),
            }),
            Event::LiveArg { arg, block, reason } => Some(Marked {
                event,
                inst: None,
                code: format!("argument {}", f.value_in_code(*arg)),
                block: f.block_in_code(*block),
                reason: words::reason_short(f, reason, ""),
            }),
            _ => None,
        })
        .take(limit)
        .collect();
    (shown, total)
}

/// The why-live chain of `inst` as the view may show it at step `k`: the whole chain once it
/// is marked (every link was marked before it); before that, a note, and — unless the
/// student is predicting — what the end of the run says.
pub fn why(f: &Function, r: &DceResult, k: usize, inst: InstId, exercise: bool) -> Vec<String> {
    // Instructions the sweep created exist only in the output.
    let host = if f.insts.get(inst).is_some() { f } else { &r.function };
    let marked_now = Marks::at(r, k).insts.contains_key(&inst);
    let done = r.trace.events.iter().take(k).any(|e| matches!(e, Event::Phase { phase: Phase::Sweep }));
    if marked_now || done || r.trace.events.is_empty() {
        return dce::explain(host, &r.trace, inst);
    }
    let mut v = vec![format!("`{}` is not marked live at this step.", words::code(host, inst))];
    if !exercise {
        v.push("By the end of the run:".into());
        v.extend(dce::explain(host, &r.trace, inst));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;
    use optlab_core::Lang;

    fn classes_of(d: &Decor, line: Option<(usize, usize)>) -> String {
        let (n, l) = line.expect("the instruction is drawn");
        d.line(n, l).to_string()
    }

    #[test]
    fn dead1_lights_up_the_return_then_strikes_out_the_sum() {
        let f = function(Lang::Sil, DEAD1);
        let r = dce::run(&f);
        let m = Model::new(&f, &r);
        let ret = f.blocks[f.layout[0]].term.unwrap();
        let sum = f.blocks[f.layout[0]].insts[3];
        let none = Overlay::default();
        // Step 0: nothing marked.
        let d = m.decor(&f, &r, 0, &none);
        assert_eq!(classes_of(&d, m.marking.line_of(ret)), "");
        // Step 2: the return was just marked.
        assert!(!m.in_sweep(2));
        let d = m.decor(&f, &r, 2, &none);
        assert_eq!(classes_of(&d, m.marking.line_of(ret)), "live current");
        assert_eq!(d.node(0).map(|n| n.class.as_str()), Some("current"));
        assert_eq!(classes_of(&d, m.marking.line_of(sum)), "");
        // Right after the sweep marker: the sweep drawing, the sum dead but still there.
        let s = m.sweep_at.unwrap();
        assert!(m.in_sweep(s + 1));
        assert_eq!(m.graph(s + 1).nodes[0].lines.len(), m.sweep.rows[0].len());
        assert!(Rc::ptr_eq(&m.graph(s + 1), &m.graph(s + 2)), "one drawing for the whole sweep");
        // The builtin's line is cut so the box stays narrow.
        let drawn = &m.graph(0).nodes[0].lines;
        assert!(drawn.iter().all(|l| l.chars().count() <= GRAPH_LINE));
        assert!(drawn[4].contains("builtin") && drawn[4].ends_with('…'), "{}", drawn[4]);
        let d = m.decor(&f, &r, s + 1, &none);
        assert_eq!(classes_of(&d, m.sweep.row_of(sum)), "dead");
        assert_eq!(classes_of(&d, m.sweep.row_of(ret)), "live");
        // At the end every dead line is struck out and the return stays live.
        let end = r.trace.events.len();
        let d = m.decor(&f, &r, end, &none);
        for &i in &f.blocks[f.layout[0]].insts {
            assert!(classes_of(&d, m.sweep.row_of(i)).starts_with("deleted"), "{i}");
        }
        assert_eq!(classes_of(&d, m.sweep.row_of(ret)), "live");
        // The last event deleted %8: it is the current line.
        let last = *f.blocks[f.layout[0]].insts.last().unwrap();
        assert_eq!(classes_of(&d, m.sweep.row_of(last)), "deleted current");
    }

    #[test]
    fn a_rewrite_appears_when_its_event_is_applied_and_old_edges_fade() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT_DEAD);
        let r = dce::run(&f);
        let m = Model::new(&f, &r);
        let s = m.sweep_at.unwrap();
        let rewrite = r.trace.events.iter().position(|e| matches!(e, Event::RewriteBranch { .. })).unwrap();
        assert!(rewrite > s);
        let none = Overlay::default();
        let before = m.decor(&f, &r, rewrite, &none);
        let after = m.decor(&f, &r, rewrite + 1, &none);
        // bb0's rows: the literal, the old cond_br, the new br.
        assert_eq!((before.line(0, 1), before.line(0, 2)), ("dead", "pending"));
        assert_eq!((after.line(0, 1), after.line(0, 2)), ("deleted current", "inserted current"));
        // Edges bb0 → bb1 and bb0 → bb2 fade once the branch is rewritten; bb0 → bb3 appears.
        assert!(!before.edges.contains_key(&0) && before.edges.get(&4).map(String::as_str) == Some("dim"));
        assert_eq!(after.edges.get(&0).map(String::as_str), Some("dim"));
        assert!(!after.edges.contains_key(&4));
        // Removing a block greys its box.
        let end = m.decor(&f, &r, r.trace.events.len(), &none);
        assert_eq!(end.node(1).map(|n| n.class.as_str()), Some("unreachable"));
        assert!(end.node(3).is_none_or(|n| n.class.is_empty()));
    }

    #[test]
    fn selections_and_guesses_are_drawn() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT);
        let r = dce::run(&f);
        let m = Model::new(&f, &r);
        let ret = f.blocks[f.layout[3]].term.unwrap();
        let lit = f.blocks[f.layout[1]].insts[0];
        let o = Overlay {
            inst: Some(ret),
            block: Some("bb2".into()),
            visitor: Some(Node::Inst(ret)),
            guesses: BTreeSet::from([lit]),
            grade: None,
        };
        let d = m.decor(&f, &r, 0, &o);
        assert_eq!(classes_of(&d, m.marking.line_of(ret)), "cause selected");
        assert_eq!(classes_of(&d, m.marking.line_of(lit)), "guess");
        assert_eq!(d.node(2).map(|n| n.class.as_str()), Some("selected"));
        let graded = Overlay { grade: Some(Grade::new(&BTreeSet::from([lit]), &BTreeSet::new())), guesses: BTreeSet::new(), ..o };
        assert_eq!(classes_of(&m.decor(&f, &r, 0, &graded), m.marking.line_of(lit)), "missed");
    }

    #[test]
    fn the_marked_list_is_newest_first_with_reasons_in_words() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT);
        let r = dce::run(&f);
        let (all, total) = marked(&f, &r, r.trace.events.len(), 100);
        assert_eq!((all.len(), total), (8, 8), "{all:#?}");
        let (few, total) = marked(&f, &r, r.trace.events.len(), 3);
        assert_eq!((few.as_slice(), total), (&all[..3], 8));
        let last = all.last().unwrap();
        assert_eq!((last.code.as_str(), last.block.as_str(), last.reason.as_str()), ("return %6 : $Int", "bb3", "function exit: return"));
        assert!(all.windows(2).all(|w| w[0].event > w[1].event));
        let arg = all.iter().find(|m| m.inst.is_none()).unwrap();
        assert_eq!((arg.code.as_str(), arg.reason.as_str()), ("argument %6", "operand of `return %6 : $Int`"));
        let cd = all.iter().find(|m| m.code.starts_with("cond_br")).unwrap();
        assert!(cd.reason.starts_with("controls bb"), "{}", cd.reason);
        assert!(all.iter().any(|m| m.reason == "passes %6 to bb3"));
        assert!(all.iter().any(|m| m.reason == "passed to %6 of bb3"));
        assert_eq!(marked(&f, &r, 0, 100), (Vec::new(), 0));
        assert_eq!(marked(&f, &r, 9999, 100).1, 8, "clamped to the trace");
    }

    #[test]
    fn why_live_waits_for_the_mark_and_keeps_the_answer_from_students() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT);
        let r = dce::run(&f);
        let lit = f.blocks[f.layout[1]].insts[0];
        let early = why(&f, &r, 0, lit, false);
        assert!(early[0].contains("is not marked live at this step"));
        assert!(early.iter().any(|l| l.contains("passed for the live argument %6")), "{early:#?}");
        assert_eq!(why(&f, &r, 0, lit, true).len(), 1, "exercise mode hides the future");
        let end = why(&f, &r, r.trace.events.len(), lit, true);
        assert_eq!(end, dce::explain(&f, &r.trace, lit));
        assert!(end.last().unwrap().contains("it is a root"));
        // An instruction the sweep created is explained from the output.
        let g = function(Lang::Sil, CONTROL_DEPENDENT_DEAD);
        let rg = dce::run(&g);
        let new_br = rg.function.blocks[g.layout[0]].term.unwrap();
        let lines = why(&g, &rg, rg.trace.events.len(), new_br, false);
        assert!(lines[0].contains("inserted by the sweep"), "{lines:#?}");
    }

    #[test]
    fn an_unmarked_jump_that_stays_is_not_struck_out() {
        let text = "@main {\n.top:\n  x: int = const 1;\n  jmp .end;\n.end:\n  print x;\n}\n";
        let f = function(Lang::Bril, text);
        let r = dce::run(&f);
        let m = Model::new(&f, &r);
        let jmp = f.blocks[f.layout[0]].term.unwrap();
        let s = m.sweep_at.unwrap();
        for k in [s + 1, r.trace.events.len()] {
            let d = m.decor(&f, &r, k, &Overlay::default());
            assert_eq!(classes_of(&d, m.sweep.row_of(jmp)), "", "step {k}");
        }
    }

    #[test]
    fn every_step_of_the_bril_examples_draws_without_trouble() {
        for text in BRIL {
            let f = function(Lang::Bril, text);
            let r = dce::run(&f);
            let m = Model::new(&f, &r);
            for k in 0..=r.trace.events.len() {
                let d = m.decor(&f, &r, k, &Overlay::default());
                let g = m.graph(k);
                for (&n, nd) in &d.nodes {
                    assert!(n < g.nodes.len());
                    assert!(nd.lines.keys().all(|&l| l < g.nodes[n].lines.len()));
                }
            }
        }
    }
}

#[cfg(test)]
mod big {
    use super::*;

    /// The gallery's stress size: every step draws, and a sweep step (the costliest: replay
    /// and reprint) stays well under a frame's budget natively.
    #[test]
    fn a_200_block_function_draws_at_every_kind_of_step() {
        let f = optlab_core::testgen::structured_function(200, 7);
        let r = dce::run(&f);
        let m = Model::new(&f, &r);
        let n = r.trace.events.len();
        assert!(n > 200, "{n} events");
        let steps: Vec<usize> = (0..=n).step_by((n / 40).max(1)).chain([n]).collect();
        let mut slowest = std::time::Duration::ZERO;
        for k in steps {
            let t = std::time::Instant::now();
            let d = m.decor(&f, &r, k, &Overlay::default());
            slowest = slowest.max(t.elapsed());
            let g = m.graph(k);
            assert!(d.nodes.keys().all(|&i| i < g.nodes.len()));
        }
        eprintln!("200 blocks, {n} events: slowest step decor {slowest:?}");
        let end = m.decor(&f, &r, n, &Overlay::default());
        let deleted = end.nodes.values().flat_map(|nd| nd.lines.values()).filter(|c| c.contains("deleted")).count();
        assert!(deleted >= r.stats.insts_removed, "{deleted} struck lines for {} removed", r.stats.insts_removed);
    }
}
