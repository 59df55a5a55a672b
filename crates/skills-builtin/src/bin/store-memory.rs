//! `memory/store-memory`: keeps one story event, with its embedding when the
//! model is available.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use narratoria_skills_builtin::memory::{MemoryConfig, MemoryStore, NewMemory};
use narratoria_skills_builtin::{memory_model, run, Context, Outcome, ScriptSpec, SkillError};
use serde::Deserialize;
use serde_json::{json, Value};

const SPEC: ScriptSpec = ScriptSpec {
    script: "store-memory",
    manifest: include_str!("../../../../skills/memory/skill.json"),
    config_schema: include_str!("../../../../skills/memory/config-schema.json"),
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    summary: String,
    metadata: Option<Value>,
    timestamp: Option<String>,
    #[serde(default)]
    turn_account: bool,
}

fn store(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let cfg: MemoryConfig = ctx.config()?;
    let input: Input = ctx.input()?;
    let summary = input.summary.trim();
    if summary.is_empty() {
        return Err(SkillError::validation("input.summary: must not be blank"));
    }
    let embedder = memory_model::load(ctx, &cfg);
    let embedding = match &embedder {
        Some(e) => Some(
            e.embed_one(summary)
                .map_err(|err| SkillError::internal(err.to_string()))?,
        ),
        None => None,
    };
    let timestamp = input
        .timestamp
        .unwrap_or_else(|| chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    let mut db = MemoryStore::open(&ctx.data_dir()?)?.within(ctx.envelope.story.clone());
    let id = db.insert(&NewMemory {
        summary,
        timestamp: &timestamp,
        metadata: input.metadata.as_ref(),
        embedding: embedding.as_deref(),
        turn_account: input.turn_account,
    })?;
    Ok(Outcome {
        output: json!({"memoryId": id, "timestamp": timestamp, "embedded": embedding.is_some()}),
        summary: Some(format!("remembered #{id}: {summary}")),
    })
}

fn main() -> ExitCode {
    run(SPEC, store)
}
