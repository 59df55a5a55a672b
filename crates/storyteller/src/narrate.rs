//! The `narrate` script's handler: reads the turn, builds the prompt, runs
//! the fallback chain and returns `{"narrative", "provider"}`.

use std::time::{Duration, Instant};

use narratoria_skills_builtin::{Context, LogLevel, Outcome, ScriptSpec, SkillError};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::config::{model_candidates, Provider, StoryConfig, Style};
use crate::fallback::{self, Job};
use crate::prompt::{self, Facts, RecentTurn};
use crate::providers::host;
use crate::template;

/// The script as its skill declares it (schemas compiled in).
pub const SPEC: ScriptSpec = ScriptSpec {
    script: "narrate",
    manifest: include_str!("../../../skills/storyteller/skill.json"),
    config_schema: include_str!("../../../skills/storyteller/config-schema.json"),
};

/// The local model must finish by then, counted from the start of the run;
/// the skill's time limit (120 s) leaves room for the template after it.
const LOCAL_BUDGET: Duration = Duration::from_secs(100);

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
    /// The last turns, oldest first (the host fills them in).
    #[serde(default)]
    pub recent_turns: Vec<RecentTurn>,
}

/// Narrates one turn. Promises `done.output = {"narrative", "provider"}` with
/// a non-empty narrative whenever the input and settings are valid: every
/// provider failure steps down the chain instead of failing the tool.
pub fn narrate(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let started = Instant::now();
    let config: StoryConfig = ctx.config()?;
    let input: NarrateInput = ctx.input()?;
    if input.player_input.trim().is_empty() {
        return Err(SkillError::validation(
            "input.playerInput: the player's action is empty",
        ));
    }
    let style = input.style.unwrap_or(config.style);
    let deps = &without_recent_accounts(&ctx.envelope.deps, &input.recent_turns);
    let state = ctx.envelope.state.clone();
    let facts = Facts {
        action: &input.player_input,
        context: input.context.as_deref(),
        scenario: input.scenario.as_deref(),
        recent: &input.recent_turns,
        deps,
        state: &state,
    };
    let prompt = prompt::build(&facts, style, config.max_tokens);
    let job = Job {
        prompt: &prompt,
        template: template::narrate(&input.player_input, style, deps),
        model_candidates: model_candidates(
            config.model_path.as_deref(),
            std::env::var("NARRATORIA_MODEL").ok().as_deref(),
            &ctx.skill_dir,
            &narratoria_core::paths::user_data_dir(),
        ),
        deadline: started + LOCAL_BUDGET,
        told_before: input
            .recent_turns
            .iter()
            .map(|t| t.narrator.clone())
            .collect(),
    };
    ctx.log(LogLevel::Info, describe(&config, style));
    let mut stdio = narratoria_skills_builtin::host::offered(&ctx.envelope)
        .cloned()
        .map(|model| host::Stdio { model });
    let answer = fallback::run(
        &config,
        &job,
        &mut *ctx.events,
        stdio.as_mut().map(|h| h as &mut dyn host::Host),
    );
    let words = answer.narrative.split_whitespace().count();
    Ok(Outcome {
        output: json!({"narrative": answer.narrative, "provider": answer.provider}),
        summary: Some(format!(
            "{words} words from {} in {} ms",
            answer.provider,
            started.elapsed().as_millis()
        )),
    })
}

/// `deps` without the recalled memories that are the recent turns' own
/// accounts (the host remembers every turn): those turns are in the story so
/// far already, and told again as memories they crowded out what happened.
fn without_recent_accounts(deps: &Map<String, Value>, recent: &[RecentTurn]) -> Map<String, Value> {
    let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let told: Vec<String> = recent
        .iter()
        .map(|t| {
            squeeze(&t.narrator)
                .chars()
                .take(ACCOUNT_START_CHARS)
                .collect()
        })
        .filter(|t: &String| !t.is_empty())
        .collect();
    let mut deps = deps.clone();
    for output in deps.values_mut() {
        if let Some(Value::Array(memories)) = output.get_mut("memories") {
            memories.retain(|m| {
                let summary = squeeze(m.get("summary").and_then(Value::as_str).unwrap_or(""));
                !told.iter().any(|t| summary.contains(t.as_str()))
            });
        }
    }
    deps
}

/// How much of a turn's narration identifies its account in a memory.
const ACCOUNT_START_CHARS: usize = 60;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recent_turns_own_account_is_not_told_as_a_memory() {
        let deps = json!({"recall": {"memories": [
            {"summary": "You ask the keeper why the lamp went dark, and he shrugs."},
            {"summary": "You met Mira at the well."}
        ]}, "roll": {"total": 3}});
        let recent = [RecentTurn {
            player: "I ask the keeper why the lamp went dark".into(),
            narrator: "You ask the keeper why the lamp went dark, and he shrugs.".into(),
        }];
        let kept = without_recent_accounts(deps.as_object().unwrap(), &recent);
        assert_eq!(
            kept["recall"]["memories"],
            json!([{"summary": "You met Mira at the well."}])
        );
        assert_eq!(kept["roll"], deps["roll"]);
    }
}
