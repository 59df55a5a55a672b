//! Which planner a command uses: the llama.cpp narrator with a model, or the
//! rule-based planner when no model is present.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use narratoria_core::planner::Planner;
use narratoria_core::rules::RulePlanner;
use narratoria_core::ErrorCode;

pub use crate::locate::{default_model_path, DEFAULT_MODEL_FILE};
pub use narratoria_core::planner::Progress;

use crate::AppError;

/// The model file to load: the one given (an error when it does not exist),
/// else the default model when present. `None` means the rule-based planner,
/// which is then said once on stderr.
pub fn choose_model(model: Option<&Path>) -> Result<Option<PathBuf>, AppError> {
    let path = model
        .map(Path::to_path_buf)
        .unwrap_or_else(default_model_path);
    if path.exists() {
        return Ok(Some(path));
    }
    if model.is_some() {
        return Err(AppError::new(
            ErrorCode::ModelUnusable,
            format!("model file {} does not exist", path.display()),
        ));
    }
    eprintln!(
        "narratoria: no model at {}; using the rule-based planner (run scripts/fetch-model.sh for the default model)",
        path.display()
    );
    Ok(None)
}

/// Opens the planner: the model given (an unusable one is an error), else the
/// default model if present, else the rule-based planner (said on stderr).
pub fn open(
    model: Option<&Path>,
    progress: Option<Progress>,
) -> Result<Arc<dyn Planner>, AppError> {
    match choose_model(model)? {
        Some(path) => load_file(&path, progress),
        None => Ok(Arc::new(RulePlanner)),
    }
}

/// Loads the narrator from a GGUF file; an unusable file is an error.
pub(crate) fn load_file(
    path: &Path,
    progress: Option<Progress>,
) -> Result<Arc<dyn Planner>, AppError> {
    load(path, progress).map_err(|e| AppError::new(ErrorCode::ModelUnusable, e))
}

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
    let options = LoadOptions {
        on_progress: progress,
        ..LoadOptions::default()
    };
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
