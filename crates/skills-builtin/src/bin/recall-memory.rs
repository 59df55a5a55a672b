//! `memory/recall-memory`: the stored events most relevant to a query.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use narratoria_skills_builtin::memory::{MemoryConfig, MemoryStore};
use narratoria_skills_builtin::{
    memory_model, run, Context, LogLevel, Outcome, ScriptSpec, SkillError,
};
use serde::Deserialize;
use serde_json::json;

const SPEC: ScriptSpec = ScriptSpec {
    script: "recall-memory",
    manifest: include_str!("../../../../skills/memory/skill.json"),
    config_schema: include_str!("../../../../skills/memory/config-schema.json"),
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    query: String,
    limit: Option<usize>,
}

fn recall(ctx: &mut Context) -> Result<Outcome, SkillError> {
    let cfg: MemoryConfig = ctx.config()?;
    let input: Input = ctx.input()?;
    let limit = input
        .limit
        .unwrap_or(cfg.max_context_events)
        .min(cfg.max_context_events);
    let embedder = memory_model::load(ctx, &cfg);
    let t = std::time::Instant::now();
    let query_vec = match &embedder {
        Some(e) => Some(
            e.embed_one(&input.query)
                .map_err(|err| SkillError::internal(err.to_string()))?,
        ),
        None => None,
    };
    let embed_time = t.elapsed();
    let db = MemoryStore::open(&ctx.data_dir()?)?.within(ctx.envelope.story.clone());
    let (memories, timings) = db.recall(
        &input.query,
        query_vec.as_deref(),
        cfg.similarity_threshold,
        limit,
    )?;
    ctx.log(
        LogLevel::Debug,
        format!(
            "recall: embedding {:?}, vector {:?}, keywords {:?}, rescoring {:?}",
            embed_time, timings.vector, timings.keyword, timings.rescore
        ),
    );
    let mode = if query_vec.is_some() {
        "hybrid"
    } else {
        "keyword"
    };
    let summary = format!("{} memories recalled ({mode})", memories.len());
    Ok(Outcome {
        output: json!({"mode": mode, "memories": memories}),
        summary: Some(summary),
    })
}

fn main() -> ExitCode {
    run(SPEC, recall)
}
