//! The passes, behind one contract, so that a new pass is one module here and one view in
//! the web app.
//!
//! A pass says who it is ([`PassInfo`]: slug, name, source, the languages it accepts and why
//! it refuses the others) and runs on one function given the shared [`Analyses`] of that
//! function and the [`Options`]. [`run`] wraps every pass the same way: a language the pass
//! does not accept and a function that fails [`crate::ir::verify`] are refused with a message
//! for users; the output is verified, and a pass that breaks its function is reported as a
//! bug ([`Outcome::Failed`]) with the input returned — never a silently wrong program. What a
//! pass returns ([`PassRun`]) is the same for all: the function, the pass's own result
//! ([`Detail`]: its trace and what its view needs), counts for a summary line and its steps
//! (one sentence each, computed here in core; the state at step `k` comes from the pass's
//! own replay).
//!
//! [`REGISTRY`] lists the passes in the order users see them; the CLI's subcommands, the web
//! app's tabs and its pipeline picker are built from it. [`pipeline`] runs a list of them.

pub mod address_lowering;
pub mod analyses;
pub mod copyprop;
pub mod dce;
pub mod lcm;
pub mod lvn;
pub mod mem2reg;
pub mod out_of_ssa;
pub mod pipeline;
pub mod ssa;

pub use analyses::Analyses;

use crate::ir::{verify, Function, Lang};
use crate::steps::Steps;
use serde::Serialize;
use std::sync::Arc;

/// What users see of a pass.
#[derive(Debug)]
pub struct PassInfo {
    /// The name in links, pipelines (`lcm,copyprop,dce`) and CLI subcommands.
    pub slug: &'static str,
    /// Short, for a tab or a pipeline chip: `DCE`.
    pub title: &'static str,
    /// The algorithm and its source: "Aggressive dead code elimination (Swift's DCE)".
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    pub langs: &'static [Lang],
    /// Why the pass refuses the languages it does not accept (completes "`@f` is SIL: …").
    pub refusal: &'static str,
    /// Whether the pass may add, remove or retarget CFG edges. Such a pass is not run on a
    /// function in Bril's classic SSA form: a `phi`'s labels name the predecessors it chooses
    /// between, and after the pass they would name the wrong ones.
    pub edits_edges: bool,
}

impl PassInfo {
    pub fn accepts(&self, lang: Lang) -> bool {
        self.langs.contains(&lang)
    }

    /// The languages, for messages: `Bril`, `SIL and Bril`.
    pub fn lang_names(&self) -> String {
        let names: Vec<&str> = self.langs.iter().map(|l| lang_name(*l)).collect();
        names.join(" and ")
    }
}

fn lang_name(l: Lang) -> &'static str {
    match l {
        Lang::Bril => "Bril",
        Lang::Sil => "SIL",
    }
}

/// Options of the passes that have any (one struct, so a pipeline passes them along).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// LCM: treat `add b a` as `add a b` for commutative operations.
    pub commute: bool,
    /// SSA construction: write φs as Bril's deprecated `phi` instead of `set`/`get`.
    pub phi_form: bool,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "message", rename_all = "lowercase")]
pub enum Outcome {
    Ran,
    /// Not run: a language the pass does not accept, or a malformed function. For users.
    Refused(String),
    /// A bug: the pass failed or its output does not verify. The input is returned.
    Failed(String),
}

/// One count of a summary line: `4 removed`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Count {
    /// Agrees with `value`: `1 branch rewritten`, `2 branches rewritten`.
    pub label: &'static str,
    pub value: usize,
}

impl Count {
    /// `value` with the label in its singular (`one`) or plural (`many`) form.
    pub fn of(value: usize, one: &'static str, many: &'static str) -> Count {
        Count { label: if value == 1 { one } else { many }, value }
    }
}

/// Each pass's own result: its trace and whatever its view replays.
#[derive(Clone, Debug)]
pub enum Detail {
    /// Refused or failed before the pass produced anything.
    None,
    Dce(Arc<dce::DceResult>),
    /// LCM's output and its step list (the view needs the steps' positions in the trace,
    /// so they are built once, here).
    /// The output is shared with the steps' deferred texts.
    Lcm { out: Arc<lcm::LcmOutput>, steps: Box<lcm::LcmSteps> },
    CopyProp(Box<copyprop::CopyPropOutput>),
    AddressLowering(Arc<crate::sil::lowering::Lowering>),
    CopyElim(Box<crate::sil::lowering::copyelim::CopyElim>),
    IntoSsa(Box<ssa::SsaOutput>),
    OutOfSsa(Box<out_of_ssa::OutOfSsaOutput>),
    Mem2Reg(Box<mem2reg::Mem2RegOutput>),
    Lvn(Box<lvn::LvnOutput>),
}

impl Detail {
    /// The pass's trace as JSON (`optlab opt --trace json`).
    pub fn trace_json(&self) -> serde_json::Value {
        let v = match self {
            Detail::None => Ok(serde_json::Value::Null),
            Detail::Dce(r) => serde_json::to_value(&r.trace),
            Detail::Lcm { out, .. } => serde_json::to_value(&out.trace),
            Detail::CopyProp(o) => serde_json::to_value(&o.trace),
            Detail::AddressLowering(l) => serde_json::to_value(l.trace()),
            Detail::CopyElim(c) => serde_json::to_value(&c.candidates),
            Detail::IntoSsa(o) => serde_json::to_value(&o.trace),
            Detail::OutOfSsa(o) => serde_json::to_value(&o.trace),
            Detail::Mem2Reg(o) => serde_json::to_value(&o.trace),
            Detail::Lvn(o) => serde_json::to_value(&o.trace),
        };
        v.unwrap_or(serde_json::Value::Null)
    }
}

/// A pass's run on one function.
#[derive(Clone, Debug)]
pub struct PassRun {
    pub pass: &'static PassInfo,
    /// The transformed function; the input itself unless the outcome is [`Outcome::Ran`].
    /// Shared with the pass's own result in [`Detail`] (a 10^5-block function is about
    /// 100 MiB; a pipeline would otherwise keep each stage's output twice).
    pub function: Arc<Function>,
    pub outcome: Outcome,
    pub detail: Detail,
    /// Counts for the summary line, most important first.
    pub counts: Vec<Count>,
    pub steps: Steps,
}

impl PassRun {
    /// A run that produced nothing, with the input returned.
    pub fn not_run(pass: &'static PassInfo, f: &Function, outcome: Outcome) -> PassRun {
        PassRun::not_run_shared(pass, Arc::new(f.clone()), outcome)
    }

    /// [`PassRun::not_run`] returning the caller's `Arc` of the input rather than a copy.
    pub fn not_run_shared(pass: &'static PassInfo, f: Arc<Function>, outcome: Outcome) -> PassRun {
        let text = match &outcome {
            Outcome::Ran => format!("{} on @{}", pass.title, f.name),
            Outcome::Refused(m) | Outcome::Failed(m) => m.clone(),
        };
        PassRun {
            pass,
            function: f,
            outcome,
            detail: Detail::None,
            counts: Vec::new(),
            steps: Steps::new(vec![text]),
        }
    }

    /// Why the pass did not run (refused or failed), for the view and the CLI.
    pub fn problem(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Ran => None,
            Outcome::Refused(m) | Outcome::Failed(m) => Some(m),
        }
    }

    /// `DCE on @f: 12 → 8 instructions; 4 removed, 1 branch rewritten` (counts that are 0
    /// after the first two are left out).
    pub fn summary(&self) -> String {
        if let Some(p) = self.problem() {
            return format!("{} on @{}: {p}", self.pass.title, self.function.name);
        }
        let mut parts: Vec<String> = Vec::new();
        for (k, c) in self.counts.iter().enumerate() {
            if k < 2 || c.value > 0 {
                parts.push(format!("{} {}", c.value, c.label));
            }
        }
        format!("{} on @{}: {}", self.pass.title, self.function.name, parts.join(", "))
    }
}

/// A pass: who it is and how it runs. Implementations live in the pass's own module; they
/// may assume the function verifies and is in one of `info().langs` ([`run`] checks both).
pub trait Pass: Sync {
    fn info(&self) -> &'static PassInfo;
    /// Runs on a verified function `f` whose analyses are `a`. Never panics.
    fn run(&self, f: &Function, a: &Analyses, opts: &Options) -> PassRun;

    /// [`Pass::run`] on a function its caller holds in an `Arc` (a pipeline's stages):
    /// a pass whose step texts read its input overrides this to keep the `Arc` in
    /// [`Steps::lazy`] instead of writing the texts now — a copy of a 10^5-block input would
    /// cost what the texts do.
    fn run_shared(&self, f: &Arc<Function>, a: &Analyses, opts: &Options) -> PassRun {
        self.run(f, a, opts)
    }

    /// Whether [`Pass::run`] itself verifies the function it returns with
    /// [`Outcome::Ran`] (and fails otherwise), so that [`run`] need not check it again: on a
    /// 10^5-block function each full check costs what a small pass does.
    fn verifies_output(&self) -> bool {
        false
    }
}

/// Every pass, in the order users see them.
pub static REGISTRY: &[&dyn Pass] = &[
    &dce::DCE_PASS,
    &lcm::LCM_PASS,
    &copyprop::COPYPROP_PASS,
    &address_lowering::ADDRESS_LOWERING_PASS,
    &address_lowering::COPY_ELIM_PASS,
    &ssa::INTO_SSA_PASS,
    &out_of_ssa::OUT_OF_SSA_PASS,
    &mem2reg::MEM2REG_PASS,
    &lvn::LVN_PASS,
];

/// The pass named `slug`.
pub fn by_slug(slug: &str) -> Option<&'static dyn Pass> {
    REGISTRY.iter().copied().find(|p| p.info().slug == slug)
}

/// The registered slugs, for messages: `dce, lcm, copyprop`.
pub fn slugs() -> String {
    REGISTRY.iter().map(|p| p.info().slug).collect::<Vec<_>>().join(", ")
}

/// Runs `pass` on `f` with the contract's checks around it: refuses a language it does not
/// accept and a malformed function, and verifies the output.
pub fn run(pass: &dyn Pass, f: &Function, a: &Analyses, opts: &Options) -> PassRun {
    run_checked(pass, f, a, opts, false)
}

/// [`run`], skipping the input's check when `verified` says the caller has made it (a
/// pipeline stage whose input is the previous stage's verified output).
pub(crate) fn run_checked(pass: &dyn Pass, f: &Function, a: &Analyses, opts: &Options, verified: bool) -> PassRun {
    run_contract(pass, Input::Borrowed(f), a, opts, verified)
}

/// [`run_checked`] on a function held in an `Arc` ([`Pass::run_shared`]): what a pipeline
/// stage runs on.
pub(crate) fn run_checked_shared(pass: &dyn Pass, f: &Arc<Function>, a: &Analyses, opts: &Options, verified: bool) -> PassRun {
    run_contract(pass, Input::Shared(f), a, opts, verified)
}

/// A pass's input as its caller holds it.
#[derive(Clone, Copy)]
enum Input<'a> {
    Borrowed(&'a Function),
    Shared(&'a Arc<Function>),
}

impl<'a> Input<'a> {
    fn function(self) -> &'a Function {
        match self {
            Input::Borrowed(f) => f,
            Input::Shared(f) => f,
        }
    }

    /// The input as a run returns it unchanged: the caller's `Arc` itself when there is one.
    fn unchanged(self) -> Arc<Function> {
        match self {
            Input::Borrowed(f) => Arc::new(f.clone()),
            Input::Shared(f) => f.clone(),
        }
    }
}

fn run_contract(pass: &dyn Pass, input: Input<'_>, a: &Analyses, opts: &Options, verified: bool) -> PassRun {
    let info = pass.info();
    let f = input.function();
    if !info.accepts(f.lang) {
        let msg = format!(
            "{} runs on {}; @{} is {}: {}",
            info.title,
            info.lang_names(),
            f.name,
            lang_name(f.lang),
            info.refusal
        );
        return PassRun::not_run_shared(info, input.unchanged(), Outcome::Refused(msg));
    }
    if info.edits_edges && f.has_phis() {
        let msg = format!(
            "{} may change the edges between blocks, and @{} uses `phi`, whose labels name the blocks control comes from: translate it out of SSA first (or write its φs as `set`/`get`)",
            info.title, f.name
        );
        return PassRun::not_run_shared(info, input.unchanged(), Outcome::Refused(msg));
    }
    if !verified {
        if let Err(d) = verify(f) {
            let msg = format!("@{} is malformed: {}", f.name, first_message(&d));
            return PassRun::not_run_shared(info, input.unchanged(), Outcome::Refused(msg));
        }
    }
    let mut r = match input {
        Input::Borrowed(f) => pass.run(f, a, opts),
        Input::Shared(f) => pass.run_shared(f, a, opts),
    };
    if r.outcome == Outcome::Ran && !pass.verifies_output() {
        if let Err(d) = verify(&r.function) {
            let msg = format!("internal error in {}: the result does not verify ({})", info.title, first_message(&d));
            r.function = input.unchanged();
            r.outcome = Outcome::Failed(msg);
        }
    }
    r
}

/// Gives back the room a pass's edits left in `f`'s arenas (a pass clones its input, whose
/// arenas are exactly full, and the first instruction or value it adds doubles one): called
/// on a pass's output before it is kept, as a pipeline keeps every stage's.
pub fn shrink(f: &mut Function) {
    f.insts.shrink_to_fit();
    f.values.shrink_to_fit();
    f.blocks.shrink_to_fit();
    f.layout.shrink_to_fit();
}

/// The first diagnostic's message, for a one-line reason.
pub(crate) fn first_message(d: &crate::Diagnostics) -> String {
    d.iter().next().map_or_else(|| "no detail".to_string(), |d| d.message.clone())
}

#[cfg(test)]
mod tests;
