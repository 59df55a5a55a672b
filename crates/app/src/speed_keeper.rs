//! Keeps how fast a model writes in play, so that the model list shows its
//! measured speed after its first use (docs/models.md, "What this machine
//! can run").

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use narratoria_models::speeds::Speeds;

use narratoria_core::host::{Generator, Written};
use narratoria_core::protocol::{GenerateRequest, GenerationError, HostModel};

/// How often the speeds are written to disk at most while a model writes:
/// a turn's generations are counted in memory, not each one saved.
const SAVE_EVERY: Duration = Duration::from_secs(60);

/// A writer whose every request's speed is kept in the player's models
/// folder (`speeds.json`), under its model file's name: the first at once,
/// later ones at most every [`SAVE_EVERY`] and when the writer is dropped.
pub(crate) struct SpeedKeeper {
    inner: Arc<dyn Generator>,
    file: String,
    models_dir: PathBuf,
    /// The speeds as last read or added to, when they were last saved, and
    /// whether something was added since.
    kept: Mutex<Option<(Speeds, Option<Instant>, bool)>>,
}

impl SpeedKeeper {
    /// `inner`, measured as the model file `file` in `models_dir`.
    pub(crate) fn new(inner: Arc<dyn Generator>, file: String, models_dir: PathBuf) -> SpeedKeeper {
        SpeedKeeper {
            inner,
            file,
            models_dir,
            kept: Mutex::new(None),
        }
    }

    /// Adds one generation's speed; saves when none was saved yet or the
    /// last save is older than [`SAVE_EVERY`].
    fn keep(&self, tokens: u32, seconds: f64) {
        let mut kept = narratoria_core::sync::lock(&self.kept);
        let (speeds, saved, dirty) =
            kept.get_or_insert_with(|| (Speeds::load(&self.models_dir), None, false));
        if !speeds.add(&self.file, tokens, seconds) {
            return;
        }
        *dirty = true;
        if saved.is_none_or(|at| at.elapsed() >= SAVE_EVERY) {
            self.save(speeds);
            *saved = Some(Instant::now());
            *dirty = false;
        }
    }

    fn save(&self, speeds: &Speeds) {
        if let Err(e) = speeds.save(&self.models_dir) {
            tracing::warn!("the model's speed could not be kept: {e}");
        }
    }
}

impl Drop for SpeedKeeper {
    fn drop(&mut self) {
        if let Some((speeds, _, true)) = narratoria_core::sync::lock(&self.kept).as_ref() {
            self.save(speeds);
        }
    }
}

impl Generator for SpeedKeeper {
    fn offer(&self) -> HostModel {
        self.inner.offer()
    }

    fn runs_on(&self) -> Option<String> {
        self.inner.runs_on()
    }

    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        deadline: Instant,
    ) -> Result<Written, GenerationError> {
        let written = self.inner.generate(request, on_delta, cancel, deadline)?;
        self.keep(
            written.usage.completion_tokens,
            written.usage.ms as f64 / 1000.0,
        );
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_core::protocol::{FinishReason, Usage};

    struct Fixed;

    impl Generator for Fixed {
        fn offer(&self) -> HostModel {
            HostModel {
                model: "m.gguf".into(),
                context_tokens: 2048,
                max_tokens: 256,
                parameters: None,
            }
        }
        fn generate(
            &self,
            _: &GenerateRequest,
            on_delta: &mut dyn FnMut(&str),
            _: &Arc<AtomicBool>,
            _: Instant,
        ) -> Result<Written, GenerationError> {
            on_delta("words");
            Ok(Written {
                text: "words".into(),
                finish_reason: FinishReason::Stop,
                usage: Usage {
                    prompt_tokens: 10,
                    cached_tokens: 0,
                    completion_tokens: 40,
                    ms: 4_000,
                },
            })
        }
    }

    #[test]
    fn every_request_keeps_the_models_speed() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = SpeedKeeper::new(Arc::new(Fixed), "m.gguf".into(), dir.path().to_path_buf());
        let request: GenerateRequest = serde_json::from_value(serde_json::json!({
            "id": "1", "messages": [{"role": "user", "content": "go"}], "maxTokens": 40
        }))
        .unwrap();
        let mut text = String::new();
        keeper
            .generate(
                &request,
                &mut |d| text.push_str(d),
                &Arc::new(AtomicBool::new(false)),
                Instant::now(),
            )
            .unwrap();
        assert_eq!(text, "words");
        let speeds = narratoria_models::speeds::Speeds::load(dir.path());
        assert_eq!(speeds.of("m.gguf"), Some(10.0));

        // A second generation soon after is counted in memory, and saved
        // when the writer goes.
        keeper
            .generate(
                &request,
                &mut |_| {},
                &Arc::new(AtomicBool::new(false)),
                Instant::now(),
            )
            .unwrap();
        let on_disk = narratoria_models::speeds::Speeds::load(dir.path());
        assert_eq!(on_disk.0["m.gguf"].samples, 1);
        drop(keeper);
        let on_disk = narratoria_models::speeds::Speeds::load(dir.path());
        assert_eq!(on_disk.0["m.gguf"].samples, 2);
    }
}
