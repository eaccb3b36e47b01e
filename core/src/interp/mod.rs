//! Interpreters: the semantic safety net under every pass.
//!
//! A pass is only trusted if the program prints the same thing before and after it, so both
//! interpreters are written to *refuse* rather than guess: every run is bounded (steps, call
//! depth, heap cells, output bytes), every malformed or unsupported construct stops with an
//! error that carries the instruction's span, and no input — however broken the IR a buggy
//! pass produced — makes them panic or recurse on the native stack.
//!
//! - [`bril`] runs Bril (core, float incl. `float2bits`/`bits2float`, memory, char) with the output format and dynamic
//!   instruction count of the reference interpreter `brili -p`.
//! - [`sil`] runs the integer subset of SIL that the seeds and Swift's DCE tests use.
//!
//! The differential harness that compares two runs lives in [`crate::testgen`].

pub mod bril;
pub mod sil;

use crate::diag::{Diagnostic, SourceFile, Span};
use std::fmt;

/// Enough for the longest corpus benchmark (`mixed/brilirs-only/montecarlo.bril`, about 110
/// million instructions) with room to spare, yet it stops a runaway loop within seconds.
pub const DEFAULT_STEP_LIMIT: u64 = 250_000_000;
/// Frames live on an explicit stack, so this bounds memory, not the native stack.
pub const DEFAULT_DEPTH_LIMIT: usize = 100_000;
/// Live Bril heap cells; a stray `alloc` of a huge count must fail, not exhaust memory.
pub const DEFAULT_HEAP_LIMIT: usize = 1 << 24;
/// Printed bytes; a printing infinite loop must not fill memory before the step limit hits.
pub const DEFAULT_OUTPUT_LIMIT: usize = 64 << 20;

/// How to run a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// Arguments of the entry function, as on brili's command line (`5`, `2.5`, `true`, `a`).
    pub args: Vec<String>,
    /// Executed instructions allowed before the run stops with [`ErrorKind::StepLimit`].
    pub step_limit: u64,
    /// Nested calls allowed (the entry function is depth 1).
    pub depth_limit: usize,
    /// Live heap cells allowed (Bril memory extension).
    pub heap_limit: usize,
    /// Output bytes allowed.
    pub output_limit: usize,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            args: Vec::new(),
            step_limit: DEFAULT_STEP_LIMIT,
            depth_limit: DEFAULT_DEPTH_LIMIT,
            heap_limit: DEFAULT_HEAP_LIMIT,
            output_limit: DEFAULT_OUTPUT_LIMIT,
        }
    }
}

impl RunConfig {
    /// The default limits with the given entry arguments.
    pub fn with_args<S: Into<String>>(args: impl IntoIterator<Item = S>) -> Self {
        RunConfig { args: args.into_iter().map(Into::into).collect(), ..RunConfig::default() }
    }
}

/// What a run produced. Errors do not discard output: the page shows what was printed up to
/// the failing instruction, as a terminal would.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Everything printed (Bril `print`; for SIL, one line per call of an external function).
    pub stdout: String,
    /// Executed instructions, counted as `brili -p` counts them (labels excluded, every
    /// executed instruction including terminators, `const` and `nop` included).
    pub dyn_inst: u64,
    /// The entry function's return value, formatted, when it returned one.
    pub returned: Option<String>,
    pub error: Option<InterpError>,
}

impl RunResult {
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }

    /// The error as a compiler-style message (`FILE:LINE:COL: error: …`), if any.
    pub fn render_error(&self, file: &SourceFile) -> Option<String> {
        self.error.as_ref().map(|e| Diagnostic::from(e.clone()).render(file))
    }
}

/// A run-time error and where it happened.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct InterpError {
    pub kind: ErrorKind,
    /// The failing instruction's span (`Span::DUMMY` for instructions a pass synthesised and
    /// for errors not tied to one instruction, such as bad entry arguments).
    pub span: Span,
}

impl InterpError {
    pub fn new(kind: ErrorKind, span: Span) -> Self {
        InterpError { kind, span }
    }
}

impl From<InterpError> for Diagnostic {
    fn from(e: InterpError) -> Diagnostic {
        Diagnostic::error(e.span, e.kind.to_string())
    }
}

/// What went wrong. Two runs "fail the same way" when their kinds are equal, so a kind holds
/// only what a correct transformation preserves (names and counts, never spans or ids).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("division by zero")]
    DivisionByZero,
    #[error("undefined variable `{0}`")]
    UndefinedVariable(String),
    #[error("no function named `@{0}`")]
    UnknownFunction(String),
    #[error("no `main` function to run")]
    NoMain,
    #[error("`@{func}` expects {expected} argument(s), got {got}")]
    ArgCount { func: String, expected: usize, got: usize },
    #[error("{op}: {what} must be {expected}, got {got}")]
    TypeMismatch { op: String, what: String, expected: String, got: String },
    #[error("call of `@{func}`: {problem}")]
    BadReturn { func: String, problem: String },
    #[error("bad argument for the entry function: {0}")]
    BadArgument(String),
    #[error("cannot allocate {0} cells: the count must be positive")]
    AllocSize(i64),
    #[error("out of memory: allocating {requested} cells exceeds the heap limit of {limit}")]
    OutOfMemory { requested: u64, limit: usize },
    #[error("use of freed memory")]
    UseAfterFree,
    #[error("double free")]
    DoubleFree,
    #[error("free of a pointer {0} cells past the start of its allocation")]
    FreeNotAtBase(i64),
    #[error("out-of-bounds access: offset {offset} in an allocation of {size} cells")]
    OutOfBounds { offset: i64, size: usize },
    #[error("load of uninitialized memory")]
    Uninitialized,
    /// The wording is brili's, so scripts that grep for it keep working.
    #[error("Some memory locations have not been freed by end of execution.")]
    Leak { allocations: usize },
    #[error("value {0} cannot be converted to char")]
    BadChar(i64),
    #[error("step limit reached: more than {0} instructions executed")]
    StepLimit(u64),
    #[error("call depth limit of {0} reached")]
    DepthLimit(usize),
    #[error("output limit of {0} bytes reached")]
    OutputLimit(usize),
    #[error("cond_fail: overflow/trap")]
    CondFail,
    #[error("{0}")]
    Trap(String),
    /// SSA form: a `get` of a shadow variable no `set` has written.
    #[error("`{0}: … = get` reads a shadow variable no `set` has written")]
    UnsetShadow(String),
    /// Speculation misused: `commit` or a failing `guard` with nothing to resolve, or a call
    /// or return while a speculation is open (brili refuses both).
    #[error("{0}")]
    Speculation(String),
    #[error("not modelled: {0}")]
    NotModelled(String),
    #[error("malformed IR: {0}")]
    Malformed(String),
}

impl ErrorKind {
    /// Whether the run was cut short by a resource bound rather than by the program: such a
    /// run says nothing about the program's behaviour.
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            ErrorKind::StepLimit(_)
                | ErrorKind::DepthLimit(_)
                | ErrorKind::OutputLimit(_)
                | ErrorKind::OutOfMemory { .. }
        )
    }
}

/// Formats a float exactly as brili prints it: 17 digits after the point, switching to
/// exponent form (`toExponential(17)`) outside `(1e-10, 1e10)`, and JavaScript's spellings of
/// the special values.
///
/// Rust's `{:.17}`/`{:.17e}` expand the exact binary value as JavaScript does, but break an
/// exact tie to even where JavaScript rounds it away from zero; ties are frequent (any value
/// whose lowest set bit is 2^-18 ties in fixed form), so they are detected and redone.
pub fn format_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    let a = v.abs();
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if a != 0.0 && !(1e-10 < a && a < 1e10) {
        return format!("{sign}{}", exponent_form(a));
    }
    // In fixed form a tie needs exactly 18 fractional digits: lowest set bit 2^-18.
    let bits = a.to_bits();
    let (mant, exp) = (bits & ((1 << 52) - 1) | (1 << 52), ((bits >> 52) & 0x7ff) as i32 - 1075);
    if a != 0.0 && exp + mant.trailing_zeros() as i32 == -18 {
        let exact = format!("{a:.18}");
        return format!("{sign}{}", increment_last_digit(&exact[..exact.len() - 1]));
    }
    format!("{v:.17}")
}

/// `toExponential(17)` of a positive finite value, ties away from zero.
fn exponent_form(a: f64) -> String {
    // 800 digits hold any double's exact expansion (at most 767 significant digits).
    let exact = format!("{a:.800e}");
    let (mantissa, exp) = exact.split_once('e').unwrap_or((&exact, "0"));
    let mut exp: i32 = exp.parse().unwrap_or(0);
    let (kept, rest) = mantissa.split_at(19.min(mantissa.len()));
    let rounded = if rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0') {
        increment_last_digit(kept)
    } else {
        let s = format!("{a:.17e}");
        return with_sign_of_exponent(&s);
    };
    // A carry out of the leading digit (9.99…95 → 10.00…0) renormalises.
    let rounded = if rounded.starts_with("10") {
        exp += 1;
        // "10.000…0" (17 zeros after the point) → "1." and 17 zeros.
        format!("1.{}", &rounded.replace('.', "")[2..19])
    } else {
        rounded
    };
    with_sign_of_exponent(&format!("{rounded}e{exp}"))
}

/// JavaScript writes `e+5` where Rust writes `e5`.
fn with_sign_of_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s.to_string(),
    }
}

/// Adds one unit in the last place to a decimal string of digits and at most one point.
fn increment_last_digit(s: &str) -> String {
    let mut b = s.as_bytes().to_vec();
    let mut i = b.len();
    while i > 0 {
        i -= 1;
        match b[i] {
            b'.' => continue,
            b'9' => b[i] = b'0',
            d => {
                b[i] = d + 1;
                return String::from_utf8(b).unwrap_or_default();
            }
        }
    }
    let mut out = String::from("1");
    out.push_str(&String::from_utf8(b).unwrap_or_default());
    out
}

/// A writer that enforces the output limit; formatting numbers goes straight into the buffer.
pub(crate) struct Output {
    pub buf: String,
    limit: usize,
}

impl Output {
    pub fn new(limit: usize) -> Self {
        Output { buf: String::new(), limit }
    }

    /// Fails once the buffer is past the limit, so a print loop stops promptly.
    pub fn check(&self) -> Result<(), ErrorKind> {
        if self.buf.len() > self.limit {
            Err(ErrorKind::OutputLimit(self.limit))
        } else {
            Ok(())
        }
    }
}

impl fmt::Write for Output {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.buf.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_brili() {
        assert_eq!(format_float(5.0), "5.00000000000000000");
        assert_eq!(format_float(7.0 / 3.0), "2.33333333333333348");
        assert_eq!(format_float(-0.0), "-0.00000000000000000");
        assert_eq!(format_float(0.0), "0.00000000000000000");
        assert_eq!(format_float(f64::INFINITY), "Infinity");
        assert_eq!(format_float(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(format_float(f64::NAN), "NaN");
        assert_eq!(format_float(3.083_945_934_529_577e53), "3.08394593452957709e+53");
        assert_eq!(format_float(1e10), "1.00000000000000000e+10");
        assert_eq!(format_float(1.5e-11), "1.49999999999999999e-11");
        assert_eq!(format_float("-14.078016162957063".parse().unwrap()), "-14.07801616295706282");
        // Exact ties round away from zero, as JavaScript's toFixed/toExponential do.
        // 7654640481 + 86265/2^18 = 7654640481.329074859619140625 exactly.
        assert_eq!(format_float(7_654_640_481.0 + 86_265.0 / 262_144.0), "7654640481.32907485961914063");
        assert_eq!(format_float(-0.000_003_814_697_265_625), "-0.00000381469726563");
        assert_eq!(format_float(1.5 * (1u64 << 60) as f64), "1.72938225691027046e+18");
    }

    #[test]
    fn errors_become_diagnostics_at_their_span() {
        let f = SourceFile::new("p.bril", "@main {\n  x: int = div a b;\n}\n");
        let lo = f.text.find("x:").unwrap();
        let e = InterpError::new(ErrorKind::DivisionByZero, Span::new(lo, lo + 17));
        let d = Diagnostic::from(e);
        assert!(d.render(&f).starts_with("p.bril:2:3: error: division by zero"));
    }
}
