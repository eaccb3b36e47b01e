//! Questions a viewer asks of a function's classified types, answered from what
//! [`FunctionTypes`] computed: the names of the generic parameters a what-if can substitute,
//! each value's type and class (what a hover shows), and where in a file a declaration stub
//! goes. Nothing here classifies anew.

use super::classify::Class;
use super::function::{signature, Category, FunctionTypes};
use crate::ir::{Function, Type, ValueId};

/// The names of `f`'s generic parameters, in the order of [`FunctionTypes::generics`]
/// (`T` of `<T: AnyObject>`): the keys of a what-if substitution.
pub fn generic_names(f: &Function) -> Vec<String> {
    signature(f).map(|s| s.generics.into_iter().map(|g| g.name).collect()).unwrap_or_default()
}

/// A value of the function with a written type, and that type's row in [`FunctionTypes`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValueType {
    pub value: ValueId,
    /// The value as written (`%3`, or a Bril variable's name).
    pub name: String,
    /// The type as written, without `$` (`*Box<Any>`, `int`).
    pub ty: String,
    pub category: Category,
    pub class: Class,
}

impl ValueType {
    /// One line for a tooltip: `` `%3 : $Box<Any>` — address-only ``; for an address, the
    /// class of the type it points to.
    pub fn describe(&self) -> String {
        let sil = self.name.starts_with('%');
        let (dollar, colon) = if sil { ("$", " : ") } else { ("", ": ") };
        let class = match self.category {
            Category::Object => self.class.to_string(),
            Category::Address => format!("{} (an address of it)", self.class),
        };
        format!("`{}{colon}{dollar}{}` — {class}", self.name, self.ty)
    }
}

/// Every value of `f` that has a written type, with the class its row in `ft` gives.
pub fn value_types(f: &Function, ft: &FunctionTypes) -> Vec<ValueType> {
    let mut out = Vec::new();
    for (id, d) in f.values.iter() {
        let (ty, name) = match &d.ty {
            Some(Type::Sil(t)) => (t.trim().to_string(), format!("%{}", d.name)),
            Some(t) => (t.to_string(), d.name.to_string()),
            None => continue,
        };
        let (category, class) = match ft.row(&ty) {
            Some(r) => (r.category, r.verdict.class),
            None => {
                let (c, v) = ft.classify(&ty);
                (c, v.class)
            }
        };
        out.push(ValueType { value: id, name, ty, category, class });
    }
    out
}

/// Where a declaration added to a SIL file goes: after the `sil_stage` and `import` lines
/// that precede the first function, or at the very top if there are none. A byte offset at a
/// line start.
pub fn declaration_insertion_point(text: &str) -> usize {
    let mut at = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("sil ") || t.starts_with("sil_global") || t.starts_with("sil_vtable") {
            break;
        }
        offset += line.len();
        if t.starts_with("import ") || t.starts_with("sil_stage ") {
            at = offset;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sil::types::{env_of, FunctionTypes};
    use crate::{parse_module, Lang};

    const SRC: &str = "sil_stage canonical\n\nimport Swift\n\nstruct Box<T> {\n  var value: T\n}\n\nsil @f : $@convention(thin) <T, U: AnyObject> (@in_guaranteed Box<T>, Box<Int>) -> () {\nbb0(%0 : $*Box<T>, %1 : $Box<Int>):\n  %2 = tuple ()\n  return %2 : $()\n}\n";

    #[test]
    fn generic_names_values_and_the_stub_position() {
        let m = parse_module(Lang::Sil, "t.sil", SRC).expect("parses");
        let f = m.bodies().next().expect("a body");
        assert_eq!(generic_names(f), ["T", "U"]);
        let ft = FunctionTypes::new(f, env_of(&m));
        let vt = value_types(f, &ft);
        let d: Vec<String> = vt.iter().map(ValueType::describe).collect();
        assert!(d.contains(&"`%0 : $*Box<T>` — address-only (an address of it)".to_string()), "{d:?}");
        assert!(d.contains(&"`%1 : $Box<Int>` — trivial".to_string()), "{d:?}");
        let at = declaration_insertion_point(SRC);
        assert_eq!(&SRC[..at], "sil_stage canonical\n\nimport Swift\n");
        assert_eq!(declaration_insertion_point("sil @f : $() -> () {\n}\n"), 0);
        assert_eq!(declaration_insertion_point(""), 0);
    }
}
