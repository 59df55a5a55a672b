//! `narratoria run-plan PLAN.json --skills DIR [--state STATE.json]`

use std::process::ExitCode;
use std::time::Duration;

use narratoria_core::{ErrorCode, ExecutorOptions, Plan};
use serde_json::{Map, Value};

use super::common::{discover, print_json, runtime, CliError};
use crate::cli::RunPlanArgs;
use crate::terminal::clean_json;

pub fn run(args: RunPlanArgs) -> Result<ExitCode, CliError> {
    let text = read_input(&args.plan).map_err(|e| {
        CliError::usage(
            ErrorCode::Io,
            format!("cannot read plan file {}: {e}", args.plan.display()),
        )
    })?;
    let plan = Plan::from_json_str(&text)
        .map_err(|e| CliError::usage(e.code(), format!("{}: {e}", args.plan.display())))?;
    let catalog = discover(&args.roots)?;
    for p in &catalog.problems {
        tracing::warn!("skipped {}: {}", p.path.display(), p.reason);
    }
    let state = match &args.state {
        None => Map::new(),
        Some(path) => read_state(path)?,
    };
    let mut opts = ExecutorOptions::default();
    if let Some(n) = args.max_concurrency {
        opts.max_concurrency = n as usize;
    }
    if let Some(ms) = args.plan_timeout_ms {
        opts.plan_timeout = Duration::from_millis(ms);
    }
    opts.data_root = args.data_dir.clone();

    let rt = runtime();
    let result = rt.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let printer = args.events.then(|| {
            tokio::spawn(async move {
                while let Some(ev) = rx.recv().await {
                    tell!(
                        "{}",
                        clean_json(serde_json::to_string(&ev).unwrap_or_default())
                    );
                }
            })
        });
        let result =
            narratoria_core::execute(&plan, &catalog, state, &opts, args.events.then_some(tx))
                .await;
        if let Some(p) = printer {
            let _ = p.await;
        }
        result
    });
    print_json(&result);
    if !result.success {
        if let Some(m) = &result.failure_message {
            tell!("narratoria: plan did not succeed: {}", m);
        }
    }
    Ok(if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn read_input(path: &std::path::Path) -> std::io::Result<String> {
    if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    }
}

fn read_state(path: &std::path::Path) -> Result<Map<String, Value>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::usage(
            ErrorCode::Io,
            format!("cannot read state file {}: {e}", path.display()),
        )
    })?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CliError::usage(
            ErrorCode::StateInvalid,
            format!("{}: session state must be a JSON object", path.display()),
        )),
        Err(e) => Err(CliError::usage(
            ErrorCode::StateInvalid,
            format!("{}: not valid JSON: {e}", path.display()),
        )),
    }
}
