//! Which skills a turn needs. Each routable script (every one but the
//! narration the host adds itself) is known by its authors' examples and
//! counter-examples, embedded with all-MiniLM-L6-v2, and by the words of its
//! texts; an input is scored against each script and against a built-in
//! narration-only class, and the skills that clear a calibrated threshold
//! are the turn's (docs/narrator.md, "Routing").
//!
//! The scoring is pure ([`decision`], [`index`]) and runs with any
//! [`Embed`]; [`Router`] keeps the real model and the catalog's index.

#![forbid(unsafe_code)]

pub mod authoring;
pub mod cache;
pub mod candidates;
pub mod classifier;
pub mod clauses;
pub mod decision;
pub mod index;
pub mod keywords;
pub mod narration_only;
mod router;

pub use candidates::{candidates, is_host_step, is_narration, Candidate, ExampleLanguages};
pub use decision::{Calibration, Routed, ScoreParts, SkillScore};
pub use index::{Embed, ExampleIndex, ScriptSignals};
pub use narratoria_embed::{locate, EmbedderError, MODEL_FOLDER};
pub use router::{model_dir_for, model_key, multilingual_dir_for, Decision, Router};

/// Why routing could not run.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error(transparent)]
    Model(#[from] EmbedderError),
}
