//! The one loop that writes an answer token by token after its prompt is
//! read, for plans, prose and one-off text (docs/narrator.md, "Decoding"):
//! draw a token, stop at end-of-generation, turn it into whole characters,
//! hand them on, read the token for the next logits. What is a caller's own
//! — a grammar, stop sequences, a budget, a deadline, a cancellation — it
//! says through [`Writing`].

use std::time::{Duration, Instant};

use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use crate::engine::Engine;
use crate::error::NarratorError;

/// What a caller decides about each token of its answer.
pub(crate) trait Writing {
    /// Asked before each token: `Ok(true)` ends the answer there (a passed
    /// deadline, a cancellation); an error ends it with that error.
    fn halt(&mut self) -> Result<bool, NarratorError>;
    /// Draws the next token from the logits at batch index `at`.
    fn pick(&mut self, engine: &mut Engine<'_>, at: i32) -> Result<LlamaToken, NarratorError>;
    /// Takes a drawn token that is not end-of-generation, before its text.
    fn accept(&mut self, token: LlamaToken) -> Result<(), NarratorError>;
    /// Takes the token's text, whole characters only (possibly none);
    /// `Ok(false)` ends the answer after it.
    fn take(&mut self, piece: &str) -> Result<bool, NarratorError>;
}

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// [`Writing::halt`] said so.
    Halted,
    /// The model drew its end-of-generation token (not taken).
    EndOfGeneration,
    /// [`Writing::take`] said so; this last token is not read yet.
    Taken(LlamaToken),
}

/// What the loop wrote besides the pieces it handed on.
#[derive(Debug)]
pub(crate) struct Written {
    pub ending: Ending,
    /// The bytes of an unfinished character at the end (its tokens were cut off).
    pub pending: Vec<u8>,
    /// When the first token was drawn.
    pub first_token: Option<Instant>,
    /// Time spent drawing tokens and reading them back.
    pub sample_time: Duration,
    pub decode_time: Duration,
}

/// Writes tokens after the logits at batch index `logits_at` until
/// `writing` ends the answer or the model does. Promises: every drawn token
/// but the last is read into `engine`'s cache at the next position; the text
/// of every accepted token reaches [`Writing::take`] in order, as whole
/// characters (invalid bytes become U+FFFD), but for an unfinished character
/// left in [`Written::pending`].
pub(crate) fn write_tokens(
    engine: &mut Engine<'_>,
    batch: &mut LlamaBatch,
    mut logits_at: i32,
    writing: &mut dyn Writing,
) -> Result<Written, NarratorError> {
    let mut written = Written {
        ending: Ending::Halted,
        pending: Vec::new(),
        first_token: None,
        sample_time: Duration::ZERO,
        decode_time: Duration::ZERO,
    };
    let vocab = engine.model.vocab();
    loop {
        if writing.halt()? {
            return Ok(written);
        }
        let t0 = Instant::now();
        let token = writing.pick(engine, logits_at)?;
        written.sample_time += t0.elapsed();
        written.first_token.get_or_insert_with(Instant::now);
        if vocab.is_eog(token) {
            written.ending = Ending::EndOfGeneration;
            return Ok(written);
        }
        writing.accept(token)?;
        written
            .pending
            .extend(vocab.token_to_piece(token, false, None));
        let piece = take_utf8(&mut written.pending);
        if !writing.take(&piece)? {
            written.ending = Ending::Taken(token);
            return Ok(written);
        }
        let t0 = Instant::now();
        engine.feed(batch, token)?;
        written.decode_time += t0.elapsed();
        logits_at = 0;
    }
}

/// The token `chain` draws from the logits at batch index `at`, after
/// `restrict` has changed them (banned tokens set to -∞).
pub(crate) fn draw(
    engine: &Engine<'_>,
    at: i32,
    chain: &mut LlamaSampler,
    restrict: impl FnOnce(&mut LlamaTokenDataArray),
) -> Result<LlamaToken, NarratorError> {
    let mut candidates = engine.ctx.token_data_array_ith(at);
    restrict(&mut candidates);
    candidates.apply_sampler(chain);
    candidates
        .selected_token()
        .ok_or_else(|| NarratorError::Decode("the sampler selected no token".into()))
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
}
