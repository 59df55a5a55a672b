//! `reputation/update-reputation`: changes a faction's standing, with a reason.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use narratoria_skills_builtin::reputation::{factions, starting, Ledger, ReputationConfig};
use narratoria_skills_builtin::{run, Context, LogLevel, Outcome, ScriptSpec, SkillError};
use serde::Deserialize;
use serde_json::json;

const SPEC: ScriptSpec = ScriptSpec {
    script: "update-reputation",
    manifest: include_str!("../../../../skills/reputation/skill.json"),
    config_schema: include_str!("../../../../skills/reputation/config-schema.json"),
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    faction_id: String,
    delta: i64,
    reason: String,
    day: Option<i64>,
}

fn update(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let cfg: ReputationConfig = ctx.config()?;
    cfg.check()?;
    let input: Input = ctx.input()?;
    cfg.check_delta(input.delta)?;
    let mut ledger = Ledger::open(&ctx.data_dir()?)?
        .within(ctx.envelope.story.clone())
        .starting_at(starting::starting_scores(&ctx.envelope.state));
    let mut known = ledger.factions()?;
    known.extend(factions::in_state(&ctx.envelope.state));
    cfg.check_faction(&input.faction_id, &known)?;
    let day = cfg.current_day(input.day, &ctx.envelope.state);
    let u = ledger.update(&cfg, &input.faction_id, input.delta, &input.reason, day)?;
    if u.decay != 0 {
        ctx.log(
            LogLevel::Info,
            format!(
                "{}: {} points faded since the last change",
                u.faction_id, u.decay
            ),
        );
    }
    if u.clamped {
        ctx.log(
            LogLevel::Info,
            format!(
                "{}: {:+} clamped to {:+} by the reputation scale",
                u.faction_id, u.requested_delta, u.delta
            ),
        );
    }
    ctx.events.state_patch(json!({
        "reputation": {u.faction_id.clone(): {"score": u.score, "standing": u.standing}}
    }));
    let summary = format!(
        "{} {:+} → {} ({}): {}",
        u.faction_id, u.delta, u.score, u.standing, u.reason
    );
    Ok(Outcome {
        output: serde_json::to_value(&u).map_err(|e| SkillError::internal(e.to_string()))?,
        summary: Some(summary),
    })
}

fn main() -> ExitCode {
    run(SPEC, update)
}
