//! The narrator's model files: reading a GGUF header, the built-in catalog
//! of downloadable models, resumable checked downloads, the user's models
//! folder (list, add, remove), and the user's settings that say which model
//! is in use.

#![forbid(unsafe_code)]

pub mod catalog;
pub mod context;
pub mod download;
mod error;
pub mod fit;
pub mod fixture;
pub mod gguf;
pub mod hub;
pub mod hub_files;
pub mod languages;
mod library;
pub mod machine;
pub mod settings;
pub mod speeds;
pub mod test_hub;
pub mod test_server;
mod unpack;

pub use catalog::{Entry, Kind};
pub use download::Progress;
pub use error::{GgufError, ModelsError};
pub use gguf::GgufSummary;
pub use library::{InstalledModel, Library, Listing};
pub use settings::Settings;
