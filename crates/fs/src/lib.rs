//! File rules every crate shares (docs/security.md, "Names that become
//! paths"): a name from outside — a player, a catalog, a card, the web page —
//! becomes a path only inside the folder it belongs to, a file from outside
//! is read only when it is a regular file within its bound, and a file that
//! replaces another is written whole or not at all.

mod atomic;
mod name;
mod read;

pub use atomic::write_atomically;
pub use name::{child, NameError, MAX_NAME_BYTES};
pub use read::{read_regular, ReadError};
