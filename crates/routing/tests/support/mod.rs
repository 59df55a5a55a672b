//! Shared by the routing tests and the benchmark: the real embedding model
//! (which they need: without it they fail, naming the command that fetches it),
//! catalogs of the built-in skills (as shipped, or reworded by a fixture),
//! and the labelled input sets.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use narratoria_core::skills::{discover, Catalog};
use narratoria_routing::{Calibration, Router};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files of the all-MiniLM-L6-v2 folder that the router loads.
const EMBEDDER_FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

/// The files of the multilingual-e5-small folder.
const MULTILINGUAL_FILES: [&str; 2] = ["e5-small-q4.bin", "tokenizer.json"];

/// Names another encoder's folder to measure the router with (all-mpnet-
/// base-v2's, docs/narrator.md "Routing measurements"); unset: the shipped one.
pub const ENCODER_VAR: &str = "NARRATORIA_ROUTING_ENCODER";

/// The all-MiniLM-L6-v2 folder (or [`ENCODER_VAR`]'s). Panics, naming the
/// missing file and the command that fetches it, when it was never fetched:
/// `./test.sh` fetches it (through scripts/setup.sh) before the tests, so
/// without it a test fails instead of passing untested.
pub fn embedder_dir() -> PathBuf {
    let root = root().canonicalize().unwrap_or_else(|_| root());
    let dir = match std::env::var_os(ENCODER_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => root.join("models").join(narratoria_routing::MODEL_FOLDER),
    };
    let files: &[&str] = match dir.join(MULTILINGUAL_FILES[0]).is_file() {
        true => &MULTILINGUAL_FILES,
        false => &EMBEDDER_FILES,
    };
    for file in files {
        let path = dir.join(file);
        assert!(
            path.is_file(),
            "the embedding model is missing: {} not found; fetch it with \
             scripts/fetch-embedder.sh (./test.sh runs it through scripts/setup.sh)",
            path.display()
        );
    }
    dir
}

/// The multilingual-e5-small folder. Panics, naming the command that
/// fetches it, when it was never fetched (`./test.sh` fetches it).
pub fn multilingual_dir() -> PathBuf {
    let root = root().canonicalize().unwrap_or_else(|_| root());
    let dir = root
        .join("models")
        .join(narratoria_routing::locate::MULTILINGUAL_FOLDER);
    for file in MULTILINGUAL_FILES {
        let path = dir.join(file);
        assert!(
            path.is_file(),
            "the multilingual encoder is missing: {} not found; fetch it with \
             scripts/fetch-multilingual-encoder.sh (./test.sh runs it through scripts/setup.sh)",
            path.display()
        );
    }
    dir
}

/// A router over the multilingual encoder (or [`ENCODER_VAR`]'s, to
/// compare), uncached.
pub fn multilingual_router(calibration: Calibration) -> Router {
    let dir = match std::env::var_os(ENCODER_VAR) {
        Some(_) => embedder_dir(),
        None => multilingual_dir(),
    };
    Router::load(&dir)
        .expect("the multilingual encoder loads")
        .with_cache_dir(None)
        .with_calibration(calibration)
}

/// A router over the real model, caching in `cache` (`None`: no cache).
/// Panics like [`embedder_dir`] when the model was never fetched.
pub fn embedder_router(cache: Option<&Path>, calibration: Calibration) -> Router {
    Router::load(&embedder_dir())
        .expect("the embedding model loads")
        .with_cache_dir(cache.map(Path::to_path_buf))
        .with_calibration(calibration)
}

/// One labelled player input.
#[derive(Debug, Clone)]
pub struct Labelled {
    pub input: String,
    pub skills: Vec<String>,
    pub tools: Vec<String>,
}

fn labelled(file: &str) -> Vec<Labelled> {
    let path = root().join("crates/narrator/tests/data/routing").join(file);
    read_labelled(&path)
}

/// A half of the labelled set written in `language` (`fr`, `es`, `de`):
/// `tune.jsonl` or `heldout.jsonl` of its folder.
pub fn labelled_in(language: &str, file: &str) -> Vec<Labelled> {
    labelled(&format!("{language}/{file}"))
}

fn read_labelled(path: &Path) -> Vec<Labelled> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let list = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            Labelled {
                input: v["input"].as_str().expect("input").to_string(),
                skills: list("skills"),
                tools: list("tools"),
            }
        })
        .collect()
}

/// The tuning half of the labelled set (thresholds were chosen on it).
pub fn tune() -> Vec<Labelled> {
    labelled("tune.jsonl")
}

/// The held-out half, never tuned on.
pub fn heldout() -> Vec<Labelled> {
    labelled("heldout.jsonl")
}

/// The fresh set, written after the held-out half's misses were read and
/// before the next change (README beside it); unseen until 2026-11-25, now
/// one of the tuning inputs ([`tuning`]).
pub fn fresh() -> Vec<Labelled> {
    labelled("fresh.jsonl")
}

/// The second fresh set, written after the fresh set's misses were read
/// and before the next change (README beside it); now a tuning input.
pub fn fresh2() -> Vec<Labelled> {
    labelled("fresh2.jsonl")
}

/// The third fresh set, written after the second fresh set's misses were
/// read and before the next change (README beside it); now a tuning input.
pub fn fresh3() -> Vec<Labelled> {
    labelled("fresh3.jsonl")
}

/// The compound deeds' tuning half: turns needing two skills (README
/// beside it).
pub fn compound_tune() -> Vec<Labelled> {
    labelled("compound_tune.jsonl")
}

/// The compound deeds' held-out half, never tuned on.
pub fn compound_heldout() -> Vec<Labelled> {
    labelled("compound_heldout.jsonl")
}

/// The inputs calibrations are chosen on: the tuning half and the three
/// fresh sets (292 inputs; docs/narrator.md, "Routing"). The held-out half
/// and the reworded run only report.
pub fn tuning() -> Vec<Labelled> {
    let mut items = tune();
    items.extend(fresh());
    items.extend(fresh2());
    items.extend(fresh3());
    items
}

/// A temporary skills folder with the built-in skills' `skill.json` and
/// `prompt.md` as shipped (storyteller included), with stub scripts.
pub fn shipped_skills() -> (tempfile::TempDir, Catalog) {
    let dir = tempfile::tempdir().unwrap();
    for name in ["storyteller", "dice-roller", "memory", "reputation"] {
        copy_skill(&root().join("skills").join(name), &dir.path().join(name));
    }
    let catalog = discover(&[dir.path().to_path_buf()]).expect("skills folder is usable");
    assert_eq!(
        catalog.skills().len(),
        4,
        "problems: {:?}",
        catalog.problems
    );
    (dir, catalog)
}

/// The built-in skills reworded (descriptions and examples in other words),
/// from tests/fixtures/reworded, plus the shipped storyteller.
pub fn reworded_skills() -> (tempfile::TempDir, Catalog) {
    let dir = tempfile::tempdir().unwrap();
    copy_skill(
        &root().join("skills/storyteller"),
        &dir.path().join("storyteller"),
    );
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reworded");
    let catalog =
        discover(&[dir.path().to_path_buf(), fixtures]).expect("skills folders are usable");
    assert_eq!(
        catalog.skills().len(),
        4,
        "problems: {:?}",
        catalog.problems
    );
    (dir, catalog)
}

/// Copies a skill's manifest and guide, with a stub for each script.
fn copy_skill(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("scripts")).unwrap();
    let manifest = std::fs::read_to_string(from.join("skill.json")).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    for script in parsed["scripts"].as_object().unwrap().keys() {
        let path = to.join("scripts").join(script);
        std::fs::write(&path, "#!/bin/sh\ncat >/dev/null\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    std::fs::write(to.join("skill.json"), manifest).unwrap();
    if from.join("prompt.md").is_file() {
        std::fs::copy(from.join("prompt.md"), to.join("prompt.md")).unwrap();
    }
}

/// The skills `router` routes `input` to with `disabled` left out, sorted.
/// How `router` routes `items` over `catalog`.
pub fn score(router: &Router, catalog: &Catalog, items: &[Labelled]) -> Score {
    let mut s = Score::default();
    for item in items {
        let got = routed_skills(router, catalog, &item.input, &[]);
        s.add(&item.input, &item.skills, &got);
    }
    s
}

pub fn routed_skills(
    router: &Router,
    catalog: &Catalog,
    input: &str,
    disabled: &[String],
) -> Vec<String> {
    let mut got: Vec<String> = router
        .route(catalog, input, disabled)
        .expect("routing runs")
        .skills
        .into_iter()
        .map(|r| r.skill)
        .collect();
    got.sort();
    got
}

/// Exact-set accuracy and per-skill precision and recall of a router.
#[derive(Debug, Default)]
pub struct Score {
    pub exact: usize,
    pub total: usize,
    /// skill → (true positives, false positives, false negatives)
    pub per_skill: std::collections::BTreeMap<String, (usize, usize, usize)>,
    pub misses: Vec<String>,
}

impl Score {
    pub fn add(&mut self, input: &str, want: &[String], got: &[String]) {
        let mut want = want.to_vec();
        want.sort();
        let mut got = got.to_vec();
        got.sort();
        got.dedup();
        self.total += 1;
        if want == got {
            self.exact += 1;
        } else {
            self.misses
                .push(format!("{input:?}: want {want:?}, routed {got:?}"));
        }
        for s in ["dice-roller", "memory", "reputation"] {
            let e = self.per_skill.entry(s.to_string()).or_default();
            let (w, g) = (want.iter().any(|x| x == s), got.iter().any(|x| x == s));
            match (w, g) {
                (true, true) => e.0 += 1,
                (false, true) => e.1 += 1,
                (true, false) => e.2 += 1,
                _ => {}
            }
        }
    }

    pub fn accuracy(&self) -> f64 {
        self.exact as f64 / self.total.max(1) as f64
    }

    /// One line: exact, then precision / recall per skill.
    pub fn line(&self) -> String {
        let mut s = format!(
            "exact {}/{} = {:.0} %",
            self.exact,
            self.total,
            100.0 * self.accuracy()
        );
        for (skill, (tp, fp, fn_)) in &self.per_skill {
            let p = *tp as f64 / (tp + fp).max(1) as f64;
            let r = *tp as f64 / (tp + fn_).max(1) as f64;
            s.push_str(&format!(
                "; {skill} P {:.0} % R {:.0} %",
                100.0 * p,
                100.0 * r
            ));
        }
        s
    }
}
