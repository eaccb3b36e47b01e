//! What the SSA views show at a step, as plain data from core's replays (`ssa::replay_to_as`,
//! `ssa::state_at`, `out_of_ssa::replay_to`, `out_of_ssa::classes_at`): the program to draw,
//! the CFG's marks, and the side panel's tables. No analysis is re-derived here.

use crate::graph::{Badge, Decor};
use optlab_core::passes::out_of_ssa::{self, Conflict, OutOfSsaOutput};
use optlab_core::passes::ssa::{self, Event, Form, SsaOutput};
use optlab_core::{BlockId, Function, InstId};

/// Where the construction is at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Start,
    Placement,
    Renaming,
    Writing,
}

impl Phase {
    pub fn title(self) -> &'static str {
        match self {
            Phase::Start => "Before",
            Phase::Placement => "1. φ placement (iterated dominance frontier, pruned by liveness)",
            Phase::Renaming => "2. Renaming along the dominator tree",
            Phase::Writing => "3. Writing the φs",
        }
    }
}

/// The SSA construction view at step `k`.
#[derive(Clone, Debug, PartialEq)]
pub struct IntoModel {
    pub phase: Phase,
    /// The program after `k` events, φs written in the chosen form.
    pub function: Function,
    /// Per block, the classes it gets on the CFG.
    pub marks: Vec<(BlockId, &'static str)>,
    /// Per block, the φs placed so far (badges above the box).
    pub phis: Vec<(BlockId, String)>,
    /// The instruction the step is about.
    pub current: Option<InstId>,
    /// Placement: the variable, its worklist, the blocks taken, with φ, dead.
    pub placing: Option<String>,
    pub worklist: Vec<String>,
    pub taken: Vec<String>,
    pub phi_blocks: Vec<String>,
    pub dead_blocks: Vec<String>,
    /// Renaming: the walk's path (entry first) and every stack (bottom first).
    pub path: Vec<String>,
    pub stacks: Vec<(String, Vec<String>)>,
}

pub fn into_model(out: &SsaOutput, k: usize, form: Form) -> IntoModel {
    let t = &out.trace;
    let k = k.min(t.events.len());
    let start = &*out.start;
    let function = ssa::replay_to_as(start, t, k, form).unwrap_or_else(|_| start.clone());
    let state = ssa::state_at(t, k);
    let last = k.checked_sub(1).and_then(|i| t.events.get(i));
    let phase = match last {
        None => Phase::Start,
        Some(Event::Worklist { .. } | Event::Take { .. } | Event::Frontier { .. }) => Phase::Placement,
        Some(Event::Undef { .. } | Event::Emit { .. }) => Phase::Writing,
        Some(_) => Phase::Renaming,
    };
    let name = |b: BlockId| start.block_in_code(b);
    let var = |v| function.value_in_code(v);
    let mut marks: Vec<(BlockId, &'static str)> = Vec::new();
    match phase {
        Phase::Placement => {
            if let Some(Event::Worklist { defs, .. }) =
                t.events[..k].iter().rev().find(|e| matches!(e, Event::Worklist { .. }))
            {
                marks.extend(defs.iter().map(|&b| (b, "ssa-def")));
            }
            marks.extend(state.placement.worklist.iter().map(|&b| (b, "ssa-work")));
            marks.extend(state.placement.dead.iter().map(|&b| (b, "ssa-dead")));
            marks.extend(state.placement.kept.iter().map(|&b| (b, "ssa-phi")));
            match last {
                Some(Event::Take { block, .. }) => marks.push((*block, "current")),
                Some(Event::Frontier { to, .. }) => marks.push((*to, "current")),
                _ => {}
            }
        }
        Phase::Renaming => {
            marks.extend(state.path.iter().map(|&b| (b, "ssa-path")));
            if let Some(&b) = state.path.last() {
                marks.push((b, "current"));
            }
        }
        Phase::Start | Phase::Writing => {}
    }
    // The φs placed so far: every φ of a variable already placed, and the current one's.
    let placed_vars: Vec<_> = t.events[..k]
        .iter()
        .filter_map(|e| match e {
            Event::Frontier { var, to, outcome: ssa::Frontier::Phi, .. } => Some((*var, *to)),
            _ => None,
        })
        .collect();
    let mut phis: Vec<(BlockId, String)> = placed_vars.iter().map(|&(v, b)| (b, format!("φ {}", start.value_in_code(v)))).collect();
    phis.dedup();
    let current = match last {
        Some(Event::Use { inst, .. } | Event::Def { inst, .. }) => Some(*inst),
        _ => None,
    };
    IntoModel {
        phase,
        marks,
        phis,
        current,
        placing: state.placing.map(|v| start.value_in_code(v)),
        worklist: state.placement.worklist.iter().map(|&b| name(b)).collect(),
        taken: state.placement.taken.iter().map(|&b| name(b)).collect(),
        phi_blocks: state.placement.kept.iter().map(|&b| name(b)).collect(),
        dead_blocks: state.placement.dead.iter().map(|&b| name(b)).collect(),
        path: state.path.iter().map(|&b| name(b)).collect(),
        stacks: state.stacks.iter().map(|(v, st)| (var(*v), st.iter().map(|&x| var(x)).collect())).collect(),
        function,
    }
}

/// One copy the translation out of SSA made, and what became of it by the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyRow {
    pub copy: String,
    /// `coalesced`, `kept: …` or `not tried yet`.
    pub status: String,
    pub kept: bool,
    pub current: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutModel {
    pub function: Function,
    pub current: Option<InstId>,
    pub copies: Vec<CopyRow>,
    /// Merged classes (the variables of each), by the step.
    pub classes: Vec<Vec<String>>,
}

pub fn out_model(input: &Function, out: &OutOfSsaOutput, k: usize) -> OutModel {
    let t = &out.trace;
    let k = k.min(t.events.len());
    let function = out_of_ssa::replay_to(input, t, k).unwrap_or_else(|_| input.clone());
    let base = out_of_ssa::base(input, t);
    let v = |x| base.value_in_code(x);
    let last = k.checked_sub(1).and_then(|i| t.events.get(i));
    let current = match last {
        Some(
            out_of_ssa::Event::SetToCopy { inst, .. }
            | out_of_ssa::Event::GetToCopy { inst, .. }
            | out_of_ssa::Event::PhiToCopy { inst, .. }
            | out_of_ssa::Event::PhiArgToCopy { copy: inst, .. }
            | out_of_ssa::Event::Coalesce { copy: inst, .. },
        ) => Some(*inst),
        _ => None,
    };
    let mut copies = Vec::new();
    for (i, e) in t.events.iter().enumerate() {
        let out_of_ssa::Event::Coalesce { dest, src, conflict, merged, .. } = e else { continue };
        let status = if i >= k {
            "not tried yet".to_string()
        } else {
            match (conflict, merged) {
                (None, true) => "coalesced".into(),
                (None, false) => "coalesced (already one variable)".into(),
                (Some(Conflict::Interfere { defined, live, at }), _) => {
                    let place = at.and_then(|i| base.block_of(i)).map(|b| format!(" in {}", base.block_in_code(b))).unwrap_or_else(|| " on entry".into());
                    format!("kept: {} is assigned{place} while {} is live", v(*defined), v(*live))
                }
                (Some(Conflict::TwoParams { a, b }), _) => format!("kept: parameters {} and {} keep their names", v(*a), v(*b)),
            }
        };
        copies.push(CopyRow {
            copy: format!("{} = id {}", v(*dest), v(*src)),
            kept: i < k && conflict.is_some(),
            current: i + 1 == k,
            status,
        });
    }
    let classes = out_of_ssa::classes_at(t, k).into_iter().map(|c| c.into_iter().map(v).collect()).collect();
    OutModel { function, current, copies, classes }
}

/// The CFG decorations of a step: block classes, φ badges, the current instruction's line.
pub fn decor(cg: &crate::cfg_graph::CfgGraph, marks: &[(BlockId, &'static str)], phis: &[(BlockId, String)], current: Option<InstId>) -> Decor {
    let mut d = Decor::new();
    for &(b, class) in marks {
        if let Some(&n) = cg.node_of.get(&b) {
            d.node_class(n, class);
        }
    }
    for (b, text) in phis {
        if let Some(&n) = cg.node_of.get(b) {
            d.entry_badge(n, Badge::new(text.clone(), "ssa-phi"));
        }
    }
    if let Some((n, line)) = current.and_then(|i| cg.line_of(i)) {
        d.line_class(n, line, "current");
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use optlab_core::parse_module;
    use optlab_core::Lang;

    const LOOP: &str = "@main {\n.entry:\n  i: int = const 1;\n  jmp .loop;\n.loop:\n  max: int = const 10;\n  cond: bool = lt i max;\n  br cond .body .exit;\n.body:\n  i: int = add i i;\n  jmp .loop;\n.exit:\n  print i;\n}\n";

    fn run() -> (Function, SsaOutput) {
        let m = parse_module(Lang::Bril, "loop.bril", LOOP).unwrap();
        let f = m.functions[0].clone();
        let out = ssa::into_ssa(&f, Form::SetGet).unwrap();
        (f, out)
    }

    /// The phases come in order, placement marks the loop header with a φ, renaming
    /// shows a stack for `i`, and the last step is the pass's output in both forms.
    #[test]
    fn the_construction_steps_through_placement_renaming_and_writing() {
        let (_, out) = run();
        let n = out.trace.events.len();
        let phases: Vec<Phase> = (0..=n).map(|k| into_model(&out, k, Form::SetGet).phase).collect();
        assert_eq!(phases[0], Phase::Start);
        let first = |p| phases.iter().position(|&x| x == p).unwrap();
        assert!(first(Phase::Placement) < first(Phase::Renaming) && first(Phase::Renaming) < first(Phase::Writing));
        let placed = (0..=n).map(|k| into_model(&out, k, Form::SetGet)).find(|m| !m.phi_blocks.is_empty()).unwrap();
        assert_eq!(placed.phi_blocks, vec![".loop"]);
        assert!(placed.phis.iter().any(|(_, t)| t == "φ i"));
        let renaming = (0..=n).map(|k| into_model(&out, k, Form::SetGet)).find(|m| m.stacks.iter().any(|(v, s)| v == "i" && s.len() == 2)).unwrap();
        assert_eq!(renaming.phase, Phase::Renaming);
        let end = into_model(&out, n, Form::SetGet);
        assert_eq!(end.function.without_spans(), out.function.without_spans());
        let phi = into_model(&out, n, Form::Phi);
        assert!(phi.function.placed_insts().any(|(_, i)| phi.function.insts[i].op.name() == "phi"));
    }

    #[test]
    fn out_of_ssa_lists_each_copy_and_ends_at_the_output() {
        let (_, ssa_out) = run();
        let f = (*ssa_out.function).clone();
        let out = out_of_ssa::out_of_ssa(&f).unwrap();
        let n = out.trace.events.len();
        let start = out_model(&f, &out, 0);
        assert!(start.copies.iter().all(|c| c.status == "not tried yet"));
        let end = out_model(&f, &out, n);
        assert_eq!(end.function.without_spans(), out.function.without_spans());
        assert!(end.copies.iter().all(|c| c.status.starts_with("coalesced")), "{:?}", end.copies);
        assert_eq!(end.classes.len(), 1);
    }
}
