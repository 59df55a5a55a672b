//! Black-box tests of the `narratoria` command-line binary.
//!
//! Every test builds its own skills folder in a temporary directory, with
//! skill scripts written in Python 3 and POSIX sh, runs the real binary and
//! checks its JSON output, its exit status and side effects of the scripts
//! (marker files, timestamps). The contracts under test are
//! skill script protocol v1 and the plan and CLI contracts (docs/protocol.md).

mod support;

mod author_note;
mod corrections;
mod crash_safety;
mod ctrl_c;
mod game;
mod models;
mod plans;
mod protocol;
mod reliability;
mod run_folder;
mod security;
mod servers;
mod settings;
mod skill_stats;
mod skills_cli;
mod stories;
mod table;
