//! Which planner a command uses: the llama.cpp narrator with a model, or the
//! rule-based planner when no model is present.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use narratoria_core::planner::Planner;
use narratoria_core::rules::RulePlanner;
use narratoria_core::ErrorCode;

use crate::AppError;

/// The default model file's name.
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// Where the default model is looked for: `$NARRATORIA_MODEL`, a `models/`
/// folder beside or above the executable, the source checkout it was built
/// from, the installed share folder, the user's data folder, `./models`.
pub fn default_model_path() -> PathBuf {
    if let Some(p) = std::env::var_os("NARRATORIA_MODEL").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) {
        for dir in exe.ancestors().skip(1).take(5) {
            candidates.push(dir.join("models").join(DEFAULT_MODEL_FILE));
            candidates.push(dir.join("share/narratoria/models").join(DEFAULT_MODEL_FILE));
        }
    }
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../models")
            .join(DEFAULT_MODEL_FILE),
    );
    candidates.push(PathBuf::from("/usr/share/narratoria/models").join(DEFAULT_MODEL_FILE));
    candidates.push(
        narratoria_core::paths::user_data_dir()
            .join("models")
            .join(DEFAULT_MODEL_FILE),
    );
    candidates.push(PathBuf::from("models").join(DEFAULT_MODEL_FILE));
    candidates
        .iter()
        .find(|c| c.is_file())
        .cloned()
        .unwrap_or_else(|| PathBuf::from("models").join(DEFAULT_MODEL_FILE))
}

/// Opens the planner: the model given (an unusable one is an error), else the
/// default model if present, else the rule-based planner (said on stderr).
pub fn open(
    model: Option<&Path>,
    progress: Option<Progress>,
) -> Result<Arc<dyn Planner>, AppError> {
    let explicit = model.is_some();
    let path = model
        .map(Path::to_path_buf)
        .unwrap_or_else(default_model_path);
    if !path.exists() {
        if explicit {
            return Err(AppError::new(
                ErrorCode::ModelUnusable,
                format!("model file {} does not exist", path.display()),
            ));
        }
        eprintln!(
            "narratoria: no model at {}; using the rule-based planner (run scripts/fetch-model.sh for the default model)",
            path.display()
        );
        return Ok(Arc::new(RulePlanner));
    }
    load(&path, progress).map_err(|e| AppError::new(ErrorCode::ModelUnusable, e))
}

/// Receives model-loading progress, 0.0 ..= 1.0.
pub type Progress = Box<dyn FnMut(f32) + Send>;

/// A progress callback drawing a bar on stderr (a terminal), or saying once
/// that the model is loading (a log).
pub fn stderr_progress_bar() -> Progress {
    use std::io::{IsTerminal, Write};
    let terminal = std::io::stderr().is_terminal();
    let mut last = -1i32;
    Box::new(move |p: f32| {
        let step = (p.clamp(0.0, 1.0) * 20.0) as i32;
        if step == last {
            return;
        }
        let first = last < 0;
        last = step;
        let mut err = std::io::stderr().lock();
        if terminal {
            let filled = step as usize;
            let _ = write!(
                err,
                "\rLoading model [{}{}] {:>3}%",
                "#".repeat(filled),
                " ".repeat(20 - filled),
                step * 5
            );
            if step >= 20 {
                let _ = writeln!(err);
            }
        } else if first {
            let _ = writeln!(err, "narratoria: loading the model…");
        }
        let _ = err.flush();
    })
}

#[cfg(feature = "llama")]
fn load(path: &Path, progress: Option<Progress>) -> Result<Arc<dyn Planner>, String> {
    use narratoria_narrator::{LlamaPlanner, LoadOptions};
    let mut options = LoadOptions::default();
    options.on_progress = progress;
    let planner = LlamaPlanner::load(path, options).map_err(|e| e.to_string())?;
    Ok(Arc::new(planner))
}

#[cfg(not(feature = "llama"))]
fn load(path: &Path, _progress: Option<Progress>) -> Result<Arc<dyn Planner>, String> {
    eprintln!(
        "narratoria: this build has no llama.cpp narrator; ignoring {} and using the rule-based planner",
        path.display()
    );
    Ok(Arc::new(RulePlanner))
}
