//! The copy propagation view: global copy propagation on available copies (Aho, Lam, Sethi,
//! Ullman §9.1; Muchnick §12.5), stepped with the shared step bar. Everything shown comes
//! from core's run of the pass (`optlab_core::passes::copyprop`: its trace, replay and step
//! texts); this module only lays it out.
//!
//! One job per file:
//! - [`step`]: what a step of the step bar shows (the start, a round, an event);
//! - [`table`]: the available-copies table of a step (IN/OUT per block, changed cells);
//! - [`code`]: the program at a step, as printed lines with their marks;
//! - [`why`]: why an instruction was rewritten or deleted, in words;
//! - [`exercise`]: the "Show" of exercise mode;
//! - `view`: the component, which only renders these and dispatches.

pub mod code;
pub mod exercise;
pub mod step;
pub mod table;
mod view;
pub mod why;

pub use view::CopyPropView;

/// Runs copy propagation on `@main` of a Bril text, the way the app does (through the pass
/// contract), for the tests of every file here.
#[cfg(test)]
pub(crate) mod fixture {
    use optlab_core::passes::copyprop::CopyPropOutput;
    use optlab_core::passes::{self, Analyses, Detail, Options, PassRun};
    use optlab_core::{parse_module, Function, Lang};

    pub struct Fixture {
        pub original: Function,
        pub run: PassRun,
    }

    impl Fixture {
        pub fn out(&self) -> &CopyPropOutput {
            match &self.run.detail {
                Detail::CopyProp(o) => o,
                other => panic!("not a copy propagation run: {other:?}"),
            }
        }
    }

    pub fn fixture(text: &str) -> Fixture {
        let m = parse_module(Lang::Bril, "t.bril", text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
        let f = m.bodies().next().expect("a function").clone();
        let pass = passes::by_slug("copyprop").expect("copy propagation is registered");
        let run = passes::run(pass, &f, &Analyses::new(&f), &Options::default());
        assert_eq!(run.problem(), None, "{}", run.summary());
        Fixture { original: f, run }
    }

    /// A chain (`c = id b` after `b = id a`), the same copy on both arms of a join, and a
    /// loop whose body assigns the source of a copy made before it.
    pub const TEACH: &str = "@main(p: bool) {
  a: int = const 5;
  b: int = id a;
  c: int = id b;
  print c;
  br p .l .r;
.l:
  x: int = id a;
  jmp .j;
.r:
  x: int = id a;
  jmp .j;
.j:
  print x;
  i: int = const 0;
  n: int = const 3;
  last: int = id i;
.head:
  print last;
  one: int = const 1;
  i: int = add i one;
  go: bool = lt i n;
  br go .head .done;
.done:
  print last;
}
";

    /// The step of the first event.
    pub fn first_event_step(fx: &Fixture) -> usize {
        fx.out().trace.rounds.len() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::fixture;
    use super::table::{rows, Set};
    use optlab_core::print::{print_function, Naming};

    /// The gallery's example teaches what it says: the chain and the join are propagated,
    /// the copy the loop kills stays, the one it does not kill is propagated into the loop.
    #[test]
    fn the_gallery_example_shows_chains_joins_and_a_loop() {
        let ex = crate::examples::by_id("copies").expect("the example is in the gallery");
        let fx = fixture(&ex.text());
        let after = print_function(&fx.run.function, Naming::User);
        assert!(after.contains("sum: int = add a a;"), "the chain resolves to its root: {after}");
        assert!(after.contains("y: int = mul a a;"), "the join's copy and the chain: {after}");
        assert!(after.contains("go: bool = lt i n;"), "limit ← n is not killed in the loop: {after}");
        assert!(after.contains("last: int = id i;") && after.matches("print last;").count() == 2, "the loop kills last ← i: {after}");
        for gone in ["b: int = id a;", "c: int = id b;", "x: int = id a;", "limit: int = id n;"] {
            assert!(!after.contains(gone), "{gone} is dead after the rewrite: {after}");
        }
        let t = &fx.out().trace;
        let table = rows(&fx.original, t, t.rounds.len(), false);
        let join = table.iter().find(|r| r.name == ".join").unwrap();
        let Set::Copies(v, _) = &join.ins.set else { panic!("the join is reachable") };
        assert!(v.iter().any(|c| c.short == "x ← a"));
        assert!(t.rounds.len() >= 2, "a second round proves the fixpoint");
    }
}
