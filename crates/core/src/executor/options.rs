//! How the executor runs plans.

use std::path::PathBuf;
use std::time::Duration;

use crate::host::serve::HostLink;
use crate::runner::Limits;

/// How the executor runs plans.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// Most tools running at once in a `parallel` plan.
    pub max_concurrency: usize,
    /// Limit for the whole plan.
    pub plan_timeout: Duration,
    pub limits: Limits,
    /// Where skills' writable data folders live (`<root>/<skill>`); without
    /// it, `<skill folder>/data`.
    pub data_root: Option<PathBuf>,
    /// Where the player's own skill settings are (`<dir>/<skill>.json`);
    /// without it, the user's `skill-settings` folder.
    pub settings_dir: Option<PathBuf>,
    /// The host's model, lent to skills that declare the `generate`
    /// capability (docs/protocol.md, "Host generation").
    pub host: HostLink,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        ExecutorOptions {
            max_concurrency: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            plan_timeout: Duration::from_secs(60),
            limits: Limits::default(),
            data_root: None,
            settings_dir: None,
            host: HostLink::default(),
        }
    }
}
