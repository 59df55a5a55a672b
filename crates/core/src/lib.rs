//! Narratoria's engine: plan contracts, the skill script protocol, the DAG
//! executor, session state, and skill discovery. No language model and no GUI
//! live here, so everything builds and tests in seconds.

#![deny(unsafe_code)]

pub mod bindings;
pub mod contracts;
pub mod dag;
pub mod error;
pub mod executor;
pub mod file_lock;
pub mod fs;
pub mod host;
pub mod likeness;
pub mod narration;
pub mod output_budget;
pub mod paths;
pub mod plan;
pub mod planner;
pub mod process_groups;
pub use narratoria_protocol as protocol;
pub mod result;
pub mod rules;
pub mod run_folder;
pub mod runner;
pub mod scenario;
pub mod schema;
pub mod skills;
pub mod state;
pub mod stop;
pub mod store;
pub mod sync;
#[cfg(test)]
mod test_support;
pub mod time;
pub mod trace;
pub mod turn;

pub use error::{ErrorCode, FieldError};
pub use executor::{execute, ExecEvent, ExecutorOptions};
pub use plan::{Plan, PlanError, ToolInvocation};
pub use result::ExecutionResult;
