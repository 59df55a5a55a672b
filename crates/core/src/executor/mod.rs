//! Executes a plan: validates its DAG, schedules tools critical-path first
//! under the plan's `parallel`/`async` rules and a concurrency bound, retries
//! with exponential backoff, applies state patches of succeeded attempts in
//! completion order, and streams live events.
//!
//! [`execute`] is the scheduler. The books of a running plan are kept by
//! `run`, a tool's job is built by `prepare`, its attempts and retries are
//! made by `attempts`, and `classify` names what went wrong.

mod attempts;
mod classify;
mod events;
mod options;
mod prepare;
mod run;
mod scrub;

use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{Map, Value};
use tokio::time::Instant;
use tracing::Instrument;

use crate::dag::Dag;
use crate::output_budget::OutputBudget;
use crate::plan::Plan;
use crate::result::ExecutionResult;
use crate::skills::Catalog;

pub use events::{EventSink, ExecEvent};
pub use options::ExecutorOptions;

use attempts::{run_tool, ToolRun};
use events::emit;
use run::{PlanRun, PlanSpan};

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
    emit(
        &sink,
        ExecEvent::PlanStarted {
            plan_id: plan.request_id.to_string(),
            tool_ids: plan.tools.iter().map(|t| t.tool_id.clone()).collect(),
        },
    );
    let span = PlanSpan::begin(plan, opts.trace.as_ref(), start);
    let dag = match Dag::new(&plan.tools) {
        Ok(d) => d,
        Err(e) => return run::rejected(plan, state, &e, span, &sink),
    };
    let trace_id = span.ids().0.to_string();
    let mut run = PlanRun::new(plan, catalog, opts, &dag, state, sink, span);

    let plan_deadline = start + opts.plan_timeout;
    // What all the plan's tools may write to stdout together.
    let plan_budget = OutputBudget::for_plan(
        opts.limits.max_plan_events,
        opts.limits.max_plan_stdout_bytes,
    );
    let max_concurrency = if plan.parallel {
        opts.max_concurrency.max(1)
    } else {
        1
    };
    let mut queue = dag.queue();
    // Tools run as futures of this one task: no thread hand-offs per tool.
    let mut running = FuturesUnordered::new();
    // A tool that must run alone is running.
    let mut exclusive = false;
    let mut plan_timed_out = false;
    let mut stopped = false;

    loop {
        // Start what may start now.
        let mut not_started = None;
        while let Some(i) = queue.peek() {
            if opts.stop.is_stopped() {
                stopped = true;
                break;
            }
            if run.skip_if_a_dependency_failed(i) {
                queue.pop();
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
            if let Some(output) = opts.settled.get(&plan.tools[i].tool_id) {
                not_started = Some((i, ToolRun::settled(output.clone())));
                break;
            }
            match run.start_tool(i) {
                Ok(job) => {
                    exclusive = !concurrent;
                    let sink = run.sink();
                    let limits = opts.limits.clone();
                    let budget = Arc::clone(&plan_budget);
                    // The log's lines of this tool carry its trace and span.
                    let log_span = tracing::info_span!(
                        "tool",
                        trace_id = %trace_id,
                        span_id = %job.spans.tool,
                        tool_id = %job.tool_id
                    );
                    running.push(
                        async move { (i, run_tool(job, limits, plan_deadline, budget, sink).await) }
                            .instrument(log_span),
                    );
                }
                Err(error) => {
                    // Record it before anything else starts, so its dependents are skipped.
                    not_started = Some((i, ToolRun::not_run(error)));
                    break;
                }
            }
        }

        let (i, tool_run) = match not_started {
            Some(done) => done,
            None if stopped => break,
            None if running.is_empty() => {
                if queue.is_done() || plan_timed_out || queue.peek().is_none() {
                    break;
                }
                continue;
            }
            None => {
                let next = tokio::select! {
                    biased;
                    () = opts.stop.stopped() => None,
                    done = running.next() => done,
                };
                match next {
                    Some(done) => {
                        exclusive = false;
                        done
                    }
                    None if opts.stop.is_stopped() => {
                        stopped = true;
                        break;
                    }
                    None => continue,
                }
            }
        };
        run.finish_tool(i, tool_run);
        queue.finish(i);
    }

    if stopped {
        // Ends the scripts still running (their processes are killed).
        drop(running);
        run.stopped();
    }
    run.finish(plan_timed_out)
}

/// Whole milliseconds of `d`, saturating.
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
