//! How the executor runs plans.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::host::serve::HostLink;
use crate::protocol::StoryPlace;
use crate::runner::Limits;
use crate::stop::Stop;
use crate::trace::SpanParent;

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
    /// Where the plan's scripts act in a story (the envelope's `story`);
    /// `None` outside a story.
    pub story: Option<StoryPlace>,
    /// Once stopped, no tool starts and running ones are ended; what
    /// finished is kept.
    pub stop: Stop,
    /// Outputs of tools already run, by toolId: such a tool is not run
    /// again, and its dependents read this output (e.g. to tell a turn anew
    /// from the same mechanics).
    pub settled: Map<String, Value>,
    /// The trace the plan's spans join, under which span (a turn's attempt,
    /// its memory); `None`: the plan is a trace of its own.
    pub trace: Option<SpanParent>,
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
            story: None,
            stop: Stop::default(),
            settled: Map::new(),
            trace: None,
        }
    }
}
