//! Why a model file could not be read, fetched, added or chosen.

use std::path::PathBuf;

use narratoria_fs::NameError;

/// Why a GGUF header could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("model file {0} does not exist")]
    Missing(PathBuf),
    #[error("model file {path} cannot be read: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("model file {path} is not a GGUF model: {reason}")]
    NotGguf { path: PathBuf, reason: String },
    #[error("model file {path} is truncated: {reason}")]
    Truncated { path: PathBuf, reason: String },
}

/// Why a model command did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    #[error(transparent)]
    Gguf(#[from] GgufError),
    #[error("{path} has no chat template (tokenizer.chat_template); the narrator needs an instruct model that has one")]
    NoChatTemplate { path: PathBuf },
    #[error("no model called {name:?} (installed: {installed}; in the catalog: {catalog})")]
    Unknown {
        name: String,
        installed: String,
        catalog: String,
    },
    #[error("{name} is part of the installed program ({path}) and cannot be removed")]
    ReadOnly { name: String, path: PathBuf },
    #[error("{name} is already in the models folder ({path})")]
    AlreadyThere { name: String, path: PathBuf },
    /// The Hugging Face Hub did not say what a download needs, or said
    /// something else than a catalog entry pins.
    #[error("Hugging Face repository {repo}: {reason}")]
    Hub { repo: String, reason: String },
    /// A repository link with more than one GGUF file (or a pick that is
    /// none of them): the player picks one of `files`, smallest first.
    #[error("{repo} has {} GGUF files; pick one: {}", files.len(), crate::hub_files::paths_for_message(files.iter()))]
    HubChoose {
        repo: String,
        files: Vec<crate::hub_files::HubFile>,
    },
    #[error(transparent)]
    Link(#[from] crate::hub::LinkError),
    #[error("download of {url} failed: {reason}")]
    Http { url: String, reason: String },
    #[error("the download of {file} does not match its checksum (expected sha256 {expected}, got {actual}); the file was discarded")]
    ChecksumMismatch {
        file: String,
        expected: String,
        actual: String,
    },
    #[error("the package {archive} has no member {member}")]
    MemberMissing { archive: String, member: String },
    #[error("{path}: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error("the settings file {path} is not valid JSON: {reason}")]
    Settings { path: PathBuf, reason: String },
    #[error("the model catalog {path} is not usable: {reason}")]
    Catalog { path: PathBuf, reason: String },
    #[error("{name} is an embedder (the memory skill's), not a narrator model")]
    NotANarrator { name: String },
    /// A model name, or a file name a catalog entry gives, that would not
    /// stay a plain name directly inside the models folder.
    #[error("not a name inside the models folder: {0}")]
    Name(#[from] NameError),
    /// The server sent (or announced) more bytes than the file may have.
    #[error("the download of {url} was stopped: {seen}, and its limit is {limit} bytes ({basis}); the partial file was discarded")]
    DownloadTooLarge {
        url: String,
        limit: u64,
        /// Where the limit comes from, e.g. the catalog's size and its slack.
        basis: String,
        /// What went past it: an announced length, or the body itself.
        seen: String,
    },
    /// The server sent too little for too long: past the download's
    /// deadline, or stalled.
    #[error("the download of {url} was stopped after {done} bytes: {reason}; try again to go on from there")]
    DownloadTooSlow {
        url: String,
        done: u64,
        reason: String,
    },
}

impl ModelsError {
    /// An I/O failure on `path`.
    pub fn io(path: impl Into<PathBuf>, e: impl std::fmt::Display) -> ModelsError {
        ModelsError::Io {
            path: path.into(),
            reason: e.to_string(),
        }
    }

    /// A short stable code for programs, e.g. `model_checksum_mismatch`.
    pub fn code(&self) -> &'static str {
        match self {
            ModelsError::Gguf(GgufError::Missing(_)) => "model_missing",
            ModelsError::Gguf(GgufError::Unreadable { .. }) => "model_unreadable",
            ModelsError::Gguf(GgufError::NotGguf { .. }) => "model_not_gguf",
            ModelsError::Gguf(GgufError::Truncated { .. }) => "model_truncated",
            ModelsError::NoChatTemplate { .. } => "model_no_chat_template",
            ModelsError::Unknown { .. } => "model_unknown",
            ModelsError::ReadOnly { .. } => "model_read_only",
            ModelsError::AlreadyThere { .. } => "model_exists",
            ModelsError::Hub { .. } => "hub_failed",
            ModelsError::HubChoose { .. } => "hub_choose_file",
            ModelsError::Link(_) => "model_link_invalid",
            ModelsError::Http { .. } => "download_failed",
            ModelsError::ChecksumMismatch { .. } => "model_checksum_mismatch",
            ModelsError::MemberMissing { .. } => "download_failed",
            ModelsError::Io { .. } => "io",
            ModelsError::Settings { .. } => "settings_invalid",
            ModelsError::Catalog { .. } => "catalog_invalid",
            ModelsError::NotANarrator { .. } => "model_not_narrator",
            ModelsError::Name(_) => "model_name_invalid",
            ModelsError::DownloadTooLarge { .. } => "download_too_large",
            ModelsError::DownloadTooSlow { .. } => "download_too_slow",
        }
    }
}
