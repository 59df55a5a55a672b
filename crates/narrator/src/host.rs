//! The loaded model offered to skill scripts (protocol `narratoria/1.1`,
//! docs/protocol.md "Host generation"): a script's `generate` request becomes
//! a prose request on the same worker, queued behind any plan.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use narratoria_core::host::{Generator, Written};
use narratoria_core::protocol::{
    FailureCode, FinishReason, GenerateRequest, GenerationError, HostModel, Role as WireRole, Usage,
};

use crate::error::NarratorError;
use crate::planner::LlamaPlanner;
use crate::prose::{Finish, ProseSampling};
use crate::writer::{ProseRequest, Role};

/// The most tokens one script request may ask for.
pub const HOST_MAX_TOKENS: u32 = 512;

/// No run of this many tokens of the request's messages (all but a last
/// assistant message, the answer's start) is copied into the answer: small models otherwise echo their prompt (the player's words,
/// the story so far) instead of continuing it.
pub const ECHO_NGRAM: usize = 8;

/// Requests served so far in this process: each one samples with its own
/// seed, so a narration told again (the same prompt) reads differently,
/// while a run of the same requests stays reproducible.
static REQUESTS: AtomicU32 = AtomicU32::new(0);

impl Generator for LlamaPlanner {
    fn runs_on(&self) -> Option<String> {
        Some(self.load_report().placement.describe())
    }

    fn offer(&self) -> HostModel {
        HostModel {
            model: self
                .load_report()
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            // The prose context, the one this model writes in.
            context_tokens: self.load_report().prose_n_ctx,
            max_tokens: HOST_MAX_TOKENS,
            parameters: Some(self.model().n_params()),
        }
    }

    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        deadline: Instant,
    ) -> Result<Written, GenerationError> {
        let prose = self
            .write(&prose_request(request, cancel.clone(), deadline), on_delta)
            .map_err(generation_error)?;
        Ok(Written {
            text: prose.text,
            finish_reason: match prose.finish {
                Finish::Stop => FinishReason::Stop,
                Finish::Length => FinishReason::Length,
                Finish::Deadline => FinishReason::Deadline,
                Finish::Cancelled => FinishReason::Cancelled,
            },
            usage: Usage {
                prompt_tokens: prose.prompt_tokens as u32,
                cached_tokens: prose.cached_tokens as u32,
                completion_tokens: prose.completion_tokens as u32,
                ms: prose.total.as_millis() as u64,
            },
        })
    }
}

/// The prose request a script's `generate` request asks for.
pub fn prose_request(
    request: &GenerateRequest,
    cancel: Arc<AtomicBool>,
    deadline: Instant,
) -> ProseRequest {
    let messages: Vec<(Role, String)> = request
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                WireRole::System => Role::System,
                WireRole::User => Role::User,
                WireRole::Assistant => Role::Assistant,
            };
            (role, m.content.clone())
        })
        .collect();
    // Everything before the answer: the prompt and any worked answers, but not
    // a last assistant message, which is the answer's own start.
    let before_answer = match messages.last() {
        Some((Role::Assistant, _)) => &messages[..messages.len() - 1],
        _ => &messages[..],
    };
    let avoid = before_answer.iter().map(|(_, text)| text.clone()).collect();
    let defaults = ProseSampling::default();
    ProseRequest {
        messages,
        max_tokens: request.max_tokens.min(HOST_MAX_TOKENS) as usize,
        sampling: ProseSampling {
            temperature: request
                .temperature
                .map(|t| t.clamp(0.0, 2.0) as f32)
                .unwrap_or(defaults.temperature),
            seed: defaults
                .seed
                .wrapping_add(REQUESTS.fetch_add(1, Ordering::Relaxed)),
            ..defaults
        },
        stops: request.stop.clone(),
        echo_ngram: ECHO_NGRAM,
        avoid,
        unechoed: request.avoid.clone(),
        json_schema: request.json_schema.as_ref().map(|s| s.to_string()),
        deadline,
        cancel,
    }
}

/// The protocol's failure for a request the model could not serve.
fn generation_error(error: NarratorError) -> GenerationError {
    let code = match &error {
        NarratorError::PromptTooLong { .. }
        | NarratorError::Grammar(_)
        | NarratorError::InvalidOutput(_) => FailureCode::ValidationError,
        NarratorError::Deadline => FailureCode::Timeout,
        _ => FailureCode::InternalError,
    };
    GenerationError {
        code: code.as_str().into(),
        message: error.to_string(),
    }
}
