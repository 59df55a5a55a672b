//! The one place that finds Narratoria's things: the built-in skills folder,
//! the default model, and the user's data folders. The terminal command and
//! the desktop shell both ask here, so they always agree.

use std::path::{Path, PathBuf};

pub use narratoria_core::paths::{skills_data_dir, user_data_dir, DEFAULT_MODEL_FILE};

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
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) {
        for dir in exe.ancestors().skip(1).take(5) {
            candidates.push(dir.join("skills"));
            candidates.push(dir.join("lib/narratoria/skills"));
            candidates.push(dir.join("share/narratoria/skills"));
        }
    }
    // A build from a source checkout whose target folder lives elsewhere.
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"));
    candidates.push(PathBuf::from("/usr/share/narratoria/skills"));
    candidates.push(PathBuf::from("/usr/lib/narratoria/skills"));
    candidates
        .into_iter()
        .find(|c| holds_skills(c))
        .map(|c| c.canonicalize().unwrap_or(c))
        .unwrap_or_else(|| PathBuf::from("skills"))
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
/// else the first existing of a `models/` or `share/narratoria/models/`
/// folder beside or above the executable, the source checkout it was built
/// from, `/usr/share/narratoria/models`, the user's data folder, `./models`;
/// else `./models/<default file>` (which does not exist).
pub fn default_model_path() -> PathBuf {
    if let Some(p) = env_path("NARRATORIA_MODEL") {
        return p;
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) {
        for dir in exe.ancestors().skip(1).take(5) {
            candidates.push(dir.join("models"));
            candidates.push(dir.join("share/narratoria/models"));
        }
    }
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models"));
    candidates.push(PathBuf::from("/usr/share/narratoria/models"));
    candidates.push(user_data_dir().join("models"));
    candidates.push(PathBuf::from("models"));
    candidates
        .iter()
        .map(|dir| dir.join(DEFAULT_MODEL_FILE))
        .find(|c| c.is_file())
        .unwrap_or_else(|| PathBuf::from("models").join(DEFAULT_MODEL_FILE))
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
