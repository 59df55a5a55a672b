//! One llama.cpp context and what its KV cache holds: reading a prompt in
//! batches while keeping what the cache already has (crate::cache_reuse),
//! and reading back the tokens an answer draws (crate::decode_loop). Owned by
//! the worker thread (plans and prose) or by a one-off call (crate::text).

use std::time::{Duration, Instant};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use crate::cache_reuse::{self, Reuse};
use crate::error::NarratorError;

/// The most tokens read in one batch (llama.cpp's batch size).
pub(crate) const MAX_CHUNK: usize = 512;
/// The fewest tokens read in one batch while reading a long prompt.
const MIN_CHUNK: usize = 32;
/// How long one batch may take at most. The deadline is checked between
/// batches, and a batch is also sized to take at most half the time left, so
/// a read stops close to its deadline.
const CHUNK_TIME: Duration = Duration::from_secs(2);
/// The shortest run of cached tokens moved rather than read again
/// (crate::cache_reuse): shorter runs are cheaper to read than to find.
const REUSE_MIN_RUN: usize = 24;

/// One llama.cpp context and what its cache holds.
pub(crate) struct Engine<'m> {
    pub(crate) model: &'m LlamaModel,
    pub(crate) ctx: LlamaContext<'m>,
    /// The tokens whose keys and values sit in the cache (sequence 0), in order.
    pub(crate) cached: Vec<LlamaToken>,
    /// Prompt tokens read per second, as last measured.
    read_rate: f64,
    /// Whether cached runs may move to new positions (a model whose
    /// positions are plain RoPE or none; multi-section RoPE cannot shift).
    can_shift: bool,
    /// Read prompts in batches of this many tokens rather than by speed.
    fixed_chunk: Option<usize>,
}

/// Whether `model`'s cached positions can move: llama.cpp shifts plain and
/// NeoX RoPE (and models without RoPE), not multi-section RoPE.
fn can_shift(model: &LlamaModel) -> bool {
    use llama_cpp_2::model::RopeType;
    let plain = matches!(
        model.rope_type(),
        None | Some(RopeType::Norm | RopeType::NeoX)
    );
    let arch = model
        .meta_val_str("general.architecture")
        .unwrap_or_default();
    plain && arch != "step35"
}

impl<'m> Engine<'m> {
    pub(crate) fn new(model: &'m LlamaModel, ctx: LlamaContext<'m>) -> Engine<'m> {
        Engine {
            model,
            ctx,
            cached: Vec::new(),
            // A cautious start (a busy 2-core machine reads ≈ 75 tokens/s).
            read_rate: 100.0,
            can_shift: can_shift(model),
            fixed_chunk: None,
        }
    }

    /// An engine that reads prompts in batches of `chunk` tokens (at most the
    /// context's batch size), whatever the time left.
    pub(crate) fn with_fixed_chunks(
        model: &'m LlamaModel,
        ctx: LlamaContext<'m>,
        chunk: usize,
    ) -> Engine<'m> {
        Engine {
            fixed_chunk: Some(chunk),
            ..Engine::new(model, ctx)
        }
    }

    /// How many tokens the next batch of a prompt holds: sized from the
    /// speed of the last one to take at most [`CHUNK_TIME`] and half the
    /// time left before `deadline`.
    fn chunk_size(&self, now: Instant, deadline: Instant) -> usize {
        if let Some(chunk) = self.fixed_chunk {
            return chunk;
        }
        let budget = CHUNK_TIME.min((deadline - now) / 2).as_secs_f64();
        ((self.read_rate * budget) as usize).clamp(MIN_CHUNK, MAX_CHUNK)
    }

    /// Reads `tokens` as a whole prompt, keeping what the cache already
    /// holds of it ([`Engine::arrange`], [`Engine::read_spans`]). Returns the
    /// tokens served from the cache and the batch index holding the last
    /// token's logits.
    pub(crate) fn read_prompt(
        &mut self,
        batch: &mut LlamaBatch,
        tokens: &[LlamaToken],
        deadline: Instant,
    ) -> Result<(usize, i32), NarratorError> {
        let reuse = self.arrange(tokens);
        let logits_at = self.read_spans(batch, tokens, &reuse.read, deadline)?;
        Ok((reuse.served(), logits_at))
    }

    /// Reads one drawn token after the cached ones, for the next logits.
    pub(crate) fn feed(
        &mut self,
        batch: &mut LlamaBatch,
        token: LlamaToken,
    ) -> Result<(), NarratorError> {
        batch.clear();
        batch
            .add(token, self.cached.len() as i32, &[0], true)
            .map_err(|e| NarratorError::Decode(e.to_string()))?;
        self.decode(batch)?;
        self.cached.push(token);
        Ok(())
    }

    /// Arranges the cache for `tokens` (crate::cache_reuse): keeps the common
    /// start, moves the runs the prompt holds again, drops the rest. Returns
    /// the plan; its `read` spans must be read next ([`Engine::read_spans`]).
    pub(crate) fn arrange(&mut self, tokens: &[LlamaToken]) -> Reuse {
        let reuse = cache_reuse::plan(&self.cached, tokens, REUSE_MIN_RUN, self.can_shift);
        let mut ok = true;
        for span in reuse.dropped(self.cached.len()) {
            ok &= matches!(
                self.ctx.clear_kv_cache_seq(
                    Some(0),
                    Some(span.start as u32),
                    Some(span.end as u32)
                ),
                Ok(true)
            );
        }
        for m in reuse.move_order() {
            let (from, until) = (m.from as u32, (m.from + m.len) as u32);
            ok &= self
                .ctx
                .kv_cache_seq_add(0, Some(from), Some(until), m.delta() as i32)
                .is_ok();
        }
        if !ok {
            self.forget();
            return cache_reuse::plan(&[], tokens, REUSE_MIN_RUN, false);
        }
        // Until its spans are read the cache is incomplete: a failed read forgets it.
        self.cached = tokens.to_vec();
        reuse
    }

    /// Reads the `spans` of `tokens` at their own positions, after
    /// [`Engine::arrange`]; returns the batch index holding the last token's
    /// logits. A deadline or a failure leaves the cache empty, never half-read.
    pub(crate) fn read_spans(
        &mut self,
        batch: &mut LlamaBatch,
        tokens: &[LlamaToken],
        spans: &[std::ops::Range<usize>],
        deadline: Instant,
    ) -> Result<i32, NarratorError> {
        let mut logits_at = 0;
        for span in spans {
            let mut at = span.start;
            while at < span.end {
                let now = Instant::now();
                if now >= deadline {
                    self.forget();
                    return Err(NarratorError::Deadline);
                }
                let end = (at + self.chunk_size(now, deadline)).min(span.end);
                batch.clear();
                for (pos, &t) in tokens.iter().enumerate().take(end).skip(at) {
                    batch
                        .add(t, pos as i32, &[0], pos == end - 1)
                        .map_err(|e| NarratorError::Decode(e.to_string()))?;
                }
                let started = Instant::now();
                self.decode(batch)?;
                if end - at >= MIN_CHUNK {
                    let rate = (end - at) as f64 / started.elapsed().as_secs_f64().max(1e-6);
                    self.read_rate = 0.3 * self.read_rate + 0.7 * rate;
                }
                logits_at = batch.n_tokens() - 1;
                at = end;
            }
        }
        Ok(logits_at)
    }

    /// Empties the cache.
    pub(crate) fn forget(&mut self) {
        self.ctx.clear_kv_cache();
        self.cached.clear();
    }

    pub(crate) fn decode(&mut self, batch: &mut LlamaBatch) -> Result<(), NarratorError> {
        self.ctx.decode(batch).map_err(|e| {
            self.forget();
            NarratorError::Decode(e.to_string())
        })
    }

    /// `text` as tokens, without special tokens (the host's text in an answer).
    pub(crate) fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
        if text.is_empty() {
            return Vec::new();
        }
        self.model.vocab().tokenize(text.as_bytes(), false, false)
    }

    /// Decodes `tokens` after the cached ones in chunks
    /// ([`Engine::chunk_size`]), checking the deadline between chunks;
    /// returns the batch index holding the last token's logits.
    pub(crate) fn read(
        &mut self,
        batch: &mut LlamaBatch,
        tokens: &[LlamaToken],
        deadline: Instant,
    ) -> Result<i32, NarratorError> {
        let mut logits_at = 0;
        let mut at = 0;
        while at < tokens.len() {
            let now = Instant::now();
            if now >= deadline {
                return Err(NarratorError::Deadline);
            }
            let size = self.chunk_size(now, deadline);
            let chunk = &tokens[at..(at + size).min(tokens.len())];
            batch.clear();
            let base = self.cached.len();
            for (i, &t) in chunk.iter().enumerate() {
                batch
                    .add(t, (base + i) as i32, &[0], i == chunk.len() - 1)
                    .map_err(|e| NarratorError::Decode(e.to_string()))?;
            }
            let started = Instant::now();
            self.decode(batch)?;
            if chunk.len() >= MIN_CHUNK {
                let rate = chunk.len() as f64 / started.elapsed().as_secs_f64().max(1e-6);
                // Smoothed, so one slow or fast batch does not swing the next size.
                self.read_rate = 0.3 * self.read_rate + 0.7 * rate;
            }
            self.cached.extend_from_slice(chunk);
            logits_at = batch.n_tokens() - 1;
            at += chunk.len();
        }
        Ok(logits_at)
    }
}
