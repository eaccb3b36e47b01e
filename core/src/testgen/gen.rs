//! A seeded generator of random, terminating Bril programs shaped to exercise DCE and LCM.
//!
//! Termination is by construction: every loop runs a counter from 0 to a constant bound of at
//! most 4, the counter is readable but never assigned by the body, loops nest at most three
//! deep, and helper functions never call anything — so no program can run away.
//!
//! What the programs contain, and why:
//! - integer variables `v0…` and booleans `b0…`, all assigned at entry, so every read is of
//!   a defined variable and a pass that breaks that is caught as an "undefined variable";
//! - all core arithmetic, comparisons and logic; nested `if`/`else` and loops; `print`s;
//! - **redundancy**: a binary expression is often recomputed from a pool of earlier ones
//!   (`add v0 v1` on both arms of a branch and again after the join), which is what LCM
//!   removes or hoists;
//! - **dead code**: temporaries `t…` that are never printed, values overwritten before use,
//!   code after a `ret` in a branch;
//! - **division**: usually guarded (`br` on `eq d 0` around it), but in about one case in
//!   twenty unguarded, so a program may end with "division by zero" — an observable
//!   behaviour the harness compares, which catches a pass that moves a `div` onto a path
//!   where it did not execute before;
//! - sometimes a helper function called with arguments that returns a value.

use super::build::{build_module, BrilInst as I, FuncSpec};
use crate::ir::{BrilOp as B, Imm, Module, Type};

/// SplitMix64: tiny, fast and good enough to make programs; no dependency needed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.next_u64() % 100 < u64::from(percent)
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Knobs of the generator; the defaults keep programs around 30–200 instructions.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Statements in `main` (before nesting).
    pub statements: usize,
    /// Nesting depth of `if`s and loops.
    pub max_depth: u32,
    pub int_vars: usize,
    pub bool_vars: usize,
    /// Percentage of divisions left unguarded (may trap).
    pub unguarded_div_percent: u32,
    /// Percentage of programs with a helper function.
    pub helper_percent: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig { statements: 14, max_depth: 3, int_vars: 4, bool_vars: 2, unguarded_div_percent: 5, helper_percent: 30 }
    }
}

/// A generated program: the module, its text, and inputs for `main`.
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub text: String,
    pub module: Module,
    /// Argument vectors for `main` (as command-line strings).
    pub inputs: Vec<Vec<String>>,
}

/// The program for `seed` (deterministic).
pub fn generate(seed: u64, cfg: &GenConfig) -> Generated {
    let mut rng = Rng::new(seed);
    let nparams = rng.below(3);
    let params: Vec<String> = ["a", "b"].iter().take(nparams).map(|s| s.to_string()).collect();
    let helper = rng.chance(cfg.helper_percent);

    let mut funcs = Vec::new();
    let mut main = FuncSpec::new("main");
    main.params = params.iter().map(|p| (p.clone(), Type::Int)).collect();
    let mut g = Gen::new(&mut rng, cfg, "main", helper);
    g.ints.extend(params.iter().cloned());
    g.prologue();
    g.block(cfg.statements, 0);
    g.epilogue();
    main.body = std::mem::take(&mut g.out.body);
    funcs.push(main);

    if helper {
        let mut h = FuncSpec::new("helper");
        h.params = vec![("p".into(), Type::Int), ("q".into(), Type::Int)];
        h.ret = Some(Type::Int);
        let small = GenConfig { statements: 5, max_depth: 2, helper_percent: 0, ..cfg.clone() };
        let mut g = Gen::new(&mut rng, &small, "h", false);
        g.ints.extend(["p".to_string(), "q".to_string()]);
        g.prologue();
        g.block(small.statements, 0);
        let r = g.int_operand();
        g.emit(I::ret(Some(&r)));
        h.body = std::mem::take(&mut g.out.body);
        funcs.push(h);
    }

    let inputs = (0..3).map(|_| (0..nparams).map(|_| input_value(&mut rng).to_string()).collect()).collect();
    let (text, module) = build_module(&format!("gen-{seed}.bril"), &funcs);
    Generated { seed, text, module, inputs }
}

/// Random inputs, biased towards the values that expose bugs: 0, ±1, small, huge.
pub fn input_value(rng: &mut Rng) -> i64 {
    match rng.below(8) {
        0 => 0,
        1 => *rng.pick(&[1, -1, 2]),
        2 => *rng.pick(&[i64::MAX, i64::MIN, 1 << 40]),
        _ => rng.range(-20, 20),
    }
}

const ARITH: &[B] = &[B::Add, B::Sub, B::Mul, B::Add, B::Sub];
const CMP: &[B] = &[B::Lt, B::Le, B::Gt, B::Ge, B::Eq];

struct Gen<'r> {
    rng: &'r mut Rng,
    cfg: GenConfig,
    out: FuncSpec,
    /// Prefix of labels and temporaries, unique per function.
    prefix: &'static str,
    has_helper: bool,
    labels: usize,
    temps: usize,
    /// Assignable integer variables (defined at entry).
    ints: Vec<String>,
    bools: Vec<String>,
    /// Readable-only names (loop counters, temporaries) per open scope.
    scopes: Vec<Vec<(String, bool)>>,
    /// Earlier binary expressions, for redundancy.
    pool: Vec<(B, String, String)>,
}

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng, cfg: &GenConfig, prefix: &'static str, has_helper: bool) -> Gen<'r> {
        Gen {
            rng,
            cfg: cfg.clone(),
            out: FuncSpec::new(""),
            prefix,
            has_helper,
            labels: 0,
            temps: 0,
            ints: Vec::new(),
            bools: Vec::new(),
            scopes: vec![Vec::new()],
            pool: Vec::new(),
        }
    }

    fn emit(&mut self, i: I) {
        self.out.inst(i);
    }

    fn label(&mut self, l: &str) {
        self.out.label(l);
    }

    fn fresh_label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{}_{what}{}", self.prefix, self.labels)
    }

    fn fresh_temp(&mut self, kind: &str) -> String {
        self.temps += 1;
        format!("{kind}{}_{}", self.prefix, self.temps)
    }

    fn prologue(&mut self) {
        for k in 0..self.cfg.int_vars {
            let v = format!("v{k}");
            let c = self.rng.range(-3, 12);
            self.emit(I::constant(&v, Type::Int, Imm::Int(c.into())));
            self.ints.push(v);
        }
        for k in 0..self.cfg.bool_vars {
            let v = format!("b{k}");
            let c = self.rng.chance(50);
            self.emit(I::constant(&v, Type::Bool, Imm::Bool(c)));
            self.bools.push(v);
        }
    }

    fn epilogue(&mut self) {
        let vs: Vec<&str> = self.ints.iter().map(String::as_str).collect();
        self.emit(I::effect(B::Print, &vs));
        let bs: Vec<&str> = self.bools.iter().map(String::as_str).collect();
        self.emit(I::effect(B::Print, &bs));
    }

    /// A uniformly chosen readable variable of the kind: an entry-defined one or a scoped
    /// temporary (chosen without building the candidate list: this runs per operand).
    fn readable_operand(&mut self, is_int: bool) -> String {
        let base = if is_int { &self.ints } else { &self.bools };
        let scoped: usize = self.scopes.iter().map(|s| s.iter().filter(|(_, i)| *i == is_int).count()).sum();
        let mut k = self.rng.below(base.len() + scoped);
        if k < base.len() {
            return base[k].clone();
        }
        k -= base.len();
        for (name, _) in self.scopes.iter().flatten().filter(|(_, i)| *i == is_int) {
            if k == 0 {
                return name.clone();
            }
            k -= 1;
        }
        base[0].clone()
    }

    fn is_readable(&self, name: &str) -> bool {
        self.ints.iter().any(|v| v == name) || self.scopes.iter().flatten().any(|(v, _)| v == name)
    }

    fn int_operand(&mut self) -> String {
        self.readable_operand(true)
    }

    fn bool_operand(&mut self) -> String {
        self.readable_operand(false)
    }

    /// An integer destination: usually a program variable, sometimes a scoped temporary
    /// (often dead).
    fn int_dest(&mut self) -> (String, bool) {
        if self.rng.chance(25) {
            (self.fresh_temp("t"), true)
        } else {
            let k = self.rng.below(self.ints.len());
            (self.ints[k].clone(), false)
        }
    }

    fn define_temp(&mut self, name: String, is_int: bool) {
        if let Some(s) = self.scopes.last_mut() {
            s.push((name, is_int));
        }
    }

    fn block(&mut self, n: usize, depth: u32) {
        self.scopes.push(Vec::new());
        for _ in 0..n {
            self.statement(depth);
        }
        self.scopes.pop();
    }

    fn statement(&mut self, depth: u32) {
        let nested = depth < self.cfg.max_depth;
        match self.rng.below(100) {
            0..=34 => self.int_assign(),
            35..=44 => self.bool_assign(),
            45..=54 => self.print(),
            55..=67 if nested => self.if_else(depth),
            68..=77 if nested => self.counted_loop(depth),
            78..=82 => self.division(),
            83..=86 if self.has_helper => self.call_helper(),
            87..=88 if depth > 0 && self.prefix == "main" => self.emit(I::ret(None)),
            89 => self.emit(I::effect(B::Nop, &[])),
            _ => self.int_assign(),
        }
    }

    fn binary(&mut self) -> (B, String, String) {
        if !self.pool.is_empty() && self.rng.chance(40) {
            let k = self.rng.below(self.pool.len());
            let e = &self.pool[k];
            if self.is_readable(&e.1) && self.is_readable(&e.2) {
                return e.clone();
            }
        }
        let op = self.rng.pick(ARITH).clone();
        let (x, y) = (self.int_operand(), self.int_operand());
        self.pool.push((op.clone(), x.clone(), y.clone()));
        (op, x, y)
    }

    fn int_assign(&mut self) {
        let (dest, temp) = self.int_dest();
        let inst = match self.rng.below(10) {
            0 => I::constant(&dest, Type::Int, Imm::Int(self.rng.range(-5, 20).into())),
            1 => {
                let x = self.int_operand();
                I::value(B::Id, &dest, Type::Int, &[&x])
            }
            _ => {
                let (op, x, y) = self.binary();
                I::value(op, &dest, Type::Int, &[&x, &y])
            }
        };
        self.emit(inst);
        if temp {
            self.define_temp(dest, true);
        }
    }

    fn bool_assign(&mut self) {
        let k = self.rng.below(self.bools.len());
        let dest = self.bools[k].clone();
        let inst = match self.rng.below(4) {
            0 | 1 => {
                let op = self.rng.pick(CMP).clone();
                let (x, y) = (self.int_operand(), self.int_operand());
                I::value(op, &dest, Type::Bool, &[&x, &y])
            }
            2 => {
                let op = if self.rng.chance(50) { B::And } else { B::Or };
                let (x, y) = (self.bool_operand(), self.bool_operand());
                I::value(op, &dest, Type::Bool, &[&x, &y])
            }
            _ => {
                let x = self.bool_operand();
                I::value(B::Not, &dest, Type::Bool, &[&x])
            }
        };
        self.emit(inst);
    }

    fn print(&mut self) {
        let n = 1 + self.rng.below(3);
        let args: Vec<String> = (0..n)
            .map(|_| if self.rng.chance(80) { self.int_operand() } else { self.bool_operand() })
            .collect();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        self.emit(I::effect(B::Print, &refs));
    }

    /// A condition: an existing boolean or a fresh comparison.
    fn condition(&mut self) -> String {
        if self.rng.chance(40) {
            return self.bool_operand();
        }
        let c = self.fresh_temp("c");
        let op = self.rng.pick(CMP).clone();
        let (x, y) = (self.int_operand(), self.int_operand());
        self.emit(I::value(op, &c, Type::Bool, &[&x, &y]));
        c
    }

    fn if_else(&mut self, depth: u32) {
        let c = self.condition();
        let (then, els, end) = (self.fresh_label("then"), self.fresh_label("else"), self.fresh_label("endif"));
        let with_else = self.rng.chance(60);
        self.emit(I::br(&c, &then, if with_else { &els } else { &end }));
        self.label(&then);
        let n = 1 + self.rng.below(4);
        self.block(n, depth + 1);
        if with_else {
            self.emit(I::jmp(&end));
            self.label(&els);
            let n = 1 + self.rng.below(4);
            self.block(n, depth + 1);
        }
        self.label(&end);
    }

    fn counted_loop(&mut self, depth: u32) {
        let (i, bound, c) = (self.fresh_temp("i"), self.fresh_temp("n"), self.fresh_temp("c"));
        let (head, body, exit) = (self.fresh_label("head"), self.fresh_label("body"), self.fresh_label("exit"));
        self.emit(I::constant(&i, Type::Int, Imm::Int(0)));
        let n = self.rng.range(0, 4);
        self.emit(I::constant(&bound, Type::Int, Imm::Int(n.into())));
        self.label(&head);
        self.emit(I::value(B::Lt, &c, Type::Bool, &[&i, &bound]));
        self.emit(I::br(&c, &body, &exit));
        self.label(&body);
        self.scopes.push(vec![(i.clone(), true)]);
        let n = 1 + self.rng.below(4);
        self.block(n, depth + 1);
        self.scopes.pop();
        let one = self.fresh_temp("one");
        self.emit(I::constant(&one, Type::Int, Imm::Int(1)));
        self.emit(I::value(B::Add, &i, Type::Int, &[&i, &one]));
        self.emit(I::jmp(&head));
        self.label(&exit);
        // The counter is defined before the loop, so it stays readable after it.
        self.define_temp(i, true);
    }

    fn division(&mut self) {
        let (dest, temp) = self.int_dest();
        let (x, d) = (self.int_operand(), self.int_operand());
        if self.rng.chance(self.cfg.unguarded_div_percent) {
            self.emit(I::value(B::Div, &dest, Type::Int, &[&x, &d]));
        } else {
            let (zero, z) = (self.fresh_temp("zero"), self.fresh_temp("z"));
            let (ok, skip) = (self.fresh_label("divide"), self.fresh_label("nodiv"));
            self.emit(I::constant(&zero, Type::Int, Imm::Int(0)));
            self.emit(I::value(B::Eq, &z, Type::Bool, &[&d, &zero]));
            if temp {
                // A temporary must be defined on both paths to stay readable after the join.
                self.emit(I::constant(&dest, Type::Int, Imm::Int(0)));
            }
            self.emit(I::br(&z, &skip, &ok));
            self.label(&ok);
            self.emit(I::value(B::Div, &dest, Type::Int, &[&x, &d]));
            self.label(&skip);
        }
        if temp {
            self.define_temp(dest, true);
        }
    }

    fn call_helper(&mut self) {
        let (dest, temp) = self.int_dest();
        let (x, y) = (self.int_operand(), self.int_operand());
        self.emit(I::call(Some((&dest, Type::Int)), "helper", &[&x, &y]));
        if temp {
            self.define_temp(dest, true);
        }
    }
}
