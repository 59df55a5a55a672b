//! Executes a plan (seed 001 §4): validates its DAG, schedules tools
//! critical-path first under the plan's `parallel`/`async` rules and a
//! concurrency bound, retries with exponential backoff, applies state patches
//! of succeeded attempts in completion order, and streams live events.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;

use crate::dag::{Dag, DagError};
use crate::plan::{Plan, RetryPolicy};
use crate::protocol::{Envelope, Event, PROTOCOL, PROTOCOL_VERSION};
use crate::result::{
    ExecutionResult, ExecutionState, FailureReason, ToolError, ToolErrorType, ToolResult,
};
use crate::runner::{self, Exit, Limits, Outcome};
use crate::skills::config::{scrub, scrub_text};
use crate::skills::{Catalog, ResolveError};
use crate::state::deep_merge;

/// How the executor runs plans.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// Most tools running at once in a `parallel` plan.
    pub max_concurrency: usize,
    /// Limit for the whole plan.
    pub plan_timeout: Duration,
    pub limits: Limits,
    /// Where skills' writable data folders live (`<root>/<skill>`); without
    /// it, `<skill folder>/data`.
    pub data_root: Option<PathBuf>,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        ExecutorOptions {
            max_concurrency: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            plan_timeout: Duration::from_secs(60),
            limits: Limits::default(),
            data_root: None,
        }
    }
}

/// A live update while a plan runs, for the UI and the CLI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ExecEvent {
    #[serde(rename_all = "camelCase")]
    PlanStarted {
        plan_id: String,
        tool_ids: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolStarted { tool_id: String, attempt: u32 },
    /// A protocol event a script emitted, as it arrived.
    #[serde(rename_all = "camelCase")]
    ToolEvent {
        tool_id: String,
        attempt: u32,
        event: Map<String, Value>,
    },
    #[serde(rename_all = "camelCase")]
    ToolRetrying {
        tool_id: String,
        next_attempt: u32,
        delay_ms: u64,
        error: ToolError,
    },
    #[serde(rename_all = "camelCase")]
    ToolFinished {
        tool_id: String,
        state: ExecutionState,
        retry_count: u32,
        execution_time_ms: u64,
        error: Option<ToolError>,
    },
    #[serde(rename_all = "camelCase")]
    PlanFinished { plan_id: String, success: bool },
}

/// Where live events go.
pub type EventSink = UnboundedSender<ExecEvent>;

fn emit(sink: &Option<EventSink>, ev: ExecEvent) {
    if let Some(s) = sink {
        let _ = s.send(ev);
    }
}

/// Runs `plan` against the skills of `catalog`, starting from `state`.
/// Always returns a full ExecutionResult; never panics on what the plan or a
/// script does.
pub async fn execute(
    plan: &Plan,
    catalog: &Catalog,
    state: Map<String, Value>,
    opts: &ExecutorOptions,
    sink: Option<EventSink>,
) -> ExecutionResult {
    let start = Instant::now();
    let plan_id = plan.request_id.to_string();
    let mut trace: Vec<ToolResult> = plan
        .tools
        .iter()
        .map(|t| ToolResult::pending(&t.tool_id, &t.tool_path))
        .collect();
    let mut result = ExecutionResult {
        plan_id: plan.request_id,
        success: false,
        narrative: plan.narrative.clone(),
        failed_tools: Vec::new(),
        can_replan: true,
        failure_reason: None,
        failure_message: None,
        execution_trace: Vec::new(),
        final_state: state,
        total_execution_time_ms: 0,
        generation_metadata: Some(plan.metadata.clone()),
    };
    emit(
        &sink,
        ExecEvent::PlanStarted {
            plan_id: plan_id.clone(),
            tool_ids: plan.tools.iter().map(|t| t.tool_id.clone()).collect(),
        },
    );

    let dag = match Dag::new(&plan.tools) {
        Ok(d) => d,
        Err(e) => {
            result.failure_reason = Some(if matches!(e, DagError::Cycle(_)) {
                FailureReason::CircularDependency
            } else {
                FailureReason::InvalidPlan
            });
            result.failure_message = Some(format!("nothing ran: {e}"));
            result.execution_trace = trace;
            result.total_execution_time_ms = ms(start.elapsed());
            emit(
                &sink,
                ExecEvent::PlanFinished {
                    plan_id,
                    success: false,
                },
            );
            return result;
        }
    };

    let plan_deadline = start + opts.plan_timeout;
    let max_concurrency = if plan.parallel {
        opts.max_concurrency.max(1)
    } else {
        1
    };
    let mut queue = dag.queue();
    let mut skipped: Vec<Option<String>> = vec![None; plan.tools.len()];
    let mut outputs: Vec<Option<Value>> = vec![None; plan.tools.len()];
    // Tools run as futures of this one task: no thread hand-offs per tool.
    let mut running = FuturesUnordered::new();
    let mut exclusive = false;
    let mut plan_timed_out = false;

    loop {
        // Start what may start now.
        let mut not_started = None;
        while let Some(i) = queue.peek() {
            if let Some(reason) = skipped[i].take() {
                queue.pop();
                trace[i].state = ExecutionState::Skipped;
                trace[i].error = Some(ToolError {
                    error_type: ToolErrorType::DependencyFailed,
                    message: reason,
                    exit_code: None,
                    code: None,
                    recoverable: true,
                });
                emit_finished(&sink, &trace[i]);
                queue.finish(i);
                continue;
            }
            if Instant::now() >= plan_deadline {
                plan_timed_out = true;
                break;
            }
            let concurrent = plan.parallel && plan.tools[i].is_async;
            if exclusive || running.len() >= max_concurrency || (!concurrent && !running.is_empty())
            {
                break;
            }
            queue.pop();
            match prepare(plan, i, catalog, opts, &outputs, &result.final_state, &dag) {
                Ok(job) => {
                    trace[i].skill = Some(job.skill.clone());
                    trace[i].state = ExecutionState::Running;
                    trace[i].started_at_ms = Some(ms(start.elapsed()));
                    exclusive = !concurrent;
                    let sink = sink.clone();
                    let limits = opts.limits.clone();
                    running
                        .push(async move { (i, run_tool(job, limits, plan_deadline, sink).await) });
                }
                Err((skill, error)) => {
                    // Record it before anything else starts, so its dependents are skipped.
                    trace[i].skill = skill;
                    not_started = Some((i, ToolRun::failed(error)));
                    break;
                }
            }
        }

        let (i, run) = match not_started {
            Some(done) => done,
            None if running.is_empty() => {
                if queue.is_done() || plan_timed_out || queue.peek().is_none() {
                    break;
                }
                continue;
            }
            None => match running.next().await {
                Some(done) => {
                    exclusive = false;
                    done
                }
                None => continue,
            },
        };
        finish_tool(
            i,
            run,
            plan,
            &dag,
            &mut trace,
            &mut outputs,
            &mut skipped,
            &mut result,
            &sink,
        );
        queue.finish(i);
    }

    // Whatever never started because the plan ran out of time.
    for t in trace
        .iter_mut()
        .filter(|t| t.state == ExecutionState::Pending)
    {
        t.state = ExecutionState::Skipped;
        t.error = Some(ToolError {
            error_type: ToolErrorType::PlanTimeout,
            message: format!(
                "not started: the plan's {} ms limit ran out",
                opts.plan_timeout.as_millis()
            ),
            exit_code: None,
            code: None,
            recoverable: true,
        });
        emit_finished(&sink, t);
        plan_timed_out = true;
    }
    if plan_timed_out && result.failure_reason.is_none() {
        result.failure_reason = Some(FailureReason::Timeout);
        result.failure_message = Some(format!(
            "the plan's {} ms limit ran out",
            opts.plan_timeout.as_millis()
        ));
    }

    result.success = result.failure_reason.is_none() && result.failure_message.is_none();
    result.can_replan = !result.success;
    result.execution_trace = trace;
    result.total_execution_time_ms = ms(start.elapsed());
    emit(
        &sink,
        ExecEvent::PlanFinished {
            plan_id,
            success: result.success,
        },
    );
    result
}

/// Records a finished tool: trace, outputs, state, failure bookkeeping.
#[allow(clippy::too_many_arguments)]
fn finish_tool(
    i: usize,
    run: ToolRun,
    plan: &Plan,
    dag: &Dag,
    trace: &mut [ToolResult],
    outputs: &mut [Option<Value>],
    skipped: &mut [Option<String>],
    result: &mut ExecutionResult,
    sink: &Option<EventSink>,
) {
    let tool = &plan.tools[i];
    let t = &mut trace[i];
    t.ok = run.ok;
    t.state = run.state;
    t.events = run.events;
    t.retry_count = run.retry_count;
    t.execution_time_ms = run.execution_time_ms;
    t.stderr = run.stderr;
    t.error = run.error;
    if run.state == ExecutionState::Completed {
        for patch in &run.patches {
            deep_merge(&mut result.final_state, patch);
        }
        if let Some(n) = run
            .output
            .as_ref()
            .and_then(|o| o.get("narrative"))
            .and_then(Value::as_str)
        {
            result.narrative = Some(n.to_string());
        }
        t.output = run.output.clone();
        outputs[i] = run.output;
    } else {
        result.failed_tools.push(tool.tool_id.clone());
        if tool.required {
            if result.failure_reason.is_none() {
                let error_type = t.error.as_ref().map(|e| e.error_type);
                result.failure_reason = Some(match error_type {
                    Some(ToolErrorType::Timeout) | Some(ToolErrorType::PlanTimeout) => {
                        FailureReason::Timeout
                    }
                    Some(ToolErrorType::ProtocolViolation) => FailureReason::ProtocolViolation,
                    _ => FailureReason::ToolFailure,
                });
                let why = t
                    .error
                    .as_ref()
                    .map(|e| e.message.as_str())
                    .unwrap_or("failed");
                result.failure_message =
                    Some(format!("required tool {:?} failed: {why}", tool.tool_id));
            }
            for k in dag.transitive_dependents(i) {
                if skipped[k].is_none() && trace[k].state == ExecutionState::Pending {
                    skipped[k] = Some(format!(
                        "skipped because required tool {:?} failed",
                        tool.tool_id
                    ));
                }
            }
        }
    }
    emit_finished(sink, &trace[i]);
}

fn emit_finished(sink: &Option<EventSink>, t: &ToolResult) {
    emit(
        sink,
        ExecEvent::ToolFinished {
            tool_id: t.tool_id.clone(),
            state: t.state,
            retry_count: t.retry_count,
            execution_time_ms: t.execution_time_ms,
            error: t.error.clone(),
        },
    );
}

/// Everything a tool task needs, owned.
struct Job {
    tool_id: String,
    skill: String,
    program: PathBuf,
    skill_dir: PathBuf,
    data_dir: PathBuf,
    timeout: Duration,
    retry: RetryPolicy,
    request_id: String,
    envelope: Vec<u8>,
    /// Resolved secret values, scrubbed from everything the script prints.
    secrets: Vec<String>,
}

/// Resolves the tool and builds its envelope; an error means it cannot run at all.
fn prepare(
    plan: &Plan,
    i: usize,
    catalog: &Catalog,
    opts: &ExecutorOptions,
    outputs: &[Option<Value>],
    state: &Map<String, Value>,
    dag: &Dag,
) -> Result<Job, (Option<String>, ToolError)> {
    let tool = &plan.tools[i];
    let not_run = |error_type, message: String| ToolError {
        error_type,
        message,
        exit_code: None,
        code: None,
        recoverable: false,
    };
    let (skill, script) = catalog
        .resolve(&tool.tool_path, &plan.disabled_skills)
        .map_err(|e| match e {
            ResolveError::NotFound(_) => {
                (None, not_run(ToolErrorType::ToolNotFound, e.to_string()))
            }
            ResolveError::Disabled(ref s) => (
                Some(s.clone()),
                not_run(ToolErrorType::SkillDisabled, e.to_string()),
            ),
        })?;
    let data_dir = match &opts.data_root {
        Some(root) => root.join(&skill.name),
        None => skill.dir.join("data"),
    };
    // An installed skills folder is read-only: its data goes to the user's folder.
    let data_dir = match ensure_dir(&data_dir) {
        Ok(()) => data_dir,
        Err(e) => {
            let fallback = crate::paths::skills_data_dir().join(&skill.name);
            if opts.data_root.is_some() || ensure_dir(&fallback).is_err() {
                return Err((
                    Some(skill.name.clone()),
                    not_run(
                        ToolErrorType::SpawnFailed,
                        format!("cannot create data folder {}: {e}", data_dir.display()),
                    ),
                ));
            }
            fallback
        }
    };
    let deps: Map<String, Value> = dag
        .dependencies(i)
        .iter()
        .map(|&d| {
            (
                plan.tools[d].tool_id.clone(),
                outputs[d].clone().unwrap_or(Value::Null),
            )
        })
        .collect();
    let env_lookup = |k: &str| std::env::var(k).ok();
    let config = crate::skills::config::resolve(
        skill.config_schema.as_ref(),
        skill.user_config.as_ref(),
        &env_lookup,
    )
    .map_err(|e| {
        (
            Some(skill.name.clone()),
            not_run(
                ToolErrorType::ConfigInvalid,
                format!("settings of skill {:?}: {e}", skill.name),
            ),
        )
    })?;
    let secrets = skill
        .config_schema
        .as_ref()
        .map(|s| crate::skills::config::secret_values(s, &config))
        .unwrap_or_default();
    let envelope = Envelope {
        protocol: PROTOCOL.into(),
        request_id: plan.request_id.to_string(),
        tool_id: tool.tool_id.clone(),
        input: Value::Object(tool.input.clone()),
        deps,
        config,
        state: Value::Object(state.clone()),
        host: None,
    };
    let mut line = serde_json::to_vec(&envelope).expect("envelope serialises");
    line.push(b'\n');
    Ok(Job {
        tool_id: tool.tool_id.clone(),
        skill: skill.name.clone(),
        program: script.path.clone(),
        skill_dir: skill.dir.clone(),
        data_dir,
        timeout: skill.timeout(script),
        retry: tool.retry_policy,
        request_id: plan.request_id.to_string(),
        envelope: line,
        secrets,
    })
}

/// Creates a folder unless it exists (a plain stat in the common case).
fn ensure_dir(dir: &std::path::Path) -> std::io::Result<()> {
    if dir.is_dir() {
        Ok(())
    } else {
        std::fs::create_dir_all(dir)
    }
}

/// A tool's final outcome after all its attempts.
struct ToolRun {
    ok: bool,
    state: ExecutionState,
    output: Option<Value>,
    patches: Vec<Map<String, Value>>,
    events: Vec<Map<String, Value>>,
    retry_count: u32,
    execution_time_ms: u64,
    error: Option<ToolError>,
    stderr: String,
}

impl ToolRun {
    fn failed(error: ToolError) -> ToolRun {
        ToolRun {
            ok: false,
            state: ExecutionState::Failed,
            output: None,
            patches: Vec::new(),
            events: Vec::new(),
            retry_count: 0,
            execution_time_ms: 0,
            error: Some(error),
            stderr: String::new(),
        }
    }
}

async fn run_tool(
    job: Job,
    limits: Limits,
    plan_deadline: Instant,
    sink: Option<EventSink>,
) -> ToolRun {
    let started = Instant::now();
    let attempts = job.retry.max_retries.saturating_add(1);
    let mut events = Vec::new();
    let mut run = ToolRun::failed(ToolError {
        error_type: ToolErrorType::PlanTimeout,
        message: "never started".into(),
        exit_code: None,
        code: None,
        recoverable: false,
    });
    let env = vec![
        (
            "NARRATORIA_PROTOCOL".to_string(),
            PROTOCOL_VERSION.to_string(),
        ),
        (
            "NARRATORIA_SKILL_DIR".to_string(),
            job.skill_dir.display().to_string(),
        ),
        (
            "NARRATORIA_DATA_DIR".to_string(),
            job.data_dir.display().to_string(),
        ),
        ("NARRATORIA_REQUEST_ID".to_string(), job.request_id.clone()),
        ("NARRATORIA_TOOL_ID".to_string(), job.tool_id.clone()),
    ];
    let sink = Arc::new(sink);

    for attempt in 1..=attempts {
        if attempt > 1 {
            let delay = job.retry.backoff(attempt - 1);
            if Instant::now() + delay >= plan_deadline {
                break; // no time left for another try: keep the last failure
            }
            if let Some(err) = &run.error {
                emit(
                    &sink,
                    ExecEvent::ToolRetrying {
                        tool_id: job.tool_id.clone(),
                        next_attempt: attempt,
                        delay_ms: ms(delay),
                        error: err.clone(),
                    },
                );
            }
            tokio::time::sleep(delay).await;
            run.retry_count = attempt - 1;
        }
        emit(
            &sink,
            ExecEvent::ToolStarted {
                tool_id: job.tool_id.clone(),
                attempt,
            },
        );
        let tool_deadline = Instant::now() + job.timeout;
        let deadline = tool_deadline.min(plan_deadline);
        let live = {
            let sink = Arc::clone(&sink);
            let tool_id = job.tool_id.clone();
            let secrets = job.secrets.clone();
            move |raw: &Map<String, Value>| {
                let mut event = Value::Object(raw.clone());
                scrub(&mut event, &secrets);
                let Value::Object(event) = event else {
                    unreachable!()
                };
                emit(
                    &sink,
                    ExecEvent::ToolEvent {
                        tool_id: tool_id.clone(),
                        attempt,
                        event,
                    },
                )
            }
        };
        let outcome = runner::run(
            runner::Attempt {
                program: &job.program,
                skill_dir: &job.skill_dir,
                data_dir: &job.data_dir,
                env: env.clone(),
                stdin: job.envelope.clone(),
                deadline,
                limits: &limits,
            },
            &live,
        )
        .await;
        for (_, raw) in &outcome.events {
            let mut rec = Map::with_capacity(raw.len() + 1);
            rec.insert("attempt".into(), Value::from(attempt));
            for (k, v) in raw {
                if k != "attempt" {
                    rec.insert(k.clone(), v.clone());
                }
            }
            let mut rec = Value::Object(rec);
            scrub(&mut rec, &job.secrets);
            if let Value::Object(rec) = rec {
                events.push(rec);
            }
        }
        run.stderr = outcome.stderr_tail.clone();
        scrub_text(&mut run.stderr, &job.secrets);
        run.ok = matches!(outcome.done(), Some((true, _)));
        if outcome.succeeded() {
            run.state = ExecutionState::Completed;
            run.output = outcome.done().and_then(|(_, o)| o.cloned());
            run.patches = outcome
                .events
                .into_iter()
                .filter_map(|(e, _)| match e {
                    Event::StatePatch { patch } => Some(patch),
                    _ => None,
                })
                .collect();
            run.error = None;
            break;
        }
        let plan_deadline_hit =
            outcome.timed_out && deadline == plan_deadline && tool_deadline > plan_deadline;
        let error = classify(&outcome, job.timeout, plan_deadline_hit);
        run.state = match error.error_type {
            ToolErrorType::Timeout | ToolErrorType::PlanTimeout => ExecutionState::Timeout,
            _ => ExecutionState::Failed,
        };
        let retry = error.error_type.retryable() && error.recoverable;
        run.error = Some(error);
        if !retry {
            break;
        }
    }
    run.events = events;
    run.execution_time_ms = ms(started.elapsed());
    run
}

/// Why a failed attempt failed.
fn classify(o: &Outcome, timeout: Duration, plan_deadline_hit: bool) -> ToolError {
    let exit_code = match o.exit {
        Some(Exit::Code(c)) => Some(c),
        _ => None,
    };
    let script_error = o.events.iter().rev().find_map(|(e, _)| match e {
        Event::Error(se) => Some(se),
        _ => None,
    });
    let code = script_error.map(|e| e.code.clone());
    let mk = |error_type, message: String, recoverable| ToolError {
        error_type,
        message,
        exit_code,
        code: code.clone(),
        recoverable,
    };
    if let Some(reason) = &o.spawn_error {
        return mk(ToolErrorType::SpawnFailed, reason.clone(), false);
    }
    if let Some(v) = &o.violation {
        return mk(
            ToolErrorType::ProtocolViolation,
            format!("protocol violation: {v}"),
            false,
        );
    }
    if o.timed_out {
        if plan_deadline_hit {
            return mk(
                ToolErrorType::PlanTimeout,
                "stopped: the plan's time limit ran out".into(),
                false,
            );
        }
        return mk(
            ToolErrorType::Timeout,
            format!("exceeded its {} ms timeout", timeout.as_millis()),
            true,
        );
    }
    if let Some(Exit::Signal(s)) = o.exit {
        return mk(ToolErrorType::Signal, format!("killed by signal {s}"), true);
    }
    let done_false = matches!(o.done(), Some((false, _)));
    if let Some(se) = script_error {
        return mk(
            ToolErrorType::ScriptError,
            format!("{}: {}", se.code, se.message),
            se.recoverable,
        );
    }
    if done_false {
        let summary = o.events.iter().find_map(|(e, _)| match e {
            Event::Done {
                summary: Some(s), ..
            } => Some(s.clone()),
            _ => None,
        });
        return mk(
            ToolErrorType::ScriptError,
            summary.unwrap_or_else(|| "the script reported failure (done.ok false)".into()),
            true,
        );
    }
    match o.exit {
        Some(Exit::Code(c)) if c != 0 => mk(
            ToolErrorType::NonzeroExit,
            format!("exited with status {c}"),
            true,
        ),
        _ => mk(
            ToolErrorType::NonzeroExit,
            "ended without success".into(),
            true,
        ),
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
