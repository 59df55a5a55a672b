//! What a panic leaves behind: its message, where it happened and a
//! backtrace, in the log file, and a note for the person, in the terminal
//! or the window, saying that something failed and where the log is
//! (docs/observability.md, "When something breaks").

use std::backtrace::Backtrace;
use std::panic::PanicHookInfo;
use std::path::PathBuf;

use serde::Serialize;

/// The log target of a panic's backtrace: kept in the log file, left off
/// stderr (`logging::init`).
pub const BACKTRACE_TARGET: &str = "narratoria::backtrace";

/// What the window is told of a panic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PanicNote {
    /// The panic's message and where it happened, on one line.
    pub message: String,
    /// The folder that holds the log file with the backtrace.
    pub log_dir: PathBuf,
}

/// Replaces the default panic hook: every panic, on any thread, is logged
/// at error level with its place and a backtrace (captured whatever
/// `RUST_BACKTRACE` says), then `tell` is given a [`PanicNote`]. `tell` must
/// not panic itself; a panic inside it is not reported again.
pub fn install(tell: impl Fn(&PanicNote) + Send + Sync + 'static) {
    std::panic::set_hook(Box::new(move |info| {
        let note = note_of(info);
        tracing::error!("internal error: {}", note.message);
        tracing::error!(target: BACKTRACE_TARGET, "{}", Backtrace::force_capture());
        tell(&note);
    }));
}

/// The note for `info`: its message (text or "a panic without a message")
/// and its place, with the log folder.
fn note_of(info: &PanicHookInfo<'_>) -> PanicNote {
    let payload = info.payload();
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    let message = match info.location() {
        Some(at) => format!("{text} (at {}:{})", at.file(), at.line()),
        None => text,
    };
    PanicNote {
        message: message.split_whitespace().collect::<Vec<_>>().join(" "),
        log_dir: crate::locate::user_log_dir(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn a_panic_on_another_thread_is_told_with_its_place_and_the_log_folder() {
        let seen: Arc<Mutex<Vec<PanicNote>>> = Arc::default();
        let sink = Arc::clone(&seen);
        install(move |note| sink.lock().unwrap().push(note.clone()));
        let joined = std::thread::spawn(|| panic!("the model file\nvanished")).join();
        let _ = std::panic::take_hook();
        assert!(joined.is_err());
        let notes = seen.lock().unwrap();
        let note = notes
            .iter()
            .find(|n| n.message.contains("vanished"))
            .expect("the panic was told");
        assert!(
            note.message.starts_with("the model file vanished (at "),
            "{}",
            note.message
        );
        assert!(note.message.contains("panic_hook.rs:"), "{}", note.message);
        assert_eq!(note.log_dir, crate::locate::user_log_dir());
    }
}
