//! Exercise mode: a round's changes and an event's result are hidden until the student clicks
//! "Show". What was shown belongs to one step of one analysis; any other step starts hidden.

use super::step::At;

/// Which step (of which analysis: its address) the student has revealed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reveal {
    key: Option<(usize, usize)>,
}

impl Reveal {
    pub fn show(key: (usize, usize)) -> Reveal {
        Reveal { key: Some(key) }
    }

    pub fn shown(&self, key: (usize, usize)) -> bool {
        self.key == Some(key)
    }
}

/// The question of a step, if it has something to hide (the start has not).
pub fn question(at: At) -> Option<String> {
    match at {
        At::Start => None,
        At::Round(r) => Some(format!(
            "Round {r} recomputes every block's sets from its predecessors' OUT. Which IN and OUT sets change?"
        )),
        At::Event(_) => Some("What does this step do to the highlighted instruction, and why?".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reveal_belongs_to_one_step_of_one_analysis() {
        let r = Reveal::show((7, 3));
        assert!(r.shown((7, 3)));
        assert!(!r.shown((7, 4)) && !r.shown((8, 3)));
        assert!(!Reveal::default().shown((7, 3)));
    }

    #[test]
    fn only_rounds_and_events_ask() {
        assert_eq!(question(At::Start), None);
        assert!(question(At::Round(2)).unwrap().starts_with("Round 2 "));
        assert!(question(At::Event(0)).unwrap().contains("highlighted instruction"));
    }
}
