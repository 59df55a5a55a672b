//! The skill script protocol, `narratoria/1` and `narratoria/1.1`: the stdin
//! envelope, the stdout events, host generation and the failure codes, with
//! the engine's line parser and stream caps. Pure data and parsing — no I/O —
//! so the engine and any script written in Rust share one definition of every
//! field name.
//!
//! Versions: a minor version only adds, so the host serves a skill that asks
//! for an older or equal minor version of the same major; see
//! [`ProtocolVersion::is_compatible_with`] and `docs/protocol.md`.

#![forbid(unsafe_code)]

pub mod choices;
pub mod depth;
pub mod envelope;
pub mod event;
pub mod failure;
pub mod generate;
pub mod parse;
pub mod schema;
pub mod story;
pub mod stream;
pub mod table;
pub mod version;
pub mod violation;
pub mod writer;

pub use choices::{choices_at, named_choices_at, NamedChoice, CHOICES_KEYWORD};
pub use depth::{nesting_depth, MAX_NESTING_DEPTH};
pub use envelope::{Envelope, EnvelopeError};
pub use event::{Asset, AssetKind, Event, LogLevel, ScriptError};
pub use failure::FailureCode;
pub use generate::{
    Completion, FinishReason, GenerateRequest, Generated, GenerationError, HostCapabilities,
    HostMessage, HostMessageError, HostModel, Message, Reply, Role, Usage,
};
pub use parse::{parse_event, parse_line, Line, RawEvent};
pub use story::StoryPlace;
pub use stream::{StreamChecker, DEFAULT_MAX_EVENTS, DEFAULT_MAX_STDOUT_BYTES, MAX_LINE_BYTES};
pub use version::{ProtocolVersion, VersionError, PROTOCOL, PROTOCOL_VERSION};
pub use violation::Violation;
pub use writer::{AnswerLength, Guarding, WriterClass, WriterProfile};
