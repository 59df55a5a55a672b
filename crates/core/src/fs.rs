//! Writing files so that a crash never leaves half of one behind, and names
//! that stay inside their folder: one home, `narratoria-fs`.

pub use narratoria_fs::*;
