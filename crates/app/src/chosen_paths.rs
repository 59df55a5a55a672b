//! Files the page may name to the desktop shell. A page could be made to
//! ask for any path (to overwrite a file with an export, or to load any file
//! as a model); the shell accepts only a file the player chose in a dialog
//! the shell itself opened, or a file under the app's own data folders.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use narratoria_core::error::ErrorCode;

use crate::AppError;

/// The files the player chose in the shell's dialogs during this run.
#[derive(Debug, Default)]
pub struct ChosenPaths {
    chosen: Mutex<HashSet<PathBuf>>,
}

impl ChosenPaths {
    /// Remembers a file the player chose in a dialog the shell opened.
    pub fn remember(&self, path: &Path) {
        narratoria_core::sync::lock(&self.chosen).insert(path.to_path_buf());
    }

    /// `path` if the player chose it in a dialog, or if it lies under one of
    /// `folders` (an existing file judged where its links lead; a file still
    /// to be written by its folder, and never through a link).
    pub fn allow(&self, path: &Path, folders: &[PathBuf]) -> Result<PathBuf, AppError> {
        if narratoria_core::sync::lock(&self.chosen).contains(path) {
            return Ok(path.to_path_buf());
        }
        if under_folders(path, folders) {
            return Ok(path.to_path_buf());
        }
        Err(AppError::new(
            ErrorCode::Io,
            format!(
                "{} was not chosen in a file dialog and is not in the app's folders",
                path.display()
            ),
        ))
    }
}

/// Whether `path` lies under one of `folders` once links are resolved.
fn under_folders(path: &Path, folders: &[PathBuf]) -> bool {
    let plain = path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    if !plain {
        return false;
    }
    let real = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return false,
        Ok(_) => path.canonicalize().ok(),
        // A file still to be written: judged by its folder.
        Err(_) => match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) => dir.canonicalize().ok().map(|d| d.join(name)),
            _ => None,
        },
    };
    let Some(real) = real else {
        return false;
    };
    folders
        .iter()
        .filter_map(|f| f.canonicalize().ok())
        .any(|root| real.starts_with(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_chosen_files_and_files_in_the_apps_folders_are_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let data = base.join("data");
        std::fs::create_dir_all(data.join("exports")).unwrap();
        let folders = vec![data.clone()];
        let chosen = ChosenPaths::default();

        let bashrc = base.join(".bashrc");
        assert!(chosen.allow(&bashrc, &folders).is_err());
        chosen.remember(&bashrc);
        assert_eq!(chosen.allow(&bashrc, &folders).unwrap(), bashrc);

        let export = data.join("exports/story.md");
        assert!(
            chosen.allow(&export, &folders).is_ok(),
            "a new file in the data folder"
        );
        assert!(chosen
            .allow(&data.join("exports/../../.profile"), &folders)
            .is_err());
        assert!(chosen.allow(Path::new("story.md"), &folders).is_err());
        #[cfg(unix)]
        {
            let link = data.join("exports/link.md");
            std::os::unix::fs::symlink(base.join(".profile"), &link).unwrap();
            assert!(
                chosen.allow(&link, &folders).is_err(),
                "never through a link"
            );
        }
    }
}
