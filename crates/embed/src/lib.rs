//! Sentence embeddings with all-MiniLM-L6-v2, loaded once through candle and
//! run on the CPU: the memory skill ranks memories with them and the
//! narrator routes player input to skills with them.

#![deny(unsafe_code)]

pub mod e5;
mod embedder;
pub mod locate;
pub mod mpnet;

pub use embedder::{cosine, Embedder, EmbedderError, Pooled, DIMENSIONS, MAX_TOKENS};
pub use locate::MODEL_FOLDER;
