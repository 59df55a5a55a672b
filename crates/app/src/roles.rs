//! Which model plans and which one writes (docs/models.md, "Roles").
//!
//! Two roles: the **planner** decides each turn's mechanics (which rules
//! tools run with which inputs), the **writer** writes the story's prose
//! (it is the model lent to skills, docs/protocol.md "Host generation").
//! By default the bundled small model plans and the model the player
//! brings (`narratoria models use NAME`) writes; one model does both when
//! the player says so (`--role both`), when nothing else is chosen, or when
//! a model is given for the run (`--model`, `NARRATORIA_MODEL`).

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use narratoria_core::error::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::{locate, AppError};

/// A model's part in play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Plans each turn's mechanics.
    Planner,
    /// Writes the story's prose.
    Writer,
}

/// The roles a player gives a model with `models use NAME --role …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoleChoice {
    /// It writes the prose (the default: the model the player brings).
    #[default]
    Writer,
    /// It plans the mechanics.
    Planner,
    /// It plans and writes.
    Both,
}

impl RoleChoice {
    /// Whether the choice gives `role`.
    pub fn gives(self, role: Role) -> bool {
        matches!(
            (self, role),
            (RoleChoice::Both, _)
                | (RoleChoice::Writer, Role::Writer)
                | (RoleChoice::Planner, Role::Planner)
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            RoleChoice::Writer => "writer",
            RoleChoice::Planner => "planner",
            RoleChoice::Both => "both",
        }
    }
}

impl std::str::FromStr for RoleChoice {
    type Err = AppError;
    fn from_str(s: &str) -> Result<Self, AppError> {
        match s {
            "writer" => Ok(RoleChoice::Writer),
            "planner" => Ok(RoleChoice::Planner),
            "both" => Ok(RoleChoice::Both),
            other => Err(AppError::new(
                ErrorCode::ConfigInvalid,
                format!("no role called {other:?}: writer, planner or both"),
            )),
        }
    }
}

/// What a run was given beside the settings (the command line, the
/// environment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    /// A model for the run: it plans, and writes unless `writer` is given.
    pub model: Option<PathBuf>,
    /// The model that writes.
    pub writer: Option<PathBuf>,
    /// The most tokens the writer's context may hold.
    pub writer_context: Option<u32>,
}

/// What the player chose in the settings (files that are installed now).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chosen {
    pub planner: Option<PathBuf>,
    pub writer: Option<PathBuf>,
    pub writer_context: Option<u32>,
}

/// The models one run plays with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roles {
    /// The model that plans; `None`: the rule-based planner (no model).
    pub planner: Option<PathBuf>,
    /// Another model that writes; `None`: the planner's model writes too.
    pub writer: Option<PathBuf>,
    /// The most tokens the writer's context may hold (`None`: 8,192).
    pub writer_context: Option<u32>,
    /// Whether `planner` was given for the run (a missing file is then an
    /// error, not the rule-based planner).
    pub planner_given: bool,
}

impl Roles {
    /// The file that writes: the writer's, else the planner's.
    pub fn writing(&self) -> Option<&Path> {
        self.writer.as_deref().or(self.planner.as_deref())
    }

    /// The roles `path` has in these.
    pub fn of(&self, path: &Path) -> Vec<Role> {
        let same = |p: Option<&Path>| p.is_some_and(|p| same_file(p, path));
        let mut roles = Vec::new();
        if same(self.planner.as_deref()) {
            roles.push(Role::Planner);
        }
        if same(self.writing()) {
            roles.push(Role::Writer);
        }
        roles
    }
}

/// The roles a run plays with, from what it was `given`, what the player
/// `chose` and the `default` model (the bundled small one, when present):
/// - a model given for the run plans, and writes unless a writer is given too;
/// - else the chosen planner (else the default model) plans, and the given
///   writer, else the chosen one, writes — else the planner writes too;
/// - the writer's context bound: the given one, else the chosen one.
///
/// A writer that is the planner's own file is no second model.
pub fn resolve(given: &Given, chosen: &Chosen, default: Option<PathBuf>) -> Roles {
    let (planner, writer, planner_given) = match &given.model {
        Some(model) => (
            Some(model.clone()),
            given.writer.clone().or_else(|| Some(model.clone())),
            true,
        ),
        None => (
            chosen.planner.clone().or(default),
            given.writer.clone().or_else(|| chosen.writer.clone()),
            false,
        ),
    };
    let writer = writer.filter(|w| !planner.as_deref().is_some_and(|p| same_file(p, w)));
    Roles {
        planner,
        writer,
        writer_context: given.writer_context.or(chosen.writer_context),
        planner_given,
    }
}

/// Whether `a` and `b` name the same file (by where their links lead).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// What the command line gave this run, for the app's loads that are not
/// told it (`narratoria play --writer`, set once at start-up).
static COMMAND_LINE: RwLock<Option<Given>> = RwLock::new(None);

/// Remembers what this run's command line gave (`--writer`,
/// `--writer-context`); [`for_run`] reads it.
pub fn set_command_line(given: Given) {
    *narratoria_core::sync::write(&COMMAND_LINE) = Some(given);
}

/// What the player chose in the settings, each choice still installed (a
/// vanished one is logged and left out).
pub fn chosen(resources: Option<&Path>) -> Chosen {
    let settings = locate::settings(resources);
    let library = locate::model_library(resources);
    let find = |name: Option<String>, what: &str| {
        let name = name?;
        let found = library.find(&name).filter(|p| p.is_file());
        if found.is_none() {
            tracing::warn!("the chosen {what} {name:?} is not installed any more; left out");
        }
        found
    };
    Chosen {
        planner: find(settings.planner(), "planner"),
        writer: find(settings.model(), "writer"),
        writer_context: settings.writer_context(),
    }
}

/// The roles of this run: `given` over what the command line gave
/// ([`set_command_line`]) over `NARRATORIA_MODEL` / `NARRATORIA_WRITER`,
/// then the player's choices and the bundled default model ([`resolve`]).
pub fn for_run(given: &Given, resources: Option<&Path>) -> Roles {
    let line = narratoria_core::sync::read(&COMMAND_LINE)
        .clone()
        .unwrap_or_default();
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    // `NARRATORIA_MODEL` stands for `--model`, except that a file missing
    // there means the rule-based planner (the tests' way to play without one).
    let from_env = given.model.is_none() && line.model.is_none();
    let given = Given {
        model: given
            .model
            .clone()
            .or(line.model)
            .or_else(|| env("NARRATORIA_MODEL")),
        writer: given
            .writer
            .clone()
            .or(line.writer)
            .or_else(|| env("NARRATORIA_WRITER")),
        writer_context: given.writer_context.or(line.writer_context),
    };
    let mut roles = resolve(
        &given,
        &chosen(resources),
        locate::bundled_default_model(resources),
    );
    roles.planner_given &= !from_env;
    roles
}

/// The file an app loads for `roles`' planner: the given one (an error when
/// it does not exist), else the default when present; `None`: the
/// rule-based planner (said once on stderr).
pub fn planner_file(roles: &Roles) -> Result<Option<PathBuf>, AppError> {
    match &roles.planner {
        Some(p) if p.exists() => Ok(Some(p.clone())),
        Some(p) if roles.planner_given => Err(AppError::new(
            ErrorCode::ModelUnusable,
            format!("model file {} does not exist", p.display()),
        )),
        other => {
            eprintln!(
                "narratoria: no model at {}; using the rule-based planner (run scripts/fetch-model.sh for the default model)",
                other
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("models").join(locate::DEFAULT_MODEL_FILE))
                    .display()
            );
            Ok(None)
        }
    }
}

/// The writer's file when it is another model than the planner's (an error
/// when it does not exist).
pub fn writer_file(roles: &Roles) -> Result<Option<PathBuf>, AppError> {
    match &roles.writer {
        Some(w) if !w.is_file() => Err(AppError::new(
            ErrorCode::ModelUnusable,
            format!("writer model file {} does not exist", w.display()),
        )),
        other => Ok(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| {
                let p = dir.join(n);
                std::fs::write(&p, n).unwrap();
                p
            })
            .collect()
    }

    /// Nothing chosen: the default model plans and writes.
    /// A writer chosen: the default model plans, the chosen one writes.
    /// Both chosen apart: each does its part.
    #[test]
    fn the_default_model_plans_and_the_chosen_one_writes() {
        let dir = tempfile::tempdir().unwrap();
        let [small, big, other] =
            <[PathBuf; 3]>::try_from(files(dir.path(), &["small.gguf", "big.gguf", "other.gguf"]))
                .unwrap();
        let none = Given::default();

        let alone = resolve(&none, &Chosen::default(), Some(small.clone()));
        assert_eq!(alone.planner.as_deref(), Some(small.as_path()));
        assert_eq!(alone.writer, None, "one model does both");
        assert_eq!(alone.writing(), Some(small.as_path()));
        assert_eq!(alone.of(&small), vec![Role::Planner, Role::Writer]);

        let brought = Chosen {
            writer: Some(big.clone()),
            ..Chosen::default()
        };
        let roles = resolve(&none, &brought, Some(small.clone()));
        assert_eq!(roles.planner.as_deref(), Some(small.as_path()));
        assert_eq!(roles.writer.as_deref(), Some(big.as_path()));
        assert_eq!(roles.of(&small), vec![Role::Planner]);
        assert_eq!(roles.of(&big), vec![Role::Writer]);
        assert!(roles.of(&other).is_empty());

        let apart = Chosen {
            planner: Some(other.clone()),
            writer: Some(big.clone()),
            writer_context: Some(4096),
        };
        let roles = resolve(&none, &apart, Some(small.clone()));
        assert_eq!(roles.planner.as_deref(), Some(other.as_path()));
        assert_eq!(roles.writer.as_deref(), Some(big.as_path()));
        assert_eq!(roles.writer_context, Some(4096));

        // The chosen writer is the default model itself: no second model.
        let same = Chosen {
            writer: Some(small.clone()),
            ..Chosen::default()
        };
        let roles = resolve(&none, &same, Some(small.clone()));
        assert_eq!(roles.writer, None);

        // `--role both`: the chosen model plans and writes.
        let both = Chosen {
            planner: Some(big.clone()),
            writer: Some(big.clone()),
            ..Chosen::default()
        };
        let roles = resolve(&none, &both, Some(small.clone()));
        assert_eq!(roles.planner.as_deref(), Some(big.as_path()));
        assert_eq!(roles.writer, None);
        assert_eq!(roles.of(&big), vec![Role::Planner, Role::Writer]);
        assert!(roles.of(&small).is_empty());
    }

    /// `--model` plans (and writes unless `--writer` is given), over any
    /// choice; `--writer` writes over the chosen writer.
    #[test]
    fn what_the_run_is_given_wins_over_the_choices() {
        let dir = tempfile::tempdir().unwrap();
        let [small, big, given] =
            <[PathBuf; 3]>::try_from(files(dir.path(), &["small.gguf", "big.gguf", "given.gguf"]))
                .unwrap();
        let brought = Chosen {
            writer: Some(big.clone()),
            writer_context: Some(2048),
            ..Chosen::default()
        };
        let model_only = Given {
            model: Some(given.clone()),
            ..Given::default()
        };
        let roles = resolve(&model_only, &brought, Some(small.clone()));
        assert_eq!(roles.planner.as_deref(), Some(given.as_path()));
        assert_eq!(roles.writer, None, "the given model writes too");
        assert!(roles.planner_given);

        let writer_only = Given {
            writer: Some(given.clone()),
            writer_context: Some(1024),
            ..Given::default()
        };
        let roles = resolve(&writer_only, &brought, Some(small.clone()));
        assert_eq!(roles.planner.as_deref(), Some(small.as_path()));
        assert_eq!(roles.writer.as_deref(), Some(given.as_path()));
        assert_eq!(roles.writer_context, Some(1024));
        assert!(!roles.planner_given);

        let both = Given {
            model: Some(small.clone()),
            writer: Some(big.clone()),
            writer_context: None,
        };
        let roles = resolve(&both, &Chosen::default(), None);
        assert_eq!(roles.planner.as_deref(), Some(small.as_path()));
        assert_eq!(roles.writer.as_deref(), Some(big.as_path()));
    }

    #[test]
    fn no_model_anywhere_is_the_rule_based_planner_and_a_missing_given_one_an_error() {
        let roles = resolve(&Given::default(), &Chosen::default(), None);
        assert_eq!(roles.planner, None);
        assert_eq!(planner_file(&roles).unwrap(), None);
        let given = resolve(
            &Given {
                model: Some(PathBuf::from("/no/such/model.gguf")),
                ..Given::default()
            },
            &Chosen::default(),
            None,
        );
        assert_eq!(
            planner_file(&given).unwrap_err().code,
            ErrorCode::ModelUnusable
        );
        let writer = resolve(
            &Given {
                writer: Some(PathBuf::from("/no/such/writer.gguf")),
                ..Given::default()
            },
            &Chosen::default(),
            None,
        );
        assert_eq!(
            writer_file(&writer).unwrap_err().code,
            ErrorCode::ModelUnusable
        );
    }

    #[test]
    fn roles_are_read_by_name() {
        assert_eq!("both".parse::<RoleChoice>().unwrap(), RoleChoice::Both);
        assert!(RoleChoice::Both.gives(Role::Planner) && RoleChoice::Both.gives(Role::Writer));
        assert!(!RoleChoice::Writer.gives(Role::Planner));
        assert_eq!(
            "narrator".parse::<RoleChoice>().unwrap_err().code,
            ErrorCode::ConfigInvalid
        );
    }
}
