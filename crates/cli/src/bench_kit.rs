//! What the benchmarks share: skill folders written for them, plans of
//! parallel calls, figures printed as median and range, and the watcher's
//! latency from a file write to the registry holding it.

use std::path::Path;
use std::time::{Duration, Instant};

use narratoria_core::{ErrorCode, Plan, ToolInvocation};

use crate::commands::common::{runtime, CliError};

/// A script that answers at once.
pub(crate) const NOOP: &str =
    "#!/bin/sh\nread -r line\nprintf '{\"type\":\"done\",\"ok\":true}\\n'\n";

/// A skill folder `name` under `root` with these shell scripts (name, body).
pub(crate) fn write_skill(
    root: &Path,
    name: &str,
    scripts: &[(&str, &str)],
) -> std::io::Result<()> {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("scripts"))?;
    std::fs::write(
        dir.join("skill.json"),
        format!(r#"{{"name":"{name}","version":"1.0.0","description":"benchmark skill"}}"#),
    )?;
    for (script, body) in scripts {
        let path = dir.join("scripts").join(format!("{script}.sh"));
        std::fs::write(&path, body)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// `n` independent calls of `tool_path`, run in parallel.
pub(crate) fn parallel_plan(n: usize, tool_path: &str) -> Plan {
    let tools = (0..n)
        .map(|i| {
            let mut t = ToolInvocation::new(format!("t{i}"), tool_path);
            t.is_async = true;
            t
        })
        .collect();
    let mut plan = Plan::new(tools);
    plan.parallel = true;
    plan
}

/// The median, least and most of `v`.
pub(crate) fn median(v: &[f64]) -> (f64, f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    (s[s.len() / 2], s[0], s[s.len() - 1])
}

/// Prints the median, least and most of `times`.
pub(crate) fn report(label: &str, times: &[Duration]) {
    let ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    let (med, min, max) = median(&ms);
    say!("{label:<55} {med:>9.1} ms  [{min:.1}–{max:.1}]");
}

/// The time from a write of a skill's prompt.md to the registry holding it,
/// for `edits` edits spread over `skills` watched skill folders.
pub(crate) fn watch_latencies(
    skills: usize,
    edits: usize,
    debounce: Duration,
) -> Result<Vec<Duration>, CliError> {
    use narratoria_core::skills::{Registry, SkillsState};
    let io = |e: std::io::Error| CliError::usage(ErrorCode::Io, e.to_string());
    let tmp = tempfile::tempdir().map_err(io)?;
    let root = tmp.path().join("skills");
    for i in 0..skills {
        write_skill(&root, &format!("skill-{i:04}"), &[("act", NOOP)]).map_err(io)?;
    }
    let registry = Registry::open(std::slice::from_ref(&root), SkillsState::default())
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    let _watch = registry
        .watch(debounce)
        .map_err(|e| CliError::usage(ErrorCode::Io, e.to_string()))?;
    let rt = runtime();
    let mut latencies = Vec::with_capacity(edits);
    rt.block_on(async {
        let mut rx = registry.subscribe();
        tokio::time::sleep(Duration::from_millis(200)).await;
        for i in 0..edits {
            let name = format!("skill-{:04}", (i * 37) % skills);
            let t = Instant::now();
            std::fs::write(
                root.join(&name).join("prompt.md"),
                format!("Edit {i}: use {name} wisely."),
            )
            .expect("write");
            // The registry's snapshot is what counts: a change message only
            // says when to look (a burst of them may overflow the channel).
            let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
            let edited = |i: usize| {
                registry
                    .snapshot()
                    .get(&name)
                    .and_then(|s| s.prompt.clone())
                    .is_some_and(|p| p.starts_with(&format!("Edit {i}:")))
            };
            loop {
                let woke = tokio::time::timeout_at(deadline, rx.recv()).await;
                if edited(i) {
                    latencies.push(t.elapsed());
                    break;
                }
                match woke {
                    Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
                    _ => {
                        tell!("edit {i}: no update within 5 s");
                        break;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    Ok(latencies)
}
