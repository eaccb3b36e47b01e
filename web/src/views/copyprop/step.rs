//! What step `k` of the step bar shows. Core numbers the steps (its step texts and
//! [`Trace::events_at_step`]): step 0 is the start, steps `1..=rounds` the rounds of the
//! available-copies fixpoint, each later step one event (a rewrite or a deletion).

use optlab_core::passes::copyprop::{Event, Trace};
use optlab_core::InstId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// Before the first round: ⊤ everywhere but the entry.
    Start,
    /// Round `r` (from 1) of the fixpoint.
    Round(usize),
    /// Event `i` (from 0) of the trace: the rounds are over.
    Event(usize),
}

impl At {
    pub fn of(trace: &Trace, k: usize) -> At {
        let rounds = trace.rounds.len();
        if k == 0 {
            At::Start
        } else if k <= rounds {
            At::Round(k)
        } else {
            // Steps past the last event (a stale cursor) show the last one.
            let n = trace.events_at_step(k).min(trace.events.len());
            match n.checked_sub(1) {
                Some(i) => At::Event(i),
                None => At::Round(rounds),
            }
        }
    }

    /// The rounds whose changes the table of this step includes.
    pub fn rounds_done(self, trace: &Trace) -> usize {
        match self {
            At::Start => 0,
            At::Round(r) => r,
            At::Event(_) => trace.rounds.len(),
        }
    }

    /// The event this step applies, if it is an event's step.
    pub fn event(self) -> Option<usize> {
        match self {
            At::Event(i) => Some(i),
            _ => None,
        }
    }
}

/// The step that applies event `i`.
pub fn step_of_event(trace: &Trace, i: usize) -> usize {
    trace.rounds.len() + 1 + i
}

/// The instruction an event is about.
pub fn event_inst(e: &Event) -> InstId {
    e.inst()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::copyprop::fixture::{fixture, TEACH};

    #[test]
    fn steps_are_the_start_the_rounds_then_the_events() {
        let fx = fixture(TEACH);
        let t = &fx.out().trace;
        let n = t.rounds.len();
        assert!(n >= 2, "the loop needs a second round");
        assert_eq!(fx.run.steps.len(), 1 + n + t.events.len(), "core's step texts, one per step");
        assert_eq!(At::of(t, 0), At::Start);
        assert_eq!(At::of(t, 1), At::Round(1));
        assert_eq!(At::of(t, n), At::Round(n));
        assert_eq!(At::of(t, n + 1), At::Event(0));
        assert_eq!(At::of(t, n + t.events.len()), At::Event(t.events.len() - 1));
        assert_eq!(At::of(t, 10_000), At::Event(t.events.len() - 1), "clamped");
        assert_eq!(At::of(t, n + 1).rounds_done(t), n);
        assert_eq!(At::Start.rounds_done(t), 0);
        assert_eq!(step_of_event(t, 0), n + 1);
        for (i, e) in t.events.iter().enumerate() {
            assert_eq!(At::of(t, step_of_event(t, i)).event(), Some(i));
            assert!(fx.run.steps.describe(step_of_event(t, i)).contains(match e {
                Event::Rewrite { .. } => "Rewrite",
                Event::Delete { .. } => "Delete",
                Event::Rematerialize { .. } => "Recompute",
            }));
        }
    }

    #[test]
    fn a_function_without_events_stays_on_its_rounds() {
        let fx = fixture("@main {\n  x: int = const 1;\n  print x;\n}\n");
        let t = &fx.out().trace;
        assert!(t.events.is_empty());
        let n = t.rounds.len();
        assert_eq!(At::of(t, n + 3), At::Round(n));
        assert_eq!(At::of(t, n + 3).event(), None);
    }
}
