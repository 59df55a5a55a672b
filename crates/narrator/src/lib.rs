//! The in-process llama.cpp planner: loads a GGUF model, writes plans under a
//! grammar, streams the narrative, and keeps the prompt prefix's KV cache.
//!
//! ```no_run
//! use narratoria_narrator::{LlamaPlanner, LoadOptions};
//! let planner = LlamaPlanner::load("models/SmolLM2-135M-Instruct.Q4_1.gguf".as_ref(), LoadOptions::default())?;
//! # Ok::<(), narratoria_narrator::NarratorError>(())
//! ```

#![forbid(unsafe_code)]

pub mod backend;
pub mod cache_reuse;
pub mod catalog;
pub mod compact;
mod decode_loop;
pub mod echo;
pub mod echo_words;
mod engine;
pub mod error;
mod examples;
pub mod gguf;
pub mod gpu;
pub mod host;
pub mod input_choices;
pub mod meaning_choices;
pub mod planner;
pub mod prompt;
pub mod prose;
pub mod routing;
mod sampler_chain;
mod segments;
pub mod state_choices;
pub mod stops;
pub mod stream;
#[cfg(test)]
mod test_cards;
pub mod text;
mod worker;
pub mod writer;

pub use backend::{backend, default_decode_threads, default_threads, openmp_wait_is_passive};
pub use error::NarratorError;
pub use planner::{
    progress_channel, LlamaPlanner, LoadOptions, LoadReport, PlannerOptions, Progress,
};
pub use prompt::{Levers, Prefilter};
pub use prose::{Finish, Prose, ProseSampling};
pub use writer::{ProseRequest, Role};

/// The default model's file name under `models/`.
pub use narratoria_core::paths::DEFAULT_MODEL_FILE;

/// The default model's SHA-256.
pub const DEFAULT_MODEL_SHA256: &str =
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
