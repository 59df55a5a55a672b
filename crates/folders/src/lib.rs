//! Where Narratoria keeps a user's files, and the default model's file name.
//!
//! The platform's conventions come from the `directories` crate (on Linux
//! the XDG base directories: `$XDG_DATA_HOME`, `$XDG_CONFIG_HOME`,
//! `$XDG_STATE_HOME`, with their `~/.local/share`, `~/.config` and
//! `~/.local/state` defaults). `NARRATORIA_HOME`, when set and not empty,
//! moves everything into that one folder.

use std::path::PathBuf;

use directories::ProjectDirs;

/// The default model's file name, in a `models/` folder (fetched by
/// scripts/fetch-model.sh or `narratoria models download smollm2`).
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// The user's data folder: `$NARRATORIA_HOME`, else the platform's data
/// folder for Narratoria (`~/.local/share/narratoria`), else a folder under
/// the temp dir.
pub fn user_data_dir() -> PathBuf {
    Folders::from_env().data
}

/// The user's settings folder: `$NARRATORIA_HOME`, else the platform's
/// config folder for Narratoria (`~/.config/narratoria`), else the data folder.
pub fn user_config_dir() -> PathBuf {
    Folders::from_env().config
}

/// The user's settings file: `settings.json` in [`user_config_dir`].
pub fn settings_file() -> PathBuf {
    user_config_dir().join("settings.json")
}

/// Where log files go: `$NARRATORIA_HOME/logs`, else `logs` in the
/// platform's state folder for Narratoria (`~/.local/state/narratoria/logs`),
/// else `logs` in the data folder.
pub fn user_log_dir() -> PathBuf {
    Folders::from_env().logs
}

/// The user's own models folder: `models` in the data folder.
pub fn user_models_dir() -> PathBuf {
    user_data_dir().join("models")
}

/// Where skills keep data when their own folder is read-only (an installed package).
pub fn skills_data_dir() -> PathBuf {
    user_data_dir().join("skill-data")
}

/// The user's folders, resolved together.
struct Folders {
    data: PathBuf,
    config: PathBuf,
    logs: PathBuf,
}

impl Folders {
    fn from_env() -> Folders {
        let home = std::env::var_os("NARRATORIA_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        Folders::resolve(home, ProjectDirs::from("", "", "narratoria").as_ref())
    }

    /// `home` (NARRATORIA_HOME) holds everything; else the platform's folders.
    fn resolve(home: Option<PathBuf>, project: Option<&ProjectDirs>) -> Folders {
        if let Some(home) = home {
            return Folders {
                data: home.clone(),
                config: home.clone(),
                logs: home.join("logs"),
            };
        }
        let data = project
            .map(|p| p.data_dir().to_path_buf())
            .unwrap_or_else(|| std::env::temp_dir().join("narratoria"));
        Folders {
            config: project.map_or_else(|| data.clone(), |p| p.config_dir().to_path_buf()),
            logs: project
                .and_then(|p| p.state_dir().map(|d| d.to_path_buf()))
                .unwrap_or_else(|| data.clone())
                .join("logs"),
            data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narratoria_home_holds_everything() {
        let f = Folders::resolve(Some(PathBuf::from("/n/home")), None);
        assert_eq!(f.data, PathBuf::from("/n/home"));
        assert_eq!(f.config, PathBuf::from("/n/home"));
        assert_eq!(f.logs, PathBuf::from("/n/home/logs"));
    }

    #[test]
    fn the_platform_folders_are_named_for_narratoria() {
        let Some(project) = ProjectDirs::from("", "", "narratoria") else {
            return;
        };
        let f = Folders::resolve(None, Some(&project));
        assert!(f.data.ends_with("narratoria"), "{:?}", f.data);
        assert!(f.config.ends_with("narratoria"), "{:?}", f.config);
        assert!(f.logs.ends_with("narratoria/logs"), "{:?}", f.logs);
        let none = Folders::resolve(None, None);
        assert_eq!(none.logs, none.data.join("logs"));
    }
}
