//! A catalog's example embeddings, ready to score inputs against: each
//! script's examples, counter-examples and description, the narration-only
//! class, and the keyword index over the scripts' texts.

use std::path::Path;

use crate::cache;
use crate::candidates::Candidate;
use crate::classifier::Linear;
use crate::decision::{
    keyword_score, semantic_score, top_k_mean, Calibration, ScoreParts, Signals, SkillScore,
};
use crate::keywords::KeywordIndex;
use crate::RouteError;
use narratoria_core::narration::is_question;

/// Turns texts into unit-length embeddings, one per text, in order.
pub trait Embed: Send + Sync {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RouteError>;
}

/// The share of a text's word pieces that make its opening, where a
/// player's deed or question word stands ("I rob the tax collectors of the
/// crown": "i rob the").
pub const OPENING_SHARE: f32 = 1.0 / 3.0;
/// How much the opening weighs beside the whole sentence in the router's
/// vector. Share and weight were chosen with the calibration, on the tuning
/// inputs (docs/narrator.md, "Routing").
pub const OPENING_WEIGHT: f32 = 0.5;
/// Names the router's vectors in cache keys: it follows how they are made.
pub fn representation() -> String {
    format!("sentence+opening:{OPENING_SHARE}x{OPENING_WEIGHT}")
}

/// The sentence embedding within one of the router's vectors, at unit length
/// (the whole vector when it has no opening part): likeness of lore and of a
/// plan's choices is judged on it alone, as its thresholds were measured
/// (docs/scenarios.md, "Lorebooks").
pub fn sentence_of(vector: &[f32]) -> Vec<f32> {
    let part = &vector[..vector.len().min(narratoria_embed::DIMENSIONS)];
    let norm = part.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    part.iter().map(|x| x / norm).collect()
}

/// The router's vector for a text: its sentence embedding followed by
/// `OPENING_WEIGHT` times its opening's, scaled to unit length, so a dot
/// product is a weighed mean of the two cosines. The sentence embedding
/// places an input by what it is about (a faction, a memory); the opening
/// adds what the player does or asks.
impl Embed for narratoria_embed::Embedder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RouteError> {
        let scale = 1.0 / (1.0 + OPENING_WEIGHT * OPENING_WEIGHT).sqrt();
        Ok(self
            .embed_pooled(texts, Some(OPENING_SHARE))?
            .into_iter()
            .map(|p| {
                p.sentence
                    .iter()
                    .map(|x| x * scale)
                    .chain(p.opening.iter().map(|x| x * OPENING_WEIGHT * scale))
                    .collect()
            })
            .collect())
    }
}

struct ScriptVectors {
    skill: String,
    script: String,
    /// The examples' texts, in the order of `examples` (empty when the
    /// script is known by its description).
    example_texts: Vec<String>,
    examples: Vec<Vec<f32>>,
    counter: Vec<Vec<f32>>,
    /// The examples and the counter-examples as a script's classifier reads
    /// them ([`script_features`]).
    example_features: Vec<Vec<f32>>,
    counter_features: Vec<Vec<f32>>,
    description: Vec<f32>,
}

/// The embedded texts of one catalog, and a classifier per skill fitted on
/// them, and per script of a skill with several.
pub struct ExampleIndex {
    scripts: Vec<ScriptVectors>,
    classifiers: Vec<(String, Linear)>,
    /// Per script, in the order of `scripts`: its examples against its
    /// sibling scripts' (`None` for a skill's only script).
    script_classifiers: Vec<Option<Linear>>,
    narration: Vec<Vec<f32>>,
    /// The narration-only class against every script's examples.
    narration_classifier: Linear,
    keywords: KeywordIndex,
}

/// Texts embedded per batch.
const BATCH: usize = 32;

impl ExampleIndex {
    /// Embeds every candidate's texts and the narration-only class's
    /// (`narration`: the built-in inputs and those the player said needed
    /// no mechanics), reading
    /// and filling the cache in `cache_dir` (keyed by `model_key` and the
    /// texts) when given, and fits each skill's classifier, and each script's
    /// among its siblings, with penalty `l2`.
    /// A script without examples is known by its description.
    pub fn build(
        candidates: &[Candidate],
        narration: &[String],
        embedder: &dyn Embed,
        model_key: &str,
        cache_dir: Option<&Path>,
        l2: f32,
    ) -> Result<ExampleIndex, RouteError> {
        let vectors = |texts: &[String]| embed_cached(embedder, model_key, cache_dir, texts);
        let mut scripts = Vec::with_capacity(candidates.len());
        for c in candidates {
            let counter = vectors(&c.counter_examples)?;
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
                example_texts: c.examples.clone(),
                example_features: with_features(&examples, &c.examples),
                counter_features: with_features(&counter, &c.counter_examples),
                examples,
                counter,
                description,
            });
        }
        let narration = vectors(narration)?;
        let narration_classifier = {
            let positives: Vec<&[f32]> = narration.iter().map(Vec::as_slice).collect();
            let negatives: Vec<&[f32]> = scripts
                .iter()
                .flat_map(|s| s.examples.iter().map(Vec::as_slice))
                .collect();
            Linear::fit(&positives, &negatives, l2)
        };
        Ok(ExampleIndex {
            narration_classifier,
            classifiers: fit_classifiers(&scripts, &narration, l2),
            script_classifiers: fit_script_classifiers(&scripts, l2),
            scripts,
            narration,
            keywords: KeywordIndex::in_languages(candidates.iter().map(|c| {
                (
                    c.tool_path(),
                    c.keyword_text.clone(),
                    c.keyword_texts_by_language.clone(),
                )
            })),
        })
    }

    /// What each script's score is made of, for `input` and its embeddings
    /// `texts` (each one compared on its own), with examples averaged over
    /// the best `top_k`.
    pub fn signals(&self, input: &str, texts: &[Vec<f32>], top_k: usize) -> Vec<ScriptSignals> {
        let keywords = self.keywords.scores(input, usize::MAX);
        let question = is_question(input);
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
                    question,
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

    /// Each skill's scores among `signals` (this index's, for embeddings
    /// `texts` — the whole input, then the clauses `cal` scores — perhaps
    /// without some skills): its classifier's log-odds plus
    /// `cal.example_weight` times its best script's example score, per text.
    pub fn skill_scores(
        &self,
        signals: &[ScriptSignals],
        texts: &[Vec<f32>],
        cal: &Calibration,
    ) -> Vec<SkillScore> {
        let mut out: Vec<SkillScore> = Vec::new();
        let whole = texts.first().map(Vec::as_slice).unwrap_or_default();
        let question = signals.first().is_some_and(|s| s.question);
        let whole_features = script_features(whole, question);
        for (skill, model) in &self.classifiers {
            let scripts: Vec<&ScriptSignals> =
                signals.iter().filter(|s| &s.skill == skill).collect();
            // The script its classifier among its siblings prefers.
            let Some(best) = scripts
                .iter()
                .map(|s| (*s, self.script_logit(s, &whole_features)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(s, _)| s)
            else {
                continue;
            };
            let logits: Vec<f32> = texts.iter().map(|t| model.logit(t)).collect();
            let per_text = logits
                .iter()
                .enumerate()
                .map(|(t, logit)| {
                    let examples = scripts
                        .iter()
                        .map(|s| s.example_score(t, cal))
                        .fold(f32::MIN, f32::max);
                    logit + cal.example_weight * examples
                })
                .collect();
            // The score's parts come from the script whose examples the
            // whole input is most like, as the score itself does.
            let likest = scripts
                .iter()
                .max_by(|a, b| a.example_score(0, cal).total_cmp(&b.example_score(0, cal)))
                .unwrap_or(&best);
            out.push(SkillScore {
                skill: skill.clone(),
                script: best.script.clone(),
                per_text,
                parts: ScoreParts {
                    meaning: likest
                        .per_text
                        .first()
                        .map_or(0.0, |s| semantic_score(s, cal)),
                    keywords: keyword_score(likest.keywords, cal),
                    model: logits.first().copied().unwrap_or_default(),
                },
            });
        }
        out
    }
}

impl ExampleIndex {
    /// How much the whole input (`texts[0]`, whose `signals` these are)
    /// calls for narration only, on the scale of a skill's score: the
    /// narration class's classifier's log-odds plus `cal.example_weight`
    /// times how much more like narration-only input it is than like the
    /// likest script's examples.
    pub fn narration_score(
        &self,
        signals: &[ScriptSignals],
        texts: &[Vec<f32>],
        cal: &Calibration,
    ) -> f32 {
        let Some(whole) = texts.first() else {
            return f32::MIN;
        };
        let likest = signals
            .iter()
            .filter_map(|s| s.per_text.first())
            .map(|s| s.examples)
            .fold(0.0, f32::max);
        let narration = signals
            .iter()
            .find_map(|s| s.per_text.first())
            .map_or(0.0, |s| s.narration);
        self.narration_classifier.logit(whole)
            + cal.example_weight * (narration - cal.narration_weight * likest)
    }

    /// The log-odds that `text` calls for `script` rather than one of its
    /// sibling scripts (0 for a skill's only script).
    fn script_logit(&self, script: &ScriptSignals, text: &[f32]) -> f32 {
        self.scripts
            .iter()
            .zip(&self.script_classifiers)
            .find(|(s, _)| s.skill == script.skill && s.script == script.script)
            .and_then(|(_, model)| model.as_ref())
            .map_or(0.0, |m| m.logit(text))
    }
}

/// How much whether a text asks weighs beside its unit-length embedding in
/// a script's classifier: of 0.25, 0.5, 1 and 2, tried by hand on the
/// tuning half (not by `tests/tune.rs`), 0.25 and 0.5 tied best
/// (docs/narrator.md).
const QUESTION_WEIGHT: f32 = 0.5;

/// What a script's classifier reads of a text: its embedding and whether it
/// asks. The embedding weighs a question's form too little to tell
/// "Remember that Bertil limps" (store) from "what was Bertil called?"
/// (recall); the form tells a skill's scripts apart when they split that way.
fn script_features(vector: &[f32], question: bool) -> Vec<f32> {
    let mut features = vector.to_vec();
    features.push(if question { QUESTION_WEIGHT } else { 0.0 });
    features
}

/// Each of `vectors` with [`script_features`], reading whether the text
/// at its index in `texts` asks (no text: it does not, as for a
/// description standing in for examples).
fn with_features(vectors: &[Vec<f32>], texts: &[String]) -> Vec<Vec<f32>> {
    vectors
        .iter()
        .enumerate()
        .map(|(i, v)| script_features(v, texts.get(i).is_some_and(|t| is_question(t))))
        .collect()
}

/// One classifier per script of a skill with several: the script's examples
/// against its sibling scripts' examples and its own counter-examples, each
/// read with whether it asks.
fn fit_script_classifiers(scripts: &[ScriptVectors], l2: f32) -> Vec<Option<Linear>> {
    scripts
        .iter()
        .map(|own| {
            let siblings: Vec<&ScriptVectors> = scripts
                .iter()
                .filter(|s| s.skill == own.skill && s.script != own.script)
                .collect();
            if siblings.is_empty() {
                return None;
            }
            let positives: Vec<&[f32]> = own.example_features.iter().map(Vec::as_slice).collect();
            let negatives: Vec<&[f32]> = siblings
                .iter()
                .flat_map(|s| s.example_features.iter().map(Vec::as_slice))
                .chain(own.counter_features.iter().map(Vec::as_slice))
                .collect();
            Some(Linear::fit(&positives, &negatives, l2))
        })
        .collect()
}

/// One classifier per skill: its scripts' examples against the other
/// skills' examples, the narration-only class and every counter-example. An
/// example two skills both list (a turn that needs both) is one of each
/// skill's own, never held against either.
fn fit_classifiers(
    scripts: &[ScriptVectors],
    narration: &[Vec<f32>],
    l2: f32,
) -> Vec<(String, Linear)> {
    let mut skills: Vec<&str> = Vec::new();
    for s in scripts {
        if !skills.contains(&s.skill.as_str()) {
            skills.push(&s.skill);
        }
    }
    skills
        .into_iter()
        .map(|skill| {
            let positives: Vec<&[f32]> = scripts
                .iter()
                .filter(|s| s.skill == skill)
                .flat_map(|s| s.examples.iter().map(Vec::as_slice))
                .collect();
            let own = |text: &String| {
                scripts
                    .iter()
                    .any(|s| s.skill == skill && s.example_texts.contains(text))
            };
            let negatives: Vec<&[f32]> = scripts
                .iter()
                .filter(|s| s.skill != skill)
                .flat_map(|s| {
                    s.examples
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| s.example_texts.get(*i).is_none_or(|t| !own(t)))
                        .map(|(_, v)| v.as_slice())
                })
                .chain(narration.iter().map(Vec::as_slice))
                .chain(
                    scripts
                        .iter()
                        .flat_map(|s| s.counter.iter().map(Vec::as_slice)),
                )
                .collect();
            (skill.to_string(), Linear::fit(&positives, &negatives, l2))
        })
        .collect()
}

/// One script's signals for one input.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptSignals {
    /// Whether the input asks something (the same for every script).
    pub question: bool,
    pub skill: String,
    pub script: String,
    /// For the whole input, then for each clause.
    pub per_text: Vec<Signals>,
    /// The keyword score (idf-weighted shared stems).
    pub keywords: f64,
}

impl ScriptSignals {
    /// The script's example score for text `t` (0: the whole input): its
    /// meaning score plus its keyword score.
    pub fn example_score(&self, t: usize, cal: &Calibration) -> f32 {
        self.per_text
            .get(t)
            .map_or(f32::MIN, |s| semantic_score(s, cal))
            + keyword_score(self.keywords, cal)
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

/// The dot product of two embeddings (their cosine, both being unit length).
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_embed::DIMENSIONS;

    #[test]
    fn the_sentence_part_of_a_router_vector_is_the_sentence_embedding() {
        let unit = |v: Vec<f32>| {
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
        };
        let sentence = unit((0..DIMENSIONS).map(|i| (i as f32).sin()).collect());
        let opening = unit((0..DIMENSIONS).map(|i| (i as f32).cos()).collect());
        let scale = 1.0 / (1.0 + OPENING_WEIGHT * OPENING_WEIGHT).sqrt();
        let vector: Vec<f32> = sentence
            .iter()
            .map(|x| x * scale)
            .chain(opening.iter().map(|x| x * OPENING_WEIGHT * scale))
            .collect();
        let back = sentence_of(&vector);
        assert!(dot(&back, &sentence) > 0.9999);
        // A vector with no opening part is its own sentence embedding.
        assert!(dot(&sentence_of(&sentence), &sentence) > 0.9999);
        assert!(representation().contains(&OPENING_WEIGHT.to_string()));
    }
}
