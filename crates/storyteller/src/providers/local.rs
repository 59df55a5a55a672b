//! The local provider: a GGUF chat model run by llama.cpp inside this script
//! process (through the narrator crate's shared backend and its
//! `generate_text`), when the script is built with the cargo feature
//! `own-model`; without it the step fails with
//! [`ProviderError::NoOwnModel`] and the chain goes on to the template.

use std::path::Path;
use std::time::Instant;

#[cfg(feature = "own-model")]
use narratoria_narrator::text::{generate_text, TextRequest};

use crate::error::ProviderError;
use crate::prompt::Prompt;

pub const NAME: &str = "local";

/// Whether this build of the script can load a model of its own.
pub const AVAILABLE: bool = cfg!(feature = "own-model");

/// Writes the answer with the model at `model_path`, passing each piece of
/// text to `on_piece` as it is decoded. Promises at most `max_tokens`
/// generated tokens and a stop at the model's end of generation.
#[cfg(feature = "own-model")]
pub fn generate(
    model_path: &Path,
    prompt: &Prompt,
    temperature: f32,
    max_tokens: u32,
    deadline: Instant,
    on_piece: &mut dyn FnMut(&str),
) -> Result<(), ProviderError> {
    let request = TextRequest {
        system: prompt.system.clone(),
        // This model is loaded for one turn: the story so far is told in
        // the turn's message, as one transcript.
        user: transcript(prompt),
        // The rules' opening: second person, and the check's outcome told.
        answer_prefix: prompt.opening.clone(),
        temperature,
        max_tokens: max_tokens as usize,
        min_tokens: 8,
        seed: seed(),
        deadline: Some(deadline),
        // One paragraph, as from the host's model.
        one_paragraph: true,
        ..TextRequest::default()
    };
    generate_text(model_path, &request, on_piece)?;
    Ok(())
}

/// Without the feature `own-model`: always [`ProviderError::NoOwnModel`].
#[cfg(not(feature = "own-model"))]
pub fn generate(
    _model_path: &Path,
    _prompt: &Prompt,
    _temperature: f32,
    _max_tokens: u32,
    _deadline: Instant,
    _on_piece: &mut dyn FnMut(&str),
) -> Result<(), ProviderError> {
    Err(ProviderError::NoOwnModel)
}

/// The story so far and the turn as one message.
#[cfg(feature = "own-model")]
fn transcript(prompt: &Prompt) -> String {
    let mut out = String::new();
    for (role, content) in prompt.conversation() {
        if role == narratoria_protocol::Role::Assistant {
            out.push_str("Narrator: ");
        }
        out.push_str(&content);
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// A different draw each run.
#[cfg(feature = "own-model")]
fn seed() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() ^ (d.as_secs() as u32))
        .unwrap_or(0x5eed)
}
