//! The bookkeeping of one plan while it runs: each tool's trace entry, the
//! outputs its dependents read, the tools to skip because a required tool
//! failed, and the plan's result as it builds up.

use serde_json::{Map, Value};
use tokio::time::Instant;

use super::attempts::{span_status, state_name, ToolRun};
use super::classify::plan_failure;
use super::events::{emit, emit_finished, EventSink, ExecEvent};
use super::prepare::{prepare, Job, ToolSpans};
use super::{ms, ExecutorOptions};
use crate::dag::{Dag, DagError};
use crate::plan::Plan;
use crate::result::{ExecutionResult, ExecutionState, FailureReason, ToolError, ToolErrorType};
use crate::skills::Catalog;
use crate::state::deep_merge;
use crate::trace::{new_span_id, OpenSpan, Span, SpanKind, SpanStatus, Trace, TraceRecord};

/// One plan being run.
pub(super) struct PlanRun<'a> {
    plan: &'a Plan,
    catalog: &'a Catalog,
    opts: &'a ExecutorOptions,
    dag: &'a Dag,
    sink: Option<EventSink>,
    /// Each tool's output once it completed, for its dependents' envelopes.
    outputs: Vec<Option<Value>>,
    /// Why a tool is to be skipped rather than run, once a required tool it
    /// depends on failed.
    skip_reasons: Vec<Option<String>>,
    result: ExecutionResult,
    /// The plan's execution span, closed with the books.
    span: PlanSpan,
    /// Whether each tool's span is already in the trace.
    traced: Vec<bool>,
}

/// The span of one plan's execution in its trace.
pub(super) struct PlanSpan {
    trace: Trace,
    open: OpenSpan,
    /// When the plan started.
    start: Instant,
}

impl PlanSpan {
    /// Begins the execution span of `plan` under `parent` (a turn's
    /// attempt or memory), or as a trace of its own begun at `start`.
    pub fn begin(
        plan: &Plan,
        parent: Option<&crate::trace::SpanParent>,
        start: Instant,
    ) -> PlanSpan {
        let (trace, parent_id) = match parent {
            Some(p) => (p.trace.clone(), Some(p.span_id.as_str())),
            None => (Trace::starting_at(start.into_std()), None),
        };
        let mut open = trace.open(SpanKind::Execution, "execution", parent_id);
        open.set("planId", plan.request_id.to_string());
        tracing::debug!(
            trace_id = trace.id(),
            span_id = open.id(),
            plan_id = %plan.request_id,
            "plan started"
        );
        PlanSpan { trace, open, start }
    }

    /// The trace and the execution span, for logs.
    pub fn ids(&self) -> (&str, &str) {
        (self.trace.id(), self.open.id())
    }

    /// Ends the span with `result`'s outcome and gives `result` its trace.
    pub fn end(mut self, result: &mut ExecutionResult) {
        self.open.set("success", result.success);
        if let Some(reason) = result.failure_reason {
            self.open.set(
                "failureReason",
                serde_json::to_value(reason).unwrap_or_default(),
            );
        }
        let id = self.open.id().to_string();
        self.open.close(if result.success {
            SpanStatus::Ok
        } else {
            SpanStatus::Error
        });
        let whole = self.trace.record_so_far();
        result.trace = Some(TraceRecord {
            trace_id: whole.trace_id,
            started_at_unix_ms: whole.started_at_unix_ms,
            spans: self.trace.subtree(&id),
        });
    }
}

/// The result of `plan` before anything ran: every tool pending.
fn blank_result(plan: &Plan, state: Map<String, Value>) -> ExecutionResult {
    ExecutionResult {
        plan_id: plan.request_id,
        success: false,
        narrative: plan.narrative.clone(),
        failed_tools: Vec::new(),
        can_replan: true,
        failure_reason: None,
        failure_message: None,
        execution_trace: plan
            .tools
            .iter()
            .map(|t| crate::result::ToolResult::pending(&t.tool_id, &t.tool_path))
            .collect(),
        final_state: state,
        total_execution_time_ms: 0,
        generation_metadata: Some(plan.metadata.clone()),
        trace: None,
    }
}

/// The result of a plan whose tools form no valid DAG: nothing ran.
/// Announces the plan's end.
pub(super) fn rejected(
    plan: &Plan,
    state: Map<String, Value>,
    error: &DagError,
    span: PlanSpan,
    sink: &Option<EventSink>,
) -> ExecutionResult {
    let mut result = blank_result(plan, state);
    result.failure_reason = Some(if matches!(error, DagError::Cycle(_)) {
        FailureReason::CircularDependency
    } else {
        FailureReason::InvalidPlan
    });
    result.failure_message = Some(format!("nothing ran: {error}"));
    result.total_execution_time_ms = ms(span.start.elapsed());
    span.end(&mut result);
    emit(
        sink,
        ExecEvent::PlanFinished {
            plan_id: plan.request_id.to_string(),
            success: false,
        },
    );
    result
}

impl<'a> PlanRun<'a> {
    /// Starts the books of `plan` (already validated into `dag`) from `state`.
    pub fn new(
        plan: &'a Plan,
        catalog: &'a Catalog,
        opts: &'a ExecutorOptions,
        dag: &'a Dag,
        state: Map<String, Value>,
        sink: Option<EventSink>,
        span: PlanSpan,
    ) -> PlanRun<'a> {
        PlanRun {
            plan,
            catalog,
            opts,
            dag,
            sink,
            outputs: vec![None; plan.tools.len()],
            skip_reasons: vec![None; plan.tools.len()],
            result: blank_result(plan, state),
            span,
            traced: vec![false; plan.tools.len()],
        }
    }

    /// The id of the trace the plan's spans go to, for its tools' logs.
    pub fn trace_id(&self) -> &str {
        self.span.ids().0
    }

    /// Where live events of tool tasks go.
    pub fn sink(&self) -> Option<EventSink> {
        self.sink.clone()
    }

    /// Marks tool `i` skipped if a required tool it depends on failed;
    /// says whether it did.
    pub fn skip_if_a_dependency_failed(&mut self, i: usize) -> bool {
        let Some(reason) = self.skip_reasons[i].take() else {
            return false;
        };
        let t = &mut self.result.execution_trace[i];
        t.state = ExecutionState::Skipped;
        t.error = Some(ToolError {
            error_type: ToolErrorType::DependencyFailed,
            message: reason,
            exit_code: None,
            code: None,
            recoverable: true,
        });
        emit_finished(&self.sink, t);
        true
    }

    /// Gets tool `i` ready to run and marks it running; when it cannot run
    /// at all, returns why (to be recorded with [`PlanRun::finish_tool`]).
    pub fn start_tool(&mut self, i: usize) -> Result<Job, ToolError> {
        let deps: Map<String, Value> = self
            .dag
            .dependencies(i)
            .iter()
            .map(|&d| {
                (
                    self.plan.tools[d].tool_id.clone(),
                    self.outputs[d].clone().unwrap_or(Value::Null),
                )
            })
            .collect();
        let tool_span = new_span_id();
        let spans = ToolSpans {
            trace: self.span.trace.clone(),
            execution: self.span.open.id().to_string(),
            tool: tool_span.clone(),
        };
        let prepared = prepare(
            self.plan,
            &self.plan.tools[i],
            self.catalog,
            self.opts,
            deps,
            &self.result.final_state,
            spans,
        );
        let t = &mut self.result.execution_trace[i];
        t.span_id = Some(tool_span);
        t.started_at_ms = Some(self.span.trace.now_ms());
        match prepared {
            Ok(job) => {
                t.skill = Some(job.skill.clone());
                t.state = ExecutionState::Running;
                Ok(job)
            }
            Err(not_runnable) => {
                t.skill = not_runnable.skill;
                Err(not_runnable.error)
            }
        }
    }

    /// Records tool `i`'s final run: a completed tool's patches go into the
    /// state and its narrative becomes the plan's; a failed required tool
    /// fails the plan and dooms every tool that depends on it.
    pub fn finish_tool(&mut self, i: usize, run: ToolRun) {
        self.traced[i] = run.traced;
        let t = &mut self.result.execution_trace[i];
        t.ok = run.ok;
        t.state = run.state;
        t.events = run.events;
        t.retry_count = run.retry_count;
        t.execution_time_ms = run.execution_time_ms;
        t.stderr = run.stderr;
        t.error = run.error;
        if run.state == ExecutionState::Completed {
            for patch in &run.patches {
                deep_merge(&mut self.result.final_state, patch);
            }
            if let Some(n) = run
                .output
                .as_ref()
                .and_then(|o| o.get("narrative"))
                .and_then(Value::as_str)
            {
                self.result.narrative = Some(n.to_string());
            }
            t.output = run.output.clone();
            self.outputs[i] = run.output;
        } else {
            self.tool_failed(i);
        }
        emit_finished(&self.sink, &self.result.execution_trace[i]);
    }

    fn tool_failed(&mut self, i: usize) {
        let tool = &self.plan.tools[i];
        self.result.failed_tools.push(tool.tool_id.clone());
        if !tool.required {
            return;
        }
        if self.result.failure_reason.is_none() {
            let error = self.result.execution_trace[i].error.as_ref();
            self.result.failure_reason = Some(plan_failure(error.map(|e| e.error_type)));
            let why = error.map(|e| e.message.as_str()).unwrap_or("failed");
            self.result.failure_message =
                Some(format!("required tool {:?} failed: {why}", tool.tool_id));
        }
        for k in self.dag.transitive_dependents(i) {
            if self.skip_reasons[k].is_none()
                && self.result.execution_trace[k].state == ExecutionState::Pending
            {
                self.skip_reasons[k] = Some(format!(
                    "skipped because required tool {:?} failed",
                    tool.tool_id
                ));
            }
        }
    }

    /// Records that the player stopped the plan: tools still running were
    /// ended (failed, by a signal) and tools not started are skipped; the
    /// plan fails unless it already had.
    pub fn stopped(&mut self) {
        for t in self.result.execution_trace.iter_mut() {
            let (state, error_type, message) = match t.state {
                ExecutionState::Running => (
                    ExecutionState::Failed,
                    ToolErrorType::Signal,
                    "ended: the player stopped the turn",
                ),
                ExecutionState::Pending => (
                    ExecutionState::Skipped,
                    ToolErrorType::PlanTimeout,
                    "not started: the player stopped the turn",
                ),
                _ => continue,
            };
            t.state = state;
            t.ok = false;
            t.error = Some(ToolError {
                error_type,
                message: message.into(),
                exit_code: None,
                code: None,
                recoverable: true,
            });
            emit_finished(&self.sink, t);
            self.result.failed_tools.push(t.tool_id.clone());
        }
        if self.result.failure_reason.is_none() {
            self.result.failure_reason = Some(FailureReason::Timeout);
            self.result.failure_message = Some("the player stopped the turn".into());
        }
    }

    /// Closes the books: tools that never started are skipped for lack of
    /// time, the plan's success is decided, and its end announced.
    pub fn finish(mut self, mut plan_timed_out: bool) -> ExecutionResult {
        let limit_ms = self.opts.plan_timeout.as_millis();
        for t in self
            .result
            .execution_trace
            .iter_mut()
            .filter(|t| t.state == ExecutionState::Pending)
        {
            t.state = ExecutionState::Skipped;
            t.error = Some(ToolError {
                error_type: ToolErrorType::PlanTimeout,
                message: format!("not started: the plan's {limit_ms} ms limit ran out"),
                exit_code: None,
                code: None,
                recoverable: true,
            });
            emit_finished(&self.sink, t);
            plan_timed_out = true;
        }
        self.trace_untraced_tools();
        let result = &mut self.result;
        if plan_timed_out && result.failure_reason.is_none() {
            result.failure_reason = Some(FailureReason::Timeout);
            result.failure_message = Some(format!("the plan's {limit_ms} ms limit ran out"));
        }
        result.success = result.failure_reason.is_none() && result.failure_message.is_none();
        result.can_replan = !result.success;
        result.total_execution_time_ms = ms(self.span.start.elapsed());
        emit(
            &self.sink,
            ExecEvent::PlanFinished {
                plan_id: self.plan.request_id.to_string(),
                success: result.success,
            },
        );
        let PlanRun {
            mut result, span, ..
        } = self;
        span.end(&mut result);
        result
    }

    /// Keeps a span for each tool that ran no script of its own — skipped,
    /// not runnable, settled, or ended by a stop — so every entry of the
    /// trace has one.
    fn trace_untraced_tools(&mut self) {
        let trace = &self.span.trace;
        let now = trace.now_ms();
        let execution = self.span.open.id().to_string();
        for (t, traced) in self.result.execution_trace.iter_mut().zip(&self.traced) {
            if *traced {
                continue;
            }
            let span_id = t.span_id.get_or_insert_with(new_span_id).clone();
            let start_ms = t.started_at_ms.unwrap_or(now);
            let mut attributes = Map::new();
            attributes.insert("toolId".into(), t.tool_id.clone().into());
            if let Some(skill) = &t.skill {
                attributes.insert("skill".into(), skill.clone().into());
            }
            attributes.insert("state".into(), state_name(t.state).into());
            if let Some(e) = &t.error {
                attributes.insert(
                    "errorType".into(),
                    serde_json::to_value(e.error_type).unwrap_or_default(),
                );
                attributes.insert("message".into(), e.message.clone().into());
            }
            if t.state == ExecutionState::Completed {
                // Its output was known before the plan ran (`settled`).
                attributes.insert("settled".into(), true.into());
            }
            trace.record(Span {
                span_id,
                parent_span_id: Some(execution.clone()),
                kind: SpanKind::Tool,
                name: t.tool_id.clone(),
                start_ms,
                end_ms: if t.started_at_ms.is_some() {
                    now
                } else {
                    start_ms
                },
                status: span_status(t.state),
                attributes,
            });
        }
    }
}
