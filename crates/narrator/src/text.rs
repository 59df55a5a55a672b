//! Free text from a local GGUF chat model: one system and one user message
//! through the model's chat template, sampled with temperature and top-p,
//! streamed piece by piece, stopped at end-of-generation or a token budget.
//! For callers that need prose rather than a plan (the storyteller skill).

use std::num::NonZeroU32;
use std::path::Path;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use crate::decode_loop::{draw, write_tokens, Ending, Writing};
use crate::engine::Engine;
use crate::error::NarratorError;
use crate::gguf;
use crate::sampler_chain::{sampler_chain, SamplerSettings};

/// Tokens decoded per batch while reading the prompt.
const PROMPT_CHUNK: usize = 256;

/// One request for prose.
#[derive(Debug, Clone)]
pub struct TextRequest {
    pub system: String,
    pub user: String,
    /// The start of the answer, written for the model (e.g. "You"); it is the
    /// first piece passed on and the start of [`TextOutput::text`].
    pub answer_prefix: String,
    /// 0 picks the most likely token each time; higher is more varied.
    pub temperature: f32,
    /// Nucleus sampling: only the most likely tokens whose probabilities add up to this.
    pub top_p: f32,
    /// Penalty for repeating recent tokens (1.0 = none); small models loop without one.
    pub repeat_penalty: f32,
    /// The most tokens to generate.
    pub max_tokens: usize,
    /// End-of-generation is not allowed before this many tokens (a small
    /// model sometimes ends its answer at once).
    pub min_tokens: usize,
    pub seed: u32,
    /// Threads for prompt reading.
    pub threads: i32,
    /// Threads for generation (see [`crate::default_decode_threads`]).
    pub decode_threads: i32,
    /// Generation stops with [`NarratorError::Deadline`] once this passes.
    pub deadline: Option<Instant>,
    /// The answer ends at its first line break, which is not passed on (past
    /// one, a small model starts a new speaker or a list).
    pub one_paragraph: bool,
}

impl Default for TextRequest {
    fn default() -> TextRequest {
        TextRequest {
            system: String::new(),
            user: String::new(),
            answer_prefix: String::new(),
            temperature: 0.8,
            top_p: 0.95,
            repeat_penalty: 1.15,
            max_tokens: 200,
            min_tokens: 4,
            one_paragraph: false,
            seed: 0x5eed,
            threads: crate::backend::default_threads(),
            decode_threads: crate::backend::default_decode_threads(),
            deadline: None,
        }
    }
}

/// Why generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The model ended its answer.
    EndOfGeneration,
    /// `max_tokens` were written.
    MaxTokens,
    /// The first line break, with [`TextRequest::one_paragraph`].
    LineEnd,
}

/// What one generation produced.
#[derive(Debug, Clone, PartialEq)]
pub struct TextOutput {
    /// Everything the model wrote (the concatenation of the streamed pieces).
    pub text: String,
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    pub stop: StopReason,
    pub load_time: Duration,
    pub total: Duration,
}

/// The context a one-off answer's KV cache is sized for when its layers
/// are placed (its real context follows the prompt).
const TEXT_CONTEXT_HINT: u32 = 4096;

/// Loads the GGUF model at `model_path` (after checking its header), writes
/// an answer to `request` and passes each piece of text to `on_piece` as it is
/// decoded (whole UTF-8 characters only). Promises at most
/// `request.max_tokens` generated tokens, a stop at the model's
/// end-of-generation token (never before `request.min_tokens`), and a typed error — never a panic — for a
/// missing or broken model, a prompt that does not fit, or a passed deadline.
pub fn generate_text(
    model_path: &Path,
    request: &TextRequest,
    on_piece: &mut dyn FnMut(&str),
) -> Result<TextOutput, NarratorError> {
    let start = Instant::now();
    let model = load_model(model_path)?;
    let load_time = start.elapsed();
    let tokens = prompt_tokens(&model, model_path, request)?;
    let mut engine =
        Engine::with_fixed_chunks(&model, new_context(&model, request, &tokens)?, PROMPT_CHUNK);
    // Without a deadline the prompt is read to its end.
    let deadline = request
        .deadline
        .unwrap_or_else(|| start + Duration::from_secs(NO_DEADLINE_SECS));
    let mut batch = LlamaBatch::new(PROMPT_CHUNK, 1);
    let (_, logits_at) = engine.read_prompt(&mut batch, &tokens, deadline)?;

    if !request.answer_prefix.is_empty() {
        on_piece(&request.answer_prefix);
    }
    let mut answer = OneOffAnswer {
        chain: sampler_chain(&model, &sampler_settings(request))?,
        request,
        max_tokens: request.max_tokens.max(1),
        out: TextOutput {
            text: request.answer_prefix.clone(),
            prompt_tokens: tokens.len(),
            completion_tokens: 0,
            stop: StopReason::MaxTokens,
            load_time,
            total: Duration::ZERO,
        },
        on_piece,
    };
    let written = write_tokens(&mut engine, &mut batch, logits_at, &mut answer)?;
    if written.ending == Ending::EndOfGeneration {
        answer.out.stop = StopReason::EndOfGeneration;
    }
    if !written.pending.is_empty() {
        let rest = String::from_utf8_lossy(&written.pending).into_owned();
        answer.out.text.push_str(&rest);
        (answer.on_piece)(&rest);
    }
    answer.out.total = start.elapsed();
    Ok(answer.out)
}

/// A deadline no answer reaches, for a request without one.
const NO_DEADLINE_SECS: u64 = 100 * 365 * 24 * 3600;

/// The model at `path`, after its header is checked, with its layers placed.
fn load_model(path: &Path) -> Result<LlamaModel, NarratorError> {
    let header = gguf::check(path)?;
    let backend = crate::backend::backend()?;
    let placement = crate::gpu::place(&header, crate::gpu::chosen_layers(None), TEXT_CONTEXT_HINT);
    let params = LlamaModelParams::default().with_n_gpu_layers(placement.gpu_layers);
    LlamaModel::load_from_file(backend, path, &params).map_err(|e| NarratorError::ModelLoad {
        path: path.to_path_buf(),
        reason: format!("{e} (the file may be corrupt or of an unsupported architecture)"),
    })
}

/// The request's chat and answer start as tokens, checked to fit the
/// model's trained context with `max_tokens` to spare.
fn prompt_tokens(
    model: &LlamaModel,
    model_path: &Path,
    request: &TextRequest,
) -> Result<Vec<LlamaToken>, NarratorError> {
    let mut prompt = render(model, &request.system, &request.user).map_err(|reason| {
        NarratorError::ModelLoad {
            path: model_path.to_path_buf(),
            reason,
        }
    })?;
    prompt.push_str(&request.answer_prefix);
    let tokens = model.vocab().tokenize(prompt.as_bytes(), true, true);
    if tokens.is_empty() {
        return Err(NarratorError::InvalidOutput("empty prompt".into()));
    }
    let train = model.n_ctx_train().max(512) as usize;
    let needed = tokens.len() + request.max_tokens.max(1);
    if needed > train {
        return Err(NarratorError::PromptTooLong {
            needed,
            available: train,
        });
    }
    Ok(tokens)
}

/// A context just large enough for `tokens` and the answer.
fn new_context<'m>(
    model: &'m LlamaModel,
    request: &TextRequest,
    tokens: &[LlamaToken],
) -> Result<LlamaContext<'m>, NarratorError> {
    let train = model.n_ctx_train().max(512) as usize;
    let needed = tokens.len() + request.max_tokens.max(1);
    let n_ctx = needed.next_multiple_of(256).min(train) as u32;
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(PROMPT_CHUNK as u32)
        .with_n_ubatch(PROMPT_CHUNK as u32)
        .with_n_threads(request.decode_threads.max(1))
        .with_n_threads_batch(request.threads.max(1));
    model
        .new_context(crate::backend::backend()?, params)
        .map_err(|e| NarratorError::Context(e.to_string()))
}

/// A one-off answer as it is written: its own rules for the decode loop
/// (no end before `min_tokens`, the deadline an error, one paragraph).
struct OneOffAnswer<'a> {
    request: &'a TextRequest,
    chain: LlamaSampler,
    max_tokens: usize,
    out: TextOutput,
    on_piece: &'a mut dyn FnMut(&str),
}

impl Writing for OneOffAnswer<'_> {
    fn halt(&mut self) -> Result<bool, NarratorError> {
        match self.request.deadline {
            Some(d) if Instant::now() >= d => Err(NarratorError::Deadline),
            _ => Ok(false),
        }
    }

    fn pick(&mut self, engine: &mut Engine<'_>, at: i32) -> Result<LlamaToken, NarratorError> {
        let too_soon = self.out.completion_tokens < self.request.min_tokens.min(self.max_tokens);
        let vocab = engine.model.vocab();
        draw(engine, at, &mut self.chain, |candidates| {
            if too_soon {
                for d in candidates.data.iter_mut() {
                    if vocab.is_eog(d.id()) {
                        d.set_logit(f32::NEG_INFINITY);
                    }
                }
            }
        })
    }

    fn accept(&mut self, token: LlamaToken) -> Result<(), NarratorError> {
        self.chain.accept(token);
        self.out.completion_tokens += 1;
        Ok(())
    }

    fn take(&mut self, decoded: &str) -> Result<bool, NarratorError> {
        let line_end = decoded.find('\n').filter(|_| self.request.one_paragraph);
        let piece = line_end.map_or(decoded, |at| &decoded[..at]);
        if !piece.is_empty() {
            self.out.text.push_str(piece);
            (self.on_piece)(piece);
        }
        if line_end.is_some() {
            self.out.stop = StopReason::LineEnd;
            return Ok(false);
        }
        Ok(self.out.completion_tokens < self.max_tokens)
    }
}

/// The chat as the model's own template writes it (ChatML when the model has none),
/// ending where the assistant's answer starts.
fn render(model: &LlamaModel, system: &str, user: &str) -> Result<String, String> {
    let template = model
        .chat_template(None)
        .map_err(|e| e.to_string())
        .or_else(|_| LlamaChatTemplate::new("chatml").map_err(|e| e.to_string()))
        .map_err(|e| format!("no usable chat template: {e}"))?;
    let msg = |role: &str, content: &str| {
        LlamaChatMessage::new(role.into(), content.replace('\0', ""))
            .map_err(|e| format!("cannot build a chat message: {e}"))
    };
    let mut chat = Vec::new();
    if !system.is_empty() {
        chat.push(msg("system", system)?);
    }
    chat.push(msg("user", user)?);
    model
        .apply_chat_template(&template, &chat, true)
        .map_err(|e| format!("cannot apply the chat template: {e}"))
}

/// A one-off answer draws from the 40 likeliest tokens, with no grammar.
fn sampler_settings(request: &TextRequest) -> SamplerSettings<'static> {
    SamplerSettings {
        temperature: request.temperature,
        top_k: 40,
        top_p: request.top_p,
        repeat_penalty: request.repeat_penalty,
        seed: request.seed,
        grammar: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_is_a_typed_error() {
        let err = generate_text(
            Path::new("/nonexistent/model.gguf"),
            &TextRequest::default(),
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(err.code(), "model_missing");
    }
}
