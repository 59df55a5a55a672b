//! Why the narrator could not load a model or write a plan.

use std::path::PathBuf;

use narratoria_core::planner::PlannerError;

/// Everything that can go wrong in this crate, each with a stable code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NarratorError {
    #[error(
        "model file {0} does not exist (run scripts/fetch-model.sh to fetch the default model)"
    )]
    ModelMissing(PathBuf),
    #[error("model file {path} cannot be read: {reason}")]
    ModelUnreadable { path: PathBuf, reason: String },
    #[error("model file {path} is not a GGUF model: {reason}")]
    NotGguf { path: PathBuf, reason: String },
    #[error("model file {path} is truncated: {reason}")]
    ModelTruncated { path: PathBuf, reason: String },
    #[error("llama.cpp could not load model {path}: {reason}")]
    ModelLoad { path: PathBuf, reason: String },
    #[error("llama.cpp could not start: {0}")]
    Backend(String),
    #[error("this processor lacks {0}, which this build of the narrator needs; no model is loaded and the rule-based planner answers")]
    Cpu(String),
    #[error("llama.cpp could not create an inference context: {0}")]
    Context(String),
    #[error("the prompt needs {needed} tokens but the context holds {available}")]
    PromptTooLong { needed: usize, available: usize },
    #[error("the plan grammar was rejected: {0}")]
    Grammar(String),
    #[error("llama.cpp failed while generating: {0}")]
    Decode(String),
    #[error("generation exceeded its deadline")]
    Deadline,
    #[error("the model's output is not a valid plan: {0}")]
    InvalidOutput(String),
    #[error("the narrator's worker thread has stopped")]
    WorkerGone,
}

impl NarratorError {
    /// The code the UI and CLI show, e.g. `model_missing`.
    pub fn code(&self) -> &'static str {
        match self {
            NarratorError::ModelMissing(_) => "model_missing",
            NarratorError::ModelUnreadable { .. } => "model_unreadable",
            NarratorError::NotGguf { .. } => "model_not_gguf",
            NarratorError::ModelTruncated { .. } => "model_truncated",
            NarratorError::ModelLoad { .. } => "model_load_failed",
            NarratorError::Backend(_) => "llama_backend",
            NarratorError::Cpu(_) => "cpu_unsupported",
            NarratorError::Context(_) => "llama_context",
            NarratorError::PromptTooLong { .. } => "prompt_too_long",
            NarratorError::Grammar(_) => "grammar_invalid",
            NarratorError::Decode(_) => "decode_failed",
            NarratorError::Deadline => "deadline",
            NarratorError::InvalidOutput(_) => "invalid_output",
            NarratorError::WorkerGone => "worker_gone",
        }
    }
}

impl From<NarratorError> for PlannerError {
    fn from(e: NarratorError) -> PlannerError {
        match e {
            NarratorError::Deadline => PlannerError::Deadline,
            NarratorError::InvalidOutput(m) => PlannerError::InvalidOutput(m),
            other => PlannerError::Model(other.to_string()),
        }
    }
}
