//! `narratoria bench executor`: prints the executor's overhead figures as
//! ratios against baselines measured in the same run. Not a test: it judges
//! nothing, it reports.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use narratoria_core::skills::{discover, Catalog};
use narratoria_core::{ErrorCode, ExecutorOptions, Plan, ToolInvocation};
use serde_json::Map;

use crate::bench_kit::{median, parallel_plan, report, watch_latencies, write_skill, NOOP};
use crate::cli::BenchArgs;
use crate::commands::common::{runtime, CliError};

const SLEEPER: &str =
    "#!/bin/sh\nread -r line\nsleep 0.5\nprintf '{\"type\":\"done\",\"ok\":true}\\n'\n";

pub fn run(args: &BenchArgs) -> Result<ExitCode, CliError> {
    if args.what == "watch" {
        return watch(args);
    }
    if args.what == "load" {
        return crate::load_bench::run(args);
    }
    if args.what == "turn" {
        return crate::turn_bench::run(args);
    }
    let io = |e: std::io::Error| CliError::usage(ErrorCode::Io, e.to_string());
    let tmp = tempfile::tempdir().map_err(io)?;
    let skills = tmp.path().join("skills");
    write_skill(&skills, "bench", &[("noop", NOOP), ("sleep", SLEEPER)]).map_err(io)?;
    let catalog = discover(std::slice::from_ref(&skills))
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    let rt = runtime();
    let runs = args.runs.max(1);
    say!("narratoria executor benchmark ({runs} runs each, median [min–max])");

    // 1. 150 chained trivial tools vs spawning the script 150 times directly.
    let chain = chain_plan(150);
    let script = catalog
        .get("bench")
        .and_then(|s| s.script("noop"))
        .map(|s| s.path.clone())
        .expect("noop script");
    let opts = ExecutorOptions::default();
    let (mut exec, mut direct, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let d = time(|| spawn_directly(&script, 150));
        let e = time(|| {
            let r = rt.block_on(narratoria_core::execute(
                &chain,
                &catalog,
                Map::new(),
                &opts,
                None,
            ));
            assert!(r.success, "benchmark chain failed: {:?}", r.failure_message);
        });
        ratio.push(e.as_secs_f64() / d.as_secs_f64());
        exec.push(e);
        direct.push(d);
    }
    report("150 chained tools via executor", &exec);
    report("150 direct spawns (baseline)", &direct);
    report_ratio("  ratio executor/direct (target ≤ 1.2)", &ratio);

    // 2. N parallel 500 ms sleepers at concurrency N vs one sleeper.
    let n = 8;
    let par_opts = ExecutorOptions {
        max_concurrency: n,
        ..ExecutorOptions::default()
    };
    let many = sleepers_plan(n);
    let one = sleepers_plan(1);
    let (mut t_many, mut t_one, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let a = time(|| {
            rt.block_on(narratoria_core::execute(
                &one,
                &catalog,
                Map::new(),
                &par_opts,
                None,
            ));
        });
        let b = time(|| {
            rt.block_on(narratoria_core::execute(
                &many,
                &catalog,
                Map::new(),
                &par_opts,
                None,
            ));
        });
        ratio.push(b.as_secs_f64() / a.as_secs_f64());
        t_one.push(a);
        t_many.push(b);
    }
    report(
        &format!("{n} parallel 500 ms sleepers, concurrency {n}"),
        &t_many,
    );
    report("1 sleeper (baseline)", &t_one);
    report_ratio(&format!("  ratio {n}/1 (target ≤ 1.1)"), &ratio);

    // 3. Cold discovery of 1,000 generated skill folders.
    let mut disc = Vec::new();
    for r in 0..runs {
        let root = tmp.path().join(format!("many-{r}"));
        for i in 0..1000 {
            write_skill(&root, &format!("skill-{i:04}"), &[("act", NOOP)]).map_err(io)?;
        }
        let mut found: Option<Catalog> = None;
        disc.push(time(|| found = discover(std::slice::from_ref(&root)).ok()));
        assert_eq!(found.map(|c| c.skills().len()), Some(1000));
    }
    report("discovery of 1,000 skill folders (target ≤ 150 ms)", &disc);
    Ok(ExitCode::SUCCESS)
}

fn chain_plan(n: usize) -> Plan {
    let tools = (0..n)
        .map(|i| {
            let mut t = ToolInvocation::new(format!("t{i}"), "bench/noop");
            if i > 0 {
                t.dependencies = vec![format!("t{}", i - 1)];
            }
            t
        })
        .collect();
    Plan::new(tools)
}

fn sleepers_plan(n: usize) -> Plan {
    parallel_plan(n, "bench/sleep")
}

/// The baseline: what any host must do at the least — spawn, write one line, read to EOF, wait.
fn spawn_directly(script: &Path, n: usize) {
    let line = b"{\"protocol\":\"narratoria/1\",\"requestId\":\"x\",\"toolId\":\"t\",\"input\":{},\"deps\":{},\"config\":{},\"state\":{}}\n";
    for _ in 0..n {
        let mut child = Command::new(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(line)
            .expect("write");
        let mut out = String::new();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut out)
            .expect("read");
        child.wait().expect("wait");
    }
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn report_ratio(label: &str, ratios: &[f64]) {
    let (med, min, max) = median(ratios);
    say!("{label:<55} {med:>9.3}×    [{min:.3}–{max:.3}]");
}

/// File write → registry updated, over 50 edits of a skill's prompt.md.
fn watch(args: &BenchArgs) -> Result<ExitCode, CliError> {
    let debounce = Duration::from_millis(75);
    let latencies = watch_latencies(WATCHED_SKILLS, 50.max(args.runs), debounce)?;
    say!(
        "narratoria skill watcher benchmark ({} edits, debounce {} ms)",
        latencies.len(),
        debounce.as_millis()
    );
    report(
        "file write → registry updated (target ≤ 300 ms)",
        &latencies,
    );
    let max = latencies.iter().max().copied().unwrap_or_default();
    say!("{:<55} {:>9.1} ms", "  max", max.as_secs_f64() * 1000.0);
    Ok(ExitCode::SUCCESS)
}

/// How many skills `bench watch` watches.
const WATCHED_SKILLS: usize = 20;
