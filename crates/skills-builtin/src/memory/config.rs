//! The memory skill's settings (its `config-schema.json`, same defaults).

use std::path::{Path, PathBuf};

use narratoria_embed::locate;
use serde::Deserialize;

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
    /// Where the embedding model is: config `embeddingModelDir` (relative
    /// to the skill folder) alone when set; else the first of
    /// `<models_env>/all-MiniLM-L6-v2` and
    /// `<skill folder>/../../models/all-MiniLM-L6-v2` that holds it, else
    /// the first of them (narratoria_embed::locate).
    pub fn model_dir(&self, skill_dir: &Path, models_env: Option<&Path>) -> PathBuf {
        let configured = self
            .embedding_model_dir
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| skill_dir.join(d)); // an absolute `d` replaces skill_dir
        let candidates = locate::candidates(
            configured.as_deref(),
            models_env,
            &[skill_dir.join("../../models")],
        );
        locate::find(&candidates).expect("the skill folder's models folder is a candidate")
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
            c.model_dir(skill, Some(Path::new("/m"))),
            Path::new("/m/all-MiniLM-L6-v2")
        );
        c.embedding_model_dir = Some("/abs/model".into());
        assert_eq!(
            c.model_dir(skill, Some(Path::new("/m"))),
            Path::new("/abs/model")
        );
        c.embedding_model_dir = Some("weights".into());
        assert_eq!(
            c.model_dir(skill, None),
            Path::new("/app/skills/memory/weights")
        );
    }
}
