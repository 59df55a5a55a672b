//! The protocol's failure codes, carried by `error` events and by failed
//! generation replies. A code a peer sends that is not listed here is kept as
//! text by whoever reads it (see [`FailureCode::parse`]).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A failure code the protocol defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FailureCode {
    /// The input can never succeed as given.
    ValidationError,
    NotFound,
    Unauthorized,
    RateExceeded,
    Timeout,
    PersistenceError,
    ExternalServiceError,
    /// A bug or an impossible state.
    InternalError,
}

impl FailureCode {
    /// Every code, in the order the protocol lists them.
    pub const ALL: [FailureCode; 8] = [
        FailureCode::ValidationError,
        FailureCode::NotFound,
        FailureCode::Unauthorized,
        FailureCode::RateExceeded,
        FailureCode::Timeout,
        FailureCode::PersistenceError,
        FailureCode::ExternalServiceError,
        FailureCode::InternalError,
    ];

    /// The code as written on the wire, e.g. `VALIDATION_ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCode::ValidationError => "VALIDATION_ERROR",
            FailureCode::NotFound => "NOT_FOUND",
            FailureCode::Unauthorized => "UNAUTHORIZED",
            FailureCode::RateExceeded => "RATE_EXCEEDED",
            FailureCode::Timeout => "TIMEOUT",
            FailureCode::PersistenceError => "PERSISTENCE_ERROR",
            FailureCode::ExternalServiceError => "EXTERNAL_SERVICE_ERROR",
            FailureCode::InternalError => "INTERNAL_ERROR",
        }
    }

    /// The code spelled `text` exactly; `None` for a code the protocol does
    /// not define (which callers keep as text).
    pub fn parse(text: &str) -> Option<FailureCode> {
        FailureCode::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<FailureCode> for String {
    fn from(code: FailureCode) -> String {
        code.as_str().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_serde_and_parse_agree() {
        for code in FailureCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str());
            assert_eq!(FailureCode::parse(code.as_str()), Some(code));
            assert_eq!(code.to_string(), code.as_str());
        }
    }

    #[test]
    fn unknown_codes_are_not_parsed() {
        assert_eq!(FailureCode::parse("NOT_A_CODE"), None);
        assert_eq!(FailureCode::parse("timeout"), None);
    }
}
