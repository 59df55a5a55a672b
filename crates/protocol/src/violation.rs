//! Why a script's stdout broke the protocol.

use crate::depth::MAX_NESTING_DEPTH;
use crate::stream::MAX_LINE_BYTES;

/// Why a stdout line, or a stream of them, broke the protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("line is not valid JSON: {0}")]
    NotJson(String),
    #[error("line is not a JSON object")]
    NotAnObject,
    #[error("event has no \"type\" field")]
    MissingType,
    #[error("unknown event type {0:?}")]
    UnknownType(String),
    #[error("event {event:?}: field {field:?} {problem}")]
    BadField {
        event: String,
        field: String,
        problem: String,
    },
    #[error("line is longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong,
    #[error(
        "line nests arrays and objects {0} levels deep; at most {MAX_NESTING_DEPTH} are allowed"
    )]
    TooDeep(usize),
    #[error("line is not valid UTF-8")]
    NotUtf8,
    #[error("event after \"done\"")]
    EventAfterDone,
    #[error("exit status 0 without a \"done\" event")]
    MissingDone,
    #[error("more than {0} events")]
    TooManyEvents(usize),
    #[error("more than {0} bytes of stdout")]
    TooMuchOutput(usize),
    #[error("the plan's scripts sent more than {0} events together")]
    PlanTooManyEvents(usize),
    #[error("the plan's scripts sent more than {0} bytes of stdout together")]
    PlanTooMuchOutput(usize),
    #[error("asset path {0:?} is outside the skill and data folders")]
    AssetOutsideFolders(String),
}
