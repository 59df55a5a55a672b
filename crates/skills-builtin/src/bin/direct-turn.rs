//! `game-master/direct-turn`: decides what the world does this turn beyond
//! the player's deed, and keeps the story's table (docs/game-master.md).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use narratoria_lexicon::Verdict;
use narratoria_skills_builtin::gm::{direct, GameMasterConfig, Table, TurnSeen};
use narratoria_skills_builtin::{run, Context, Outcome, ScriptSpec, SkillError};
use serde::Deserialize;
use serde_json::{json, Map, Value};

const SPEC: ScriptSpec = ScriptSpec {
    script: "direct-turn",
    manifest: include_str!("../../../../skills/game-master/skill.json"),
    config_schema: include_str!("../../../../skills/game-master/config-schema.json"),
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    player_input: String,
    seed: u64,
    #[serde(default)]
    answered: bool,
}

/// The first check among the tools' outputs: its verdict and difficulty.
fn first_check(deps: &Map<String, Value>) -> Option<(Verdict, Option<i64>)> {
    deps.values().find_map(|out| {
        let verdict = out.get("outcome")?.as_str().and_then(Verdict::parse)?;
        Some((verdict, out.get("dc").and_then(Value::as_i64)))
    })
}

fn direct_turn(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let config: GameMasterConfig = ctx.config()?;
    let input: Input = ctx.input()?;
    let state = &ctx.envelope.state;
    let table = Table::of_state(state).map_err(SkillError::validation)?;
    let deps = ctx.envelope.deps.clone();
    let location = state.get("location").and_then(Value::as_str);
    let turn = TurnSeen {
        input: &input.player_input,
        answered: input.answered,
        check: first_check(&deps),
        location,
        seed: input.seed,
    };
    let direction = direct(table, &turn, &config);
    let table = serde_json::to_value(direction.table.clone().bounded())
        .map_err(|e| SkillError::internal(format!("cannot encode the table: {e}")))?;
    ctx.events.state_patch(json!({ "gm": table }));
    let summary = match direction.beats.is_empty() {
        true => format!("tension {}: nothing beyond the deed", direction.tension),
        false => format!(
            "tension {}: {}",
            direction.tension,
            direction
                .beats
                .iter()
                .map(|b| b.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    Ok(Outcome {
        output: serde_json::to_value(&direction)
            .map_err(|e| SkillError::internal(format!("cannot encode the direction: {e}")))?,
        summary: Some(summary),
    })
}

fn main() -> ExitCode {
    run(SPEC, direct_turn)
}
