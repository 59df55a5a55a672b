//! A catalog's example embeddings, ready to score inputs against: each
//! script's examples, counter-examples and description, the narration-only
//! class, and the keyword index over the scripts' texts.

use std::path::Path;

use crate::cache;
use crate::candidates::Candidate;
use crate::decision::{
    decide_among, keyword_score, semantic_score, top_k_mean, Calibration, Routed, ScriptScore,
    Signals,
};
use crate::keywords::KeywordIndex;
use crate::narration_only::NARRATION_ONLY;
use crate::RouteError;

/// Turns texts into unit-length embeddings, one per text, in order.
pub trait Embed: Send + Sync {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RouteError>;
}

impl Embed for narratoria_embed::Embedder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RouteError> {
        Ok(narratoria_embed::Embedder::embed(self, texts)?)
    }
}

struct ScriptVectors {
    skill: String,
    script: String,
    examples: Vec<Vec<f32>>,
    counter: Vec<Vec<f32>>,
    description: Vec<f32>,
}

/// The embedded texts of one catalog.
pub struct ExampleIndex {
    scripts: Vec<ScriptVectors>,
    narration: Vec<Vec<f32>>,
    keywords: KeywordIndex,
}

/// Texts embedded per batch.
const BATCH: usize = 32;

impl ExampleIndex {
    /// Embeds every candidate's texts and the narration-only class, reading
    /// and filling the cache in `cache_dir` (keyed by `model_key` and the
    /// texts) when given. A script without examples is known by its description.
    pub fn build(
        candidates: &[Candidate],
        embedder: &dyn Embed,
        model_key: &str,
        cache_dir: Option<&Path>,
    ) -> Result<ExampleIndex, RouteError> {
        let vectors = |texts: &[String]| embed_cached(embedder, model_key, cache_dir, texts);
        let mut scripts = Vec::with_capacity(candidates.len());
        for c in candidates {
            let description = vectors(std::slice::from_ref(&c.description))?
                .pop()
                .unwrap_or_default();
            let examples = if c.examples.is_empty() {
                vec![description.clone()]
            } else {
                vectors(&c.examples)?
            };
            scripts.push(ScriptVectors {
                skill: c.skill.clone(),
                script: c.script.clone(),
                examples,
                counter: vectors(&c.counter_examples)?,
                description,
            });
        }
        let narration_texts: Vec<String> = NARRATION_ONLY.iter().map(|s| s.to_string()).collect();
        Ok(ExampleIndex {
            scripts,
            narration: vectors(&narration_texts)?,
            keywords: KeywordIndex::new(
                candidates
                    .iter()
                    .map(|c| (c.tool_path(), c.keyword_text.as_str())),
            ),
        })
    }

    /// Every script's score for `input`, whose embeddings are `texts`: the
    /// whole input first, then its clauses (used when `cal.clauses`).
    pub fn scores(&self, input: &str, texts: &[Vec<f32>], cal: &Calibration) -> Vec<ScriptScore> {
        let texts = if cal.clauses {
            texts
        } else {
            &texts[..texts.len().min(1)]
        };
        self.signals(input, texts, cal.top_k)
            .into_iter()
            .map(|s| s.score(cal))
            .collect()
    }

    /// What each script's score is made of, for `input` and its embeddings
    /// `texts` (each one compared on its own), with examples averaged over
    /// the best `top_k`.
    pub fn signals(&self, input: &str, texts: &[Vec<f32>], top_k: usize) -> Vec<ScriptSignals> {
        let keywords = self.keywords.scores(input, usize::MAX);
        let narration: Vec<f32> = texts
            .iter()
            .map(|t| top_k_mean(&mut sims(&self.narration, t), top_k))
            .collect();
        self.scripts
            .iter()
            .map(|s| {
                let per_text = texts
                    .iter()
                    .zip(&narration)
                    .map(|(t, &narration)| {
                        let mut ex = sims(&s.examples, t);
                        let best_example = ex.iter().copied().fold(f32::MIN, f32::max);
                        Signals {
                            examples: top_k_mean(&mut ex, top_k),
                            best_example,
                            counter: sims(&s.counter, t).into_iter().fold(0.0, f32::max),
                            description: dot(&s.description, t),
                            narration,
                        }
                    })
                    .collect();
                let path = format!("{}/{}", s.skill, s.script);
                ScriptSignals {
                    skill: s.skill.clone(),
                    script: s.script.clone(),
                    per_text,
                    keywords: keywords
                        .iter()
                        .find(|(p, _)| *p == path)
                        .map_or(0.0, |(_, k)| *k),
                }
            })
            .collect()
    }
}

/// The skills `signals` (one input's) route to under `cal`; see
/// [`crate::decision::decide_among`].
pub fn decide_signals(signals: &[ScriptSignals], cal: &Calibration) -> Vec<Routed> {
    let scores: Vec<ScriptScore> = signals.iter().map(|s| s.score(cal)).collect();
    let winners: Option<Vec<String>> = cal.further_wins_a_clause.then(|| {
        let clauses = signals.first().map_or(0, |s| s.per_text.len());
        (1..clauses)
            .filter_map(|t| {
                signals
                    .iter()
                    .map(|s| (s, semantic_score(&s.per_text[t], cal)))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(s, _)| s.skill.clone())
            })
            .collect()
    });
    decide_among(&scores, winners.as_deref(), cal)
}

/// One script's signals for one input.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptSignals {
    pub skill: String,
    pub script: String,
    /// For the whole input, then for each clause.
    pub per_text: Vec<Signals>,
    /// The keyword score (idf-weighted shared stems).
    pub keywords: f64,
}

impl ScriptSignals {
    /// The script's score: its best text's meaning score plus its keyword score.
    pub fn score(&self, cal: &Calibration) -> ScriptScore {
        let texts = if cal.clauses {
            &self.per_text[..]
        } else {
            &self.per_text[..self.per_text.len().min(1)]
        };
        let meaning = texts
            .iter()
            .map(|s| semantic_score(s, cal))
            .fold(f32::MIN, f32::max);
        ScriptScore {
            skill: self.skill.clone(),
            script: self.script.clone(),
            score: meaning + keyword_score(self.keywords, cal),
        }
    }
}

/// The embeddings of `texts`, from the cache in `cache_dir` when it holds
/// them for `model_key`, else computed (and then stored there).
pub fn embed_cached(
    embedder: &dyn Embed,
    model_key: &str,
    cache_dir: Option<&Path>,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, RouteError> {
    if texts.is_empty() {
        return Ok(Vec::new());
    }
    let key = cache::key(model_key, texts);
    if let Some(v) = cache_dir.and_then(|d| cache::load(d, &key, texts.len())) {
        return Ok(v);
    }
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(BATCH) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        out.extend(embedder.embed(&refs)?);
    }
    if let Some(d) = cache_dir {
        cache::store(d, &key, &out);
    }
    Ok(out)
}

fn sims(rows: &[Vec<f32>], t: &[f32]) -> Vec<f32> {
    rows.iter().map(|r| dot(r, t)).collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
