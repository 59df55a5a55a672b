//! Free text from a local GGUF chat model: one system and one user message
//! through the model's chat template, sampled with temperature and top-p,
//! streamed piece by piece, stopped at end-of-generation or a token budget.
//! For callers that need prose rather than a plan (the storyteller skill).

use std::num::NonZeroU32;
use std::path::Path;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};

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
    let header = gguf::check(model_path)?;
    let backend = crate::backend::backend()?;
    let placement = crate::gpu::place(&header, crate::gpu::chosen_layers(None), TEXT_CONTEXT_HINT);
    let params = LlamaModelParams::default().with_n_gpu_layers(placement.gpu_layers);
    let model = LlamaModel::load_from_file(backend, model_path, &params).map_err(|e| {
        NarratorError::ModelLoad {
            path: model_path.to_path_buf(),
            reason: format!("{e} (the file may be corrupt or of an unsupported architecture)"),
        }
    })?;
    let load_time = start.elapsed();

    let mut prompt = render(&model, &request.system, &request.user).map_err(|reason| {
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
    let max_tokens = request.max_tokens.max(1);
    let train = model.n_ctx_train().max(512) as usize;
    let needed = tokens.len() + max_tokens;
    if needed > train {
        return Err(NarratorError::PromptTooLong {
            needed,
            available: train,
        });
    }
    let n_ctx = needed.next_multiple_of(256).min(train) as u32;
    let threads = request.threads.max(1);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(PROMPT_CHUNK as u32)
        .with_n_ubatch(PROMPT_CHUNK as u32)
        .with_n_threads(request.decode_threads.max(1))
        .with_n_threads_batch(threads);
    let mut ctx = model
        .new_context(backend, params)
        .map_err(|e| NarratorError::Context(e.to_string()))?;
    let past_deadline = || request.deadline.is_some_and(|d| Instant::now() >= d);

    // Read the prompt; logits only for its last token.
    let mut batch = LlamaBatch::new(PROMPT_CHUNK, 1);
    let last = tokens.len() - 1;
    for (chunk_no, chunk) in tokens.chunks(PROMPT_CHUNK).enumerate() {
        if past_deadline() {
            return Err(NarratorError::Deadline);
        }
        batch.clear();
        for (i, &t) in chunk.iter().enumerate() {
            let p = chunk_no * PROMPT_CHUNK + i;
            batch
                .add(t, p as i32, &[0], p == last)
                .map_err(|e| NarratorError::Decode(e.to_string()))?;
        }
        ctx.decode(&mut batch)
            .map_err(|e| NarratorError::Decode(e.to_string()))?;
    }

    let mut chain = sampler_chain(&model, &sampler_settings(request))?;
    let vocab = model.vocab();
    if !request.answer_prefix.is_empty() {
        on_piece(&request.answer_prefix);
    }
    let mut out = TextOutput {
        text: request.answer_prefix.clone(),
        prompt_tokens: tokens.len(),
        completion_tokens: 0,
        stop: StopReason::MaxTokens,
        load_time,
        total: Duration::ZERO,
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut pos = tokens.len();
    let mut logits_at = batch.n_tokens() - 1;
    while out.completion_tokens < max_tokens {
        if past_deadline() {
            return Err(NarratorError::Deadline);
        }
        let mut candidates = ctx.token_data_array_ith(logits_at);
        if out.completion_tokens < request.min_tokens.min(max_tokens) {
            for d in candidates.data.iter_mut() {
                if vocab.is_eog(d.id()) {
                    d.set_logit(f32::NEG_INFINITY);
                }
            }
        }
        candidates.apply_sampler(&mut chain);
        let token = candidates
            .selected_token()
            .ok_or_else(|| NarratorError::Decode("the sampler selected no token".into()))?;
        if vocab.is_eog(token) {
            out.stop = StopReason::EndOfGeneration;
            break;
        }
        chain.accept(token);
        out.completion_tokens += 1;

        pending.extend(vocab.token_to_piece(token, false, None));
        let decoded = take_utf8(&mut pending);
        let line_end = decoded.find('\n').filter(|_| request.one_paragraph);
        let piece = line_end.map_or(decoded.as_str(), |at| &decoded[..at]);
        if !piece.is_empty() {
            out.text.push_str(piece);
            on_piece(piece);
        }
        if line_end.is_some() {
            out.stop = StopReason::LineEnd;
            break;
        }
        if out.completion_tokens >= max_tokens {
            break;
        }
        batch.clear();
        batch
            .add(token, pos as i32, &[0], true)
            .map_err(|e| NarratorError::Decode(e.to_string()))?;
        ctx.decode(&mut batch)
            .map_err(|e| NarratorError::Decode(e.to_string()))?;
        pos += 1;
        logits_at = 0;
    }
    if !pending.is_empty() {
        let rest = String::from_utf8_lossy(&pending).into_owned();
        out.text.push_str(&rest);
        on_piece(&rest);
    }
    out.total = start.elapsed();
    Ok(out)
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

/// Takes the complete UTF-8 characters from the front of `pending`, leaving an
/// unfinished character's bytes for the next token; invalid bytes become U+FFFD.
pub(crate) fn take_utf8(pending: &mut Vec<u8>) -> String {
    match std::str::from_utf8(pending) {
        Ok(s) => {
            let s = s.to_owned();
            pending.clear();
            s
        }
        Err(e) if e.error_len().is_some() => {
            let s = String::from_utf8_lossy(pending).into_owned();
            pending.clear();
            s
        }
        Err(e) => {
            let valid = e.valid_up_to();
            let s = String::from_utf8_lossy(&pending[..valid]).into_owned();
            pending.drain(..valid);
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_pieces_wait_for_whole_characters() {
        let bytes = "é!".as_bytes();
        let mut pending = vec![bytes[0]];
        assert_eq!(take_utf8(&mut pending), "");
        pending.extend(&bytes[1..]);
        assert_eq!(take_utf8(&mut pending), "é!");
        assert!(pending.is_empty());
        let mut bad = vec![0xff, b'a'];
        assert_eq!(take_utf8(&mut bad), "\u{fffd}a");
    }

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
