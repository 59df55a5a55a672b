//! The memory skill's settings (its `config-schema.json`, same defaults).

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Folder name of the embedding model.
pub const MODEL_FOLDER: &str = "all-MiniLM-L6-v2";

/// The memory skill's config.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryConfig {
    /// How many memories a recall returns at most.
    pub max_context_events: usize,
    /// Minimum cosine similarity of a recalled memory (when embeddings are used).
    pub similarity_threshold: f32,
    /// Folder of the embedding model; relative paths are from the skill folder.
    pub embedding_model_dir: Option<String>,
    pub storage_backend: String,
}

impl Default for MemoryConfig {
    fn default() -> MemoryConfig {
        MemoryConfig {
            max_context_events: 5,
            similarity_threshold: 0.2,
            embedding_model_dir: None,
            storage_backend: "sqlite".into(),
        }
    }
}

impl MemoryConfig {
    /// Where the embedding model is looked for: config `embeddingModelDir`,
    /// else `$NARRATORIA_MODELS_DIR/all-MiniLM-L6-v2`, else
    /// `<skill folder>/../../models/all-MiniLM-L6-v2`.
    pub fn model_dir(&self, skill_dir: &Path, models_env: Option<&str>) -> PathBuf {
        if let Some(d) = self
            .embedding_model_dir
            .as_deref()
            .filter(|d| !d.is_empty())
        {
            return skill_dir.join(d); // an absolute `d` replaces skill_dir
        }
        if let Some(m) = models_env.filter(|m| !m.is_empty()) {
            return Path::new(m).join(MODEL_FOLDER);
        }
        skill_dir.join("../../models").join(MODEL_FOLDER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_dir_precedence() {
        let skill = Path::new("/app/skills/memory");
        let mut c = MemoryConfig::default();
        assert_eq!(
            c.model_dir(skill, None),
            Path::new("/app/skills/memory/../../models/all-MiniLM-L6-v2")
        );
        assert_eq!(
            c.model_dir(skill, Some("/m")),
            Path::new("/m/all-MiniLM-L6-v2")
        );
        c.embedding_model_dir = Some("/abs/model".into());
        assert_eq!(c.model_dir(skill, Some("/m")), Path::new("/abs/model"));
        c.embedding_model_dir = Some("weights".into());
        assert_eq!(
            c.model_dir(skill, None),
            Path::new("/app/skills/memory/weights")
        );
    }
}
