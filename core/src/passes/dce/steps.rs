//! The DCE step list: step 0 is the function before the pass, step `k` the state after the
//! trace's first `k` events ([`super::replay_to`] rebuilds that state), each with the one-line
//! description the step bar shows ([`super::words::describe_event`]).

use super::words::describe_event;
use super::DceResult;
use crate::ir::Function;
use crate::steps::Steps;
use std::sync::Arc;

/// The steps of the DCE run `r` on `f`. A run that was skipped has one step, saying why.
pub fn steps(f: &Function, r: &DceResult) -> Steps {
    Steps::new(texts(f, r))
}

/// [`steps`] written when first asked for: the closure keeps the input and the run behind
/// their `Arc`s, so deferring copies nothing. A pipeline runs DCE on every function but a
/// view or the CLI reads the steps of few runs, and on a 10^5-block function writing one
/// sentence per event (each quoting an instruction) was a fifth of the pass.
pub fn lazy_steps(f: Arc<Function>, r: Arc<DceResult>) -> Steps {
    Steps::lazy(move || texts(&f, &r))
}

/// Step 0's sentence, then one per trace event.
fn texts(f: &Function, r: &DceResult) -> Vec<String> {
    if let Some(why) = &r.trace.skipped {
        return vec![format!("DCE did not run on @{}: {why}", f.name)];
    }
    let n = r.stats.insts_before;
    let mut texts = Vec::with_capacity(r.trace.events.len() + 1);
    texts.push(format!(
        "Before DCE: @{} has {n} instruction{}, none marked yet — step to mark the roots",
        f.name,
        if n == 1 { "" } else { "s" }
    ));
    texts.extend(r.trace.events.iter().map(|e| describe_event(f, &r.function, e)));
    texts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::dce::{run, Event};
    use crate::{parse_module, Lang};

    const DEAD1: &str = include_str!("../../../tests/golden/dce/seed_dead1.sil");
    const CONTROL_DEPENDENT: &str = include_str!("../../../tests/golden/dce/seed_control_dependent.sil");
    const CONTROL_DEPENDENT_DEAD: &str = include_str!("../../../tests/golden/dce/control_dependent_dead.sil");
    /// The gallery's Bril programs.
    const BRIL: [&str; 3] = [
        include_str!("../../../../static/examples/loop.bril"),
        include_str!("../../../../static/examples/diamond.bril"),
        include_str!("../../../../static/examples/partial.bril"),
    ];

    /// The first function with a body.
    fn function(lang: Lang, text: &str) -> Function {
        let m = parse_module(lang, "test", text).unwrap_or_else(|e| panic!("{e:?}"));
        let f = m.bodies().next().expect("a function with a body").clone();
        f
    }

    #[test]
    fn dead1_reads_as_the_seed_tells_it() {
        let f = function(Lang::Sil, DEAD1);
        let r = run(&f);
        let s = steps(&f, &r);
        assert_eq!(s.len(), r.trace.events.len() + 1);
        assert!(s.describe(0).starts_with("Before DCE: @dead1 has 7 instructions"), "{}", s.describe(0));
        let all: Vec<&str> = (0..s.len()).map(|k| s.describe(k)).collect();
        assert!(all[1].starts_with("Phase 1 — roots"), "{all:#?}");
        assert_eq!(all[2], "Mark `return %0 : $Int32` (bb0) live: function exit — return leaves the function");
        assert_eq!(all[4], "Mark argument %0 of bb0 live: operand of the live `return %0 : $Int32`");
        assert!(all[5].starts_with("Phase 3 — sweep"));
        // The six dead instructions are deleted one step each, named by their own code.
        let deletes: Vec<&&str> = all.iter().filter(|t| t.starts_with("Delete `")).collect();
        assert_eq!(deletes.len(), 6);
        assert!(deletes[0].starts_with("Delete `%3 = struct_extract %0"), "{}", deletes[0]);
        // A long builtin is cut, so the line stays one line.
        assert!(deletes[3].contains('…') && deletes[3].chars().count() < 90, "{}", deletes[3]);
        // Clamped past the end.
        assert_eq!(s.describe(999), s.describe(s.len() - 1));
    }

    #[test]
    fn control_dependence_and_rewrites_are_named() {
        let f = function(Lang::Sil, CONTROL_DEPENDENT);
        let r = run(&f);
        let s = steps(&f, &r);
        let texts: Vec<&str> = (0..s.len()).map(|k| s.describe(k)).collect();
        let cd = texts.iter().find(|t| t.starts_with("Mark `cond_br %0, bb1, bb2` (bb0) live")).expect("the cond_br is marked");
        assert!(cd.contains("controls bb"), "{cd}");
        assert!(texts.iter().any(|t| t.contains("passes the live argument %6 to bb3")), "{texts:#?}");
        assert!(texts.iter().any(|t| t.contains("passed for the live argument %6 of bb3")), "{texts:#?}");

        let f = function(Lang::Sil, CONTROL_DEPENDENT_DEAD);
        let r = run(&f);
        let s = steps(&f, &r);
        let texts: Vec<&str> = (0..s.len()).map(|k| s.describe(k)).collect();
        assert!(
            texts.contains(&"Rewrite `cond_br %0, bb1, bb2` (bb0) as `br bb3(undef : $Builtin.Int64)`: no live code depends on its direction; bb3 is the nearest live post-dominator"),
            "{texts:#?}"
        );
        assert!(texts.contains(&"Remove bb1: no path from the entry reaches it any more"));
    }

    #[test]
    fn every_event_of_the_bril_examples_gets_its_own_sentence() {
        for text in BRIL {
            let f = function(Lang::Bril, text);
            let r = run(&f);
            let s = steps(&f, &r);
            for (i, e) in r.trace.events.iter().enumerate() {
                let t = s.describe(i + 1);
                let ok = match e {
                    Event::Live { .. } => t.starts_with("Mark `") && t.contains(" live: "),
                    Event::Phase { .. } => t.starts_with("Phase "),
                    Event::Delete { .. } => t.starts_with("Delete `"),
                    _ => !t.is_empty(),
                };
                assert!(ok, "event {e:?} → {t}");
                assert!(!t.contains('\n'));
            }
        }
    }

    #[test]
    fn a_skipped_run_says_why() {
        let mut f = function(Lang::Sil, DEAD1);
        // Break the function: a block that does not exist in the layout.
        f.layout.push(crate::entity::EntityRef::new(99));
        let r = run(&f);
        let s = steps(&f, &r);
        assert_eq!(s.len(), 1);
        assert!(s.describe(0).starts_with("DCE did not run on @dead1: "), "{}", s.describe(0));
    }
}
