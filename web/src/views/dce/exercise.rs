//! Exercise mode: the view hides what the next part of the trace does and asks the student
//! to predict it by clicking instructions.
//!
//! A question covers a *batch* of events that belong together, so its answer does not depend
//! on the worklist's order: all the roots; everything one visit of the worklist marks (the
//! visited node's operands, the branches its block depends on, and what a newly live block
//! argument pulls in on the way); or the whole sweep.

use optlab_core::passes::dce::{Event, Node, Phase, Reason, Trace};
use optlab_core::{Function, InstId};
use std::collections::{BTreeSet, HashSet};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Which instructions are live by themselves?
    Roots,
    /// The worklist visits this node: what does it make live?
    Visit(Node),
    /// Marking is over: which instructions does the sweep delete or replace?
    Sweep,
}

/// One question: events `start..end` of the trace and the instructions they mark (or, for
/// the sweep, remove).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub ask: Ask,
    pub start: usize,
    pub end: usize,
    pub answer: BTreeSet<InstId>,
}

/// The node whose visit produced a marking event (`None` for roots and non-marking events).
pub fn cause(e: &Event) -> Option<Node> {
    let reason = match e {
        Event::Live { reason, .. } | Event::LiveArg { reason, .. } => reason,
        _ => return None,
    };
    Some(match reason {
        Reason::Root { .. } => return None,
        Reason::Operand { of } => Node::Inst(*of),
        Reason::ReachingDef { use_in, .. } => Node::Inst(*use_in),
        Reason::IncomingValue { arg, .. } | Reason::BranchFeedsLiveArg { arg, .. } => Node::Arg(*arg),
        Reason::ControlDependence { via, .. } => *via,
        Reason::ReverseDependency { on } => *on,
    })
}

fn is_root(e: &Event) -> bool {
    matches!(e, Event::Live { reason: Reason::Root { .. }, .. } | Event::LiveArg { reason: Reason::Root { .. }, .. })
}

fn is_marking(e: &Event) -> bool {
    matches!(e, Event::Live { .. } | Event::LiveArg { .. })
}

fn is_sweep(e: &Event) -> bool {
    !matches!(e, Event::Live { .. } | Event::LiveArg { .. })
}

/// The question at step `k` (the first `k` events shown): about the next batch of events.
/// `None` when nothing is left to predict.
pub fn question_at(f: &Function, trace: &Trace, k: usize) -> Option<Question> {
    let events = &trace.events;
    // The sweep's phase marker opens the sweep question (its answer may be empty: predicting
    // that nothing is deleted is a prediction too).
    let start = (k..events.len()).find(|&i| {
        !matches!(events[i], Event::Phase { phase: Phase::Roots } | Event::Phase { phase: Phase::Propagate })
    })?;
    let first = &events[start];
    if is_sweep(first) {
        let answer = events[start..].iter().flat_map(|e| removed_by(f, e)).collect();
        return Some(Question { ask: Ask::Sweep, start, end: events.len(), answer });
    }
    let (ask, end) = if is_root(first) {
        let end = (start..events.len()).find(|&i| !is_root(&events[i])).unwrap_or(events.len());
        (Ask::Roots, end)
    } else {
        let visitor = cause(first)?;
        // Arguments marked during the visit are processed on the spot (not queued), so what
        // they pull in belongs to the same visit.
        let mut within: HashSet<Node> = HashSet::from([visitor]);
        let mut end = start;
        while let Some(e) = events.get(end) {
            match cause(e) {
                Some(c) if is_marking(e) && within.contains(&c) => {
                    if let Event::LiveArg { arg, .. } = e {
                        within.insert(Node::Arg(*arg));
                    }
                    end += 1;
                }
                _ => break,
            }
        }
        (Ask::Visit(visitor), end)
    };
    let answer = events[start..end]
        .iter()
        .filter_map(|e| match e {
            Event::Live { inst, .. } => Some(*inst),
            _ => None,
        })
        .collect();
    Some(Question { ask, start, end, answer })
}

/// The original instructions a sweep event takes out of the function.
fn removed_by(f: &Function, e: &Event) -> Vec<InstId> {
    match e {
        Event::Delete { inst, .. } => vec![*inst],
        Event::RewriteBranch { old, .. } => vec![*old],
        Event::RemoveBlock { block } => f.blocks.get(*block).map(|b| b.all_insts().collect()).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// How a set of guesses fared against the answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grade {
    pub right: BTreeSet<InstId>,
    pub wrong: BTreeSet<InstId>,
    pub missed: BTreeSet<InstId>,
}

impl Grade {
    pub fn new(answer: &BTreeSet<InstId>, guesses: &BTreeSet<InstId>) -> Grade {
        Grade {
            right: answer.intersection(guesses).copied().collect(),
            wrong: guesses.difference(answer).copied().collect(),
            missed: answer.difference(guesses).copied().collect(),
        }
    }

    pub fn perfect(&self) -> bool {
        self.wrong.is_empty() && self.missed.is_empty()
    }

    /// The line class of `i` once revealed (`None`: not part of the question).
    pub fn class(&self, i: InstId) -> Option<&'static str> {
        if self.right.contains(&i) {
            Some("right")
        } else if self.wrong.contains(&i) {
            Some("wrong")
        } else if self.missed.contains(&i) {
            Some("missed")
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use optlab_core::passes::dce;
    use super::super::fixtures::*;
    use optlab_core::Lang;


    fn live_events(t: &Trace) -> Vec<InstId> {
        t.events.iter().filter_map(|e| if let Event::Live { inst, .. } = e { Some(*inst) } else { None }).collect()
    }

    /// Walking from question to question covers every event exactly once and every marked
    /// instruction is the answer of exactly one question.
    fn walk(f: &Function) -> Vec<Question> {
        let r = dce::run(f);
        let mut k = 0;
        let mut qs: Vec<Question> = Vec::new();
        while let Some(q) = question_at(f, &r.trace, k) {
            assert!(q.start >= k && q.end > q.start, "{q:?} at {k}");
            if let Some(prev) = qs.last() {
                assert!(q.start >= prev.end);
            }
            k = q.end;
            qs.push(q);
        }
        assert_eq!(k, r.trace.events.len(), "the questions reach the end");
        let marked: BTreeSet<InstId> = qs.iter().filter(|q| q.ask != Ask::Sweep).flat_map(|q| q.answer.clone()).collect();
        assert_eq!(marked, live_events(&r.trace).into_iter().collect());
        qs
    }

    #[test]
    fn the_seed_control_dependent_example_asks_roots_then_visits() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT);
        let qs = walk(&f);
        let ret = f.blocks[f.layout[3]].term.unwrap();
        assert_eq!(qs[0].ask, Ask::Roots);
        assert_eq!(qs[0].answer, BTreeSet::from([ret]));
        // The return's visit marks the argument %6, which pulls in both branches into bb3
        // and the values they pass — one question, not four.
        assert_eq!(qs[1].ask, Ask::Visit(Node::Inst(ret)));
        let br1 = f.blocks[f.layout[1]].term.unwrap();
        let br2 = f.blocks[f.layout[2]].term.unwrap();
        let lit1 = f.blocks[f.layout[1]].insts[0];
        let lit2 = f.blocks[f.layout[2]].insts[0];
        assert_eq!(qs[1].answer, BTreeSet::from([br1, br2, lit1, lit2]));
        // Somewhere later bb0's cond_br is marked by control dependence.
        let cond = f.blocks[f.layout[0]].term.unwrap();
        assert!(qs.iter().any(|q| matches!(q.ask, Ask::Visit(_)) && q.answer.contains(&cond)));
        // Nothing is dead, so the last question is the empty sweep.
        let last = qs.last().unwrap();
        assert_eq!((last.ask.clone(), last.answer.len()), (Ask::Sweep, 0));
    }

    #[test]
    fn the_sweep_question_lists_what_disappears() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT_DEAD);
        let qs = walk(&f);
        let sweep = qs.iter().find(|q| q.ask == Ask::Sweep).unwrap();
        let live: BTreeSet<InstId> = live_events(&dce::run(&f).trace).into_iter().collect();
        let all: BTreeSet<InstId> = f.placed_insts().map(|(_, i)| i).collect();
        assert_eq!(sweep.answer, all.difference(&live).copied().collect());
        // Asked in the middle of the sweep, only what is still to come counts.
        let r = dce::run(&f);
        let late = question_at(&f, &r.trace, sweep.start + 2).unwrap();
        assert!(late.answer.len() < sweep.answer.len());
        assert!(question_at(&f, &r.trace, r.trace.events.len()).is_none());
    }

    #[test]
    fn every_bril_example_is_covered_by_questions() {
        for text in BRIL {
            walk(&function(Lang::Bril, text));
        }
    }

    #[test]
    fn grading() {
        let ids: Vec<InstId> = (0..4).map(optlab_core::entity::EntityRef::new).collect();
        let answer = BTreeSet::from([ids[0], ids[1]]);
        let g = Grade::new(&answer, &BTreeSet::from([ids[1], ids[2]]));
        assert_eq!((g.class(ids[0]), g.class(ids[1]), g.class(ids[2]), g.class(ids[3])), (Some("missed"), Some("right"), Some("wrong"), None));
        assert!(!g.perfect());
        assert!(Grade::new(&answer, &answer).perfect());
    }
}
