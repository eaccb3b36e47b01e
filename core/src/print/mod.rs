//! IR → text in each language's own syntax.
//!
//! Each printer first lays a function out as [`FunctionLines`] — per block, the printed lines
//! with what each shows (a label, a SIL parameter list, an instruction id) — and the text is
//! those lines joined. Views that decorate code by instruction use the lines directly, so
//! they never print and parse the text back, and the two can never drift apart.

pub mod bril;
pub mod sil;

use crate::ir::{BlockId, BrilOp, Function, InstId, Lang, Module, Op, SilOp};

/// How names are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Naming {
    /// The user's own block and value names (the before/after view).
    #[default]
    User,
    /// SIL only: blocks `bb0…` and values `%0…` numbered in order, as `sil-opt` prints
    /// (what Swift's FileCheck lines expect). Bril ignores it.
    Renumber,
}

/// The whole module as source text.
pub fn print_module(m: &Module, naming: Naming) -> String {
    match m.lang {
        Lang::Bril => bril::print_module(m),
        Lang::Sil => sil::print_module(m, naming),
    }
}

/// One function as source text: [`function_lines`] joined (written directly).
pub fn print_function(f: &Function, naming: Naming) -> String {
    match f.lang {
        Lang::Bril => bril::print_function(f),
        Lang::Sil => sil::print_function(f, naming),
    }
}

/// One line of [`function_lines`]'s output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineKind {
    /// The blank line SIL prints between two blocks.
    Blank,
    /// A bare block label: Bril `.loop:`, SIL `bb1:`.
    Label,
    /// A SIL block label with its parameters: `bb3(%6 : $Int):`.
    Params,
    /// An instruction (a terminator included).
    Inst(InstId),
    /// A comment `sil-opt` prints on a line of its own (`// function_ref f`, `// %0 "$return_value"`, renumbered
    /// output only); it shows no instruction.
    Comment,
}

/// A printed line and what it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The text as printed, with its indentation and without the newline. It holds a newline
    /// only if an instruction's own SIL template spanned lines.
    pub text: String,
    pub kind: LineKind,
}

impl Line {
    /// The instruction the line shows (`None` for labels and blank lines).
    pub fn inst(&self) -> Option<InstId> {
        match self.kind {
            LineKind::Inst(i) => Some(i),
            _ => None,
        }
    }
}

/// The lines of one block, in printing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLines {
    pub block: BlockId,
    pub lines: Vec<Line>,
}

/// A function as printed: its signature line(s), its blocks in layout order, and the
/// closing line(s). [`FunctionLines::text`] is exactly [`print_function`]'s output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionLines {
    pub head: Vec<String>,
    pub blocks: Vec<BlockLines>,
    pub tail: Vec<String>,
}

impl FunctionLines {
    /// Every line, each followed by a newline.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let body = self.blocks.iter().flat_map(|b| b.lines.iter().map(|l| l.text.as_str()));
        for line in self.head.iter().map(String::as_str).chain(body).chain(self.tail.iter().map(String::as_str)) {
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// The lines of `block`, if the layout holds it.
    pub fn block(&self, block: BlockId) -> Option<&BlockLines> {
        self.blocks.iter().find(|b| b.block == block)
    }
}

/// Where a printer puts what it prints, line by line: into [`FunctionLines`] for the views,
/// or straight into one string for [`print_function`] — which then keeps no per-line
/// structure (at 10^5 blocks, a million small strings kept and freed at the end made SIL
/// printing grow as blocks^1.5; issue 17).
pub(crate) trait Sink {
    /// A line of the signature (before the first block).
    fn head(&mut self, text: &str);
    /// A new block starts.
    fn block(&mut self, block: BlockId);
    /// A line of the current block, without its newline.
    fn line(&mut self, text: &str, kind: LineKind);
    /// A closing line (after the last block).
    fn tail(&mut self, text: &str);
}

/// Collects [`FunctionLines`].
#[derive(Default)]
pub(crate) struct LinesSink {
    lines: FunctionLines,
}

impl LinesSink {
    pub(crate) fn finish(self) -> FunctionLines {
        self.lines
    }
}

impl Sink for LinesSink {
    fn head(&mut self, text: &str) {
        self.lines.head.push(text.to_string());
    }
    fn block(&mut self, block: BlockId) {
        self.lines.blocks.push(BlockLines { block, lines: Vec::new() });
    }
    fn line(&mut self, text: &str, kind: LineKind) {
        if let Some(b) = self.lines.blocks.last_mut() {
            b.lines.push(Line { text: text.to_string(), kind });
        }
    }
    fn tail(&mut self, text: &str) {
        self.lines.tail.push(text.to_string());
    }
}

/// Appends every line and a newline to a string: [`FunctionLines::text`] without the lines.
pub(crate) struct TextSink<'a>(pub(crate) &'a mut String);

impl Sink for TextSink<'_> {
    fn head(&mut self, text: &str) {
        self.0.push_str(text);
        self.0.push('\n');
    }
    fn block(&mut self, _block: BlockId) {}
    fn line(&mut self, text: &str, _kind: LineKind) {
        self.0.push_str(text);
        self.0.push('\n');
    }
    fn tail(&mut self, text: &str) {
        self.0.push_str(text);
        self.0.push('\n');
    }
}

/// One function as lines tagged with what they show, per block (see [`FunctionLines`]).
pub fn function_lines(f: &Function, naming: Naming) -> FunctionLines {
    match f.lang {
        Lang::Bril => bril::function_lines(f),
        Lang::Sil => sil::function_lines(f, naming),
    }
}

/// Whether a line as the printers write it (either language, any indentation) is a block's
/// terminator: its opcode is one [`Op::is_terminator`] knows, in Bril or in SIL, and it
/// defines no value. For tools that only have text (the before/after diff pairs a rewritten
/// branch with the branch it replaces); with a [`Function`] at hand, use
/// [`function_lines`] and the instruction's own op instead.
pub fn is_terminator_line(line: &str) -> bool {
    let t = line.trim();
    if t.contains(" = ") || t.starts_with("//") {
        return false;
    }
    let op = t.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("");
    !op.is_empty() && (Op::Bril(BrilOp::from_name(op)).is_terminator() || Op::Sil(SilOp::from_name(op)).is_terminator())
}

#[cfg(test)]
mod tests;
