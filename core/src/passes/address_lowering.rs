//! AddressLowering and copy elimination behind the pass contract.

use crate::ir::{Function, Lang};
use crate::passes::{Analyses, Count, Detail, Options, Outcome, Pass, PassInfo, PassRun};
use crate::sil::lowering::{self, copyelim, signature_types, storage::Storage, opaque_objects};
use crate::steps::Steps;
use std::sync::Arc;

pub struct AddressLowering;
pub struct CopyElim;

pub static ADDRESS_LOWERING_PASS: AddressLowering = AddressLowering;
pub static COPY_ELIM_PASS: CopyElim = CopyElim;

static LOWERING_INFO: PassInfo = PassInfo {
    slug: "address-lowering",
    title: "AddressLowering",
    name: "AddressLowering of opaque values (Swift's AddressLowering pass, from the SIL opaque-values proposal)",
    summary: "gives every address-only SSA value a memory location — an indirect argument, an @out result, an alloc_stack, or a part of another value's storage — and rewrites each instruction into its address form",
    langs: &[Lang::Sil],
    refusal: "Bril has no address-only types: every value already lives in a variable",
    edits_edges: false,
};

static COPY_ELIM_INFO: PassInfo = PassInfo {
    slug: "copy-elim",
    title: "Copy elimination",
    name: "Copy elimination on opaque values (the SIL opaque-values proposal's redundant copy)",
    summary: "removes `%copy = copy_value %arg` and `destroy_value %arg` when %arg cannot be mutated, is consumed in scope by the destroy, and is not used after %copy is consumed",
    langs: &[Lang::Sil],
    refusal: "Bril has no copy_value: its copies are `id`, which copy propagation handles",
    edits_edges: false,
};

impl Pass for AddressLowering {
    fn info(&self) -> &'static PassInfo {
        &LOWERING_INFO
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        let ft = a.types(f);
        let l = match lowering::lower_in(f, ft, &a.type_env.decls, &a.cfg) {
            Ok(l) => l,
            Err(r) if r.message.starts_with("internal error") => return PassRun::not_run(&LOWERING_INFO, f, Outcome::Failed(r.message)),
            Err(r) => return PassRun::not_run(&LOWERING_INFO, f, Outcome::Refused(r.message)),
        };
        let after = signature_types(&l.function, a.type_env.clone());
        // `verify_lowered`, its stack half already made by `lower`.
        let mut problems = opaque_objects(&l.function, &after);
        problems.extend(l.stack_problems.iter().cloned());
        if let Some(p) = problems.first() {
            return PassRun::not_run(&LOWERING_INFO, f, Outcome::Failed(format!("internal error in AddressLowering: the result is not lowered ({p})")));
        }
        let count = |pred: fn(&Storage) -> bool| l.values.iter().filter(|v| pred(&v.storage)).count();
        let counts = vec![
            Count::of(l.values.len(), "opaque value", "opaque values"),
            Count::of(l.stacks.len(), "alloc_stack", "alloc_stacks"),
            Count::of(count(|s| matches!(s, Storage::Element { .. } | Storage::Into { .. } | Storage::IntoEnum { .. } | Storage::IntoExistential { .. } | Storage::IntoStore { .. })), "projection", "projections"),
            Count::of(count(|s| matches!(s, Storage::Same { .. } | Storage::Cast { .. } | Storage::Address { .. } | Storage::EnumData { .. })), "reused", "reused"),
            Count::of(l.rewrites.iter().filter(|r| changes_line(r)).count(), "line rewritten", "lines rewritten"),
        ];
        // The sentences are written when first asked for (a view, the trace, the CLI): one
        // per changed line, they were 0.09 s of the pass at 10^5 blocks, for a run whose
        // steps a pipeline may never show. The closure shares the result; nothing is copied.
        let l = Arc::new(l);
        let (name, shared) = (f.name.clone(), l.clone());
        let steps = Steps::lazy(move || texts_of(&name, &shared));
        PassRun { pass: &LOWERING_INFO, function: l.function.clone(), outcome: Outcome::Ran, detail: Detail::AddressLowering(l), counts, steps }
    }
}

/// One sentence per step: the assignment, the allocation, then each rewritten line.
pub fn step_texts(f: &Function, l: &lowering::Lowering) -> Vec<String> {
    texts_of(&f.name, l)
}

/// [`step_texts`] of the function named `name`.
fn texts_of(name: &str, l: &lowering::Lowering) -> Vec<String> {
    let names: Vec<&str> = l.values.iter().map(|v| v.name.as_str()).collect();
    let mut out = vec![match names.len() {
        0 => format!("Step 1, storage assignment: @{name} has no opaque (address-only) values"),
        n => format!("Step 1, storage assignment: {n} opaque value{} in reverse postorder: {}", if n == 1 { "" } else { "s" }, names.join(", ")),
    }];
    let roots = l.stacks.len();
    let projections = l.values.iter().filter(|v| v.storage.kind() == "use-projection" || v.storage.kind() == "def-projection").count();
    out.push(format!(
        "Step 2, storage allocation: {roots} alloc_stack{}, {projections} projection{} into other values' storage",
        if roots == 1 { "" } else { "s" },
        if projections == 1 { "" } else { "s" }
    ));
    out.reserve(l.rewrites.len());
    for r in l.rewrites.iter().filter(|r| changes_line(r)) {
        // Written into one string sized at once (a joined copy of the lines and a format of
        // it were three allocations per step, for about 3·10^5 steps at 10^5 blocks).
        let len = r.block.len() + r.before.len() + r.why.len() + r.after.iter().map(|a| a.len() + 2).sum::<usize>() + 32;
        let mut t = String::with_capacity(len);
        t.push_str("Step 3 in ");
        t.push_str(&r.block);
        t.push_str(": `");
        t.push_str(&r.before);
        t.push_str("` → `");
        if r.after.is_empty() {
            t.push_str("nothing");
        }
        for (k, a) in r.after.iter().enumerate() {
            if k > 0 {
                t.push_str("; ");
            }
            t.push_str(a);
        }
        t.push_str("` (");
        t.push_str(&r.why);
        t.push(')');
        out.push(t);
    }
    out
}

/// Whether step 3 changed this line: an unchanged line (the same single line after) has no
/// step of its own.
pub fn changes_line(r: &lowering::Rewrite) -> bool {
    r.after.len() != 1 || r.after[0] != r.before
}

/// The steps of step 3, in order: the index into `l.rewrites` that step `FIRST_REWRITE_STEP + k`
/// shows is `rewrite_steps(l)[k]` (views step through the rewrites with the step texts of
/// [`step_texts`], which skip the unchanged lines the same way).
pub fn rewrite_steps(l: &lowering::Lowering) -> Vec<usize> {
    l.rewrites.iter().enumerate().filter(|(_, r)| changes_line(r)).map(|(k, _)| k).collect()
}

/// The first step of step 3 (steps 0 and 1 are the assignment and the allocation).
pub const FIRST_REWRITE_STEP: usize = 2;

/// The rewrite step `step` shows (`None` for the assignment and allocation steps, and past
/// the last rewrite).
pub fn rewrite_at_step(l: &lowering::Lowering, step: usize) -> Option<usize> {
    rewrite_steps(l).get(step.checked_sub(FIRST_REWRITE_STEP)?).copied()
}

/// The step that shows rewrite `k` (`None` if it left its line unchanged).
pub fn step_of_rewrite(l: &lowering::Lowering, k: usize) -> Option<usize> {
    rewrite_steps(l).iter().position(|&r| r == k).map(|p| p + FIRST_REWRITE_STEP)
}

impl Pass for CopyElim {
    fn info(&self) -> &'static PassInfo {
        &COPY_ELIM_INFO
    }

    fn run(&self, f: &Function, a: &Analyses, _opts: &Options) -> PassRun {
        let r = copyelim::run_in(f, a.types(f), &a.cfg);
        let removed = r.candidates.iter().filter(|c| c.eliminated).count();
        let counts = vec![
            Count::of(r.candidates.len(), "copy_value", "copy_values"),
            Count::of(removed, "removed", "removed"),
            Count::of(r.candidates.len() - removed, "kept", "kept"),
        ];
        let mut steps: Vec<String> = r
            .candidates
            .iter()
            .map(|c| {
                let copy = f.value_in_code(c.value);
                match c.refusal() {
                    None => format!("`{copy}` removed: {}", c.facts.iter().map(|x| x.text.clone()).collect::<Vec<_>>().join("; ")),
                    Some(x) => format!("`{copy}` kept: {}", x.text),
                }
            })
            .collect();
        if steps.is_empty() {
            steps.push(format!("@{} has no copy_value", f.name));
        }
        PassRun { pass: &COPY_ELIM_INFO, function: r.function.clone(), outcome: Outcome::Ran, detail: Detail::CopyElim(Box::new(r)), counts, steps: Steps::new(steps) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::{run, Analyses, Options};

    /// The step texts and the step ↔ rewrite maps agree: step 2 + k is the k-th changed line.
    #[test]
    fn steps_map_to_the_changed_rewrites() {
        let text = "sil @id : $<T> (@in T) -> @out T {\nbb0(%0 : $T):\n  %1 = copy_value %0 : $T\n  destroy_value %0 : $T\n  %2 = tuple ()\n  return %1 : $T\n}\n";
        let m = crate::parse::sil::parse("t.sil", text).unwrap_or_else(|d| panic!("{d:?}"));
        let f = &m.functions[0];
        let r = run(&ADDRESS_LOWERING_PASS, f, &Analyses::new(f), &Options::default());
        let Detail::AddressLowering(l) = &r.detail else { panic!("{}", r.summary()) };
        let steps = rewrite_steps(l);
        assert_eq!(r.steps.len(), FIRST_REWRITE_STEP + steps.len());
        assert!(steps.len() < l.rewrites.len(), "`%2 = tuple ()` is unchanged: {:?}", l.rewrites);
        assert_eq!(rewrite_at_step(l, 0), None);
        assert_eq!(rewrite_at_step(l, 1), None);
        assert_eq!(rewrite_at_step(l, r.steps.len()), None);
        for (k, &i) in steps.iter().enumerate() {
            let s = FIRST_REWRITE_STEP + k;
            assert_eq!(rewrite_at_step(l, s), Some(i));
            assert_eq!(step_of_rewrite(l, i), Some(s));
            assert!(r.steps.describe(s).contains(&l.rewrites[i].before), "{}", r.steps.describe(s));
        }
        let same = l.rewrites.iter().position(|r| !changes_line(r)).expect("an unchanged line");
        assert_eq!(step_of_rewrite(l, same), None);
    }

    /// The run's deferred sentences are [`step_texts`] written at once, on every corpus
    /// function the pass lowers; and lowering with the analyses' CFG is lowering alone.
    #[test]
    fn deferred_steps_are_the_eager_ones() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/swift");
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().map(|e| e.path()).collect();
        files.sort();
        let mut n = 0;
        for p in files.iter().filter(|p| p.extension().is_some_and(|e| e == "sil")) {
            let Ok(m) = crate::parse::sil::parse("t.sil", &std::fs::read_to_string(p).unwrap_or_default()) else { continue };
            let env = crate::sil::types::env_of(&m);
            for f in m.functions.iter().filter(|f| !f.is_declaration()) {
                let a = Analyses::with_types(f, env.clone());
                let r = run(&ADDRESS_LOWERING_PASS, f, &a, &Options::default());
                let Detail::AddressLowering(l) = &r.detail else { continue };
                assert_eq!(r.steps.texts(), step_texts(f, l).as_slice(), "{} @{}", p.display(), f.name);
                // The pass lowers with its analyses' CFG: the same as with one of its own.
                let own = lowering::lower(f, a.types(f), &a.type_env.decls).unwrap_or_else(|e| panic!("{e:?}"));
                assert_eq!((&own.text, &own.rewrites, &own.stack_problems), (&l.text, &l.rewrites, &l.stack_problems), "@{}", f.name);
                n += 1;
            }
        }
        assert!(n >= 30, "only {n} lowered functions");
    }
}
