//! Which planner a command uses: the llama.cpp narrator with a model, or the
//! rule-based planner when no model is present; and the model that writes
//! when it is another one (docs/models.md, "Roles").

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use narratoria_core::host::Generator;
use narratoria_core::planner::Planner;
use narratoria_core::rules::RulePlanner;
use narratoria_core::ErrorCode;

pub use crate::locate::{default_model_path, DEFAULT_MODEL_FILE};
pub use narratoria_core::planner::Progress;

use crate::roles::{self, Given};
use crate::AppError;

/// The model file that plans: the one given (an error when it does not
/// exist), else the planner of this run's roles ([`roles::for_run`]: the
/// chosen planner, else the default model) when present. `None` means the
/// rule-based planner, which is then said once on stderr.
pub fn choose_model(model: Option<&Path>) -> Result<Option<PathBuf>, AppError> {
    let given = Given {
        model: model.map(Path::to_path_buf),
        ..Given::default()
    };
    roles::planner_file(&roles::for_run(&given, None))
}

/// Opens the planner: the model given (an unusable one is an error), else the
/// default model if present, else the rule-based planner (said on stderr).
pub fn open(
    model: Option<&Path>,
    progress: Option<Progress>,
) -> Result<Arc<dyn Planner>, AppError> {
    match choose_model(model)? {
        Some(path) => load_file(&path, progress, None),
        None => Ok(Arc::new(RulePlanner)),
    }
}

/// Loads the narrator from a GGUF file; an unusable file is an error.
/// `writes`: it is also the writer, its prose context as large as the
/// model, the bound given (8,192 when `None`) and the memory allow.
pub(crate) fn load_file(
    path: &Path,
    progress: Option<Progress>,
    writes: Option<Option<u32>>,
) -> Result<Arc<dyn Planner>, AppError> {
    load(path, progress, writes).map_err(|e| AppError::new(ErrorCode::ModelUnusable, e))
}

/// Loads a model that only writes (lent to skills, never planning), its
/// prose context bounded by `cap` (8,192 when `None`) and the memory.
pub(crate) fn load_writer(
    path: &Path,
    cap: Option<u32>,
    progress: Option<Progress>,
) -> Result<Option<Arc<dyn Generator>>, AppError> {
    writer(path, cap, progress).map_err(|e| AppError::new(ErrorCode::ModelUnusable, e))
}

/// One progress callback for two loads one after the other: the first
/// reports over `0 ..= first_share`, the second over the rest.
pub(crate) fn split_progress(
    progress: Option<Progress>,
    first_share: f32,
) -> (Option<Progress>, Option<Progress>) {
    let Some(progress) = progress else {
        return (None, None);
    };
    let share = first_share.clamp(0.0, 1.0);
    let shared = Arc::new(Mutex::new(progress));
    let second = Arc::clone(&shared);
    (
        Some(Box::new(move |p: f32| {
            (narratoria_core::sync::lock(&shared))(p.clamp(0.0, 1.0) * share)
        })),
        Some(Box::new(move |p: f32| {
            (narratoria_core::sync::lock(&second))(share + p.clamp(0.0, 1.0) * (1.0 - share))
        })),
    )
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
fn load(
    path: &Path,
    progress: Option<Progress>,
    writes: Option<Option<u32>>,
) -> Result<Arc<dyn Planner>, String> {
    use narratoria_narrator::planner::WRITER_CONTEXT_DEFAULT;
    use narratoria_narrator::{LlamaPlanner, LoadOptions};
    let options = LoadOptions {
        on_progress: progress,
        prose_ctx_cap: writes.map(|cap| cap.unwrap_or(WRITER_CONTEXT_DEFAULT)),
        gpu_layers: chosen_gpu_layers(),
        ..LoadOptions::default()
    };
    let planner = LlamaPlanner::load(path, options).map_err(|e| e.to_string())?;
    Ok(Arc::new(planner))
}

#[cfg(feature = "llama")]
fn writer(
    path: &Path,
    cap: Option<u32>,
    progress: Option<Progress>,
) -> Result<Option<Arc<dyn Generator>>, String> {
    use narratoria_narrator::{LlamaPlanner, LoadOptions};
    let options = LoadOptions {
        on_progress: progress,
        gpu_layers: chosen_gpu_layers(),
        ..LoadOptions::writer(cap)
    };
    let writer = LlamaPlanner::load(path, options).map_err(|e| e.to_string())?;
    Ok(Some(Arc::new(writer)))
}

/// The graphics card the narrator's GPU backend finds (`None` in a build
/// without one, or with no card).
pub fn gpu() -> Option<narratoria_models::machine::Gpu> {
    #[cfg(feature = "llama")]
    {
        narratoria_narrator::gpu::gpu()
    }
    #[cfg(not(feature = "llama"))]
    {
        None
    }
}

/// The layers the player put on the graphics card (`NARRATORIA_GPU_LAYERS`,
/// else the settings' `gpuLayers`; `None`: as many as fit).
#[cfg(feature = "llama")]
fn chosen_gpu_layers() -> Option<u32> {
    narratoria_narrator::gpu::chosen_layers(crate::locate::settings(None).gpu_layers())
}

#[cfg(not(feature = "llama"))]
fn load(
    path: &Path,
    _progress: Option<Progress>,
    _writes: Option<Option<u32>>,
) -> Result<Arc<dyn Planner>, String> {
    eprintln!(
        "narratoria: this build has no llama.cpp narrator; ignoring {} and using the rule-based planner",
        path.display()
    );
    Ok(Arc::new(RulePlanner))
}

#[cfg(not(feature = "llama"))]
fn writer(
    path: &Path,
    _cap: Option<u32>,
    _progress: Option<Progress>,
) -> Result<Option<Arc<dyn Generator>>, String> {
    eprintln!(
        "narratoria: this build has no llama.cpp narrator; ignoring the writer {}",
        path.display()
    );
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_loads_share_one_progress_bar() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let bar: Progress = Box::new(move |p| into.lock().unwrap().push(p));
        let (first, second) = split_progress(Some(bar), 0.25);
        let (mut first, mut second) = (first.unwrap(), second.unwrap());
        first(0.0);
        first(1.0);
        second(0.0);
        second(1.0);
        assert_eq!(*seen.lock().unwrap(), vec![0.0, 0.25, 0.25, 1.0]);
        assert!(split_progress(None, 0.5).0.is_none());
    }
}
