//! SIL interpreter for the integer subset the seeds and Swift's DCE tests use (seed 000's
//! `dead1`…, `test_dce_bbargs`): `integer_literal`, `struct`/`struct_extract`,
//! `tuple`/`tuple_extract`/`destructure_*`, the integer `builtin`s with exact N-bit wrapping and
//! overflow flags, `cond_fail`, `br`/`cond_br` with block arguments, `function_ref` + `apply`
//! (recursion bounded by an explicit frame stack), `return`; the ownership and debugging
//! instructions that do not change a trivial value are no-ops or the identity.
//!
//! Memory (`alloc_stack`, `copy_addr`, `load`/`store`, element and enum-payload addresses)
//! and enums are modelled in [`memory`], so a generic function runs before and after
//! AddressLowering. Everything else — classes, `try_apply` — stops the run with
//! "not modelled: <instruction>" at its span: a run either means what the program means or
//! ends with an error, never a plausible wrong answer.
//!
//! Calling a function that has no body (`sil @take_int32 : $(Int32) -> ()`) is the program's
//! only observable effect besides its result, so such a call is *printed* (`@take_int32(Int32(5))`)
//! and returns `()`; that turns "DCE must keep this apply and its argument" into an output
//! the differential harness compares.

use super::{ErrorKind, InterpError, Output, RunConfig, RunResult};
use crate::diag::Span;
use crate::entity::{EntityRef, EntitySet};
use crate::ir::{BlockId, Function, Imm, Inst, Item, Lang, Module, Op, SilOp, Succ, Type, ValueDef, ValueId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A SIL value. Integers are `Builtin.IntN` bit patterns (stored zero-extended, masked to
/// `bits`); library integers (`Int32`, `Bool`) are structs holding one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SilValue {
    Int { bits: u32, value: u128 },
    Struct { name: Arc<str>, fields: Vec<SilValue> },
    Tuple(Vec<SilValue>),
    Func(Arc<str>),
    /// An enum case with its payload (`Optional.some(5)`).
    Enum { case: Arc<str>, payload: Option<Box<SilValue>> },
    /// The address of a memory cell, or of a part of it (element indices; [`memory::PAYLOAD`]
    /// selects an enum's payload).
    Addr { cell: u32, path: Vec<u32> },
    /// Memory that holds no value: allocated and not yet initialized, or moved out of.
    Uninit,
}

impl SilValue {
    /// `Builtin.IntN` holding `v` wrapped to `bits`.
    pub fn int(bits: u32, v: i128) -> SilValue {
        SilValue::Int { bits, value: (v as u128) & mask(bits) }
    }

    /// A library integer struct such as `Int32` (`bits` = 32) around `Builtin.IntN`.
    pub fn wrapped(name: &str, bits: u32, v: i128) -> SilValue {
        SilValue::Struct { name: name.into(), fields: vec![SilValue::int(bits, v)] }
    }

    pub fn bool(b: bool) -> SilValue {
        SilValue::Struct { name: "Bool".into(), fields: vec![SilValue::int(1, i128::from(b))] }
    }

    pub fn unit() -> SilValue {
        SilValue::Tuple(Vec::new())
    }

    /// The signed value of a builtin integer.
    pub fn as_signed(&self) -> Option<i128> {
        match self {
            SilValue::Int { bits, value } => Some(sext(*value, *bits)),
            _ => None,
        }
    }
}

impl fmt::Display for SilValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SilValue::Int { bits: 1, value } => write!(f, "{value}"),
            SilValue::Int { bits, value } => write!(f, "{}", sext(*value, *bits)),
            SilValue::Struct { name, fields } if &**name == "Bool" && fields.len() == 1 => {
                write!(f, "{}", if fields[0] == SilValue::int(1, 1) { "true" } else { "false" })
            }
            SilValue::Struct { name, fields } => {
                write!(f, "{name}(")?;
                write_list(f, fields)?;
                f.write_str(")")
            }
            SilValue::Tuple(elems) => {
                f.write_str("(")?;
                write_list(f, elems)?;
                f.write_str(")")
            }
            SilValue::Enum { case, payload: Some(p) } => write!(f, "{case}({p})"),
            SilValue::Enum { case, payload: None } => write!(f, "{case}"),
            SilValue::Addr { cell, .. } => write!(f, "<address of cell {cell}>"),
            SilValue::Uninit => f.write_str("<uninitialized>"),
            SilValue::Func(name) => write!(f, "@{name}"),
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, vs: &[SilValue]) -> fmt::Result {
    for (i, v) in vs.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Sign-extends an N-bit pattern.
fn sext(value: u128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return value as i128;
    }
    let shift = 128 - bits;
    ((value << shift) as i128) >> shift
}

/// The run's result together with the returned value itself.
#[derive(Clone, Debug, PartialEq)]
pub struct SilRun {
    pub result: RunResult,
    pub value: Option<SilValue>,
}

/// Runs `function` with arguments parsed from `cfg.args` (see [`parse_arg`]).
pub fn run(module: &Module, function: &str, cfg: &RunConfig) -> RunResult {
    let Some(f) = module.function(function) else {
        return error_only(ErrorKind::UnknownFunction(function.into()), Span::DUMMY);
    };
    let params = f.entry().and_then(|b| f.blocks.get(b)).map_or(&[][..], |b| &b.params[..]);
    if params.len() != cfg.args.len() {
        let kind = ErrorKind::ArgCount { func: function.into(), expected: params.len(), got: cfg.args.len() };
        return error_only(kind, f.span);
    }
    let mut args = Vec::new();
    for (&p, s) in params.iter().zip(&cfg.args) {
        let ty = match f.values.get(p).and_then(|v| v.ty.as_ref()) {
            Some(Type::Sil(t)) => t.as_str(),
            _ => "",
        };
        match parse_arg(ty, s) {
            Ok(v) => args.push(v),
            Err(kind) => return error_only(kind, f.span),
        }
    }
    run_values(module, function, &args, cfg).result
}

fn error_only(kind: ErrorKind, span: Span) -> RunResult {
    RunResult { stdout: String::new(), dyn_inst: 0, returned: None, error: Some(InterpError::new(kind, span)) }
}

/// A command-line argument for a parameter of SIL type `ty` (the text after `$`):
/// `Int`/`Int8…64`/`UInt…` (decimal), `Bool` (`true`/`false`), or `Builtin.IntN`.
pub fn parse_arg(ty: &str, s: &str) -> Result<SilValue, ErrorKind> {
    let ty = ty.trim();
    let bad = |what: &str| ErrorKind::BadArgument(format!("`{s}` is not {what} for `${ty}`"));
    let parse_in = |bits: u32, signed: bool| -> Result<i128, ErrorKind> {
        let v: i128 = s.trim().parse().map_err(|_| bad("an integer"))?;
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < lo || v > hi {
            return Err(bad("in range"));
        }
        Ok(v)
    };
    if ty == "Bool" || ty == "Builtin.Int1" {
        let b = match s.trim() {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(bad("`true` or `false`")),
        };
        return Ok(if ty == "Bool" { SilValue::bool(b) } else { SilValue::int(1, i128::from(b)) });
    }
    if let Some(bits) = builtin_width(ty) {
        if bits > 127 {
            return Err(ErrorKind::BadArgument(format!("`${ty}` arguments are not supported")));
        }
        // Builtin integers have no signedness; accept both readings of the pattern.
        let v: i128 = s.trim().parse().map_err(|_| bad("an integer"))?;
        if v < -(1i128 << (bits - 1)) || v > (1i128 << bits) - 1 {
            return Err(bad("in range"));
        }
        return Ok(SilValue::int(bits, v));
    }
    let (signed, rest) = match ty.strip_prefix('U') {
        Some(r) => (false, r),
        None => (true, ty),
    };
    let bits = match rest {
        "Int" => 64,
        _ => match rest.strip_prefix("Int").and_then(|n| n.parse::<u32>().ok()) {
            Some(b @ (8 | 16 | 32 | 64)) => b,
            _ => return Err(ErrorKind::BadArgument(format!("cannot pass an argument of type `${ty}`"))),
        },
    };
    Ok(SilValue::wrapped(ty, bits, parse_in(bits, signed)?))
}

/// `Builtin.Int32` → 32, `Builtin.Word` → 64.
fn builtin_width(ty: &str) -> Option<u32> {
    let rest = ty.strip_prefix("Builtin.")?;
    if rest == "Word" {
        return Some(64);
    }
    rest.strip_prefix("Int").and_then(|n| n.parse().ok()).filter(|b| (1..=128).contains(b))
}

/// `Int32` in a builtin's name suffix → 32 (`Word` → 64).
fn name_width(t: &str) -> Option<u32> {
    if t == "Word" {
        return Some(64);
    }
    t.strip_prefix("Int").and_then(|n| n.parse().ok()).filter(|b| (1..=128).contains(b))
}

struct Frame {
    func: usize,
    block: BlockId,
    pos: usize,
    vals: Vec<Option<SilValue>>,
}

struct Machine<'m> {
    module: &'m Module,
    by_name: HashMap<&'m str, usize>,
    /// Field names of the struct declarations in the module, for `struct_extract` on
    /// structs with several fields.
    struct_fields: HashMap<String, Vec<String>>,
    out: Output,
    steps: u64,
    cfg: &'m RunConfig,
    /// Per function, the blocks of its layout: a jump checks its target here in O(1)
    /// (`layout.contains` on every executed jump made a run quadratic in the blocks).
    placed: Vec<EntitySet<BlockId>>,
    /// Memory for `alloc_stack` and the addresses lowered SIL passes around.
    mem: memory::Memory,
}

/// Runs `function` on already-built argument values.
pub fn run_values(module: &Module, function: &str, args: &[SilValue], cfg: &RunConfig) -> SilRun {
    if module.lang != Lang::Sil {
        return SilRun { result: error_only(ErrorKind::Malformed("not a SIL module".into()), Span::DUMMY), value: None };
    }
    let mut by_name = HashMap::new();
    for (i, f) in module.functions.iter().enumerate() {
        by_name.entry(f.name.as_str()).or_insert(i);
    }
    let mut m = Machine {
        module,
        by_name,
        struct_fields: struct_fields(module),
        out: Output::new(cfg.output_limit),
        steps: 0,
        cfg,
        placed: module
            .functions
            .iter()
            .map(|f| {
                let mut set = EntitySet::new_empty(f.blocks.len());
                for &b in &f.layout {
                    if b.index() < f.blocks.len() {
                        set.insert(b);
                    }
                }
                set
            })
            .collect(),
        mem: memory::Memory::default(),
    };
    let (value, error) = match m.execute(function, args) {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    SilRun {
        result: RunResult {
            stdout: m.out.buf,
            dyn_inst: m.steps,
            returned: value.as_ref().map(ToString::to_string),
            error,
        },
        value,
    }
}

/// `struct Name { var a: T; let b: U }` in the module's verbatim items → `Name: [a, b]`.
fn struct_fields(module: &Module) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for item in &module.items {
        let Item::Raw { text, .. } = item else { continue };
        let mut rest = text.as_str();
        while let Some(i) = rest.find("struct ") {
            rest = &rest[i + 7..];
            let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else { break };
            if open > close {
                continue;
            }
            let body = &rest[open + 1..close];
            let fields = body
                .split(['\n', ';'])
                .filter_map(|l| {
                    let l = l.trim();
                    let l = l.strip_prefix("var ").or_else(|| l.strip_prefix("let "))?;
                    Some(l.split(':').next()?.trim().to_string())
                })
                .collect();
            out.insert(name, fields);
            rest = &rest[close..];
        }
    }
    out
}

fn malformed(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Malformed(msg.into())
}

impl<'m> Machine<'m> {
    fn execute(&mut self, function: &str, args: &[SilValue]) -> Result<SilValue, InterpError> {
        let Some(&fi) = self.by_name.get(function) else {
            return Err(InterpError::new(ErrorKind::UnknownFunction(function.into()), Span::DUMMY));
        };
        let mut stack = Vec::new();
        let f = &self.module.functions[fi];
        stack.push(self.enter(fi, args).map_err(|k| InterpError::new(k, f.span))?);
        loop {
            let Some(frame) = stack.last_mut() else {
                return Err(InterpError::new(malformed("empty frame stack"), Span::DUMMY));
            };
            let f = &self.module.functions[frame.func];
            let (iid, inst) = match current(f, frame) {
                Ok(x) => x,
                Err(k) => return Err(InterpError::new(k, f.blocks.get(frame.block).map_or(f.span, |b| b.span))),
            };
            let span = inst.span;
            let fail = |k: ErrorKind| InterpError::new(k, span);
            if self.steps >= self.cfg.step_limit {
                return Err(fail(ErrorKind::StepLimit(self.cfg.step_limit)));
            }
            self.steps += 1;
            match self.step(f, frame, iid, inst).map_err(fail)? {
                Next::Continue => {}
                Next::Call(callee, call_args) => {
                    if stack.len() >= self.cfg.depth_limit {
                        return Err(fail(ErrorKind::DepthLimit(self.cfg.depth_limit)));
                    }
                    let new = self.enter(callee, &call_args).map_err(fail)?;
                    stack.push(new);
                }
                Next::Return(v) => {
                    stack.pop();
                    let Some(caller) = stack.last_mut() else { return Ok(v) };
                    let cf = &self.module.functions[caller.func];
                    let (_, apply) = current(cf, caller).map_err(|k| InterpError::new(k, span))?;
                    let apply_span = apply.span;
                    set_results(caller, apply, vec![v]).map_err(|k| InterpError::new(k, apply_span))?;
                    caller.pos += 1;
                }
            }
        }
    }

    /// A new frame for `fi` with its entry block's parameters bound to `args`.
    fn enter(&self, fi: usize, args: &[SilValue]) -> Result<Frame, ErrorKind> {
        let f = &self.module.functions[fi];
        let Some(entry) = f.entry() else {
            return Err(ErrorKind::NotModelled(format!("call of `@{}`, which has no body", f.name)));
        };
        let mut frame = Frame { func: fi, block: entry, pos: 0, vals: vec![None; f.values.len()] };
        bind_params(f, &mut frame, entry, args.iter().cloned().map(Some).collect())?;
        Ok(frame)
    }

    fn step(&mut self, f: &Function, frame: &mut Frame, _iid: crate::ir::InstId, inst: &Inst) -> Result<Next, ErrorKind> {
        let Op::Sil(op) = &inst.op else {
            return Err(malformed(format!("Bril instruction `{}` in a SIL function", inst.op)));
        };
        let arg = |k: usize| -> Result<SilValue, ErrorKind> {
            let v = *inst.args.get(k).ok_or_else(|| malformed(format!("`{op}` is missing operand {k}")))?;
            read(f, frame, v)
        };
        let nargs = |n: usize| -> Result<(), ErrorKind> {
            if inst.args.len() == n {
                Ok(())
            } else {
                Err(malformed(format!("`{op}` takes {n} operand(s), has {}", inst.args.len())))
            }
        };
        let result = match op {
            SilOp::IntegerLiteral => {
                let bits = match &inst.ty {
                    Some(Type::Sil(t)) => builtin_width(t),
                    _ => None,
                }
                .ok_or_else(|| ErrorKind::NotModelled(format!("integer_literal of type {:?}", inst.ty)))?;
                let Imm::Int(v) = inst.imm else { return Err(malformed("integer_literal without a value")) };
                vec![SilValue::int(bits, v)]
            }
            SilOp::Struct => {
                let name: Arc<str> = match &inst.ty {
                    Some(Type::Sil(t)) => t.as_str().into(),
                    _ => "?".into(),
                };
                let fields = (0..inst.args.len()).map(arg).collect::<Result<_, _>>()?;
                vec![SilValue::Struct { name, fields }]
            }
            SilOp::StructExtract => {
                nargs(1)?;
                let SilValue::Struct { name, mut fields } = arg(0)? else {
                    return Err(malformed("struct_extract of a value that is not a struct"));
                };
                let field = match &inst.imm {
                    Imm::Name(n) => n.trim_start_matches('#'),
                    _ => return Err(malformed("struct_extract without a field")),
                };
                let k = if fields.len() == 1 {
                    0
                } else {
                    let fname = field.rsplit('.').next().unwrap_or(field);
                    self.struct_fields
                        .get(name.split('<').next().unwrap_or(&name).trim())
                        .and_then(|fs| fs.iter().position(|x| x == fname))
                        .filter(|&k| k < fields.len())
                        .ok_or_else(|| ErrorKind::NotModelled(format!("field `{field}` of struct `{name}`")))?
                };
                vec![fields.swap_remove(k)]
            }
            SilOp::Tuple => vec![SilValue::Tuple((0..inst.args.len()).map(arg).collect::<Result<_, _>>()?)],
            SilOp::TupleExtract => {
                nargs(1)?;
                let SilValue::Tuple(mut elems) = arg(0)? else {
                    return Err(malformed("tuple_extract of a value that is not a tuple"));
                };
                let Imm::Index(i) = inst.imm else { return Err(malformed("tuple_extract without an index")) };
                if i as usize >= elems.len() {
                    return Err(malformed(format!("tuple_extract of element {i} of a {}-tuple", elems.len())));
                }
                vec![elems.swap_remove(i as usize)]
            }
            SilOp::DestructureTuple | SilOp::DestructureStruct => {
                nargs(1)?;
                match arg(0)? {
                    SilValue::Tuple(es) | SilValue::Struct { fields: es, .. } => es,
                    _ => return Err(malformed(format!("`{op}` of a value without elements"))),
                }
            }
            SilOp::Builtin => {
                let Imm::Name(name) = &inst.imm else { return Err(malformed("builtin without a name")) };
                let args = (0..inst.args.len()).map(arg).collect::<Result<Vec<_>, _>>()?;
                vec![builtin(name, &args)?]
            }
            SilOp::FunctionRef => {
                let [name] = inst.funcs.as_slice() else { return Err(malformed("function_ref without a function")) };
                vec![SilValue::Func(name.as_str().into())]
            }
            SilOp::Apply => {
                if !inst.args.is_empty() && matches!(f.values.get(inst.args[0]).map(|v| v.def), Some(ValueDef::Undef)) {
                    return Err(ErrorKind::NotModelled("apply of `undef`".into()));
                }
                let SilValue::Func(name) = arg(0)? else {
                    return Err(ErrorKind::NotModelled("apply of a value that is not a function_ref".into()));
                };
                let call_args = (1..inst.args.len()).map(arg).collect::<Result<Vec<_>, _>>()?;
                let Some(&callee) = self.by_name.get(&*name) else {
                    return Err(ErrorKind::UnknownFunction(name.to_string()));
                };
                if !self.module.functions[callee].is_declaration() {
                    return Ok(Next::Call(callee, call_args));
                }
                self.external_call(&name, &call_args, inst)?
            }
            SilOp::CondFail => {
                if inst.args.is_empty() {
                    return Err(malformed("cond_fail without a condition"));
                }
                match arg(0)? {
                    SilValue::Int { bits: 1, value } => {
                        if value == 1 {
                            return Err(ErrorKind::CondFail);
                        }
                    }
                    _ => return Err(malformed("cond_fail of a value that is not a Builtin.Int1")),
                }
                Vec::new()
            }
            SilOp::DebugValue | SilOp::FixLifetime | SilOp::EndBorrow | SilOp::DestroyValue | SilOp::EndLifetime => {
                if !inst.results.is_empty() {
                    return Err(malformed(format!("`{op}` has no result")));
                }
                Vec::new()
            }
            // On the values this interpreter can hold (integers, structs and tuples of them),
            // ownership operations are the identity.
            SilOp::CopyValue | SilOp::MoveValue | SilOp::BeginBorrow => {
                nargs(1)?;
                vec![arg(0)?]
            }
            SilOp::Br => {
                let [succ] = inst.succs.as_slice() else { return Err(malformed("br needs one successor")) };
                self.jump(f, frame, succ)?;
                return Ok(Next::Continue);
            }
            SilOp::CondBr => {
                let [t, e] = inst.succs.as_slice() else { return Err(malformed("cond_br needs two successors")) };
                let cond = match arg(0)? {
                    SilValue::Int { bits: 1, value } => value == 1,
                    _ => return Err(malformed("cond_br on a value that is not a Builtin.Int1")),
                };
                self.jump(f, frame, if cond { t } else { e })?;
                return Ok(Next::Continue);
            }
            SilOp::Return => {
                let v = if inst.args.is_empty() { SilValue::unit() } else { arg(0)? };
                return Ok(Next::Return(v));
            }
            SilOp::Unreachable => return Err(ErrorKind::Trap("unreachable executed".into())),
            other => match self.memory_step(f, frame, inst, other)? {
                Some(vals) => vals,
                // It branched.
                None => return Ok(Next::Continue),
            },
        };
        set_results(frame, inst, result)?;
        frame.pos += 1;
        Ok(Next::Continue)
    }

    /// A call of a function without body: printed, as it is the program's observable effect.
    fn external_call(&mut self, name: &str, args: &[SilValue], inst: &Inst) -> Result<Vec<SilValue>, ErrorKind> {
        let returns_unit = match &inst.ty {
            Some(Type::Sil(t)) => t.trim_end().ends_with("-> ()"),
            _ => false,
        };
        if !returns_unit {
            return Err(ErrorKind::NotModelled(format!("call of `@{name}`, which has no body and returns a value")));
        }
        use fmt::Write as _;
        let _ = write!(self.out, "@{name}(");
        for (i, a) in args.iter().enumerate() {
            let _ = write!(self.out, "{}{a}", if i > 0 { ", " } else { "" });
        }
        self.out.buf.push_str(")\n");
        self.out.check()?;
        Ok(if inst.results.is_empty() { Vec::new() } else { vec![SilValue::unit()] })
    }

    fn jump(&self, f: &Function, frame: &mut Frame, succ: &Succ) -> Result<(), ErrorKind> {
        if !self.placed.get(frame.func).is_some_and(|p| p.contains(succ.block)) {
            return Err(malformed(format!("branch to {}, which is not in the layout", succ.block)));
        }
        // Read every argument before binding any parameter: `br bb1(%b, %a)` swaps.
        let vals = succ.args.iter().map(|&v| read_arg(f, frame, v)).collect::<Result<Vec<_>, _>>()?;
        bind_params(f, frame, succ.block, vals)?;
        frame.block = succ.block;
        frame.pos = 0;
        Ok(())
    }
}

enum Next {
    Continue,
    Call(usize, Vec<SilValue>),
    Return(SilValue),
}

/// The instruction at the frame's position (the terminator after the body).
fn current<'f>(f: &'f Function, frame: &Frame) -> Result<(crate::ir::InstId, &'f Inst), ErrorKind> {
    let block = f.blocks.get(frame.block).ok_or_else(|| malformed(format!("missing block {}", frame.block)))?;
    let iid = match block.insts.get(frame.pos) {
        Some(&i) => i,
        None if frame.pos == block.insts.len() => {
            block.term.ok_or_else(|| malformed(format!("block `{}` has no terminator", block.name)))?
        }
        None => return Err(malformed("ran past the end of a block")),
    };
    let inst = f.insts.get(iid).ok_or_else(|| malformed(format!("missing instruction {iid}")))?;
    Ok((iid, inst))
}

fn read(f: &Function, frame: &Frame, v: ValueId) -> Result<SilValue, ErrorKind> {
    let data = f.values.get(v).ok_or_else(|| malformed(format!("operand {v} out of range")))?;
    match read_arg(f, frame, v)? {
        Some(x) => Ok(x),
        None if matches!(data.def, ValueDef::Undef | ValueDef::Param { .. }) => {
            Err(ErrorKind::UndefinedVariable("undef".into()))
        }
        None => Err(ErrorKind::UndefinedVariable(format!("%{}", data.name))),
    }
}

/// A branch argument: `undef` (and a parameter that was bound to `undef`) passes along as
/// "no value" — DCE sends `undef` to dead block arguments, which is fine until something
/// reads them (then [`read`] reports the use of `undef`).
fn read_arg(f: &Function, frame: &Frame, v: ValueId) -> Result<Option<SilValue>, ErrorKind> {
    let data = f.values.get(v).ok_or_else(|| malformed(format!("operand {v} out of range")))?;
    if data.def == ValueDef::Undef {
        return Ok(None);
    }
    Ok(frame.vals.get(v.index()).cloned().flatten())
}

fn bind_params(f: &Function, frame: &mut Frame, b: BlockId, vals: Vec<Option<SilValue>>) -> Result<(), ErrorKind> {
    let block = f.blocks.get(b).ok_or_else(|| malformed(format!("missing block {b}")))?;
    if block.params.len() != vals.len() {
        return Err(malformed(format!(
            "block `{}` takes {} argument(s), got {}",
            block.name,
            block.params.len(),
            vals.len()
        )));
    }
    for (&p, v) in block.params.iter().zip(vals) {
        let slot = frame.vals.get_mut(p.index()).ok_or_else(|| malformed(format!("parameter {p} out of range")))?;
        *slot = v;
    }
    Ok(())
}

fn set_results(frame: &mut Frame, inst: &Inst, vals: Vec<SilValue>) -> Result<(), ErrorKind> {
    if inst.results.len() != vals.len() {
        return Err(malformed(format!(
            "`{}` produces {} value(s) but names {} result(s)",
            inst.op,
            vals.len(),
            inst.results.len()
        )));
    }
    for (&r, v) in inst.results.iter().zip(vals) {
        let slot = frame.vals.get_mut(r.index()).ok_or_else(|| malformed(format!("result {r} out of range")))?;
        *slot = Some(v);
    }
    Ok(())
}

/// Evaluates an integer builtin. Operations LLVM leaves undefined (division by zero, signed
/// division overflow, over-wide shifts) stop the run instead of picking a value.
fn builtin(name: &str, args: &[SilValue]) -> Result<SilValue, ErrorKind> {
    let unknown = || ErrorKind::NotModelled(format!("builtin \"{name}\""));
    if name == "int_trap" {
        return Err(ErrorKind::Trap("int_trap".into()));
    }
    // Split `op_Int32` / `op_Int64_Int32` at the first type suffix.
    let parts: Vec<&str> = name.split('_').collect();
    let first_ty = parts.iter().position(|p| name_width(p).is_some()).ok_or_else(unknown)?;
    let opname = parts[..first_ty].join("_");
    let widths: Vec<u32> = parts[first_ty..].iter().map(|p| name_width(p)).collect::<Option<_>>().ok_or_else(unknown)?;
    let ints: Vec<(u32, u128)> = args
        .iter()
        .map(|a| match a {
            SilValue::Int { bits, value } => Ok((*bits, *value)),
            _ => Err(malformed(format!("builtin \"{name}\" on a value that is not a builtin integer"))),
        })
        .collect::<Result<_, _>>()?;
    let n = widths[0];
    let operands = |count: usize| -> Result<Vec<u128>, ErrorKind> {
        // Overflow builtins carry a third Int1 operand (whether to check); it does not change
        // the result.
        if ints.len() < count || ints[..count].iter().any(|&(b, _)| b != n) {
            return Err(malformed(format!("builtin \"{name}\" needs {count} Builtin.Int{n} operand(s)")));
        }
        Ok(ints[..count].iter().map(|&(_, v)| v).collect())
    };
    let m = mask(n);
    let (lo, hi) = if n >= 128 { (i128::MIN, i128::MAX) } else { (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1) };
    let int = |v: u128| SilValue::Int { bits: n, value: v & m };
    let flag = |b: bool| SilValue::int(1, i128::from(b));
    let with_flag = |v: u128, o: bool| SilValue::Tuple(vec![int(v), flag(o)]);

    if widths.len() == 2 {
        let to = widths[1];
        let [(b, v)] = ints[..] else { return Err(malformed(format!("builtin \"{name}\" takes one operand"))) };
        if b != n {
            return Err(malformed(format!("builtin \"{name}\" on a Builtin.Int{b}")));
        }
        let r = match opname.as_str() {
            "trunc" | "truncOrBitCast" if to <= n => v & mask(to),
            "zext" | "zextOrBitCast" if to >= n => v,
            "sext" | "sextOrBitCast" if to >= n => (sext(v, n) as u128) & mask(to),
            _ => return Err(unknown()),
        };
        return Ok(SilValue::Int { bits: to, value: r });
    }
    if widths.len() != 1 {
        return Err(unknown());
    }
    if let Some(pred) = opname.strip_prefix("cmp_") {
        let v = operands(2)?;
        let (a, b) = (v[0], v[1]);
        let (sa, sb) = (sext(a, n), sext(b, n));
        let r = match pred {
            "eq" => a == b,
            "ne" => a != b,
            "slt" => sa < sb,
            "sle" => sa <= sb,
            "sgt" => sa > sb,
            "sge" => sa >= sb,
            "ult" => a < b,
            "ule" => a <= b,
            "ugt" => a > b,
            "uge" => a >= b,
            _ => return Err(unknown()),
        };
        return Ok(flag(r));
    }
    let in_range = |r: Option<i128>| r.filter(|r| (lo..=hi).contains(r));
    let v = operands(2)?;
    let (a, b) = (v[0], v[1]);
    let (sa, sb) = (sext(a, n), sext(b, n));
    Ok(match opname.as_str() {
        "add" => int(a.wrapping_add(b)),
        "sub" => int(a.wrapping_sub(b)),
        "mul" => int(a.wrapping_mul(b)),
        "and" => int(a & b),
        "or" => int(a | b),
        "xor" => int(a ^ b),
        "shl" | "lshr" | "ashr" => {
            if b >= u128::from(n) {
                return Err(ErrorKind::Trap(format!("builtin \"{name}\": shift by {b} is out of range")));
            }
            let s = b as u32;
            match opname.as_str() {
                "shl" => int(a << s),
                "lshr" => int(a >> s),
                _ => int((sa >> s) as u128),
            }
        }
        "sdiv" | "srem" | "udiv" | "urem" => {
            if b == 0 {
                return Err(ErrorKind::DivisionByZero);
            }
            if opname.starts_with('s') && sa == lo && sb == -1 {
                return Err(ErrorKind::Trap(format!("builtin \"{name}\": signed division overflow")));
            }
            match opname.as_str() {
                "sdiv" => int(sa.wrapping_div(sb) as u128),
                "srem" => int(sa.wrapping_rem(sb) as u128),
                "udiv" => int(a / b),
                _ => int(a % b),
            }
        }
        "sadd_with_overflow" => with_flag(a.wrapping_add(b), in_range(sa.checked_add(sb)).is_none()),
        "ssub_with_overflow" => with_flag(a.wrapping_sub(b), in_range(sa.checked_sub(sb)).is_none()),
        "smul_with_overflow" => with_flag(a.wrapping_mul(b), in_range(sa.checked_mul(sb)).is_none()),
        "uadd_with_overflow" => with_flag(a.wrapping_add(b), a.checked_add(b).is_none_or(|r| r > m)),
        "usub_with_overflow" => with_flag(a.wrapping_sub(b), a < b),
        "umul_with_overflow" => with_flag(a.wrapping_mul(b), a.checked_mul(b).is_none_or(|r| r > m)),
        _ => return Err(unknown()),
    })
}

mod memory;

#[cfg(test)]
mod tests;
