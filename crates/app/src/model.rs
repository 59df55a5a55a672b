//! The narrator: which model plans the turns.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_core::planner::Planner;
use narratoria_core::rules::RulePlanner;
use narratoria_core::sync;

use crate::planner::{self, Progress};
use crate::{locate, App, AppError, ModelInfo};

impl App {
    /// Loads a GGUF model (the default one when `path` is `None`) and uses it
    /// from the next turn on. With no model file at the default place, the
    /// rule-based planner stays, and that is not an error.
    pub fn load_model(
        &self,
        path: Option<&Path>,
        progress: Option<Progress>,
    ) -> Result<ModelInfo, AppError> {
        let chosen = planner::choose_model(path)?;
        let p: Arc<dyn Planner> = match &chosen {
            Some(file) => planner::load_file(file, progress)?,
            None => Arc::new(RulePlanner),
        };
        p.warm_up(
            &self.registry.snapshot(),
            Instant::now() + Duration::from_secs(60),
        );
        *sync::write(&self.planner) = p;
        *sync::write(&self.model_path) = chosen;
        Ok(self.model_info())
    }

    /// The narrator in use.
    pub fn model_info(&self) -> ModelInfo {
        ModelInfo {
            planner: sync::read(&self.planner).name(),
            path: sync::read(&self.model_path).clone(),
            default_path: locate::default_model_path(),
        }
    }

    /// The current planner.
    pub fn planner(&self) -> Arc<dyn Planner> {
        Arc::clone(&sync::read(&self.planner))
    }
}
