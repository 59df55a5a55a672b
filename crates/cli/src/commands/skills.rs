//! `narratoria skills list|check`

use std::path::Path;
use std::process::ExitCode;

use narratoria_core::skills::{check_skill, Problem};
use serde_json::json;

use super::{discover, print_json, CliError};
use crate::cli::SkillRoots;

/// `skills list [--json]`: every discovered skill, and the folders passed over.
pub fn list(roots: &SkillRoots, as_json: bool) -> Result<ExitCode, CliError> {
    let catalog = discover(roots)?;
    if as_json {
        let skills: Vec<_> = catalog.skills().iter().map(|s| s.summary()).collect();
        print_json(
            &json!({ "skills": skills, "problems": catalog.problems, "overrides": catalog.overrides }),
        );
    } else {
        for s in catalog.skills() {
            let scripts: Vec<String> = s
                .scripts
                .iter()
                .map(|sc| {
                    if sc.is_executable {
                        sc.name.clone()
                    } else {
                        format!("{} (not executable)", sc.name)
                    }
                })
                .collect();
            println!(
                "{:<20} {:<8} {:<8} {:?}  {}\n{:<20} scripts: {}",
                s.name,
                s.version,
                if s.enabled { "enabled" } else { "disabled" },
                s.error_state,
                s.description,
                "",
                if scripts.is_empty() {
                    "(none: prompt-only)".to_string()
                } else {
                    scripts.join(", ")
                }
            );
        }
        for o in &catalog.overrides {
            println!(
                "override: {} at {} replaces {}",
                o.name,
                o.path.display(),
                o.overridden_path.display()
            );
        }
        for p in &catalog.problems {
            println!("skipped: {}: {}", p.path.display(), p.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `skills check DIR`: 0 when the folder is a valid skill, 1 with every problem otherwise.
pub fn check(dir: &Path) -> Result<ExitCode, CliError> {
    let (name, problems): (Option<String>, Vec<Problem>) = match check_skill(dir) {
        Ok(skill) => (Some(skill.name), Vec::new()),
        Err(problems) => (None, problems),
    };
    let valid = problems.is_empty();
    let listed: Vec<_> = problems
        .iter()
        .map(|p| json!({"path": p.path, "message": p.reason}))
        .collect();
    print_json(&json!({ "valid": valid, "name": name, "path": dir, "problems": listed }));
    if valid {
        eprintln!(
            "{}: valid skill {:?}",
            dir.display(),
            name.unwrap_or_default()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("{}: {} problem(s):", dir.display(), problems.len());
        for p in &problems {
            eprintln!("  - {}: {}", p.path.display(), p.reason);
        }
        Ok(ExitCode::from(1))
    }
}
