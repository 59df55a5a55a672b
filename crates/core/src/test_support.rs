//! What the engine's own tests share: script skills written on the fly and
//! a stand-in for the host's model (the engine has no language model).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::host::{Generator, Written};
use crate::protocol::{FinishReason, GenerateRequest, GenerationError, HostModel, Usage};

/// The input schema of built-in `skill`'s `script` as it ships
/// (skills/SKILL/skill.json): what the host's inputs are held to.
pub(crate) fn shipped_input_schema(skill: &str, script: &str) -> serde_json::Value {
    let path = format!(
        "{}/../../skills/{skill}/skill.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    manifest["scripts"][script]["inputSchema"].clone()
}

/// The storyteller's `narrate` input schema as the skill ships it.
pub(crate) fn storyteller_input_schema() -> serde_json::Value {
    shipped_input_schema("storyteller", "narrate")
}

/// Writes skill `name` under `root` with one shell script, `script`, that
/// reads its envelope into `$env` and runs `body`; `manifest_extra` is
/// spliced into `skill.json` (e.g. `,"capabilities":["generate"]`).
/// Returns the skill's folder.
pub(crate) fn script_skill(
    root: &Path,
    name: &str,
    script: &str,
    manifest_extra: &str,
    body: &str,
) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("skill.json"),
        format!(r#"{{"name":"{name}","version":"1.0.0","description":"d"{manifest_extra}}}"#),
    )
    .unwrap();
    let path = dir.join("scripts").join(format!("{script}.sh"));
    std::fs::write(&path, format!("#!/bin/sh\nread -r env\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// The host's model as tests need it: writes "The goblin falls." whatever
/// it is asked.
pub(crate) struct Scribe;

impl Generator for Scribe {
    fn offer(&self) -> HostModel {
        HostModel {
            model: "scribe.gguf".into(),
            context_tokens: 2048,
            max_tokens: 64,
            parameters: None,
        }
    }

    fn generate(
        &self,
        _: &GenerateRequest,
        _: &mut dyn FnMut(&str),
        _: &Arc<AtomicBool>,
        _: Instant,
    ) -> Result<Written, GenerationError> {
        Ok(Written {
            text: "The goblin falls.".into(),
            finish_reason: FinishReason::Stop,
            usage: Usage {
                prompt_tokens: 5,
                cached_tokens: 0,
                completion_tokens: 4,
                ms: 1,
            },
        })
    }
}
