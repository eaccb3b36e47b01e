//! The printed form of a SIL instruction, shared between copies of a function.
//!
//! Every pass returns a new function and the views keep snapshots, so functions are cloned
//! whole; a SIL instruction's pieces (a few strings each) were most of what a clone copied
//! and a drop freed — on a 10^5-block function, a large part of every SIL pass's time
//! (issue 17). Passes rarely edit an instruction's printed form, so a clone shares it and
//! an edit copies it first ([`Arc::make_mut`]); reading and writing go through `Deref`, as
//! with the `Vec` it was.
//!
//! The parser goes further and hands out one `Pieces` per distinct template
//! ([`super::Interner::pieces`]): a 10^5-block function repeats a few dozen templates
//! (`builtin "add_Int64"(… : $Builtin.Int64, …)`, `br …`), so its instructions share a few
//! dozen blocks that stay in cache, instead of a block per instruction that every clone,
//! drop and printing of the function had to fetch from memory (issue 17).

use super::Piece;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pieces(Arc<Vec<Piece>>);

impl Pieces {
    /// Whether the two are one allocation (an interned template, or clones of one).
    pub fn shares_with(&self, other: &Pieces) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Pieces {
    type Target = Vec<Piece>;
    fn deref(&self) -> &Vec<Piece> {
        &self.0
    }
}

impl DerefMut for Pieces {
    fn deref_mut(&mut self) -> &mut Vec<Piece> {
        Arc::make_mut(&mut self.0)
    }
}

/// For the interner's lookups by a plain list: hashes and compares as the list does.
impl std::borrow::Borrow<[Piece]> for Pieces {
    fn borrow(&self) -> &[Piece] {
        &self.0
    }
}

impl From<Vec<Piece>> for Pieces {
    fn from(v: Vec<Piece>) -> Pieces {
        Pieces(Arc::new(v))
    }
}

impl<'a> IntoIterator for &'a Pieces {
    type Item = &'a Piece;
    type IntoIter = std::slice::Iter<'a, Piece>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for Pieces {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Pieces {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pieces, D::Error> {
        Vec::deserialize(d).map(Pieces::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_of_a_clone_leaves_the_original_alone() {
        let a = Pieces::from(vec![Piece::Text("br ".into()), Piece::Succ(0)]);
        let mut b = a.clone();
        b.push(Piece::Text(" // x".into()));
        b[0] = Piece::Text("jump ".into());
        assert_eq!(*a, vec![Piece::Text("br ".into()), Piece::Succ(0)]);
        assert_eq!(b.len(), 3);
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(serde_json::from_str::<Pieces>(&json).unwrap(), b);
    }
}
