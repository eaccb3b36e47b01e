//! Large programs as source text, for the scaling benchmark (`core/benches/scale.rs`) and the
//! scale tests: a structured function of about `blocks` blocks in Bril or in SIL, with real
//! instructions in every block, that the parser, every analysis, every pass and the
//! interpreter all accept.
//!
//! Text rather than a `Function`, so the benchmark measures parsing too (issue 17: "generate
//! text, then parse"). The shape follows [`super::structured_function`] (sequences, if/else
//! and counted loops, seeded), and the contents give each stage its worst ordinary case:
//!
//! - a pool of eight variables reassigned all over the function (Bril), so reaching
//!   definitions see ~`blocks` definitions reaching far — the dense per-block bit set over
//!   all definitions was quadratic here;
//! - binary expressions over the pool recomputed in many blocks, a few hundred distinct
//!   ones whatever the size (loop counters are named by nesting depth), which LCM tracks
//!   all at once — a bit vector per block over every expression, so a number of
//!   expressions growing with the function would make any LCM quadratic;
//! - in Bril, every one of those binary expressions made redundant early — recomputed at
//!   the entry of the block that falls through from the one computing it (`Redundancy`) —
//!   so LCM moves all of them at every size, and rewrites every computation of each through
//!   its temporary (`t = e; d = id t`): the copies copy propagation then removes are the same
//!   share of the function at 10^3 blocks as at 10^5. With operands drawn at random, LCM moved
//!   11 of 242 expressions at 10^3 blocks, 56 at 10^4 and 229 at 10^5, so the copies per block
//!   grew 0.1 → 0.43 → 1.47 and a growth exponent measured over those sizes was the input's,
//!   not the pass's;
//! - dead temporaries for DCE and a `print` (Bril) or an external call (SIL) every few
//!   blocks to keep the rest alive;
//! - loops run a counter from 0 to 2 and nest at most two deep, so the interpreter runs
//!   every block at most a handful of times and the program always terminates.
//!
//! Generation is iterative in the number of blocks (recursion depth is the nesting depth, at
//! most 3), and linear in the output.

use super::Rng;
use std::fmt::Write as _;

const POOL: usize = 8;
const MAX_DEPTH: u32 = 2;

/// The control-flow skeleton both languages share: what each statement is.
enum Stmt {
    /// One straight-line block.
    Block,
    /// `if c { then } else { else }`.
    IfElse(Vec<Stmt>, Vec<Stmt>),
    /// `for i in 0..2 { body }`.
    Loop(Vec<Stmt>),
}

/// Blocks a statement list takes (each `Block` is one; an if/else adds its two arms' entries
/// and a join; a loop a header, a body entry and an exit).
fn count(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::Block => 1,
            Stmt::IfElse(t, e) => 3 + count(t) + count(e),
            Stmt::Loop(b) => 3 + count(b),
        })
        .sum()
}

/// A skeleton of about `blocks` blocks.
fn skeleton(blocks: usize, rng: &mut Rng) -> Vec<Stmt> {
    fn stmts(rng: &mut Rng, depth: u32, budget: &mut usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..1 + rng.below(3) {
            if *budget == 0 {
                break;
            }
            out.push(stmt(rng, depth, budget));
        }
        out
    }
    fn stmt(rng: &mut Rng, depth: u32, budget: &mut usize) -> Stmt {
        let kind = if depth >= MAX_DEPTH || *budget < 8 { 0 } else { rng.below(4) };
        match kind {
            1 => {
                *budget = budget.saturating_sub(3);
                Stmt::IfElse(stmts(rng, depth + 1, budget), stmts(rng, depth + 1, budget))
            }
            2 => {
                *budget = budget.saturating_sub(3);
                Stmt::Loop(stmts(rng, depth + 1, budget))
            }
            _ => {
                *budget = budget.saturating_sub(1);
                Stmt::Block
            }
        }
    }
    let mut budget = blocks.saturating_sub(2);
    let mut top = Vec::new();
    while budget > 0 {
        top.push(stmt(rng, 0, &mut budget));
    }
    debug_assert!(count(&top) + 2 >= blocks.saturating_sub(2));
    top
}

const BRIL_OPS: [&str; 3] = ["add", "sub", "mul"];

/// The Bril bodies' expressions `(op, a, b)`: every one of the `3 × POOL²` made redundant
/// once before the next is used, so that LCM moves every expression at every size (module
/// comment).
///
/// The expressions are taken in a shuffled order. A body computing the current one into a
/// variable that is not its operand leaves it available at the block's exit; if the next
/// body is in the block that block falls through to (nothing `cut` in between), it computes
/// the same expression again at its entry — fully redundant there, so LCM deletes it — and
/// the order moves on. Otherwise the current expression is tried again.
struct Redundancy {
    order: Vec<(usize, usize, usize)>,
    at: usize,
    /// The expression the last body left available at its block's exit, if no branch, join
    /// or loop came since.
    pending: Option<(usize, usize, usize)>,
}

impl Redundancy {
    fn new(rng: &mut Rng) -> Redundancy {
        let mut order: Vec<(usize, usize, usize)> =
            (0..BRIL_OPS.len()).flat_map(|op| (0..POOL).flat_map(move |a| (0..POOL).map(move |b| (op, a, b)))).collect();
        // Fisher–Yates.
        for k in (1..order.len()).rev() {
            order.swap(k, rng.below(k + 1));
        }
        Redundancy { order, at: 0, pending: None }
    }

    /// The next body's expression, and whether it is the redundant computation of the one
    /// before.
    fn next(&mut self) -> ((usize, usize, usize), bool) {
        match self.pending.take() {
            Some(e) => {
                // Its redundant computation: the next expression's turn after this one.
                self.at = (self.at + 1) % self.order.len();
                (e, true)
            }
            None => (self.order[self.at], false),
        }
    }

    /// A body computed `e` into pool variable `c`: a first computation leaves it to repeat
    /// unless `c` is one of its operands.
    fn computed(&mut self, e: (usize, usize, usize), redundant: bool, c: usize) {
        if !redundant && c != e.1 && c != e.2 {
            self.pending = Some(e);
        }
    }

    /// Control flow other than a fall-through comes before the next body.
    fn cut(&mut self) {
        self.pending = None;
    }
}

/// A Bril program whose `@main` has about `blocks` blocks (see the module comment).
pub fn bril_program(blocks: usize, seed: u64) -> String {
    struct E {
        out: String,
        rng: Rng,
        label: usize,
        temp: usize,
        red: Redundancy,
    }
    impl E {
        fn label(&mut self) -> String {
            self.label += 1;
            format!("L{}", self.label)
        }
        fn var(&mut self) -> usize {
            self.rng.below(POOL)
        }
        fn body(&mut self) {
            let ((op, a, b), redundant) = self.red.next();
            let c = self.var();
            self.red.computed((op, a, b), redundant, c);
            let op = BRIL_OPS[op];
            self.temp += 1;
            // A temporary nobody reads (dead), and a pool variable recomputed from an
            // expression other blocks compute too (LCM's candidates).
            let _ = writeln!(self.out, "  t{}: int = {op} v{a} v{b};", self.temp);
            let _ = writeln!(self.out, "  v{c}: int = {op} v{a} v{b};");
            if self.rng.chance(25) {
                let _ = writeln!(self.out, "  print v{c};");
            }
        }
        fn stmts(&mut self, stmts: &[Stmt], depth: u32) {
            for s in stmts {
                if !matches!(s, Stmt::Block) {
                    // A branch or a loop header comes next: the next body's block is not
                    // reached from the last body alone.
                    self.red.cut();
                }
                match s {
                    Stmt::Block => {
                        let l = self.label();
                        let _ = writeln!(self.out, ".{l}:");
                        self.body();
                    }
                    Stmt::IfElse(t, e) => {
                        let (lt, le, lj) = (self.label(), self.label(), self.label());
                        let (a, b) = (self.var(), self.var());
                        self.temp += 1;
                        let c = self.temp;
                        let _ = writeln!(self.out, "  c{c}: bool = lt v{a} v{b};\n  br c{c} .{lt} .{le};\n.{lt}:");
                        self.body();
                        self.stmts(t, depth + 1);
                        let _ = writeln!(self.out, "  jmp .{lj};\n.{le}:");
                        self.red.cut();
                        self.body();
                        self.stmts(e, depth + 1);
                        let _ = writeln!(self.out, ".{lj}:");
                        self.red.cut();
                    }
                    Stmt::Loop(body) => {
                        // One counter per nesting depth, so the number of distinct
                        // expressions stays bounded as the function grows.
                        let (lh, lb, lx) = (self.label(), self.label(), self.label());
                        let k = depth;
                        let _ = writeln!(
                            self.out,
                            "  i{k}: int = const 0;\n.{lh}:\n  ci{k}: bool = lt i{k} two;\n  br ci{k} .{lb} .{lx};\n.{lb}:"
                        );
                        self.body();
                        self.stmts(body, depth + 1);
                        let _ = writeln!(self.out, "  i{k}: int = add i{k} one;\n  jmp .{lh};\n.{lx}:");
                        self.red.cut();
                    }
                }
            }
        }
    }
    let mut rng = Rng::new(seed);
    let sk = skeleton(blocks, &mut rng);
    let red = Redundancy::new(&mut rng);
    let mut e = E { out: String::with_capacity(blocks * 80), rng, label: 0, temp: 0, red };
    e.out.push_str("@main {\n  one: int = const 1;\n  two: int = const 2;\n");
    for k in 0..POOL {
        let _ = writeln!(e.out, "  v{k}: int = const {};", k + 1);
    }
    e.stmts(&sk, 0);
    let _ = writeln!(e.out, ".end:");
    for k in 0..POOL {
        let _ = writeln!(e.out, "  print v{k};");
    }
    e.out.push_str("}\n");
    e.out
}

/// The SIL program for an even `seed`, the Bril one for an odd seed: for tests that sweep
/// both languages over many sizes.
pub fn either_program(blocks: usize, seed: u64) -> (crate::ir::Lang, String) {
    if seed % 2 == 0 {
        (crate::ir::Lang::Sil, sil_program(blocks, seed))
    } else {
        (crate::ir::Lang::Bril, bril_program(blocks, seed))
    }
}

const SIL_OPS: [&str; 4] = ["add", "sub", "mul", "xor"];
const INT: &str = "$Builtin.Int64";

/// A SIL function `@big` of about `blocks` blocks (see the module comment): values come from
/// a pool of literals defined in the entry, loop counters are block arguments of the loop
/// headers, and an external `@take` call every few blocks is what keeps code alive.
pub fn sil_program(blocks: usize, seed: u64) -> String {
    struct E {
        out: String,
        rng: Rng,
        block: usize,
        value: usize,
        /// Values every block may read: the pool, then the counters of the enclosing loops.
        scope: Vec<usize>,
    }
    impl E {
        fn block(&mut self) -> usize {
            self.block += 1;
            self.block
        }
        fn value(&mut self) -> usize {
            self.value += 1;
            self.value
        }
        fn pick(&mut self) -> usize {
            let k = self.rng.below(self.scope.len());
            self.scope[k]
        }
        fn body(&mut self) {
            let (a, b) = (self.pick(), self.pick());
            let op = *self.rng.pick(&SIL_OPS);
            let (x, y) = (self.value(), self.value());
            // `%x` is recomputed by other blocks; `%y` is dead unless the call reads it.
            let _ = writeln!(self.out, "  %{x} = builtin \"{op}_Int64\"(%{a} : {INT}, %{b} : {INT}) : {INT}");
            let _ = writeln!(self.out, "  %{y} = builtin \"{op}_Int64\"(%{x} : {INT}, %{b} : {INT}) : {INT}");
            if self.rng.chance(25) {
                let (fr, r) = (self.value(), self.value());
                let _ = writeln!(self.out, "  %{fr} = function_ref @take : $@convention(thin) (Builtin.Int64) -> ()");
                let _ = writeln!(self.out, "  %{r} = apply %{fr}(%{y}) : $@convention(thin) (Builtin.Int64) -> ()");
            }
        }
        fn stmts(&mut self, stmts: &[Stmt]) {
            for s in stmts {
                match s {
                    Stmt::Block => {
                        let l = self.block();
                        let _ = writeln!(self.out, "  br bb{l}\nbb{l}:");
                        self.body();
                    }
                    Stmt::IfElse(t, e) => {
                        let (lt, le, lj) = (self.block(), self.block(), self.block());
                        let (a, b, c) = (self.pick(), self.pick(), self.value());
                        let _ = writeln!(
                            self.out,
                            "  %{c} = builtin \"cmp_slt_Int64\"(%{a} : {INT}, %{b} : {INT}) : $Builtin.Int1\n  cond_br %{c}, bb{lt}, bb{le}\nbb{lt}:"
                        );
                        self.body();
                        self.stmts(t);
                        let _ = writeln!(self.out, "  br bb{lj}\nbb{le}:");
                        self.body();
                        self.stmts(e);
                        let _ = writeln!(self.out, "  br bb{lj}\nbb{lj}:");
                    }
                    Stmt::Loop(body) => {
                        let (lh, lb, lx) = (self.block(), self.block(), self.block());
                        let (i, c) = (self.value(), self.value());
                        let _ = writeln!(
                            self.out,
                            "  br bb{lh}(%zero : {INT})\nbb{lh}(%{i} : {INT}):\n  %{c} = builtin \"cmp_slt_Int64\"(%{i} : {INT}, %two : {INT}) : $Builtin.Int1\n  cond_br %{c}, bb{lb}, bb{lx}\nbb{lb}:"
                        );
                        self.scope.push(i);
                        self.body();
                        self.stmts(body);
                        self.scope.pop();
                        let n = self.value();
                        let _ = writeln!(
                            self.out,
                            "  %{n} = builtin \"add_Int64\"(%{i} : {INT}, %one : {INT}) : {INT}\n  br bb{lh}(%{n} : {INT})\nbb{lx}:"
                        );
                    }
                }
            }
        }
    }
    let mut rng = Rng::new(seed);
    let sk = skeleton(blocks, &mut rng);
    let mut e = E { out: String::with_capacity(blocks * 200), rng, block: 0, value: POOL, scope: (1..=POOL).collect() };
    e.out.push_str("sil_stage canonical\n\nimport Builtin\n\n");
    e.out.push_str("sil @take : $@convention(thin) (Builtin.Int64) -> ()\n\n");
    e.out.push_str("sil @big : $@convention(thin) () -> () {\nbb0:\n");
    e.out.push_str(&format!("  %zero = integer_literal {INT}, 0\n  %one = integer_literal {INT}, 1\n  %two = integer_literal {INT}, 2\n"));
    for k in 1..=POOL {
        let _ = writeln!(e.out, "  %{k} = integer_literal {INT}, {}", k * 3);
    }
    e.stmts(&sk);
    e.out.push_str("  %end = tuple ()\n  return %end : $()\n}\n");
    e.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{bril, sil, RunConfig};
    use crate::ir::{verify, Lang};

    #[test]
    fn generated_programs_parse_verify_run_and_reach_their_size() {
        for (n, seed) in [(50, 1), (1000, 2)] {
            let text = bril_program(n, seed);
            let m = crate::parse_module(Lang::Bril, "scale.bril", &text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
            let f = &m.functions[0];
            verify(f).unwrap();
            assert!(f.blocks.len() >= n * 9 / 10 && f.blocks.len() <= n * 11 / 10 + 10, "{n}: {}", f.blocks.len());
            let r = bril::run(&m, &RunConfig::default());
            assert!(r.error.is_none(), "{:?}", r.error);

            let text = sil_program(n, seed);
            let m = crate::parse_module(Lang::Sil, "scale.sil", &text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
            let f = m.functions.iter().find(|f| f.name == "big").unwrap();
            verify(f).unwrap();
            assert!(f.blocks.len() >= n * 9 / 10 && f.blocks.len() <= n * 11 / 10 + 10, "{n}: {}", f.blocks.len());
            let r = sil::run(&m, "big", &RunConfig::default());
            assert!(r.error.is_none(), "{:?}", r.error);
        }
    }
}
