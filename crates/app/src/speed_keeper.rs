//! Keeps how fast a model writes in play, so that the model list shows its
//! measured speed after its first use (docs/models.md, "What this machine
//! can run").

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use narratoria_core::host::{Generator, Written};
use narratoria_core::protocol::{GenerateRequest, GenerationError, HostModel};

/// A writer whose every request's speed is kept in the player's models
/// folder (`speeds.json`), under its model file's name.
pub(crate) struct SpeedKeeper {
    inner: Arc<dyn Generator>,
    file: String,
    models_dir: PathBuf,
}

impl SpeedKeeper {
    /// `inner`, measured as the model file `file` in `models_dir`.
    pub(crate) fn new(inner: Arc<dyn Generator>, file: String, models_dir: PathBuf) -> SpeedKeeper {
        SpeedKeeper {
            inner,
            file,
            models_dir,
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
        let seconds = written.usage.ms as f64 / 1000.0;
        if let Err(e) = narratoria_models::speeds::record(
            &self.models_dir,
            &self.file,
            written.usage.completion_tokens,
            seconds,
        ) {
            tracing::warn!("the model's speed could not be kept: {e}");
        }
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
    }
}
