//! A panic in the window's process: logged with its backtrace by
//! `narratoria_app::panic_hook`, then told to the page as an `app-panic`
//! event so the player learns that something failed and where the log is.

use std::sync::OnceLock;

use narratoria_app::panic_hook::{self, PanicNote};
use tauri::{AppHandle, Emitter};

/// The event the page listens to.
pub const EVENT: &str = "app-panic";

/// The window's handle, once it is open; before that a panic is logged only.
static WINDOW: OnceLock<AppHandle> = OnceLock::new();

/// Installs the hook; call first thing in `main`.
pub fn install() {
    panic_hook::install(|note: &PanicNote| {
        eprintln!(
            "narratoria-desktop: something failed inside; the log in {} has the details",
            note.log_dir.display()
        );
        if let Some(window) = WINDOW.get() {
            let _ = window.emit(EVENT, note);
        }
    });
}

/// Lets later panics reach the page of `handle`.
pub fn tell_window(handle: &AppHandle) {
    let _ = WINDOW.set(handle.clone());
}
