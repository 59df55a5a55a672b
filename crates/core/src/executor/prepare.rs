//! Gets one tool ready to run: resolves its script, its data folder and its
//! skill's settings, and writes the envelope it will read on stdin.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::ExecutorOptions;
use crate::host::serve::HostLink;
use crate::plan::{Plan, RetryPolicy, ToolInvocation};
use crate::protocol::{Envelope, ProtocolVersion, PROTOCOL, PROTOCOL_VERSION};
use crate::result::{ToolError, ToolErrorType};
use crate::skills::config::{secret_values, PlayerSettings};
use crate::skills::{Catalog, ResolveError, Skill};
use crate::trace::Trace;

/// Everything a tool's attempts need, owned.
pub(super) struct Job {
    pub tool_id: String,
    pub skill: String,
    pub program: PathBuf,
    pub skill_dir: PathBuf,
    pub data_dir: PathBuf,
    /// The tool's own limit per attempt.
    pub timeout: Duration,
    pub retry: RetryPolicy,
    /// The `NARRATORIA_*` variables the script sees.
    pub env: Vec<(String, String)>,
    /// The envelope line, newline included.
    pub envelope: Vec<u8>,
    /// Resolved secret values, scrubbed from everything the script prints.
    pub secrets: Vec<String>,
    /// Set for a skill that may ask the host's model to write.
    pub host: Option<HostLink>,
    /// The script's name (the second half of its toolPath).
    pub script: String,
    /// The tool's input, secrets scrubbed, for its span.
    pub input: Value,
    /// Where the tool's spans go.
    pub spans: ToolSpans,
}

/// Where a tool's spans go: its trace, the plan's execution span and the
/// tool's own span id (docs/observability.md).
#[derive(Debug, Clone)]
pub(super) struct ToolSpans {
    pub trace: Trace,
    pub execution: String,
    pub tool: String,
}

/// The capability a skill declares to ask the host's model to write.
pub const GENERATE: &str = "generate";

/// Why a tool cannot run at all.
#[derive(Debug)]
pub(super) struct NotRunnable {
    /// The skill the tool resolved to, when it got that far.
    pub skill: Option<String>,
    pub error: ToolError,
}

/// Builds the job of `tool` of `plan`, given the outputs of its dependencies
/// (`deps`, by toolId) and the session state it starts from.
pub(super) fn prepare(
    plan: &Plan,
    tool: &ToolInvocation,
    catalog: &Catalog,
    opts: &ExecutorOptions,
    deps: Map<String, Value>,
    state: &Map<String, Value>,
    spans: ToolSpans,
) -> Result<Job, NotRunnable> {
    let (skill, script) = catalog
        .resolve(&tool.tool_path, &plan.disabled_skills)
        .map_err(|e| match e {
            ResolveError::NotFound(_) => not_run(None, ToolErrorType::ToolNotFound, e.to_string()),
            ResolveError::Disabled(ref s) => {
                not_run(Some(s), ToolErrorType::SkillDisabled, e.to_string())
            }
        })?;
    let data_dir = data_dir(&skill.name, &skill.dir, opts.data_root.as_deref())
        .map_err(|e| not_run(Some(&skill.name), ToolErrorType::SpawnFailed, e))?;
    let config = settings(skill, opts)?;
    let secrets = skill
        .config_schema
        .as_ref()
        .map(|s| secret_values(s, &config))
        .unwrap_or_default();
    let host = skill
        .capabilities
        .iter()
        .any(|c| c == GENERATE)
        .then(|| opts.host.clone());
    let line = envelope_line(plan, tool, opts, deps, config, state, host.as_ref());
    let mut input = Value::Object(tool.input.clone());
    crate::skills::config::scrub(&mut input, &secrets);
    Ok(Job {
        tool_id: tool.tool_id.clone(),
        skill: skill.name.clone(),
        program: script.path.clone(),
        skill_dir: skill.dir.clone(),
        env: script_env(plan, tool, &skill.dir, &data_dir),
        data_dir,
        timeout: skill.timeout(script),
        retry: tool.retry_policy,
        envelope: line,
        input,
        secrets,
        host,
        script: script.name.clone(),
        spans,
    })
}

/// The envelope `tool`'s script reads on stdin, as one line.
fn envelope_line(
    plan: &Plan,
    tool: &ToolInvocation,
    opts: &ExecutorOptions,
    deps: Map<String, Value>,
    config: Value,
    state: &Map<String, Value>,
    host: Option<&HostLink>,
) -> Vec<u8> {
    let envelope = Envelope {
        protocol: match host {
            Some(_) => ProtocolVersion::V1_1.to_string(),
            None => PROTOCOL.into(),
        },
        request_id: plan.request_id.to_string(),
        tool_id: tool.tool_id.clone(),
        input: Value::Object(tool.input.clone()),
        deps,
        config,
        state: Value::Object(state.clone()),
        host: host.map(HostLink::capabilities),
        story: opts.story.clone(),
    };
    let mut line = serde_json::to_vec(&envelope).expect("envelope serialises");
    line.push(b'\n');
    line
}

/// A tool that cannot run, for `error_type` and `message`.
fn not_run(skill: Option<&str>, error_type: ToolErrorType, message: String) -> NotRunnable {
    NotRunnable {
        skill: skill.map(str::to_string),
        error: ToolError {
            error_type,
            message,
            exit_code: None,
            code: None,
            recoverable: false,
        },
    }
}

/// `skill`'s settings as its scripts receive them: the player's own (their
/// allowed `${VAR}`s filled in), the shipped ones, the defaults.
fn settings(skill: &Skill, opts: &ExecutorOptions) -> Result<Value, NotRunnable> {
    let env_lookup = |k: &str| std::env::var(k).ok();
    PlayerSettings::for_skill(opts.settings_dir.as_deref(), &skill.name)
        .and_then(|player| {
            crate::skills::config::resolve(
                skill.config_schema.as_ref(),
                skill.user_config.as_ref(),
                player.as_ref(),
                &env_lookup,
            )
        })
        .map_err(|e| {
            not_run(
                Some(&skill.name),
                ToolErrorType::ConfigInvalid,
                format!("settings of skill {:?}: {e}", skill.name),
            )
        })
}

/// The `NARRATORIA_*` variables `tool`'s script sees.
fn script_env(
    plan: &Plan,
    tool: &ToolInvocation,
    skill_dir: &Path,
    data_dir: &Path,
) -> Vec<(String, String)> {
    vec![
        (
            "NARRATORIA_PROTOCOL".to_string(),
            PROTOCOL_VERSION.to_string(),
        ),
        (
            "NARRATORIA_SKILL_DIR".to_string(),
            skill_dir.display().to_string(),
        ),
        (
            "NARRATORIA_DATA_DIR".to_string(),
            data_dir.display().to_string(),
        ),
        (
            "NARRATORIA_REQUEST_ID".to_string(),
            plan.request_id.to_string(),
        ),
        ("NARRATORIA_TOOL_ID".to_string(), tool.tool_id.clone()),
    ]
}

/// The skill's writable data folder, created if missing: `<data_root>/<skill>`
/// when a root is given, else `<skill folder>/data` — or, when that folder
/// cannot be created (an installed skills folder is read-only), the user's
/// own data folder for the skill. The error is a sentence for the trace.
fn data_dir(skill: &str, skill_dir: &Path, data_root: Option<&Path>) -> Result<PathBuf, String> {
    // A skill's name becomes a folder only inside the data root (docs/security.md).
    let in_root = |root: &Path| {
        crate::fs::child(root, skill).map_err(|e| format!("no data folder for skill: {e}"))
    };
    let dir = match data_root {
        Some(root) => in_root(root)?,
        None => skill_dir.join("data"),
    };
    match ensure_dir(&dir) {
        Ok(()) => Ok(dir),
        Err(e) => {
            let fallback = in_root(&crate::paths::skills_data_dir())?;
            if data_root.is_some() || ensure_dir(&fallback).is_err() {
                return Err(format!("cannot create data folder {}: {e}", dir.display()));
            }
            Ok(fallback)
        }
    }
}

/// Creates a folder unless it exists (a plain stat in the common case).
fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        Ok(())
    } else {
        std::fs::create_dir_all(dir)
    }
}
