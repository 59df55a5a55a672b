//! The player's models: what is installed and which one narrates, adding a
//! GGUF file, downloading from the catalog, removing, choosing. The
//! `narratoria models` command and the window's model view both go through
//! here (docs/models.md).

use std::path::{Path, PathBuf};

use narratoria_core::error::ErrorCode;
use narratoria_models::settings::MODEL_KEY;
use narratoria_models::{InstalledModel, Library, Listing, ModelsError, Progress};
use serde::Serialize;
use serde_json::Value;

use crate::{locate, AppError};

/// The player's models folder, the program's read-only ones, the catalog,
/// and the settings file that remembers the choice.
#[derive(Debug, Clone)]
pub struct Models {
    library: Library,
    resources: Option<PathBuf>,
    catalog_problem: Option<String>,
}

/// What the model view and `models list` show.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelsView {
    #[serde(flatten)]
    pub listing: Listing,
    /// Why the catalog file (`NARRATORIA_MODEL_CATALOG`) was left out.
    pub catalog_problem: Option<String>,
}

/// What removing a model did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    pub path: PathBuf,
    /// It was the chosen model: the choice is forgotten and the default
    /// model is used again.
    pub was_chosen: bool,
}

impl Models {
    /// The player's models, with an installed bundle's `resources` folder
    /// when there is one. A broken catalog file is left out and named in
    /// [`ModelsView::catalog_problem`].
    pub fn open(resources: Option<&Path>) -> Models {
        let (catalog, problem) = locate::model_catalog();
        Models {
            library: locate::library_over(resources, catalog),
            resources: resources.map(Path::to_path_buf),
            catalog_problem: problem.map(|e| e.to_string()),
        }
    }

    /// The models on disk (`in_use` marked) and the catalog's others.
    pub fn list(&self, in_use: Option<&Path>) -> ModelsView {
        ModelsView {
            listing: self.library.list(in_use),
            catalog_problem: self.catalog_problem.clone(),
        }
    }

    /// Copies (`link`: symlinks) a GGUF file into the player's folder after
    /// checking it is a whole model with a chat template.
    pub fn add(&self, file: &Path, link: bool) -> Result<InstalledModel, ModelsError> {
        self.library.add(file, link)
    }

    /// Downloads the catalog model `name` (resumed, checked, unpacked);
    /// returns where it is installed.
    pub fn download(
        &self,
        name: &str,
        on_progress: &mut dyn FnMut(Progress),
    ) -> Result<PathBuf, ModelsError> {
        self.library.download(name, on_progress)
    }

    /// Deletes `name` from the player's folder. When it was the chosen
    /// model, the choice is forgotten so the next start loads the default.
    pub fn remove(&self, name: &str) -> Result<Removed, ModelsError> {
        let path = self.library.remove(name)?;
        let mut settings = locate::settings(self.resources.as_deref());
        let was_chosen = settings
            .model()
            .is_some_and(|chosen| self.library.find(&chosen).is_none());
        if was_chosen {
            settings.set(MODEL_KEY, None)?;
        }
        Ok(Removed { path, was_chosen })
    }

    /// Remembers `name` as the narrator model from now on and returns its
    /// file; `default` forgets the choice and returns `None`. Only an
    /// installed narrator model with a chat template can be chosen.
    pub fn choose(&self, name: &str) -> Result<Option<PathBuf>, ModelsError> {
        let mut settings = locate::settings(self.resources.as_deref());
        if name == "default" {
            settings.set(MODEL_KEY, None)?;
            return Ok(None);
        }
        let path = self
            .library
            .find(name)
            .ok_or_else(|| self.library.unknown(name))?;
        if path.is_dir() {
            return Err(ModelsError::NotANarrator {
                name: name.to_string(),
            });
        }
        let header = narratoria_models::gguf::read(&path)?;
        if !header.has_chat_template {
            return Err(ModelsError::NoChatTemplate { path });
        }
        settings.set(MODEL_KEY, Some(Value::String(name.to_string())))?;
        Ok(Some(path))
    }

    /// The model the window loads when none is chosen: the installed
    /// bundle's (`None`: the default place, see [`locate::default_model_path`]).
    pub fn default_model(&self) -> Option<PathBuf> {
        self.resources.as_deref().and_then(locate::bundled_model)
    }

    /// The settings file the choice is written to.
    pub fn settings_file(&self) -> PathBuf {
        locate::settings_file()
    }
}

impl From<ModelsError> for AppError {
    fn from(e: ModelsError) -> Self {
        let code = match &e {
            ModelsError::Http { .. }
            | ModelsError::ChecksumMismatch { .. }
            | ModelsError::MemberMissing { .. }
            | ModelsError::DownloadTooLarge { .. }
            | ModelsError::DownloadTooSlow { .. } => ErrorCode::DownloadFailed,
            ModelsError::Io { .. } => ErrorCode::Io,
            ModelsError::Settings { .. } => ErrorCode::ConfigInvalid,
            // Listed one by one, so that a new kind of failure is sorted here
            // on purpose rather than called an unusable model.
            ModelsError::Gguf(_)
            | ModelsError::NoChatTemplate { .. }
            | ModelsError::Unknown { .. }
            | ModelsError::ReadOnly { .. }
            | ModelsError::AlreadyThere { .. }
            | ModelsError::Catalog { .. }
            | ModelsError::NotANarrator { .. }
            | ModelsError::Name(_) => ErrorCode::ModelUnusable,
        };
        AppError::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A download stopped for its size or its pace is a failed download the
    /// player can retry, not an unusable model.
    #[test]
    fn a_bounded_download_is_a_failed_download() {
        let too_large = ModelsError::DownloadTooLarge {
            url: "http://127.0.0.1/m.gguf".into(),
            limit: 66_546,
            basis: "the catalog's size".into(),
            seen: "the body ran past it".into(),
        };
        let too_slow = ModelsError::DownloadTooSlow {
            url: "http://127.0.0.1/m.gguf".into(),
            done: 38,
            reason: "stalled".into(),
        };
        for e in [too_large, too_slow] {
            assert_eq!(AppError::from(e).code, ErrorCode::DownloadFailed);
        }
        let name = narratoria_core::fs::child(Path::new("/m"), "../x").unwrap_err();
        assert_eq!(AppError::from(ModelsError::Name(name)).code, ErrorCode::ModelUnusable);
    }
}
