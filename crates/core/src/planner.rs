//! The planner seam: something that turns a player's input into a Plan. The
//! llama.cpp planner (crate `narratoria-narrator`) and the rule-based
//! fallback (`crate::rules`) both implement it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_lexicon::Language;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::plan::Plan;
use crate::skills::Catalog;

/// One earlier turn, as the planner sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnSummary {
    pub input: String,
    pub narrative: String,
}

/// Everything a planner may use to write one plan.
#[derive(Debug, Clone, Copy)]
pub struct PlanRequest<'a> {
    /// What the player wrote.
    pub input: &'a str,
    /// The discovered skills; only enabled ones outside `disabled_skills` may be used.
    pub catalog: &'a Catalog,
    /// Skills that must not appear in the plan (failed earlier this turn, or disabled).
    pub disabled_skills: &'a [String],
    /// 1 for the first plan of a turn, then 2, 3, … up to 5.
    pub attempt: u32,
    /// The previous attempt's plan id, when replanning.
    pub parent_plan_id: Option<Uuid>,
    /// The most recent turns, oldest first.
    pub recent_turns: &'a [TurnSummary],
    /// The session state before this turn.
    pub state: &'a Map<String, Value>,
    /// Why the previous attempt failed, in a sentence (when replanning).
    pub previous_failure: Option<&'a str>,
    /// Generation must end by then (the planner's [`Planner::plan_time`]
    /// from the plan's start, docs/narrator.md).
    pub deadline: Instant,
    /// Whether a plan routed to no tool still gets the planner's own
    /// `narrative` (a generation). A turn asks for none: its narration is
    /// told after the mechanics (docs/narrator.md, "One plan"); a plan with
    /// tools then gets an empty narrative and the model writes only its tools.
    pub narrative: bool,
    /// The skills the player said this turn needs (a correction, docs/
    /// narrator.md "The player corrects"): the plan uses these, less the
    /// disabled ones, instead of the skills routing would choose. `None`:
    /// routing chooses.
    pub skills_needed: Option<&'a [String]>,
    /// The story's language, where the turn knows it: a planner routes
    /// another language's input by the multilingual encoder (docs/
    /// narrator.md, "Routing in every language"). `None`: English.
    pub language: Option<&'a Language>,
}

impl<'a> PlanRequest<'a> {
    /// The first plan of a turn with nothing before it: no disabled skills,
    /// no recent turns, attempt 1. Other fields can be set with struct update.
    pub fn first(
        input: &'a str,
        catalog: &'a Catalog,
        state: &'a Map<String, Value>,
        deadline: Instant,
    ) -> PlanRequest<'a> {
        PlanRequest {
            input,
            catalog,
            disabled_skills: &[],
            attempt: 1,
            parent_plan_id: None,
            recent_turns: &[],
            state,
            previous_failure: None,
            deadline,
            narrative: true,
            skills_needed: None,
            language: None,
        }
    }
}

/// What a planner produced, with the record of how.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanOutcome {
    /// A complete, valid plan (requestId, metadata and defaults filled in).
    pub plan: Plan,
    /// How the plan was generated, for the session's transcript.
    pub transcript: Transcript,
    /// Why the plan uses the skills it uses, when a router chose them.
    pub routing: Option<Routing>,
}

/// Why a plan uses the skills it uses: every routable skill's scores for the
/// input and the thresholds they were held to (docs/narrator.md, "Routing").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Routing {
    /// The best skill is used when its score reaches this.
    pub threshold: f32,
    /// A skill after the best is used when its score reaches this too.
    pub further_threshold: f32,
    /// The narration-only class's score for the input: the best skill is
    /// used only when its score reaches this plus `narration_margin` (absent
    /// in plans routed before the class was weighed).
    #[serde(default)]
    pub narration: Option<f32>,
    #[serde(default)]
    pub narration_margin: Option<f32>,
    /// Whether the skills chosen are the player's correction rather than
    /// routing's choice (the scores are still routing's).
    #[serde(default)]
    pub by_player: bool,
    /// Best score first.
    pub skills: Vec<SkillRouting>,
}

/// One skill's routing scores for one input:
/// `score = model + exampleWeight × (meaning + keywords)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillRouting {
    pub skill: String,
    /// The skill's script that fits the input best.
    pub script: String,
    /// From meaning: how like the script's examples (and unlike its
    /// counter-examples and narration-only input) the input is.
    pub meaning: f32,
    /// From the rare words the input shares with the script's texts.
    pub keywords: f32,
    /// The log-odds of the skill's classifier, a model fitted on the
    /// catalog's examples.
    pub model: f32,
    pub score: f32,
    /// Whether the plan uses it.
    pub chosen: bool,
}

/// A record of one generation: the prompt, what the model wrote, and timings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// `rules` for the fallback planner, else the model's file name.
    pub planner: String,
    /// SHA-256 (hex) of the full prompt text, or empty.
    pub prompt_hash: String,
    /// The full prompt text (system prefix and per-turn tail).
    pub prompt: String,
    /// Exactly what the model wrote.
    pub response: String,
    pub prompt_tokens: u32,
    /// Prompt tokens served from the kept prefix cache.
    pub cached_tokens: u32,
    pub completion_tokens: u32,
    pub time_to_first_token_ms: u64,
    pub total_ms: u64,
}

/// Why no plan came out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlannerError {
    #[error("plan generation exceeded its deadline")]
    Deadline,
    #[error("the model's output is not a valid plan: {0}")]
    InvalidOutput(String),
    #[error("the model failed: {0}")]
    Model(String),
}

/// The time one plan is given unless a planner says it needs more: the
/// design's 5 seconds (docs/narrator.md, "How long a plan is given").
pub const PLAN_TIME_DEFAULT: Duration = Duration::from_secs(5);

/// The most tools a model's plan may use, the story's narration aside (the
/// host adds that step itself): the in-process planner's grammar writes no
/// more, and a remote server's plan with more is refused (docs/narrator.md,
/// "One plan": "up to the plan's two tools").
pub const MAX_MODEL_PLAN_TOOLS: usize = 2;

/// Turns player input into plans. Implementations must be safe to call from
/// several threads and must return by `request.deadline`.
pub trait Planner: Send + Sync {
    /// A short name for people (`rules`, a model file name).
    fn name(&self) -> String;

    /// Prepares for plans over `catalog` (e.g. evaluates and caches the prompt
    /// prefix) so that a later [`Planner::plan`] spends its deadline on
    /// generation only. Cheap when nothing changed; by default it does nothing.
    fn warm_up(&self, catalog: &Catalog, deadline: Instant) {
        let _ = (catalog, deadline);
    }

    /// Prepares for plans over `catalog` in a story told in `language`
    /// (e.g. loads the router that reads it and embeds the skills' examples
    /// for it), so the first plan in that language spends its deadline on
    /// the plan. Cheap once done; by default it does nothing.
    fn warm_up_language(&self, catalog: &Catalog, language: &Language) {
        let _ = (catalog, language);
    }

    /// Writes one plan for `request`. `on_narrative` receives the plan's
    /// narrative text as it is generated, piece by piece.
    fn plan(
        &self,
        request: &PlanRequest<'_>,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError>;

    /// How long one plan needs, from asking to the plan: a turn gives each
    /// plan this long ([`PlanRequest::deadline`]). A planner that measures
    /// its own speed answers from it; by default [`PLAN_TIME_DEFAULT`].
    fn plan_time(&self) -> Duration {
        PLAN_TIME_DEFAULT
    }

    /// The same loaded model as a writer of text for skill scripts (docs/
    /// protocol.md, "Host generation"); `None` for a planner without a model.
    fn generator(self: Arc<Self>) -> Option<Arc<dyn crate::host::Generator>> {
        None
    }

    /// The embedding model this planner holds, as a judge of how alike texts
    /// are (lore chosen by meaning); `None` without one.
    fn likeness(&self) -> Option<Arc<dyn crate::likeness::Likeness>> {
        None
    }
}

/// Receives a model's loading progress, 0.0 ..= 1.0 (for a bar or a window).
pub type Progress = Box<dyn FnMut(f32) + Send>;
