//! When each tool of a running plan starts: critical-path first, as soon as
//! its dependencies finished, under the plan's `parallel`/`async` rules and
//! the concurrency bound, until the plan's time runs out or the player stops
//! it (docs/architecture.md, "One turn, as it flows").

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::time::Instant;
use tracing::Instrument;

use super::attempts::{run_tool, ToolRun};
use super::prepare::Job;
use super::run::PlanRun;
use super::ExecutorOptions;
use crate::dag::{Dag, ReadyQueue};
use crate::output_budget::OutputBudget;
use crate::plan::Plan;
use crate::result::ExecutionResult;

/// A tool's attempts, running as a future of the plan's own task.
type Running = Pin<Box<dyn Future<Output = (usize, ToolRun)> + Send>>;

/// What the scheduler does after starting what may start.
enum Next {
    /// Record this tool's run.
    Finished(usize, Box<ToolRun>),
    /// Look again for what may start.
    Again,
    /// The plan is over (done, out of time or stopped).
    Over,
}

/// The schedule of one plan's tools.
pub(super) struct Schedule<'a> {
    plan: &'a Plan,
    opts: &'a ExecutorOptions,
    run: PlanRun<'a>,
    queue: ReadyQueue<'a>,
    /// Tools run as futures of this one task: no thread hand-offs per tool.
    running: FuturesUnordered<Running>,
    plan_deadline: Instant,
    /// What all the plan's tools may write to stdout together.
    plan_budget: Arc<OutputBudget>,
    max_concurrency: usize,
    trace_id: String,
    /// A tool that must run alone is running.
    exclusive: bool,
    plan_timed_out: bool,
    stopped: bool,
}

impl<'a> Schedule<'a> {
    /// The schedule of `plan` (whose tools `dag` orders), begun at `start`.
    pub fn new(
        plan: &'a Plan,
        opts: &'a ExecutorOptions,
        dag: &'a Dag,
        run: PlanRun<'a>,
        start: Instant,
    ) -> Schedule<'a> {
        let max_concurrency = if plan.parallel {
            opts.max_concurrency.max(1)
        } else {
            1
        };
        Schedule {
            plan,
            opts,
            trace_id: run.trace_id().to_string(),
            run,
            queue: dag.queue(),
            running: FuturesUnordered::new(),
            plan_deadline: start + opts.plan_timeout,
            plan_budget: OutputBudget::for_plan(
                opts.limits.max_plan_events,
                opts.limits.max_plan_stdout_bytes,
            ),
            max_concurrency,
            exclusive: false,
            plan_timed_out: false,
            stopped: false,
        }
    }

    /// Runs every tool that may run and returns the plan's result.
    pub async fn run(mut self) -> ExecutionResult {
        loop {
            let next = match self.start_ready() {
                Some((i, tool_run)) => Next::Finished(i, Box::new(tool_run)),
                None => self.next_finished().await,
            };
            match next {
                Next::Finished(i, tool_run) => {
                    self.run.finish_tool(i, *tool_run);
                    self.queue.finish(i);
                }
                Next::Again => continue,
                Next::Over => break,
            }
        }
        if self.stopped {
            // Ends the scripts still running (their processes are killed).
            drop(self.running);
            self.run.stopped();
        }
        self.run.finish(self.plan_timed_out)
    }

    /// Starts what may start now; returns a tool that ended without running
    /// (its output settled, or it could not start), to be recorded before
    /// anything else starts so that its dependents are skipped.
    fn start_ready(&mut self) -> Option<(usize, ToolRun)> {
        while let Some(i) = self.queue.peek() {
            if self.opts.stop.is_stopped() {
                self.stopped = true;
                return None;
            }
            if self.run.skip_if_a_dependency_failed(i) {
                self.queue.pop();
                self.queue.finish(i);
                continue;
            }
            if Instant::now() >= self.plan_deadline {
                self.plan_timed_out = true;
                return None;
            }
            let concurrent = self.plan.parallel && self.plan.tools[i].is_async;
            if self.exclusive
                || self.running.len() >= self.max_concurrency
                || (!concurrent && !self.running.is_empty())
            {
                return None;
            }
            self.queue.pop();
            if let Some(output) = self.opts.settled.get(&self.plan.tools[i].tool_id) {
                return Some((i, ToolRun::settled(output.clone())));
            }
            match self.run.start_tool(i) {
                Ok(job) => {
                    self.exclusive = !concurrent;
                    self.spawn(i, job);
                }
                Err(error) => return Some((i, ToolRun::not_run(error))),
            }
        }
        None
    }

    /// Runs tool `i`'s attempts beside the others running.
    fn spawn(&mut self, i: usize, job: Job) {
        let sink = self.run.sink();
        let limits = self.opts.limits.clone();
        let budget = Arc::clone(&self.plan_budget);
        let deadline = self.plan_deadline;
        // The log's lines of this tool carry its trace and span.
        let log_span = tracing::info_span!(
            "tool",
            trace_id = %self.trace_id,
            span_id = %job.spans.tool,
            tool_id = %job.tool_id
        );
        self.running.push(Box::pin(
            async move { (i, run_tool(job, limits, deadline, budget, sink).await) }
                .instrument(log_span),
        ));
    }

    /// Waits for a running tool to finish (or the player to stop the plan).
    async fn next_finished(&mut self) -> Next {
        if self.stopped {
            return Next::Over;
        }
        if self.running.is_empty() {
            let over = self.queue.is_done() || self.plan_timed_out || self.queue.peek().is_none();
            return if over { Next::Over } else { Next::Again };
        }
        let next = tokio::select! {
            biased;
            () = self.opts.stop.stopped() => None,
            done = self.running.next() => done,
        };
        match next {
            Some((i, tool_run)) => {
                self.exclusive = false;
                Next::Finished(i, Box::new(tool_run))
            }
            None if self.opts.stop.is_stopped() => {
                self.stopped = true;
                Next::Over
            }
            None => Next::Again,
        }
    }
}
