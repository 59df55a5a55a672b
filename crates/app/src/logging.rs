//! Where the program's log goes: a daily log file in the user's log folder
//! (the last seven kept) at the chosen level, and warnings and errors on
//! stderr as one-line notes for the person at the terminal.
//!
//! The log is the player's alone: the folder is made `0700` and every log
//! file `0600` (on Unix), and the command line it records has its secrets
//! redacted ([`loggable_args`]).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use narratoria_core::skills::config::REDACTED;
use narratoria_remote::mask_url_credentials;

use tracing::{Event, Level, Subscriber};
use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// The environment variable that sets the log level when no flag does.
pub const LEVEL_VAR: &str = "NARRATORIA_LOG";
/// Log files kept: one a day, a week's worth.
pub const KEPT_FILES: usize = 7;

/// Keeps the log file's writer running; dropping it flushes the file.
pub struct LogGuard {
    _file: Option<WorkerGuard>,
    /// The log folder in use, when the file could be opened.
    pub dir: Option<PathBuf>,
}

/// Why a log level was refused.
#[derive(Debug, thiserror::Error)]
#[error("invalid log level {given:?}: {reason} (use error, warn, info, debug, trace or off, optionally per module like narratoria_app=debug)")]
pub struct LevelError {
    pub given: String,
    pub reason: String,
}

/// Starts logging for `program` (the log file's name prefix): the level is
/// `level` (a flag), else `$NARRATORIA_LOG`, else `info`; it accepts the
/// `tracing` filter syntax (`debug`, `narratoria_app=trace,info`). Events
/// at that level go to a daily file in [`crate::locate::user_log_dir`]
/// (seven files kept; the file is made on the first event, so a command
/// with nothing to log leaves none); warnings and errors also go to stderr as
/// `PROGRAM: note: …` lines (less when the level is `error` or `off`). A
/// log folder that cannot be written leaves stderr only, never an error.
pub fn init(program: &str, level: Option<&str>) -> Result<LogGuard, LevelError> {
    let spec = level
        .map(str::to_string)
        .or_else(|| {
            std::env::var(LEVEL_VAR)
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|| "info".to_string());
    let file_filter = filter(&spec)?;
    let stderr_level =
        LevelFilter::WARN.min(file_filter.max_level_hint().unwrap_or(LevelFilter::WARN));

    let dir = crate::locate::user_log_dir();
    let (file_layer, guard, dir) = match open_file(&dir, program) {
        Some((writer, guard)) => (
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(writer)
                    .with_filter(file_filter),
            ),
            Some(guard),
            Some(dir),
        ),
        None => (None, None, None),
    };
    // A panic's backtrace is for the log file; stderr gets its one-line note.
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .event_format(Note(program.to_string()))
        .with_filter(stderr_level)
        .with_filter(tracing_subscriber::filter::filter_fn(|meta| {
            meta.target() != crate::panic_hook::BACKTRACE_TARGET
        }));
    // A second start (tests that call this twice) keeps the first one.
    let _ = tracing_subscriber::registry()
        .with(file_layer)
        .with(stderr_layer)
        .try_init();
    Ok(LogGuard { _file: guard, dir })
}

/// Logs the program's start at debug level with its command line as
/// [`loggable_args`] gives it: never a secret.
pub fn log_start(args: impl IntoIterator<Item = OsString>) {
    tracing::debug!(args = ?loggable_args(args), "start");
}

/// The option whose value is a setting, `KEY=VALUE`; see [`loggable_args`].
const SETTING_FLAG: &str = "--set";
/// Words that mark an option's value as a credential (`--api-key`, `--token`, …).
const SECRET_WORDS: [&str; 6] = [
    "key",
    "token",
    "secret",
    "password",
    "passphrase",
    "credential",
];

/// The command line as the log may keep it. Promises that no setting's value
/// and no credential reaches the log:
///
/// - every `--set KEY=VALUE` (and `--set=KEY=VALUE`) is kept as
///   `KEY=••••••••`, whatever the key: which settings are secret is the
///   skill's schema's to say (`format: "password"` or `writeOnly`), and at
///   start-up the skill, its schema and even the key's spelling are not yet
///   known — a dotted key may reach a secret nested in an object, a misspelt
///   one still carries the key. The key stays, so the log says what changed.
/// - the value of any option whose name holds a credential word (`--api-key`,
///   `--token`, `--password`, …) is replaced by `••••••••`, given as the next
///   argument or after `=`.
/// - the credentials of any URL, wherever it stands (`--endpoint
///   http://user:pass@host/v1`, a positional address), are masked as an API
///   key is: `http://user:••••••••@host/v1`
///   ([`narratoria_remote::mask_url_credentials`]).
///
/// Everything else is kept as given (not valid Unicode: lossily).
pub fn loggable_args(args: impl IntoIterator<Item = OsString>) -> Vec<String> {
    let mut out = Vec::new();
    // The previous option takes this argument as its value.
    let mut hide_next: Option<Hidden> = None;
    for arg in args {
        let arg = mask_url_credentials(&arg.to_string_lossy());
        if let Some(kind) = hide_next.take() {
            out.push(kind.hide(&arg));
            continue;
        }
        if !arg.starts_with("--") {
            out.push(arg);
            continue;
        }
        match arg.split_once('=') {
            Some((flag, value)) => match Hidden::of(flag) {
                Some(kind) => out.push(format!("{flag}={}", kind.hide(value))),
                None => out.push(arg),
            },
            None => {
                hide_next = Hidden::of(&arg);
                out.push(arg);
            }
        }
    }
    out
}

/// An option whose value the log does not keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hidden {
    /// `--set KEY=VALUE`: the key is kept.
    Setting,
    /// An option named for a credential: nothing of the value is kept.
    Credential,
}

impl Hidden {
    /// How `flag`'s value is hidden; `None` when it is kept.
    fn of(flag: &str) -> Option<Hidden> {
        if flag == SETTING_FLAG {
            return Some(Hidden::Setting);
        }
        let name = flag.trim_start_matches('-').to_ascii_lowercase();
        SECRET_WORDS
            .iter()
            .any(|w| name.contains(w))
            .then_some(Hidden::Credential)
    }

    /// `value` as the log keeps it: a setting as `KEY=••••••••`, anything
    /// else as `••••••••`.
    fn hide(self, value: &str) -> String {
        match value.split_once('=').filter(|_| self == Hidden::Setting) {
            Some((key, _)) => format!("{key}={REDACTED}"),
            None => REDACTED.to_string(),
        }
    }
}

/// The filter for a level or filter spec. Every directive must name a
/// level (`info`, `narratoria_app=debug`): a bare word that is not a level
/// would silently mean "trace for a module of that name".
fn filter(spec: &str) -> Result<EnvFilter, LevelError> {
    const LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];
    let refuse = |reason: String| LevelError {
        given: spec.to_string(),
        reason,
    };
    for directive in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let level = directive.rsplit('=').next().unwrap_or(directive);
        if !LEVELS.iter().any(|l| l.eq_ignore_ascii_case(level.trim())) {
            return Err(refuse(format!("{level:?} is not a level")));
        }
    }
    EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .parse(spec.trim())
        .map_err(|e| refuse(e.to_string()))
}

/// The log file's writer: a daily file named `PROGRAM.YYYY-MM-DD.log` in
/// `dir`, created (with the folder) on the first event, so a command with
/// nothing to log leaves no file behind. The folder is `0700` and its log
/// files `0600` from then on, older ones included (see [`keep_private`]).
fn open_file(
    dir: &Path,
    program: &str,
) -> Option<(tracing_appender::non_blocking::NonBlocking, WorkerGuard)> {
    let lazy = LazyFile {
        dir: dir.to_path_buf(),
        program: program.to_string(),
        file: None,
        failed: false,
        private_day: None,
    };
    Some(tracing_appender::non_blocking(lazy))
}

/// A daily rolling file opened on the first write.
struct LazyFile {
    dir: PathBuf,
    program: String,
    file: Option<tracing_appender::rolling::RollingFileAppender>,
    /// Opening failed once: later events are dropped (stderr still has the warnings).
    failed: bool,
    /// The UTC day (days since the epoch) whose file is known private: the
    /// appender starts a new file when the UTC day changes.
    private_day: Option<u64>,
}

/// Days since the Unix epoch, UTC: the appender's daily rotation boundary.
fn utc_day() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0)
}

/// Makes the log folder `dir` (and its parents) if needed, with the folder
/// itself `0700`.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Narrows the log folder to `0700` and every `.log` file in it to `0600`
/// (on Unix; elsewhere it does nothing), so that files written before, and the
/// file the appender has just started, are the player's alone. Files it
/// cannot change are left as they are.
fn keep_private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let narrow = |path: &Path, mode: u32| {
            if let Ok(meta) = std::fs::symlink_metadata(path) {
                if meta.permissions().mode() & 0o777 != mode {
                    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
                }
            }
        };
        narrow(dir, 0o700);
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && entry.file_name().to_string_lossy().ends_with(".log") {
                narrow(&entry.path(), 0o600);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

impl std::io::Write for LazyFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.file.is_none() && !self.failed {
            let opened = make_private_dir(&self.dir).ok().and_then(|_| {
                Builder::new()
                    .rotation(Rotation::DAILY)
                    .filename_prefix(&self.program)
                    .filename_suffix("log")
                    .max_log_files(KEPT_FILES)
                    .build(&self.dir)
                    .ok()
            });
            self.failed = opened.is_none();
            self.file = opened;
            if self.file.is_some() {
                // Today's file is made, still empty: narrowed before the first line.
                keep_private(&self.dir);
                self.private_day = Some(utc_day());
            }
        }
        let Some(file) = &mut self.file else {
            return Ok(buf.len());
        };
        // A new UTC day's file is made by the write that first falls on that
        // day, inside the 0700 folder; it is narrowed at once. The appender
        // reads the clock between `before` and `after`: while they differ the
        // write's day is uncertain, and the next write looks again.
        let before = utc_day();
        let written = file.write(buf);
        let after = utc_day();
        if self.private_day != Some(before) || before != after {
            keep_private(&self.dir);
            self.private_day = (before == after).then_some(after);
        }
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// One line per event, as the program's other notes: `PROGRAM: note: …`.
struct Note(String);

impl<S, N> FormatEvent<S, N> for Note
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let label = match *event.metadata().level() {
            Level::ERROR => "error",
            Level::WARN => "note",
            Level::INFO => "info",
            _ => "debug",
        };
        write!(writer, "{}: {label}: ", self.0)?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_module_filters_are_accepted_and_nonsense_is_not() {
        for ok in ["info", "DEBUG", "off", "narratoria_app=trace,warn"] {
            assert!(filter(ok).is_ok(), "{ok}");
        }
        let err = filter("loud").unwrap_err();
        assert!(err.to_string().contains("loud"), "{err}");
    }

    #[test]
    fn the_log_file_is_daily_named_for_the_program_and_made_on_the_first_event() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let (writer, guard) = open_file(&logs, "narratoria").unwrap();
        assert!(!logs.exists(), "nothing logged, no folder");
        {
            use std::io::Write;
            let mut w = writer;
            w.write_all(b"hello\n").unwrap();
        }
        drop(guard);
        let names: Vec<String> = std::fs::read_dir(&logs)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(
            names[0].starts_with("narratoria.") && names[0].ends_with(".log"),
            "{names:?}"
        );
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// The folder is 0700 and every log file 0600, a file left readable by
    /// an earlier version included.
    #[cfg(unix)]
    #[test]
    fn log_files_and_their_folder_are_the_players_alone_older_files_too() {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        std::fs::create_dir(&logs).unwrap();
        std::fs::set_permissions(&logs, std::fs::Permissions::from_mode(0o755)).unwrap();
        let old = logs.join("narratoria.2000-01-01.log");
        std::fs::write(&old, "old\n").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();

        let (mut writer, guard) = open_file(&logs, "narratoria").unwrap();
        writer.write_all(b"hello\n").unwrap();
        drop(writer);
        drop(guard);

        assert_eq!(mode(&logs), 0o700);
        let files: Vec<PathBuf> = std::fs::read_dir(&logs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 2, "{files:?}");
        for file in files {
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_new_log_folder_is_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("state").join("logs");
        make_private_dir(&logs).unwrap();
        assert_eq!(mode(&logs), 0o700);
    }

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    /// No `--set` value is logged, secret or not (the key is), nor the
    /// value of an option named for a credential; the rest is kept.
    #[test]
    fn the_logged_command_line_holds_no_setting_value_or_credential() {
        let logged = loggable_args(args(&[
            "narratoria",
            "skills",
            "config",
            "storyteller",
            "--set",
            "apiKey=sk-test-SECRET123",
            "--set=provider.token=tok-SECRET456",
            "--set",
            "style=terse",
            "--api-key",
            "sk-flag-SECRET789",
            "--auth-token=SECRETABC",
            "--skills",
            "/some/dir",
            "--json",
        ]));
        let line = logged.join(" ");
        for secret in ["SECRET", "terse"] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
        assert_eq!(
            logged,
            [
                "narratoria",
                "skills",
                "config",
                "storyteller",
                "--set",
                &format!("apiKey={REDACTED}"),
                &format!("--set=provider.token={REDACTED}"),
                "--set",
                &format!("style={REDACTED}"),
                "--api-key",
                REDACTED,
                &format!("--auth-token={REDACTED}"),
                "--skills",
                "/some/dir",
                "--json",
            ]
        );
    }

    /// An endpoint's credentials are masked wherever the address stands: as
    /// an option's value, after `=`, or alone.
    #[test]
    fn the_logged_command_line_holds_no_endpoint_credentials() {
        let logged = loggable_args(args(&[
            "narratoria",
            "models",
            "server",
            "set",
            "--endpoint",
            "http://user:PASSWORD@127.0.0.1:11434/v1",
            "--endpoint=https://TOKEN@host/v1",
            "http://me:PASSWORD@h/v1",
            "--model",
            "llama3",
        ]));
        let line = logged.join(" ");
        for secret in ["PASSWORD", "TOKEN"] {
            assert!(!line.contains(secret), "{secret} in {line}");
        }
        assert_eq!(
            logged[5..8],
            [
                format!("http://user:{REDACTED}@127.0.0.1:11434/v1"),
                format!("--endpoint=https://{REDACTED}@host/v1"),
                format!("http://me:{REDACTED}@h/v1"),
            ]
        );
        assert_eq!(logged[9], "llama3");
    }

    /// A setting without `=` is hidden whole, and a `--set` is hidden
    /// wherever it stands (past `--` too: the log errs on the side of less).
    #[test]
    fn odd_setting_values_are_hidden_whole() {
        let logged = loggable_args(args(&["--set", "justsecret", "--", "--set", "x=1"]));
        assert_eq!(
            logged,
            ["--set", REDACTED, "--", "--set", &format!("x={REDACTED}")]
        );
        assert_eq!(loggable_args(args(&["--set"])), ["--set"]);
    }
}
