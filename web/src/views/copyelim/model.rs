//! What the copy elimination view shows of one candidate, as plain data: its precondition and
//! three facts with their names, which one is focused, and the marks they put on the CFG and
//! on the printed code.

use crate::cfg_graph::CfgGraph;
use crate::graph::{Badge, Decor};
use optlab_core::sil::lowering::copyelim::{Candidate, Fact};
use optlab_core::InstId;
use std::collections::BTreeMap;

/// The names of the precondition (index 0) and the three facts (1–3), as the proposal puts
/// them.
pub const FACT_NAMES: [&str; 4] = [
    "one consuming use",
    "cannot be mutated",
    "consumed in scope by a destroy",
    "not used after the copy is consumed",
];

/// The precondition and the facts, in order (index into [`FACT_NAMES`]).
pub fn facts(c: &Candidate) -> Vec<&Fact> {
    std::iter::once(&c.single_consumer).chain(&c.facts).collect()
}

/// The fact the view focuses when the user has not picked one: the one that keeps the copy,
/// or none (all of them) for a removed copy.
pub fn default_focus(c: &Candidate) -> Option<usize> {
    let failing = c.refusal()?;
    facts(c).iter().position(|f| std::ptr::eq(*f, failing))
}

/// The verdict in words: removed, or kept with the failing fact named.
pub fn verdict(c: &Candidate) -> String {
    match default_focus(c) {
        None if c.eliminated => "removed: all three facts hold, so the consumer takes the original and its destroy_value goes".into(),
        None => "kept".into(),
        Some(0) => format!("kept: the precondition fails ({})", FACT_NAMES[0]),
        Some(k) => format!("kept: fact {k} fails ({})", FACT_NAMES[k]),
    }
}

/// The facts drawn: the focused one, or all of them.
fn shown(c: &Candidate, focus: Option<usize>) -> Vec<&Fact> {
    let all = facts(c);
    match focus.and_then(|k| all.get(k).copied()) {
        Some(f) => vec![f],
        None => all,
    }
}

/// Classes of the candidate's instructions in the code: the copy, its consumer and the
/// destroy always; the shown facts' instructions as holding (`ce-holds`) or failing
/// (`ce-fails`).
pub fn inst_marks(c: &Candidate, focus: Option<usize>) -> BTreeMap<InstId, String> {
    let mut m: BTreeMap<InstId, String> = BTreeMap::new();
    let mut add = |i: InstId, class: &str| {
        let e = m.entry(i).or_default();
        if !e.split_whitespace().any(|x| x == class) {
            if !e.is_empty() {
                e.push(' ');
            }
            e.push_str(class);
        }
    };
    add(c.copy, "ce-copy");
    if let Some(u) = c.consumer {
        add(u, "ce-consumer");
    }
    if let Some(d) = c.destroy {
        add(d, "ce-destroy");
    }
    for f in shown(c, focus) {
        for &i in &f.insts {
            add(i, if f.holds { "ce-holds" } else { "ce-fails" });
        }
    }
    m
}

/// The CFG's decorations: the shown facts' blocks outlined (failing wins over holding), their
/// instructions' lines and the copy's coloured, and a badge with the verdict on the copy's block.
pub fn decor(cg: &CfgGraph, c: &Candidate, focus: Option<usize>, copy_name: &str) -> Decor {
    let mut d = Decor::new();
    let shown = shown(c, focus);
    for f in &shown {
        for b in &f.blocks {
            if let Some(&n) = cg.node_of.get(b) {
                d.node_class(n, if f.holds { "ce-holds" } else { "ce-fails" });
            }
        }
    }
    for node in d.nodes.values_mut() {
        // A block where one fact holds and another fails is drawn failing.
        if node.class.split_whitespace().any(|x| x == "ce-fails") {
            node.class = node.class.split_whitespace().filter(|x| *x != "ce-holds").collect::<Vec<_>>().join(" ");
        }
    }
    for (i, class) in inst_marks(c, focus) {
        if let Some((n, l)) = cg.line_of(i) {
            for x in class.split_whitespace() {
                d.line_class(n, l, x);
            }
        }
    }
    if let Some((n, _)) = cg.line_of(c.copy) {
        let (text, class) = if c.eliminated { ("removed", "ce-removed-badge") } else { ("kept", "ce-kept-badge") };
        d.entry_badge(n, Badge::new(format!("{copy_name}: {text}"), class).with_title(verdict(c)));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::copyelim::result;
    use crate::views::lowering::fixture::state;

    #[test]
    fn the_redundant_copy_is_removed_with_three_facts() {
        let s = state("redundant-copy", "redundant_copy");
        let a = s.analysis.as_ref().unwrap();
        let r = result(a).expect("copy elimination ran");
        assert_eq!(r.candidates.len(), 1);
        let c = &r.candidates[0];
        assert!(c.eliminated);
        assert_eq!(facts(c).len(), 4);
        assert!(facts(c).iter().all(|f| f.holds));
        assert_eq!(default_focus(c), None);
        assert!(verdict(c).starts_with("removed"));
        let m = inst_marks(c, None);
        assert!(m[&c.copy].contains("ce-copy"));
        assert!(m[&c.destroy.unwrap()].contains("ce-destroy") && m[&c.destroy.unwrap()].contains("ce-holds"));
        let d = decor(&a.cfg_graph, c, None, "%copy");
        assert!(d.nodes[&0].class.contains("ce-holds"));
        assert_eq!(d.nodes[&0].entry[0].text, "%copy: removed");
    }

    #[test]
    fn the_needed_copy_is_kept_by_fact_three() {
        let s = state("redundant-copy", "needed_copy");
        let a = s.analysis.as_ref().unwrap();
        let c = &result(a).unwrap().candidates[0];
        assert!(!c.eliminated);
        assert_eq!(default_focus(c), Some(3));
        assert_eq!(verdict(c), "kept: fact 3 fails (not used after the copy is consumed)");
        let m = inst_marks(c, Some(3));
        let late = c.facts[2].insts[0];
        assert!(m[&late].contains("ce-fails"), "the late use is marked: {m:?}");
        let d = decor(&a.cfg_graph, c, Some(3), "%copy");
        assert!(d.nodes[&0].class.contains("ce-fails") && !d.nodes[&0].class.contains("ce-holds"));
        // Focusing a fact that holds draws only it.
        let d1 = decor(&a.cfg_graph, c, Some(1), "%copy");
        assert!(d1.nodes[&0].class.contains("ce-holds"));
    }
}
