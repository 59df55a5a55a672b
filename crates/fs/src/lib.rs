//! File rules every crate shares (docs/security.md, "Names that become
//! paths"): a name from outside — a player, a catalog, a card, the web page —
//! becomes a path only inside the folder it belongs to, and a file that
//! replaces another is written whole or not at all.

mod atomic;
mod name;

pub use atomic::write_atomically;
pub use name::{child, NameError, MAX_NAME_BYTES};
