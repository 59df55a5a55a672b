//! The `narrate` script's handler: reads the turn, builds the prompt, runs
//! the fallback chain and returns `{"narrative", "provider"}`.

use std::time::{Duration, Instant};

use narratoria_skills_builtin::{Context, LogLevel, Outcome, ScriptSpec, SkillError};
use serde::Deserialize;
use serde_json::json;

use narratoria_lexicon::Language;
use narratoria_protocol::writer::WriterProfile;
use narratoria_protocol::HostModel;

use crate::config::{model_candidates, Provider, StoryConfig, Style};
use crate::fallback::{self, Job};
use crate::prompt::{self, Facts, RecentTurn};
use crate::providers::host;

/// The script as its skill declares it (schemas compiled in).
pub const SPEC: ScriptSpec = ScriptSpec {
    script: "narrate",
    manifest: include_str!("../../../skills/storyteller/skill.json"),
    config_schema: include_str!("../../../skills/storyteller/config-schema.json"),
};

/// The local model must finish by then, counted from the start of the run;
/// the skill's time limit (120 s) leaves room for the template after it.
const LOCAL_BUDGET: Duration = Duration::from_secs(100);

/// The context of the model this script loads itself (providers/local.rs).
const LOCAL_CONTEXT_TOKENS: u32 = 4096;

/// The context assumed of a hosted model (today's hosted models hold far
/// more; the story's budget is what it bounds).
pub const HOSTED_CONTEXT_TOKENS: u32 = 32_768;

/// The script's input (`inputSchema` in skill.json).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NarrateInput {
    pub player_input: String,
    #[serde(default)]
    pub context: Option<String>,
    #[serde(default)]
    pub style: Option<Style>,
    /// The story's premise and setting.
    #[serde(default)]
    pub scenario: Option<String>,
    /// The story's turns, oldest first (the host fills them in).
    #[serde(default)]
    pub recent_turns: Vec<RecentTurn>,
    /// The player's steer for the writer, kept with the story.
    #[serde(default)]
    pub author_note: Option<String>,
    /// The story's language (absent: English).
    #[serde(default)]
    pub language: Option<Language>,
    /// What the story already holds that answers the player's question
    /// (the host's rules found it; told first).
    #[serde(default)]
    pub answer: Option<String>,
}

/// Narrates one turn. Promises `done.output = {"narrative", "provider"}` with
/// a non-empty narrative whenever the input and settings are valid: every
/// provider failure steps down the chain instead of failing the tool.
pub fn narrate(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let started = Instant::now();
    let (config, input) = read_turn(ctx)?;
    let style = input.style.unwrap_or(config.style);
    let deps = &ctx.envelope.deps;
    let state = ctx.envelope.state.clone();
    let language = input.language.clone().unwrap_or_default();
    let facts = Facts {
        action: &input.player_input,
        context: input.context.as_deref(),
        scenario: input.scenario.as_deref(),
        author_note: input.author_note.as_deref(),
        language: &language,
        recent: &input.recent_turns,
        deps,
        state: &state,
        answer: input.answer.as_deref(),
    };
    let offered = narratoria_skills_builtin::host::offered(&ctx.envelope).cloned();
    let (profile, first) = writers(offered.as_ref(), &config);
    let asked = prompt::Asked {
        style,
        profile: &first,
        length: config.length,
    };
    let prompt = prompt::build(&facts, asked);
    let job = Job {
        prompt: &prompt,
        template: narratoria_lexicon::told_with_flavour(
            &language,
            &input.player_input,
            style.name(),
            prompt::without_recent_accounts(deps, &input.recent_turns).values(),
        ),
        model_candidates: model_candidates(
            config.model_path.as_deref(),
            std::env::var("NARRATORIA_MODEL").ok().as_deref(),
            &ctx.skill_dir,
            &narratoria_folders::user_data_dir(),
        ),
        deadline: started + LOCAL_BUDGET,
        told_before: told_before(&input.recent_turns),
        profile,
        language: language.clone(),
    };
    ctx.log(LogLevel::Info, describe(&config, style));
    if narratoria_lexicon::vocabulary::words_for(&language).is_none() {
        let told = format!(
            "no words ship for the story's language ({}): only the guards that need none read its prose",
            language.code()
        );
        ctx.log(LogLevel::Info, told);
    }
    let mut stdio = offered.map(|model| host::Stdio { model });
    let answer = fallback::run(
        &config,
        &job,
        &mut *ctx.events,
        stdio.as_mut().map(|h| h as &mut dyn host::Host),
    );
    // The fact asked for reaches the player whatever the writer wrote — by
    // what the writer wrote: the game master's closing naming a thread
    // ("…on “Dry Creek, 1878”") tells nothing of the answer.
    let closing = prompt.closing.trim();
    let body = match closing.is_empty() {
        true => None,
        false => answer.narrative.trim_end().strip_suffix(closing),
    };
    let narrative = match body {
        Some(body) => format!(
            "{} {closing}",
            prompt::with_answer(body.trim_end(), input.answer.as_deref())
        ),
        None => prompt::with_answer(&answer.narrative, input.answer.as_deref()),
    };
    Ok(outcome(&narrative, answer.provider, started))
}

/// The skill's settings and the turn's input; an empty action is a
/// validation error.
fn read_turn(ctx: &Context) -> Result<(StoryConfig, NarrateInput), SkillError> {
    let config: StoryConfig = ctx.config()?;
    let input: NarrateInput = ctx.input()?;
    if input.player_input.trim().is_empty() {
        return Err(SkillError::validation(
            "input.playerInput: the player's action is empty",
        ));
    }
    Ok((config, input))
}

/// The profile of the writer that answers when the configured one fails
/// (the host's model when it lends one, else the model this script loads:
/// the bundled small one unless the settings name another), and the
/// profile the prompt is built for: a hosted writer first, the host's after
/// it, the story told as the smaller of the two may hold, so the fallback's
/// prompt fits too.
fn writers(offered: Option<&HostModel>, config: &StoryConfig) -> (WriterProfile, WriterProfile) {
    let profile = match offered {
        Some(m) => WriterProfile::local(m.parameters, m.context_tokens, config.length),
        None => WriterProfile::local(None, LOCAL_CONTEXT_TOKENS, config.length),
    };
    let first = match config.provider {
        Provider::Local => profile,
        _ => {
            let hosted = WriterProfile::hosted(HOSTED_CONTEXT_TOKENS, config.length);
            WriterProfile {
                story_tokens: hosted.story_tokens.min(profile.story_tokens),
                ..hosted
            }
        }
    };
    (profile, first)
}

/// The narration of the last turns the repeats guard reads, oldest first.
fn told_before(recent: &[RecentTurn]) -> Vec<String> {
    recent
        .iter()
        .rev()
        .take(crate::guards::repeats::TURNS_READ)
        .rev()
        .map(|t| t.narrator.clone())
        .collect()
}

/// The tool's outcome: the narrative, who told it, and a summary line.
fn outcome(narrative: &str, provider: &str, started: Instant) -> Outcome {
    let words = narrative.split_whitespace().count();
    Outcome {
        output: json!({"narrative": narrative, "provider": provider}),
        summary: Some(format!(
            "{words} words from {provider} in {} ms",
            started.elapsed().as_millis()
        )),
    }
}

/// What the run will try first, without the key.
fn describe(config: &StoryConfig, style: Style) -> String {
    let first = match config.provider {
        Provider::Local => "the local model".to_string(),
        p => format!(
            "{} model {} at {}",
            if p == Provider::OpenAi {
                "openai"
            } else {
                "anthropic"
            },
            config.model_for(p),
            config.endpoint_for(p)
        ),
    };
    let first = config.key().map(|k| k.scrub(&first)).unwrap_or(first);
    format!(
        "narrating in the {} style with {first} (up to {} tokens)",
        style.name(),
        config.max_tokens
    )
}
