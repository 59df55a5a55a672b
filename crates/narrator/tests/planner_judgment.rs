//! The planner model's own choice of skills beside the router's, measured
//! (docs/narrator.md, "Routing measurements, 2026-12-01"): the model plans
//! each labelled input with every tool in one grammar (`Prefilter::Off`),
//! and a vote that adds a skill the model chose, or keeps one only it
//! confirms, is searched on the tuning half and reported on the held-out
//! sets. A measurement, not a check:
//! `NARRATORIA_JUDGE_MODEL=FILE.gguf cargo test -p narratoria-narrator
//! --release --test planner_judgment -- --ignored --nocapture`.

mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use narratoria_core::planner::{PlanRequest, Planner};
use narratoria_narrator::{Levers, LlamaPlanner, LoadOptions, PlannerOptions, Prefilter};
use serde_json::{Map, Value};

/// One labelled input, what the router made of it and what the model chose.
struct Judged {
    want: BTreeSet<String>,
    routed: BTreeSet<String>,
    model: BTreeSet<String>,
    /// Each skill's router score for the whole input.
    scores: Vec<(String, f32)>,
}

fn labelled(file: &str) -> Vec<(String, BTreeSet<String>)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/routing")
        .join(file);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let skills = v["skills"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect();
            (v["input"].as_str().unwrap().to_string(), skills)
        })
        .collect()
}

/// The skills after the vote: the router's, less those only the router
/// chose scoring under `keep`, plus those only the model chose scoring at
/// least `add`, at most two, best score first.
fn voted(j: &Judged, add: f32, keep: f32) -> BTreeSet<String> {
    let score = |s: &str| {
        j.scores
            .iter()
            .find(|(k, _)| k == s)
            .map_or(f32::MIN, |(_, v)| *v)
    };
    let mut chosen: Vec<&String> = j
        .routed
        .iter()
        .filter(|s| j.model.contains(*s) || score(s) >= keep)
        .chain(
            j.model
                .iter()
                .filter(|s| !j.routed.contains(*s) && score(s) >= add),
        )
        .collect();
    chosen.sort_by(|a, b| score(b).total_cmp(&score(a)));
    chosen.into_iter().take(2).cloned().collect()
}

fn exact(set: &[Judged], f: impl Fn(&Judged) -> BTreeSet<String>) -> usize {
    set.iter().filter(|j| f(j) == j.want).count()
}

#[test]
#[ignore = "a measurement with a model named by NARRATORIA_JUDGE_MODEL; prints figures"]
fn the_planner_models_choice_beside_the_router() {
    let Some(model) = std::env::var_os("NARRATORIA_JUDGE_MODEL") else {
        panic!("set NARRATORIA_JUDGE_MODEL to a GGUF file");
    };
    let planner = LlamaPlanner::load(std::path::Path::new(&model), LoadOptions::default())
        .expect("the model loads");
    planner.set_options(PlannerOptions {
        levers: Levers {
            prefilter: Prefilter::Off,
            ..Levers::default()
        },
        ..PlannerOptions::default()
    });
    let router = planner.router().expect("the embedding model loads");
    let (_dir, catalog) = support::real_skills_catalog();
    planner
        .warm_up(&catalog, Instant::now() + Duration::from_secs(120))
        .expect("the prompt prefix warms up");
    let state = Map::new();
    let judge = |file: &str| -> Vec<Judged> {
        labelled(file)
            .into_iter()
            .map(|(input, want)| {
                let decision = router.route(&catalog, &input, &[]).unwrap();
                let request = PlanRequest {
                    narrative: false,
                    ..PlanRequest::first(
                        &input,
                        &catalog,
                        &state,
                        Instant::now() + Duration::from_secs(60),
                    )
                };
                let started = Instant::now();
                let model: BTreeSet<String> = match planner.plan(&request, &mut |_| {}) {
                    Ok(outcome) => outcome
                        .plan
                        .tools
                        .iter()
                        .filter_map(|t| t.tool_path.split_once('/').map(|(s, _)| s.to_string()))
                        .filter(|s| s != "storyteller")
                        .collect(),
                    Err(e) => {
                        println!("{input:?}: no plan ({e})");
                        BTreeSet::new()
                    }
                };
                let routed = decision.skills.iter().map(|r| r.skill.clone()).collect();
                println!(
                    "{file}: {input:?}: want {want:?}, routed {routed:?}, model {model:?} ({} ms)",
                    started.elapsed().as_millis()
                );
                Judged {
                    want,
                    routed,
                    model,
                    scores: decision
                        .scores
                        .iter()
                        .map(|s| {
                            (
                                s.skill.clone(),
                                s.per_text.first().copied().unwrap_or(f32::MIN),
                            )
                        })
                        .collect(),
                }
            })
            .collect()
    };
    let tune = judge("tune.jsonl");
    let heldout = judge("heldout.jsonl");
    let compound = judge("compound_heldout.jsonl");
    let mut best = (0, f32::INFINITY, f32::NEG_INFINITY);
    for a in 0..=30 {
        for k in 0..=36 {
            let add = if a == 30 {
                f32::INFINITY
            } else {
                -6.0 + 0.5 * a as f32
            };
            let keep = if k == 36 {
                f32::NEG_INFINITY
            } else {
                -6.0 + 0.5 * k as f32
            };
            let n = exact(&tune, |j| voted(j, add, keep));
            if n > best.0 {
                best = (n, add, keep);
            }
        }
    }
    let (_, add, keep) = best;
    for (name, set) in [
        ("tuning half", &tune),
        ("held-out half", &heldout),
        ("compound held-out", &compound),
    ] {
        println!(
            "{name}: router {}/{n}, model alone {}/{n}, vote (add from {add}, keep from {keep}) {}/{n}",
            exact(set, |j| j.routed.clone()),
            exact(set, |j| j.model.clone()),
            exact(set, |j| voted(j, add, keep)),
            n = set.len()
        );
    }
}
