//! `narratoria skills list` and `narratoria skills check`: skill discovery
//! (skill.json and SKILL.md manifests, scripts, problems, overrides between
//! roots) and validation of one skill folder for authors.

use crate::support::*;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

/// Runs `narratoria skills list --skills R1 [--skills R2 ...] --json`.
fn list<P: AsRef<Path>>(roots: &[P]) -> Run {
    let mut args = vec!["skills".to_string(), "list".to_string()];
    for root in roots {
        args.push("--skills".into());
        args.push(root.as_ref().to_str().unwrap().into());
    }
    args.push("--json".into());
    narratoria(args, &[])
}

/// `skills list` output, requiring exit 0.
fn list_json<P: AsRef<Path>>(roots: &[P]) -> Value {
    let run = list(roots);
    let out = run.json();
    assert_eq!(run.code, 0, "{}\n{}", pretty(&out), run.stderr);
    assert!(
        out["skills"].is_array() && out["problems"].is_array(),
        "{}",
        pretty(&out)
    );
    out
}

/// The listed skill called `name`.
fn listed<'a>(out: &'a Value, name: &str) -> &'a Value {
    out["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("skill {name:?} not listed:\n{}", pretty(out)))
}

/// Whether `skills` lists a skill called `name`.
fn is_listed(out: &Value, name: &str) -> bool {
    out["skills"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["name"] == name)
}

/// The problem reported for `folder` (its path is the folder or a file in it).
fn problem_for<'a>(out: &'a Value, folder: &Path) -> &'a Value {
    out["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["path"]
                .as_str()
                .map(|path| within(path, folder))
                .unwrap_or(false)
        })
        .unwrap_or_else(|| {
            panic!(
                "no problem reported for {}:\n{}",
                folder.display(),
                pretty(out)
            )
        })
}

/// Runs `narratoria skills check DIR`.
fn check(folder: &Path) -> Run {
    narratoria(["skills", "check", folder.to_str().unwrap()], &[])
}

/// Text of every reported problem (path and message), lowercased.
fn problem_texts(out: &Value) -> Vec<String> {
    out["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("problems is not an array:\n{}", pretty(out)))
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p["path"].as_str().unwrap_or(""),
                p["message"].as_str().unwrap_or("")
            )
            .to_lowercase()
        })
        .collect()
}

const ROLL: &str = "#!/bin/sh\ncat > /dev/null\necho '{\"type\":\"done\",\"ok\":true}'\n";

/// A config schema with two typed properties and one enum.
const CONFIG_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "diceSides": {"type": "integer", "minimum": 2},
    "mode": {"type": "string", "enum": ["fair", "loaded"]}
  },
  "required": ["diceSides"]
}"#;

// ---------------------------------------------------------------------------
// skills list
// ---------------------------------------------------------------------------

/// A skill.json skill is listed with its manifest fields, format
/// "skill.json", enabled, healthy, its timeoutSeconds, and its scripts with
/// the right isExecutable.
#[test]
fn list_reports_skill_json_skill_with_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let extra = json!({
        "displayName": "Dice Roller", "author": "Tests Inc.", "license": "MIT", "timeoutSeconds": 5
    });
    let dice = skill_with(
        &root,
        "dice",
        extra,
        &[("roll.sh", ROLL), ("notes.py", "print('hi')\n")],
    );
    let notes = dice.join("scripts").join("notes.py");
    chmod(&notes, 0o644);

    let out = list_json(&[&root]);

    let s = listed(&out, "dice");
    assert_eq!(s["displayName"], "Dice Roller");
    assert_eq!(s["version"], "1.0.0");
    assert_eq!(s["description"], "Test skill dice");
    assert_eq!(s["author"], "Tests Inc.");
    assert_eq!(s["license"], "MIT");
    assert_eq!(s["format"], "skill.json");
    assert_eq!(s["enabled"], true);
    assert_eq!(s["errorState"], "healthy");
    assert_eq!(s["timeoutSeconds"], 5);
    assert!(
        same_path(s["path"].as_str().unwrap_or(""), &dice),
        "path = {}",
        s["path"]
    );
    let scripts = s["scripts"].as_array().expect("scripts array");
    assert_eq!(scripts.len(), 2, "{}", pretty(s));
    let script = |name: &str| {
        scripts
            .iter()
            .find(|x| x["name"] == name)
            .unwrap_or_else(|| panic!("script {name} not listed: {}", pretty(s)))
    };
    assert_eq!(script("roll")["isExecutable"], true);
    assert!(same_path(
        script("roll")["path"].as_str().unwrap_or(""),
        &dice.join("scripts/roll.sh")
    ));
    assert_eq!(script("notes")["isExecutable"], false);
    assert!(same_path(
        script("notes")["path"].as_str().unwrap_or(""),
        &notes
    ));
}

/// A folder with neither skill.json nor SKILL.md is not a skill: it is
/// reported under `problems` with a reason, while valid skills are listed.
#[test]
fn list_reports_folder_without_manifest_as_problem() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(&root, "dice", &[("roll.sh", ROLL)]);
    let empty = root.join("empty-folder");
    fs::create_dir_all(empty.join("scripts")).unwrap();

    let out = list_json(&[&root]);

    assert!(is_listed(&out, "dice"));
    assert!(!is_listed(&out, "empty-folder"));
    let problem = problem_for(&out, &empty);
    assert!(
        !problem["reason"].as_str().unwrap_or("").trim().is_empty(),
        "{}",
        pretty(problem)
    );
}

/// A skill.json that is not valid JSON, or lacks required fields, is a
/// problem, not a skill.
#[test]
fn list_reports_invalid_manifests_as_problems() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(&root, "dice", &[("roll.sh", ROLL)]);
    let garbled = root.join("garbled");
    write(&garbled.join("skill.json"), "{ \"name\": \"garbled\", ");
    let nameless = root.join("nameless");
    write(
        &nameless.join("skill.json"),
        r#"{"version": "1.0.0", "description": "no name"}"#,
    );

    let out = list_json(&[&root]);

    assert!(is_listed(&out, "dice"));
    assert!(!is_listed(&out, "garbled"));
    assert!(!problem_for(&out, &garbled)["reason"]
        .as_str()
        .unwrap_or("")
        .is_empty());
    assert!(!problem_for(&out, &nameless)["reason"]
        .as_str()
        .unwrap_or("")
        .is_empty());
    assert_eq!(
        out["skills"].as_array().unwrap().len(),
        1,
        "{}",
        pretty(&out)
    );
}

/// A SKILL.md with YAML frontmatter (name matching the folder, description)
/// is discovered with format "SKILL.md", with its scripts.
#[test]
fn list_discovers_skill_md_skill() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let lore = root.join("lore-keeper");
    write(
        &lore.join("SKILL.md"),
        "---\nname: lore-keeper\ndescription: Remembers the lore of the campaign.\n---\n\n# Lore keeper\n\nUse it to recall facts.\n",
    );
    let recall = lore.join("scripts").join("recall.sh");
    write(&recall, ROLL);
    chmod(&recall, 0o755);

    let out = list_json(&[&root]);

    let s = listed(&out, "lore-keeper");
    assert_eq!(s["format"], "SKILL.md");
    assert_eq!(s["description"], "Remembers the lore of the campaign.");
    assert!(same_path(s["path"].as_str().unwrap_or(""), &lore));
    let scripts = s["scripts"].as_array().expect("scripts");
    assert!(
        scripts
            .iter()
            .any(|x| x["name"] == "recall" && x["isExecutable"] == true),
        "{}",
        pretty(s)
    );
}

/// SKILL.md frontmatter rules: the name must match the folder, use only
/// lowercase letters, digits and hyphens, and be at most 64 characters; the
/// description at most 1024 characters. Each violation is a problem.
#[test]
fn list_rejects_skill_md_with_bad_name_or_description() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let long_name = "a".repeat(65);
    let cases = [
        ("mismatch", "other-name".to_string(), "Fine.".to_string()),
        ("Bad_Name", "Bad_Name".to_string(), "Fine.".to_string()),
        (long_name.as_str(), long_name.clone(), "Fine.".to_string()),
        (
            "long-description",
            "long-description".to_string(),
            "d".repeat(1025),
        ),
    ];
    for (folder, name, description) in &cases {
        write(
            &root.join(folder).join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {description}\n---\n\nBody.\n"),
        );
    }
    // The control: a valid SKILL.md at the limits is accepted.
    let edge = "b".repeat(64);
    write(
        &root.join(&edge).join("SKILL.md"),
        format!(
            "---\nname: {edge}\ndescription: {}\n---\n",
            "d".repeat(1024)
        ),
    );

    let out = list_json(&[&root]);

    for (folder, name, _) in &cases {
        assert!(
            !is_listed(&out, name),
            "invalid SKILL.md in {folder} was listed:\n{}",
            pretty(&out)
        );
        problem_for(&out, &root.join(folder));
    }
    assert!(
        is_listed(&out, &edge),
        "a SKILL.md at the limits was rejected:\n{}",
        pretty(&out)
    );
}

/// With two roots holding the same skill name, the later root wins and
/// `overrides` reports the winner and the overridden folder.
#[test]
fn list_later_root_overrides_earlier() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = dir.path().join("builtin");
    let campaign = dir.path().join("campaign");
    let old = skill(&builtin, "dice", &[("roll.sh", ROLL)]);
    let new = skill(&campaign, "dice", &[("roll.sh", ROLL)]);
    skill(&builtin, "memory", &[("recall.sh", ROLL)]);

    let out = list_json(&[&builtin, &campaign]);

    let dice: Vec<_> = out["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "dice")
        .collect();
    assert_eq!(
        dice.len(),
        1,
        "dice listed more than once:\n{}",
        pretty(&out)
    );
    assert!(
        same_path(dice[0]["path"].as_str().unwrap_or(""), &new),
        "{}",
        pretty(&out)
    );
    assert!(is_listed(&out, "memory"));
    let overrides = out["overrides"].as_array().expect("overrides array");
    assert_eq!(overrides.len(), 1, "{}", pretty(&out));
    assert_eq!(overrides[0]["name"], "dice");
    assert!(
        same_path(overrides[0]["path"].as_str().unwrap_or(""), &new),
        "{}",
        pretty(&out)
    );
    assert!(
        same_path(overrides[0]["overriddenPath"].as_str().unwrap_or(""), &old),
        "{}",
        pretty(&out)
    );
}

/// A skills folder that does not exist: exit 2, empty stdout, stderr says why.
#[test]
fn list_nonexistent_dir_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-skills");

    let run = list(&[&missing]);

    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.trim().is_empty());
    assert!(
        run.stderr.contains("no-such-skills"),
        "stderr: {}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------
// skills check
// ---------------------------------------------------------------------------

/// A valid skill folder (manifest, config matching its schema, executable
/// scripts) checks as valid with exit 0.
#[test]
fn check_valid_skill_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let dice = skill(&dir.path().join("skills"), "dice", &[("roll.sh", ROLL)]);
    write(&dice.join("config-schema.json"), CONFIG_SCHEMA);
    write(
        &dice.join("config.json"),
        r#"{"diceSides": 20, "mode": "fair"}"#,
    );

    let run = check(&dice);
    let out = run.json();

    assert_eq!(run.code, 0, "{}\n{}", pretty(&out), run.stderr);
    assert_eq!(out["valid"], true);
    assert_eq!(out["name"], "dice");
    assert_eq!(out["problems"], json!([]));
}

/// A SKILL.md skill folder can be checked too.
#[test]
fn check_valid_skill_md_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let lore = dir.path().join("lore-keeper");
    write(
        &lore.join("SKILL.md"),
        "---\nname: lore-keeper\ndescription: Remembers.\n---\nBody\n",
    );
    let recall = lore.join("scripts").join("recall.sh");
    write(&recall, ROLL);
    chmod(&recall, 0o755);

    let run = check(&lore);
    let out = run.json();

    assert_eq!(run.code, 0, "{}\n{}", pretty(&out), run.stderr);
    assert_eq!(out["valid"], true);
    assert_eq!(out["name"], "lore-keeper");
}

/// A skill.json that is not JSON: invalid, exit 1, the problem on stdout
/// (JSON) and on stderr.
#[test]
fn check_unparsable_manifest_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken");
    write(
        &broken.join("skill.json"),
        "{ \"name\": \"broken\", \"version\": ",
    );

    let run = check(&broken);
    let out = run.json();

    assert_eq!(run.code, 1, "{}", pretty(&out));
    assert_eq!(out["valid"], false);
    let problems = out["problems"].as_array().expect("problems");
    assert!(!problems.is_empty());
    for p in problems {
        assert!(
            p["path"].is_string() && p["message"].is_string(),
            "{}",
            pretty(p)
        );
    }
    assert!(
        problem_texts(&out).iter().any(|t| t.contains("skill.json")),
        "{}",
        pretty(&out)
    );
    assert!(
        !run.stderr.trim().is_empty(),
        "problems not explained on stderr"
    );
}

/// A config.json violating config-schema.json: invalid, exit 1, one problem
/// per violation (wrong type and value outside the enum).
#[test]
fn check_config_violating_schema_lists_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let dice = skill(&dir.path().join("skills"), "dice", &[("roll.sh", ROLL)]);
    write(&dice.join("config-schema.json"), CONFIG_SCHEMA);
    write(
        &dice.join("config.json"),
        r#"{"diceSides": "twenty", "mode": "cheating"}"#,
    );

    let run = check(&dice);
    let out = run.json();

    assert_eq!(run.code, 1, "{}", pretty(&out));
    assert_eq!(out["valid"], false);
    let texts = problem_texts(&out);
    assert!(
        texts.len() >= 2,
        "expected a problem per violation:\n{}",
        pretty(&out)
    );
    assert!(
        texts.iter().any(|t| t.contains("dicesides")),
        "wrong type not reported:\n{}",
        pretty(&out)
    );
    assert!(
        texts.iter().any(|t| t.contains("mode")),
        "enum violation not reported:\n{}",
        pretty(&out)
    );
    assert!(
        run.stderr.contains("diceSides") && run.stderr.contains("mode"),
        "stderr: {}",
        run.stderr
    );
}

/// Manifest problems and config problems are all reported in one run.
#[test]
fn check_reports_manifest_and_config_problems_together() {
    let dir = tempfile::tempdir().unwrap();
    let dice = dir.path().join("dice");
    write(
        &dice.join("skill.json"),
        r#"{"name": "dice", "description": "No version"}"#,
    );
    write(&dice.join("config-schema.json"), CONFIG_SCHEMA);
    write(&dice.join("config.json"), r#"{"diceSides": "twenty"}"#);

    let run = check(&dice);
    let out = run.json();

    assert_eq!(run.code, 1, "{}", pretty(&out));
    assert_eq!(out["valid"], false);
    let texts = problem_texts(&out);
    assert!(
        texts.iter().any(|t| t.contains("version")),
        "missing version not reported:\n{}",
        pretty(&out)
    );
    assert!(
        texts.iter().any(|t| t.contains("dicesides")),
        "config problem not reported:\n{}",
        pretty(&out)
    );
}
