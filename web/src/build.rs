//! What this build of the app contains: the full app has every pass, both parsers and the
//! Swift declarations reader; the first-visit build (without the `full` feature, see
//! [`crate::handoff`]) only what the landing page's first graph needs. The rest of the app asks
//! here instead of naming core's registry or parsers, so the first build does not link them.
//! A leaf: it depends on core alone.

use optlab_core::passes::pipeline::Pipeline;
use optlab_core::passes::Pass;
use optlab_core::sil::types::Decls;
use optlab_core::print::FunctionLines;
use optlab_core::{Diagnostics, Function, Lang, Module};

/// The passes an analysis runs: every registered pass in the full app, none in the first-visit
/// build (naming the registry would link every pass into it).
pub fn registered_passes() -> &'static [&'static dyn Pass] {
    #[cfg(feature = "full")]
    let passes = optlab_core::passes::REGISTRY;
    #[cfg(not(feature = "full"))]
    let passes = &[];
    passes
}

/// The before/after view's pipeline on a fresh page (empty in the first-visit build, which has
/// no passes; a link's pipeline is carried over to the full app as text, see [`remember_link`]).
pub fn default_pipeline() -> Pipeline {
    #[cfg(feature = "full")]
    let p = Pipeline::default_pipeline();
    #[cfg(not(feature = "full"))]
    let p = Pipeline { passes: Vec::new() };
    p
}

/// Parses a program: both languages in the full app, Bril only in the first-visit build (the
/// SIL parser and the Swift declarations reader are a third of it; a SIL text shows
/// [`SIL_LOADING`] until the full app has the page).
pub fn parse_module(lang: Lang, file: &str, text: &str) -> Result<Module, Diagnostics> {
    #[cfg(feature = "full")]
    let parsed = optlab_core::parse_module(lang, file, text);
    #[cfg(not(feature = "full"))]
    let parsed = optlab_core::parse::bril::parse(file, text);
    parsed
}

/// The Swift declarations a program carries (none read in the first-visit build).
pub fn decls_of(module: &Module) -> Decls {
    #[cfg(feature = "full")]
    let decls = Decls::of_module(module);
    #[cfg(not(feature = "full"))]
    let decls = Decls::default();
    decls
}

/// A function's printed lines (what the CFG's boxes show): both printers in the full app, the
/// Bril one in the first-visit build, which analyses Bril only (the SIL printer was 8 KB of
/// it).
pub fn function_lines(f: &Function) -> FunctionLines {
    #[cfg(feature = "full")]
    let lines = optlab_core::print::function_lines(f, optlab_core::print::Naming::User);
    #[cfg(not(feature = "full"))]
    let lines = optlab_core::print::bril::function_lines(f);
    lines
}

/// A Bril function's text, without linking the SIL printer into the first-visit build.
pub fn print_bril(f: &Function) -> String {
    optlab_core::print::bril::print_function(f)
}

/// What the views say about a SIL text in the first-visit build.
pub const SIL_LOADING: &str = "loading the SIL support…";
