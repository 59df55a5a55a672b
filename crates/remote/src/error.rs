//! Why a remote server could not be used. Every message names the server
//! (its kind and host, never its key or a password in its URL) and every
//! text taken from an answer is masked of the key before it is kept here.

/// A failure talking to a remote server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// No connection: refused, no route, a name that does not resolve, an
    /// endpoint that is not an http(s) URL, or a connection that broke.
    #[error("{server} cannot be reached: {reason}")]
    Unreachable { server: String, reason: String },
    /// No (complete) answer within the time given.
    #[error("{server} did not answer within {}", seconds(*.waited_ms))]
    Timeout { server: String, waited_ms: u64 },
    /// The server refused the request with an HTTP status.
    #[error("{server} answered HTTP {status}: {message}")]
    Http {
        server: String,
        status: u16,
        message: String,
    },
    /// The answer is not what an OpenAI-compatible server sends.
    #[error("{server} sent an answer that is not understood: {reason}")]
    BadAnswer { server: String, reason: String },
    /// The server does not serve the model asked for.
    #[error("{server} does not serve the model {model:?}{}", listed(.available))]
    ModelMissing {
        server: String,
        model: String,
        /// What it does serve, when it said.
        available: Vec<String>,
    },
    /// The answer went past a size bound; no more of it was read.
    #[error("{server} sent {what} longer than {} (the limit); it was not read further", size(*.limit))]
    TooLarge {
        server: String,
        what: &'static str,
        limit: usize,
    },
    /// The server answered with a redirect the product does not follow: to
    /// another host, to an address that is not http(s), too many, or for a
    /// request with a body (docs/security.md, "Redirects").
    #[error("{server} answered with a redirect that is not followed: {reason}")]
    Redirect { server: String, reason: String },
}

impl RemoteError {
    /// A stable code for the UI and logs: `remote_unreachable`,
    /// `remote_timeout`, `remote_http`, `remote_bad_answer`,
    /// `remote_model_missing`, `remote_too_large` or `remote_redirect`.
    pub fn code(&self) -> &'static str {
        match self {
            RemoteError::Unreachable { .. } => "remote_unreachable",
            RemoteError::Timeout { .. } => "remote_timeout",
            RemoteError::Http { .. } => "remote_http",
            RemoteError::BadAnswer { .. } => "remote_bad_answer",
            RemoteError::ModelMissing { .. } => "remote_model_missing",
            RemoteError::TooLarge { .. } => "remote_too_large",
            RemoteError::Redirect { .. } => "remote_redirect",
        }
    }

    /// The server the error is about, as the message names it.
    pub fn server(&self) -> &str {
        match self {
            RemoteError::Unreachable { server, .. }
            | RemoteError::Timeout { server, .. }
            | RemoteError::Http { server, .. }
            | RemoteError::BadAnswer { server, .. }
            | RemoteError::ModelMissing { server, .. }
            | RemoteError::TooLarge { server, .. }
            | RemoteError::Redirect { server, .. } => server,
        }
    }
}

fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", ms / 1000)
    }
}

fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes & ((1 << 20) - 1) == 0 {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes & ((1 << 10) - 1) == 0 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

fn listed(available: &[String]) -> String {
    const SHOWN: usize = 8;
    if available.is_empty() {
        return String::new();
    }
    let mut names: Vec<&str> = available.iter().take(SHOWN).map(String::as_str).collect();
    let more = available.len().saturating_sub(SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    names.sort_unstable();
    format!(" (it serves {}{more})", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_server_and_the_limit() {
        let e = RemoteError::TooLarge {
            server: "Ollama at 127.0.0.1:11434".into(),
            what: "an answer",
            limit: 256 << 10,
        };
        assert_eq!(e.code(), "remote_too_large");
        assert!(e.to_string().contains("Ollama at 127.0.0.1:11434"), "{e}");
        assert!(e.to_string().contains("256 KiB"), "{e}");
        let e = RemoteError::ModelMissing {
            server: "s".into(),
            model: "m".into(),
            available: vec!["b".into(), "a".into()],
        };
        assert!(e.to_string().ends_with("(it serves a, b)"), "{e}");
        let e = RemoteError::Timeout {
            server: "s".into(),
            waited_ms: 1500,
        };
        assert!(e.to_string().ends_with("1.5 s"), "{e}");
    }
}
