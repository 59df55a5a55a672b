//! Helpers shared by the black-box tests: running the binary under a
//! wall-clock guard, building skill folders and scripts, and reading results.
#![allow(dead_code)]

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A model path that does not exist: the binary plans with its rule-based
/// planner.
pub const NO_MODEL: (&str, &str) = ("NARRATORIA_MODEL", "/nonexistent/model.gguf");

/// `p` as the argument it is.
pub fn r(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The environment of a run without a model, with `home` as NARRATORIA_HOME.
pub fn env(home: &Path) -> Vec<(&str, &str)> {
    vec![NO_MODEL, ("NARRATORIA_HOME", r(home))]
}

/// `narratoria turn INPUT --skills ROOT --session DB --json` without a model.
pub fn turn(root: &Path, db: &Path, home: &Path, input: &str) -> Run {
    narratoria(
        [
            "turn",
            input,
            "--skills",
            r(root),
            "--session",
            r(db),
            "--json",
        ],
        &env(home),
    )
}

/// Runs `narratoria args` without a model, `home` as NARRATORIA_HOME and
/// `input` on stdin, to the end.
pub fn with_stdin(args: &[&str], home: &Path, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(bin())
        .args(args)
        .env(NO_MODEL.0, NO_MODEL.1)
        .env("NARRATORIA_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// [`with_stdin`] that must succeed: its stdout (the failure shows both).
pub fn stdout_of(args: &[&str], home: &Path, input: &str) -> String {
    let out = with_stdin(args, home, input.as_bytes());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A run of the binary that takes longer than this is killed and fails the
/// test, so a hang fails instead of blocking CI.
pub const WALL_CLOCK_LIMIT: Duration = Duration::from_secs(60);

/// Path of the binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_narratoria")
}

// ---------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------

/// What one invocation of the binary produced.
#[derive(Debug)]
pub struct Run {
    /// Exit status; -1 when the process died by a signal.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// Wall-clock time until the process exited.
    pub elapsed: Duration,
}

impl Run {
    /// stdout parsed as JSON; fails the test with both streams otherwise.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout of narratoria is not JSON ({e}); exit {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                self.code,
                tail(&self.stdout, 4000),
                tail(&self.stderr, 4000)
            )
        })
    }
}

/// Last `max` bytes of `s` (on a char boundary), for failure messages.
pub fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Reads a pipe on a thread into a shared buffer; the channel fires at EOF.
/// Reading into a shared buffer (instead of `read_to_end`) lets the caller
/// give up waiting if a leaked grandchild keeps the pipe open.
fn drain<R: Read + Send + 'static>(mut pipe: R) -> (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let sink = Arc::clone(&buf);
    thread::spawn(move || {
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => sink.lock().unwrap().extend_from_slice(&chunk[..n]),
            }
        }
        let _ = tx.send(());
    });
    (buf, rx)
}

fn collect(buf: &Arc<Mutex<Vec<u8>>>, eof: &mpsc::Receiver<()>, wait: Duration) -> String {
    let _ = eof.recv_timeout(wait);
    let bytes = buf.lock().unwrap().clone();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `narratoria ARGS...` with extra environment variables, under the
/// wall-clock guard. Also checks the universal rule that the binary never
/// panics or prints a backtrace.
pub fn narratoria<I, S>(args: I, envs: &[(&str, &str)]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<_> = args
        .into_iter()
        .map(|a| a.as_ref().to_os_string())
        .collect();
    let mut cmd = Command::new(bin());
    cmd.args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        cmd.env(key, value);
    }
    // A run that names no home of its own writes its logs and choices to a
    // throwaway one, never to the user's folders.
    let own_home = (!envs.iter().any(|(k, _)| *k == "NARRATORIA_HOME")
        && std::env::var_os("NARRATORIA_HOME").is_none())
    .then(|| tempfile::tempdir().expect("a temporary NARRATORIA_HOME"));
    if let Some(home) = &own_home {
        cmd.env("NARRATORIA_HOME", home.path());
    }
    let started = Instant::now();
    let mut child = cmd.spawn().expect("cannot start the narratoria binary");
    let (out_buf, out_eof) = drain(child.stdout.take().unwrap());
    let (err_buf, err_eof) = drain(child.stderr.take().unwrap());
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for narratoria") {
            break status;
        }
        if started.elapsed() > WALL_CLOCK_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = collect(&err_buf, &err_eof, Duration::from_secs(2));
            panic!(
                "narratoria {:?} did not exit within {:?} and was killed\n--- stderr tail ---\n{}",
                args,
                WALL_CLOCK_LIMIT,
                tail(&stderr, 4000)
            );
        }
        thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    let stdout = collect(&out_buf, &out_eof, Duration::from_secs(10));
    let stderr = collect(&err_buf, &err_eof, Duration::from_secs(10));
    assert!(
        !stderr.contains("panicked") && !stderr.contains("stack backtrace"),
        "narratoria {:?} panicked:\n{}",
        args,
        tail(&stderr, 4000)
    );
    Run {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
        elapsed,
    }
}

/// Runs `narratoria run-plan` on `plan` with the given skill roots and
/// optional initial state; returns (exit status, ExecutionResult, stderr).
/// Fails the test if stdout is not JSON.
pub fn run_plan<P: AsRef<Path>>(
    plan: Value,
    roots: &[P],
    state: Option<Value>,
) -> (i32, Value, String) {
    let run = run_plan_with(&plan, roots, state.as_ref(), &[], &[]);
    let result = run.json();
    (run.code, result, run.stderr)
}

/// Like [`run_plan`] but with extra command-line arguments (e.g.
/// `--max-concurrency 1`) and extra environment variables for the binary;
/// returns the raw [`Run`].
pub fn run_plan_with<P: AsRef<Path>>(
    plan: &Value,
    roots: &[P],
    state: Option<&Value>,
    extra_args: &[&str],
    envs: &[(&str, &str)],
) -> Run {
    let files = tempfile::tempdir().expect("tempdir for the plan file");
    let plan_path = files.path().join("plan.json");
    write(&plan_path, serde_json::to_vec_pretty(plan).unwrap());
    let mut args: Vec<OsString> = vec!["run-plan".into(), plan_path.into()];
    for root in roots {
        args.push("--skills".into());
        args.push(root.as_ref().as_os_str().to_owned());
    }
    if let Some(state) = state {
        let state_path = files.path().join("state.json");
        write(&state_path, serde_json::to_vec(state).unwrap());
        args.push("--state".into());
        args.push(state_path.into());
    }
    args.extend(extra_args.iter().map(|a| OsString::from(*a)));
    narratoria(args, envs)
}

/// Runs a plan whose raw file content is `contents` (possibly not JSON).
pub fn run_plan_text<P: AsRef<Path>>(contents: &str, roots: &[P]) -> Run {
    let files = tempfile::tempdir().expect("tempdir for the plan file");
    let plan_path = files.path().join("plan.json");
    write(&plan_path, contents);
    let mut args: Vec<OsString> = vec!["run-plan".into(), plan_path.into()];
    for root in roots {
        args.push("--skills".into());
        args.push(root.as_ref().as_os_str().to_owned());
    }
    narratoria(args, &[])
}

// ---------------------------------------------------------------------------
// Building plans
// ---------------------------------------------------------------------------

/// A fresh random-looking version-4 UUID string (no uuid crate needed).
pub fn new_uuid() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let seed =
        nanos ^ (u64::from(std::process::id()) << 32) ^ COUNTER.fetch_add(1, Ordering::Relaxed);
    let a = splitmix64(seed);
    let b = splitmix64(a);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A plan with a fresh requestId and the given tools; all other fields take
/// their documented defaults.
pub fn plan(tools: Value) -> Value {
    json!({ "requestId": new_uuid(), "tools": tools })
}

// ---------------------------------------------------------------------------
// Building skills and scripts
// ---------------------------------------------------------------------------

/// Writes `contents` to `path`, creating parent folders.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, contents).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// Sets the permission bits of `path`.
pub fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Creates skill folder `root/name` with a minimal valid `skill.json` and
/// the given scripts under `scripts/` (file name, contents), mode 0755.
/// The tool path of script `roll.py` is `"<name>/roll"`.
pub fn skill(root: &Path, name: &str, scripts: &[(&str, &str)]) -> PathBuf {
    skill_with(root, name, json!({}), scripts)
}

/// Like [`skill`], with extra manifest fields (e.g. `timeoutSeconds`).
pub fn skill_with(
    root: &Path,
    name: &str,
    extra_manifest: Value,
    scripts: &[(&str, &str)],
) -> PathBuf {
    let dir = root.join(name);
    let mut manifest = Map::new();
    manifest.insert("name".into(), json!(name));
    manifest.insert("version".into(), json!("1.0.0"));
    manifest.insert("description".into(), json!(format!("Test skill {name}")));
    if let Value::Object(extra) = extra_manifest {
        manifest.extend(extra);
    }
    write(
        &dir.join("skill.json"),
        serde_json::to_vec_pretty(&Value::Object(manifest)).unwrap(),
    );
    for (file, body) in scripts {
        let path = dir.join("scripts").join(file);
        write(&path, body);
        chmod(&path, 0o755);
    }
    dir
}

/// A temporary folder for one story's runs, removed when dropped: `root`
/// is its skills folder, `db` its sessions file, and the folder itself
/// (`dir`) is NARRATORIA_HOME.
pub struct StoryDir {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub db: PathBuf,
}

impl StoryDir {
    /// A fresh folder whose one skill is a storyteller running `narrate` (a
    /// Python body, as [`py`] takes it) as its `narrate.py`.
    pub fn told_by(narrate: &str) -> StoryDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("skills");
        skill(&root, "storyteller", &[("narrate.py", &py(narrate))]);
        StoryDir {
            db: dir.path().join("s.db"),
            root,
            dir,
        }
    }

    /// NARRATORIA_HOME for the story's runs.
    pub fn home(&self) -> &Path {
        self.dir.path()
    }
}

/// Removes the common leading indentation of the non-empty lines, so script
/// bodies can be written indented inside Rust code.
pub fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line.get(indent..).unwrap_or("").trim_end_matches(' '));
        out.push('\n');
    }
    out.trim_start_matches('\n').to_string()
}

/// Common start of the Python scripts: imports and `emit(obj)`, which writes
/// one NDJSON event line and flushes.
pub const PY_PRELUDE: &str = "#!/usr/bin/env python3
import json, os, sys, time

def emit(obj):
    sys.stdout.write(json.dumps(obj) + \"\\n\")
    sys.stdout.flush()

";

/// A Python 3 script: the prelude plus `body` (dedented).
pub fn py(body: &str) -> String {
    format!("{PY_PRELUDE}{}", dedent(body))
}

/// A POSIX sh script with `body` (dedented).
pub fn sh(body: &str) -> String {
    format!("#!/bin/sh\n{}", dedent(body))
}

/// `path` as a quoted string literal valid in both JSON and Python.
pub fn lit(path: &Path) -> String {
    serde_json::to_string(path.to_str().expect("utf-8 temp path")).unwrap()
}

/// The general-purpose worker script used by the plan tests. It reads the
/// envelope, appends its toolId to `ran_log` (proof that it ran), sleeps
/// `input.sleep` seconds, emits the `input.patches` as state patches and
/// finishes with `done` (ok unless `input.fail`) and exit status 0, so a
/// failure is unambiguously a `script_error`; the done.output records
/// `toolId`, `deps`, and `start`/`end` wall-clock timestamps in seconds.
pub fn worker_script(ran_log: &Path) -> String {
    py(&format!(
        r#"
        RAN = {ran}
        raw = sys.stdin.read()
        env = json.loads(raw) if raw.strip() else {{}}
        inp = env.get("input") or {{}}
        tid = env.get("toolId") or os.environ.get("NARRATORIA_TOOL_ID") or "?"
        start = time.time()
        with open(RAN, "a") as f:
            f.write(tid + "\n")
        time.sleep(inp.get("sleep", 0))
        for patch in inp.get("patches", []):
            emit({{"type": "state_patch", "patch": patch}})
        end = time.time()
        ok = not inp.get("fail", False)
        emit({{"type": "done", "ok": ok,
              "output": {{"toolId": tid, "deps": env.get("deps"), "start": start, "end": end}}}})
        "#,
        ran = lit(ran_log)
    ))
}

/// Creates skill `name` whose script `work.py` is [`worker_script`]; its tool
/// path is `"<name>/work"`.
pub fn worker_skill(root: &Path, name: &str, ran_log: &Path) -> PathBuf {
    skill(root, name, &[("work.py", &worker_script(ran_log))])
}

/// The toolIds recorded in `ran_log`, in the order the tools started.
pub fn ran(ran_log: &Path) -> Vec<String> {
    fs::read_to_string(ran_log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Number of lines in a file (0 if it does not exist).
pub fn line_count(path: &Path) -> usize {
    fs::read_to_string(path)
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------
// Reading results
// ---------------------------------------------------------------------------

/// Pretty JSON for failure messages.
pub fn pretty(v: &Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap();
    tail(&text, 12_000).to_string()
}

/// The ToolResult of `tool_id` in the execution trace.
pub fn trace<'a>(result: &'a Value, tool_id: &str) -> &'a Value {
    result["executionTrace"]
        .as_array()
        .unwrap_or_else(|| panic!("executionTrace is not an array:\n{}", pretty(result)))
        .iter()
        .find(|t| t["toolId"] == tool_id)
        .unwrap_or_else(|| panic!("no ToolResult for {tool_id:?} in:\n{}", pretty(result)))
}

/// `error.type` of a ToolResult (empty string when there is no error).
pub fn error_type(tool: &Value) -> &str {
    tool["error"]["type"].as_str().unwrap_or("")
}

/// The `failedTools` list as strings.
pub fn failed_tools(result: &Value) -> Vec<String> {
    result["failedTools"]
        .as_array()
        .unwrap_or_else(|| panic!("failedTools is not an array:\n{}", pretty(result)))
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

/// The (start, end) timestamps a worker recorded in its done.output.
pub fn interval(tool: &Value) -> (f64, f64) {
    let start = tool["output"]["start"].as_f64();
    let end = tool["output"]["end"].as_f64();
    match (start, end) {
        (Some(s), Some(e)) => (s, e),
        _ => panic!(
            "tool has no start/end timestamps in its output:\n{}",
            pretty(tool)
        ),
    }
}

/// Whether two time intervals overlap.
pub fn overlaps(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Whether two paths name the same existing file or folder.
pub fn same_path(reported: &str, expected: &Path) -> bool {
    match (fs::canonicalize(reported), fs::canonicalize(expected)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `reported` is `folder` or lies inside it (both canonicalised).
pub fn within(reported: &str, folder: &Path) -> bool {
    match (fs::canonicalize(reported), fs::canonicalize(folder)) {
        (Ok(a), Ok(b)) => a.starts_with(b),
        _ => false,
    }
}

/// Parses `env` output (`KEY=VALUE` lines).
pub fn parse_env(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

/// True if no live process has this pid (absent, or a zombie).
pub fn process_gone(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state is the first field after the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
    }
}

/// Polls until the process is gone or `limit` passes.
pub fn wait_gone(pid: u32, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    loop {
        if process_gone(pid) {
            return true;
        }
        if Instant::now() > until {
            return false;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Reads a pid that a test script wrote to `path`.
pub fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// SIGKILLs one process that a test script started (cleanup after a failed
/// assertion, so a leaked `sleep 300` does not outlive the test).
pub fn kill_pid(pid: u32) {
    let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
}
