//! Where the program's log goes: a daily log file in the user's log folder
//! (the last seven kept) at the chosen level, and warnings and errors on
//! stderr as one-line notes for the person at the terminal.

use std::fmt;
use std::path::{Path, PathBuf};

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
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .event_format(Note(program.to_string()))
        .with_filter(stderr_level);
    // A second start (tests that call this twice) keeps the first one.
    let _ = tracing_subscriber::registry()
        .with(file_layer)
        .with(stderr_layer)
        .try_init();
    Ok(LogGuard { _file: guard, dir })
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
/// nothing to log leaves no file behind.
fn open_file(
    dir: &Path,
    program: &str,
) -> Option<(tracing_appender::non_blocking::NonBlocking, WorkerGuard)> {
    let lazy = LazyFile {
        dir: dir.to_path_buf(),
        program: program.to_string(),
        file: None,
        failed: false,
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
}

impl std::io::Write for LazyFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.file.is_none() && !self.failed {
            let opened = std::fs::create_dir_all(&self.dir).ok().and_then(|_| {
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
        }
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Ok(buf.len()),
        }
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
}
