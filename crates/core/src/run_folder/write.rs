//! Writing a run folder: every file is rendered and checked for secrets
//! before anything is written, then the folder appears whole (written
//! beside its place and renamed into it) or not at all.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::RunFolder;
use crate::error::ErrorCode;
use crate::skills::config::{contains_secret, holds_secret};

/// Why a run folder was not written.
#[derive(Debug, thiserror::Error)]
pub enum RunFolderError {
    /// The destination holds something already.
    #[error("{0} already exists and is not an empty folder; choose a new or empty folder")]
    NotEmpty(PathBuf),
    /// A file would hold a secret setting's value; nothing was written.
    #[error("{file} would hold the value of a secret setting, so nothing was written")]
    SecretLeak { file: String },
    #[error("cannot write the run folder {path}: {message}")]
    Io { path: PathBuf, message: String },
}

impl RunFolderError {
    /// The stable code the UI and CLI show.
    pub fn code(&self) -> ErrorCode {
        match self {
            RunFolderError::NotEmpty(_) | RunFolderError::SecretLeak { .. } => {
                ErrorCode::ExportRefused
            }
            RunFolderError::Io { .. } => ErrorCode::Io,
        }
    }
}

impl RunFolder {
    /// The folder's files, `run.json` first: name → bytes.
    pub fn files(&self) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("run.json", pretty(&self.manifest)),
            ("events.jsonl", lines(&self.events)),
            ("transcripts.jsonl", lines(&self.transcripts)),
            ("result.json", pretty(&self.result)),
            ("summary.md", self.summary.clone().into_bytes()),
        ]
    }

    /// Writes the folder at `dir`, which must not exist or be an empty
    /// folder; returns `dir`. Refuses, writing nothing, when any file would
    /// hold one of the secret values the folder was built with: inside a
    /// text of its records (a string or an object's key — what the scrub
    /// reaches, so whatever JSON escapes of it), or in `summary.md`. The
    /// JSON around the texts (`true`, `null`, numbers) holds no secret: a
    /// secret spelt like it never refuses the folder.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, RunFolderError> {
        if let Some(file) = self.leaking_file() {
            return Err(RunFolderError::SecretLeak {
                file: file.to_string(),
            });
        }
        let files = self.files();
        let io = |e: std::io::Error| RunFolderError::Io {
            path: dir.to_path_buf(),
            message: e.to_string(),
        };
        let empty_dir = match std::fs::read_dir(dir) {
            Ok(mut entries) => match entries.next() {
                None => true,
                Some(_) => return Err(RunFolderError::NotEmpty(dir.to_path_buf())),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            // A file, or a folder that cannot be read.
            Err(_) => return Err(RunFolderError::NotEmpty(dir.to_path_buf())),
        };
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(io)?;
        let staging = tempfile::Builder::new()
            .prefix(".run-folder-")
            .tempdir_in(parent)
            .map_err(io)?;
        for (name, bytes) in &files {
            std::fs::write(staging.path().join(name), bytes).map_err(io)?;
        }
        if empty_dir {
            std::fs::remove_dir(dir).map_err(io)?;
        }
        std::fs::rename(staging.path(), dir).map_err(io)?;
        // Renamed away: nothing is left for the guard to remove.
        let _ = staging.keep();
        Ok(dir.to_path_buf())
    }

    /// The first file, in [`FILES`](super::FILES)' order, one of whose
    /// texts holds a secret value.
    fn leaking_file(&self) -> Option<&'static str> {
        let holds = |values: &[&Value]| values.iter().any(|v| holds_secret(v, &self.secrets));
        let events: Vec<&Value> = self.events.iter().collect();
        let transcripts: Vec<&Value> = self.transcripts.iter().collect();
        if holds(&[&self.manifest]) {
            Some("run.json")
        } else if holds(&events) {
            Some("events.jsonl")
        } else if holds(&transcripts) {
            Some("transcripts.jsonl")
        } else if holds(&[&self.result]) {
            Some("result.json")
        } else if contains_secret(&self.summary, &self.secrets) {
            Some("summary.md")
        } else {
            None
        }
    }
}

fn pretty(value: &serde_json::Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).unwrap_or_default();
    out.push(b'\n');
    out
}

/// One compact JSON document per line.
fn lines(values: &[serde_json::Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        out.extend(serde_json::to_vec(v).unwrap_or_default());
        out.push(b'\n');
    }
    out
}
