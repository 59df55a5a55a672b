//! The external OpenAI-compatible servers (Ollama, LM Studio, llama-server,
//! KoboldCpp) a player gives the planner's or the writer's role
//! (docs/models.md, "External servers"): chosen in the settings
//! (`plannerServer`, `writerServer`), checked, and turned into the turn's
//! planner and writer.

use std::sync::Arc;

use narratoria_core::error::ErrorCode;
use narratoria_core::host::Generator;
use narratoria_core::planner::Planner;
use narratoria_models::ModelsError;
use narratoria_remote::{
    mask_url_credentials, Check, OnWait, RemoteError, RemotePlanner, RemoteWriter, Server,
};
use serde::{Deserialize, Serialize};

use crate::roles::{Role, RoleChoice};
use crate::{locate, AppError};

/// The settings key of the planner's server.
pub const PLANNER_SERVER_KEY: &str = "plannerServer";
/// The settings key of the writer's server.
pub const WRITER_SERVER_KEY: &str = "writerServer";

/// A server chosen for a role, as the settings keep it. The API key itself
/// is never written there: `apiKeyEnv` names the environment variable that
/// holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerChoice {
    /// The OpenAI-compatible base address, e.g. `http://127.0.0.1:11434/v1`.
    pub endpoint: String,
    /// The model to ask for, as the server lists it.
    pub model: String,
    /// The environment variable holding the API key, when the server needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
}

impl ServerChoice {
    /// The server to speak to: the key read from `apiKeyEnv` now. An
    /// endpoint that is not an http(s) address is refused.
    pub fn server(&self) -> Result<Server, AppError> {
        let endpoint = self.endpoint.trim().trim_end_matches('/');
        let shown = || mask_url_credentials(endpoint);
        if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            return Err(AppError::new(
                ErrorCode::ServerFailed,
                format!("the server address {:?} is not an http(s) address", shown()),
            ));
        }
        if self.model.trim().is_empty() {
            return Err(AppError::new(
                ErrorCode::ServerFailed,
                format!("no model is named for the server at {}", shown()),
            ));
        }
        let key = self
            .api_key_env
            .as_deref()
            .and_then(|var| std::env::var(var).ok())
            .filter(|k| !k.is_empty());
        Ok(Server::new(endpoint, self.model.trim()).with_api_key(key))
    }

    /// The choice as people are shown it (the terminal, `--json`): the
    /// endpoint's credentials masked as an API key is
    /// (`http://user:••••••••@host/v1`). Never written to the settings.
    pub fn shown(&self) -> ServerChoice {
        ServerChoice {
            endpoint: mask_url_credentials(&self.endpoint),
            ..self.clone()
        }
    }
}

/// The servers the player chose, by role (`None`: the role is played by a
/// model in the process). A setting that is not a server choice is left
/// out with a warning.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Servers {
    pub planner: Option<ServerChoice>,
    pub writer: Option<ServerChoice>,
}

impl Servers {
    /// The choices as people are shown them ([`ServerChoice::shown`]).
    pub fn shown(&self) -> Servers {
        Servers {
            planner: self.planner.as_ref().map(ServerChoice::shown),
            writer: self.writer.as_ref().map(ServerChoice::shown),
        }
    }
}

/// The servers the settings give each role.
pub fn chosen() -> Servers {
    let settings = locate::settings(None);
    let read = |key: &str| {
        let value = settings.get(key)?.clone();
        serde_json::from_value::<ServerChoice>(value)
            .inspect_err(|e| tracing::warn!("the setting {key} is not a server ({e}); left out"))
            .ok()
    };
    Servers {
        planner: read(PLANNER_SERVER_KEY),
        writer: read(WRITER_SERVER_KEY),
    }
}

/// Remembers `choice` as the server of `role` (`None`: forgets it, so a
/// model in the process plays the role again).
pub fn set(role: RoleChoice, choice: Option<&ServerChoice>) -> Result<(), AppError> {
    if let Some(c) = choice {
        c.server()?;
    }
    let mut settings = locate::settings(None);
    let value = choice.map(|c| serde_json::to_value(c).expect("a server choice serialises"));
    for (r, key) in [
        (Role::Planner, PLANNER_SERVER_KEY),
        (Role::Writer, WRITER_SERVER_KEY),
    ] {
        if role.gives(r) {
            settings
                .set(key, value.clone())
                .map_err(|e: ModelsError| AppError::from(e))?;
        }
    }
    Ok(())
}

/// Asks the server of `choice` for its models and whether it serves the
/// one chosen ("check connection").
pub fn check(choice: &ServerChoice) -> Result<Check, AppError> {
    let server = choice.server()?;
    let check = server.check().map_err(from_remote)?;
    check.require_model(&server).map_err(from_remote)?;
    Ok(check)
}

/// The models the server at `endpoint` lists (to pick one from).
pub fn list_models(endpoint: &str, api_key_env: Option<&str>) -> Result<Vec<String>, AppError> {
    let choice = ServerChoice {
        endpoint: endpoint.to_string(),
        model: "-".to_string(),
        api_key_env: api_key_env.map(str::to_string),
    };
    choice.server()?.list_models().map_err(from_remote)
}

/// A server's failure as the app's error: its code in the message.
pub fn from_remote(e: RemoteError) -> AppError {
    AppError::new(ErrorCode::ServerFailed, format!("{e} [{}]", e.code()))
}

/// A server keeps a request of a role waiting (most often: it is loading
/// the model), or — `answered` — the wait is over. The window shows
/// `message` while a turn waits; the terminal and the log say it too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerWait {
    /// `planner` or `writer`.
    pub role: String,
    /// "Waiting for Ollama to load llama3.2…", or "Ollama is answering."
    pub message: String,
    pub server: String,
    pub model: String,
    /// Whether the server has not answered yet in this run: likely loading.
    pub cold: bool,
    pub answered: bool,
    /// How long the request has waited so far.
    pub waited_ms: u64,
}

/// Where the app's server waits go, for whoever listens (the window).
pub type WaitSender = tokio::sync::broadcast::Sender<ServerWait>;

/// What is said while a server keeps `role`'s request waiting: a warning,
/// which the terminal shows and the log keeps, and a [`ServerWait`] sent
/// to `waits`' listeners.
fn on_wait(role: &'static str, waits: WaitSender) -> OnWait {
    Arc::new(move |notice| {
        if notice.answered {
            tracing::info!("{}", notice.message());
        } else {
            tracing::warn!("{}", notice.message());
        }
        // No listener (the terminal) is not an error.
        let _ = waits.send(ServerWait {
            role: role.to_string(),
            message: notice.message(),
            server: notice.server.clone(),
            model: notice.model.clone(),
            cold: notice.cold,
            answered: notice.answered,
            waited_ms: u64::try_from(notice.waited.as_millis()).unwrap_or(u64::MAX),
        });
    })
}

/// The planner on `choice`'s server; its waits go to `waits`.
pub fn planner(choice: &ServerChoice, waits: &WaitSender) -> Result<Arc<dyn Planner>, AppError> {
    Ok(Arc::new(
        RemotePlanner::new(choice.server()?).with_on_wait(Some(on_wait("planner", waits.clone()))),
    ))
}

/// The writer on `choice`'s server; its waits go to `waits`.
pub fn writer(choice: &ServerChoice, waits: &WaitSender) -> Result<Arc<dyn Generator>, AppError> {
    Ok(Arc::new(
        RemoteWriter::new(choice.server()?).with_on_wait(Some(on_wait("writer", waits.clone()))),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_names_an_http_server_and_a_model() {
        let ok = ServerChoice {
            endpoint: "http://127.0.0.1:11434/v1/".into(),
            model: "llama3.2".into(),
            api_key_env: None,
        };
        let server = ok.server().unwrap();
        assert_eq!(server.endpoint, "http://127.0.0.1:11434/v1");
        for bad in [
            ServerChoice {
                endpoint: "file:///etc/passwd".into(),
                ..ok.clone()
            },
            ServerChoice {
                model: " ".into(),
                ..ok.clone()
            },
            ServerChoice {
                endpoint: "ftp://me:PASSWORD@h/v1".into(),
                ..ok.clone()
            },
            ServerChoice {
                endpoint: "http://me:PASSWORD@h/v1".into(),
                model: String::new(),
                ..ok.clone()
            },
        ] {
            let e = bad.server().unwrap_err();
            assert_eq!(e.code, ErrorCode::ServerFailed);
            assert!(!e.to_string().contains("PASSWORD"), "{e}");
        }
        let json = serde_json::json!({"endpoint": "http://h/v1", "model": "m", "apiKey": "secret"});
        assert!(
            serde_json::from_value::<ServerChoice>(json).is_err(),
            "a key is never kept in the settings"
        );
    }

    /// Credentials in an endpoint are shown masked, wherever a choice is
    /// shown; the choice itself keeps them (to be used).
    #[test]
    fn a_shown_choice_masks_the_endpoints_credentials() {
        let choice = ServerChoice {
            endpoint: "http://user:PASSWORD@127.0.0.1:11434/v1".into(),
            model: "m".into(),
            api_key_env: None,
        };
        let shown = Servers {
            planner: Some(choice.clone()),
            writer: None,
        }
        .shown();
        let planner = shown.planner.as_ref().unwrap();
        assert_eq!(planner.endpoint, "http://user:••••••••@127.0.0.1:11434/v1");
        let json = serde_json::to_string(&shown).unwrap();
        assert!(!json.contains("PASSWORD"), "{json}");
        assert!(choice.server().unwrap().endpoint.contains("PASSWORD"));
    }
}
