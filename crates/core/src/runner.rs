//! Runs one attempt of one skill script as its own process group: writes the
//! envelope to stdin, parses stdout events and drains stderr concurrently,
//! enforces the protocol's caps and the time limit, and leaves no process of
//! the group behind.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::time::Instant;

use crate::host::serve::{HostLink, Serving, REPLY_BUFFER};
use crate::output_budget::OutputBudget;
use crate::process_groups;
use crate::protocol::{Event, StreamChecker, Violation, MAX_LINE_BYTES};

/// Caps and grace periods for one attempt.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_events: usize,
    pub max_stdout_bytes: usize,
    /// How much of stderr's end is kept.
    pub stderr_tail_bytes: usize,
    /// Between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    /// How long stdout may stay open after the script exited (a grandchild
    /// holding it) before the group is killed; and, after that, before the
    /// host stops reading (a grandchild that left the group holding it).
    pub linger: Duration,
    /// Events all the tools of a plan may send together.
    pub max_plan_events: usize,
    /// Stdout bytes all the tools of a plan may send together.
    pub max_plan_stdout_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_events: crate::protocol::DEFAULT_MAX_EVENTS,
            max_stdout_bytes: crate::protocol::DEFAULT_MAX_STDOUT_BYTES,
            stderr_tail_bytes: 16 * 1024,
            kill_grace: Duration::from_millis(500),
            linger: Duration::from_millis(200),
            max_plan_events: 4 * crate::protocol::DEFAULT_MAX_EVENTS,
            max_plan_stdout_bytes: 4 * crate::protocol::DEFAULT_MAX_STDOUT_BYTES,
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Attempt<'a> {
    pub program: &'a Path,
    /// Working directory: the skill folder.
    pub skill_dir: &'a Path,
    /// The skill's writable data folder (assets may live there too).
    pub data_dir: &'a Path,
    /// Extra environment on top of the minimal one.
    pub env: Vec<(String, String)>,
    /// The envelope line, newline included.
    pub stdin: Vec<u8>,
    /// When the attempt is killed as timed out.
    pub deadline: Instant,
    pub limits: &'a Limits,
    /// Set when the skill declared the `generate` capability: stdin then stays
    /// open for the host's replies (protocol `narratoria/1.1`).
    pub host: Option<HostLink>,
    /// What the tool's attempts and the plan's tools may still send.
    pub budget: &'a OutputBudget,
    /// Secret values scrubbed from the stderr tail before it is cut, so that
    /// the cut never leaves part of a secret behind.
    pub secrets: &'a [String],
}

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    Unknown,
}

/// Everything observed of one attempt.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Accepted events, each with the JSON object it came from.
    pub events: Vec<(Event, Map<String, Value>)>,
    pub exit: Option<Exit>,
    pub violation: Option<Violation>,
    pub timed_out: bool,
    /// Set when the process could not be started.
    pub spawn_error: Option<String>,
    pub stderr_tail: String,
    /// One transcript per `generate` request the host served.
    pub generations: Vec<Map<String, Value>>,
}

impl Outcome {
    /// The `done` event, if one arrived.
    pub fn done(&self) -> Option<(bool, Option<&Value>)> {
        self.events.iter().find_map(|(e, _)| match e {
            Event::Done { ok, output, .. } => Some((*ok, output.as_ref())),
            _ => None,
        })
    }

    /// Nothing observed yet.
    fn empty() -> Outcome {
        Outcome {
            events: Vec::new(),
            exit: None,
            violation: None,
            timed_out: false,
            spawn_error: None,
            stderr_tail: String::new(),
            generations: Vec::new(),
        }
    }

    /// Records how the process ended (`status`); a script that exited 0
    /// without its `done` (`saw_done`) broke the protocol.
    fn ended(&mut self, status: Option<std::io::Result<std::process::ExitStatus>>, saw_done: bool) {
        self.exit = status.map(|s| match s {
            Ok(st) => exit_of(st),
            Err(_) => Exit::Unknown,
        });
        if self.violation.is_none()
            && !self.timed_out
            && self.exit == Some(Exit::Code(0))
            && !saw_done
        {
            self.violation = Some(Violation::MissingDone);
        }
    }

    /// Success: exit 0, a `done` with `ok:true`, no violation, no timeout.
    pub fn succeeded(&self) -> bool {
        self.spawn_error.is_none()
            && self.violation.is_none()
            && !self.timed_out
            && self.exit == Some(Exit::Code(0))
            && matches!(self.done(), Some((true, _)))
    }
}

/// How long stderr is still read once the script's group is dead: only a
/// process outside the group can hold it open longer.
const STDERR_AFTER_EXIT: Duration = Duration::from_millis(500);

/// The host variables a script may see.
const KEPT_ENV: [&str; 4] = ["PATH", "HOME", "LANG", "TMPDIR"];

/// Runs one attempt to its end. Never panics on the script's behaviour and
/// never waits past the deadline plus the kill grace.
pub async fn run(
    mut attempt: Attempt<'_>,
    on_event: &(dyn Fn(&Map<String, Value>) + Send + Sync),
) -> Outcome {
    let mut out = Outcome::empty();
    let child = match command(&attempt).spawn() {
        Ok(c) => c,
        Err(e) => {
            out.spawn_error = Some(spawn_reason(&e, attempt.program));
            return out;
        }
    };
    let pgid = child.id().map(|p| p as i32);
    let group = Group {
        child,
        pgid,
        // Listed until the group is killed at the end, so that a host told
        // to stop can kill it.
        listed: pgid.map(process_groups::list),
    };
    let (reply_tx, reply_rx) = tokio::sync::mpsc::channel::<Vec<u8>>(REPLY_BUFFER);
    let serving = attempt
        .host
        .clone()
        .map(|link| Serving::new(link, reply_tx, attempt.deadline.into_std()));
    let host = Host {
        serving: serving.as_ref(),
        replies: reply_rx,
    };
    supervise(group, &mut attempt, host, on_event, &mut out).await;
    out
}

/// The script's process and its group.
struct Group {
    child: Child,
    pgid: Option<i32>,
    listed: Option<process_groups::Listed>,
}

/// The host's side of a script that may ask it to write.
struct Host<'a> {
    serving: Option<&'a Serving>,
    /// The host's replies, written to the script's stdin.
    replies: tokio::sync::mpsc::Receiver<Vec<u8>>,
}

/// Works the script's streams to the attempt's end and records it in
/// `out`; nothing of the script's group is left when it returns.
async fn supervise(
    mut group: Group,
    attempt: &mut Attempt<'_>,
    host: Host<'_>,
    on_event: &(dyn Fn(&Map<String, Value>) + Send + Sync),
    out: &mut Outcome,
) {
    let stdin = group.child.stdin.take().expect("stdin piped");
    let input = std::mem::take(&mut attempt.stdin);
    let writer = write_stdin(stdin, input, host.replies, host.serving.is_some());
    tokio::pin!(writer);
    let stderr = group.child.stderr.take().expect("stderr piped");
    let stderr = drain_tail(stderr, attempt.limits.stderr_tail_bytes, attempt.secrets);
    tokio::pin!(stderr);
    let stdout = group.child.stdout.take().expect("stdout piped");
    let confine = Confinement::new(attempt.skill_dir, attempt.data_dir);
    let mut checker =
        StreamChecker::new(attempt.limits.max_events, attempt.limits.max_stdout_bytes);
    let watched = {
        let reader = read_events(
            stdout,
            &mut checker,
            &confine,
            host.serving,
            attempt.budget,
            &mut out.events,
            on_event,
        );
        tokio::pin!(reader);
        let streams = Streams {
            writer: writer.as_mut(),
            stderr: stderr.as_mut(),
            reader: reader.as_mut(),
        };
        watch(&mut group.child, group.pgid, attempt, streams).await
    };
    out.timed_out = watched.timed_out;
    out.generations = host.serving.map(Serving::finish).unwrap_or_default();
    out.violation = watched.reader.and_then(Result::err);
    let status = match watched.status {
        None if out.timed_out || out.violation.is_some() => {
            Some(terminate(&mut group.child, group.pgid, attempt.limits.kill_grace).await)
        }
        status => status,
    };
    // Nothing of the tool's process group outlives the tool.
    signal_group(group.pgid, Signal::Kill);
    drop(group.listed);
    out.ended(status, checker.saw_done());
    out.stderr_tail = match watched.stderr_tail {
        Some(t) => t,
        // The group is dead now, so stderr ends at once unless something
        // outside the group holds it.
        None => tokio::time::timeout(STDERR_AFTER_EXIT, stderr)
            .await
            .unwrap_or_default(),
    };
}

/// The script's command: in its skill folder, with the minimal environment
/// and the attempt's own variables, in a process group of its own that
/// dies with the host.
fn command(attempt: &Attempt<'_>) -> Command {
    let mut cmd = Command::new(attempt.program);
    cmd.current_dir(attempt.skill_dir)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for key in KEPT_ENV {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    if std::env::var_os("PATH").is_none() {
        cmd.env("PATH", "/usr/local/bin:/usr/bin:/bin");
    }
    cmd.envs(attempt.env.iter().map(|(k, v)| (k, v)));
    #[cfg(unix)]
    cmd.process_group(0);
    process_groups::die_with_host(&mut cmd);
    cmd
}

/// Writes the envelope to the script's stdin, then — for a script that may
/// ask the host to write (`keep_open`) — the host's replies. A script may
/// ignore its input or exit early: a broken pipe is fine.
async fn write_stdin(
    mut stdin: ChildStdin,
    input: Vec<u8>,
    mut replies: tokio::sync::mpsc::Receiver<Vec<u8>>,
    keep_open: bool,
) {
    if stdin.write_all(&input).await.is_ok() && keep_open {
        while let Some(line) = replies.recv().await {
            if stdin.write_all(&line).await.is_err() {
                break;
            }
        }
    }
    let _ = stdin.shutdown().await;
}

/// The script's streams as the host works them.
struct Streams<'s, W, E, R> {
    writer: Pin<&'s mut W>,
    stderr: Pin<&'s mut E>,
    reader: Pin<&'s mut R>,
}

/// What watching a running script saw.
struct Watched {
    /// How reading its events ended (a violation, or its end).
    reader: Option<Result<(), Violation>>,
    status: Option<std::io::Result<std::process::ExitStatus>>,
    timed_out: bool,
    /// Stderr's tail, when it ended while watched.
    stderr_tail: Option<String>,
}

/// Works the script's streams until its events end and it exited, a
/// violation, the deadline — or, after it exited, until what still holds
/// its stdout is killed or given up on (a process outside its group).
async fn watch<W, E, R>(
    child: &mut Child,
    pgid: Option<i32>,
    attempt: &Attempt<'_>,
    mut streams: Streams<'_, W, E, R>,
) -> Watched
where
    W: Future<Output = ()>,
    E: Future<Output = String>,
    R: Future<Output = Result<(), Violation>>,
{
    let mut seen = Watched {
        reader: None,
        status: None,
        timed_out: false,
        stderr_tail: None,
    };
    let mut writer_done = false;
    let far = attempt.deadline + Duration::from_secs(3600 * 24 * 365);
    let mut linger_until = far;
    let mut abandon_until = far;
    loop {
        tokio::select! {
            _ = streams.writer.as_mut(), if !writer_done => writer_done = true,
            t = streams.stderr.as_mut(), if seen.stderr_tail.is_none() => seen.stderr_tail = Some(t),
            r = streams.reader.as_mut(), if seen.reader.is_none() => {
                let failed = r.is_err();
                seen.reader = Some(r);
                if failed || seen.status.is_some() { break; }
            }
            s = child.wait(), if seen.status.is_none() => {
                seen.status = Some(s);
                if seen.reader.is_some() { break; }
                linger_until = Instant::now() + attempt.limits.linger;
            }
            _ = tokio::time::sleep_until(linger_until), if seen.status.is_some() && seen.reader.is_none() => {
                // The script exited but something of its group still holds stdout.
                signal_group(pgid, Signal::Kill);
                linger_until = far;
                abandon_until = Instant::now() + attempt.limits.linger;
            }
            _ = tokio::time::sleep_until(abandon_until), if seen.status.is_some() && seen.reader.is_none() => {
                // Still open: a process that left the group (setsid) holds
                // it. Stop reading; dropping our end makes its writes fail.
                seen.reader = Some(Ok(()));
                break;
            }
            _ = tokio::time::sleep_until(attempt.deadline) => {
                seen.timed_out = true;
                break;
            }
        }
    }
    seen
}

/// Ends the script's group: SIGTERM, then SIGKILL after `grace`; returns
/// how the script ended.
async fn terminate(
    child: &mut Child,
    pgid: Option<i32>,
    grace: Duration,
) -> std::io::Result<std::process::ExitStatus> {
    signal_group(pgid, Signal::Term);
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(s) => s,
        Err(_) => {
            signal_group(pgid, Signal::Kill);
            child.wait().await
        }
    }
}

async fn read_events(
    stdout: tokio::process::ChildStdout,
    checker: &mut StreamChecker,
    confine: &Confinement<'_>,
    serving: Option<&Serving>,
    budget: &OutputBudget,
    events: &mut Vec<(Event, Map<String, Value>)>,
    on_event: &(dyn Fn(&Map<String, Value>) + Send + Sync),
) -> Result<(), Violation> {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok(c) => c,
            Err(_) => &[][..],
        };
        if chunk.is_empty() {
            // EOF; a final line without '\n' is accepted.
            if !line.is_empty() {
                accept(checker, confine, serving, budget, &line, events, on_event)?;
            }
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(pos) => {
                if line.len() + pos > MAX_LINE_BYTES {
                    return Err(Violation::LineTooLong);
                }
                line.extend_from_slice(&chunk[..pos]);
                reader.consume(pos + 1);
                accept(checker, confine, serving, budget, &line, events, on_event)?;
                line.clear();
            }
            None => {
                let n = chunk.len();
                if line.len() + n > MAX_LINE_BYTES {
                    return Err(Violation::LineTooLong);
                }
                line.extend_from_slice(chunk);
                reader.consume(n);
            }
        }
    }
}

fn accept(
    checker: &mut StreamChecker,
    confine: &Confinement<'_>,
    serving: Option<&Serving>,
    budget: &OutputBudget,
    line: &[u8],
    events: &mut Vec<(Event, Map<String, Value>)>,
    on_event: &(dyn Fn(&Map<String, Value>) + Send + Sync),
) -> Result<(), Violation> {
    budget.spend_bytes(line.len() + 1)?;
    if let Some((event, raw)) = checker.accept(line)? {
        budget.spend_event()?;
        if let Event::Asset(a) = &event {
            if let Some(p) = &a.path {
                if !confine.allows(p) {
                    return Err(Violation::AssetOutsideFolders(p.clone()));
                }
            }
        }
        let only_with_generate = |event: &str| Violation::BadField {
            event: event.into(),
            field: "type".into(),
            problem: "is only allowed for skills that declare the \"generate\" capability".into(),
        };
        match (&event, serving) {
            (Event::Generate(request), Some(s)) => s.request(request.clone())?,
            (Event::Cancel { id }, Some(s)) => s.cancel(id),
            (Event::Generate(_), None) => return Err(only_with_generate("generate")),
            (Event::Cancel { .. }, None) => return Err(only_with_generate("cancel")),
            _ => {}
        }
        on_event(&raw);
        events.push((event, raw));
    }
    Ok(())
}

/// Keeps the last `cap` bytes of a stream, reading it to its end, with every
/// occurrence of `secrets` replaced before anything is cut away.
async fn drain_tail(
    mut stream: tokio::process::ChildStderr,
    cap: usize,
    secrets: &[String],
) -> String {
    let mut tail = crate::skills::config::ScrubbedTail::new(cap, secrets);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => tail.push(&buf[..n]),
        }
    }
    tail.finish()
}

/// Where an asset's `path` may point: inside the skill or its data folder.
/// The folders are resolved on the first asset, not per attempt.
struct Confinement<'a> {
    dirs: [&'a Path; 2],
    roots: std::sync::OnceLock<Vec<PathBuf>>,
}

impl<'a> Confinement<'a> {
    fn new(skill_dir: &'a Path, data_dir: &'a Path) -> Confinement<'a> {
        Confinement {
            dirs: [skill_dir, data_dir],
            roots: std::sync::OnceLock::new(),
        }
    }

    fn allows(&self, path: &str) -> bool {
        if path.contains('\0') {
            return false;
        }
        let roots = self.roots.get_or_init(|| {
            self.dirs
                .iter()
                .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| normalize(p)))
                .collect()
        });
        let joined = self.dirs[0].join(path);
        // An existing file is judged by where its symlinks lead.
        let resolved = std::fs::canonicalize(&joined).unwrap_or_else(|_| normalize(&joined));
        roots.iter().any(|r| resolved.starts_with(r))
    }
}

/// Removes `.` and resolves `..` lexically.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn spawn_reason(e: &std::io::Error, program: &Path) -> String {
    let what = match e.raw_os_error() {
        Some(libc::EACCES) => "not executable (permission denied)".to_string(),
        Some(libc::ENOENT) => {
            "not found, or its interpreter line names a missing program".to_string()
        }
        Some(libc::ENOEXEC) => "not a recognised executable format (missing #! line?)".to_string(),
        _ => e.to_string(),
    };
    format!("cannot start {}: {what}", program.display())
}

#[cfg(unix)]
fn exit_of(st: std::process::ExitStatus) -> Exit {
    use std::os::unix::process::ExitStatusExt;
    match (st.code(), st.signal()) {
        (Some(c), _) => Exit::Code(c),
        (None, Some(s)) => Exit::Signal(s),
        _ => Exit::Unknown,
    }
}

#[cfg(not(unix))]
fn exit_of(st: std::process::ExitStatus) -> Exit {
    st.code().map(Exit::Code).unwrap_or(Exit::Unknown)
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[allow(unsafe_code)]
fn signal_group(pgid: Option<i32>, sig: Signal) {
    #[cfg(unix)]
    if let Some(pgid) = pgid.filter(|&p| p > 1) {
        let s = match sig {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // SAFETY: killpg only sends a signal; `pgid` is the group this runner
        // created for the child (process_group(0) makes pgid == pid), and a
        // group that no longer exists yields ESRCH, which is ignored.
        unsafe {
            libc::killpg(pgid, s);
        }
    }
    #[cfg(not(unix))]
    let _ = (pgid, sig);
}
