//! Shared by the model tests and the benchmark: a synthetic catalog of the
//! four built-in skills, the labeled input set, and the default model path.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use narratoria_core::skills::{discover, Catalog};
use serde_json::{json, Value};

/// The default model; fails with instructions when it has not been fetched.
pub fn model_path() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root
        .join("models")
        .join(narratoria_narrator::DEFAULT_MODEL_FILE);
    if !path.is_file() {
        panic!(
            "the default model {} is missing: run scripts/fetch-model.sh first",
            path.display()
        );
    }
    path
}

/// One labeled player input.
#[derive(Debug, Clone)]
pub struct Labeled {
    pub input: String,
    pub skills: Vec<String>,
}

/// The labeled input set in tests/data/inputs.jsonl (the one the built-in
/// skills' guides and the prefilter were tuned on).
pub fn inputs() -> Vec<Labeled> {
    parse(include_str!("../data/inputs.jsonl"))
}

/// A second labeled set, tests/data/heldout.jsonl, written before tuning and
/// never tuned on: it shows how the skill choice carries over to new wording.
pub fn heldout() -> Vec<Labeled> {
    parse(include_str!("../data/heldout.jsonl"))
}

fn parse(text: &str) -> Vec<Labeled> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("inputs.jsonl line is JSON");
            Labeled {
                input: v["input"].as_str().expect("input").to_string(),
                skills: v["skills"]
                    .as_array()
                    .expect("skills")
                    .iter()
                    .map(|s| s.as_str().expect("skill name").to_string())
                    .collect(),
            }
        })
        .collect()
}

struct Script {
    name: &'static str,
    description: &'static str,
    schema: Value,
}

fn skill(root: &Path, name: &str, description: &str, guide: &str, scripts: Vec<Script>) {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    let mut manifest = json!({
        "name": name, "version": "1.0.0", "description": description, "scripts": {}
    });
    for s in &scripts {
        manifest["scripts"][s.name] =
            json!({"description": s.description, "inputSchema": s.schema});
        executable(
            &dir.join("scripts").join(format!("{}.sh", s.name)),
            "#!/bin/sh\ncat >/dev/null\necho '{\"version\":\"1\",\"type\":\"done\",\"ok\":true}'\n",
        );
    }
    std::fs::write(
        dir.join("skill.json"),
        serde_json::to_string_pretty(&manifest).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("prompt.md"), guide).unwrap();
}

/// Writes the four built-in skills (storyteller, dice-roller, memory,
/// reputation) with their toolPaths and input schemas into `root`.
pub fn write_builtin_skills(root: &Path) {
    skill(
        root,
        "storyteller",
        "Writes rich, vivid prose for scenes, places and ceremonies in the campaign's style.",
        "# Storyteller\n\nUse `storyteller/narrate` when the player asks to describe a place, a scene, a person or an event in detail, or asks for narration in a particular style (vivid, poetic).\n\nDo not use it for simple actions: the plan's own narrative covers those.",
        vec![Script {
            name: "narrate",
            description: "Writes a detailed description of a scene or event.",
            schema: json!({"type": "object", "properties": {
                "action": {"type": "string", "description": "What to describe.", "minLength": 1, "maxLength": 200},
                "style": {"enum": ["terse", "vivid", "poetic"]}
            }, "required": ["action"], "additionalProperties": false}),
        }],
    );
    skill(
        root,
        "dice-roller",
        "Rolls dice for game mechanics: attacks, skill checks, random events, from formulas such as 1d20+5 or 3d6.",
        "# Dice Roller\n\nUse `dice-roller/roll-dice` whenever the outcome of an action is uncertain: fighting (attack, strike, swing a sword, shoot, fire an arrow, cast a spell, duel), dodging, sneaking, climbing, jumping, leaping, picking locks, pickpocketing, persuading, bribing, gambling, escaping, breaking free, checks such as perception. Do not roll for things that simply happen.\n\n`formula`: dice terms like 1d20, 1d20+5, 3d6, 2d10-1. `reason`: what the roll is for.",
        vec![Script {
            name: "roll-dice",
            description: "Rolls a dice formula (e.g. \"1d20+5\", \"3d6\") and returns every die and the total.",
            schema: json!({"type": "object", "properties": {
                "formula": {"type": "string", "minLength": 1, "maxLength": 100, "examples": ["1d20+3"]},
                "reason": {"type": "string", "maxLength": 200}
            }, "required": ["formula"], "additionalProperties": false}),
        }],
    );
    skill(
        root,
        "memory",
        "Remembers story facts and recalls them later: names, promises, secrets, places, clues.",
        "# Memory\n\nUse `memory/store-memory` when the player asks to remember, note or write down a fact, or when something important is learned. Use `memory/recall-memory` when the player asks what they know, remember, recall or were told (what someone said, told or taught them), who someone was, or where something is.",
        vec![
            Script {
                name: "store-memory",
                description: "Stores a one-sentence summary of a story fact.",
                schema: json!({"type": "object", "properties": {
                    "summary": {"type": "string", "minLength": 1, "maxLength": 300},
                    "importance": {"type": "integer", "minimum": 1, "maximum": 5}
                }, "required": ["summary"], "additionalProperties": false}),
            },
            Script {
                name: "recall-memory",
                description: "Finds stored facts related to a query.",
                schema: json!({"type": "object", "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 200}
                }, "required": ["query"], "additionalProperties": false}),
            },
        ],
    );
    skill(
        root,
        "reputation",
        "Tracks the player's standing with factions: guilds, temples, churches, city guards, leagues, orders, rebels, kingdoms, elves.",
        "# Reputation\n\nUse `reputation/update-reputation` when the player helps, harms, betrays, insults, donates to or saves a faction (delta from -100 to 100). Use `reputation/query-reputation` when the player asks how a faction feels about them, what it thinks of them, or their standing.",
        vec![
            Script {
                name: "update-reputation",
                description: "Changes the player's standing with one faction.",
                schema: json!({"type": "object", "properties": {
                    "factionId": {"type": "string", "minLength": 1, "maxLength": 60},
                    "delta": {"type": "integer", "minimum": -100, "maximum": 100},
                    "reason": {"type": "string", "maxLength": 200}
                }, "required": ["factionId", "delta"], "additionalProperties": false}),
            },
            Script {
                name: "query-reputation",
                description: "Returns the player's standing with one faction.",
                schema: json!({"type": "object", "properties": {
                    "factionId": {"type": "string", "minLength": 1, "maxLength": 60}
                }, "required": ["factionId"], "additionalProperties": false}),
            },
        ],
    );
}

/// A temporary copy of the repository's built-in skills as players get them
/// (`skill.json`, `prompt.md`), with stub scripts in place of the compiled ones.
pub fn real_skills_catalog() -> (tempfile::TempDir, Catalog) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let dir = tempfile::tempdir().unwrap();
    for name in ["storyteller", "dice-roller", "memory", "reputation"] {
        let to = dir.path().join(name);
        std::fs::create_dir_all(to.join("scripts")).unwrap();
        let manifest = std::fs::read_to_string(src.join(name).join("skill.json")).unwrap();
        let parsed: Value = serde_json::from_str(&manifest).unwrap();
        for script in parsed["scripts"].as_object().unwrap().keys() {
            executable(
                &to.join("scripts").join(script),
                "#!/bin/sh\ncat >/dev/null\n",
            );
        }
        std::fs::write(to.join("skill.json"), manifest).unwrap();
        std::fs::copy(src.join(name).join("prompt.md"), to.join("prompt.md")).unwrap();
    }
    four_skills(dir)
}

/// A temporary skills folder with the four built-in skills, and its catalog.
pub fn builtin_catalog() -> (tempfile::TempDir, Catalog) {
    let dir = tempfile::tempdir().unwrap();
    write_builtin_skills(dir.path());
    four_skills(dir)
}

/// The catalog of `dir`, which must hold four usable skills.
fn four_skills(dir: tempfile::TempDir) -> (tempfile::TempDir, Catalog) {
    let catalog = discover(&[dir.path().to_path_buf()]).expect("skills folder is usable");
    assert_eq!(
        catalog.skills().len(),
        4,
        "problems: {:?}",
        catalog.problems
    );
    (dir, catalog)
}

/// Writes an executable script.
fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The skill of each of a plan's tools, in the plan's order.
pub fn skills_in_order(plan: &narratoria_core::Plan) -> Vec<String> {
    plan.tools
        .iter()
        .map(|t| {
            t.tool_path
                .split('/')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// The skills a plan uses, sorted and without duplicates.
pub fn skills_used(plan: &narratoria_core::Plan) -> Vec<String> {
    let mut s = skills_in_order(plan);
    s.sort();
    s.dedup();
    s
}
