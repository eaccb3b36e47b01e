//! Demangling the common Swift symbol names a SIL file carries (`$s4main1fyyF` →
//! `main.f() -> ()`), so the function picker can show what a mangled name means beside it.
//!
//! The manglings are Swift's (docs/ABI/Mangling.rst in the Swift repository): Swift 5
//! (`$s`, `_$s`, `$e`), Swift 4.2 (`$S`) and Swift 4 (`_T0`). The name is read as the
//! postfix language it is — operands are pushed, an operator pops what it needs — with the
//! substitution table (`AA`, `A2aD`: earlier identifiers and types by index) and the
//! standard types (`Si` is `Swift.Int`). Covered: modules, nested structs, classes, enums and
//! protocols, tuples, optionals, arrays, dictionaries, variadics, functions with argument
//! labels, initializers, deinitializers, property accessors, protocol witnesses, type
//! metadata and merged functions. Anything else (generic signatures, closures, thunks,
//! specializations, word substitutions) is refused: [`demangle`] returns `None` and the caller
//! shows the raw name only, never a wrong reading.

/// A node of the demangling stack: printed text with what it is.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// A module or an identifier (a context, a name or an argument label).
    Ident(String),
    /// A nominal type, `Module.Outer.Inner`; `protocol` for a protocol.
    Nominal { path: String, protocol: bool },
    /// Any other type, printed.
    Type(String),
    /// `y`: the empty list (no labels, no parameters, or the start of generic arguments).
    Empty,
    /// A list element followed by `_` (the first element of a tuple).
    First(Box<Node>),
    /// A tuple type: its elements, printed with their labels.
    Tuple(Vec<String>),
    /// A function type (`c`): parameters and result.
    Function { params: Vec<String>, result: String },
    /// A whole entity (a function, an accessor): the final text.
    Entity(String),
}

impl Node {
    fn text(&self) -> Option<String> {
        Some(match self {
            Node::Ident(s) | Node::Type(s) | Node::Entity(s) => s.clone(),
            Node::Nominal { path, .. } => path.clone(),
            Node::Empty => "()".to_string(),
            Node::First(n) => n.text()?,
            Node::Tuple(items) => format!("({})", items.join(", ")),
            Node::Function { params, result } => format!("({}) -> {result}", params.join(", ")),
        })
    }

    fn is_type(&self) -> bool {
        matches!(self, Node::Nominal { .. } | Node::Type(_) | Node::Tuple(_) | Node::Function { .. } | Node::Empty)
    }
}

/// The Swift standard types and protocols with a one-letter mangling after `S`.
fn standard(c: u8) -> Option<&'static str> {
    Some(match c {
        b'A' => "AutoreleasingUnsafeMutablePointer",
        b'a' => "Array",
        b'B' => "BinaryFloatingPoint",
        b'b' => "Bool",
        b'D' => "Dictionary",
        b'd' => "Double",
        b'E' => "Encodable",
        b'e' => "Decodable",
        b'F' => "FloatingPoint",
        b'f' => "Float",
        b'G' => "RandomNumberGenerator",
        b'H' => "Hashable",
        b'h' => "Set",
        b'I' => "DefaultIndices",
        b'i' => "Int",
        b'J' => "Character",
        b'j' => "Numeric",
        b'K' => "BidirectionalCollection",
        b'k' => "RandomAccessCollection",
        b'L' => "Comparable",
        b'l' => "Collection",
        b'M' => "MutableCollection",
        b'm' => "RangeReplaceableCollection",
        b'N' => "ClosedRange",
        b'n' => "Range",
        b'O' => "ObjectIdentifier",
        b'P' => "UnsafePointer",
        b'p' => "UnsafeMutablePointer",
        b'Q' => "Equatable",
        b'q' => "Optional",
        b'R' => "UnsafeBufferPointer",
        b'r' => "UnsafeMutableBufferPointer",
        b'S' => "String",
        b's' => "Substring",
        b'T' => "Sequence",
        b't' => "IteratorProtocol",
        b'U' => "UnsignedInteger",
        b'u' => "UInt",
        b'V' => "UnsafeRawPointer",
        b'v' => "UnsafeMutableRawPointer",
        b'W' => "UnsafeRawBufferPointer",
        b'w' => "UnsafeMutableRawBufferPointer",
        b'X' => "RangeExpression",
        b'x' => "Strideable",
        b'Y' => "RawRepresentable",
        b'y' => "StringProtocol",
        b'Z' => "SignedInteger",
        b'z' => "BinaryInteger",
        _ => return None,
    })
}

/// Whether a standard one-letter name is a protocol (for a conformance's printing).
fn standard_is_protocol(c: u8) -> bool {
    matches!(c, b'B' | b'E' | b'e' | b'F' | b'G' | b'H' | b'j' | b'K' | b'k' | b'L' | b'l' | b'M' | b'm' | b'Q')
        || matches!(c, b'T' | b't' | b'U' | b'X' | b'x' | b'Y' | b'y' | b'Z' | b'z')
}

/// The demangling of one name.
struct Demangler<'a> {
    s: &'a [u8],
    pos: usize,
    stack: Vec<Node>,
    subs: Vec<Node>,
    /// Swift 4 (`_T0`): tuple elements carry their labels after their types, and a function's
    /// labels are in its parameter tuple.
    old: bool,
}

/// The readable form of the Swift mangled name `name` (with or without the leading `@`),
/// or `None` when it is not a Swift mangling this module reads (see the module docs).
pub fn demangle(name: &str) -> Option<String> {
    let name = name.strip_prefix('@').unwrap_or(name);
    let (rest, old) = if let Some(r) = name.strip_prefix("_T0") {
        (r, true)
    } else if let Some(r) =
        ["$s", "_$s", "$S", "_$S", "$e", "_$e"].iter().find_map(|p| name.strip_prefix(p))
    {
        (r, false)
    } else {
        return None;
    };
    if rest.is_empty() || !rest.is_ascii() {
        return None;
    }
    let mut d = Demangler { s: rest.as_bytes(), pos: 0, stack: Vec::new(), subs: Vec::new(), old };
    while d.pos < d.s.len() {
        d.step()?;
    }
    match d.stack.as_slice() {
        // A lone identifier is a name, not a symbol.
        [Node::Ident(_)] => None,
        [one] => one.text(),
        _ => None,
    }
}

impl Demangler<'_> {
    fn next(&mut self) -> Option<u8> {
        let c = *self.s.get(self.pos)?;
        self.pos += 1;
        Some(c)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos]).ok()?.parse().ok()
    }

    fn pop(&mut self) -> Option<Node> {
        self.stack.pop()
    }

    fn pop_type(&mut self) -> Option<Node> {
        let n = self.pop()?;
        n.is_type().then_some(n)
    }

    /// A context: a module or identifier, a nominal type, or an entity (a type in a function).
    fn pop_context(&mut self) -> Option<String> {
        match self.pop()? {
            Node::Ident(s) | Node::Nominal { path: s, .. } => Some(s),
            _ => None,
        }
    }

    fn push_sub(&mut self, n: Node) {
        self.subs.push(n.clone());
        self.stack.push(n);
    }

    fn step(&mut self) -> Option<()> {
        let c = self.next()?;
        match c {
            b'1'..=b'9' => {
                self.pos -= 1;
                let len = self.number()?;
                let end = self.pos.checked_add(len).filter(|&e| e <= self.s.len())?;
                let text = std::str::from_utf8(&self.s[self.pos..end]).ok()?.to_string();
                self.pos = end;
                self.push_sub(Node::Ident(text));
            }
            // `0` starts an identifier with word substitutions: not read here.
            b'0' => return None,
            b's' => self.stack.push(Node::Ident("Swift".into())),
            b'S' => self.standard_or_special()?,
            b'A' => self.substitution()?,
            b'V' | b'C' | b'O' | b'a' => {
                let name = self.pop_context()?;
                let ctx = self.pop_context()?;
                self.push_sub(Node::Nominal { path: format!("{ctx}.{name}"), protocol: false });
            }
            b'P' => {
                let name = self.pop_context()?;
                let ctx = self.pop_context()?;
                self.push_sub(Node::Nominal { path: format!("{ctx}.{name}"), protocol: true });
            }
            b'y' => self.stack.push(Node::Empty),
            b'_' => {
                let n = self.pop()?;
                self.stack.push(Node::First(Box::new(n)));
            }
            b'd' => {
                // Variadic: the element before is `T...` (in Swift 4, the one before its label).
                let label = match self.stack.last() {
                    Some(Node::Ident(_)) if self.old => self.pop(),
                    _ => None,
                };
                let n = self.pop()?;
                let first = matches!(n, Node::First(_));
                let inner = match n {
                    Node::First(b) => *b,
                    n => n,
                };
                let t = Node::Type(format!("{}...", inner.text()?));
                self.stack.push(if first { Node::First(Box::new(t)) } else { t });
                self.stack.extend(label);
            }
            b't' => self.tuple()?,
            b'G' => self.bound_generic()?,
            b'c' => {
                let params = self.pop_type()?;
                let result = self.pop_type()?;
                let params = param_list(params)?;
                self.stack.push(Node::Function { params, result: result.text()? });
            }
            b'F' => self.function(None)?,
            b'f' => {
                let kind = self.next()?;
                self.constructor(kind)?;
            }
            b'v' => {
                let kind = self.next()?;
                self.accessor(kind)?;
            }
            b'T' => {
                let kind = self.next()?;
                match kind {
                    b'W' => self.witness()?,
                    b'm' => {
                        let e = self.pop()?;
                        self.stack.push(Node::Entity(format!("merged {}", e.text()?)));
                    }
                    _ => return None,
                }
            }
            b'M' if self.peek().is_some_and(|c| matches!(c, b'a' | b'n' | b'f')) => {
                let kind = self.next()?;
                let t = self.pop_type()?.text()?;
                let what = match kind {
                    b'a' => "type metadata accessor for",
                    b'n' => "nominal type descriptor for",
                    _ => "full type metadata for",
                };
                self.stack.push(Node::Entity(format!("{what} {t}")));
            }
            b'N' => {
                let t = self.pop_type()?.text()?;
                self.stack.push(Node::Entity(format!("type metadata for {t}")));
            }
            b'Z' => {
                let e = self.pop()?;
                self.stack.push(Node::Entity(format!("static {}", e.text()?)));
            }
            _ => return None,
        }
        Some(())
    }

    /// After `S`: a standard type (`Si`), repeated (`S2i`), `So` (`__C`), `SC`, or `Sg`
    /// (optional of the type before).
    fn standard_or_special(&mut self) -> Option<()> {
        let count = if self.peek().is_some_and(|c| c.is_ascii_digit()) { self.number()? } else { 1 };
        let c = self.next()?;
        match c {
            b'o' if count == 1 => self.stack.push(Node::Ident("__C".into())),
            b'C' if count == 1 => self.stack.push(Node::Ident("__C_Synthesized".into())),
            b'g' if count == 1 => {
                let t = self.pop_type()?.text()?;
                let t = if t.contains(' ') { format!("({t})") } else { t };
                self.push_sub(Node::Type(format!("{t}?")));
            }
            _ => {
                let name = standard(c)?;
                for _ in 0..count.min(64) {
                    self.stack.push(Node::Nominal { path: format!("Swift.{name}"), protocol: standard_is_protocol(c) });
                }
            }
        }
        Some(())
    }

    /// `A` substitutions: `AA` is entry 0, `AB` entry 1, `A2aD` entry 0 twice then entry 3,
    /// `A12_` entry 13.
    fn substitution(&mut self) -> Option<()> {
        loop {
            let count = if self.peek().is_some_and(|c| c.is_ascii_digit()) { self.number()? } else { 1 };
            let c = self.next()?;
            let (index, last) = match c {
                b'a'..=b'z' => ((c - b'a') as usize, false),
                b'A'..=b'Z' => ((c - b'A') as usize, true),
                b'_' => (count + 27 - 1, true),
                _ => return None,
            };
            let count = if c == b'_' { 1 } else { count };
            let n = self.subs.get(index)?.clone();
            for _ in 0..count.min(64) {
                self.stack.push(n.clone());
            }
            if last {
                return Some(());
            }
        }
    }

    /// `t`: the elements back to the one marked first (`_`), or none after `y`.
    fn tuple(&mut self) -> Option<()> {
        let mut items = Vec::new();
        loop {
            match self.pop()? {
                Node::Empty => break,
                Node::First(n) => {
                    // Swift 4 marks the first element's label; its type is under it.
                    let labelled = self.old && matches!(*n, Node::Ident(_));
                    items.push(*n);
                    if labelled {
                        items.push(self.pop()?);
                    }
                    break;
                }
                n => items.push(n),
            }
        }
        items.reverse();
        let mut printed = Vec::new();
        let mut i = 0;
        while i < items.len() {
            // Swift 4 writes a label after its element's type; Swift 5 labels are elsewhere.
            match (&items[i], items.get(i + 1)) {
                (t, Some(Node::Ident(label))) if self.old && t.is_type() => {
                    printed.push(format!("{label}: {}", t.text()?));
                    i += 2;
                }
                (Node::Ident(_), _) => return None,
                (t, _) => {
                    printed.push(t.text()?);
                    i += 1;
                }
            }
        }
        self.stack.push(Node::Tuple(printed));
        Some(())
    }

    /// `G`: a generic type applied to the arguments after its `y`; arrays, optionals and
    /// dictionaries print as Swift writes them.
    fn bound_generic(&mut self) -> Option<()> {
        let mut args = Vec::new();
        loop {
            match self.pop()? {
                Node::Empty => break,
                Node::First(n) => args.push(n.text()?),
                n if n.is_type() => args.push(n.text()?),
                _ => return None,
            }
        }
        args.reverse();
        let base = self.pop_type()?.text()?;
        let text = match (base.as_str(), args.as_slice()) {
            ("Swift.Array", [t]) => format!("[{t}]"),
            ("Swift.Optional", [t]) => format!("{t}?"),
            ("Swift.Dictionary", [k, v]) => format!("[{k} : {v}]"),
            _ => format!("{base}<{}>", args.join(", ")),
        };
        self.push_sub(Node::Type(text));
        Some(())
    }

    /// Pops a function's parameter list and result (Swift 5: then its labels), then its name
    /// and context: `ctx.name(labels: params) -> result`. `name` is given for initializers.
    fn function(&mut self, name: Option<&str>) -> Option<()> {
        let params = self.pop_type()?;
        let result = self.pop_type()?.text()?;
        let params = param_list(params)?;
        let params = if self.old || params.is_empty() { params } else { self.labelled(params)? };
        let name = match name {
            Some(n) => n.to_string(),
            None => match self.pop()? {
                Node::Ident(n) => n,
                _ => return None,
            },
        };
        let ctx = self.pop_context()?;
        self.stack.push(Node::Entity(format!("{ctx}.{name}({}) -> {result}", params.join(", "))));
        Some(())
    }

    /// Swift 5 argument labels before a function's types: `y` (none) or one identifier per
    /// parameter (`_` for an unlabelled one is not read).
    fn labelled(&mut self, params: Vec<String>) -> Option<Vec<String>> {
        if self.stack.last() == Some(&Node::Empty) {
            self.pop();
            return Some(params);
        }
        let n = params.len();
        if self.stack.len() < n + 1 || !self.stack[self.stack.len() - n..].iter().all(|x| matches!(x, Node::Ident(_))) {
            return Some(params);
        }
        let labels: Vec<Node> = self.stack.split_off(self.stack.len() - n);
        Some(labels.iter().zip(params).map(|(l, p)| format!("{}: {p}", l.text().unwrap_or_default())).collect())
    }

    /// `fC` (allocating init), `fc` (init), `fD` (deallocating deinit), `fd` (deinit).
    fn constructor(&mut self, kind: u8) -> Option<()> {
        match kind {
            b'C' | b'c' => {
                let Node::Function { params, result } = self.pop()? else { return None };
                let params = if self.old { params } else { self.labelled(params)? };
                let ctx = self.pop_context()?;
                let name = if kind == b'C' { "__allocating_init" } else { "init" };
                self.stack.push(Node::Entity(format!("{ctx}.{name}({}) -> {result}", params.join(", "))));
            }
            b'D' | b'd' => {
                let ctx = self.pop_context()?;
                let name = if kind == b'D' { "__deallocating_deinit" } else { "deinit" };
                self.stack.push(Node::Entity(format!("{ctx}.{name}")));
            }
            _ => return None,
        }
        Some(())
    }

    /// `v` + kind: a property accessor, `ctx.name.getter : Type`.
    fn accessor(&mut self, kind: u8) -> Option<()> {
        let what = match kind {
            b'g' => "getter",
            b's' => "setter",
            b'M' => "modify",
            b'r' => "read",
            b'w' => "willSet",
            b'W' => "didSet",
            b'p' => "",
            _ => return None,
        };
        let ty = self.pop_type()?.text()?;
        let Node::Ident(name) = self.pop()? else { return None };
        let ctx = self.pop_context()?;
        let accessor = if what.is_empty() { String::new() } else { format!(".{what}") };
        self.stack.push(Node::Entity(format!("{ctx}.{name}{accessor} : {ty}")));
        Some(())
    }

    /// `TW`: a protocol witness — the entity, then the conformance (type, protocol, module).
    fn witness(&mut self) -> Option<()> {
        let entity = self.pop()?;
        let Node::Entity(entity) = entity else { return None };
        let module = match self.pop()? {
            Node::Ident(m) => m,
            _ => return None,
        };
        let protocol = match self.pop()? {
            Node::Nominal { path, protocol: true } => path,
            Node::Ident(name) => format!("{}.{name}", self.pop_context()?),
            _ => return None,
        };
        let ty = self.pop_type()?.text()?;
        self.stack.push(Node::Entity(format!(
            "protocol witness for {entity} in conformance {ty} : {protocol} in {module}"
        )));
        Some(())
    }
}

/// The parameters a function type's parameter node lists.
fn param_list(n: Node) -> Option<Vec<String>> {
    Some(match n {
        Node::Empty => Vec::new(),
        Node::Tuple(items) => items,
        n => vec![n.text()?],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs from Swift's own demangler tests (test/Demangle/Inputs/manglings.txt) and names
    /// `swiftc -emit-sil` writes.
    const KNOWN: &[(&str, &str)] = &[
        ("$s4main1fyyF", "main.f() -> ()"),
        ("$s3foo3barC3bas3zimyAaEC_tF", "foo.bar.bas(zim: foo.zim) -> ()"),
        ("_$sSC3fooyS2d_SdtF", "__C_Synthesized.foo(Swift.Double, Swift.Double) -> Swift.Double"),
        ("_$S4test6testitySiyt_tF", "test.testit(()) -> Swift.Int"),
        ("_$S8mangling14varargsVsArray3arr1nySid_SStF", "mangling.varargsVsArray(arr: Swift.Int..., n: Swift.String) -> ()"),
        ("_$S8mangling14varargsVsArray3arr1nySaySiG_SStF", "mangling.varargsVsArray(arr: [Swift.Int], n: Swift.String) -> ()"),
        ("_$S8mangling14varargsVsArray3arrySaySiGd_tF", "mangling.varargsVsArray(arr: [Swift.Int]...) -> ()"),
        ("_$S3abc6testityySiFTm", "merged abc.testit(Swift.Int) -> ()"),
        ("_T04main1_yyF", "main._() -> ()"),
        ("_T04test6testitSiyt_tF", "test.testit(()) -> Swift.Int"),
        ("_T08mangling14varargsVsArrayySi3arrd_SS1ntF", "mangling.varargsVsArray(arr: Swift.Int..., n: Swift.String) -> ()"),
        ("_T03foo3barC3basyAA3zimCAE_tF", "foo.bar.bas(zim: foo.zim) -> ()"),
        (
            "_T013call_protocol1CCAA1PA2aDP3fooSiyFTW",
            "protocol witness for call_protocol.P.foo() -> Swift.Int in conformance call_protocol.C : call_protocol.P in call_protocol",
        ),
    ];

    #[test]
    fn swifts_own_examples_read_as_swift_demangle_prints_them() {
        for (mangled, want) in KNOWN {
            assert_eq!(demangle(mangled).as_deref(), Some(*want), "{mangled}");
        }
    }

    #[test]
    fn what_it_cannot_read_is_none_never_a_guess() {
        for raw in ["main", "use_klass1", "$use_klass2", "s4main1fyyF", "$s", "$s4main", "$s4mainyyF", "_T0", "$s0abc"] {
            assert_eq!(demangle(raw), None, "{raw}");
        }
        // A generic signature is beyond this demangler.
        assert_eq!(demangle("$ss17FixedWidthIntegerPsEyxSgSScfC"), None);
    }

    #[test]
    fn common_shapes_of_user_code() {
        assert_eq!(demangle("@$s4main1SV1xSivg").as_deref(), Some("main.S.x.getter : Swift.Int"));
        assert_eq!(demangle("$s4main1SV1xSivs").as_deref(), Some("main.S.x.setter : Swift.Int"));
        assert_eq!(demangle("$s4main1KCACycfC").as_deref(), Some("main.K.__allocating_init() -> main.K"));
        assert_eq!(demangle("$s4main1KCfD").as_deref(), Some("main.K.__deallocating_deinit"));
        assert_eq!(demangle("$s4main3addyS2i_SitF").as_deref(), Some("main.add(Swift.Int, Swift.Int) -> Swift.Int"));
        assert_eq!(demangle("$s4main1EO1fSbSgyF").as_deref(), Some("main.E.f() -> Swift.Bool?"));
        assert_eq!(demangle("$s4main1SVMn").as_deref(), Some("nominal type descriptor for main.S"));
    }

    /// Every `$s`/`_T0` function name in the Swift corpus either reads or is left raw; the
    /// ones the corpus's comments demangle read the same.
    #[test]
    fn the_corpus_names_read_or_stay_raw() {
        let shared = std::env::var_os("OPTLAB_SHARED")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
        let dir = shared.join("corpus/swift");
        if !dir.is_dir() {
            eprintln!("NOTICE: {} not found; skipping the corpus demangling test", dir.display());
            return;
        }
        let mut seen = 0;
        for entry in crate::testgen::files_under(&dir) {
            let Ok(text) = std::fs::read_to_string(&entry) else { continue };
            for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '$' || c == '_')) {
                if word.starts_with("$s") || word.starts_with("$S") || word.starts_with("_T0") {
                    seen += 1;
                    let _ = demangle(word);
                }
            }
        }
        assert!(seen >= 2, "{seen} mangled names in the corpus");
        assert_eq!(demangle("$s4main1fyyF").as_deref(), Some("main.f() -> ()"));
    }
}
