//! `narratoria narrate "INPUT" | --batch FILE`: plans from the narrator.

use std::io::BufRead;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use narratoria_core::plan::Plan;
use narratoria_core::planner::{PlanRequest, Planner, Routing};
use narratoria_core::rules::rule_plan;
use narratoria_core::skills::Catalog;
use narratoria_core::ErrorCode;
use serde_json::Map;

use super::common::{discover, CliError};
use crate::cli::NarrateArgs;

/// A plan is generated within 5 s (docs/narrator.md).
const GENERATION_DEADLINE: Duration = Duration::from_secs(5);

pub fn run(args: NarrateArgs) -> Result<ExitCode, CliError> {
    let catalog = discover(&args.roots)?;
    // Read the batch before loading the model, so a bad file fails fast.
    let lines: Option<Box<dyn BufRead>> = match &args.batch {
        None => None,
        Some(p) if p.as_os_str() == "-" => {
            Some(Box::new(std::io::BufReader::new(std::io::stdin())))
        }
        Some(p) => Some(Box::new(std::io::BufReader::new(
            std::fs::File::open(p).map_err(|e| {
                CliError::usage(ErrorCode::Io, format!("cannot read {}: {e}", p.display()))
            })?,
        ))),
    };
    let planner = narratoria_app::planner::open(
        args.model.as_deref(),
        Some(narratoria_app::planner::stderr_progress_bar()),
    )?;
    planner.warm_up(&catalog, Instant::now() + Duration::from_secs(60));
    match lines {
        None => {
            let planned = plan_once(
                planner.as_ref(),
                &catalog,
                args.input.as_deref().unwrap_or_default(),
            );
            super::common::print_json(&output(&planned, args.explain));
        }
        Some(reader) => {
            for line in reader.lines() {
                let line = line.map_err(|e| {
                    CliError::usage(ErrorCode::Io, format!("cannot read the batch: {e}"))
                })?;
                if line.trim().is_empty() {
                    continue;
                }
                let planned = plan_once(planner.as_ref(), &catalog, line.trim());
                crate::terminal::json_line(&output(&planned, args.explain));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `narrate` prints for one plan: the Plan JSON; with `--explain`, plus
/// a `routing` member (docs/narrator.md, "Routing").
#[derive(serde::Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    plan: &'a Plan,
    #[serde(skip_serializing_if = "Option::is_none")]
    routing: Option<&'a Option<Routing>>,
}

/// What to print for `plan` and its `routing`.
fn output<'a>((plan, routing): &'a (Plan, Option<Routing>), explain: bool) -> Output<'a> {
    Output {
        plan,
        routing: explain.then_some(routing),
    }
}

/// One plan for `input`; if the model cannot write one in time, the
/// rule-based plan stands in (said on stderr), so the output is always a
/// valid plan; with it, why the plan uses its skills when a router chose them.
fn plan_once(planner: &dyn Planner, catalog: &Catalog, input: &str) -> (Plan, Option<Routing>) {
    let state = Map::new();
    let req = PlanRequest::first(input, catalog, &state, Instant::now() + GENERATION_DEADLINE);
    match planner.plan(&req, &mut |_| {}) {
        Ok(outcome) => (outcome.plan, outcome.routing),
        Err(e) => {
            tracing::warn!(
                "the narrator gave no plan for {input:?} ({e}); using the rule-based plan"
            );
            (rule_plan(&req), None)
        }
    }
}
