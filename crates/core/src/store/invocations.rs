//! Invocation records: one row per script run — one process, one attempt —
//! taken from a committed turn's trace, so that how each skill and script
//! fares (runs, failures by code, durations) can be asked of every story
//! in the database without reading a single turn (docs/observability.md,
//! "Invocation records and `skills stats`").

use std::collections::BTreeMap;

use narratoria_lexicon::clip_to;
use rusqlite::{params, params_from_iter, ToSql, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use super::bounds::{CODE_CHARS, MESSAGE_CHARS};
use super::{to_json, Store, StoreError};
use crate::trace::{Span, SpanKind, SpanStatus, TraceRecord};

/// The status of a script run that succeeded.
const COMPLETED: &str = "completed";

/// The failure code of a failed run that says nothing of why.
const UNKNOWN_FAILURE: &str = "FAILED";

/// One script run as it is kept.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Invocation {
    /// The script span's id.
    pub id: String,
    /// The turn's trace id: what the run's events and log lines carry.
    pub trace_id: String,
    pub skill: String,
    pub script: String,
    pub tool_id: String,
    /// 1 for a tool's first run, 2 for its first retry…
    pub attempt: u32,
    /// The tool's input, secrets scrubbed by the executor.
    pub input: Value,
    /// `completed`, or the state it failed in (`failed`, `timeout`…).
    pub status: String,
    /// Why it failed (see [`failure_code`]), within [`CODE_CHARS`]; `None`
    /// when it completed.
    pub failure_code: Option<String>,
    /// What went wrong, in words, within [`MESSAGE_CHARS`]; `None` when it
    /// completed.
    pub message: Option<String>,
    pub duration_ms: u64,
    /// When the process started, in ms since the Unix epoch.
    pub started_at_unix_ms: u64,
}

/// One record per `script` span of `trace`, in start order. A script span
/// that names no skill (none the executor writes) is passed over.
pub(crate) fn from_trace(trace: &TraceRecord) -> Vec<Invocation> {
    trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Script)
        .filter_map(|s| from_span(trace, s))
        .collect()
}

/// The record of script span `span` of `trace`; its input is its parent
/// tool span's.
fn from_span(trace: &TraceRecord, span: &Span) -> Option<Invocation> {
    let attrs = &span.attributes;
    let text = |key: &str| attrs.get(key).and_then(Value::as_str).map(str::to_string);
    let skill = text("skill")?;
    let status = text("status").unwrap_or_else(|| {
        let ended = if span.status == SpanStatus::Ok {
            COMPLETED
        } else {
            "failed"
        };
        ended.to_string()
    });
    let failed = status != COMPLETED;
    let input = span
        .parent_span_id
        .as_deref()
        .and_then(|parent| trace.span(parent))
        .and_then(|tool| tool.attributes.get("input"))
        .cloned()
        .unwrap_or(Value::Null);
    let attempt = attrs.get("attempt").and_then(Value::as_u64);
    Some(Invocation {
        id: span.span_id.clone(),
        trace_id: trace.trace_id.clone(),
        script: text("script").unwrap_or_else(|| span.name.clone()),
        tool_id: text("toolId").unwrap_or_default(),
        attempt: attempt.and_then(|a| u32::try_from(a).ok()).unwrap_or(1),
        failure_code: failed.then(|| clip_to(&failure_code(attrs), CODE_CHARS)),
        message: failed
            .then(|| text("message"))
            .flatten()
            .map(|m| clip_to(&m, MESSAGE_CHARS)),
        duration_ms: span.end_ms.saturating_sub(span.start_ms),
        started_at_unix_ms: trace.started_at_unix_ms.saturating_add(span.start_ms),
        skill,
        input,
        status,
    })
}

/// Why a run failed, as its record keeps it: the script's own code when it
/// sent one (`VALIDATION_ERROR`), else the host's error type in upper snake
/// case (`TIMEOUT`, `NONZERO_EXIT`), else `FAILED`.
fn failure_code(attrs: &Map<String, Value>) -> String {
    let named = |key: &str| {
        attrs
            .get(key)
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
    };
    named("failureCode")
        .map(str::to_string)
        .or_else(|| named("errorType").map(str::to_ascii_uppercase))
        .unwrap_or_else(|| UNKNOWN_FAILURE.to_string())
}

/// A count or a time as SQLite keeps it (its integers are signed).
fn sql_int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Keeps every script run of `trace` as a record of turn `turn_id` of
/// `session`, inside the turn's own transaction. A run already kept (the
/// same span of the same trace) stays as it was.
pub(super) fn insert(
    tx: &Transaction,
    session: &str,
    turn_id: i64,
    trace: &TraceRecord,
) -> Result<(), StoreError> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO invocations (id, trace_id, session_id, turn_id, skill, script, tool_id,
            attempt, input, status, failure_code, message, duration_ms, started_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    for run in from_trace(trace) {
        stmt.execute(params![
            run.id,
            run.trace_id,
            session,
            turn_id,
            run.skill,
            run.script,
            run.tool_id,
            run.attempt,
            to_json(&run.input),
            run.status,
            run.failure_code,
            run.message,
            sql_int(run.duration_ms),
            sql_int(run.started_at_unix_ms),
        ])?;
    }
    Ok(())
}

/// Which script runs [`Store::skill_stats`] counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StatsQuery {
    /// Only this skill's runs; `None`: every skill's.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub skill: Option<String>,
    /// Only runs that started at or after this time (ms since the Unix
    /// epoch); `None`: every run kept.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub since_unix_ms: Option<u64>,
}

/// How a set of script runs fared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunStats {
    pub runs: u64,
    /// Runs that did not complete.
    pub failures: u64,
    /// How many failed with each code: the script's own (`VALIDATION_ERROR`)
    /// or the host's (`TIMEOUT`, `NONZERO_EXIT`…).
    pub failures_by_code: BTreeMap<String, u64>,
    /// The median duration, by nearest rank; 0 with no runs.
    pub p50_ms: u64,
    /// The 95th percentile duration, by nearest rank; 0 with no runs.
    pub p95_ms: u64,
    /// The mean duration; 0 with no runs.
    pub mean_ms: f64,
}

/// How one script's runs fared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ScriptStats {
    pub script: String,
    #[serde(flatten)]
    pub stats: RunStats,
}

/// How one skill's runs fared, in all and script by script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillRunStats {
    pub skill: String,
    #[serde(flatten)]
    pub stats: RunStats,
    /// Its scripts, by name.
    pub scripts: Vec<ScriptStats>,
}

/// How the skills' script runs fared: skill by skill (by name), and in all.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillStats {
    pub skills: Vec<SkillRunStats>,
    pub totals: RunStats,
}

/// One kept run, as the stats read it.
struct Row {
    skill: String,
    script: String,
    failed: bool,
    code: Option<String>,
    duration_ms: u64,
}

impl Store {
    /// How the script runs `query` selects fared, over every story in the
    /// database: per skill and per script, and in total. No runs: no
    /// skills, and totals of zero.
    pub fn skill_stats(&self, query: &StatsQuery) -> Result<SkillStats, StoreError> {
        let since = query.since_unix_ms.map(sql_int);
        let mut sql = String::from(
            "SELECT skill, script, status, failure_code, duration_ms FROM invocations WHERE 1",
        );
        let mut args: Vec<&dyn ToSql> = Vec::new();
        if let Some(skill) = &query.skill {
            sql.push_str(" AND skill = ?");
            args.push(skill);
        }
        if let Some(since) = &since {
            sql.push_str(" AND started_at >= ?");
            args.push(since);
        }
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(params_from_iter(args), |r| {
                Ok(Row {
                    skill: r.get(0)?,
                    script: r.get(1)?,
                    failed: r.get::<_, String>(2)? != COMPLETED,
                    code: r.get(3)?,
                    duration_ms: r.get::<_, i64>(4)?.max(0) as u64,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(summarise(&rows))
    }
}

/// The stats of `rows`, grouped by skill and script.
fn summarise(rows: &[Row]) -> SkillStats {
    let mut by_skill: BTreeMap<&str, BTreeMap<&str, Vec<&Row>>> = BTreeMap::new();
    for row in rows {
        by_skill
            .entry(&row.skill)
            .or_default()
            .entry(&row.script)
            .or_default()
            .push(row);
    }
    let skills = by_skill
        .into_iter()
        .map(|(skill, scripts)| {
            let all: Vec<&Row> = scripts.values().flatten().copied().collect();
            SkillRunStats {
                skill: skill.to_string(),
                stats: stats_of(&all),
                scripts: scripts
                    .into_iter()
                    .map(|(script, runs)| ScriptStats {
                        script: script.to_string(),
                        stats: stats_of(&runs),
                    })
                    .collect(),
            }
        })
        .collect();
    let all: Vec<&Row> = rows.iter().collect();
    SkillStats {
        skills,
        totals: stats_of(&all),
    }
}

/// Counts, failures by code and durations of `runs`.
fn stats_of(runs: &[&Row]) -> RunStats {
    let mut durations: Vec<u64> = runs.iter().map(|r| r.duration_ms).collect();
    durations.sort_unstable();
    let mut failures_by_code = BTreeMap::new();
    for run in runs.iter().filter(|r| r.failed) {
        let code = run.code.as_deref().unwrap_or(UNKNOWN_FAILURE);
        *failures_by_code.entry(code.to_string()).or_insert(0) += 1;
    }
    let total: u128 = durations.iter().map(|&d| u128::from(d)).sum();
    RunStats {
        runs: runs.len() as u64,
        failures: failures_by_code.values().sum(),
        failures_by_code,
        p50_ms: nearest_rank(&durations, 50),
        p95_ms: nearest_rank(&durations, 95),
        mean_ms: if durations.is_empty() {
            0.0
        } else {
            total as f64 / durations.len() as f64
        },
    }
}

/// The `p`th percentile of `sorted` (ascending) by nearest rank: the
/// smallest value with at least `p`% of the values at or below it; 0 for
/// none.
pub(crate) fn nearest_rank(sorted: &[u64], p: u64) -> u64 {
    let n = sorted.len() as u64;
    if n == 0 {
        return 0;
    }
    let rank = (p.min(100) * n).div_ceil(100).max(1);
    sorted[(rank - 1) as usize]
}
