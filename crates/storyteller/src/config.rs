//! The skill's settings (`config-schema.json`), and where the local model is.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The default model's file name (fetched by scripts/fetch-model.sh).
pub use narratoria_folders::DEFAULT_MODEL_FILE;

/// Who writes the prose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The GGUF model on this computer, through llama.cpp.
    #[default]
    Local,
    /// An OpenAI-compatible Chat Completions server (OpenAI, Ollama, llama-server).
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

/// How the prose reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    Terse,
    #[default]
    Vivid,
    Poetic,
}

impl Style {
    /// The name used in settings and prompts.
    pub fn name(self) -> &'static str {
        match self {
            Style::Terse => "terse",
            Style::Vivid => "vivid",
            Style::Poetic => "poetic",
        }
    }
}

/// An API key. It is never printed: `Debug` and `Display` show a mask, and the
/// text is reachable only through [`ApiKey::expose`], for the request header.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// `text` with every occurrence of the key replaced by a mask.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "••••••••")
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(••••••••)")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("••••••••")
    }
}

/// The resolved settings; absent fields take the defaults `config-schema.json` declares.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StoryConfig {
    pub provider: Provider,
    pub model: Option<String>,
    pub endpoint: Option<String>,
    pub api_key: Option<ApiKey>,
    pub style: Style,
    /// How long a large writer's prose is (docs/stories.md, "The writer's profile").
    pub length: narratoria_protocol::writer::AnswerLength,
    pub temperature: f32,
    pub max_tokens: u32,
    pub model_path: Option<String>,
    pub timeout_seconds: u64,
}

impl Default for StoryConfig {
    fn default() -> StoryConfig {
        StoryConfig {
            provider: Provider::Local,
            model: None,
            endpoint: None,
            api_key: None,
            style: Style::Vivid,
            length: narratoria_protocol::writer::AnswerLength::Medium,
            temperature: 0.5,
            max_tokens: 1000,
            model_path: None,
            timeout_seconds: 30,
        }
    }
}

/// The hosted model used when `model` is empty.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";
/// The hosted model used when `model` is empty.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-3-5-haiku-latest";
/// OpenAI's base URL, used when `endpoint` is empty.
pub const DEFAULT_OPENAI_ENDPOINT: &str = "https://api.openai.com/v1";
/// Anthropic's base URL, used when `endpoint` is empty.
pub const DEFAULT_ANTHROPIC_ENDPOINT: &str = "https://api.anthropic.com";

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

impl StoryConfig {
    /// The model name for a hosted provider: the configured one, else the provider's default.
    pub fn model_for(&self, provider: Provider) -> &str {
        non_empty(&self.model).unwrap_or(match provider {
            Provider::Anthropic => DEFAULT_ANTHROPIC_MODEL,
            _ => DEFAULT_OPENAI_MODEL,
        })
    }

    /// The base URL for a hosted provider: the configured one, else the provider's default.
    pub fn endpoint_for(&self, provider: Provider) -> &str {
        non_empty(&self.endpoint).unwrap_or(match provider {
            Provider::Anthropic => DEFAULT_ANTHROPIC_ENDPOINT,
            _ => DEFAULT_OPENAI_ENDPOINT,
        })
    }

    /// The API key, if one is set and not blank.
    pub fn key(&self) -> Option<&ApiKey> {
        self.api_key.as_ref().filter(|k| !k.is_empty())
    }
}

/// Where to look for the local model, in order: the configured `modelPath`
/// alone when set (relative to the skill folder); otherwise `$NARRATORIA_MODEL`,
/// `<skill folder>/../../models/<default file>`, then
/// `<user data folder>/models/<default file>`.
pub fn model_candidates(
    configured: Option<&str>,
    env_model: Option<&str>,
    skill_dir: &Path,
    user_data_dir: &Path,
) -> Vec<PathBuf> {
    if let Some(p) = configured.map(str::trim).filter(|p| !p.is_empty()) {
        return vec![skill_dir.join(p)];
    }
    let mut out = Vec::new();
    if let Some(p) = env_model.map(str::trim).filter(|p| !p.is_empty()) {
        out.push(skill_dir.join(p));
    }
    out.push(skill_dir.join("../../models").join(DEFAULT_MODEL_FILE));
    out.push(user_data_dir.join("models").join(DEFAULT_MODEL_FILE));
    out
}

/// The first candidate that is a file, else `Err` with every path tried.
pub fn find_model(candidates: &[PathBuf]) -> Result<PathBuf, Vec<PathBuf>> {
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| candidates.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_match_the_schema() {
        let c: StoryConfig = serde_json::from_value(json!({})).unwrap();
        assert_eq!(c.provider, Provider::Local);
        assert_eq!(c.style, Style::Vivid);
        assert_eq!(c.max_tokens, 1000);
        assert_eq!(c.endpoint_for(Provider::OpenAi), DEFAULT_OPENAI_ENDPOINT);
        assert_eq!(
            c.endpoint_for(Provider::Anthropic),
            DEFAULT_ANTHROPIC_ENDPOINT
        );
        let schema: serde_json::Value = serde_json::from_str(include_str!(
            "../../../skills/storyteller/config-schema.json"
        ))
        .unwrap();
        let p = &schema["properties"];
        assert_eq!(p["provider"]["default"], "local");
        assert_eq!(p["style"]["default"], c.style.name());
        assert_eq!(p["maxTokens"]["default"], c.max_tokens);
        assert_eq!(p["timeoutSeconds"]["default"], c.timeout_seconds);
        assert!(
            (p["temperature"]["default"].as_f64().unwrap() - c.temperature as f64).abs() < 1e-6
        );
        assert_eq!(p["apiKey"]["format"], "password");
    }

    #[test]
    fn the_key_never_prints() {
        let c: StoryConfig =
            serde_json::from_value(json!({"provider": "openai", "apiKey": "sk-secret-123"}))
                .unwrap();
        assert!(!format!("{c:?}").contains("sk-secret-123"));
        let k = c.key().unwrap();
        assert_eq!(k.expose(), "sk-secret-123");
        assert!(!k.to_string().contains("secret"));
        assert_eq!(k.scrub("bad key sk-secret-123!"), "bad key ••••••••!");
        let blank: StoryConfig = serde_json::from_value(json!({"apiKey": "  "})).unwrap();
        assert!(blank.key().is_none());
    }

    #[test]
    fn model_search_order() {
        let skill = Path::new("/s/skills/storyteller");
        let data = Path::new("/home/u/.local/share/narratoria");
        let c = model_candidates(Some("m.gguf"), Some("/env.gguf"), skill, data);
        assert_eq!(c, vec![skill.join("m.gguf")]);
        let c = model_candidates(None, Some("/env.gguf"), skill, data);
        assert_eq!(c[0], PathBuf::from("/env.gguf"));
        assert_eq!(c[1], skill.join("../../models").join(DEFAULT_MODEL_FILE));
        assert_eq!(c[2], data.join("models").join(DEFAULT_MODEL_FILE));
        assert_eq!(model_candidates(None, None, skill, data).len(), 2);
        assert!(find_model(&[PathBuf::from("/nonexistent.gguf")]).is_err());
    }
}
