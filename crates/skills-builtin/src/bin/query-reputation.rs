//! `reputation/query-reputation`: a faction's standing now, decay applied.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use narratoria_skills_builtin::reputation::{factions, starting, Ledger, ReputationConfig};
use narratoria_skills_builtin::{run, Context, Outcome, ScriptSpec, SkillError};
use serde::Deserialize;
use serde_json::json;

const SPEC: ScriptSpec = ScriptSpec {
    script: "query-reputation",
    manifest: include_str!("../../../../skills/reputation/skill.json"),
    config_schema: include_str!("../../../../skills/reputation/config-schema.json"),
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    faction_id: Option<String>,
    day: Option<i64>,
    #[serde(default)]
    history: usize,
}

fn query(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let cfg: ReputationConfig = ctx.config()?;
    cfg.check()?;
    let input: Input = ctx.input()?;
    let day = cfg.current_day(input.day, &ctx.envelope.state);
    let ledger = Ledger::open(&ctx.data_dir()?)?
        .within(ctx.envelope.story.clone())
        .starting_at(starting::starting_scores(&ctx.envelope.state));
    match &input.faction_id {
        Some(faction) => {
            if !cfg.faction_list.is_empty() {
                let mut known = ledger.factions()?;
                known.extend(factions::in_state(&ctx.envelope.state));
                cfg.check_faction(faction, &known)?;
            }
            let s = ledger.standing(&cfg, faction, day, input.history)?;
            let summary = format!("{}: {} ({})", s.faction_id, s.score, s.standing);
            Ok(Outcome {
                output: serde_json::to_value(&s)
                    .map_err(|e| SkillError::internal(e.to_string()))?,
                summary: Some(summary),
            })
        }
        None => {
            let mut ids = cfg.faction_list.clone();
            let mut started: Vec<String> = starting::starting_scores(&ctx.envelope.state)
                .into_keys()
                .collect();
            started.sort();
            for f in ledger.factions()?.into_iter().chain(started) {
                if !ids.contains(&f) {
                    ids.push(f);
                }
            }
            let all = ids
                .iter()
                .map(|f| ledger.standing(&cfg, f, day, input.history))
                .collect::<Result<Vec<_>, _>>()?;
            let summary = all
                .iter()
                .map(|s| format!("{}: {} ({})", s.faction_id, s.score, s.standing))
                .collect::<Vec<_>>()
                .join(", ");
            Ok(Outcome {
                output: json!({ "factions": all }),
                summary: Some(if summary.is_empty() {
                    "no factions yet".into()
                } else {
                    summary
                }),
            })
        }
    }
}

fn main() -> ExitCode {
    run(SPEC, query)
}
