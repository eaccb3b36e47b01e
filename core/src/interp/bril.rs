//! Bril interpreter, matching the reference interpreter `brili` (Bril's `brili.ts`) in what a
//! pass can observe: printed output, errors, and the dynamic instruction count of `brili -p`.
//!
//! The IR is first lowered, per function, into a flat array of small instructions with
//! variables as frame slots and successors as code offsets; blocks without a terminator fall
//! through because they are laid out in `layout` order, and falling off the end of the
//! function is an uncounted `End`. Anything malformed (a missing destination, an operand id out
//! of range, a jump to a deleted block, a call of a missing function) lowers to a `Trap` that
//! fails only if executed, as brili fails only when it reaches the instruction.
//!
//! Calls push frames on an explicit stack over one register file, so deep recursion costs
//! memory bounded by [`RunConfig::depth_limit`], never native stack.
//!
//! Deliberate differences from brili, each where brili's behaviour is an accident of
//! JavaScript rather than Bril semantics:
//! - integer entry arguments are parsed exactly as 64-bit integers (brili goes through a
//!   double and loses digits past 2^53; `brilirs` is exact, and the corpus's `brilirs-only`
//!   benchmarks expect exactness);
//! - errors name their cause precisely (double free, use after free, out of bounds) where
//!   brili reports one generic heap message; the leak message is brili's verbatim.

use super::{ErrorKind, InterpError, Output, RunConfig, RunResult};
use crate::diag::Span;
use crate::entity::EntityRef;
use crate::ir::{BrilOp, Function, Imm, Inst, InstId, Lang, Module, Op, Type};
use std::collections::HashMap;
use std::fmt::{self, Write as _};

/// A run-time value. `Undef` marks a variable not yet assigned in the current frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Undef,
    Int(i64),
    Bool(bool),
    Float(f64),
    Char(char),
    Ptr(Pointer),
    /// The SSA extension's undefined value (`x: T = undef`): `id`, `set` and `get` copy it;
    /// any other operation on it is an error.
    Poison,
}

/// A pointer: an allocation (never reused, as in brili), an offset, and the element type
/// `store` checks against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pointer {
    pub alloc: u32,
    pub offset: i64,
    /// `None` for `ptr<any>`, whose cells hold values of any type.
    pub elem: Option<Tag>,
}

/// The dynamic type of a value; pointers are checked only for being pointers, as in brili.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    Int,
    Bool,
    Float,
    Char,
    Ptr,
}

impl Tag {
    fn of_type(t: &Type) -> Option<Tag> {
        match t {
            Type::Int => Some(Tag::Int),
            Type::Bool => Some(Tag::Bool),
            Type::Float => Some(Tag::Float),
            Type::Char => Some(Tag::Char),
            Type::Any => None,
            Type::Ptr(_) => Some(Tag::Ptr),
            Type::Sil(_) => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tag::Int => "int",
            Tag::Bool => "bool",
            Tag::Float => "float",
            Tag::Char => "char",
            Tag::Ptr => "ptr",
        }
    }
}

impl Value {
    fn tag(self) -> Option<Tag> {
        match self {
            Value::Undef => None,
            Value::Int(_) => Some(Tag::Int),
            Value::Bool(_) => Some(Tag::Bool),
            Value::Float(_) => Some(Tag::Float),
            Value::Char(_) => Some(Tag::Char),
            Value::Ptr(_) => Some(Tag::Ptr),
            Value::Poison => None,
        }
    }

    fn type_name(self) -> &'static str {
        match self {
            Value::Poison => "the undef value",
            v => v.tag().map_or("undefined", Tag::name),
        }
    }
}

impl fmt::Display for Value {
    /// brili's `print` spelling; a pointer prints as JavaScript prints brili's pointer object.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Undef => f.write_str("undefined"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Float(x) => f.write_str(&super::format_float(*x)),
            Value::Char(c) => write!(f, "{c}"),
            Value::Ptr(_) => f.write_str("[object Object]"),
            Value::Poison => f.write_str("undef"),
        }
    }
}

/// The entry arguments a benchmark declares in a `# ARGS: …` (or `#ARGS: …`) comment line,
/// which is how Bril's benchmark runner (turnt) passes command-line arguments.
pub fn args_from_source(text: &str) -> Vec<String> {
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else { continue };
        if let Some(args) = rest.trim_start().strip_prefix("ARGS:") {
            return args.split_whitespace().map(str::to_string).collect();
        }
    }
    Vec::new()
}

/// Runs `@main` with `cfg.args`.
pub fn run(module: &Module, cfg: &RunConfig) -> RunResult {
    run_function(module, "main", cfg)
}

/// Runs the named function with `cfg.args` parsed against its parameter types.
pub fn run_function(module: &Module, entry: &str, cfg: &RunConfig) -> RunResult {
    let failed = |kind: ErrorKind, span: Span| RunResult {
        stdout: String::new(),
        dyn_inst: 0,
        returned: None,
        error: Some(InterpError::new(kind, span)),
    };
    if module.lang != Lang::Bril {
        return failed(ErrorKind::Malformed("not a Bril module".into()), Span::DUMMY);
    }
    let prog = Program::lower(module);
    let Some(&fi) = prog.by_name.get(entry) else {
        let kind = if entry == "main" { ErrorKind::NoMain } else { ErrorKind::UnknownFunction(entry.into()) };
        return failed(kind, Span::DUMMY);
    };
    let func = &prog.funcs[fi as usize];
    if !func.params_ok {
        return failed(malformed("a parameter is out of range"), func.f.span);
    }
    let args = match parse_args(func, &cfg.args) {
        Ok(a) => a,
        Err(kind) => return failed(kind, func.f.span),
    };
    let mut m = Machine {
        prog: &prog,
        regs: Vec::new(),
        frames: Vec::new(),
        shadow: Vec::new(),
        spec: Vec::new(),
        heap: Heap::default(),
        out: Output::new(cfg.output_limit),
        steps: 0,
        cfg,
    };
    let outcome = m.execute(fi, &args);
    let (returned, error) = match outcome {
        Ok(ret) if m.heap.live_allocs > 0 => {
            let leak = ErrorKind::Leak { allocations: m.heap.live_allocs };
            (ret, Some(InterpError::new(leak, func.f.span)))
        }
        Ok(ret) => (ret, None),
        Err(fault) => {
            let span = prog.funcs.get(fault.func as usize).map_or(Span::DUMMY, |f| f.span_at(fault.pc));
            (None, Some(InterpError::new(fault.kind, span)))
        }
    };
    RunResult {
        stdout: m.out.buf,
        dyn_inst: m.steps,
        returned: returned.map(|v| v.to_string()),
        error,
    }
}

/// Parses entry arguments by declared parameter type, as brili does on its command line.
fn parse_args(func: &LFunc<'_>, args: &[String]) -> Result<Vec<Value>, ErrorKind> {
    if args.len() != func.params.len() {
        return Err(ErrorKind::ArgCount { func: func.f.name.clone(), expected: func.params.len(), got: args.len() });
    }
    let bad = |s: &str, what: &str| ErrorKind::BadArgument(format!("`{s}` is not {what}"));
    func.params
        .iter()
        .zip(args)
        .map(|(&(_, tag), s)| match tag {
            Some(Tag::Int) => parse_int_arg(s).ok_or_else(|| bad(s, "an integer")).map(Value::Int),
            Some(Tag::Float) => parse_float_arg(s).ok_or_else(|| bad(s, "a number")).map(Value::Float),
            Some(Tag::Bool) => match s.as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(bad(s, "`true` or `false`")),
            },
            Some(Tag::Char) => {
                let mut cs = s.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => Ok(Value::Char(c)),
                    _ => Err(bad(s, "a single character")),
                }
            }
            Some(Tag::Ptr) | None => Err(ErrorKind::BadArgument("only int, float, bool and char parameters can be passed".into())),
        })
        .collect()
}

/// An integer literal, or (like JavaScript's `Number`) a decimal number with an integral value.
fn parse_int_arg(s: &str) -> Option<i64> {
    let t = s.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Some(i);
    }
    let x = parse_float_arg(t)?;
    // `i64::MAX as f64` is 2^63, the first double past the range; `as` would saturate.
    (x.fract() == 0.0 && x.abs() < i64::MAX as f64).then_some(x as i64)
}

fn parse_float_arg(s: &str) -> Option<f64> {
    let t = s.trim();
    let x = match t {
        "Infinity" | "+Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ if t.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') => return None,
        _ => t.parse::<f64>().ok()?,
    };
    (!x.is_nan()).then_some(x)
}

// ---------------------------------------------------------------------------------------------
// Lowering

#[derive(Clone, Copy, Debug)]
enum IntOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug)]
enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug)]
enum Cmp {
    Eq,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Cmp {
    #[inline]
    fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Lt => a < b,
            Cmp::Gt => a > b,
            Cmp::Le => a <= b,
            Cmp::Ge => a >= b,
        }
    }
}

type Slot = u32;

/// One lowered instruction. Slots index the current frame; code offsets index the function.
#[derive(Clone, Debug)]
enum Code {
    Const { dst: Slot, val: Value },
    Id { dst: Slot, src: Slot },
    Int { op: IntOp, dst: Slot, a: Slot, b: Slot },
    IntCmp { op: Cmp, dst: Slot, a: Slot, b: Slot },
    Logic { and: bool, dst: Slot, a: Slot, b: Slot },
    Not { dst: Slot, a: Slot },
    Float { op: FloatOp, dst: Slot, a: Slot, b: Slot },
    FloatCmp { op: Cmp, dst: Slot, a: Slot, b: Slot },
    CharCmp { op: Cmp, dst: Slot, a: Slot, b: Slot },
    Char2Int { dst: Slot, a: Slot },
    Int2Char { dst: Slot, a: Slot },
    Float2Bits { dst: Slot, a: Slot },
    Bits2Float { dst: Slot, a: Slot },
    Call { callee: u32, args: Box<[Slot]>, dst: Option<(Slot, Option<Tag>)> },
    Print { args: Box<[Slot]> },
    Alloc { dst: Slot, n: Slot, elem: Option<Tag> },
    Free { p: Slot },
    Store { p: Slot, v: Slot },
    Load { dst: Slot, p: Slot },
    PtrAdd { dst: Slot, p: Slot, n: Slot },
    Nop,
    Jmp { to: u32 },
    Br { cond: Slot, then: u32, els: u32 },
    /// The speculation extension: `speculate` saves the frame's variables, `commit` drops
    /// what was saved, and a `guard` whose condition is false restores it and jumps to `fail`.
    Speculate,
    Commit,
    Guard { cond: Slot, cont: u32, fail: u32 },
    /// SSA form: `set x v` writes `x`'s shadow (a second slot per variable), `x = get` reads
    /// it back, `x = undef` writes the undefined value.
    Set { shadow: Slot, src: Slot },
    Get { dst: Slot },
    Undef { dst: Slot },
    /// The deprecated classic SSA form: the `phi`s of one run of consecutive `phi`
    /// instructions, evaluated together (each reads its arguments before any writes, as φs
    /// do) by the run's first instruction; the others are [`Code::Nop`]. Each φ is its
    /// destination and, per label (a block index), the argument to copy. `prev` says which
    /// executed label selects: the second most recent in a labeled block (the most recent is
    /// the block's own), the most recent in an unlabeled one.
    Phis { phis: Box<[PhiCode]>, prev: bool },
    /// Entering a labeled block of a function that has `phi`s: the executed labels shift.
    /// Not an instruction of the program, so not counted.
    Enter { block: u32 },
    Ret { val: Option<Slot> },
    /// Control fell off the end of the function: an implicit, uncounted `ret`.
    End,
    Trap(Box<ErrorKind>),
}

struct LFunc<'m> {
    f: &'m Function,
    nvals: usize,
    params: Vec<(Slot, Option<Tag>)>,
    /// False when a parameter's value id is out of range: entering the function then fails.
    params_ok: bool,
    ret: Option<Tag>,
    code: Vec<Code>,
    /// The source instruction of each code offset, for spans and error messages.
    src: Vec<Option<InstId>>,
}

impl LFunc<'_> {
    fn span_at(&self, pc: usize) -> Span {
        match self.src.get(pc).copied().flatten() {
            Some(i) => self.f.insts.get(i).map_or(self.f.span, |inst| inst.span),
            None => self.f.span,
        }
    }

    fn inst_at(&self, pc: usize) -> Option<&Inst> {
        self.src.get(pc).copied().flatten().and_then(|i| self.f.insts.get(i))
    }

    fn var_name(&self, slot: Slot) -> String {
        self.f.values.as_slice().get(slot as usize).map_or_else(|| format!("%{slot}"), |v| v.name.to_string())
    }
}

struct Program<'m> {
    funcs: Vec<LFunc<'m>>,
    by_name: HashMap<&'m str, u32>,
}

impl<'m> Program<'m> {
    fn lower(module: &'m Module) -> Program<'m> {
        let mut by_name = HashMap::new();
        for (i, f) in module.functions.iter().enumerate() {
            by_name.entry(f.name.as_str()).or_insert(i as u32);
        }
        let mut funcs: Vec<LFunc<'m>> = module.functions.iter().map(LFunc::header).collect();
        let params: Vec<usize> = funcs.iter().map(|f| f.params.len()).collect();
        for lf in &mut funcs {
            lf.lower_body(&by_name, &params);
        }
        Program { funcs, by_name }
    }
}

/// One `phi`: its destination and, per label (a block index), the argument to copy.
type PhiCode = (Slot, Box<[(u32, Slot)]>);

/// No label executed yet (function start).
const NO_LABEL: u32 = u32::MAX;

fn malformed(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Malformed(msg.into())
}

impl<'m> LFunc<'m> {
    fn header(f: &'m Function) -> LFunc<'m> {
        let nvals = f.values.len();
        let params = f
            .params
            .iter()
            .map(|&p| {
                let tag = f.values.get(p).and_then(|v| v.ty.as_ref()).and_then(Tag::of_type);
                (p.index() as Slot, tag)
            })
            .collect();
        let params_ok = f.params.iter().all(|p| p.index() < nvals);
        let ret = f.ret.as_ref().and_then(Tag::of_type);
        LFunc { f, nvals, params, params_ok, ret, code: Vec::new(), src: Vec::new() }
    }

    fn lower_body(&mut self, by_name: &HashMap<&str, u32>, n_params: &[usize]) {
        let f = self.f;
        if let Some(&(p, _)) = self.params.iter().find(|(p, _)| *p as usize >= self.nvals) {
            self.push(None, Code::Trap(Box::new(malformed(format!("parameter %{p} out of range")))));
            return;
        }
        // Block start offsets, in layout order; blocks not in layout stay unreachable.
        let mut start = vec![u32::MAX; f.blocks.len()];
        let mut pc = 0u32;
        // Labels are tracked only where a `phi` reads them.
        let marks = f.has_phis();
        for &b in &f.layout {
            let Some(block) = f.blocks.get(b) else {
                self.push(None, Code::Trap(Box::new(malformed(format!("layout lists missing block {b}")))));
                return;
            };
            if start[b.index()] != u32::MAX {
                self.push(None, Code::Trap(Box::new(malformed(format!("block {b} appears twice in layout")))));
                return;
            }
            start[b.index()] = pc;
            pc += block.insts.len() as u32 + u32::from(block.term.is_some()) + u32::from(marks && block.labeled);
        }
        // One allocation each (the code of a 10^5-block function is ~10 MB; growing it by
        // doubling copied it again and again on fresh pages).
        self.code.reserve_exact(pc as usize + 1);
        self.src.reserve_exact(pc as usize + 1);
        for (k, &b) in f.layout.iter().enumerate() {
            let block = &f.blocks[b];
            if marks && block.labeled {
                self.push(None, Code::Enter { block: b.index() as u32 });
            }
            let mut in_run = false;
            for i in block.all_insts() {
                let is_phi = f.insts.get(i).is_some_and(|inst| inst.op == Op::Bril(BrilOp::Phi));
                let code = match f.insts.get(i) {
                    Some(_) if is_phi && in_run => Ok(Code::Nop),
                    Some(_) if is_phi => self.lower_phis(block, i),
                    Some(inst) => self.lower_inst(inst, &start, by_name, n_params),
                    None => Err(malformed(format!("block {b} lists missing instruction {i}"))),
                };
                in_run = is_phi;
                self.push(Some(i), code.unwrap_or_else(|e| Code::Trap(Box::new(e))));
            }
            if block.term.is_none() && k + 1 == f.layout.len() {
                self.push(None, Code::End);
            }
        }
        if self.code.is_empty() {
            self.push(None, Code::End);
        }
    }

    fn push(&mut self, src: Option<InstId>, code: Code) {
        self.code.push(code);
        self.src.push(src);
    }

    fn slot(&self, v: crate::ir::ValueId) -> Result<Slot, ErrorKind> {
        if v.index() < self.nvals {
            Ok(v.index() as Slot)
        } else {
            Err(malformed(format!("operand {v} out of range")))
        }
    }

    /// The run of consecutive `phi`s starting at `first` in `block`, as one [`Code::Phis`].
    fn lower_phis(&self, block: &crate::ir::Block, first: InstId) -> Result<Code, ErrorKind> {
        let f = self.f;
        let mut phis = Vec::new();
        for i in block.insts.iter().copied().skip_while(|&i| i != first) {
            let Some(inst) = f.insts.get(i).filter(|inst| inst.op == Op::Bril(BrilOp::Phi)) else { break };
            let [dst] = inst.results.as_slice() else {
                return Err(malformed("phi needs exactly one destination"));
            };
            if inst.args.len() != inst.succs.len() {
                return Err(malformed("phi needs as many labels as arguments"));
            }
            let args = inst.args.iter().zip(&inst.succs).map(|(&a, s)| Ok((s.block.index() as u32, self.slot(a)?))).collect::<Result<_, ErrorKind>>()?;
            phis.push((self.slot(*dst)?, args));
        }
        Ok(Code::Phis { phis: phis.into(), prev: block.labeled })
    }

    fn lower_inst(
        &self,
        inst: &Inst,
        start: &[u32],
        by_name: &HashMap<&str, u32>,
        n_params: &[usize],
    ) -> Result<Code, ErrorKind> {
        let Op::Bril(op) = &inst.op else {
            return Err(malformed(format!("SIL instruction `{}` in a Bril function", inst.op)));
        };
        let name = op.name();
        let nargs = |n: usize| -> Result<(), ErrorKind> {
            if inst.args.len() == n {
                Ok(())
            } else {
                Err(malformed(format!("{name} takes {n} argument(s); got {}", inst.args.len())))
            }
        };
        let dest = |want: bool| -> Result<Option<Slot>, ErrorKind> {
            match (inst.results.as_slice(), want) {
                ([d], true) => self.slot(*d).map(Some),
                ([], false) => Ok(None),
                (_, true) => Err(malformed(format!("{name} needs exactly one destination"))),
                (_, false) => Err(malformed(format!("{name} has no destination"))),
            }
        };
        let arg = |k: usize| self.slot(inst.args[k]);
        let target = |k: usize| -> Result<u32, ErrorKind> {
            let b = inst.succs[k].block;
            match start.get(b.index()) {
                Some(&pc) if pc != u32::MAX => Ok(pc),
                _ => Err(malformed(format!("{name} to block {b}, which is not in the layout"))),
            }
        };
        let bin = |n: usize| -> Result<(Slot, Slot, Slot), ErrorKind> {
            debug_assert_eq!(n, 2);
            nargs(2)?;
            Ok((dest(true)?.unwrap_or(0), arg(0)?, arg(1)?))
        };
        let un = || -> Result<(Slot, Slot), ErrorKind> {
            nargs(1)?;
            Ok((dest(true)?.unwrap_or(0), arg(0)?))
        };
        use BrilOp as B;
        let int = |op| bin(2).map(|(dst, a, b)| Code::Int { op, dst, a, b });
        let icmp = |op| bin(2).map(|(dst, a, b)| Code::IntCmp { op, dst, a, b });
        let float = |op| bin(2).map(|(dst, a, b)| Code::Float { op, dst, a, b });
        let fcmp = |op| bin(2).map(|(dst, a, b)| Code::FloatCmp { op, dst, a, b });
        let ccmp = |op| bin(2).map(|(dst, a, b)| Code::CharCmp { op, dst, a, b });
        Ok(match op {
            B::Const => {
                nargs(0)?;
                let dst = dest(true)?.unwrap_or(0);
                let float_ty = inst.ty == Some(Type::Float);
                let val = match inst.imm {
                    Imm::Int(i) if float_ty => Value::Float(i as f64),
                    Imm::Int(i) => Value::Int(i as i64),
                    // brili floors a float literal assigned to an int.
                    Imm::Float(x) if inst.ty == Some(Type::Int) => Value::Int(x.floor() as i64),
                    Imm::Float(x) => Value::Float(x),
                    Imm::Bool(b) => Value::Bool(b),
                    Imm::Char(c) => Value::Char(c),
                    _ => return Err(malformed("const without a literal")),
                };
                Code::Const { dst, val }
            }
            B::Id => un().map(|(dst, src)| Code::Id { dst, src })?,
            B::Nop => {
                nargs(0)?;
                dest(false)?;
                Code::Nop
            }
            B::Add => int(IntOp::Add)?,
            B::Sub => int(IntOp::Sub)?,
            B::Mul => int(IntOp::Mul)?,
            B::Div => int(IntOp::Div)?,
            B::Eq => icmp(Cmp::Eq)?,
            B::Lt => icmp(Cmp::Lt)?,
            B::Gt => icmp(Cmp::Gt)?,
            B::Le => icmp(Cmp::Le)?,
            B::Ge => icmp(Cmp::Ge)?,
            B::Not => un().map(|(dst, a)| Code::Not { dst, a })?,
            B::And => bin(2).map(|(dst, a, b)| Code::Logic { and: true, dst, a, b })?,
            B::Or => bin(2).map(|(dst, a, b)| Code::Logic { and: false, dst, a, b })?,
            B::Fadd => float(FloatOp::Add)?,
            B::Fsub => float(FloatOp::Sub)?,
            B::Fmul => float(FloatOp::Mul)?,
            B::Fdiv => float(FloatOp::Div)?,
            B::Feq => fcmp(Cmp::Eq)?,
            B::Flt => fcmp(Cmp::Lt)?,
            B::Fgt => fcmp(Cmp::Gt)?,
            B::Fle => fcmp(Cmp::Le)?,
            B::Fge => fcmp(Cmp::Ge)?,
            B::Ceq => ccmp(Cmp::Eq)?,
            B::Clt => ccmp(Cmp::Lt)?,
            B::Cgt => ccmp(Cmp::Gt)?,
            B::Cle => ccmp(Cmp::Le)?,
            B::Cge => ccmp(Cmp::Ge)?,
            B::Char2Int => un().map(|(dst, a)| Code::Char2Int { dst, a })?,
            B::Int2Char => un().map(|(dst, a)| Code::Int2Char { dst, a })?,
            B::Call => {
                let [callee_name] = inst.funcs.as_slice() else {
                    return Err(malformed("call names no function"));
                };
                let Some(&callee) = by_name.get(callee_name.as_str()) else {
                    return Err(ErrorKind::UnknownFunction(callee_name.clone()));
                };
                let expected = n_params[callee as usize];
                if inst.args.len() != expected {
                    return Err(ErrorKind::ArgCount { func: callee_name.clone(), expected, got: inst.args.len() });
                }
                let args = inst.args.iter().map(|&a| self.slot(a)).collect::<Result<_, _>>()?;
                let dst = match inst.results.as_slice() {
                    [] => None,
                    [d] => Some((self.slot(*d)?, inst.ty.as_ref().and_then(Tag::of_type))),
                    _ => return Err(malformed("call with several destinations")),
                };
                Code::Call { callee, args, dst }
            }
            B::Print => {
                dest(false)?;
                Code::Print { args: inst.args.iter().map(|&a| self.slot(a)).collect::<Result<_, _>>()? }
            }
            B::Jmp => {
                nargs(0)?;
                if inst.succs.len() != 1 {
                    return Err(malformed("jmp needs one label"));
                }
                Code::Jmp { to: target(0)? }
            }
            B::Br => {
                nargs(1)?;
                if inst.succs.len() != 2 {
                    return Err(malformed("br needs two labels"));
                }
                Code::Br { cond: arg(0)?, then: target(0)?, els: target(1)? }
            }
            B::Speculate | B::Commit => {
                nargs(0)?;
                dest(false)?;
                if *op == B::Speculate {
                    Code::Speculate
                } else {
                    Code::Commit
                }
            }
            B::Set => {
                nargs(2)?;
                dest(false)?;
                Code::Set { shadow: arg(0)?, src: arg(1)? }
            }
            B::Phi => return Err(malformed("phi outside a run of phis")),
            B::Get | B::Undef => {
                nargs(0)?;
                let dst = dest(true)?.unwrap_or(0);
                if *op == B::Get {
                    Code::Get { dst }
                } else {
                    Code::Undef { dst }
                }
            }
            B::Guard => {
                nargs(1)?;
                if inst.succs.len() != 2 {
                    return Err(malformed("guard needs a label and the block after it"));
                }
                Code::Guard { cond: arg(0)?, cont: target(0)?, fail: target(1)? }
            }
            B::Ret => {
                dest(false)?;
                match inst.args.len() {
                    0 => Code::Ret { val: None },
                    1 => Code::Ret { val: Some(arg(0)?) },
                    n => return Err(malformed(format!("ret takes 0 or 1 argument(s); got {n}"))),
                }
            }
            B::Alloc => {
                let (dst, n) = un()?;
                let elem = match &inst.ty {
                    Some(Type::Ptr(t)) if **t == Type::Any => None,
                    Some(Type::Ptr(t)) => Some(Tag::of_type(t).ok_or_else(|| malformed("alloc of a non-Bril type"))?),
                    _ => return Err(malformed("alloc needs a pointer type")),
                };
                Code::Alloc { dst, n, elem }
            }
            B::Free => {
                nargs(1)?;
                dest(false)?;
                Code::Free { p: arg(0)? }
            }
            B::Store => {
                nargs(2)?;
                dest(false)?;
                Code::Store { p: arg(0)?, v: arg(1)? }
            }
            B::Load => un().map(|(dst, p)| Code::Load { dst, p })?,
            B::PtrAdd => bin(2).map(|(dst, p, n)| Code::PtrAdd { dst, p, n })?,
            // The float extension's bit casts postdate the IR's opcode list; they are pure, but
            // passes see them as `Other` and so keep them, which is safe.
            B::Other(o) if o == "float2bits" => un().map(|(dst, a)| Code::Float2Bits { dst, a })?,
            B::Other(o) if o == "bits2float" => un().map(|(dst, a)| Code::Bits2Float { dst, a })?,
            B::Other(o) => return Err(ErrorKind::NotModelled(format!("Bril operation `{o}`"))),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Execution

enum HeapSlot {
    Live(Vec<Value>),
    Freed,
}

#[derive(Default)]
struct Heap {
    slots: Vec<HeapSlot>,
    live_allocs: usize,
    live_cells: usize,
}

impl Heap {
    fn cells(&mut self, p: Pointer) -> Result<(&mut Vec<Value>, usize), ErrorKind> {
        match self.slots.get_mut(p.alloc as usize) {
            Some(HeapSlot::Live(cells)) => {
                let size = cells.len();
                match usize::try_from(p.offset) {
                    Ok(o) if o < size => Ok((cells, o)),
                    _ => Err(ErrorKind::OutOfBounds { offset: p.offset, size }),
                }
            }
            Some(HeapSlot::Freed) => Err(ErrorKind::UseAfterFree),
            None => Err(malformed("pointer to an allocation that never existed")),
        }
    }
}

struct Frame {
    func: u32,
    /// The caller's `call` instruction.
    pc: usize,
    base: usize,
    /// The caller's two most recently executed labels (for its `phi`s after the call).
    labels: [u32; 2],
}

/// Where and why execution stopped.
struct Fault {
    kind: ErrorKind,
    func: u32,
    pc: usize,
}

/// The shadow variables of the frame at `base` with `n` variables (grown on first use: only
/// programs in SSA form have any).
fn frame_shadows(shadow: &mut Vec<Value>, base: usize, n: usize) -> &mut [Value] {
    if shadow.len() < base + n {
        shadow.resize(base + n, Value::Undef);
    }
    &mut shadow[base..base + n]
}

struct Machine<'p, 'm> {
    prog: &'p Program<'m>,
    regs: Vec<Value>,
    frames: Vec<Frame>,
    /// The shadow variables of SSA form, one slot per variable, framed like `regs`.
    shadow: Vec<Value>,
    /// The variables (and shadows) saved by each open `speculate`, innermost last. Calls and
    /// returns are refused while one is open (as brili refuses them), so they are all the
    /// current frame's.
    spec: Vec<(Vec<Value>, Vec<Value>)>,
    heap: Heap,
    out: Output,
    steps: u64,
    cfg: &'p RunConfig,
}

impl Machine<'_, '_> {
    /// Runs `entry` to completion; the hot loop keeps the current function, offset and frame
    /// base in locals and touches the frame stack only on calls and returns.
    fn execute(&mut self, entry: u32, args: &[Value]) -> Result<Option<Value>, Fault> {
        let prog = self.prog;
        let limit = self.cfg.step_limit;
        let mut fi = entry;
        let mut cur = &prog.funcs[fi as usize];
        let mut pc = 0usize;
        let mut base = 0usize;
        self.regs.resize(cur.nvals, Value::Undef);
        if !cur.params_ok {
            return Err(Fault { kind: malformed("a parameter is out of range"), func: fi, pc });
        }
        for (&(slot, _), &v) in cur.params.iter().zip(args) {
            self.regs[slot as usize] = v;
        }
        let regs = &mut self.regs;
        // The count lives in a register during the loop and is written back on every exit.
        let mut steps = self.steps;

        macro_rules! fail {
            ($kind:expr) => {{
                self.steps = steps;
                return Err(Fault { kind: $kind, func: fi, pc });
            }};
        }
        // Reads an operand of the expected variant, or fails with the precise reason.
        macro_rules! get {
            ($variant:ident, $slot:expr, $k:expr) => {
                match regs[base + $slot as usize] {
                    Value::$variant(x) => x,
                    other => fail!(operand_error(cur, pc, $k, $slot, other, stringify!($variant))),
                }
            };
        }
        macro_rules! any {
            ($slot:expr) => {
                match regs[base + $slot as usize] {
                    Value::Undef => fail!(ErrorKind::UndefinedVariable(cur.var_name($slot))),
                    v => v,
                }
            };
        }
        macro_rules! set {
            ($slot:expr, $v:expr) => {
                regs[base + $slot as usize] = $v
            };
        }

        // The most recently executed label and the one before it (block indices).
        let mut labels = [NO_LABEL; 2];
        loop {
            let code = &cur.code[pc];
            if let Code::Enter { block } = code {
                labels = [*block, labels[0]];
                pc += 1;
                continue;
            }
            if let Code::End = code {
                // Falls through to the return path below without counting.
            } else {
                if steps >= limit {
                    fail!(ErrorKind::StepLimit(limit));
                }
                steps += 1;
            }
            let ret: Option<Value> = match code {
                Code::Const { dst, val } => {
                    set!(*dst, *val);
                    pc += 1;
                    continue;
                }
                Code::Id { dst, src } => {
                    let v = any!(*src);
                    set!(*dst, v);
                    pc += 1;
                    continue;
                }
                Code::Int { op, dst, a, b } => {
                    let (x, y) = (get!(Int, *a, 0), get!(Int, *b, 1));
                    let v = match op {
                        IntOp::Add => x.wrapping_add(y),
                        IntOp::Sub => x.wrapping_sub(y),
                        IntOp::Mul => x.wrapping_mul(y),
                        IntOp::Div => {
                            if y == 0 {
                                fail!(ErrorKind::DivisionByZero);
                            }
                            x.wrapping_div(y)
                        }
                    };
                    set!(*dst, Value::Int(v));
                    pc += 1;
                    continue;
                }
                Code::IntCmp { op, dst, a, b } => {
                    let (x, y) = (get!(Int, *a, 0), get!(Int, *b, 1));
                    set!(*dst, Value::Bool(op.test(x, y)));
                    pc += 1;
                    continue;
                }
                Code::Logic { and, dst, a, b } => {
                    let (x, y) = (get!(Bool, *a, 0), get!(Bool, *b, 1));
                    set!(*dst, Value::Bool(if *and { x && y } else { x || y }));
                    pc += 1;
                    continue;
                }
                Code::Not { dst, a } => {
                    let x = get!(Bool, *a, 0);
                    set!(*dst, Value::Bool(!x));
                    pc += 1;
                    continue;
                }
                Code::Float { op, dst, a, b } => {
                    let (x, y) = (get!(Float, *a, 0), get!(Float, *b, 1));
                    let v = match op {
                        FloatOp::Add => x + y,
                        FloatOp::Sub => x - y,
                        FloatOp::Mul => x * y,
                        FloatOp::Div => x / y,
                    };
                    set!(*dst, Value::Float(v));
                    pc += 1;
                    continue;
                }
                Code::FloatCmp { op, dst, a, b } => {
                    let (x, y) = (get!(Float, *a, 0), get!(Float, *b, 1));
                    set!(*dst, Value::Bool(op.test(x, y)));
                    pc += 1;
                    continue;
                }
                Code::CharCmp { op, dst, a, b } => {
                    let (x, y) = (get!(Char, *a, 0), get!(Char, *b, 1));
                    set!(*dst, Value::Bool(op.test(x, y)));
                    pc += 1;
                    continue;
                }
                Code::Char2Int { dst, a } => {
                    let c = get!(Char, *a, 0);
                    set!(*dst, Value::Int(i64::from(u32::from(c))));
                    pc += 1;
                    continue;
                }
                Code::Int2Char { dst, a } => {
                    let i = get!(Int, *a, 0);
                    let Some(c) = u32::try_from(i).ok().and_then(char::from_u32) else {
                        fail!(ErrorKind::BadChar(i));
                    };
                    set!(*dst, Value::Char(c));
                    pc += 1;
                    continue;
                }
                Code::Float2Bits { dst, a } => {
                    let x = get!(Float, *a, 0);
                    set!(*dst, Value::Int(x.to_bits() as i64));
                    pc += 1;
                    continue;
                }
                Code::Bits2Float { dst, a } => {
                    let i = get!(Int, *a, 0);
                    set!(*dst, Value::Float(f64::from_bits(i as u64)));
                    pc += 1;
                    continue;
                }
                Code::Print { args } => {
                    for (k, &a) in args.iter().enumerate() {
                        let v = any!(a);
                        if v == Value::Poison {
                            fail!(operand_error(cur, pc, k, a, v, "a value other than undef"));
                        }
                        if k > 0 {
                            self.out.buf.push(' ');
                        }
                        match v {
                            Value::Int(i) => {
                                let _ = write!(self.out, "{i}");
                            }
                            Value::Bool(b) => self.out.buf.push_str(if b { "true" } else { "false" }),
                            Value::Char(c) => self.out.buf.push(c),
                            v => {
                                let _ = write!(self.out, "{v}");
                            }
                        }
                    }
                    self.out.buf.push('\n');
                    if let Err(e) = self.out.check() {
                        fail!(e);
                    }
                    pc += 1;
                    continue;
                }
                Code::Alloc { dst, n, elem } => {
                    let n = get!(Int, *n, 0);
                    if n <= 0 {
                        fail!(ErrorKind::AllocSize(n));
                    }
                    let limit = self.cfg.heap_limit;
                    if n as u64 > (limit - self.heap.live_cells.min(limit)) as u64 {
                        fail!(ErrorKind::OutOfMemory { requested: n as u64, limit });
                    }
                    let Ok(alloc) = u32::try_from(self.heap.slots.len()) else {
                        fail!(ErrorKind::OutOfMemory { requested: n as u64, limit });
                    };
                    self.heap.slots.push(HeapSlot::Live(vec![Value::Undef; n as usize]));
                    self.heap.live_allocs += 1;
                    self.heap.live_cells += n as usize;
                    set!(*dst, Value::Ptr(Pointer { alloc, offset: 0, elem: *elem }));
                    pc += 1;
                    continue;
                }
                Code::Free { p } => {
                    let p = get!(Ptr, *p, 0);
                    match self.heap.slots.get_mut(p.alloc as usize) {
                        Some(slot @ HeapSlot::Live(_)) if p.offset == 0 => {
                            if let HeapSlot::Live(cells) = std::mem::replace(slot, HeapSlot::Freed) {
                                self.heap.live_cells -= cells.len();
                            }
                            self.heap.live_allocs -= 1;
                        }
                        Some(HeapSlot::Live(_)) => fail!(ErrorKind::FreeNotAtBase(p.offset)),
                        Some(HeapSlot::Freed) => fail!(ErrorKind::DoubleFree),
                        None => fail!(malformed("free of an allocation that never existed")),
                    }
                    pc += 1;
                    continue;
                }
                Code::Store { p, v } => {
                    let ptr = get!(Ptr, *p, 0);
                    let val = any!(*v);
                    if ptr.elem.is_some_and(|e| val.tag() != Some(e)) {
                        fail!(ErrorKind::TypeMismatch {
                            op: "store".into(),
                            what: "the stored value".into(),
                            expected: ptr.elem.map_or("any", Tag::name).into(),
                            got: val.type_name().into(),
                        });
                    }
                    match self.heap.cells(ptr) {
                        Ok((cells, o)) => cells[o] = val,
                        Err(e) => fail!(e),
                    }
                    pc += 1;
                    continue;
                }
                Code::Load { dst, p } => {
                    let ptr = get!(Ptr, *p, 0);
                    let v = match self.heap.cells(ptr) {
                        Ok((cells, o)) => cells[o],
                        Err(e) => fail!(e),
                    };
                    if v == Value::Undef {
                        fail!(ErrorKind::Uninitialized);
                    }
                    set!(*dst, v);
                    pc += 1;
                    continue;
                }
                Code::PtrAdd { dst, p, n } => {
                    let (ptr, n) = (get!(Ptr, *p, 0), get!(Int, *n, 1));
                    set!(*dst, Value::Ptr(Pointer { offset: ptr.offset.wrapping_add(n), ..ptr }));
                    pc += 1;
                    continue;
                }
                Code::Nop => {
                    pc += 1;
                    continue;
                }
                Code::Jmp { to } => {
                    pc = *to as usize;
                    continue;
                }
                Code::Br { cond, then, els } => {
                    pc = if get!(Bool, *cond, 0) { *then } else { *els } as usize;
                    continue;
                }
                Code::Speculate => {
                    self.spec.push((regs[base..base + cur.nvals].to_vec(), frame_shadows(&mut self.shadow, base, cur.nvals).to_vec()));
                    pc += 1;
                    continue;
                }
                Code::Commit => {
                    if self.spec.is_empty() {
                        fail!(ErrorKind::Speculation("commit outside of speculation".into()));
                    }
                    // brili resolves every open speculation at a `commit`, nested or not; the
                    // lab matches what brili prints.
                    self.spec.clear();
                    pc += 1;
                    continue;
                }
                Code::Guard { cond, cont, fail } => {
                    if get!(Bool, *cond, 0) {
                        pc = *cont as usize;
                        continue;
                    }
                    let Some((saved, shadows)) = self.spec.pop() else {
                        fail!(ErrorKind::Speculation("a guard failed outside of speculation".into()));
                    };
                    regs[base..base + cur.nvals].copy_from_slice(&saved);
                    frame_shadows(&mut self.shadow, base, cur.nvals).copy_from_slice(&shadows);
                    pc = *fail as usize;
                    continue;
                }
                Code::Set { shadow, src } => {
                    let v = any!(*src);
                    frame_shadows(&mut self.shadow, base, cur.nvals)[*shadow as usize] = v;
                    pc += 1;
                    continue;
                }
                Code::Get { dst } => {
                    let v = frame_shadows(&mut self.shadow, base, cur.nvals)[*dst as usize];
                    if v == Value::Undef {
                        fail!(ErrorKind::UnsetShadow(cur.var_name(*dst)));
                    }
                    set!(*dst, v);
                    pc += 1;
                    continue;
                }
                Code::Phis { phis, prev } => {
                    let from = labels[usize::from(*prev)];
                    // Read every argument first: a φ may read another's destination.
                    let mut got: smallvec::SmallVec<[Value; 8]> = smallvec::SmallVec::new();
                    for (dst, args) in phis.iter() {
                        let Some(&(_, src)) = args.iter().find(|(l, _)| *l == from) else {
                            let came = cur.f.blocks.as_slice().get(from as usize).map_or("the function's start".to_string(), |b| format!("`.{}`", b.name));
                            fail!(ErrorKind::Trap(format!("`{}: … = phi` has no argument for {came}, where control came from", cur.var_name(*dst))));
                        };
                        // An argument never assigned leaves the destination unassigned (as
                        // Bril's old `__undefined` did): an error only where it is read.
                        got.push(regs[base + src as usize]);
                    }
                    for ((dst, _), v) in phis.iter().zip(got) {
                        set!(*dst, v);
                    }
                    pc += 1;
                    continue;
                }
                Code::Undef { dst } => {
                    set!(*dst, Value::Poison);
                    pc += 1;
                    continue;
                }
                Code::Trap(kind) => fail!((**kind).clone()),
                Code::Call { .. } | Code::Ret { .. } | Code::End if !self.spec.is_empty() => {
                    let what = match code {
                        Code::Call { .. } => "call",
                        Code::Ret { .. } => "ret",
                        _ => "an implicit return",
                    };
                    fail!(ErrorKind::Speculation(format!("{what} is not allowed during speculation")));
                }
                Code::Call { callee, args, .. } => {
                    if self.frames.len() + 1 >= self.cfg.depth_limit {
                        fail!(ErrorKind::DepthLimit(self.cfg.depth_limit));
                    }
                    let callee_f = &prog.funcs[*callee as usize];
                    if !callee_f.params_ok {
                        fail!(malformed(format!("a parameter of `@{}` is out of range", callee_f.f.name)));
                    }
                    let new_base = base + cur.nvals;
                    let end = new_base + callee_f.nvals;
                    if regs.len() < end {
                        regs.resize(end.max(regs.len() * 2), Value::Undef);
                    }
                    regs[new_base..end].fill(Value::Undef);
                    // Shadows an earlier callee left at these slots are not this frame's.
                    let kept = end.min(self.shadow.len());
                    if new_base < kept {
                        self.shadow[new_base..kept].fill(Value::Undef);
                    }
                    for (k, (&a, &(p, tag))) in args.iter().zip(&callee_f.params).enumerate() {
                        let v = any!(a);
                        if tag.is_some() && v.tag() != tag {
                            fail!(ErrorKind::TypeMismatch {
                                op: format!("call @{}", callee_f.f.name),
                                what: format!("argument {}", k + 1),
                                expected: tag.map_or("?", Tag::name).into(),
                                got: v.type_name().into(),
                            });
                        }
                        regs[new_base + p as usize] = v;
                    }
                    self.frames.push(Frame { func: fi, pc, base, labels });
                    labels = [NO_LABEL; 2];
                    fi = *callee;
                    cur = callee_f;
                    pc = 0;
                    base = new_base;
                    continue;
                }
                Code::Ret { val } => match val {
                    Some(s) => Some(any!(*s)),
                    None => None,
                },
                Code::End => None,
                // Handled before the step count; kept total without a panic path.
                Code::Enter { .. } => {
                    pc += 1;
                    continue;
                }
            };

            // Return from the current function.
            let callee = cur;
            let Some(frame) = self.frames.pop() else {
                self.steps = steps;
                return Ok(ret);
            };
            fi = frame.func;
            cur = &prog.funcs[fi as usize];
            pc = frame.pc;
            base = frame.base;
            labels = frame.labels;
            let Code::Call { dst, .. } = &cur.code[pc] else {
                fail!(malformed("return to an instruction that is not a call"));
            };
            let problem = |p: &str| ErrorKind::BadReturn { func: callee.f.name.clone(), problem: p.into() };
            match (dst, ret) {
                (None, None) if callee.ret.is_some() => fail!(problem("the non-void function returned nothing")),
                (None, None) => {}
                (None, Some(_)) => fail!(problem("a value was returned to a call without destination")),
                (Some(_), None) => fail!(problem("the call expects a value but none was returned")),
                (Some((slot, want)), Some(v)) => {
                    if callee.f.ret.is_none() {
                        fail!(problem("a function without return type used in a value call"));
                    }
                    if want.is_some() && v.tag() != *want || callee.ret.is_some() && v.tag() != callee.ret {
                        fail!(problem("the returned value's type does not match"));
                    }
                    set!(*slot, v);
                }
            }
            pc += 1;
        }
    }
}

/// The error for an operand of the wrong kind: an unassigned variable reads as undefined,
/// anything else is a type mismatch naming the operation and the argument.
#[cold]
fn operand_error(cur: &LFunc<'_>, pc: usize, k: usize, slot: Slot, got: Value, want: &str) -> ErrorKind {
    if got == Value::Undef {
        return ErrorKind::UndefinedVariable(cur.var_name(slot));
    }
    let op = cur.inst_at(pc).map_or_else(|| "instruction".to_string(), |i| i.op.name().to_string());
    ErrorKind::TypeMismatch {
        op,
        what: format!("argument {}", k + 1),
        expected: want.to_ascii_lowercase(),
        got: got.type_name().into(),
    }
}

#[cfg(test)]
mod tests;
