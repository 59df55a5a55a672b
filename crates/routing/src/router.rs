//! The router a host loads once and keeps: the embedding model, and the
//! example index of the catalog it last saw.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use narratoria_core::likeness::Likeness;
use narratoria_core::planner::{Routing, SkillRouting};
use narratoria_core::skills::Catalog;
use narratoria_embed::locate;
use sha2::{Digest, Sha256};

use crate::cache;
use crate::candidates::{candidates, Candidate, ExampleLanguages};
use crate::clauses::clauses;
use crate::decision::{clauses_can_decide, decide, Calibration, Routed, SkillScore};
use crate::index::{sentence_of, Embed, ExampleIndex, ScriptSignals};
use crate::narration_only::narration_only;
use crate::RouteError;

/// Which skills one input needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The skills to use, best first, each with its chosen script; empty
    /// when the turn needs narration only.
    pub skills: Vec<Routed>,
    /// Every routable skill's score, in catalog order.
    pub scores: Vec<SkillScore>,
    /// The narration-only class's score, which the best skill must beat by
    /// the calibration's margin.
    pub narration: f32,
    /// The calibration the decision was made under (its thresholds).
    pub calibration: Calibration,
    /// Whether `skills` are the player's correction ([`Decision::as_needed`]).
    pub by_player: bool,
}

impl Decision {
    /// The decision the player made instead: the skills in `needed` that
    /// were scored (usable, not disabled), each with the script routing
    /// found best for the input, in the order given; the scores stay
    /// routing's (docs/narrator.md, "The player corrects").
    pub fn as_needed(mut self, needed: &[String]) -> Decision {
        self.skills = needed
            .iter()
            .filter_map(|skill| self.scores.iter().find(|s| &s.skill == skill))
            .map(|s| Routed {
                skill: s.skill.clone(),
                script: s.script.clone(),
                score: s.per_text.first().copied().unwrap_or_default(),
            })
            .collect();
        self.by_player = true;
        self
    }

    /// Why the decision is what it is: every skill's scores, best first, and
    /// the thresholds (what the inspector and `narrate --explain` show).
    pub fn why(&self) -> Routing {
        let mut skills: Vec<SkillRouting> = self
            .scores
            .iter()
            .map(|s| SkillRouting {
                skill: s.skill.clone(),
                script: s.script.clone(),
                meaning: s.parts.meaning,
                keywords: s.parts.keywords,
                model: s.parts.model,
                score: s.per_text.first().copied().unwrap_or_default(),
                chosen: self.skills.iter().any(|r| r.skill == s.skill),
            })
            .collect();
        skills.sort_by(|a, b| b.score.total_cmp(&a.score));
        Routing {
            threshold: self.calibration.threshold,
            further_threshold: self.calibration.further_threshold,
            narration: Some(self.narration),
            narration_margin: Some(self.calibration.narration_margin),
            by_player: self.by_player,
            skills,
        }
    }
}

/// Routes player input to skills by meaning and words.
pub struct Router {
    embedder: Box<dyn Embed>,
    model_key: String,
    /// Which of the skills' examples the encoder can place.
    languages: ExampleLanguages,
    cache_dir: Option<PathBuf>,
    calibration: Calibration,
    index: Mutex<Option<(String, Arc<ExampleIndex>)>>,
    /// The last input routed and its embeddings: a turn's replans route the
    /// same input again.
    last_input: Mutex<Option<LastInput>>,
}

/// The last input routed, its embedding and, once embedded, its clauses'.
struct LastInput {
    text: String,
    whole: Vec<f32>,
    clauses: Option<Vec<Vec<f32>>>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("model_key", &self.model_key)
            .field("languages", &self.languages)
            .field("cache_dir", &self.cache_dir)
            .field("calibration", &self.calibration)
            .finish()
    }
}

impl Router {
    /// Loads the encoder in `model_dir` (all-MiniLM-L6-v2, or the
    /// multilingual encoder, which reads every language's examples under
    /// its own [`Calibration::multilingual`]); example embeddings are
    /// cached in [`cache::default_cache_dir`].
    pub fn load(model_dir: &Path) -> Result<Router, RouteError> {
        let embedder = narratoria_embed::Embedder::load(model_dir)?;
        let (languages, calibration) = if embedder.is_multilingual() {
            (ExampleLanguages::Every, Calibration::multilingual())
        } else {
            (ExampleLanguages::English, Calibration::default())
        };
        Ok(Router::new(Box::new(embedder), model_key(model_dir))
            .with_example_languages(languages)
            .with_calibration(calibration)
            .with_cache_dir(Some(cache::default_cache_dir())))
    }

    /// A router over any embedder; `model_key` names the model in cache
    /// keys. It reads the skills' English examples alone until told
    /// otherwise ([`Router::with_example_languages`]).
    pub fn new(embedder: Box<dyn Embed>, model_key: String) -> Router {
        Router {
            embedder,
            model_key,
            languages: ExampleLanguages::English,
            cache_dir: None,
            calibration: Calibration::default(),
            index: Mutex::new(None),
            last_input: Mutex::new(None),
        }
    }

    /// Where example embeddings are cached (`None`: not cached).
    pub fn with_cache_dir(mut self, dir: Option<PathBuf>) -> Router {
        self.cache_dir = dir;
        self
    }

    /// Which of the skills' examples the router reads: every language's
    /// only where its encoder places them all in one space.
    pub fn with_example_languages(mut self, languages: ExampleLanguages) -> Router {
        self.languages = languages;
        self
    }

    /// The examples' languages this router reads.
    pub fn example_languages(&self) -> ExampleLanguages {
        self.languages
    }

    /// Replaces the calibration.
    pub fn with_calibration(mut self, calibration: Calibration) -> Router {
        self.calibration = calibration;
        self
    }

    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    /// The example index of `catalog`'s routable scripts, built (from the
    /// cache where it can) when the catalog's texts changed since the last call.
    pub fn prepare(&self, catalog: &Catalog) -> Result<Arc<ExampleIndex>, RouteError> {
        let found = candidates(catalog, self.languages);
        let mut narration = narration_only(self.languages);
        narration.extend(catalog.narration_examples().iter().cloned());
        let fingerprint = fingerprint(&found, &narration);
        let mut slot = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((f, index)) = slot.as_ref() {
            if *f == fingerprint {
                return Ok(index.clone());
            }
        }
        let index = Arc::new(ExampleIndex::build(
            &found,
            &narration,
            self.embedder.as_ref(),
            &self.model_key,
            self.cache_dir.as_deref(),
            self.calibration.l2,
        )?);
        *slot = Some((fingerprint, index.clone()));
        Ok(index)
    }

    /// The embeddings of `texts`, cached on disk like the examples'.
    pub fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, RouteError> {
        crate::index::embed_cached(
            self.embedder.as_ref(),
            &self.model_key,
            self.cache_dir.as_deref(),
            texts,
        )
    }

    /// The embeddings of `input` and of its clauses (whole input first).
    pub fn embed_input(&self, input: &str) -> Result<Vec<Vec<f32>>, RouteError> {
        let mut vectors = self.embedder.embed(&[input])?;
        if self.calibration.clauses {
            vectors.extend(self.embed_clauses(input)?);
        }
        Ok(vectors)
    }

    /// The embeddings of `input`'s clauses (none for one clause), in a batch
    /// of their own: padded to the longest clause, not to the whole input.
    fn embed_clauses(&self, input: &str) -> Result<Vec<Vec<f32>>, RouteError> {
        let parts = clauses(input);
        if parts.is_empty() {
            return Ok(Vec::new());
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        self.embedder.embed(&refs)
    }

    /// The embedding of the whole `input`, kept for the last input.
    fn input_vectors(&self, input: &str) -> Result<Vec<Vec<f32>>, RouteError> {
        let mut last = self.last_input.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kept) = last.as_ref().filter(|l| l.text == input) {
            return Ok(vec![kept.whole.clone()]);
        }
        let whole = self.embedder.embed(&[input])?.pop().unwrap_or_default();
        *last = Some(LastInput {
            text: input.to_string(),
            whole: whole.clone(),
            clauses: None,
        });
        Ok(vec![whole])
    }

    /// The embeddings of `input`'s clauses, kept with the last input: a
    /// replan routes the same input, and embeds nothing again.
    fn clause_vectors(&self, input: &str) -> Result<Vec<Vec<f32>>, RouteError> {
        let mut last = self.last_input.lock().unwrap_or_else(|p| p.into_inner());
        let kept = last.as_mut().filter(|l| l.text == input);
        if let Some(clauses) = kept.as_ref().and_then(|l| l.clauses.as_ref()) {
            return Ok(clauses.clone());
        }
        let clauses = self.embed_clauses(input)?;
        if let Some(kept) = kept {
            kept.clauses = Some(clauses.clone());
        }
        Ok(clauses)
    }

    /// The embedding of `query`: the one routing kept when it is the input
    /// just routed (a plan's choices by meaning ask about the same input),
    /// else computed.
    fn query_vector(&self, query: &str) -> Result<Option<Vec<f32>>, RouteError> {
        {
            let last = self.last_input.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(kept) = last.as_ref().filter(|l| l.text == query) {
                return Ok(Some(kept.whole.clone()));
            }
        }
        Ok(self.embedder.embed(&[query])?.pop())
    }

    /// The skills `input` needs, among `catalog`'s usable skills, less those
    /// in `disabled`. What an input needs is decided with every skill, then
    /// the disabled ones are left out: a turn whose skill failed, or was
    /// turned off, is not handed to the next likeliest skill instead ("I tip
    /// off the watch" is not rolled for when reputation cannot run).
    pub fn route(
        &self,
        catalog: &Catalog,
        input: &str,
        disabled: &[String],
    ) -> Result<Decision, RouteError> {
        let index = self.prepare(catalog)?;
        let cal = &self.calibration;
        // Each skill's scores, and the narration-only class's, for `texts`.
        let scored = |texts: &[Vec<f32>]| {
            let signals: Vec<ScriptSignals> = index.signals(input, texts, cal.top_k);
            let narration = index.narration_score(&signals, texts, cal);
            (index.skill_scores(&signals, texts, cal), narration)
        };
        let mut texts = self.input_vectors(input)?;
        let (mut scores, narration) = scored(&texts);
        // The clauses are embedded only when they can change the decision.
        if cal.clauses && clauses_can_decide(&scores, cal) {
            texts.extend(self.clause_vectors(input)?);
            scores = scored(&texts).0;
        }
        let skills = decide(&scores, narration, &self.calibration)
            .into_iter()
            .filter(|r| !disabled.contains(&r.skill))
            .collect();
        scores.retain(|s| !disabled.contains(&s.skill));
        Ok(Decision {
            skills,
            scores,
            narration,
            calibration: self.calibration,
            by_player: false,
        })
    }
}

/// The router's embedding model judges lore and other texts by meaning
/// (docs/scenarios.md, "Lorebooks"), by their sentence embeddings alone; the
/// texts' embeddings are cached like the examples', so a lorebook is
/// embedded once.
impl Likeness for Router {
    fn similarities(&self, query: &str, texts: &[String]) -> Result<Vec<f32>, String> {
        let query = self
            .query_vector(query)
            .map_err(|e| e.to_string())?
            .ok_or("the embedding model gave nothing for the query")?;
        let query = sentence_of(&query);
        let texts = self.embed_texts(texts).map_err(|e| e.to_string())?;
        Ok(texts
            .iter()
            .map(|t| narratoria_embed::cosine(&query, &sentence_of(t)))
            .collect())
    }
}

/// The embedding model's folder for a planner whose model file is
/// `planner_model`: the first that holds it of `$NARRATORIA_MODELS_DIR`,
/// the folder beside that file, the user's models folder, a `models/`
/// folder beside or up to five folders above the executable, and
/// `./models` — else the first of them (narratoria_embed::locate).
pub fn model_dir_for(planner_model: &Path) -> PathBuf {
    encoder_dir_for(planner_model, locate::MODEL_FOLDER)
}

/// The multilingual encoder's folder (multilingual-e5-small), looked for
/// where [`model_dir_for`] looks.
pub fn multilingual_dir_for(planner_model: &Path) -> PathBuf {
    encoder_dir_for(planner_model, locate::MULTILINGUAL_FOLDER)
}

fn encoder_dir_for(planner_model: &Path, folder: &str) -> PathBuf {
    let mut dirs = vec![
        planner_model
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf(),
        narratoria_core::paths::user_models_dir(),
    ];
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) {
        dirs.extend(exe.ancestors().skip(1).take(5).map(|d| d.join("models")));
    }
    dirs.push(PathBuf::from("models"));
    let candidates = locate::candidates_of(folder, None, locate::models_env().as_deref(), &dirs);
    locate::find(&candidates).expect("the planner's folder is a candidate")
}

/// Identifies the candidates' texts: a changed example, description or
/// guide gives another fingerprint.
fn fingerprint(found: &[Candidate], narration: &[String]) -> String {
    let texts: Vec<String> = found
        .iter()
        .flat_map(|c| {
            [c.tool_path(), c.description.clone(), c.keyword_text.clone()]
                .into_iter()
                .chain(
                    c.keyword_texts_by_language
                        .iter()
                        .flat_map(|(code, text)| [code.clone(), text.clone()]),
                )
                .chain(c.examples.iter().cloned())
                .chain(std::iter::once(String::new()))
                .chain(c.counter_examples.iter().cloned())
                .chain(std::iter::once(String::new()))
        })
        .chain(narration.iter().cloned())
        .collect();
    cache::key("", &texts)
}

/// Names the model in `model_dir` by its folder, configuration, tokenizer
/// and weights' size (hashing 90 MB of weights at every start would cost
/// more than it protects).
pub fn model_key(model_dir: &Path) -> String {
    let mut h = Sha256::new();
    for name in ["config.json", "tokenizer.json"] {
        h.update(std::fs::read(model_dir.join(name)).unwrap_or_default());
    }
    for weights in ["model.safetensors", narratoria_embed::e5::WEIGHTS] {
        let size = std::fs::metadata(model_dir.join(weights)).map_or(0, |m| m.len());
        h.update(size.to_le_bytes());
    }
    let name = match model_dir.join(narratoria_embed::e5::WEIGHTS).is_file() {
        true => locate::MULTILINGUAL_FOLDER,
        false => locate::MODEL_FOLDER,
    };
    format!(
        "{name}:{}:{}",
        crate::index::representation(),
        cache::hex(&h.finalize())
    )
}
