//! Where the encoder's folder is: the one rule every user of the encoder
//! (the memory skill's scripts, the narrator's router, `skills check`'s
//! example advice) follows, each giving the places it knows of.

use std::path::{Path, PathBuf};

/// The model's folder name under a `models/` folder.
pub const MODEL_FOLDER: &str = "all-MiniLM-L6-v2";

/// The router's multilingual encoder's folder name under a `models/` folder.
pub const MULTILINGUAL_FOLDER: &str = "multilingual-e5-small";

/// The environment variable naming a `models/` folder looked in first.
pub const MODELS_DIR_VAR: &str = "NARRATORIA_MODELS_DIR";

/// The file that makes a folder the encoder's.
const WEIGHTS: &str = "model.safetensors";

/// The folders the encoder is looked for in, in order: `configured` alone
/// when given (a setting names the folder itself); else
/// `<models_env>/all-MiniLM-L6-v2` when `models_env` is given and not
/// empty, then `<dir>/all-MiniLM-L6-v2` for each of `models_dirs`.
pub fn candidates(
    configured: Option<&Path>,
    models_env: Option<&Path>,
    models_dirs: &[PathBuf],
) -> Vec<PathBuf> {
    candidates_of(MODEL_FOLDER, configured, models_env, models_dirs)
}

/// [`candidates`] for the encoder in `folder` under a `models/` folder.
pub fn candidates_of(
    folder: &str,
    configured: Option<&Path>,
    models_env: Option<&Path>,
    models_dirs: &[PathBuf],
) -> Vec<PathBuf> {
    if let Some(dir) = configured {
        return vec![dir.to_path_buf()];
    }
    models_env
        .filter(|d| !d.as_os_str().is_empty())
        .into_iter()
        .chain(models_dirs.iter().map(PathBuf::as_path))
        .map(|d| d.join(folder))
        .collect()
}

/// `$NARRATORIA_MODELS_DIR`, when set and not empty.
pub fn models_env() -> Option<PathBuf> {
    std::env::var_os(MODELS_DIR_VAR)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// The first of `candidates` that holds the encoder, else the first one
/// (so that the load error names where it was looked for first); `None`
/// only when there are no candidates.
pub fn find(candidates: &[PathBuf]) -> Option<PathBuf> {
    candidates
        .iter()
        .find(|d| d.join(WEIGHTS).is_file() || d.join(crate::e5::WEIGHTS).is_file())
        .or(candidates.first())
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_folder_is_the_only_place() {
        let c = candidates(
            Some(Path::new("/abs/model")),
            Some(Path::new("/m")),
            &[PathBuf::from("/models")],
        );
        assert_eq!(c, [PathBuf::from("/abs/model")]);
    }

    #[test]
    fn the_environment_comes_before_the_callers_folders() {
        let dirs = [PathBuf::from("/a/models"), PathBuf::from("/b/models")];
        assert_eq!(
            candidates(None, Some(Path::new("/m")), &dirs),
            [
                PathBuf::from("/m/all-MiniLM-L6-v2"),
                PathBuf::from("/a/models/all-MiniLM-L6-v2"),
                PathBuf::from("/b/models/all-MiniLM-L6-v2"),
            ]
        );
        assert_eq!(candidates(None, Some(Path::new("")), &dirs).len(), 2);
    }

    #[test]
    fn the_first_folder_holding_the_weights_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let (empty, full) = (tmp.path().join("empty"), tmp.path().join("full"));
        std::fs::create_dir_all(&full).unwrap();
        std::fs::write(full.join(WEIGHTS), b"").unwrap();
        assert_eq!(find(&[empty.clone(), full.clone()]), Some(full));
        assert_eq!(
            find(std::slice::from_ref(&empty)),
            Some(empty),
            "else the first, for the error"
        );
        assert_eq!(find(&[]), None);
    }
}
