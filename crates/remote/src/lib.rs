//! The turn's planner and writer on an external OpenAI-compatible server:
//! Ollama, LM Studio, llama.cpp's llama-server, KoboldCpp, or any server
//! that speaks `POST /chat/completions` and `GET /models`.
//!
//! - [`Server`]: where the server is, which model, its key; lists models
//!   and checks that it answers.
//! - [`RemotePlanner`]: the engine's `Planner`; asks for one Plan JSON
//!   object (the plan's schema sent where the server enforces one) and
//!   checks what comes back as strictly as any plan.
//! - [`RemoteWriter`]: the engine's `Generator` for skill scripts,
//!   streamed, within its deadline and cancel.
//! - [`WaitNotice`]: a request waiting for its first byte (a model being
//!   loaded), for a UI to show.
//!
//! Every answer is read within a size bound, every failure is a
//! [`RemoteError`] with a stable [`RemoteError::code`], and no message,
//! transcript or text handed back holds the server's API key. No llama.cpp
//! here: this crate builds without the narrator.

#![deny(unsafe_code)]

mod answer;
mod budget;
mod catalog;
mod chat;
mod error;
mod http;
mod planner;
mod prompt;
mod schema;
mod secret;
mod server;
mod wait;
mod writer;

pub use error::RemoteError;
pub use http::{
    MAX_COMPLETION_BYTES, MAX_ERROR_BYTES, MAX_LINE_BYTES, MAX_LIST_BYTES, MAX_STREAM_BYTES,
};
pub use planner::{PlannerOptions, RemotePlanner, COLD_LOAD_ALLOWANCE, REMOTE_PLAN_TIME};
pub use schema::plan_schema_for;
pub use secret::mask_url_credentials;
pub use server::{Check, Server, ServerKind, LIST_TIMEOUT};
pub use wait::{OnWait, WaitNotice, WAIT_NOTICE_AFTER};
pub use writer::{RemoteWriter, WriterOptions};
