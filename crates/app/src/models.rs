//! The player's models: what is installed and which one narrates, adding a
//! GGUF file, downloading from the catalog, removing, choosing. The
//! `narratoria models` command and the window's model view both go through
//! here (docs/models.md).

use std::path::{Path, PathBuf};

use narratoria_core::error::ErrorCode;
use narratoria_core::narration::{AnswerLength, WriterProfile};
use narratoria_models::catalog::Kind;
use narratoria_models::context::WRITER_CONTEXT_DEFAULT;
use narratoria_models::fit::{self, Fit, Needs};
use narratoria_models::hub_files::HubFile;
use narratoria_models::machine::Machine;
use narratoria_models::settings::{MODEL_KEY, PLANNER_KEY};
use narratoria_models::speeds::Speeds;
use narratoria_models::{Entry, InstalledModel, Library, ModelsError, Progress};
use serde::Serialize;
use serde_json::Value;

use crate::roles::{Role, RoleChoice, Roles};
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
    /// The user's models folder.
    pub models_dir: PathBuf,
    /// Every model on disk, with its roles and profile.
    pub installed: Vec<ModelEntry>,
    /// Catalog entries that are not installed anywhere, each judged
    /// against this machine.
    pub available: Vec<Offer>,
    /// Why the catalog file (`NARRATORIA_MODEL_CATALOG`) was left out.
    pub catalog_problem: Option<String>,
    /// This machine: memory, cores, processor extensions, graphics card.
    pub machine: Machine,
    /// The catalog narrator this machine runs best (the one with the most
    /// parameters that runs well), installed or not.
    pub recommended: Option<String>,
}

/// A catalog model not installed yet, as the model view offers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Offer {
    #[serde(flatten)]
    pub entry: Entry,
    /// How it would run here (a narrator with a known size).
    pub fit: Option<Fit>,
}

/// One model on disk as the model view shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelEntry {
    /// What its file says (`inUse`: it has a role).
    #[serde(flatten)]
    pub model: InstalledModel,
    /// What it does in play: plans, writes, both, or nothing.
    pub roles: Vec<Role>,
    /// The context it would write in: its trained context within the
    /// writer's bound and the memory available now (a narrator only).
    pub writer_context: Option<u32>,
    /// Its writer's profile in words (`WriterProfile::describe`), for a
    /// narrator whose parameters are known.
    pub profile: Option<String>,
    /// How it runs here: the speed measured in play once it has been used,
    /// else the estimate (a narrator only).
    pub fit: Option<Fit>,
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

    /// The models on disk, each with the roles it has in `roles` (`in_use`:
    /// any), its parameters and profile, and the catalog's others.
    pub fn list(&self, roles: &Roles) -> ModelsView {
        let listing = self.library.list(None);
        let machine = Machine::probe(crate::planner::gpu());
        let speeds = Speeds::load(self.library.own_dir());
        let cap = roles.writer_context.unwrap_or(WRITER_CONTEXT_DEFAULT);
        let installed = listing
            .installed
            .into_iter()
            .map(|mut model| {
                let narrator = model.kind == Kind::Narrator && model.problem.is_none();
                let roles = if narrator {
                    roles.of(&model.path)
                } else {
                    Vec::new()
                };
                model.in_use = !roles.is_empty();
                let writer_context = narrator
                    .then(|| narratoria_models::gguf::read(&model.path).ok())
                    .flatten()
                    .map(|header| header.writer_context(cap));
                let profile = match (narrator, model.parameters, writer_context) {
                    (true, Some(parameters), Some(context)) => Some(
                        WriterProfile::local(Some(parameters), context, AnswerLength::default())
                            .describe(),
                    ),
                    _ => None,
                };
                let fit = narrator.then(|| {
                    let file = model
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned());
                    let measured = file.and_then(|f| speeds.of(&f));
                    fit::judge(&machine, Needs::of_file(model.size), measured)
                });
                ModelEntry {
                    model,
                    roles,
                    writer_context,
                    profile,
                    fit,
                }
            })
            .collect();
        let judged: Vec<(&Entry, Fit)> = self
            .library
            .catalog()
            .iter()
            .filter(|e| e.kind == Kind::Narrator)
            .filter_map(|e| Some((e, fit::judge(&machine, Needs::of(e)?, None))))
            .collect();
        let recommended = fit::recommend(&judged).map(|e| e.name.clone());
        let available = listing
            .available
            .into_iter()
            .map(|entry| Offer {
                fit: judged
                    .iter()
                    .find(|(e, _)| e.name == entry.name)
                    .map(|(_, f)| f.clone()),
                entry,
            })
            .collect();
        ModelsView {
            models_dir: listing.models_dir,
            installed,
            available,
            catalog_problem: self.catalog_problem.clone(),
            machine,
            recommended,
        }
    }

    /// Downloads the GGUF file a Hugging Face link points at ([`Library::add_from_hub`]).
    pub fn add_from_hub(
        &self,
        link: &str,
        file: Option<&str>,
        on_progress: &mut dyn FnMut(Progress),
    ) -> Result<InstalledModel, ModelsError> {
        self.library.add_from_hub(link, file, on_progress)
    }

    /// The whole-model GGUF files a Hugging Face link offers ([`Library::hub_files`]).
    pub fn hub_files(&self, link: &str) -> Result<Vec<HubFile>, ModelsError> {
        self.library.hub_files(link)
    }

    /// The roles of the models `info` says are loaded, with the writer's
    /// context bound the player chose (what the window lists).
    pub fn loaded(&self, info: &crate::ModelInfo) -> Roles {
        Roles {
            planner: info.path.clone(),
            writer: (!info.shared).then(|| info.writer_path.clone()).flatten(),
            writer_context: crate::roles::chosen(self.resources.as_deref()).writer_context,
            planner_given: false,
        }
    }

    /// The roles the player chose, over the bundled default model: what
    /// the window and `narratoria` load when nothing is given for the run.
    pub fn roles(&self) -> Roles {
        crate::roles::resolve(
            &Default::default(),
            &crate::roles::chosen(self.resources.as_deref()),
            locate::bundled_default_model(self.resources.as_deref()),
        )
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
        let mut was_chosen = false;
        for (key, chosen) in [
            (MODEL_KEY, settings.model()),
            (PLANNER_KEY, settings.planner()),
        ] {
            if chosen.is_some_and(|chosen| self.library.find(&chosen).is_none()) {
                settings.set(key, None)?;
                was_chosen = true;
            }
        }
        Ok(Removed { path, was_chosen })
    }

    /// Remembers `name` as the model that writes from now on and returns
    /// its file ([`Models::choose_as`] with [`RoleChoice::Writer`]).
    pub fn choose(&self, name: &str) -> Result<Option<PathBuf>, ModelsError> {
        self.choose_as(name, RoleChoice::Writer)
    }

    /// Remembers `name` as the model that has `role` from now on (the
    /// writer: `"model"` in the settings; the planner: `"planner"`; both:
    /// the two) and returns its file; `default` forgets the choice of that
    /// role (the default model plans; the planner's model writes) and
    /// returns `None`. Only an installed narrator model with a chat
    /// template can be chosen.
    pub fn choose_as(&self, name: &str, role: RoleChoice) -> Result<Option<PathBuf>, ModelsError> {
        let mut settings = locate::settings(self.resources.as_deref());
        let keys: Vec<&str> = [(Role::Writer, MODEL_KEY), (Role::Planner, PLANNER_KEY)]
            .into_iter()
            .filter(|(r, _)| role.gives(*r))
            .map(|(_, key)| key)
            .collect();
        if name == "default" {
            for key in keys {
                settings.set(key, None)?;
            }
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
        for key in keys {
            settings.set(key, Some(Value::String(name.to_string())))?;
        }
        Ok(Some(path))
    }

    /// Remembers the most tokens the writer's context may hold (`None`
    /// forgets it: 8,192, within the model and the memory).
    pub fn set_writer_context(&self, tokens: Option<u32>) -> Result<(), ModelsError> {
        let mut settings = locate::settings(self.resources.as_deref());
        settings.set(
            narratoria_models::settings::WRITER_CONTEXT_KEY,
            tokens.map(Value::from),
        )
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
            | ModelsError::DownloadTooSlow { .. }
            | ModelsError::Hub { .. } => ErrorCode::DownloadFailed,
            ModelsError::HubChoose { .. } => ErrorCode::ModelFileChoice,
            ModelsError::Link(_) => ErrorCode::ModelLinkInvalid,
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
        assert_eq!(
            AppError::from(ModelsError::Name(name)).code,
            ErrorCode::ModelUnusable
        );
    }
}
