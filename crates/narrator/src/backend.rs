//! The one llama.cpp backend of the process. llama.cpp refuses a second
//! initialisation while one lives, so every model in the process shares it.

use std::sync::OnceLock;

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::{send_logs_to_tracing, LogOptions};

use crate::error::NarratorError;

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

/// The process-wide llama.cpp backend, initialised on first use. llama.cpp's
/// own log lines are routed to `tracing` (target `llama_cpp_2`), so nothing is
/// written to stderr unless a subscriber asks for it.
pub fn backend() -> Result<&'static LlamaBackend, NarratorError> {
    BACKEND
        .get_or_init(|| {
            send_logs_to_tracing(LogOptions::default().with_logs_enabled(true));
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| NarratorError::Backend(e.clone()))
}

/// The number of threads generation uses: the machine's core count.
pub fn default_threads() -> i32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as i32)
        .unwrap_or(2)
}
