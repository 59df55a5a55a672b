//! How fast each model wrote in play on this machine: kept in the player's
//! models folder (`speeds.json`) so that the model list shows a measured
//! speed after a model's first use (docs/models.md, "What this machine can
//! run").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file's name inside the player's models folder.
pub const FILE: &str = "speeds.json";
/// The most bytes the file is read up to (it holds a line per model).
const MAX_BYTES: u64 = 1 << 20;
/// A measurement's weight against the average so far: recent turns count
/// most, one slow turn does not decide.
const NEW_WEIGHT: f64 = 0.3;
/// Fewer tokens than this say little about a speed and are not kept.
pub const MIN_TOKENS: u32 = 8;

/// One model's speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Speed {
    /// Tokens written per second (prompt reading included: what a player
    /// waits for), averaged over recent uses.
    pub tokens_per_second: f64,
    /// How many uses were measured.
    pub samples: u32,
}

/// Every model's measured speed, by model file name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Speeds(pub BTreeMap<String, Speed>);

fn path(models_dir: &Path) -> PathBuf {
    models_dir.join(FILE)
}

impl Speeds {
    /// The speeds kept in `models_dir`; none when there is no file or it
    /// cannot be read (a broken file is replaced at the next measurement).
    pub fn load(models_dir: &Path) -> Speeds {
        narratoria_fs::read_regular(&path(models_dir), MAX_BYTES)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// The speed of the model file called `file`, when measured.
    pub fn of(&self, file: &str) -> Option<f64> {
        self.0.get(file).map(|s| s.tokens_per_second)
    }

    /// Adds one use of `file` that wrote `tokens` in `seconds`. A use too
    /// short to say anything is left out.
    pub fn add(&mut self, file: &str, tokens: u32, seconds: f64) -> bool {
        if tokens < MIN_TOKENS || seconds.is_nan() || seconds <= 0.0 || !seconds.is_finite() {
            return false;
        }
        let now = f64::from(tokens) / seconds;
        let speed = self.0.entry(file.to_string()).or_insert(Speed {
            tokens_per_second: now,
            samples: 0,
        });
        if speed.samples > 0 {
            speed.tokens_per_second += NEW_WEIGHT * (now - speed.tokens_per_second);
        }
        speed.samples = speed.samples.saturating_add(1);
        true
    }

    /// Writes the speeds to `models_dir` in one step.
    pub fn save(&self, models_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(models_dir)?;
        let text = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        narratoria_fs::write_atomically(&path(models_dir), &text, false)
    }
}

/// Keeps one use of `file` in `models_dir`'s speeds ([`Speeds::add`]).
pub fn record(models_dir: &Path, file: &str, tokens: u32, seconds: f64) -> std::io::Result<()> {
    let mut speeds = Speeds::load(models_dir);
    if speeds.add(file, tokens, seconds) {
        speeds.save(models_dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speed_is_kept_averaged_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        record(dir.path(), "m.gguf", 100, 10.0).unwrap();
        assert_eq!(Speeds::load(dir.path()).of("m.gguf"), Some(10.0));
        record(dir.path(), "m.gguf", 200, 10.0).unwrap();
        let speeds = Speeds::load(dir.path());
        assert!((speeds.of("m.gguf").unwrap() - 13.0).abs() < 1e-9);
        assert_eq!(speeds.0["m.gguf"].samples, 2);
        assert_eq!(speeds.of("other.gguf"), None);
    }

    #[test]
    fn a_use_too_short_or_a_broken_file_changes_nothing_it_should_not() {
        let dir = tempfile::tempdir().unwrap();
        record(dir.path(), "m.gguf", 3, 1.0).unwrap();
        record(dir.path(), "m.gguf", 30, 0.0).unwrap();
        assert!(!dir.path().join(FILE).exists());
        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        assert_eq!(Speeds::load(dir.path()), Speeds::default());
        record(dir.path(), "m.gguf", 30, 3.0).unwrap();
        assert_eq!(Speeds::load(dir.path()).of("m.gguf"), Some(10.0));
    }
}
