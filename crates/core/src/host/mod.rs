//! The host's loaded model, lent to skill scripts (protocol `narratoria/1.1`,
//! "Host generation" in docs/protocol.md): the seam a model implements, and
//! the code that serves a script's `generate` requests during one attempt.

pub mod serve;
#[cfg(test)]
mod tests;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::protocol::{FinishReason, GenerateRequest, GenerationError, HostModel, Usage};

/// Text written for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub text: String,
    pub finish_reason: FinishReason,
    pub usage: Usage,
}

/// A loaded model that writes text for skill scripts. Requests are served one
/// at a time, behind the planner's own work.
pub trait Generator: Send + Sync {
    /// What a script is told about the model in its envelope.
    fn offer(&self) -> HostModel;

    /// Where the model runs, in words for a status bar ("on the processor",
    /// "on Radeon RX 7600 (33 of 33 layers)"), when the model knows.
    fn runs_on(&self) -> Option<String> {
        None
    }

    /// Writes text for `request`, passing each piece to `on_delta` as it is
    /// certain. Promises to return by `deadline` (with `FinishReason::Deadline`
    /// and the text so far) and soon after `cancel` is set (with
    /// `FinishReason::Cancelled`); a request it cannot serve is an error with
    /// a protocol failure code.
    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        deadline: Instant,
    ) -> Result<Written, GenerationError>;
}
