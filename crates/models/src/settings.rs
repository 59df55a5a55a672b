//! The user's settings (`settings.json`), layered over the installed
//! program's read-only defaults: a key the user set wins, every other key
//! comes from the defaults. Only the user's file is ever written.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::ModelsError;

/// The settings key naming the model the player brings: it writes the
/// story's prose (and plans too when no planner is chosen apart).
pub const MODEL_KEY: &str = "model";

/// The settings key naming the model that plans the turns' mechanics
/// (absent: the bundled default model).
pub const PLANNER_KEY: &str = "planner";

/// The settings key holding the most tokens the writer's context may hold
/// (absent: up to 8,192, as the model and the machine's memory allow).
pub const WRITER_CONTEXT_KEY: &str = "writerContext";

/// The settings key holding how many of a model's layers go to the
/// graphics card (absent: as many as its free memory holds; 0: none).
pub const GPU_LAYERS_KEY: &str = "gpuLayers";

/// Settings read from the defaults and the user's file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    defaults: Map<String, Value>,
    user: Map<String, Value>,
    user_file: PathBuf,
}

impl Settings {
    /// Reads `defaults` (later files win; missing files count as empty) and
    /// the user's file. A damaged file is left out and named in the
    /// returned notes; it is never rewritten until the user changes a setting.
    pub fn load(defaults: &[PathBuf], user_file: &Path) -> (Settings, Vec<String>) {
        let mut notes = Vec::new();
        let mut merged = Map::new();
        for file in defaults {
            match read_object(file) {
                Ok(map) => merged.extend(map),
                Err(e) => notes.push(e.to_string()),
            }
        }
        let user = read_object(user_file).unwrap_or_else(|e| {
            notes.push(format!(
                "{e}; your settings are ignored until you change one"
            ));
            Map::new()
        });
        (
            Settings {
                defaults: merged,
                user,
                user_file: user_file.to_path_buf(),
            },
            notes,
        )
    }

    /// The value of `key`: the user's, else the default.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.user.get(key).or_else(|| self.defaults.get(key))
    }

    /// The narrator model in use, by name (see [`crate::Library::find`]).
    pub fn model(&self) -> Option<String> {
        self.get(MODEL_KEY)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// The model chosen to plan, by name.
    pub fn planner(&self) -> Option<String> {
        self.get(PLANNER_KEY)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// The most tokens the writer's context may hold, when the player set it
    /// (a positive whole number; anything else is left out).
    pub fn writer_context(&self) -> Option<u32> {
        self.get(WRITER_CONTEXT_KEY)
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
            .map(|n| n.min(u64::from(u32::MAX)) as u32)
    }

    /// The layers the player put on the graphics card, when set (a whole
    /// number; anything else is left out).
    pub fn gpu_layers(&self) -> Option<u32> {
        self.get(GPU_LAYERS_KEY)
            .and_then(Value::as_u64)
            .map(|n| n.min(u64::from(u32::MAX)) as u32)
    }

    /// Sets `key` in the user's file (`None` removes it, so the default
    /// applies again) and saves that file in one step, readable by the
    /// player alone (`0600` on Unix): a server's endpoint may hold a
    /// password (docs/security.md, "Secrets").
    pub fn set(&mut self, key: &str, value: Option<Value>) -> Result<(), ModelsError> {
        match value {
            Some(v) => self.user.insert(key.to_string(), v),
            None => self.user.remove(key),
        };
        let text = serde_json::to_string_pretty(&Value::Object(self.user.clone()))
            .expect("settings serialise");
        if let Some(dir) = self.user_file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| ModelsError::io(dir, e))?;
        }
        narratoria_fs::write_atomically(&self.user_file, (text + "\n").as_bytes(), true)
            .map_err(|e| ModelsError::io(&self.user_file, e))
    }

    /// The user's settings file.
    pub fn user_file(&self) -> &Path {
        &self.user_file
    }
}

fn read_object(file: &Path) -> Result<Map<String, Value>, ModelsError> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(e) => return Err(ModelsError::io(file, e)),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ModelsError::Settings {
            path: file.to_path_buf(),
            reason: "not a JSON object".into(),
        }),
        Err(e) => Err(ModelsError::Settings {
            path: file.to_path_buf(),
            reason: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_user_wins_and_only_the_user_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let defaults = dir.path().join("bundle/settings.json");
        std::fs::create_dir_all(defaults.parent().unwrap()).unwrap();
        std::fs::write(&defaults, r#"{"model":"smollm2","other":1}"#).unwrap();
        let user = dir.path().join("config/settings.json");
        let (mut s, notes) = Settings::load(std::slice::from_ref(&defaults), &user);
        assert!(notes.is_empty());
        assert_eq!(s.model().as_deref(), Some("smollm2"));
        s.set(MODEL_KEY, Some(json!("mine"))).unwrap();
        let (s, _) = Settings::load(std::slice::from_ref(&defaults), &user);
        assert_eq!(s.model().as_deref(), Some("mine"));
        assert_eq!(s.get("other"), Some(&json!(1)));
        let stored: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
        assert_eq!(stored, json!({"model": "mine"}));
        assert!(std::fs::read_to_string(&defaults)
            .unwrap()
            .contains("smollm2"));
        let (mut s, _) = Settings::load(std::slice::from_ref(&defaults), &user);
        s.set(MODEL_KEY, None).unwrap();
        let (s, _) = Settings::load(&[defaults], &user);
        assert_eq!(s.model().as_deref(), Some("smollm2"));
    }

    #[test]
    fn the_planner_and_the_writers_context_are_read_with_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("settings.json");
        std::fs::write(
            &user,
            r#"{"model":"big","planner":"small","writerContext":4096}"#,
        )
        .unwrap();
        let (s, _) = Settings::load(&[], &user);
        assert_eq!(s.model().as_deref(), Some("big"));
        assert_eq!(s.planner().as_deref(), Some("small"));
        assert_eq!(s.writer_context(), Some(4096));
        for odd in [
            r#"{"writerContext":0}"#,
            r#"{"writerContext":"big"}"#,
            r#"{"planner":""}"#,
        ] {
            std::fs::write(&user, odd).unwrap();
            let (s, _) = Settings::load(&[], &user);
            assert_eq!((s.planner(), s.writer_context()), (None, None), "{odd}");
        }
    }

    /// The settings may hold a server's endpoint with its password: the
    /// file is the player's alone, an older readable one too once saved.
    #[cfg(unix)]
    #[test]
    fn the_users_file_is_readable_by_the_player_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("config/settings.json");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let (mut s, _) = Settings::load(&[], &user);
        let server = json!({"endpoint": "http://me:PASSWORD@h/v1", "model": "m"});
        s.set("plannerServer", Some(server)).unwrap();
        assert_eq!(mode(&user), 0o600);
        std::fs::set_permissions(&user, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (mut s, _) = Settings::load(&[], &user);
        s.set(MODEL_KEY, Some(json!("mine"))).unwrap();
        assert_eq!(mode(&user), 0o600);
    }

    #[test]
    fn a_damaged_file_is_named_and_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("settings.json");
        std::fs::write(&user, "{not json").unwrap();
        let (s, notes) = Settings::load(&[], &user);
        assert_eq!(s.model(), None);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("settings.json"), "{notes:?}");
    }
}
