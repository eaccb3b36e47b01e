//! The thirteen predicates of LCM (Knoop, Rüthing, Steffen), as the seed names and orders
//! them: a leaf module, so that both solvers (`predicates.rs` for whole functions,
//! `regions.rs` per region of the dominator tree) name them without importing each other.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The thirteen predicates, in the order of the seed (and of the tables and the JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pred {
    NComp,
    XComp,
    Transp,
    NdSafe,
    XdSafe,
    NuSafe,
    XuSafe,
    NEarliest,
    XEarliest,
    NDelayed,
    XDelayed,
    NLatest,
    XLatest,
}

impl Pred {
    pub const ALL: [Pred; 13] = [
        Pred::NComp,
        Pred::XComp,
        Pred::Transp,
        Pred::NdSafe,
        Pred::XdSafe,
        Pred::NuSafe,
        Pred::XuSafe,
        Pred::NEarliest,
        Pred::XEarliest,
        Pred::NDelayed,
        Pred::XDelayed,
        Pred::NLatest,
        Pred::XLatest,
    ];

    /// The seed's spelling (`NdSafe`, `XLatest`, …).
    pub fn name(self) -> &'static str {
        match self {
            Pred::NComp => "NComp",
            Pred::XComp => "XComp",
            Pred::Transp => "Transp",
            Pred::NdSafe => "NdSafe",
            Pred::XdSafe => "XdSafe",
            Pred::NuSafe => "NuSafe",
            Pred::XuSafe => "XuSafe",
            Pred::NEarliest => "NEarliest",
            Pred::XEarliest => "XEarliest",
            Pred::NDelayed => "NDelayed",
            Pred::XDelayed => "XDelayed",
            Pred::NLatest => "NLatest",
            Pred::XLatest => "XLatest",
        }
    }
}

impl Pred {
    /// The seed's initial value (初期値): true for the greatest fixpoints (down-safety,
    /// up-safety, delayed), where iteration starts, and for `Transp`, which a block keeps
    /// until an instruction changes an operand; false for the others, which hold only where
    /// their step proves it. The table marks a value as changed when it differs from this.
    pub fn initial(self) -> bool {
        matches!(
            self,
            Pred::Transp | Pred::NdSafe | Pred::XdSafe | Pred::NuSafe | Pred::XuSafe | Pred::NDelayed | Pred::XDelayed
        )
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
