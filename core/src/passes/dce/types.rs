//! What DCE asks of a SIL type — an operand's type, and whether a type is trivial — answered
//! by [`crate::sil::types`]. Both `classify` (roots) and `ossa` (end-of-lifetime repairs) ask.

pub(crate) use crate::sil::types::operand::operand_type;

/// Whether a SIL type (text after `$`) is trivial *for certain*, by the classification of
/// [`crate::sil::types`] with the standard library's declarations (a wrong "trivial" would
/// delete a `fix_lifetime` that keeps an object alive, so `unknown` counts as not trivial,
/// and an address is never trivial here).
pub fn is_trivial_type(t: &str) -> bool {
    use crate::sil::types::{Class, Classifier, TypeEnv};
    static ENV: std::sync::OnceLock<TypeEnv> = std::sync::OnceLock::new();
    let t = t.trim();
    if t.starts_with('*') {
        return false;
    }
    let env = ENV.get_or_init(TypeEnv::default);
    crate::sil::types::parse_type(t).is_ok_and(|ty| Classifier::new(env, &[], &[]).classify(&ty).class == Class::Trivial)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triviality_follows_the_documented_rule() {
        for t in ["Int32", "Builtin.Int1", "Bool", "()", "(Int, Builtin.Int64)", "(x: Int, y: Bool)", "Builtin.RawPointer", "UnsafePointer<Int>", "Optional<Int>"] {
            assert!(is_trivial_type(t), "{t}");
        }
        for t in ["*Int32", "S", "AnyObject", "(S, AnyObject)", "Builtin.NativeObject", "String", "Optional<String>", "(Int, String)", "Klass"] {
            assert!(!is_trivial_type(t), "{t}");
        }
    }

}
