//! Questions a story can answer, over a scenario of its own (not one the
//! product ships) and the turns played in it.

use serde_json::json;

use super::*;
use crate::planner::TurnSummary;
use crate::scenario::start::initial_state;
use crate::scenario::Scenario;

fn western() -> Map<String, Value> {
    let scenario: Scenario = serde_json::from_value(json!({
        "name": "dry-creek",
        "title": "Dry Creek, 1878",
        "premise": "Silver was found in Dry Creek a year ago; now the claim office burns and the stage is late.",
        "setting": "A mining town in the Nevada hills, dust and whisky and hard men.",
        "location": "The main street",
        "player": {"name": "Ruth Calloway", "description": "A shotgun guard for the Prescott stage line, stubborn and fair."},
        "people": [
            {"name": "Dot Malloy", "description": "Dot Malloy waits tables at the Silver Dollar and hears everything.", "keys": ["Dot"]},
            {"name": "Jonas Pike", "description": "Owner of the Silver Dollar saloon, owes money to half the town.", "keys": ["Pike", "saloon owner"]}
        ],
        "factions": [
            {"id": "prescott", "name": "Prescott Stage Line", "description": "Runs the coaches between Carson and Dry Creek.", "standing": 10}
        ],
        "lore": [
            {"name": "The assay office", "keys": ["assay office"], "content": "The assayer, a nervous man named Whitcombe, has been in town only three months. He weighs every ounce twice."}
        ]
    }))
    .unwrap();
    initial_state(&scenario)
}

fn ask(q: &str, turns: &[TurnSummary]) -> Option<Answer> {
    answer(q, &sources(&western(), turns), &Language::english())
}

#[test]
fn a_name_held_only_in_a_lore_entry_s_text_is_answered() {
    let a = ask("What was the name of the assayer again?", &[]).expect("answered");
    assert!(a.text.contains("Whitcombe"), "{a:?}");
    assert_eq!(a.source, SourceKind::Lore);
}

#[test]
fn a_person_is_found_by_what_they_do_not_only_by_their_keys() {
    // "waitress" is not a key: the description says she waits tables.
    let a = ask("Who owns the saloon?", &[]).expect("answered");
    assert!(a.text.contains("Jonas Pike"), "{a:?}");
    assert_eq!(a.source, SourceKind::Person);
}

#[test]
fn what_the_player_did_in_an_earlier_turn_is_answered_from_it() {
    let turns = vec![
        TurnSummary {
            input: "I slip the waitress a note with my office address, 221 Pier Row".into(),
            narrative: "She pockets the note without a word.".into(),
        },
        TurnSummary {
            input: "I order coffee".into(),
            narrative: "The coffee is bitter.".into(),
        },
    ];
    let a = ask("What address did I give the waitress?", &turns).expect("answered");
    assert!(a.text.contains("221 Pier Row"), "{a:?}");
    assert!(
        a.text.starts_with("You slip"),
        "told in the second person: {a:?}"
    );
    assert_eq!(a.source, SourceKind::Turn);
}

#[test]
fn a_faction_is_answered_from_its_description() {
    let a = ask("What is the Prescott Stage Line?", &[]).expect("answered");
    assert!(a.text.contains("coaches"), "{a:?}");
}

#[test]
fn a_sentence_without_its_subject_is_told_with_its_name() {
    let a = ask("Who owes money to half the town?", &[]).expect("answered");
    assert!(a.text.starts_with("Jonas Pike. Owner of"), "{a:?}");
    let a = ask("Who is Ruth Calloway?", &[]).expect("answered");
    assert!(
        a.text.starts_with("Ruth Calloway, a shotgun guard"),
        "{a:?}"
    );
}

#[test]
fn a_person_s_later_sentence_is_told_after_the_one_that_names_them() {
    let mut state = western();
    state.insert(
        "lore".into(),
        json!([{"name": "Tobias Kell", "keys": ["Tobias Kell", "driver"],
                "content": "Tobias Kell drives the stage. He trusts only his brother Amos."}]),
    );
    let a = answer(
        "Who does the driver trust?",
        &sources(&state, &[]),
        &Language::english(),
    )
    .unwrap();
    assert_eq!(
        a.text,
        "Tobias Kell drives the stage. He trusts only his brother Amos."
    );
}

#[test]
fn who_owns_the_station_is_answered_with_its_owner_not_the_setting() {
    let scenario = crate::scenario::builtin::find("tithonus").expect("the built-in scenario");
    let state = initial_state(&scenario);
    let a = answer(
        "Who owns the station?",
        &sources(&state, &[]),
        &Language::english(),
    )
    .unwrap();
    // Told as a sentence of the story's, not as the entry's label.
    assert!(
        a.text
            .starts_with("Halvorsen Extraction, the corporation that owns Tithonus."),
        "{a:?}"
    );
    assert_eq!(a.source, SourceKind::Faction);
}

#[test]
fn a_deed_or_a_question_the_story_cannot_answer_gets_no_answer() {
    assert_eq!(ask("I walk into the saloon", &[]), None);
    assert_eq!(ask("What is the capital of France?", &[]), None);
    assert_eq!(ask("What now?", &[]), None);
}

#[test]
fn the_answer_is_bounded() {
    let mut state = western();
    state.insert(
        "lore".into(),
        json!([{"name": "Long", "keys": ["ledger"], "content": "The ledger ".to_string() + &"lists debts ".repeat(200) + "."}]),
    );
    let a = answer(
        "What is in the ledger?",
        &sources(&state, &[]),
        &Language::english(),
    )
    .unwrap();
    assert!(a.text.chars().count() <= ANSWER_CHARS);
}
