//! What each of the thirteen predicates means, for the hover text of the table's column
//! headers and of the graph's badges. The equations are those of `docs/lcm-equations.md`
//! (the seed's figures were lost); the sentences are ours, written for a student who has the
//! table in front of them.

use optlab_core::passes::lcm::Pred;

/// One predicate explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredDoc {
    /// Where it holds: at a block's entry insertion point, its exit point, or for the block.
    pub at: &'static str,
    /// The equation in symbols (local predicates: how the block's scan decides it).
    pub equation: &'static str,
    /// The equation read out in plain words.
    pub words: &'static str,
    /// The seed's initial value (初期値, [`Pred::initial`]): where a greatest fixpoint starts,
    /// and what a non-iterated predicate is until its step proves otherwise.
    pub initial: bool,
}

/// The explanation of `p`.
pub fn doc(p: Pred) -> PredDoc {
    let (at, equation, words) = match p {
        Pred::NComp => (
            "entry",
            "NComp(B): B computes e before changing any operand of e",
            "B has an entry computation: the first evaluation of e in B comes before any \
             assignment to e's operands.",
        ),
        Pred::XComp => (
            "exit",
            "XComp(B): B changes an operand of e and computes e after its last change",
            "B has an exit computation: after the last assignment to an operand, B evaluates e \
             again, so e's value is fresh when B ends.",
        ),
        Pred::Transp => (
            "block",
            "Transp(B): no instruction of B changes an operand of e",
            "B is transparent for e: e has the same value at B's exit as at its entry.",
        ),
        Pred::NdSafe => (
            "entry",
            "NdSafe(B) = NComp(B) ∨ (Transp(B) ∧ XdSafe(B))",
            "Down-safe at B's entry: every path from here to the end evaluates e before changing \
             it — because B itself computes e first, or because B leaves e alone and e is \
             down-safe at B's exit. Computing e here adds work to no path.",
        ),
        Pred::XdSafe => (
            "exit",
            "XdSafe(B) = XComp(B) ∨ (succ(B) ≠ ∅ ∧ ∀S ∈ succ(B): NdSafe(S))",
            "Down-safe at B's exit: B ends with an exit computation of e, or B has successors \
             and e is down-safe at the entry of every one of them.",
        ),
        Pred::NuSafe => (
            "entry",
            "NuSafe(B) = B ≠ s ∧ ∀P ∈ pred(B): XuSafe(P)",
            "Up-safe at B's entry: B is not the start, and e is up-safe at the exit of every \
             predecessor — every path to here has already computed e and kept its value, so \
             computing it here again would be redundant.",
        ),
        Pred::XuSafe => (
            "exit",
            "XuSafe(B) = XComp(B) ∨ (Transp(B) ∧ (NComp(B) ∨ NuSafe(B)))",
            "Up-safe at B's exit: B computes e after its last change, or B leaves e alone and \
             either computes it or already had it at its entry.",
        ),
        Pred::NEarliest => (
            "entry",
            "NEarliest(B) = NdSafe(B) ∧ (B = s ∨ ∃P ∈ pred(B): ¬(XuSafe(P) ∨ XdSafe(P)))",
            "The earliest safe place is B's entry: e is down-safe here, and B is the start or \
             some predecessor's exit is neither up-safe nor down-safe, so e could not be placed \
             any earlier on that path.",
        ),
        Pred::XEarliest => (
            "exit",
            "XEarliest(B) = XdSafe(B) ∧ (¬Transp(B) ∨ (¬NdSafe(B) ∧ ¬NuSafe(B)))",
            "The earliest safe place is B's exit: e is down-safe there, and it could not have \
             been placed at B's entry — B changes an operand, or e is neither down-safe nor \
             up-safe at B's entry.",
        ),
        Pred::NDelayed => (
            "entry",
            "NDelayed(B) = NEarliest(B) ∨ (B ≠ s ∧ ∀P ∈ pred(B): XDelayed(P) ∧ ¬XComp(P))",
            "The computation can wait until B's entry: e is earliest here, or every predecessor \
             postponed it to its exit without computing it there.",
        ),
        Pred::XDelayed => (
            "exit",
            "XDelayed(B) = XEarliest(B) ∨ (NDelayed(B) ∧ ¬NComp(B))",
            "The computation can wait until B's exit: e is earliest there, or it was postponed \
             to B's entry and B does not need it on the way through.",
        ),
        Pred::NLatest => (
            "entry",
            "NLatest(B) = NDelayed(B) ∧ (NComp(B) ∨ ¬XDelayed(B))",
            "B's entry is the latest place: e can be postponed to here but no further — B \
             needs it at once, or it cannot wait until B's exit. Step 7 computes e here.",
        ),
        Pred::XLatest => (
            "exit",
            "XLatest(B) = XDelayed(B) ∧ (XComp(B) ∨ ∃S ∈ succ(B): ¬NDelayed(S))",
            "B's exit is the latest place: e can be postponed to here, and B computes it at its \
             exit or some successor could not postpone it further. Step 7 computes e here \
             unless B already does.",
        ),
    };
    PredDoc { at, equation, words, initial: p.initial() }
}

/// The hover text of a predicate: its equation, the equation in words, and where it starts.
pub fn tooltip(p: Pred) -> String {
    let d = doc(p);
    let start = if d.initial { "true" } else { "false" };
    format!("{} ({})\n{}\n{}\nInitial value: {start}.", p.name(), d.at, d.equation, d.words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_predicate_has_its_own_equation_naming_it() {
        let mut seen = std::collections::HashSet::new();
        for p in Pred::ALL {
            let d = doc(p);
            assert!(d.equation.starts_with(p.name()), "{p}: {}", d.equation);
            assert!(seen.insert(d.equation), "{p} shares an equation");
            assert!(d.words.len() > 40, "{p}: say it in words");
            let t = tooltip(p);
            assert!(t.starts_with(p.name()) && t.contains(d.words), "{t}");
            assert!(t.ends_with(&format!("Initial value: {}.", p.initial())), "{t}");
            // The entry predicates are the N… ones, the exit predicates the X… ones.
            let expect = match p.name().as_bytes()[0] {
                b'N' => "entry",
                b'X' => "exit",
                _ => "block",
            };
            assert_eq!(d.at, expect, "{p}");
        }
    }
}
