//! The storyteller skill's `narrate` script: the turn's narrative as rich
//! prose from a language model, grounded in the player's action, the outputs
//! of the tools it depends on and the session state.
//!
//! The configured provider answers first — the local GGUF model through
//! llama.cpp, an OpenAI-compatible Chat Completions server or Anthropic's
//! Messages API — and each piece of prose is streamed as a `narration_delta`
//! UI event. When it fails, the chain steps down (hosted → local → template;
//! docs/storyteller.md, "The fallback chain"), announcing each step with a
//! warning, so a turn always gets a narrative. The output is
//! `{"narrative": …, "provider": …}`.

#![forbid(unsafe_code)]

pub mod config;
pub mod error;
pub mod fallback;
pub mod guards;
pub mod narrate;
pub mod prompt;
pub mod providers;
pub mod sentences;
pub mod story_so_far;

pub use config::{ApiKey, Provider, StoryConfig, Style};
pub use error::ProviderError;
pub use narrate::{narrate, SPEC};
