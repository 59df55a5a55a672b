//! The memory skill: summaries of story events kept in SQLite, found again
//! by meaning (all-MiniLM-L6-v2 embeddings, sqlite-vec) and by words (FTS5
//! bm25), ranked together.

pub mod config;
pub mod embedder;
pub mod rank;
mod scope;
pub mod store;

pub use config::MemoryConfig;
pub use embedder::{Embedder, EmbedderError, DIMENSIONS};
pub use rank::{Candidate, Recalled};
pub use store::{MemoryStore, NewMemory, RecallTimings};
