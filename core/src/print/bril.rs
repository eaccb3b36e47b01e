//! Bril printer in the canonical `bril2txt` layout: `@f(a: int): int {`, labels unindented,
//! instructions indented by two spaces as `dest: type = op @funcs args .labels;`.
//!
//! Parsing the output gives back an equal module: floats are printed with Rust's shortest
//! round-tripping form (`{:?}`), characters with Bril's escapes where they need one, and the
//! terminator of each block last. Unlike `bril2txt`, functions are separated by a blank line.

use super::{FunctionLines, LineKind, LinesSink, Sink, TextSink};
use crate::entity::EntitySet;
use crate::ir::{BlockId, BrilOp, Function, Imm, Inst, Module, Op};
use crate::parse::bril::escape_char;
use std::fmt::Write;

/// The whole module, functions in order, separated by a blank line.
pub fn print_module(m: &Module) -> String {
    // Sized from the source text, as the SIL printer is: the canonical form is about as long.
    let src = m.source.text.len();
    let mut out = String::with_capacity(src + src / 16);
    for (k, f) in m.functions.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        write_function(f, &mut TextSink(&mut out));
    }
    out
}

/// One function, ending with `}` and a newline.
pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    write_function(f, &mut TextSink(&mut out));
    out
}

/// One function as tagged lines: the signature, per block its label (if it has one or is a
/// branch target) and one line per instruction, and the closing `}`.
pub fn function_lines(f: &Function) -> FunctionLines {
    let mut s = LinesSink::default();
    write_function(f, &mut s);
    s.finish()
}

fn write_function(f: &Function, sink: &mut impl Sink) {
    let mut head = String::new();
    let _ = write!(head, "@{}", f.name);
    if !f.params.is_empty() {
        head.push('(');
        for (k, &p) in f.params.iter().enumerate() {
            if k > 0 {
                head.push_str(", ");
            }
            match f.values.get(p) {
                Some(v) => {
                    head.push_str(&v.name);
                    if let Some(ty) = &v.ty {
                        let _ = write!(head, ": {ty}");
                    }
                }
                None => head.push('?'),
            }
        }
        head.push(')');
    }
    if let Some(ty) = &f.ret {
        let _ = write!(head, ": {ty}");
    }
    head.push_str(" {");
    sink.head(&head);

    // A pass may branch to a block that had no label in the source; it must get one here, or
    // the output would name a label that does not exist.
    let mut targeted = EntitySet::<BlockId>::new_empty(f.blocks.len());
    for (_, i) in f.placed_insts() {
        for s in f.insts.get(i).into_iter().flat_map(|inst| inst.written_succs()) {
            if s.block.0 < f.blocks.len() as u32 {
                targeted.insert(s.block);
            }
        }
    }
    // One buffer for every line.
    let mut line = String::new();
    for &b in &f.layout {
        let Some(block) = f.blocks.get(b) else { continue };
        sink.block(b);
        if block.labeled || targeted.contains(b) {
            line.clear();
            let _ = write!(line, ".{}:", block.name);
            sink.line(&line, LineKind::Label);
        }
        for i in block.all_insts() {
            if let Some(inst) = f.insts.get(i) {
                line.clear();
                line.push_str("  ");
                write_inst(&mut line, f, inst);
                line.push(';');
                sink.line(&line, LineKind::Inst(i));
            }
        }
    }
    sink.tail("}");
}

/// An instruction without indentation or `;`, appended to `s`.
fn write_inst(s: &mut String, f: &Function, inst: &Inst) {
    let name = |v| f.values.get(v).map_or("?", |d| d.name.as_str());
    if let Some(&d) = inst.results.first() {
        s.push_str(name(d));
        if let Some(ty) = &inst.ty {
            let _ = write!(s, ": {ty}");
        }
        s.push_str(" = ");
    }
    s.push_str(inst.op.name());
    if inst.imm != Imm::None || inst.op == Op::Bril(BrilOp::Const) {
        s.push(' ');
        push_imm(s, &inst.imm);
    }
    for func in &inst.funcs {
        let _ = write!(s, " @{func}");
    }
    for &a in &inst.args {
        let _ = write!(s, " {}", name(a));
    }
    for succ in inst.written_succs() {
        let label = f.blocks.get(succ.block).map_or("?", |b| b.name.as_str());
        let _ = write!(s, " .{label}");
    }
}

fn push_imm(s: &mut String, imm: &Imm) {
    match imm {
        Imm::None => {}
        Imm::Int(n) => {
            let _ = write!(s, "{n}");
        }
        Imm::Bool(b) => {
            let _ = write!(s, "{b}");
        }
        Imm::Float(x) => s.push_str(&float_text(*x)),
        Imm::Char(c) => {
            s.push('\'');
            match escape_char(*c) {
                Some(e) => {
                    s.push('\\');
                    s.push(e);
                }
                None => s.push(*c),
            }
            s.push('\'');
        }
        Imm::Name(n) => s.push_str(n),
        Imm::Index(k) => {
            let _ = write!(s, "{k}");
        }
    }
}

/// A float literal that parses back to the identical `f64`; `{:?}` always keeps a `.` or an
/// exponent, so the literal stays a float even for whole numbers (`2.0`, `1e16`).
pub(crate) fn float_text(x: f64) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:?}")
    }
}
