//! Black-box tests of the `narratoria` command-line binary.
//!
//! Every test builds its own skills folder in a temporary directory, with
//! skill scripts written in Python 3 and POSIX sh, runs the real binary and
//! checks its JSON output, its exit status and side effects of the scripts
//! (marker files, timestamps). The contracts under test are
//! `shared/spec/protocol.md` and `shared/spec/contracts.md`.

mod support;

mod plans;
mod protocol;
mod skills_cli;
