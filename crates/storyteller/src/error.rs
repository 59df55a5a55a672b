//! Why a provider gave no narrative, each with its protocol failure code.

#[cfg(feature = "own-model")]
use narratoria_narrator::NarratorError;
use narratoria_protocol::FailureCode;
use narratoria_skills_builtin::SkillError;
use serde_json::json;

/// A provider's failure. Messages never hold the API key: hosted errors are
/// built from the status, the provider's own error text (scrubbed of the key)
/// and the endpoint, and 401/403 bodies are not quoted at all.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderError {
    /// 401/403, or no key for a provider that needs one.
    #[error("{provider} refused the credentials: {reason}")]
    Unauthorized {
        provider: &'static str,
        reason: String,
    },
    /// 429.
    #[error("{provider} rate limit exceeded (HTTP 429){}", retry_hint(.retry_after))]
    RateLimited {
        provider: &'static str,
        retry_after: Option<String>,
    },
    /// 5xx, or an error the provider reported inside its stream.
    #[error("{provider} failed (HTTP {status}): {message}")]
    Service {
        provider: &'static str,
        status: u16,
        message: String,
    },
    /// The endpoint could not be reached (DNS, refused connection, TLS) or
    /// the connection broke.
    #[error("cannot reach {provider} at {endpoint}: {reason}")]
    Unreachable {
        provider: &'static str,
        endpoint: String,
        reason: String,
    },
    /// No answer within the configured time.
    #[error("{provider} did not answer within {seconds} s")]
    Timeout {
        provider: &'static str,
        seconds: u64,
    },
    /// The answer was not the provider's wire format, or held no text.
    #[error("{provider} sent an unusable answer: {reason}")]
    BadAnswer {
        provider: &'static str,
        reason: BadAnswer,
    },
    /// A 4xx other than 401/403/429: the request itself is wrong (unknown model, bad parameter).
    #[error("{provider} rejected the request (HTTP {status}): {message}")]
    Rejected {
        provider: &'static str,
        status: u16,
        message: String,
    },
    /// The endpoint answered with a redirect, which a request with a body
    /// never follows (docs/security.md, "Redirects"): the setting should
    /// name the address the provider redirects to.
    #[error("{provider} answered with a redirect that is not followed: {reason}")]
    Redirect {
        provider: &'static str,
        reason: String,
    },
    /// The settings cannot work (e.g. an endpoint that is not an http(s) URL).
    #[error("{0}")]
    Config(String),
    /// No local model file was found.
    #[error("no local model: {0}")]
    ModelMissing(String),
    /// llama.cpp could not load the model or generate.
    #[cfg(feature = "own-model")]
    #[error("the local model failed: {0}")]
    Local(#[from] NarratorError),
    /// This build of the script has no model of its own (cargo feature
    /// `own-model`) and the host lends none.
    #[error("this storyteller has no model of its own and the host lends none")]
    NoOwnModel,
    /// The host's model (protocol 1.1) gave no text.
    #[error("{message}")]
    Host { code: FailureCode, message: String },
}

/// What was wrong with an answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BadAnswer {
    #[error("{0}")]
    Malformed(String),
    #[error("the answer held no text")]
    Empty,
    #[error("the answer said nothing past its opening")]
    Bare,
    #[error(
        "the answer's first sentence brought in someone the story has not met, repeated an earlier turn or told the check the other way round"
    )]
    Refused,
}

fn retry_hint(after: &Option<String>) -> String {
    after
        .as_ref()
        .map(|s| format!("; retry after {s} s"))
        .unwrap_or_default()
}

impl ProviderError {
    /// The protocol failure code (docs/protocol.md, "Outcome and errors").
    pub fn code(&self) -> FailureCode {
        match self {
            ProviderError::Unauthorized { .. } => FailureCode::Unauthorized,
            ProviderError::RateLimited { .. } => FailureCode::RateExceeded,
            ProviderError::Service { .. }
            | ProviderError::Unreachable { .. }
            | ProviderError::Timeout { .. }
            | ProviderError::BadAnswer { .. } => FailureCode::ExternalServiceError,
            ProviderError::Rejected { status: 404, .. } => FailureCode::NotFound,
            ProviderError::Rejected { .. }
            | ProviderError::Config(_)
            | ProviderError::Redirect { .. } => FailureCode::ValidationError,
            ProviderError::ModelMissing(_) | ProviderError::NoOwnModel => FailureCode::NotFound,
            #[cfg(feature = "own-model")]
            ProviderError::Local(e) => match e {
                NarratorError::ModelMissing(_) => FailureCode::NotFound,
                NarratorError::Deadline => FailureCode::Timeout,
                NarratorError::PromptTooLong { .. } => FailureCode::ValidationError,
                _ => FailureCode::InternalError,
            },
            ProviderError::Host { code, .. } => *code,
        }
    }

    /// Whether the same request could succeed later (docs/protocol.md, "Outcome and errors").
    pub fn recoverable(&self) -> bool {
        !matches!(
            self.code(),
            FailureCode::Unauthorized
                | FailureCode::ValidationError
                | FailureCode::NotFound
                | FailureCode::InternalError
        )
    }

    /// The failure as a protocol error, its message scrubbed of `secret`.
    pub fn to_skill_error(&self, provider: &str, scrub: &dyn Fn(&str) -> String) -> SkillError {
        SkillError {
            code: self.code(),
            message: scrub(&self.to_string()),
            recoverable: self.recoverable(),
            details: Some(json!({"provider": provider})),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_http_mapping() {
        let p = "openai";
        let unauthorized = ProviderError::Unauthorized {
            provider: p,
            reason: "HTTP 401".into(),
        };
        assert_eq!(unauthorized.code(), FailureCode::Unauthorized);
        assert!(!unauthorized.recoverable());
        let limited = ProviderError::RateLimited {
            provider: p,
            retry_after: Some("7".into()),
        };
        assert_eq!(limited.code(), FailureCode::RateExceeded);
        assert!(limited.recoverable());
        assert!(limited.to_string().contains("retry after 7 s"));
        for e in [
            ProviderError::Service {
                provider: p,
                status: 503,
                message: "busy".into(),
            },
            ProviderError::Unreachable {
                provider: p,
                endpoint: "http://127.0.0.1:9".into(),
                reason: "refused".into(),
            },
            ProviderError::Timeout {
                provider: p,
                seconds: 3,
            },
        ] {
            assert_eq!(e.code(), FailureCode::ExternalServiceError, "{e}");
            assert!(e.recoverable());
        }
        #[cfg(feature = "own-model")]
        assert_eq!(
            ProviderError::Local(NarratorError::ModelMissing(std::path::PathBuf::from("/m")))
                .code(),
            FailureCode::NotFound
        );
        assert_eq!(ProviderError::NoOwnModel.code(), FailureCode::NotFound);
        assert!(!ProviderError::NoOwnModel.recoverable());
    }

    #[test]
    fn skill_errors_are_scrubbed() {
        let e = ProviderError::Rejected {
            provider: "openai",
            status: 400,
            message: "key sk-abc is odd".into(),
        };
        let s = e.to_skill_error("openai", &|t: &str| t.replace("sk-abc", "•"));
        assert!(!s.message.contains("sk-abc"), "{}", s.message);
        assert_eq!(s.code, FailureCode::ValidationError);
    }
}
