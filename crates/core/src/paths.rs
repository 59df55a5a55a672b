//! Where Narratoria keeps a user's files: the one rule is
//! `narratoria_folders`'s, shared with the scripts that look for the same
//! folders (the storyteller's own model). Re-exported here so the engine's
//! callers keep naming `narratoria_core::paths`.

pub use narratoria_folders::*;
