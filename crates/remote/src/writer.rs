//! `RemoteWriter`: the engine's [`Generator`] (the model lent to skill
//! scripts, docs/protocol.md "Host generation") on a remote server. Each
//! request streams; pieces reach the caller as they come.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use narratoria_core::host::{Generator, Written};
use narratoria_core::protocol::{
    FailureCode, FinishReason, GenerateRequest, GenerationError, HostModel, Role, Usage,
};
use serde_json::{json, Value};

use crate::chat::{self, Ask, Ending};
use crate::error::RemoteError;
use crate::http::MAX_COMPLETION_BYTES;
use crate::schema::schema_fields;
use crate::server::Server;
use crate::wait::OnWait;

/// What scripts are told of the remote model, and how it writes for them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WriterOptions {
    /// The model's context window as scripts are told it (the server knows
    /// the real one and does not say it in a standard way).
    pub context_tokens: u32,
    /// The most tokens one request may ask for; a request asking more gets this.
    pub max_tokens: u32,
    /// The model's parameter count, when known.
    pub parameters: Option<u64>,
    /// The temperature of a request that names none.
    pub temperature: f64,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            context_tokens: 8192,
            max_tokens: 1024,
            parameters: None,
            temperature: 0.8,
        }
    }
}

/// The writer on a remote server. Cheap to share across threads; each
/// request is its own connection.
pub struct RemoteWriter {
    server: Server,
    options: WriterOptions,
    on_wait: Option<OnWait>,
    warm: AtomicBool,
}

impl std::fmt::Debug for RemoteWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteWriter")
            .field("server", &self.server)
            .field("options", &self.options)
            .finish()
    }
}

impl RemoteWriter {
    /// A writer on `server` with the default options and no wait notices.
    pub fn new(server: Server) -> RemoteWriter {
        RemoteWriter {
            server,
            options: WriterOptions::default(),
            on_wait: None,
            warm: AtomicBool::new(false),
        }
    }

    /// The same writer with `options`.
    pub fn with_options(mut self, options: WriterOptions) -> RemoteWriter {
        self.options = options;
        self
    }

    /// The same writer, calling `on_wait` when a request has waited past
    /// [`crate::WAIT_NOTICE_AFTER`] for the server's first byte.
    pub fn with_on_wait(mut self, on_wait: Option<OnWait>) -> RemoteWriter {
        self.on_wait = on_wait;
        self
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    fn body(&self, request: &GenerateRequest) -> Value {
        let messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::System => "system",
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                json!({"role": role, "content": m.content})
            })
            .collect();
        let mut body = json!({
            "model": self.server.model,
            "messages": messages,
            "temperature": request
                .temperature
                .filter(|t| t.is_finite())
                .map(|t| t.clamp(0.0, 2.0))
                .unwrap_or(self.options.temperature),
            "max_tokens": request.max_tokens.min(self.options.max_tokens).max(1),
            "stream": true,
            "stream_options": {"include_usage": true}
        });
        if !request.stop.is_empty() {
            body["stop"] = json!(request.stop);
        }
        if let Some(schema) = &request.json_schema {
            for (field, value) in schema_fields(self.server.kind, "output", schema) {
                body[field] = value;
            }
        }
        body
    }
}

impl Generator for RemoteWriter {
    fn offer(&self) -> HostModel {
        HostModel {
            model: self.server.model.clone(),
            context_tokens: self.options.context_tokens,
            max_tokens: self.options.max_tokens,
            parameters: self.options.parameters,
        }
    }

    /// "on Ollama at 127.0.0.1:11434".
    fn runs_on(&self) -> Option<String> {
        Some(format!("on {}", self.server.label()))
    }

    /// Streams the server's answer to `on_delta`. Returns by `deadline`
    /// (`FinishReason::Deadline` with the text so far), soon after `cancel`
    /// is set (`Cancelled`), at the request's token bound or the text bound
    /// of 256 KiB (`Length`); a server that fails is an error with a
    /// protocol failure code.
    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        deadline: Instant,
    ) -> Result<Written, GenerationError> {
        if request.messages.is_empty() {
            return Err(GenerationError {
                code: FailureCode::ValidationError.as_str().into(),
                message: "a generate request needs at least one message".into(),
            });
        }
        let reply = chat::ask(
            Ask {
                server: &self.server,
                body: self.body(request),
                deadline,
                cancel: Some(cancel),
                max_text: MAX_COMPLETION_BYTES,
                on_wait: self.on_wait.as_ref(),
                cold: !self.warm.load(Ordering::Relaxed),
            },
            on_delta,
        )
        .map_err(generation_error)?;
        let finish_reason = match reply.ending {
            Ending::Finished { length } => {
                self.warm.store(true, Ordering::Relaxed);
                if length {
                    FinishReason::Length
                } else {
                    FinishReason::Stop
                }
            }
            Ending::TextLimit => FinishReason::Length,
            Ending::Deadline => {
                if reply.first_byte.is_none() {
                    self.warm.store(false, Ordering::Relaxed);
                }
                FinishReason::Deadline
            }
            Ending::Cancelled => FinishReason::Cancelled,
        };
        let usage = reply.usage.unwrap_or_default();
        Ok(Written {
            text: reply.text,
            finish_reason,
            usage: Usage {
                prompt_tokens: usage.prompt_tokens,
                cached_tokens: usage.cached_tokens,
                completion_tokens: usage.completion_tokens,
                ms: reply.total.as_millis() as u64,
            },
        })
    }
}

/// The protocol's failure for a request the server could not serve.
fn generation_error(e: RemoteError) -> GenerationError {
    let code = match &e {
        RemoteError::Timeout { .. } => FailureCode::Timeout,
        RemoteError::ModelMissing { .. } => FailureCode::NotFound,
        RemoteError::Http {
            status: 401 | 403, ..
        } => FailureCode::Unauthorized,
        RemoteError::Http { status: 429, .. } => FailureCode::RateExceeded,
        // The endpoint should name the address it redirects to.
        RemoteError::Http {
            status: 400 | 422, ..
        }
        | RemoteError::Redirect { .. } => FailureCode::ValidationError,
        RemoteError::Unreachable { .. }
        | RemoteError::Http { .. }
        | RemoteError::BadAnswer { .. }
        | RemoteError::TooLarge { .. } => FailureCode::ExternalServiceError,
    };
    GenerationError {
        code: code.as_str().into(),
        message: e.to_string(),
    }
}
