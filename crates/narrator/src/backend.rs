//! The one llama.cpp backend of the process. llama.cpp refuses a second
//! initialisation while one lives, so every model in the process shares it.

use std::sync::OnceLock;

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::{send_logs_to_tracing, LogOptions};

use crate::error::NarratorError;

static BACKEND: OnceLock<Result<LlamaBackend, BackendError>> = OnceLock::new();

/// Why the backend could not start, kept for every later caller.
#[derive(Debug, Clone)]
enum BackendError {
    /// The processor lacks these extensions.
    Cpu(String),
    /// llama.cpp's own initialisation failed.
    Init(String),
}

/// The process-wide llama.cpp backend, initialised on first use. llama.cpp's
/// own log lines are routed to `tracing` (target `llama_cpp_2`), so nothing is
/// written to stderr unless a subscriber asks for it.
pub fn backend() -> Result<&'static LlamaBackend, NarratorError> {
    BACKEND
        .get_or_init(|| {
            let missing = missing_cpu_features();
            if !missing.is_empty() {
                return Err(BackendError::Cpu(missing.join(", ")));
            }
            if !openmp_wait_is_passive() {
                tracing::warn!("OMP_WAIT_POLICY is not passive: generation slows down badly when the machine is busy");
            }
            send_logs_to_tracing(LogOptions::default().with_logs_enabled(true));
            LlamaBackend::init().map_err(|e| BackendError::Init(e.to_string()))
        })
        .as_ref()
        .map_err(|e| match e {
            BackendError::Cpu(missing) => NarratorError::Cpu(missing.clone()),
            BackendError::Init(reason) => NarratorError::Backend(reason.clone()),
        })
}

/// The instruction-set extensions llama.cpp is built with here (the
/// llama-cpp-sys-2 build turns them on for x86-64; see docs/models.md,
/// "Processors") that this processor lacks. Running llama.cpp without them
/// would end the process with an illegal instruction, so no model is loaded
/// and the rule-based planner answers instead.
pub fn missing_cpu_features() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut missing = Vec::new();
        if !std::arch::is_x86_feature_detected!("avx") {
            missing.push("AVX");
        }
        if !std::arch::is_x86_feature_detected!("avx2") {
            missing.push("AVX2");
        }
        if !std::arch::is_x86_feature_detected!("fma") {
            missing.push("FMA");
        }
        if !std::arch::is_x86_feature_detected!("f16c") {
            missing.push("F16C");
        }
        missing
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// The number of threads that read prompts: the machine's core count.
pub fn default_threads() -> i32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as i32)
        .unwrap_or(2)
}

/// The number of threads that decode one token at a time: 1 when OpenMP's
/// threads sleep while they wait (each step of a one-token decode is too
/// small to share: 61–65 tokens/s with one thread against 33–41 with two on
/// a 2-core machine, see docs/narrator.md), else the core count.
pub fn default_decode_threads() -> i32 {
    if openmp_wait_is_passive() {
        1
    } else {
        default_threads()
    }
}

/// Whether llama.cpp's OpenMP threads sleep while they wait (`OMP_WAIT_POLICY=passive`).
///
/// By default they spin. On a busy machine (skill scripts, a UI, a build) a
/// spinning thread holds a core the other thread needs: with two threads and a
/// load average of 12, decoding fell from about 19 to 1–2 tokens/s here. The
/// OpenMP runtime reads the policy from the environment when the process
/// starts, so it cannot be changed from here: launchers should set it.
pub fn openmp_wait_is_passive() -> bool {
    std::env::var("OMP_WAIT_POLICY").is_ok_and(|v| v.eq_ignore_ascii_case("passive"))
}
