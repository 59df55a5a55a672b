//! `dice-roller/roll-dice`: rolls a dice formula and shows the roll.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use narratoria_skills_builtin::dice::{judge, roll, DiceConfig, Formula, RandomSource};
use narratoria_skills_builtin::{run, Context, LogLevel, Outcome, ScriptSpec, SkillError};
use rand::rngs::{OsRng, SmallRng};
use rand::{SeedableRng, TryRngCore};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::json;

const SPEC: ScriptSpec = ScriptSpec {
    script: "roll-dice",
    manifest: include_str!("../../../../skills/dice-roller/skill.json"),
    config_schema: include_str!("../../../../skills/dice-roller/config-schema.json"),
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    formula: String,
    seed: Option<u64>,
    reason: Option<String>,
    /// The difficulty: with it the roll is a check with an outcome.
    dc: Option<i64>,
}

fn roll_dice(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let config: DiceConfig = ctx.config()?;
    let input: Input = ctx.input()?;
    let formula = Formula::parse(&input.formula, &config.limits()).map_err(|e| {
        SkillError::validation(format!("input.formula: {e}"))
            .with_details(json!({"field": "formula", "formula": input.formula}))
    })?;
    let rolled = match (input.seed, config.random_source) {
        (Some(seed), _) => {
            ctx.log(
                LogLevel::Debug,
                format!("seeded roll (ChaCha8, seed {seed})"),
            );
            roll(&formula, &mut ChaCha8Rng::seed_from_u64(seed))
        }
        (None, RandomSource::Crypto) => roll(&formula, &mut OsRng.unwrap_err()),
        (None, RandomSource::Pseudo) => roll(&formula, &mut SmallRng::from_os_rng()),
    };
    let result = rolled.map_err(|e| SkillError::internal(e.to_string()))?;
    let mut output = serde_json::to_value(&result)
        .map_err(|e| SkillError::internal(format!("cannot encode the roll: {e}")))?;
    if let Some(reason) = &input.reason {
        output["reason"] = json!(reason);
    }
    let check = input.dc.map(|dc| judge(&formula, &result, dc));
    if let Some(check) = &check {
        let verdict = serde_json::to_value(check)
            .map_err(|e| SkillError::internal(format!("cannot encode the check: {e}")))?;
        if let (Some(out), serde_json::Value::Object(fields)) = (output.as_object_mut(), verdict) {
            out.extend(fields);
        }
    }
    let mut payload = output.clone();
    payload["showIndividualRolls"] = json!(config.show_individual_rolls);
    ctx.events.ui_event("dice_roll", payload);
    let mut summary = match &input.reason {
        Some(r) => format!("{r}: {} = {}", result.formula, result.total),
        None => format!("{} = {}", result.formula, result.total),
    };
    if let Some(check) = &check {
        summary.push_str(&format!(
            " against dc {}: {}",
            check.dc,
            serde_json::to_value(check.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ));
    }
    Ok(Outcome {
        output,
        summary: Some(summary),
    })
}

fn main() -> ExitCode {
    run(SPEC, roll_dice)
}
