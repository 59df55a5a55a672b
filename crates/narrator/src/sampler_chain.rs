//! The one place a request's sampling settings become a llama.cpp sampler
//! chain, for plans, prose and one-off text alike (docs/narrator.md, "One
//! plan", step 7, and "Decoding").

use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;

use crate::error::NarratorError;

/// How many recent tokens the repetition penalty looks at.
const PENALTY_WINDOW: i32 = 64;

/// How each token is drawn from the model's candidates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SamplerSettings<'g> {
    /// 0 or less picks the most likely token each time.
    pub temperature: f32,
    /// Only the `top_k` most likely tokens are drawn from (at least one).
    pub top_k: i32,
    /// Nucleus sampling: the most likely tokens whose probabilities add up to
    /// this (within 0.05 ..= 1).
    pub top_p: f32,
    /// Penalty on the last 64 tokens; 1.0 or less is none.
    pub repeat_penalty: f32,
    pub seed: u32,
    /// GBNF with a `root` rule that every token must keep to, applied first.
    pub grammar: Option<&'g str>,
}

/// The chain for `settings`: the grammar, the repetition penalty, then top-k,
/// top-p, temperature and a seeded draw — or the most likely token at
/// temperature 0. The same settings always give the same chain, so the same
/// seed gives the same tokens. A grammar llama.cpp cannot parse is
/// [`NarratorError::Grammar`].
pub(crate) fn sampler_chain(
    model: &LlamaModel,
    settings: &SamplerSettings<'_>,
) -> Result<LlamaSampler, NarratorError> {
    let mut samplers = Vec::new();
    if let Some(gbnf) = settings.grammar {
        samplers.push(
            LlamaSampler::grammar(model, gbnf, "root")
                .map_err(|e| NarratorError::Grammar(e.to_string()))?,
        );
    }
    // A penalty of 1 changes no logit: it is left out rather than run.
    if settings.repeat_penalty > 1.0 {
        samplers.push(LlamaSampler::penalties(
            model.n_vocab(),
            PENALTY_WINDOW,
            settings.repeat_penalty,
            0.0,
            0.0,
        ));
    }
    if settings.temperature <= 0.0 {
        samplers.push(LlamaSampler::greedy());
    } else {
        samplers.push(LlamaSampler::top_k(settings.top_k.max(1)));
        samplers.push(LlamaSampler::top_p(settings.top_p.clamp(0.05, 1.0), 1));
        samplers.push(LlamaSampler::temp(settings.temperature));
        samplers.push(LlamaSampler::dist(settings.seed));
    }
    Ok(LlamaSampler::chain_simple(samplers))
}
