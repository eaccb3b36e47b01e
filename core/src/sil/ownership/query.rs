//! Questions a view asks of a computed [`FunctionOwnership`] and [`Verdict`]: which value to
//! show first, which value a verifier step is about, and where the "break it" teaching edits
//! apply (seed 003: "an owned value has a single consumer; a borrow has static scope" — the
//! two edits break exactly those two rules). Nothing here re-derives ownership: every answer
//! reads the analysis.

use super::analysis::FunctionOwnership;
use super::rules::Kind;
use super::verify::Verdict;
use crate::ir::{Function, InstId, ValueId};

/// The value a view shows when none is selected: the first with ownership (owned or
/// guaranteed) that the analysis models.
pub fn first_interesting(fo: &FunctionOwnership) -> Option<ValueId> {
    fo.values.iter().find(|v| matches!(v.kind, Kind::Owned | Kind::Guaranteed) && !v.assumed).map(|v| v.value)
}

/// The value named `name` (`%3`, as the code writes it).
pub fn value_named(fo: &FunctionOwnership, name: &str) -> Option<ValueId> {
    fo.values.iter().find(|v| v.name == name).map(|v| v.value)
}

/// The value a step of [`Verdict::steps`] is about: every step the verifier writes starts with
/// the value's name (`%1 (owned, …)`, `%1: Found over consume?! …`).
pub fn step_value(fo: &FunctionOwnership, verdict: &Verdict, k: usize) -> Option<ValueId> {
    let text = verdict.steps.get(k)?;
    let end = text.find([' ', ':']).unwrap_or(text.len());
    value_named(fo, &text[..end])
}

/// The findings of the verifier a step reports (a step per finding, after its value's walk).
pub fn step_findings(fo: &FunctionOwnership, verdict: &Verdict, k: usize) -> Vec<usize> {
    let Some(v) = step_value(fo, verdict, k) else { return Vec::new() };
    verdict.findings.iter().enumerate().filter(|(_, f)| f.value == v).map(|(i, _)| i).collect()
}

/// "Delete a `destroy_value`": the first `destroy_value` of `v` in layout order, if `v` is an
/// owned value that has one (deleting it leaks `v` on that path).
pub fn destroy_to_delete(f: &Function, fo: &FunctionOwnership, v: ValueId) -> Option<InstId> {
    if fo.kind(v) != Kind::Owned {
        return None;
    }
    let l = fo.lifetime(v)?;
    f.layout
        .iter()
        .flat_map(|&b| f.blocks[b].all_insts())
        .find(|i| l.consuming.contains(i) && f.insts[*i].op.name() == "destroy_value")
}

/// "Move `end_borrow` up": for the borrow scope introduced by `v`, an `end_borrow` and the
/// first use of the scope in the same block before it. Moving the `end_borrow` above that use
/// puts the use outside the scope.
pub fn end_borrow_to_move(f: &Function, fo: &FunctionOwnership, v: ValueId) -> Option<(InstId, InstId)> {
    let scope = fo.scope(v)?;
    for &end in &scope.ends {
        let Some(block) = f.layout.iter().copied().find(|&b| f.blocks[b].all_insts().any(|i| i == end)) else {
            continue;
        };
        let before_end: Vec<InstId> = f.blocks[block].all_insts().take_while(|&i| i != end).collect();
        if let Some(&u) = before_end.iter().find(|i| scope.uses.contains(i) && !scope.ends.contains(i)) {
            return Some((end, u));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sil::ownership::{analyze, verify};
    use crate::ir::Lang;
    use crate::sil::types::{env_of, FunctionTypes};

    const SRC: &str = "sil_stage canonical\nimport Builtin\nclass Klass {}\nsil @use : $@convention(thin) (@guaranteed Klass) -> ()\n\
sil [ossa] @f : $@convention(thin) (@owned Klass) -> () {\nbb0(%0 : @owned $Klass):\n  %1 = begin_borrow %0 : $Klass\n  %2 = function_ref @use : $@convention(thin) (@guaranteed Klass) -> ()\n  %3 = apply %2(%1) : $@convention(thin) (@guaranteed Klass) -> ()\n  end_borrow %1 : $Klass\n  destroy_value %0 : $Klass\n  %5 = tuple ()\n  return %5 : $()\n}\n";

    #[test]
    fn the_break_it_edits_find_the_destroy_and_the_use_before_the_end_borrow() {
        let m = crate::parse_module(Lang::Sil, "t.sil", SRC).expect("parses");
        let f = m.bodies().next().expect("a body");
        let ft = FunctionTypes::new(f, env_of(&m));
        let fo = analyze(f, &ft);
        let verdict = verify(f, &fo);
        assert!(verdict.findings.is_empty(), "{:?}", verdict.findings);
        let v0 = value_named(&fo, "%0").unwrap();
        let v1 = value_named(&fo, "%1").unwrap();
        assert_eq!(first_interesting(&fo), Some(v0));
        let d = destroy_to_delete(f, &fo, v0).expect("a destroy");
        assert_eq!(f.insts[d].op.name(), "destroy_value");
        assert_eq!(destroy_to_delete(f, &fo, v1), None, "a borrow has no destroy");
        let (end, u) = end_borrow_to_move(f, &fo, v1).expect("an end_borrow after a use");
        assert_eq!(f.insts[end].op.name(), "end_borrow");
        assert_eq!(f.insts[u].op.name(), "apply");
        assert_eq!(end_borrow_to_move(f, &fo, v0), None);
        assert_eq!(step_value(&fo, &verdict, 0), Some(v0), "{:?}", verdict.steps);
    }
}
