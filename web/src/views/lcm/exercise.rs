//! Exercise mode: the cells a step computes are hidden, the student clicks those they predict
//! true, and "Reveal" grades every hidden cell. Guesses belong to one step of one expression;
//! moving to another step or expression starts afresh.

use optlab_core::passes::lcm::{ExprId, Pred, Snapshot};
use std::collections::BTreeSet;

/// The step index and expression a set of guesses belongs to.
pub type Key = (usize, ExprId);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guesses {
    key: Option<Key>,
    /// (row, predicate) of the cells predicted true.
    cells: BTreeSet<(usize, Pred)>,
    revealed: bool,
}

impl Guesses {
    /// These guesses if they are for `key`, else none.
    fn at(&self, key: Key) -> Guesses {
        if self.key == Some(key) {
            self.clone()
        } else {
            Guesses { key: Some(key), ..Guesses::default() }
        }
    }

    /// Predicts (or stops predicting) that the cell is true. No change after the reveal.
    pub fn toggle(&self, key: Key, row: usize, p: Pred) -> Guesses {
        let mut g = self.at(key);
        if !g.revealed && !g.cells.remove(&(row, p)) {
            g.cells.insert((row, p));
        }
        g
    }

    pub fn reveal(&self, key: Key) -> Guesses {
        Guesses { revealed: true, ..self.at(key) }
    }

    pub fn guessed(&self, key: Key, row: usize, p: Pred) -> bool {
        self.key == Some(key) && self.cells.contains(&(row, p))
    }

    pub fn revealed(&self, key: Key) -> bool {
        self.key == Some(key) && self.revealed
    }
}

/// How a hidden cell went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Predicted true, and it is.
    Right,
    /// Predicted true, but it is false.
    Wrong,
    /// Not predicted, but it is true.
    Missed,
    /// Not predicted, and it is false (also right; nothing to point out).
    Quiet,
}

impl Verdict {
    pub fn of(guessed: bool, actual: bool) -> Verdict {
        match (guessed, actual) {
            (true, true) => Verdict::Right,
            (true, false) => Verdict::Wrong,
            (false, true) => Verdict::Missed,
            (false, false) => Verdict::Quiet,
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Verdict::Right => "guess-right",
            Verdict::Wrong => "guess-wrong",
            Verdict::Missed => "missed",
            Verdict::Quiet => "",
        }
    }
}

/// The tally after the reveal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub right: usize,
    pub wrong: usize,
    pub missed: usize,
    /// Hidden cells in all.
    pub cells: usize,
}

impl Score {
    /// Cells judged correctly (true ones found, false ones left alone).
    pub fn correct(&self) -> usize {
        self.cells - self.wrong - self.missed
    }
}

pub fn score(snap: &Snapshot, guesses: &Guesses, key: Key) -> Score {
    let mut s = Score::default();
    for row in 0..snap.rows.len() {
        for &p in snap.current {
            let Some(actual) = snap.cell(row, p).value else { continue };
            s.cells += 1;
            match Verdict::of(guesses.guessed(key, row, p), actual) {
                Verdict::Right => s.right += 1,
                Verdict::Wrong => s.wrong += 1,
                Verdict::Missed => s.missed += 1,
                Verdict::Quiet => {}
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use optlab_core::passes::lcm::Cell;

    fn snap(values: &[[bool; 2]]) -> Snapshot {
        let rows = values
            .iter()
            .map(|v| {
                let mut r = [Cell::default(); 13];
                r[Pred::NdSafe as usize] = Cell { value: Some(v[0]), changed: false };
                r[Pred::XdSafe as usize] = Cell { value: Some(v[1]), changed: false };
                // Computed earlier: never hidden, never graded.
                r[Pred::NComp as usize] = Cell { value: Some(true), changed: false };
                r
            })
            .collect();
        Snapshot { rows, current: &[Pred::NdSafe, Pred::XdSafe] }
    }

    #[test]
    fn guesses_are_graded_right_wrong_and_missed() {
        let s = snap(&[[true, false], [false, true], [true, true]]);
        let key = (4, ExprId(0));
        let g = Guesses::default()
            .toggle(key, 0, Pred::NdSafe) // right
            .toggle(key, 1, Pred::NdSafe) // wrong
            .toggle(key, 2, Pred::XdSafe)
            .toggle(key, 2, Pred::XdSafe); // taken back: missed
        assert!(g.guessed(key, 0, Pred::NdSafe) && !g.guessed(key, 2, Pred::XdSafe));
        assert!(!g.revealed(key));
        let g = g.reveal(key);
        assert!(g.revealed(key));
        assert_eq!(g.toggle(key, 0, Pred::XdSafe), g, "frozen after the reveal");
        let sc = score(&s, &g, key);
        assert_eq!((sc.right, sc.wrong, sc.missed, sc.cells), (1, 1, 3, 6));
        assert_eq!(sc.correct(), 2, "one true found, one false left alone");
        assert_eq!(Verdict::of(false, false).class(), "");
        assert_eq!(Verdict::of(true, false).class(), "guess-wrong");
    }

    #[test]
    fn guesses_belong_to_one_step_and_expression() {
        let key = (4, ExprId(0));
        let g = Guesses::default().toggle(key, 0, Pred::NdSafe).reveal(key);
        for other in [(5, ExprId(0)), (4, ExprId(1))] {
            assert!(!g.guessed(other, 0, Pred::NdSafe) && !g.revealed(other));
            let fresh = g.toggle(other, 1, Pred::XdSafe);
            assert!(fresh.guessed(other, 1, Pred::XdSafe) && !fresh.guessed(other, 0, Pred::NdSafe));
            assert!(!fresh.revealed(other) && !fresh.guessed(key, 0, Pred::NdSafe));
        }
    }
}
