//! The narrator: which model plans the turns and which one writes their
//! prose (docs/models.md, "Roles").

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_core::host::Generator;
use narratoria_core::narration::{AnswerLength, WriterProfile};
use narratoria_core::planner::Planner;
use narratoria_core::rules::RulePlanner;
use narratoria_core::sync;

use crate::planner::{self, Progress};
use crate::roles::{self, Given, Roles};
use crate::{locate, App, AppError, ModelInfo};

/// A second model that writes the prose, beside the planner.
#[derive(Clone)]
pub(crate) struct LoadedWriter {
    /// Lent to skills as the host's model.
    pub generator: Arc<dyn Generator>,
    /// Its GGUF file (the planner's when one model does both and the
    /// writer was only wrapped, see [`App::lend_writer`]).
    pub path: Option<PathBuf>,
}

use crate::speed_keeper::SpeedKeeper;

impl App {
    /// Loads the models of this run and uses them from the next turn on:
    /// `path` (when given) plans and writes unless a writer was given on the
    /// command line; otherwise the player's roles apply ([`roles::for_run`]:
    /// the chosen planner or the default model plans, the chosen writer
    /// writes). With no model file at the default place, the rule-based
    /// planner stays, and that is not an error.
    pub fn load_model(
        &self,
        path: Option<&Path>,
        progress: Option<Progress>,
    ) -> Result<ModelInfo, AppError> {
        let given = Given {
            model: path.map(Path::to_path_buf),
            ..Given::default()
        };
        self.load_roles(&roles::for_run(&given, None), progress)
    }

    /// Loads `roles`' planner (the rule-based planner when it has none) and,
    /// when another model writes, that one too (its prose context only);
    /// the planner plans the turns, the writer is lent to skills. One
    /// progress callback covers both loads, shared by file size.
    pub fn load_roles(
        &self,
        roles: &Roles,
        progress: Option<Progress>,
    ) -> Result<ModelInfo, AppError> {
        let planner_file = roles::planner_file(roles)?;
        let writer_file = roles::writer_file(roles)?;
        let size = |p: &Option<PathBuf>| {
            p.as_ref()
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len()) as f32
        };
        let (planner_size, writer_size) = (size(&planner_file), size(&writer_file));
        let share = if writer_size > 0.0 {
            planner_size / (planner_size + writer_size)
        } else {
            1.0
        };
        let (planner_progress, writer_progress) = planner::split_progress(progress, share);
        // A role given to an external server is not loaded in the process.
        let servers = crate::servers::chosen();
        let (planner_file, writer_file) = (
            planner_file.filter(|_| servers.planner.is_none()),
            writer_file.filter(|_| servers.writer.is_none()),
        );
        let p: Arc<dyn Planner> = match (&servers.planner, &planner_file) {
            (Some(server), _) => crate::servers::planner(server, &self.server_waits)?,
            (None, planner_file) => match planner_file {
                // With no second writer the planner's model writes too.
                Some(file) => planner::load_file(
                    file,
                    planner_progress,
                    writer_file.is_none().then_some(roles.writer_context),
                )?,
                None => Arc::new(RulePlanner),
            },
        };
        // Whichever model writes, its speed in play is kept.
        let measured = |generator: Arc<dyn Generator>, file: &PathBuf| LoadedWriter {
            generator: Arc::new(SpeedKeeper::new(
                generator,
                file.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                locate::user_models_dir(),
            )),
            path: Some(file.clone()),
        };
        let writer = match (&writer_file, &planner_file) {
            _ if servers.writer.is_some() => servers
                .writer
                .as_ref()
                .map(|server| {
                    crate::servers::writer(server, &self.server_waits).map(|generator| {
                        LoadedWriter {
                            generator,
                            path: None,
                        }
                    })
                })
                .transpose()?,
            (Some(file), _) => planner::load_writer(file, roles.writer_context, writer_progress)?
                .map(|generator| measured(generator, file)),
            (None, Some(file)) => Arc::clone(&p).generator().map(|g| measured(g, file)),
            (None, None) => None,
        };
        p.warm_up(
            &self.registry.snapshot(),
            Instant::now() + Duration::from_secs(60),
        );
        self.set_models(p, planner_file, writer);
        Ok(self.model_info())
    }

    /// Uses `planner` to plan from the next turn on and `writer` (when
    /// given) to write; without a writer the planner's own model writes.
    pub(crate) fn set_models(
        &self,
        planner: Arc<dyn Planner>,
        path: Option<PathBuf>,
        writer: Option<LoadedWriter>,
    ) {
        *sync::write(&self.planner) = planner;
        *sync::write(&self.model_path) = path;
        *sync::write(&self.writer) = writer;
    }

    /// The models in use.
    pub fn model_info(&self) -> ModelInfo {
        let planner = self.planner();
        let path = sync::read(&self.model_path).clone();
        let writer = sync::read(&self.writer).clone();
        let shared = writer.as_ref().is_none_or(|w| w.path == path);
        let writer_path = self.writer_file();
        let writer_generator = self.writer_generator();
        let offer = writer_generator.as_ref().map(|g| g.offer());
        let planner_generator = Arc::clone(&planner).generator();
        let planner_offer = planner_generator.as_ref().map(|g| g.offer());
        ModelInfo {
            planner: planner.name(),
            path,
            planner_parameters: planner_offer.and_then(|o| o.parameters),
            default_path: locate::default_model_path(),
            writer: offer
                .as_ref()
                .map_or_else(|| "none".to_string(), |o| o.model.clone()),
            writer_path: offer.as_ref().and(writer_path),
            shared,
            writer_parameters: offer.as_ref().and_then(|o| o.parameters),
            writer_context: offer.as_ref().map(|o| o.context_tokens),
            writer_profile: offer.as_ref().map(|o| {
                WriterProfile::local(o.parameters, o.context_tokens, AnswerLength::default())
                    .describe()
            }),
            planner_runs_on: planner_generator.and_then(|g| g.runs_on()),
            writer_runs_on: writer_generator.and_then(|g| g.runs_on()),
        }
    }

    /// The model file that writes the story: the writer's, else the
    /// planner's own; `None` for a server or the rule-based planner.
    pub(crate) fn writer_file(&self) -> Option<std::path::PathBuf> {
        match &*sync::read(&self.writer) {
            Some(w) => w.path.clone(),
            None => sync::read(&self.model_path).clone(),
        }
    }

    /// The current planner.
    pub fn planner(&self) -> Arc<dyn Planner> {
        Arc::clone(&sync::read(&self.planner))
    }

    /// The model lent to skills to write: the writer when another model
    /// writes, else the planner's own model; `None` with no model at all.
    pub fn writer_generator(&self) -> Option<Arc<dyn Generator>> {
        match &*sync::read(&self.writer) {
            Some(w) => Some(Arc::clone(&w.generator)),
            None => self.planner().generator(),
        }
    }

    /// Lends `generator` to skills from the next turn on in place of the
    /// writer (a measuring wrapper around [`App::writer_generator`], as the
    /// turn benchmark does); the planner stays.
    pub fn lend_writer(&self, generator: Arc<dyn Generator>) {
        let mut writer = sync::write(&self.writer);
        let path = match &*writer {
            Some(w) => w.path.clone(),
            None => sync::read(&self.model_path).clone(),
        };
        *writer = Some(LoadedWriter { generator, path });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    use narratoria_core::host::Written;
    use narratoria_core::planner::{PlanOutcome, PlanRequest, PlannerError};
    use narratoria_core::protocol::{
        FinishReason, GenerateRequest, GenerationError, HostModel, Usage,
    };

    use crate::{AppConfig, SessionDb, SkillChoices};

    /// A model by name, writing its own name.
    struct Named(&'static str, u64);

    impl Generator for Named {
        fn offer(&self) -> HostModel {
            HostModel {
                model: self.0.to_string(),
                context_tokens: 4096,
                max_tokens: 512,
                parameters: Some(self.1),
            }
        }
        fn generate(
            &self,
            _: &GenerateRequest,
            on_delta: &mut dyn FnMut(&str),
            _: &Arc<AtomicBool>,
            _: Instant,
        ) -> Result<Written, GenerationError> {
            on_delta(self.0);
            Ok(Written {
                text: self.0.to_string(),
                finish_reason: FinishReason::Stop,
                usage: Usage {
                    prompt_tokens: 0,
                    cached_tokens: 0,
                    completion_tokens: 0,
                    ms: 0,
                },
            })
        }
    }

    impl Planner for Named {
        fn name(&self) -> String {
            self.0.to_string()
        }
        fn plan(
            &self,
            request: &PlanRequest<'_>,
            on: &mut dyn FnMut(&str),
        ) -> Result<PlanOutcome, PlannerError> {
            RulePlanner.plan(request, on)
        }
        fn generator(self: Arc<Self>) -> Option<Arc<dyn Generator>> {
            Some(self)
        }
    }

    fn app(dir: &Path) -> App {
        std::fs::create_dir_all(dir.join("skills")).unwrap();
        App::open(AppConfig {
            skill_roots: vec![dir.join("skills")],
            session_db: SessionDb::Memory,
            skills_state: SkillChoices::ReadOnly(dir.join("state.json")),
            ..AppConfig::default()
        })
        .unwrap()
    }

    /// The planner plans and the writer is what skills are lent; without a
    /// writer the planner's model is lent; a measuring wrapper replaces the
    /// lent model and leaves the planner.
    #[test]
    fn the_planner_plans_and_the_writer_is_lent_to_skills() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        assert_eq!(app.model_info().planner, "rules");
        assert_eq!(app.model_info().writer, "none");
        assert!(app.writer_generator().is_none());

        let small = Arc::new(Named("small.gguf", 134_515_008));
        let big = Arc::new(Named("big.gguf", 1_543_714_304));
        app.set_models(
            small.clone(),
            Some(dir.path().join("small.gguf")),
            Some(LoadedWriter {
                generator: big.clone(),
                path: Some(dir.path().join("big.gguf")),
            }),
        );
        assert_eq!(app.planner().name(), "small.gguf");
        let lent = app.exec_options_at(Default::default()).host.generator;
        assert_eq!(lent.unwrap().offer().model, "big.gguf");
        let info = app.model_info();
        assert_eq!(info.planner, "small.gguf");
        assert_eq!(info.planner_parameters, Some(134_515_008));
        assert_eq!(info.writer, "big.gguf");
        assert_eq!(info.writer_path, Some(dir.path().join("big.gguf")));
        assert!(!info.shared);
        assert_eq!(info.writer_parameters, Some(1_543_714_304));
        assert!(
            info.writer_profile
                .as_deref()
                .unwrap()
                .starts_with("medium writer"),
            "{info:?}"
        );

        // One model does both.
        app.set_models(small.clone(), Some(dir.path().join("small.gguf")), None);
        let lent = app.exec_options_at(Default::default()).host.generator;
        assert_eq!(lent.unwrap().offer().model, "small.gguf");
        let info = app.model_info();
        assert!(info.shared);
        assert_eq!(info.writer_path, Some(dir.path().join("small.gguf")));
        assert!(info.writer_profile.unwrap().starts_with("small writer"));

        // A wrapper lent in its place: the planner stays.
        app.lend_writer(Arc::new(Named("measured", 1)));
        assert_eq!(app.planner().name(), "small.gguf");
        assert_eq!(app.writer_generator().unwrap().offer().model, "measured");
    }
}
