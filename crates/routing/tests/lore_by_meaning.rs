//! Lore entries are told when the turn is about them in other words than
//! their keys: the router's embedding model judges the likeness, over the
//! Ashford scenario's lorebook (docs/scenarios.md, "Lorebooks").

mod support;

use narratoria_core::narration::story_context;
use narratoria_core::scenario::lore::{LoreReason, LoreUse};
use narratoria_core::scenario::{initial_state, library};
use narratoria_routing::Calibration;
use serde_json::{Map, Value};

fn ashford() -> Map<String, Value> {
    let path = support::root().join("scenarios/ashford.json");
    initial_state(&library::read_file(&path).expect("the Ashford scenario reads"))
}

/// Inputs that name none of an entry's keys, and the entry they are about.
const ABOUT: &[(&str, &str)] = &[
    ("I break the wax on the envelope", "The sealed letter"),
    ("How much for a bed for the night?", "The Drowned Lantern"),
    ("Who was the night guard who died?", "The burned bridge"),
    (
        "Is the current strong enough to swim across?",
        "The Grey River",
    ),
    ("Are the two realms about to go to battle?", "Varra and Esk"),
    (
        "What do the boatmen want to take me over?",
        "The crossing toll",
    ),
    (
        "Someone set the crossing ablaze on purpose",
        "The burned bridge",
    ),
    (
        "I ask who runs this place and pours the drinks",
        "Mara Vell",
    ),
];

/// Inputs about nothing in the lorebook.
const UNRELATED: &[&str] = &[
    "I sharpen my sword",
    "I tell a joke to the dog",
    "I look at the stars",
    "I order a meal",
    "I stretch and yawn",
    "I count my coins",
    "I hum a song while I wait",
    "I tie my bootlaces",
];

fn by_meaning(told: &[LoreUse]) -> Vec<(String, f32)> {
    told.iter()
        .filter(|u| u.by == LoreReason::Meaning)
        .map(|u| (u.name.clone(), u.similarity.unwrap_or(f32::NAN)))
        .collect()
}

#[test]
fn lore_is_told_by_meaning_when_its_keys_are_not_used() {
    let router = support::embedder_router(None, Calibration::default());
    let state = ashford();
    let mut found = 0;
    for (input, entry) in ABOUT {
        let told = story_context(&state, input, &[], Some(&router)).expect("Ashford tells");
        let meant = by_meaning(&told.lore_used);
        eprintln!("{input:50} -> {meant:?}");
        assert!(meant.len() <= 2, "{input}: {meant:?}");
        if meant.iter().any(|(name, _)| name == entry) {
            found += 1;
            assert!(told.text.contains("Lore: "), "{}", told.text);
        }
    }
    let mut strays = 0;
    for input in UNRELATED {
        let told = story_context(&state, input, &[], Some(&router)).expect("Ashford tells");
        let meant = by_meaning(&told.lore_used);
        eprintln!("{input:50} -> {meant:?}");
        strays += meant.len();
    }
    eprintln!(
        "lore by meaning: {found}/{} entries found, {strays} told for {} unrelated inputs",
        ABOUT.len(),
        UNRELATED.len()
    );
    // Measured at 5 of 8 with no stray (docs/scenarios.md, "Lorebooks").
    assert!(
        found * 2 >= ABOUT.len(),
        "only {found} of {} found",
        ABOUT.len()
    );
    assert!(strays <= 1, "{strays} entries told for unrelated inputs");
}

#[test]
fn keys_still_win_and_no_model_means_keys_alone() {
    let state = ashford();
    let keys_only = story_context(&state, "I pay the ferry fare", &[], None).unwrap();
    assert_eq!(
        keys_only
            .lore_used
            .iter()
            .map(|u| (u.name.as_str(), u.by))
            .collect::<Vec<_>>(),
        [("The crossing toll", LoreReason::Keys)]
    );
    let nothing = story_context(&state, "I break the wax on the envelope", &[], None).unwrap();
    assert!(by_meaning(&nothing.lore_used).is_empty());
    let router = support::embedder_router(None, Calibration::default());
    let judged = story_context(&state, "I pay the ferry fare", &[], Some(&router)).unwrap();
    let toll = judged
        .lore_used
        .iter()
        .find(|u| u.name == "The crossing toll")
        .unwrap();
    assert_eq!(toll.by, LoreReason::Keys);
    assert!(toll.similarity.is_some());
}
