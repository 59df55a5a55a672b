//! Skill discovery (docs/skills.md): skill folders under one or more roots,
//! described by `skill.json` or an Agent Skills `SKILL.md`. Nothing outside a
//! skill folder is ever reached through a symlink.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::manifest::{parse_manifest, parse_skill_md, ScriptManifest};
use super::{Catalog, ManifestFormat, Override, Problem, Skill, SkillScript};
use crate::error::FieldError;
use crate::protocol::ProtocolVersion;

/// A skills root that cannot be used at all.
#[derive(Debug, Clone, thiserror::Error)]
#[error("skills folder {path}: {reason}")]
pub struct RootError {
    pub path: PathBuf,
    pub reason: String,
}

/// Discovers every skill under `roots`. A later root overrides an earlier one
/// by skill name (reported in `overrides`); folders that are not usable
/// skills are listed in `problems` with the reason.
pub fn discover(roots: &[PathBuf]) -> Result<Catalog, RootError> {
    let mut skills: Vec<Skill> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut problems = Vec::new();
    let mut overrides = Vec::new();
    let mut canonical_roots = Vec::with_capacity(roots.len());

    for root in roots {
        let canon = std::fs::canonicalize(root).map_err(|e| RootError {
            path: root.clone(),
            reason: io_reason(&e),
        })?;
        if !canon.is_dir() {
            return Err(RootError {
                path: root.clone(),
                reason: "not a directory".into(),
            });
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&canon)
            .map_err(|e| RootError {
                path: root.clone(),
                reason: io_reason(&e),
            })?
            .filter_map(|e| e.ok())
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        entries.sort();
        for dir in entries {
            match load_skill(&dir) {
                Ok(loaded) => {
                    problems.extend(loaded.warnings);
                    let skill = loaded.skill;
                    if let Some(&i) = by_name.get(&skill.name) {
                        let old = std::mem::replace(&mut skills[i], skill);
                        overrides.push(Override {
                            name: old.name.clone(),
                            path: skills[i].dir.clone(),
                            overridden_path: old.dir,
                        });
                    } else {
                        by_name.insert(skill.name.clone(), skills.len());
                        skills.push(skill);
                    }
                }
                Err(mut errs) => problems.append(&mut errs),
            }
        }
        canonical_roots.push(canon);
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Catalog::new(canonical_roots, skills, problems, overrides))
}

/// A loaded skill and the non-fatal problems found in its folder.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub skill: Skill,
    pub warnings: Vec<Problem>,
}

/// Loads one skill folder; every reason it is unusable is returned.
pub fn load_skill(dir: &Path) -> Result<Loaded, Vec<Problem>> {
    let dir = std::fs::canonicalize(dir).map_err(|e| vec![Problem::new(dir, io_reason(&e))])?;
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut problems = Vec::new();
    let mut warnings = Vec::new();

    let json_path = dir.join("skill.json");
    let md_path = dir.join("SKILL.md");
    let json_text = read_inside(&dir, &json_path).map_err(|p| vec![p])?;
    let md_text = read_inside(&dir, &md_path).map_err(|p| vec![p])?;

    let mut front_prompt = None;
    let mut shared_examples = (Vec::new(), Vec::new());
    let (format, manifest_path, manifest) = if let Some(text) = json_text {
        match parse_manifest(&text) {
            Ok(m) => (ManifestFormat::SkillJson, json_path.clone(), m),
            Err(errs) => {
                let mut all = field_problems(&json_path, "invalid skill.json", errs);
                all.extend(config_problems(&dir));
                return Err(all);
            }
        }
    } else if let Some(text) = &md_text {
        match parse_skill_md(text, &folder) {
            Ok((fm, body)) => {
                front_prompt = Some(body);
                shared_examples = fm.shared_examples();
                (ManifestFormat::SkillMd, md_path.clone(), fm.into_manifest())
            }
            Err(errs) => {
                let mut all = field_problems(&md_path, "invalid SKILL.md", errs);
                all.extend(config_problems(&dir));
                return Err(all);
            }
        }
    } else {
        return Err(vec![Problem::new(
            &dir,
            "no skill.json or SKILL.md: not a skill folder".to_string(),
        )]);
    };
    if let Some(problem) = protocol_problem(&manifest_path, manifest.protocol) {
        return Err(vec![problem]);
    }
    let script_meta = manifest.scripts;

    // prompt.md, else the SKILL.md body (also when skill.json is the manifest).
    let prompt = match read_inside(&dir, &dir.join("prompt.md")) {
        Ok(Some(p)) => Some(p),
        Ok(None) => front_prompt.or_else(|| {
            md_text
                .as_deref()
                .and_then(|t| parse_skill_md(t, &folder).ok())
                .map(|(_, body)| body)
        }),
        Err(p) => {
            problems.push(p);
            None
        }
    };

    let (config_schema, user_config) = load_config(&dir, &mut problems);

    let mut scripts = discover_scripts(&dir, &script_meta, &mut warnings);
    for script in &mut scripts {
        if script.examples.is_empty() {
            script.examples = shared_examples.0.clone();
        }
        if script.counter_examples.is_empty() {
            script.counter_examples = shared_examples.1.clone();
        }
    }
    for name in script_meta.keys() {
        if !scripts.iter().any(|s| &s.name == name) {
            warnings.push(Problem::new(
                &manifest_path,
                format!("skill.json describes script {name:?}, which is not in scripts/"),
            ));
        }
    }

    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Loaded {
        skill: Skill {
            name: manifest.name,
            display_name: manifest.display_name,
            version: manifest.version,
            description: manifest.description,
            author: manifest.author,
            license: manifest.license,
            format,
            dir,
            manifest_path,
            scripts,
            prompt,
            config_schema,
            user_config,
            timeout_seconds: manifest.timeout_seconds,
            protocol: manifest.protocol,
            capabilities: manifest.capabilities,
            enabled: true,
            error_state: Default::default(),
        },
        warnings,
    })
}

/// Why a skill asking for protocol `wanted` cannot be served by this host
/// (see `ProtocolVersion::is_compatible_with`); `None` when it can.
fn protocol_problem(manifest_path: &Path, wanted: Option<ProtocolVersion>) -> Option<Problem> {
    let host = ProtocolVersion::LATEST;
    let wanted = wanted?;
    (!host.is_compatible_with(&wanted)).then(|| {
        Problem::new(
            manifest_path,
            format!(
                "the skill asks for protocol {wanted}, which this host does not speak (it speaks {host} and the earlier narratoria/{}.x versions); skill passed over",
                host.major
            ),
        )
    })
}

/// Reads `config-schema.json` and `config.json` and checks one against the other.
fn load_config(dir: &Path, problems: &mut Vec<Problem>) -> (Option<Value>, Option<Value>) {
    let config_schema = read_json_inside(dir, "config-schema.json", problems);
    let user_config = read_json_inside(dir, "config.json", problems);
    if let Some(schema) = &config_schema {
        // Without a config.json the defaults apply; settings the schema
        // requires but nobody set yet are reported by `skills check`.
        let checked = match &user_config {
            Some(cfg) => super::config::validate_stored(schema, cfg),
            None => crate::schema::compile(schema)
                .map(|_| ())
                .map_err(super::config::ConfigError::BadSchema),
        };
        match checked {
            Ok(()) => {}
            Err(super::config::ConfigError::BadSchema(e)) => problems.push(Problem::new(
                &dir.join("config-schema.json"),
                format!("not a usable JSON Schema: {e}"),
            )),
            Err(e) => problems.extend(field_problems(
                &dir.join("config.json"),
                "config.json does not match config-schema.json",
                e.field_errors().to_vec(),
            )),
        }
    }
    (config_schema, user_config)
}

/// The config problems alone, reported beside a broken manifest.
fn config_problems(dir: &Path) -> Vec<Problem> {
    let mut problems = Vec::new();
    load_config(dir, &mut problems);
    problems
}

fn discover_scripts(
    dir: &Path,
    meta: &BTreeMap<String, ScriptManifest>,
    warnings: &mut Vec<Problem>,
) -> Vec<SkillScript> {
    let scripts_dir = dir.join("scripts");
    let Ok(meta_dir) = std::fs::symlink_metadata(&scripts_dir) else {
        return Vec::new(); // prompt-only skill
    };
    let canon_dir = match std::fs::canonicalize(&scripts_dir) {
        Ok(c) if c.starts_with(dir) && c.is_dir() => c,
        _ => {
            if meta_dir.file_type().is_symlink() || meta_dir.is_dir() {
                warnings.push(Problem::new(
                    &scripts_dir,
                    "scripts/ leads outside the skill folder; its scripts are ignored".into(),
                ));
            }
            return Vec::new();
        }
    };
    let Ok(read) = std::fs::read_dir(&canon_dir) else {
        warnings.push(Problem::new(&scripts_dir, "scripts/ cannot be read".into()));
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut scripts: Vec<SkillScript> = Vec::new();
    for file in files {
        let Ok(canon) = std::fs::canonicalize(&file) else {
            warnings.push(Problem::new(&file, "broken symlink; ignored".into()));
            continue;
        };
        if !canon.starts_with(dir) {
            warnings.push(Problem::new(
                &file,
                "symlink pointing outside the skill folder; ignored".into(),
            ));
            continue;
        }
        let Ok(md) = std::fs::metadata(&canon) else {
            continue;
        };
        if !md.is_file() {
            continue;
        }
        let name = script_name(&file);
        if scripts.iter().any(|s| s.name == name) {
            warnings.push(Problem::new(
                &file,
                format!("another script is already named {name:?}; ignored"),
            ));
            continue;
        }
        let m = meta.get(&name).cloned().unwrap_or_default();
        scripts.push(SkillScript {
            is_executable: is_executable(&md),
            name,
            path: canon,
            description: m.description,
            input_schema: m.input_schema,
            timeout_seconds: m.timeout_seconds,
            examples: m.examples,
            counter_examples: m.counter_examples,
            examples_by_language: m.examples_by_language,
            counter_examples_by_language: m.counter_examples_by_language,
        });
    }
    scripts
}

/// A script's name: its file name without the last extension.
pub fn script_name(file: &Path) -> String {
    let file_name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match file_name.rfind('.') {
        Some(i) if i > 0 => file_name[..i].to_string(),
        _ => file_name,
    }
}

#[cfg(unix)]
fn is_executable(md: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    md.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_md: &std::fs::Metadata) -> bool {
    true
}

/// Reads a file of the skill folder; `None` if absent. A symlink that leads
/// outside the folder is a problem, never followed.
fn read_inside(dir: &Path, path: &Path) -> Result<Option<String>, Problem> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let canon = std::fs::canonicalize(path).map_err(|e| Problem::new(path, io_reason(&e)))?;
    if !canon.starts_with(dir) {
        return Err(Problem::new(
            path,
            "symlink pointing outside the skill folder; not read".into(),
        ));
    }
    std::fs::read_to_string(&canon)
        .map(Some)
        .map_err(|e| Problem::new(path, io_reason(&e)))
}

fn read_json_inside(dir: &Path, file: &str, problems: &mut Vec<Problem>) -> Option<Value> {
    let path = dir.join(file);
    match read_inside(dir, &path) {
        Ok(Some(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                problems.push(Problem::new(
                    &path,
                    format!(
                        "not valid JSON (line {}, column {}): {e}",
                        e.line(),
                        e.column()
                    ),
                ));
                None
            }
        },
        Ok(None) => None,
        Err(p) => {
            problems.push(p);
            None
        }
    }
}

fn field_problems(path: &Path, what: &str, errs: Vec<FieldError>) -> Vec<Problem> {
    errs.into_iter()
        .map(|e| Problem::new(path, format!("{what}: {e}")))
        .collect()
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(root: &Path, name: &str, extra: &str) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("skill.json"),
            format!(r#"{{"name":"{name}","version":"1","description":"d"{extra}}}"#),
        )
        .unwrap();
    }

    #[test]
    fn a_skill_asking_for_a_protocol_the_host_cannot_serve_is_passed_over() {
        let root = tempfile::tempdir().unwrap();
        skill(root.path(), "future", r#","protocol":"narratoria/2""#);
        skill(root.path(), "newer", r#","protocol":"narratoria/1.9""#);
        skill(
            root.path(),
            "teller",
            r#","protocol":"narratoria/1.1","capabilities":["generate"]"#,
        );
        skill(root.path(), "plain", "");
        let catalog = discover(&[root.path().to_path_buf()]).unwrap();
        let names: Vec<&str> = catalog.skills().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["plain", "teller"]);
        let teller = catalog.get("teller").unwrap();
        assert_eq!(teller.protocol, Some(ProtocolVersion::V1_1));
        assert_eq!(teller.capabilities, ["generate"]);
        let plain = catalog.get("plain").unwrap();
        assert_eq!(plain.protocol, None);
        assert!(plain.capabilities.is_empty());

        assert_eq!(catalog.problems.len(), 2, "{:?}", catalog.problems);
        let future = catalog
            .problems
            .iter()
            .find(|p| p.path.ends_with("future/skill.json"))
            .unwrap();
        assert!(
            future.reason.contains("narratoria/2") && future.reason.contains("passed over"),
            "{}",
            future.reason
        );
    }
}
