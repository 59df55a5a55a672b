//! Sentence embeddings with all-MiniLM-L6-v2, loaded once through candle and
//! run on the CPU: the memory skill ranks memories with them and the
//! narrator routes player input to skills with them.

#![deny(unsafe_code)]

mod embedder;

pub use embedder::{cosine, Embedder, EmbedderError, Pooled, DIMENSIONS, MAX_TOKENS};

/// The model's folder name under a `models/` folder.
pub const MODEL_FOLDER: &str = "all-MiniLM-L6-v2";
