//! `narratoria bench load`: the figures a long game would show — turn latency
//! as a saved story grows to 1,000 turns (rule-based planner, no model), the
//! wall time of a 500-tool plan at concurrency 16, reload latency with
//! 1,000 skills watched, and the host's peak memory after each. Not a
//! test: it judges nothing, it reports.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use narratoria_app::{App, AppConfig, SessionDb, SkillChoices};
use narratoria_core::skills::discover;
use narratoria_core::{ErrorCode, ExecutorOptions};
use serde_json::Map;

use crate::bench_kit::{parallel_plan, report, watch_latencies, write_skill};
use crate::cli::BenchArgs;
use crate::commands::common::{runtime, CliError};

const TURNS: usize = 1_000;
const WINDOW: usize = 100;
const WIDE_PLAN_TOOLS: usize = 500;
const WIDE_PLAN_CONCURRENCY: usize = 16;
const WATCHED_SKILLS: usize = 1_000;
const WATCHED_EDITS: usize = 30;

// The scripts read their envelope with `head`, which reads in blocks: the
// shell's `read` takes one byte per system call, and the envelope grows
// with the story (its `story.path` names every earlier turn), so a shell
// `read` would time the script, not the host (docs/benchmarks.md).
const STORYTELLER: &str = "#!/bin/sh
head -n 1 >/dev/null
printf '{\"type\":\"state_patch\",\"patch\":{\"scene\":\"the road\"}}\\n'
printf '{\"type\":\"done\",\"ok\":true,\"output\":{\"narrative\":\"The tale goes on.\"}}\\n'
";
const DICE: &str = "#!/bin/sh
head -n 1 >/dev/null
printf '{\"type\":\"done\",\"ok\":true,\"output\":{\"formula\":\"1d20\",\"rolls\":[17],\"total\":17}}\\n'
";
const NOOP: &str = "#!/bin/sh\nhead -n 1 >/dev/null\nprintf '{\"type\":\"done\",\"ok\":true}\\n'\n";

/// Runs the load benchmark and prints its figures.
pub fn run(_args: &BenchArgs) -> Result<ExitCode, CliError> {
    let io = |e: std::io::Error| CliError::usage(ErrorCode::Io, e.to_string());
    let tmp = tempfile::tempdir().map_err(io)?;
    let skills = tmp.path().join("skills");
    write_skill(&skills, "storyteller", &[("narrate", STORYTELLER)]).map_err(io)?;
    write_skill(&skills, "dice-roller", &[("roll-dice", DICE)]).map_err(io)?;
    write_skill(&skills, "bench", &[("noop", NOOP)]).map_err(io)?;
    let rt = runtime();
    say!("narratoria load benchmark");

    // 1. A 1,000-turn story, saved turn by turn.
    let app = App::open(AppConfig {
        skill_roots: vec![skills.clone()],
        session_db: SessionDb::File(tmp.path().join("story.db")),
        skills_state: SkillChoices::File(tmp.path().join("skills-state.json")),
        skill_data: Some(tmp.path().join("data")),
        ..AppConfig::default()
    })?;
    let mut latencies = Vec::with_capacity(TURNS);
    let story = Instant::now();
    for n in 0..TURNS {
        let input = if n % 2 == 0 {
            "I attack the goblin"
        } else {
            "I look around"
        };
        let t = Instant::now();
        rt.block_on(app.play(input, None))?;
        latencies.push(t.elapsed());
    }
    say!(
        "{TURNS}-turn story, rule-based planner: {:.1} s in all",
        story.elapsed().as_secs_f64()
    );
    report(
        &format!("  turns 1–{WINDOW}: median turn"),
        &latencies[..WINDOW],
    );
    report(
        &format!("  turns {}–{TURNS}: median turn", TURNS - WINDOW + 1),
        &latencies[TURNS - WINDOW..],
    );
    drop(app);
    print_peak_rss("after the story");

    // 2. One plan of 500 independent tools at concurrency 16.
    let catalog = discover(&[skills])
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    let opts = ExecutorOptions {
        max_concurrency: WIDE_PLAN_CONCURRENCY,
        plan_timeout: Duration::from_secs(600),
        ..ExecutorOptions::default()
    };
    let plan = parallel_plan(WIDE_PLAN_TOOLS, "bench/noop");
    let t = Instant::now();
    let result = rt.block_on(narratoria_core::execute(
        &plan,
        &catalog,
        Map::new(),
        &opts,
        None,
    ));
    let wall = t.elapsed();
    let completed = result.execution_trace.iter().filter(|t| t.ok).count();
    say!(
        "{WIDE_PLAN_TOOLS}-tool plan at concurrency {WIDE_PLAN_CONCURRENCY}: {:.0} ms ({completed} tools completed, {:.1} tools/s)",
        wall.as_secs_f64() * 1000.0,
        completed as f64 / wall.as_secs_f64()
    );

    print_peak_rss("after the wide plan");

    // 3. 1,000 skills under live reload: edits of their prompts.
    let latencies = watch_latencies(WATCHED_SKILLS, WATCHED_EDITS, Duration::from_millis(75))?;
    report(
        &format!("{WATCHED_SKILLS} watched skills: file write → registry updated"),
        &latencies,
    );
    print_peak_rss("after the watched skills");
    Ok(ExitCode::SUCCESS)
}

/// The host's peak memory so far (the scripts are separate processes).
fn print_peak_rss(when: &str) {
    match peak_rss_kib() {
        Some(kib) => say!(
            "  peak RSS of the host {when}: {:.1} MiB",
            kib as f64 / 1024.0
        ),
        None => say!("  peak RSS of the host: unknown on this system"),
    }
}

/// The most resident memory this process has used (`VmHWM`), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
