//! [`Deferred`]: a part of a result made when first read. Copy propagation's trace keeps the
//! available-copies table of every copy this way (`lazy.rs`), so that the pass does not
//! solve and list a table that grows faster than the function unless the trace is written
//! or shown.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::{Arc, OnceLock};

/// A value made when first read (through `Deref`), then kept. It compares, prints and
/// serializes as that value, so a trace with deferred parts writes the same JSON as one
/// with every part made at once; one read back from JSON is made already.
pub struct Deferred<T> {
    value: OnceLock<T>,
    make: Option<Arc<dyn Fn() -> T + Send + Sync>>,
}

impl<T> Deferred<T> {
    /// A value made already.
    pub fn ready(value: T) -> Deferred<T> {
        Deferred { value: OnceLock::from(value), make: None }
    }

    /// A value `make` makes when first read.
    pub fn new(make: impl Fn() -> T + Send + Sync + 'static) -> Deferred<T> {
        Deferred { value: OnceLock::new(), make: Some(Arc::new(make)) }
    }

    /// Whether the value has been made (for the tests: the pass must not make it).
    pub fn is_made(&self) -> bool {
        self.value.get().is_some()
    }
}

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // `make` is absent only where the value was given ready (`ready`, `From`).
        self.value.get_or_init(|| match &self.make {
            Some(make) => make(),
            None => unreachable!("a Deferred without a maker is made at construction"),
        })
    }
}

impl<T: Clone> Clone for Deferred<T> {
    fn clone(&self) -> Self {
        Deferred { value: self.value.clone(), make: self.make.clone() }
    }
}

impl<T: Default> Default for Deferred<T> {
    fn default() -> Self {
        Deferred::ready(T::default())
    }
}

impl<T> From<T> for Deferred<T> {
    fn from(value: T) -> Self {
        Deferred::ready(value)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Deferred<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Deferred<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Deferred<T> {}

impl<T: Serialize> Serialize for Deferred<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Deferred<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Deferred::ready)
    }
}
