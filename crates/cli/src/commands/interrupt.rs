//! Ctrl-C at `narratoria play` while a turn runs: the first one stops the
//! turn (the tools already finished stay recorded, the turn is told from
//! what they decided, and the game goes back to the prompt); a second one
//! while it stops ends the game as Ctrl-C ends other commands. Ctrl-C at
//! the prompt is the line editor's (docs/stories.md).

use std::future::Future;

use narratoria_app::App;
use tokio::runtime::Runtime;

/// The exit status of a program ended by SIGINT.
const INTERRUPTED: i32 = 130;

/// How a turn run with [`stoppable`] ended.
pub struct Ran<T> {
    pub outcome: T,
    /// Whether the player pressed Ctrl-C while it ran.
    pub stopped: bool,
}

/// Makes Ctrl-C the game's from now on: it no longer ends the program by
/// itself, only [`stoppable`] listens to it.
pub fn take_interrupts(rt: &Runtime) {
    narratoria_core::process_groups::leave_interrupts_to_the_program();
    // Listening once installs the handler for the rest of the program, so a
    // Ctrl-C between turns is heard (and ignored) rather than fatal.
    #[cfg(unix)]
    rt.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        if let Err(e) = signal(SignalKind::interrupt()) {
            tracing::warn!("Ctrl-C cannot stop a turn: {e}");
        }
    });
    #[cfg(not(unix))]
    let _ = rt;
}

/// Runs `turn`, a turn of `session`; a Ctrl-C meanwhile stops it through
/// [`App::stop_turn`], and a second one ends the program (its scripts too).
pub async fn stoppable<T>(app: &App, session: &str, turn: impl Future<Output = T>) -> Ran<T> {
    let mut stopped = false;
    let listen = async {
        if tokio::signal::ctrl_c().await.is_err() {
            return std::future::pending::<T>().await;
        }
        stopped = true;
        // A turn has its stop button from its start, while it waits for the story too.
        app.stop_turn(session);
        say!("\n  … stopping the turn (Ctrl-C again to quit)");
        if tokio::signal::ctrl_c().await.is_ok() {
            narratoria_core::process_groups::kill_all();
            std::process::exit(INTERRUPTED);
        }
        std::future::pending::<T>().await
    };
    let outcome = tokio::select! {
        outcome = turn => outcome,
        never = listen => never,
    };
    Ran { outcome, stopped }
}
