//! Example programs built into the app (the files live in `static/examples/`).

use optlab_core::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// Shown in the example menu.
    pub title: &'static str,
    /// File name, used in error messages.
    pub file: &'static str,
    pub lang: Lang,
    pub text: &'static str,
}

/// The first one is loaded at start.
pub const EXAMPLES: &[Example] = &[
    Example {
        title: "Loop with a branch (Bril)",
        file: "loop.bril",
        lang: Lang::Bril,
        text: include_str!("../../static/examples/loop.bril"),
    },
    Example {
        title: "Diamond (Bril)",
        file: "diamond.bril",
        lang: Lang::Bril,
        text: include_str!("../../static/examples/diamond.bril"),
    },
    Example {
        title: "Partially redundant add (Bril)",
        file: "partial.bril",
        lang: Lang::Bril,
        text: include_str!("../../static/examples/partial.bril"),
    },
];
