//! Skills: discovered folders, their scripts, and how a plan's toolPath is
//! resolved to exactly one allowed script.

pub mod cards;
pub mod config;
pub mod corrections;
pub mod discovery;
pub mod health;
pub mod manifest;
pub mod registry;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub use discovery::{discover, load_skill, RootError};
pub use health::{ErrorState, SkillsState};
pub use registry::{Registry, SkillChange};

/// Which file describes a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ManifestFormat {
    #[serde(rename = "skill.json")]
    SkillJson,
    #[serde(rename = "SKILL.md")]
    SkillMd,
}

/// A discovered skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub name: String,
    pub display_name: Option<String>,
    pub version: String,
    pub description: String,
    pub author: Option<String>,
    pub license: Option<String>,
    pub format: ManifestFormat,
    /// Canonical skill folder.
    pub dir: PathBuf,
    pub manifest_path: PathBuf,
    pub scripts: Vec<SkillScript>,
    /// `prompt.md`, else the `SKILL.md` body.
    pub prompt: Option<String>,
    pub config_schema: Option<Value>,
    pub user_config: Option<Value>,
    pub timeout_seconds: Option<f64>,
    /// The protocol version the manifest asks for (`narratoria/1` when `None`).
    pub protocol: Option<crate::protocol::ProtocolVersion>,
    /// Host features the scripts use (manifest `capabilities`), e.g. `generate`.
    pub capabilities: Vec<String>,
    pub enabled: bool,
    pub error_state: ErrorState,
}

/// An executable of a skill.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillScript {
    /// File name without extension; the second half of a toolPath.
    pub name: String,
    /// Canonical path, inside the skill folder.
    pub path: PathBuf,
    pub is_executable: bool,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
    pub timeout_seconds: Option<f64>,
    /// Player inputs that call for this script (manifest `examples`).
    pub examples: Vec<String>,
    /// Player inputs that must not call it (manifest `counterExamples`).
    pub counter_examples: Vec<String>,
    /// Examples in other languages than English, by language code
    /// (manifest `examplesByLanguage`).
    pub examples_by_language: BTreeMap<String, Vec<String>>,
    /// Counter-examples in other languages, by language code (manifest
    /// `counterExamplesByLanguage`).
    pub counter_examples_by_language: BTreeMap<String, Vec<String>>,
}

impl Skill {
    /// The script named `name`.
    pub fn script(&self, name: &str) -> Option<&SkillScript> {
        self.scripts.iter().find(|s| s.name == name)
    }

    /// The per-tool time limit for `script` (script, then skill, then 30 s).
    pub fn timeout(&self, script: &SkillScript) -> std::time::Duration {
        let secs = script
            .timeout_seconds
            .or(self.timeout_seconds)
            .unwrap_or(30.0);
        std::time::Duration::from_secs_f64(secs.clamp(0.001, 86_400.0))
    }

    /// The summary `skills list` prints.
    pub fn summary(&self) -> SkillSummary<'_> {
        SkillSummary {
            name: &self.name,
            display_name: self.display_name.as_deref(),
            version: &self.version,
            description: &self.description,
            author: self.author.as_deref(),
            license: self.license.as_deref(),
            path: &self.dir,
            format: self.format,
            enabled: self.enabled,
            error_state: self.error_state,
            timeout_seconds: self.timeout_seconds.map(json_number),
            has_prompt: self.prompt.is_some(),
            has_config_schema: self.config_schema.is_some(),
            scripts: self
                .scripts
                .iter()
                .map(|s| ScriptSummary {
                    name: &s.name,
                    path: &s.path,
                    is_executable: s.is_executable,
                    description: s.description.as_deref(),
                    has_input_schema: s.input_schema.is_some(),
                })
                .collect(),
        }
    }
}

/// What `skills list` shows of a skill.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillSummary<'a> {
    pub name: &'a str,
    pub display_name: Option<&'a str>,
    pub version: &'a str,
    pub description: &'a str,
    pub author: Option<&'a str>,
    pub license: Option<&'a str>,
    pub path: &'a Path,
    pub format: ManifestFormat,
    pub enabled: bool,
    pub error_state: ErrorState,
    pub timeout_seconds: Option<Value>,
    pub has_prompt: bool,
    pub has_config_schema: bool,
    pub scripts: Vec<ScriptSummary<'a>>,
}

/// A number as JSON, whole numbers without a fraction (`5`, not `5.0`).
fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// What `skills list` shows of a script.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptSummary<'a> {
    pub name: &'a str,
    pub path: &'a Path,
    pub is_executable: bool,
    pub description: Option<&'a str>,
    pub has_input_schema: bool,
}

/// A folder or file that discovery passed over, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub path: PathBuf,
    pub reason: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: &Path, reason: String) -> Problem {
        Problem {
            path: path.to_path_buf(),
            reason,
        }
    }
}

/// A skill of a later root that replaced one of the same name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Override {
    pub name: String,
    pub path: PathBuf,
    pub overridden_path: PathBuf,
}

/// Every discovered skill, with what was passed over.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    roots: Vec<PathBuf>,
    skills: Vec<Skill>,
    pub problems: Vec<Problem>,
    pub overrides: Vec<Override>,
    /// Inputs the player said needed no mechanics (`corrections.rs`).
    narration_examples: Vec<String>,
    by_name: HashMap<String, usize>,
    by_path: HashMap<PathBuf, (usize, usize)>,
}

/// Why a toolPath names no runnable script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error("toolPath {0:?} does not name a script of any discovered skill")]
    NotFound(String),
    #[error("skill {0:?} is disabled")]
    Disabled(String),
}

impl Catalog {
    /// A catalog over already-loaded skills (`roots` canonical).
    pub fn new(
        roots: Vec<PathBuf>,
        skills: Vec<Skill>,
        problems: Vec<Problem>,
        overrides: Vec<Override>,
    ) -> Catalog {
        let mut c = Catalog {
            roots,
            skills,
            problems,
            overrides,
            narration_examples: Vec::new(),
            by_name: HashMap::new(),
            by_path: HashMap::new(),
        };
        c.reindex();
        c
    }

    fn reindex(&mut self) {
        self.by_name = self
            .skills
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        self.by_path = self
            .skills
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.scripts
                    .iter()
                    .enumerate()
                    .map(move |(j, sc)| (sc.path.clone(), (i, j)))
            })
            .collect();
    }

    /// The canonical skill roots, in override order.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Every skill, by name.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// Skills a plan may use now: enabled, not permanently failed, not in `disabled`.
    pub fn usable<'a>(&'a self, disabled: &'a [String]) -> impl Iterator<Item = &'a Skill> + 'a {
        self.skills.iter().filter(move |s| {
            s.enabled
                && s.error_state != ErrorState::PermanentFailure
                && !disabled.iter().any(|d| d == &s.name)
        })
    }

    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.by_name.get(name).map(|&i| &self.skills[i])
    }

    /// Mutable access to the skill named `name` (enable flag, health).
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Skill> {
        self.by_name.get(name).map(|&i| &mut self.skills[i])
    }

    /// Resolves a plan's toolPath to a script of a discovered skill. Accepts
    /// `<skill>/<script>`, or a path (absolute, or relative to a skill root)
    /// that canonicalises to such a script; nothing else. A skill that is
    /// disabled, or listed in `disabled`, does not resolve.
    pub fn resolve(
        &self,
        tool_path: &str,
        disabled: &[String],
    ) -> Result<(&Skill, &SkillScript), ResolveError> {
        let found = self
            .resolve_by_name(tool_path)
            .or_else(|| self.resolve_by_path(tool_path));
        let Some((i, j)) = found else {
            return Err(ResolveError::NotFound(tool_path.to_string()));
        };
        let skill = &self.skills[i];
        if !skill.enabled || disabled.iter().any(|d| d == &skill.name) {
            return Err(ResolveError::Disabled(skill.name.clone()));
        }
        Ok((skill, &skill.scripts[j]))
    }

    fn resolve_by_name(&self, tool_path: &str) -> Option<(usize, usize)> {
        let (skill, script) = tool_path.split_once('/')?;
        if script.contains('/')
            || skill.is_empty()
            || script.is_empty()
            || skill.starts_with('.')
            || script.starts_with('.')
        {
            return None;
        }
        let &i = self.by_name.get(skill)?;
        let j = self.skills[i]
            .scripts
            .iter()
            .position(|s| s.name == script)?;
        Some((i, j))
    }

    fn resolve_by_path(&self, tool_path: &str) -> Option<(usize, usize)> {
        if tool_path.contains('\0') {
            return None;
        }
        let p = Path::new(tool_path);
        let candidates: Vec<PathBuf> = if p.is_absolute() {
            vec![p.to_path_buf()]
        } else {
            self.roots.iter().map(|r| r.join(p)).collect()
        };
        candidates
            .iter()
            .filter_map(|c| std::fs::canonicalize(c).ok())
            .find_map(|c| self.by_path.get(&c).copied())
    }
}

/// Everything wrong with one skill folder, for `skills check`: the manifest,
/// the config against its schema, and every script (present, executable,
/// inside the folder).
pub fn check_skill(dir: &Path) -> Result<Skill, Vec<Problem>> {
    if !dir.is_dir() {
        return Err(vec![Problem::new(dir, "not a directory".into())]);
    }
    match load_skill(dir) {
        Ok(loaded) => {
            let mut problems = loaded.warnings;
            if let (Some(schema), None) = (&loaded.skill.config_schema, &loaded.skill.user_config) {
                if let Err(e) = config::validate_stored(schema, &Value::Object(Default::default()))
                {
                    for fe in e.field_errors() {
                        problems.push(Problem::new(
                            &loaded.skill.dir.join("config.json"),
                            format!("setting needed: {fe}"),
                        ));
                    }
                }
            }
            for s in &loaded.skill.scripts {
                if !s.is_executable {
                    problems.push(Problem::new(
                        &s.path,
                        "script is not executable (chmod +x)".into(),
                    ));
                }
            }
            if problems.is_empty() {
                Ok(loaded.skill)
            } else {
                Err(problems)
            }
        }
        Err(problems) => Err(problems),
    }
}
