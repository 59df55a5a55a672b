//! A tool's attempts: runs its script until an attempt succeeds, retrying
//! what another try could fix after an exponential backoff, as long as the
//! retry policy and the plan's time allow. Every attempt's events are kept,
//! secrets scrubbed.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use super::classify::{classify, failed_state};
use super::events::{emit, EventSink, ExecEvent};
use super::ms;
use super::prepare::Job;
use super::scrub::scrub_error;
use crate::output_budget::OutputBudget;
use crate::plan::RetryPolicy;
use crate::protocol::Event;
use crate::result::{ExecutionState, ToolError};
use crate::runner::{self, Limits};
use crate::skills::config::scrub;
use crate::trace::{new_span_id, OpenSpan, Span, SpanKind, SpanStatus};

/// A tool's final outcome after all its attempts.
pub(super) struct ToolRun {
    pub ok: bool,
    pub state: ExecutionState,
    /// The succeeded attempt's `done.output`.
    pub output: Option<Value>,
    /// The succeeded attempt's state patches, in the order they came.
    pub patches: Vec<Map<String, Value>>,
    /// Every attempt's events, each marked with its attempt number.
    pub events: Vec<Map<String, Value>>,
    pub retry_count: u32,
    pub execution_time_ms: u64,
    pub error: Option<ToolError>,
    /// The last attempt's stderr tail.
    pub stderr: String,
    /// Whether the tool's span and its scripts' spans are in the trace
    /// (false for a tool that never ran a script).
    pub traced: bool,
}

impl ToolRun {
    /// A tool that failed before any attempt.
    /// A tool not run because its output is already known (`settled`).
    pub fn settled(output: Value) -> ToolRun {
        ToolRun {
            ok: true,
            state: ExecutionState::Completed,
            output: Some(output),
            patches: Vec::new(),
            events: Vec::new(),
            retry_count: 0,
            execution_time_ms: 0,
            error: None,
            stderr: String::new(),
            traced: false,
        }
    }

    pub fn not_run(error: ToolError) -> ToolRun {
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
            traced: false,
        }
    }
}

/// What follows a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NextStep {
    /// Wait `delay`, then make attempt number `attempt`.
    Retry { attempt: u32, delay: Duration },
    /// Keep the failure.
    GiveUp(GiveUp),
}

/// Why a failed attempt is the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GiveUp {
    /// Another try cannot help (see [`may_retry`]).
    NotRetryable,
    /// The policy's retries are used up.
    OutOfRetries,
    /// The backoff would reach past the plan's time limit.
    OutOfTime,
}

/// Whether another attempt could end differently: the error's type is one
/// worth retrying and the script (or the classification) did not say no.
pub(super) fn may_retry(error: &ToolError) -> bool {
    error.error_type.retryable() && error.recoverable
}

/// Decides what follows failed attempt number `failed` (1-based) when
/// `time_left` remains of the plan: retry `k` waits the policy's backoff for
/// `k` (100, 200, 400 … ms by default).
pub(super) fn after_failure(
    policy: &RetryPolicy,
    failed: u32,
    error: &ToolError,
    time_left: Duration,
) -> NextStep {
    if !may_retry(error) {
        return NextStep::GiveUp(GiveUp::NotRetryable);
    }
    if failed >= policy.max_retries.saturating_add(1) {
        return NextStep::GiveUp(GiveUp::OutOfRetries);
    }
    let delay = policy.backoff(failed);
    if delay >= time_left {
        return NextStep::GiveUp(GiveUp::OutOfTime);
    }
    NextStep::Retry {
        attempt: failed + 1,
        delay,
    }
}

/// Runs `job`'s attempts; no attempt outlives `plan_deadline`. Never fails:
/// every way a script can go wrong ends up in the returned ToolRun.
pub(super) async fn run_tool(
    job: Job,
    limits: Limits,
    plan_deadline: Instant,
    plan_budget: Arc<OutputBudget>,
    sink: Option<EventSink>,
) -> ToolRun {
    let started = Instant::now();
    let tool_started_ms = job.spans.trace.now_ms();
    // The stdout caps hold for all the attempts together.
    let budget = OutputBudget::for_tool(&plan_budget, limits.max_events, limits.max_stdout_bytes);
    let tries = Tries {
        job: &job,
        limits: &limits,
        plan_deadline,
        budget: &budget,
        sink: &sink,
    };
    let mut events = Vec::new();
    let mut attempt = 1;
    let (last, error) = loop {
        let (outcome, error) = tries.attempt(attempt, &mut events).await;
        let Some(error) = error else {
            break (outcome, None);
        };
        let time_left = plan_deadline.saturating_duration_since(Instant::now());
        match after_failure(&job.retry, attempt, &error, time_left) {
            NextStep::Retry {
                attempt: next,
                delay,
            } => {
                tries.retrying(error, next, delay);
                tokio::time::sleep(delay).await;
                attempt = next;
            }
            NextStep::GiveUp(_) => break (outcome, Some(error)),
        }
    };
    let mut run = ToolRun::after(last, error, events, attempt - 1);
    run.execution_time_ms = ms(started.elapsed());
    run.scrub(&job.secrets);
    record_tool_span(&job, tool_started_ms, &run);
    tracing::info!(
        state = %state_name(run.state),
        attempts = attempt,
        ms = run.execution_time_ms,
        "tool finished"
    );
    run
}

impl ToolRun {
    /// The run whose `last` attempt ended with `error` (none: it
    /// succeeded), after `retry_count` retries; `events`: every attempt's.
    fn after(
        last: runner::Outcome,
        error: Option<ToolError>,
        events: Vec<Map<String, Value>>,
        retry_count: u32,
    ) -> ToolRun {
        let stderr = last.stderr_tail.clone();
        let ok = matches!(last.done(), Some((true, _)));
        let (state, output, patches) = match &error {
            Some(e) => (failed_state(e.error_type), None, Vec::new()),
            None => (
                ExecutionState::Completed,
                last.done().and_then(|(_, o)| o.cloned()),
                last.events
                    .into_iter()
                    .filter_map(|(e, _)| match e {
                        Event::StatePatch { patch } => Some(patch),
                        _ => None,
                    })
                    .collect(),
            ),
        };
        ToolRun {
            ok,
            state,
            output,
            patches,
            events,
            retry_count,
            execution_time_ms: 0,
            error,
            stderr,
            traced: true,
        }
    }
}

/// What each attempt of one tool shares.
struct Tries<'a> {
    job: &'a Job,
    limits: &'a Limits,
    plan_deadline: Instant,
    /// What the tool's attempts may still write to stdout.
    budget: &'a OutputBudget,
    sink: &'a Option<EventSink>,
}

impl Tries<'_> {
    /// Makes attempt number `attempt`, its events (and its host
    /// generations) kept in `events`; the error is `None` when it succeeded.
    async fn attempt(
        &self,
        attempt: u32,
        events: &mut Vec<Map<String, Value>>,
    ) -> (runner::Outcome, Option<ToolError>) {
        let job = self.job;
        let mut script_span = open_script_span(job, attempt);
        emit(
            self.sink,
            ExecEvent::ToolStarted {
                tool_id: job.tool_id.clone(),
                attempt,
            },
        );
        let tool_deadline = Instant::now() + job.timeout;
        let deadline = tool_deadline.min(self.plan_deadline);
        let outcome = self.run_script(attempt, deadline).await;
        keep_events(job, &script_span, attempt, &outcome, events);
        if outcome.succeeded() {
            script_span.set("status", "completed");
            script_span.close(SpanStatus::Ok);
            return (outcome, None);
        }
        let plan_deadline_hit = outcome.timed_out
            && deadline == self.plan_deadline
            && tool_deadline > self.plan_deadline;
        let error = classify(&outcome, job.timeout, plan_deadline_hit);
        close_failed(script_span, &error, &job.secrets);
        (outcome, Some(error))
    }

    /// Runs the script once, until `deadline`, its events sent live.
    async fn run_script(&self, attempt: u32, deadline: Instant) -> runner::Outcome {
        let job = self.job;
        let live = |raw: &Map<String, Value>| {
            let mut event = raw.clone();
            event.values_mut().for_each(|v| scrub(v, &job.secrets));
            emit(
                self.sink,
                ExecEvent::ToolEvent {
                    tool_id: job.tool_id.clone(),
                    attempt,
                    event,
                },
            )
        };
        runner::run(
            runner::Attempt {
                program: &job.program,
                skill_dir: &job.skill_dir,
                data_dir: &job.data_dir,
                env: job.env.clone(),
                stdin: job.envelope.clone(),
                deadline,
                limits: self.limits,
                host: job.host.clone(),
                budget: self.budget,
                secrets: &job.secrets,
            },
            &live,
        )
        .await
    }

    /// Tells that attempt number `next` follows `error` after `delay`.
    fn retrying(&self, mut error: ToolError, next: u32, delay: Duration) {
        scrub_error(&mut error, &self.job.secrets);
        emit(
            self.sink,
            ExecEvent::ToolRetrying {
                tool_id: self.job.tool_id.clone(),
                next_attempt: next,
                delay_ms: ms(delay),
                error,
            },
        );
    }
}

/// Keeps attempt `attempt`'s events in `events`, each with its script's
/// span, and each host generation with a `generate` span of its own.
fn keep_events(
    job: &Job,
    script_span: &OpenSpan,
    attempt: u32,
    outcome: &runner::Outcome,
    events: &mut Vec<Map<String, Value>>,
) {
    let ids = SpanIds {
        trace: job.spans.trace.id(),
        span: script_span.id(),
    };
    events.extend(
        outcome
            .events
            .iter()
            .map(|(_, raw)| traced(attempt, raw, &job.secrets, &ids)),
    );
    for generation in &outcome.generations {
        let span = generate_span(job, script_span, generation);
        let ids = SpanIds {
            trace: job.spans.trace.id(),
            span: &span,
        };
        events.push(traced(attempt, generation, &job.secrets, &ids));
    }
}

/// The span of attempt number `attempt` of `job`'s script, begun now.
fn open_script_span(job: &Job, attempt: u32) -> OpenSpan {
    let mut span =
        job.spans
            .trace
            .open(SpanKind::Script, job.script.clone(), Some(&job.spans.tool));
    span.set("toolId", job.tool_id.clone());
    span.set("skill", job.skill.clone());
    span.set("script", job.script.clone());
    span.set("attempt", attempt);
    span
}

/// Closes a script run's span with how it failed (secrets scrubbed).
fn close_failed(mut span: OpenSpan, error: &ToolError, secrets: &[String]) {
    let mut error = error.clone();
    scrub_error(&mut error, secrets);
    span.set("status", state_name(failed_state(error.error_type)));
    span.set(
        "errorType",
        serde_json::to_value(error.error_type).unwrap_or_default(),
    );
    if let Some(code) = &error.code {
        span.set("failureCode", code.clone());
    }
    if let Some(exit) = error.exit_code {
        span.set("exitCode", exit);
    }
    span.set("message", error.message);
    span.close(SpanStatus::Error);
}

/// Keeps the span of one host `generate` request a script run made, from
/// its transcript (`atMs` into the attempt, `ms` long); returns its id.
fn generate_span(job: &Job, script: &OpenSpan, generation: &Map<String, Value>) -> String {
    let number = |k: &str| generation.get(k).and_then(Value::as_u64).unwrap_or(0);
    let start_ms = script.start_ms() + number("atMs");
    let failed = generation.contains_key("error");
    let mut attributes = Map::new();
    for key in [
        "id",
        "promptHash",
        "maxTokens",
        "finishReason",
        "usage",
        "error",
    ] {
        if let Some(v) = generation.get(key) {
            attributes.insert(key.to_string(), v.clone());
        }
    }
    let span_id = new_span_id();
    job.spans.trace.record(Span {
        span_id: span_id.clone(),
        parent_span_id: Some(script.id().to_string()),
        kind: SpanKind::Generate,
        name: "generate".into(),
        start_ms,
        end_ms: start_ms + number("ms"),
        status: if failed {
            SpanStatus::Error
        } else {
            SpanStatus::Ok
        },
        attributes,
    });
    span_id
}

/// Keeps the tool's span: from its first attempt to its outcome.
fn record_tool_span(job: &Job, start_ms: u64, run: &ToolRun) {
    let mut attributes = Map::new();
    attributes.insert("toolId".into(), job.tool_id.clone().into());
    attributes.insert("skill".into(), job.skill.clone().into());
    attributes.insert("script".into(), job.script.clone().into());
    attributes.insert("input".into(), job.input.clone());
    attributes.insert("state".into(), state_name(run.state).into());
    attributes.insert("retryCount".into(), run.retry_count.into());
    job.spans.trace.record(Span {
        span_id: job.spans.tool.clone(),
        parent_span_id: Some(job.spans.execution.clone()),
        kind: SpanKind::Tool,
        name: job.tool_id.clone(),
        start_ms,
        end_ms: job.spans.trace.now_ms(),
        status: span_status(run.state),
        attributes,
    });
}

/// A tool's state as its span tells it.
pub(super) fn span_status(state: ExecutionState) -> SpanStatus {
    match state {
        ExecutionState::Completed => SpanStatus::Ok,
        ExecutionState::Skipped | ExecutionState::Pending => SpanStatus::Skipped,
        _ => SpanStatus::Error,
    }
}

/// `state` as the wire writes it (`completed`, `timeout`…).
pub(super) fn state_name(state: ExecutionState) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The trace and span an event belongs to.
struct SpanIds<'a> {
    trace: &'a str,
    span: &'a str,
}

/// An event as the trace keeps it: `attempt` first, then the ids of its
/// trace and span (the script's own fields of those names give way),
/// secrets scrubbed.
fn traced(
    attempt: u32,
    raw: &Map<String, Value>,
    secrets: &[String],
    ids: &SpanIds,
) -> Map<String, Value> {
    let mut rec = Map::with_capacity(raw.len() + 3);
    rec.insert("attempt".into(), Value::from(attempt));
    rec.insert("traceId".into(), Value::from(ids.trace));
    rec.insert("spanId".into(), Value::from(ids.span));
    for (k, v) in raw {
        if !matches!(k.as_str(), "attempt" | "traceId" | "spanId") {
            let mut v = v.clone();
            scrub(&mut v, secrets);
            rec.insert(k.clone(), v);
        }
    }
    rec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::ToolErrorType;
    use serde_json::json;

    const PLENTY: Duration = Duration::from_secs(60);

    fn error(error_type: ToolErrorType, recoverable: bool) -> ToolError {
        ToolError {
            error_type,
            message: "failed".into(),
            exit_code: None,
            code: None,
            recoverable,
        }
    }

    fn retry_delay(step: NextStep) -> Duration {
        match step {
            NextStep::Retry { delay, .. } => delay,
            other => panic!("expected a retry, got {other:?}"),
        }
    }

    #[test]
    fn retries_wait_100_200_400_ms_by_default() {
        let policy = RetryPolicy::default();
        let e = error(ToolErrorType::NonzeroExit, true);
        let delays: Vec<u64> = (1..=3)
            .map(|failed| ms(retry_delay(after_failure(&policy, failed, &e, PLENTY))))
            .collect();
        assert_eq!(delays, [100, 200, 400]);
    }

    #[test]
    fn the_backoff_doubles_from_the_plans_base() {
        let policy = RetryPolicy {
            max_retries: 5,
            backoff_ms: 30,
        };
        let e = error(ToolErrorType::Timeout, true);
        let delays: Vec<u64> = (1..=5)
            .map(|failed| ms(retry_delay(after_failure(&policy, failed, &e, PLENTY))))
            .collect();
        assert_eq!(delays, [30, 60, 120, 240, 480]);
    }

    #[test]
    fn a_retry_is_the_next_attempt() {
        let step = after_failure(
            &RetryPolicy::default(),
            2,
            &error(ToolErrorType::Signal, true),
            PLENTY,
        );
        assert_eq!(
            step,
            NextStep::Retry {
                attempt: 3,
                delay: Duration::from_millis(200)
            }
        );
    }

    #[test]
    fn the_last_allowed_attempt_is_not_retried() {
        let policy = RetryPolicy::default();
        let e = error(ToolErrorType::ScriptError, true);
        assert!(matches!(
            after_failure(&policy, 3, &e, PLENTY),
            NextStep::Retry { attempt: 4, .. }
        ));
        assert_eq!(
            after_failure(&policy, 4, &e, PLENTY),
            NextStep::GiveUp(GiveUp::OutOfRetries)
        );
        let once = RetryPolicy {
            max_retries: 0,
            backoff_ms: 100,
        };
        assert_eq!(
            after_failure(&once, 1, &e, PLENTY),
            NextStep::GiveUp(GiveUp::OutOfRetries)
        );
    }

    #[test]
    fn no_retry_when_the_backoff_reaches_the_plans_limit() {
        let policy = RetryPolicy::default();
        let e = error(ToolErrorType::NonzeroExit, true);
        assert_eq!(
            after_failure(&policy, 1, &e, Duration::from_millis(100)),
            NextStep::GiveUp(GiveUp::OutOfTime)
        );
        assert!(matches!(
            after_failure(&policy, 1, &e, Duration::from_millis(101)),
            NextStep::Retry { .. }
        ));
        assert_eq!(
            after_failure(&policy, 1, &e, Duration::ZERO),
            NextStep::GiveUp(GiveUp::OutOfTime)
        );
    }

    #[test]
    fn what_another_try_cannot_fix_is_not_retried() {
        use ToolErrorType::*;
        for kind in [
            ToolNotFound,
            SkillDisabled,
            SpawnFailed,
            ConfigInvalid,
            ProtocolViolation,
            DependencyFailed,
            PlanTimeout,
        ] {
            let e = error(kind, true);
            assert!(!may_retry(&e), "{kind:?}");
            assert_eq!(
                after_failure(&RetryPolicy::default(), 1, &e, PLENTY),
                NextStep::GiveUp(GiveUp::NotRetryable),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn recoverable_false_is_not_retried_even_when_the_type_is() {
        use ToolErrorType::*;
        for kind in [Timeout, ScriptError, NonzeroExit, Signal] {
            assert!(may_retry(&error(kind, true)), "{kind:?}");
            let e = error(kind, false);
            assert!(!may_retry(&e), "{kind:?}");
            assert_eq!(
                after_failure(&RetryPolicy::default(), 1, &e, PLENTY),
                NextStep::GiveUp(GiveUp::NotRetryable)
            );
        }
    }

    #[test]
    fn traced_events_carry_their_attempt_and_no_secrets() {
        let raw = json!({"type": "log", "attempt": 9, "message": "key hunter2 used"});
        let ids = SpanIds {
            trace: "t1",
            span: "s1",
        };
        let rec = traced(2, raw.as_object().unwrap(), &["hunter2".to_string()], &ids);
        assert_eq!(rec.keys().next().map(String::as_str), Some("attempt"));
        assert_eq!(rec["attempt"], 2);
        assert_eq!(
            (&rec["traceId"], &rec["spanId"]),
            (&json!("t1"), &json!("s1"))
        );
        assert_eq!(rec["type"], "log");
        assert!(!rec["message"].as_str().unwrap().contains("hunter2"));
        assert_eq!(rec.len(), 5);
    }
}
