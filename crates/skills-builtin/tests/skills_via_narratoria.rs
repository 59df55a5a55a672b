//! The built-in skills run for real: their folders and compiled scripts are
//! copied into a temporary skills folder and plans are executed by the
//! `narratoria` binary (`narratoria run-plan`), as the app does.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

/// The skill folders under test and their scripts (bin name = script name).
const SKILLS: &[(&str, &[(&str, &str)])] = &[
    (
        "dice-roller",
        &[("roll-dice", env!("CARGO_BIN_EXE_roll-dice"))],
    ),
    (
        "reputation",
        &[
            ("update-reputation", env!("CARGO_BIN_EXE_update-reputation")),
            ("query-reputation", env!("CARGO_BIN_EXE_query-reputation")),
        ],
    ),
    (
        "memory",
        &[
            ("store-memory", env!("CARGO_BIN_EXE_store-memory")),
            ("recall-memory", env!("CARGO_BIN_EXE_recall-memory")),
        ],
    ),
    (
        "game-master",
        &[("direct-turn", env!("CARGO_BIN_EXE_direct-turn"))],
    ),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `narratoria` binary, next to this package's binaries in the target folder.
fn narratoria() -> PathBuf {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_roll-dice")).parent().unwrap();
    let exe = bin_dir.join("narratoria");
    assert!(
        exe.is_file(),
        "{} is missing: build it first with `cargo build -p narratoria-cli` (same CARGO_TARGET_DIR)",
        exe.display()
    );
    exe
}

/// The embedding model fetched by scripts/fetch-embedder.sh.
fn model_dir() -> PathBuf {
    let dir = repo().join("models/all-MiniLM-L6-v2");
    assert!(
        dir.join("model.safetensors").is_file(),
        "the embedding model is missing at {}: run scripts/fetch-embedder.sh",
        dir.display()
    );
    dir
}

/// A temporary skills folder holding copies of the built-in skills.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for (skill, scripts) in SKILLS {
            let src = repo().join("skills").join(skill);
            let dst = dir.path().join("skills").join(skill);
            fs::create_dir_all(dst.join("scripts")).unwrap();
            for f in ["skill.json", "prompt.md", "config-schema.json"] {
                fs::copy(src.join(f), dst.join(f))
                    .unwrap_or_else(|e| panic!("{}/{f}: {e}", src.display()));
            }
            for (name, exe) in *scripts {
                fs::copy(exe, dst.join("scripts").join(name)).unwrap();
            }
        }
        Sandbox { dir }
    }

    fn skills(&self) -> PathBuf {
        self.dir.path().join("skills")
    }

    /// Writes a skill's `config.json`.
    fn config(&self, skill: &str, config: Value) -> &Sandbox {
        fs::write(
            self.skills().join(skill).join("config.json"),
            config.to_string(),
        )
        .unwrap();
        self
    }

    /// Runs `tools` as one plan (with `state` as the session state); returns
    /// the ExecutionResult.
    fn run(&self, tools: Value, state: Option<Value>) -> Value {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let plan_path = self.dir.path().join(format!("plan-{n}.json"));
        let plan = json!({"requestId": "6f1c2a4e-0000-4000-8000-000000000001", "tools": tools});
        fs::write(&plan_path, plan.to_string()).unwrap();
        let mut cmd = Command::new(narratoria());
        cmd.arg("run-plan")
            .arg(&plan_path)
            .arg("--skills")
            .arg(self.skills());
        if let Some(state) = state {
            let p = self.dir.path().join(format!("state-{n}.json"));
            fs::write(&p, state.to_string()).unwrap();
            cmd.arg("--state").arg(p);
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "run-plan printed no result ({e}), exit {:?}\nstdout: {stdout}\nstderr: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}

/// One tool of a plan.
fn tool(id: &str, path: &str, input: Value) -> Value {
    json!({"toolId": id, "toolPath": path, "input": input, "required": false,
           "retryPolicy": {"maxRetries": 1, "backoffMs": 10}})
}

/// A tool's result by id.
fn result<'a>(res: &'a Value, id: &str) -> &'a Value {
    res["executionTrace"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["toolId"] == id)
        .unwrap_or_else(|| panic!("no tool {id} in {res:#}"))
}

/// The output of a tool that must have succeeded.
fn ok_output<'a>(res: &'a Value, id: &str) -> &'a Value {
    let t = result(res, id);
    assert_eq!(t["ok"], true, "tool {id} failed: {t:#}");
    &t["output"]
}

/// The error of a tool that must have failed for bad input, not retried.
fn validation_error<'a>(res: &'a Value, id: &str) -> &'a Value {
    let t = result(res, id);
    assert_eq!(t["ok"], false, "tool {id} should have failed: {t:#}");
    assert_eq!(t["error"]["code"], "VALIDATION_ERROR", "{t:#}");
    assert_eq!(t["error"]["recoverable"], false, "{t:#}");
    assert_eq!(
        t["retryCount"], 0,
        "validation errors are not retried: {t:#}"
    );
    &t["error"]
}

/// Events of one type a tool emitted.
fn events<'a>(res: &'a Value, id: &str, kind: &str) -> Vec<&'a Value> {
    result(res, id)["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .collect()
}

// ---------------------------------------------------------------------------
// dice-roller
// ---------------------------------------------------------------------------

#[test]
fn dice_formulas_roll_within_their_bounds_and_show_the_roll() {
    let sb = Sandbox::new();
    let cases = [
        ("d20", "1d20", 1, 1, 20),
        ("d6s", "3d6+2", 3, 5, 20),
        ("d10m", "2d10-1", 2, 1, 19),
        ("sum", "1d20 + 1d4 + 3", 2, 5, 27),
        ("neg", "1d4-1d6", 2, -5, 3),
    ];
    let tools: Vec<Value> = cases
        .iter()
        .map(|(id, f, ..)| {
            tool(
                id,
                "dice-roller/roll-dice",
                json!({"formula": f, "reason": "test"}),
            )
        })
        .collect();
    let res = sb.run(json!(tools), None);
    assert_eq!(res["success"], true, "{res:#}");
    for (id, _, dice, lo, hi) in cases {
        let out = ok_output(&res, id);
        let total = out["total"].as_i64().unwrap();
        assert!(
            (lo..=hi).contains(&total),
            "{id}: {total} outside {lo}..={hi}"
        );
        assert_eq!(out["rolls"].as_array().unwrap().len(), dice, "{id}: {out}");
        let shown = events(&res, id, "ui_event");
        assert_eq!(shown.len(), 1, "{id}");
        assert_eq!(shown[0]["event"], "dice_roll");
        let p = &shown[0]["payload"];
        assert_eq!(
            (&p["formula"], &p["rolls"], &p["total"]),
            (&out["formula"], &out["rolls"], &out["total"])
        );
        assert_eq!(p["reason"], "test");
    }
    assert_eq!(ok_output(&res, "sum")["formula"], "1d20+1d4+3");
}

#[test]
fn a_check_against_a_difficulty_is_decided_by_the_rules() {
    let sb = Sandbox::new();
    let tools: Vec<Value> = (0..40u64)
        .map(|seed| {
            tool(
                &format!("c{seed}"),
                "dice-roller/roll-dice",
                json!({"formula": "1d20+2", "dc": 13, "seed": seed, "reason": "Climb the wall"}),
            )
        })
        .collect();
    let res = sb.run(Value::Array(tools), None);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40u64 {
        let id = format!("c{seed}");
        let out = ok_output(&res, &id);
        let natural = out["rolls"][0].as_i64().unwrap();
        let total = out["total"].as_i64().unwrap();
        assert_eq!(total, natural + 2);
        assert_eq!(out["dc"], 13);
        assert_eq!(out["margin"], total - 13, "{out:#}");
        let expected = match natural {
            20 => "criticalSuccess",
            1 => "criticalFailure",
            _ if total >= 13 => "success",
            _ => "failure",
        };
        assert_eq!(out["outcome"], expected, "{out:#}");
        seen.insert(expected);
        let shown = &events(&res, &id, "ui_event")[0]["payload"];
        assert_eq!(
            shown["outcome"], expected,
            "the player sees the same verdict"
        );
    }
    assert!(
        seen.contains("success") && seen.contains("failure"),
        "{seen:?}"
    );
    // Without a difficulty a roll has no outcome.
    let res = sb.run(
        json!([tool(
            "plain",
            "dice-roller/roll-dice",
            json!({"formula": "1d20", "seed": 1})
        )]),
        None,
    );
    assert!(ok_output(&res, "plain").get("outcome").is_none());
}

#[test]
fn dice_limits_and_bad_formulas_are_validation_errors() {
    let sb = Sandbox::new();
    let res = sb.run(
        json!([
            tool("many", "dice-roller/roll-dice", json!({"formula": "101d6"})),
            tool(
                "sides",
                "dice-roller/roll-dice",
                json!({"formula": "1d1000"})
            ),
            tool(
                "syntax",
                "dice-roller/roll-dice",
                json!({"formula": "1d20*2"})
            ),
            tool(
                "keep",
                "dice-roller/roll-dice",
                json!({"formula": "4d6kh5"})
            ),
            tool(
                "reroll",
                "dice-roller/roll-dice",
                json!({"formula": "2d6r6"})
            ),
            tool(
                "long",
                "dice-roller/roll-dice",
                json!({"formula": format!("1d20{}+1", " ".repeat(97))})
            ),
            tool("missing", "dice-roller/roll-dice", json!({})),
            tool("typed", "dice-roller/roll-dice", json!({"formula": 20})),
            tool(
                "extra",
                "dice-roller/roll-dice",
                json!({"formula": "1d6", "advantage": true})
            ),
        ]),
        None,
    );
    assert!(validation_error(&res, "many")["message"]
        .as_str()
        .unwrap()
        .contains("101 dice"));
    assert!(validation_error(&res, "sides")["message"]
        .as_str()
        .unwrap()
        .contains("d1000"));
    assert!(validation_error(&res, "syntax")["message"]
        .as_str()
        .unwrap()
        .contains("position"));
    assert!(validation_error(&res, "keep")["message"]
        .as_str()
        .unwrap()
        .contains("keep between 1 and 4"));
    assert!(validation_error(&res, "reroll")["message"]
        .as_str()
        .unwrap()
        .contains("reroll between 1 and 5"));
    // The formula's length is bounded by the input schema (100 characters),
    // even when what it says is fine.
    let long = validation_error(&res, "long")["message"].as_str().unwrap();
    assert!(
        long.contains("input.formula") && long.contains("longer"),
        "{long}"
    );
    assert!(validation_error(&res, "missing")["message"]
        .as_str()
        .unwrap()
        .contains("formula"));
    assert!(validation_error(&res, "typed")["message"]
        .as_str()
        .unwrap()
        .contains("input.formula"));
    assert!(validation_error(&res, "extra")["message"]
        .as_str()
        .unwrap()
        .contains("advantage"));
    // limits come from config
    sb.config("dice-roller", json!({"maxDice": 3, "maxSides": 12}));
    let res = sb.run(
        json!([
            tool(
                "four",
                "dice-roller/roll-dice",
                json!({"formula": "2d6+2d6"})
            ),
            tool("d20", "dice-roller/roll-dice", json!({"formula": "1d20"})),
            tool("fine", "dice-roller/roll-dice", json!({"formula": "3d12"})),
        ]),
        None,
    );
    assert!(validation_error(&res, "four")["message"]
        .as_str()
        .unwrap()
        .contains("limit of 3"));
    assert!(validation_error(&res, "d20")["message"]
        .as_str()
        .unwrap()
        .contains("12 sides"));
    ok_output(&res, "fine");
}

#[test]
fn advantage_exploding_and_rerolled_dice_roll_through_the_skill() {
    let sb = Sandbox::new();
    let res = sb.run(
        json!([
            tool(
                "advantage",
                "dice-roller/roll-dice",
                json!({"formula": "2d20kh1+2", "dc": 12, "seed": 7})
            ),
            tool(
                "disadvantage",
                "dice-roller/roll-dice",
                json!({"formula": "2d20 KL1", "seed": 7})
            ),
            tool(
                "explode",
                "dice-roller/roll-dice",
                json!({"formula": "4d6!", "seed": 7})
            ),
            tool(
                "reroll",
                "dice-roller/roll-dice",
                json!({"formula": "4d6r1kh3", "seed": 7})
            ),
        ]),
        None,
    );
    assert_eq!(res["success"], true, "{res:#}");
    let faces = |out: &Value| -> Vec<i64> {
        out["rolls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect()
    };
    let adv = ok_output(&res, "advantage");
    let kept = *faces(adv).iter().max().unwrap();
    assert_eq!(faces(adv).len(), 2, "{adv:#}");
    assert_eq!(adv["total"], kept + 2);
    assert_eq!(adv["natural"], kept, "the check judges the kept die");
    assert_eq!(adv["formula"], "2d20kh1+2");
    let dis = ok_output(&res, "disadvantage");
    assert_eq!(dis["total"], *faces(dis).iter().min().unwrap());
    assert_eq!(dis["formula"], "2d20kl1");
    let exp = ok_output(&res, "explode");
    let sixes = faces(exp).iter().filter(|&&d| d == 6).count();
    assert_eq!(faces(exp).len(), 4 + sixes, "{exp:#}");
    assert_eq!(exp["total"], faces(exp).iter().sum::<i64>());
    let rer = ok_output(&res, "reroll");
    assert!(faces(rer).len() >= 4, "{rer:#}");
    assert!(
        (3..=18).contains(&rer["total"].as_i64().unwrap()),
        "{rer:#}"
    );
    let shown = &events(&res, "advantage", "ui_event")[0];
    assert_eq!(shown["event"], "dice_roll");
    assert_eq!(shown["payload"]["rolls"], adv["rolls"]);
    assert_eq!(shown["payload"]["total"], adv["total"]);
}

#[test]
fn seeded_rolls_reproduce_across_runs_and_random_sources() {
    let sb = Sandbox::new();
    let plan = json!([
        tool(
            "a",
            "dice-roller/roll-dice",
            json!({"formula": "10d20+3", "seed": 42})
        ),
        tool(
            "b",
            "dice-roller/roll-dice",
            json!({"formula": "10d20+3", "seed": 43})
        ),
    ]);
    let first = sb.run(plan.clone(), None);
    sb.config("dice-roller", json!({"randomSource": "pseudo"}));
    let second = sb.run(plan, None);
    assert_eq!(ok_output(&first, "a"), ok_output(&second, "a"));
    assert_ne!(
        ok_output(&first, "a")["rolls"],
        ok_output(&first, "b")["rolls"]
    );
    // unseeded rolls from both sources stay in range
    let res = sb.run(
        json!([tool(
            "p",
            "dice-roller/roll-dice",
            json!({"formula": "50d6"})
        )]),
        None,
    );
    let rolls = ok_output(&res, "p")["rolls"].as_array().unwrap().clone();
    assert!(rolls.iter().all(|r| (1..=6).contains(&r.as_i64().unwrap())));
}

// ---------------------------------------------------------------------------
// reputation
// ---------------------------------------------------------------------------

fn audit_rows(sb: &Sandbox, faction: &str) -> Vec<(String, i64, Option<String>, i64)> {
    let db = sb.skills().join("reputation/data/reputation.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut st = conn
        .prepare("SELECT kind, delta, reason, score_after FROM reputation_log WHERE faction_id = ?1 ORDER BY id")
        .unwrap();
    st.query_map([faction], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn reputation_changes_are_clamped_logged_and_patched_into_state() {
    let sb = Sandbox::new();
    // Large single changes are allowed here to reach the scale's ends.
    sb.config("reputation", json!({"factionList": ["thieves-guild", "city-watch"], "reputationScale": {"min": -50, "max": 50}, "maxDelta": 100}));
    let up = |id: &str, f: &str, d: i64, why: &str| {
        tool(
            id,
            "reputation/update-reputation",
            json!({"factionId": f, "delta": d, "reason": why}),
        )
    };
    let res = sb.run(
        json!([up("u1", "thieves-guild", 30, "returned the ledger")]),
        None,
    );
    assert_eq!(ok_output(&res, "u1")["score"], 30);
    let res = sb.run(
        json!([up("u2", "thieves-guild", 40, "saved the guildmaster")]),
        None,
    );
    let out = ok_output(&res, "u2");
    assert_eq!(
        (
            out["score"].as_i64(),
            out["delta"].as_i64(),
            out["clamped"].as_bool()
        ),
        (Some(50), Some(20), Some(true))
    );
    assert_eq!(
        res["finalState"]["reputation"]["thieves-guild"]["score"],
        50
    );
    assert_eq!(
        res["finalState"]["reputation"]["thieves-guild"]["standing"],
        "allied"
    );
    let res = sb.run(
        json!([
            up("u3", "city-watch", -80, "caught stealing"),
            up("bad", "the-crown", 5, "bowed"),
            tool(
                "blank",
                "reputation/update-reputation",
                json!({"factionId": "city-watch", "delta": 1})
            ),
        ]),
        None,
    );
    assert_eq!(ok_output(&res, "u3")["score"], -50);
    assert!(validation_error(&res, "bad")["message"]
        .as_str()
        .unwrap()
        .contains("thieves-guild"));
    assert!(validation_error(&res, "blank")["message"]
        .as_str()
        .unwrap()
        .contains("reason"));
    assert_eq!(
        audit_rows(&sb, "thieves-guild"),
        vec![
            ("update".into(), 30, Some("returned the ledger".into()), 30),
            (
                "update".into(),
                20,
                Some("saved the guildmaster".into()),
                50
            ),
        ]
    );
    assert_eq!(audit_rows(&sb, "city-watch").len(), 1);
    let res = sb.run(
        json!([
            tool(
                "one",
                "reputation/query-reputation",
                json!({"factionId": "thieves-guild", "history": 5})
            ),
            tool("all", "reputation/query-reputation", json!({})),
        ]),
        None,
    );
    let one = ok_output(&res, "one");
    assert_eq!(one["score"], 50);
    assert_eq!(one["history"][0]["reason"], "saved the guildmaster");
    let all = ok_output(&res, "all")["factions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all.iter().find(|f| f["factionId"] == "city-watch").unwrap()["standing"],
        "hostile"
    );
}

#[test]
fn reputation_refuses_invented_factions_and_oversized_changes() {
    let sb = Sandbox::new();
    let up = |id: &str, f: &str, d: i64| {
        tool(
            id,
            "reputation/update-reputation",
            json!({"factionId": f, "delta": d, "reason": "helped out"}),
        )
    };
    // No faction exists anywhere yet: nothing may be invented.
    let res = sb.run(json!([up("made-up", "10000", 5)]), None);
    assert!(validation_error(&res, "made-up")["message"]
        .as_str()
        .unwrap()
        .contains("no factions yet"));
    // A faction the story names (its scenario's factions) may change, within the bound.
    let story = json!({"factions": [{"id": "temple", "name": "The Temple of Dawn"}]});
    let res = sb.run(
        json!([
            up("gift", "temple", 15),
            up("huge", "temple", 1000),
            up("other", "crown", 5)
        ]),
        Some(story),
    );
    assert_eq!(ok_output(&res, "gift")["score"], 15);
    let huge = validation_error(&res, "huge");
    assert!(
        huge["message"].as_str().unwrap().contains("±25"),
        "{huge:#}"
    );
    assert!(validation_error(&res, "other")["message"]
        .as_str()
        .unwrap()
        .contains("temple"));
    assert_eq!(res["finalState"]["reputation"]["temple"]["score"], 15);
    // Refused changes leave no trace in the ledger.
    assert_eq!(audit_rows(&sb, "temple").len(), 1);
    // Once in the ledger, the faction stays known to later turns.
    let res = sb.run(json!([up("again", "temple", -5)]), None);
    assert_eq!(ok_output(&res, "again")["score"], 10);
}

#[test]
fn reputation_decays_per_in_game_day_on_query() {
    let sb = Sandbox::new();
    sb.config(
        "reputation",
        json!({"decayRate": 0.1, "factionList": ["crown"], "maxDelta": 100}),
    );
    let res = sb.run(
        json!([tool(
            "u",
            "reputation/update-reputation",
            json!({"factionId": "crown", "delta": 50, "reason": "knighted", "day": 1})
        )]),
        None,
    );
    ok_output(&res, "u");
    // the day from input, then from session state (/world/day)
    let res = sb.run(
        json!([tool(
            "q",
            "reputation/query-reputation",
            json!({"factionId": "crown", "day": 3})
        )]),
        None,
    );
    let q = ok_output(&res, "q");
    assert_eq!(
        (
            q["score"].as_i64(),
            q["storedScore"].as_i64(),
            q["daysSinceChange"].as_i64()
        ),
        (Some(41), Some(50), Some(2))
    );
    let res = sb.run(
        json!([tool(
            "q",
            "reputation/query-reputation",
            json!({"factionId": "crown"})
        )]),
        Some(json!({"world": {"day": 11}})),
    );
    assert_eq!(ok_output(&res, "q")["score"], 17); // 50 × 0.9^10 = 17.4
                                                   // a change on a later day first applies (and logs) the decay
    let res = sb.run(
        json!([tool(
            "u2",
            "reputation/update-reputation",
            json!({"factionId": "crown", "delta": 5, "reason": "paid taxes"})
        )]),
        Some(json!({"world": {"day": 3}})),
    );
    assert_eq!(ok_output(&res, "u2")["score"], 46);
    let rows = audit_rows(&sb, "crown");
    assert_eq!(rows.len(), 3);
    assert_eq!((rows[1].0.as_str(), rows[1].1), ("decay", -9));
    assert_eq!(
        (rows[2].0.as_str(), rows[2].1, rows[2].3),
        ("update", 5, 46)
    );
}

// ---------------------------------------------------------------------------
// memory
// ---------------------------------------------------------------------------

const STORY: &[&str] = &[
    "Hilda the blacksmith lent the party twenty gold pieces in Ashford.",
    "The party fought a pack of wolves on the frozen north road.",
    "A hooded stranger in the tavern warned us about the lighthouse.",
    "We found an old map of the sewers beneath the cathedral.",
    "Captain Mara agreed to sail us to the Ember Isles at dawn.",
    "The bridge over the river collapsed behind the caravan.",
];

fn store_all(sb: &Sandbox) {
    let tools: Vec<Value> = STORY
        .iter()
        .enumerate()
        .map(|(i, s)| {
            tool(
                &format!("s{i}"),
                "memory/store-memory",
                json!({"summary": s, "metadata": {"importance": 5}}),
            )
        })
        .collect();
    let res = sb.run(json!(tools), None);
    assert_eq!(res["success"], true, "{res:#}");
}

#[test]
fn memory_recalls_by_meaning_with_the_embedding_model() {
    let sb = Sandbox::new();
    sb.config(
        "memory",
        json!({"embeddingModelDir": model_dir().to_str().unwrap(), "similarityThreshold": 0.1}),
    );
    store_all(&sb);
    let res = sb.run(
        json!([
            // no word in common with the memory it should find
            tool(
                "debt",
                "memory/recall-memory",
                json!({"query": "Who loaned us money?"})
            ),
            tool(
                "boat",
                "memory/recall-memory",
                json!({"query": "a ship voyage to the islands", "limit": 2})
            ),
            tool(
                "beasts",
                "memory/recall-memory",
                json!({"query": "wild beasts ambushed us while travelling"})
            ),
        ]),
        None,
    );
    let debt = ok_output(&res, "debt");
    assert_eq!(debt["mode"], "hybrid");
    assert_eq!(debt["memories"][0]["summary"], STORY[0], "{debt:#}");
    assert!(debt["memories"][0]["similarity"].as_f64().unwrap() > 0.1);
    assert_eq!(debt["memories"][0]["keywordMatch"], false);
    let boat = ok_output(&res, "boat");
    assert_eq!(boat["memories"][0]["summary"], STORY[4], "{boat:#}");
    assert!(boat["memories"].as_array().unwrap().len() <= 2);
    assert_eq!(
        ok_output(&res, "beasts")["memories"][0]["summary"],
        STORY[1]
    );
    assert!(events(&res, "debt", "log")
        .iter()
        .all(|e| e["level"] != "warn"));
    // the memories table holds the 384-float embedding
    let conn = rusqlite::Connection::open(sb.skills().join("memory/data/memories.db")).unwrap();
    let (n, len): (i64, i64) = conn
        .query_row(
            "SELECT count(*), min(length(embedding)) FROM memories",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((n, len), (STORY.len() as i64, 384 * 4));
}

#[test]
fn memory_falls_back_to_keywords_without_the_model_and_says_so() {
    let sb = Sandbox::new();
    let nowhere = sb.dir.path().join("no-model");
    sb.config(
        "memory",
        json!({"embeddingModelDir": nowhere.to_str().unwrap()}),
    );
    store_all(&sb);
    let res = sb.run(
        json!([
            tool(
                "wolves",
                "memory/recall-memory",
                json!({"query": "What happened with the wolves?"})
            ),
            tool("none", "memory/recall-memory", json!({"query": "zeppelin"})),
            tool("empty", "memory/recall-memory", json!({"query": ""})),
        ]),
        None,
    );
    let out = ok_output(&res, "wolves");
    assert_eq!(out["mode"], "keyword");
    assert_eq!(out["memories"][0]["summary"], STORY[1]);
    let warns = events(&res, "wolves", "log");
    assert!(
        warns
            .iter()
            .any(|e| e["level"] == "warn" && e["message"].as_str().unwrap().contains("FTS5")),
        "{warns:#?}"
    );
    assert_eq!(ok_output(&res, "none")["memories"], json!([]));
    assert!(validation_error(&res, "empty")["message"]
        .as_str()
        .unwrap()
        .contains("query"));
}

// ---------------------------------------------------------------------------
// the folders themselves
// ---------------------------------------------------------------------------

#[test]
fn skills_check_passes_on_every_built_in_folder() {
    let sb = Sandbox::new();
    for (skill, _) in SKILLS {
        let out = Command::new(narratoria())
            .args(["skills", "check"])
            .arg(sb.skills().join(skill))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "narratoria skills check {skill} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_bad_envelope_is_reported_not_a_crash() {
    let (_, scripts) = SKILLS[0];
    let out = Command::new(scripts[0].1)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"{not json\n")?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(!out.status.success());
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "error");
    assert_eq!(lines[0]["code"], "VALIDATION_ERROR");
    assert_eq!(
        lines[1],
        json!({"type": "done", "ok": false, "summary": lines[0]["message"]})
    );
}

/// A story's table as a scenario starts it: a thread, someone who wants
/// something, tension 7.
fn table_state() -> Value {
    json!({"location": "Docking ring C", "gm": {
        "tension": 7,
        "scene": {"number": 1, "turns": 0, "where": "Docking ring C", "present": [], "goal": ""},
        "threads": [{"title": "The countdown", "progress": 0, "steps": 4, "closed": false}],
        "people": [{"name": "Dee Marchetti", "keys": ["pilot"], "wants": "to take the claim and leave",
                    "attitude": "neutral", "met": false}],
        "facts": []}})
}

#[test]
fn the_game_master_directs_a_turn_from_its_check_and_replays_it_from_the_seed() {
    let sandbox = Sandbox::new();
    let plan = |seed: u64, question: &str| {
        json!([
            tool("roll", "dice-roller/roll-dice", json!({"formula": "1d20", "dc": 30, "seed": seed})),
            {"toolId": "direct", "toolPath": "game-master/direct-turn",
             "input": {"playerInput": question, "seed": seed}, "dependencies": ["roll"]}
        ])
    };
    let first = sandbox.run(
        plan(11, "I ask the pilot to force the hatch"),
        Some(table_state()),
    );
    let again = sandbox.run(
        plan(11, "I ask the pilot to force the hatch"),
        Some(table_state()),
    );
    let direction = ok_output(&first, "direct");
    assert_eq!(
        direction,
        ok_output(&again, "direct"),
        "the same seed and story direct alike"
    );
    assert_eq!(first["finalState"]["gm"], again["finalState"]["gm"]);
    // A check at difficulty 30 fails: tension rises and a serious price is paid.
    let outcome = ok_output(&first, "roll")["outcome"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(outcome.ends_with("ailure"), "{outcome}");
    assert!(direction["tension"].as_u64().unwrap() > 7, "{direction}");
    let beats = direction["beats"].as_array().unwrap();
    assert_eq!(beats[0]["kind"], "complication", "{direction}");
    // The pilot the words named is met and present, in the state kept.
    assert_eq!(direction["present"][0]["name"], "Dee Marchetti");
    assert_eq!(first["finalState"]["gm"]["people"][0]["met"], true);
    assert_eq!(direction["seed"], 11);

    // The oracle's answer is kept in the state and given again.
    let state = first["finalState"].clone();
    let asked = |state: Value, seed: u64| {
        let plan = json!([{"toolId": "direct", "toolPath": "game-master/direct-turn",
                           "input": {"playerInput": "Is the hatch sealed?", "seed": seed}}]);
        sandbox.run(plan, Some(state))
    };
    let answered = asked(state, 5);
    let oracle = ok_output(&answered, "direct")["oracle"].clone();
    assert_eq!(oracle["kept"], false);
    let kept = answered["finalState"]["gm"]["facts"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(kept, 1);
    let twice = asked(answered["finalState"].clone(), 6);
    let again = ok_output(&twice, "direct")["oracle"].clone();
    assert_eq!(again["kept"], true);
    assert_eq!(again["answer"], oracle["answer"]);
}

#[test]
fn a_table_that_does_not_read_is_refused_naming_it() {
    let sandbox = Sandbox::new();
    let plan = json!([{"toolId": "direct", "toolPath": "game-master/direct-turn",
                       "input": {"playerInput": "I wait", "seed": 1}}]);
    let res = sandbox.run(plan, Some(json!({"gm": {"tension": "high"}})));
    let error = validation_error(&res, "direct");
    assert!(
        error["message"].as_str().unwrap().contains("state.gm"),
        "{error}"
    );
}
