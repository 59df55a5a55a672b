//! Executes a plan: validates its DAG, schedules tools critical-path first
//! under the plan's `parallel`/`async` rules and a concurrency bound, retries
//! with exponential backoff, applies state patches of succeeded attempts in
//! completion order, and streams live events.
//!
//! [`execute`] runs a plan; `schedule` decides when each tool starts. The
//! books of a running plan are kept by `run`, a tool's job is built by `prepare`, its attempts and retries are
//! made by `attempts`, and `classify` names what went wrong.

mod attempts;
mod classify;
mod events;
mod options;
mod prepare;
mod run;
mod schedule;
mod scrub;

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::dag::Dag;
use crate::plan::Plan;
use crate::result::ExecutionResult;
use crate::skills::Catalog;

pub use events::{EventSink, ExecEvent};
pub use options::ExecutorOptions;

use events::emit;
use run::{PlanRun, PlanSpan};
use schedule::Schedule;

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
    let run = PlanRun::new(plan, catalog, opts, &dag, state, sink, span);
    Schedule::new(plan, opts, &dag, run, start).run().await
}

/// Whole milliseconds of `d`, saturating.
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
