//! A remote OpenAI-compatible server and the model asked of it: where it
//! is, which kind of server it is, what models it lists, and whether it
//! answers at all.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::RemoteError;
use crate::http::{self, MAX_LIST_BYTES};
use crate::secret::{self, ApiKey};

/// How long listing the models (and so a check) may take.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(10);

/// Which program serves the OpenAI-compatible API: it decides how the
/// plan's JSON schema is sent and how the server is named to people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerKind {
    /// llama.cpp's `llama-server` (usually port 8080).
    LlamaServer,
    /// Ollama (port 11434).
    Ollama,
    /// LM Studio (port 1234).
    LmStudio,
    /// KoboldCpp (port 5001).
    KoboldCpp,
    /// Any other OpenAI-compatible server.
    Other,
}

impl ServerKind {
    /// The server's name for people: "llama-server", "Ollama", "LM Studio",
    /// "KoboldCpp", or "the server".
    pub fn name(self) -> &'static str {
        match self {
            ServerKind::LlamaServer => "llama-server",
            ServerKind::Ollama => "Ollama",
            ServerKind::LmStudio => "LM Studio",
            ServerKind::KoboldCpp => "KoboldCpp",
            ServerKind::Other => "the server",
        }
    }

    /// The kind an endpoint's port suggests (each program's default port);
    /// [`ServerKind::Other`] for any other port.
    pub fn from_endpoint(endpoint: &str) -> ServerKind {
        let host = host_of(endpoint);
        let port = host
            .rsplit_once(':')
            .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
            .map(|(_, p)| p);
        match port {
            Some("11434") => ServerKind::Ollama,
            Some("1234") => ServerKind::LmStudio,
            Some("5001") => ServerKind::KoboldCpp,
            Some("8080") => ServerKind::LlamaServer,
            _ => ServerKind::Other,
        }
    }

    /// The kind a model list (`GET /models`) and the answer's `Server`
    /// header show, when they show one: llama-server lists its models as
    /// `owned_by: "llamacpp"` and says `Server: llama.cpp`, KoboldCpp
    /// `owned_by: "koboldcpp"`, Ollama `owned_by: "library"` or `"ollama"`,
    /// LM Studio `owned_by: "organization_owner"`.
    pub fn from_models(answer: &Value, server_header: Option<&str>) -> Option<ServerKind> {
        let header = server_header.unwrap_or_default().to_ascii_lowercase();
        if header.contains("llama.cpp") || header.contains("llama-server") {
            return Some(ServerKind::LlamaServer);
        }
        if header.contains("koboldcpp") {
            return Some(ServerKind::KoboldCpp);
        }
        let owners: Vec<String> = answer
            .get("data")
            .and_then(Value::as_array)
            .map(|d| {
                d.iter()
                    .filter_map(|m| m.get("owned_by").and_then(Value::as_str))
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        owners.iter().find_map(|o| match o.as_str() {
            "llamacpp" | "llama.cpp" => Some(ServerKind::LlamaServer),
            "koboldcpp" => Some(ServerKind::KoboldCpp),
            "library" | "ollama" => Some(ServerKind::Ollama),
            "organization_owner" | "lmstudio" | "lm-studio" => Some(ServerKind::LmStudio),
            _ => None,
        })
    }

    /// Whether the server runs one model whatever a request names (so any
    /// listed model is the one asked for).
    fn serves_one_model(self) -> bool {
        matches!(self, ServerKind::LlamaServer | ServerKind::KoboldCpp)
    }
}

/// A remote server and the model to ask of it.
#[derive(Clone, PartialEq, Eq)]
pub struct Server {
    /// The API's base, e.g. `http://127.0.0.1:11434/v1`.
    pub endpoint: String,
    /// The model to ask for, as the server lists it.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>`; never shown.
    pub api_key: Option<String>,
    pub kind: ServerKind,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("endpoint", &self.host())
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| secret::MASK))
            .field("kind", &self.kind)
            .finish()
    }
}

/// What a check of the server found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The kind the answer shows, when it shows one.
    pub kind: Option<ServerKind>,
    /// The models the server lists.
    pub models: Vec<String>,
    /// Whether the model asked for is among them (a server that runs one
    /// model whatever is asked counts its only model).
    pub model_listed: bool,
    /// The time the model list took, there and back.
    pub round_trip_ms: u64,
}

impl Check {
    /// `Ok` when the model is listed, else [`RemoteError::ModelMissing`]
    /// naming what the server does list.
    pub fn require_model(&self, server: &Server) -> Result<(), RemoteError> {
        if self.model_listed {
            Ok(())
        } else {
            Err(RemoteError::ModelMissing {
                server: server.label(),
                model: server.model.clone(),
                available: self.models.clone(),
            })
        }
    }
}

impl Server {
    /// A server without a key, its kind guessed from the endpoint's port
    /// ([`ServerKind::from_endpoint`]).
    pub fn new(endpoint: impl Into<String>, model: impl Into<String>) -> Server {
        let endpoint = endpoint.into().trim().to_string();
        Server {
            kind: ServerKind::from_endpoint(&endpoint),
            endpoint,
            model: model.into().trim().to_string(),
            api_key: None,
        }
    }

    /// The same server with `key` (a blank key is none).
    pub fn with_api_key(mut self, key: Option<String>) -> Server {
        self.api_key = key.filter(|k| !k.trim().is_empty());
        self
    }

    /// The same server, known to be of `kind`.
    pub fn with_kind(mut self, kind: ServerKind) -> Server {
        self.kind = kind;
        self
    }

    /// The endpoint's host and port, without scheme, path or credentials:
    /// `127.0.0.1:11434`.
    pub fn host(&self) -> String {
        host_of(&self.endpoint).to_string()
    }

    /// The server as messages name it: `Ollama at 127.0.0.1:11434`.
    pub fn label(&self) -> String {
        match self.kind {
            ServerKind::Other => format!("the server at {}", self.host()),
            kind => format!("{} at {}", kind.name(), self.host()),
        }
    }

    /// `{endpoint}/{path}` with one slash between.
    pub fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.endpoint.trim().trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }

    pub(crate) fn key(&self) -> Option<ApiKey> {
        self.api_key.as_deref().and_then(ApiKey::new)
    }

    /// `text` with the key (and the credentials of the endpoint's URL, or of
    /// any URL in it) masked.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let text = secret::scrub(self.key().as_ref(), text);
        let text = match secret::url_secret(&self.endpoint).and_then(ApiKey::new) {
            Some(p) => p.scrub(&text),
            None => text,
        };
        secret::mask_url_credentials(&text)
    }

    /// The endpoint as people are shown it: its credentials masked
    /// ([`secret::mask_url_credentials`]).
    pub fn shown_endpoint(&self) -> String {
        secret::mask_url_credentials(&self.endpoint)
    }

    /// The ids of the models the server lists (`GET {endpoint}/models`,
    /// OpenAI's `{"data":[{"id":…}]}`, or Ollama's `{"models":[{"name":…}]}`),
    /// within [`LIST_TIMEOUT`] and [`MAX_LIST_BYTES`].
    pub fn list_models(&self) -> Result<Vec<String>, RemoteError> {
        self.models_answer().map(|(models, _)| models)
    }

    /// Whether the server answers, lists the model, and how long the list
    /// took. A server that cannot be reached, or that answers with something
    /// other than a model list, is an error.
    pub fn check(&self) -> Result<Check, RemoteError> {
        let started = Instant::now();
        let (models, kind) = self.models_answer()?;
        let round_trip_ms = started.elapsed().as_millis() as u64;
        let model_listed = models.iter().any(|m| same_model(m, &self.model))
            || (kind.unwrap_or(self.kind).serves_one_model() && models.len() == 1);
        Ok(Check {
            kind,
            models,
            model_listed,
            round_trip_ms,
        })
    }

    fn models_answer(&self) -> Result<(Vec<String>, Option<ServerKind>), RemoteError> {
        let started = Instant::now();
        let resp = http::get(self, "models", LIST_TIMEOUT)?;
        let header = resp.header("server").map(str::to_string);
        let bytes = http::read_bounded(
            self,
            resp.into_reader(),
            MAX_LIST_BYTES,
            "a model list",
            started,
        )?;
        let answer = http::parse_json(self, &bytes)?;
        let models = model_ids(&answer).ok_or_else(|| RemoteError::BadAnswer {
            server: self.label(),
            reason: "the model list has no \"data\" (or \"models\") array".into(),
        })?;
        Ok((models, ServerKind::from_models(&answer, header.as_deref())))
    }
}

/// The ids in a model list; `None` when it is not one.
fn model_ids(answer: &Value) -> Option<Vec<String>> {
    let (list, keys): (&Vec<Value>, &[&str]) =
        if let Some(d) = answer.get("data").and_then(Value::as_array) {
            (d, &["id"])
        } else {
            (
                answer.get("models").and_then(Value::as_array)?,
                &["id", "name", "model"],
            )
        };
    Some(
        list.iter()
            .filter_map(|m| keys.iter().find_map(|k| m.get(*k).and_then(Value::as_str)))
            .map(|id| narratoria_lexicon::clip_to(id, 200))
            .collect(),
    )
}

/// Whether a listed model id names `wanted`: the same ignoring ASCII case,
/// or with Ollama's `:latest` tag on either side.
fn same_model(listed: &str, wanted: &str) -> bool {
    let bare = |s: &str| {
        let s = s.trim();
        s.strip_suffix(":latest").unwrap_or(s).to_ascii_lowercase()
    };
    !wanted.trim().is_empty() && bare(listed) == bare(wanted)
}

/// The host and port of `url`: no scheme, credentials, path or query.
fn host_of(url: &str) -> &str {
    let rest = url.trim();
    let rest = rest.split_once("://").map_or(rest, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rsplit_once('@').map_or(authority, |(_, h)| h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_kind_is_guessed_from_the_port_and_the_answer() {
        assert_eq!(
            ServerKind::from_endpoint("http://localhost:11434/v1"),
            ServerKind::Ollama
        );
        assert_eq!(
            ServerKind::from_endpoint("http://127.0.0.1:1234/v1/"),
            ServerKind::LmStudio
        );
        assert_eq!(
            ServerKind::from_endpoint("http://u:p@h:5001/v1"),
            ServerKind::KoboldCpp
        );
        assert_eq!(
            ServerKind::from_endpoint("http://h:8080"),
            ServerKind::LlamaServer
        );
        assert_eq!(
            ServerKind::from_endpoint("https://api.example.com/v1"),
            ServerKind::Other
        );
        let list = json!({"data": [{"id": "m", "owned_by": "library"}]});
        assert_eq!(
            ServerKind::from_models(&list, None),
            Some(ServerKind::Ollama)
        );
        assert_eq!(
            ServerKind::from_models(&json!({}), Some("llama.cpp")),
            Some(ServerKind::LlamaServer)
        );
        assert_eq!(ServerKind::from_models(&json!({"data": []}), None), None);
    }

    #[test]
    fn labels_show_no_credentials() {
        let s = Server::new("http://me:hunter22@10.0.0.2:11434/v1", "llama3")
            .with_api_key(Some("sk-1234".into()));
        assert_eq!(s.label(), "Ollama at 10.0.0.2:11434");
        assert_eq!(
            s.url("/models"),
            "http://me:hunter22@10.0.0.2:11434/v1/models"
        );
        assert_eq!(s.scrub("x hunter22 sk-1234"), "x •••••••• ••••••••");
        assert_eq!(s.shown_endpoint(), "http://me:••••••••@10.0.0.2:11434/v1");
        let debug = format!("{s:?}");
        assert!(
            !debug.contains("sk-1234") && !debug.contains("hunter22"),
            "{debug}"
        );
    }

    #[test]
    fn model_names_match_leniently() {
        assert!(same_model("llama3:latest", "llama3"));
        assert!(same_model("Qwen2.5", "qwen2.5:latest"));
        assert!(!same_model("llama3:8b", "llama3"));
        assert!(!same_model("x", " "));
        assert_eq!(
            model_ids(&json!({"models": [{"name": "a"}, {"model": "b"}, 3]})),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        assert_eq!(model_ids(&json!({"data": "no"})), None);
    }
}
