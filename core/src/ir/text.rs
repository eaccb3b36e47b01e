//! Shared, immutable text for what many instructions and values repeat: SIL type literals
//! (`$Builtin.Int64`, `$*T`) and immediate names (`add_Int64`, `#S.x`).
//!
//! A function of 10^5 blocks has a few dozen distinct types but hundreds of thousands of
//! typed instructions and values, and every pass clones its input whole: as `String`s each
//! clone was an allocation and a copy, each drop a free — most of a SIL pass's time at that
//! size (issue 17). A `Text` is an `Arc<str>`: a clone is a count increment on a block the
//! parser shares between equal texts ([`Interner`]), so the copies also cost no memory.
//! It derefs to `str`, compares with `str`/`&str`/`String`, and converts from `String` and
//! `&str` with `.into()`.

use super::{Piece, Pieces};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text(Arc<str>);

impl Text {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the two are one allocation (equal text interned once, or clones of one).
    pub fn shares_with(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Default for Text {
    fn default() -> Text {
        Text::from("")
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Arc::from(s))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text(Arc::from(s.as_str()))
    }
}

impl From<std::borrow::Cow<'_, str>> for Text {
    fn from(s: std::borrow::Cow<'_, str>) -> Text {
        Text(Arc::from(s))
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.0.to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        String::deserialize(d).map(Text::from)
    }
}

/// Hands out one [`Text`] per distinct string, and one [`Pieces`] per distinct instruction
/// template: the parser's, so that every instruction and value of the same type, and every
/// instruction printed from the same template, share one allocation. Hashed with foldhash:
/// std's SipHash was a visible part of parsing.
#[derive(Default)]
pub struct Interner {
    set: foldhash::HashSet<Text>,
    templates: foldhash::HashSet<Pieces>,
    scratch: Vec<Piece>,
    /// The last text handed out: consecutive lines mostly repeat a type
    /// (`$Builtin.Int64` operand after operand), and a comparison is cheaper than a hash.
    last: Option<Text>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Text {
        if let Some(t) = self.last.as_ref().filter(|t| t.as_str() == s) {
            return t.clone();
        }
        let t = match self.set.get(s) {
            Some(t) => t.clone(),
            None => {
                let t = Text::from(s);
                self.set.insert(t.clone());
                t
            }
        };
        self.last = Some(t.clone());
        t
    }

    /// The shared [`Pieces`] equal to `pieces` (an edit of one copies it first, so sharing
    /// is invisible to passes).
    pub fn pieces(&mut self, pieces: Vec<Piece>) -> Pieces {
        if let Some(p) = self.templates.get(&pieces[..]) {
            return p.clone();
        }
        let p = Pieces::from(pieces);
        self.templates.insert(p.clone());
        p
    }

    /// [`Interner::pieces`] of the list `fill` writes into a scratch list kept here (holding
    /// the last template's strings, which `fill` may reuse): a template seen before is found
    /// without allocating, and only a new one is copied out.
    pub fn template(&mut self, fill: impl FnOnce(&mut Vec<Piece>)) -> Pieces {
        fill(&mut self.scratch);
        if let Some(p) = self.templates.get(&self.scratch[..]) {
            return p.clone();
        }
        let p = Pieces::from(self.scratch.clone());
        self.templates.insert(p.clone());
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_share_one_allocation_and_compare_as_strings() {
        let mut i = Interner::default();
        let a = i.intern("Builtin.Int64");
        let b = i.intern(&String::from("Builtin.Int64"));
        let c = i.intern("Builtin.Int1");
        // Back to a text seen before the last one: the same allocation again.
        assert!(i.intern("Builtin.Int64").shares_with(&a));
        assert!(i.intern("Builtin.Int1").shares_with(&c));
        assert!(a.shares_with(&b));
        assert!(!a.shares_with(&c));
        assert!(!a.shares_with(&Text::from("Builtin.Int64")));
        assert_eq!(a, "Builtin.Int64");
        assert_eq!(a, String::from("Builtin.Int64"));
        assert_ne!(a, c);
        assert_eq!(a.len(), 13);
        assert!(a.starts_with("Builtin."));
        assert_eq!(format!("{a} {a:?}"), "Builtin.Int64 \"Builtin.Int64\"");
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, "\"Builtin.Int64\"");
        assert_eq!(serde_json::from_str::<Text>(&json).unwrap(), a);
    }

    #[test]
    fn equal_templates_share_one_allocation_and_an_edit_unshares() {
        let mut i = Interner::default();
        let t = |s: &str| Piece::Text(s.to_string());
        let a = i.pieces(vec![t("br "), Piece::Succ(0)]);
        let b = i.pieces(vec![t("br "), Piece::Succ(0)]);
        let c = i.pieces(vec![t("br "), Piece::Succ(1)]);
        let d = i.pieces(vec![t("br"), Piece::Succ(0)]);
        let e = i.pieces(Vec::new());
        assert!(a.shares_with(&b));
        assert!(!a.shares_with(&c) && !a.shares_with(&d) && !c.shares_with(&d));
        assert!(i.pieces(Vec::new()).shares_with(&e));
        assert_eq!(*a, vec![t("br "), Piece::Succ(0)]);
        let mut edited = b.clone();
        edited.push(t(" // x"));
        assert!(!edited.shares_with(&a));
        assert_eq!(*a, vec![t("br "), Piece::Succ(0)]);
        assert_eq!(*b, *a);
        assert_eq!(edited.len(), 3);
    }
}
