//! The one place that finds Narratoria's things: the built-in skills folder,
//! the default model, the model chosen with `narratoria models use`, the
//! user's settings and data folders. The terminal command and the desktop
//! shell both ask here, so they always agree.

use std::path::{Path, PathBuf};

use narratoria_models::{catalog, Entry, Library, ModelsError, Settings};

pub use narratoria_core::paths::{
    settings_file, skills_data_dir, user_config_dir, user_data_dir, user_log_dir, user_models_dir,
    DEFAULT_MODEL_FILE,
};

/// The user's sessions database: `<user data>/sessions.db`.
pub fn sessions_db() -> PathBuf {
    narratoria_core::store::default_path()
}

/// The user's skill choices (on/off, health): `<user data>/skills-state.json`.
pub fn skills_state_file() -> PathBuf {
    narratoria_core::skills::SkillsState::default_path()
}

/// The user's own skills folder: `<user data>/skills`.
pub fn user_skills_dir() -> PathBuf {
    user_data_dir().join("skills")
}

/// The built-in skills folder, the first of:
/// - `$NARRATORIA_SKILLS_DIR` (when set and not empty);
/// - `skills/` in an installed bundle's `resources` folder, when it holds skills;
/// - the source checkout this program was built from, when it runs from
///   cargo's build folder;
/// - beside or up to five folders above the executable: `skills/`,
///   `lib/narratoria/skills/` or `share/narratoria/skills/`;
/// - the source checkout this program was built from;
/// - `/usr/share/narratoria/skills`, `/usr/lib/narratoria/skills`;
/// - else `./skills`.
///
/// Except for the variable, a folder counts only when it holds skills.
pub fn builtin_skills_dir(resources: Option<&Path>) -> PathBuf {
    if let Some(dir) = env_path("NARRATORIA_SKILLS_DIR") {
        return dir;
    }
    let mut candidates: Vec<PathBuf> = resources.map(|r| r.join("skills")).into_iter().collect();
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let exe = std::env::current_exe().and_then(|p| p.canonicalize()).ok();
    // A program run from cargo's build folder plays the checkout's skills, not
    // a copy a desktop build left beside it (which goes stale).
    if exe.as_deref().is_some_and(in_cargo_build_folder) {
        candidates.push(checkout.clone());
    }
    if let Some(exe) = exe {
        for dir in exe.ancestors().skip(1).take(5) {
            candidates.push(dir.join("skills"));
            candidates.push(dir.join("lib/narratoria/skills"));
            candidates.push(dir.join("share/narratoria/skills"));
        }
    }
    // A build from a source checkout whose target folder lives elsewhere.
    candidates.push(checkout);
    candidates.push(PathBuf::from("/usr/share/narratoria/skills"));
    candidates.push(PathBuf::from("/usr/lib/narratoria/skills"));
    candidates
        .into_iter()
        .find(|c| holds_skills(c))
        .map(|c| c.canonicalize().unwrap_or(c))
        .unwrap_or_else(|| PathBuf::from("skills"))
}

/// Whether `exe` is a program in a cargo build folder (`…/debug/` or
/// `…/release/`), rather than an installed one.
fn in_cargo_build_folder(exe: &Path) -> bool {
    exe.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "debug" || n == "release")
}

/// The skill folders to use: the given ones, else the built-in folder.
pub fn skill_roots(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() {
        vec![builtin_skills_dir(None)]
    } else {
        given.to_vec()
    }
}

/// Where the default model is: `$NARRATORIA_MODEL` (when set and not empty),
/// else the model chosen with `narratoria models use` (when it is still
/// installed), else the first existing of a `models/` or
/// `share/narratoria/models/` folder beside or above the executable, the
/// source checkout it was built from, `/usr/share/narratoria/models`, the
/// user's data folder, `./models`; else `./models/<default file>` (which
/// does not exist).
pub fn default_model_path() -> PathBuf {
    if let Some(p) = env_path("NARRATORIA_MODEL") {
        return p;
    }
    if let Some(p) = chosen_model(None) {
        return p;
    }
    bundled_default_model(None).unwrap_or_else(|| PathBuf::from("models").join(DEFAULT_MODEL_FILE))
}

/// The bundled default model (the small one that plans unless the player
/// chose another, docs/models.md "Roles"), when it is anywhere: in an
/// installed bundle's `resources/models`, else the first of a `models/` or
/// `share/narratoria/models/` folder beside or above the executable, the
/// source checkout it was built from, `/usr/share/narratoria/models`, the
/// user's models folder, `./models`.
pub fn bundled_default_model(resources: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = resources.and_then(bundled_model) {
        return Some(p);
    }
    let mut candidates = bundled_model_dirs();
    candidates.insert(candidates.len() - 1, user_models_dir());
    candidates
        .iter()
        .map(|dir| dir.join(DEFAULT_MODEL_FILE))
        .find(|c| c.is_file())
}

/// The read-only model folders, in search order: `models/` or
/// `share/narratoria/models/` beside or above the executable, the source
/// checkout's `models/`, `/usr/share/narratoria/models`, `./models`.
pub fn bundled_model_dirs() -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) {
        for dir in exe.ancestors().skip(1).take(5) {
            candidates.push(dir.join("models"));
            candidates.push(dir.join("share/narratoria/models"));
        }
    }
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models"));
    candidates.push(PathBuf::from("/usr/share/narratoria/models"));
    candidates.push(PathBuf::from("models"));
    candidates
}

/// The models a user has and can download: the user's models folder, the
/// read-only folders (an installed bundle's `resources/models` first), and
/// the catalog ([`model_catalog`]).
pub fn model_library(resources: Option<&Path>) -> Library {
    library_over(resources, model_catalog().0)
}

/// The model library of [`model_library`] over the catalog `catalog`.
pub fn library_over(resources: Option<&Path>, catalog: Vec<Entry>) -> Library {
    let mut bundled: Vec<PathBuf> = resources.map(|r| r.join("models")).into_iter().collect();
    bundled.extend(bundled_model_dirs().into_iter().filter(|d| d.is_dir()));
    let mut unique: Vec<PathBuf> = Vec::new();
    for dir in bundled {
        let real = dir.canonicalize().unwrap_or(dir);
        if !unique.contains(&real) {
            unique.push(real);
        }
    }
    Library::new(user_models_dir(), unique, catalog)
}

/// The built-in catalog, extended by the catalog file named by
/// `$NARRATORIA_MODEL_CATALOG` (docs/models.md, "The catalog"). A broken
/// file is logged, left out, and returned with the built-in catalog.
pub fn model_catalog() -> (Vec<Entry>, Option<ModelsError>) {
    let Some(file) = env_path("NARRATORIA_MODEL_CATALOG") else {
        return (catalog::builtin(), None);
    };
    match catalog::read_file(&file) {
        Ok(extra) => (catalog::extended(catalog::builtin(), extra), None),
        Err(e) => {
            tracing::warn!("{e}; only the built-in catalog is used");
            (catalog::builtin(), Some(e))
        }
    }
}

/// The user's settings (`settings.json` in the user's config folder)
/// layered over the installed program's defaults: a `settings.json` beside
/// the built-in skills folder (read-only; in a bundle, its resources
/// folder). Problems with either file are logged and the file left out.
pub fn settings(resources: Option<&Path>) -> Settings {
    let defaults: Vec<PathBuf> = builtin_skills_dir(resources)
        .parent()
        .map(|dir| dir.join("settings.json"))
        .into_iter()
        .collect();
    let (settings, notes) = Settings::load(&defaults, &settings_file());
    for note in notes {
        tracing::warn!("{note}");
    }
    settings
}

/// The model chosen with `narratoria models use`, when it is still
/// installed (a vanished choice is logged and ignored).
pub fn chosen_model(resources: Option<&Path>) -> Option<PathBuf> {
    let name = settings(resources).model()?;
    let found = model_library(resources).find(&name).filter(|p| p.is_file());
    if found.is_none() {
        tracing::warn!(
            "the chosen model {name:?} is not installed any more; using the default model"
        );
    }
    found
}

/// The default model inside an installed bundle's `resources` folder, when it is there.
pub fn bundled_model(resources: &Path) -> Option<PathBuf> {
    Some(resources.join("models").join(DEFAULT_MODEL_FILE)).filter(|p| p.is_file())
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Whether `dir` holds at least one skill folder (a `skill.json` or `SKILL.md`).
fn holds_skills(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|mut entries| {
            entries.any(|e| {
                e.map(|e| {
                    let p = e.path();
                    p.join("skill.json").is_file() || p.join("SKILL.md").is_file()
                })
                .unwrap_or(false)
            })
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_counts_only_when_it_holds_skills() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_skills(dir.path()));
        std::fs::create_dir_all(dir.path().join("empty")).unwrap();
        assert!(!holds_skills(dir.path()));
        std::fs::create_dir_all(dir.path().join("dice")).unwrap();
        std::fs::write(dir.path().join("dice/SKILL.md"), "---\nname: dice\n---\n").unwrap();
        assert!(holds_skills(dir.path()));
    }

    #[test]
    fn the_source_checkout_has_the_built_in_skills() {
        // Built from this repository, the search ends at its skills folder at
        // the latest (unless the environment names another one).
        if std::env::var_os("NARRATORIA_SKILLS_DIR").is_some() {
            return;
        }
        assert!(holds_skills(&builtin_skills_dir(None)));
    }

    #[test]
    fn given_roots_win_over_the_built_in_folder() {
        let given = vec![PathBuf::from("/campaign/skills")];
        assert_eq!(skill_roots(&given), given);
        assert_eq!(skill_roots(&[]).len(), 1);
    }
}
