//! The story's facts, answered by the rules: every question of
//! `data/fact_questions.json` (three stories in genres other than the
//! tavern, answers in the scenario, its lore, people and factions, and turns
//! played before) against [`known::answer`]. The held-out half must be
//! answered with the fact at least 90 % of the time; the figures are
//! printed for docs/stories.md.

use narratoria_core::planner::TurnSummary;
use narratoria_core::scenario::known::{answer, sources};
use narratoria_core::scenario::{initial_state, Scenario};
use narratoria_lexicon::Language;
use serde_json::Value;

#[test]
fn the_held_out_questions_are_answered_with_their_fact() {
    let data: Value =
        serde_json::from_str(include_str!("data/fact_questions.json")).expect("the set reads");
    let (mut right, mut asked) = ([0usize; 2], [0usize; 2]);
    let mut misses = Vec::new();
    for story in data["stories"].as_array().unwrap() {
        let scenario: Scenario = serde_json::from_value(story["scenario"].clone()).unwrap();
        let state = initial_state(&scenario);
        let turns: Vec<TurnSummary> = story["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| TurnSummary {
                input: t[0].as_str().unwrap().into(),
                narrative: t[1].as_str().unwrap().into(),
            })
            .collect();
        let known = sources(&state, &turns);
        for q in story["questions"].as_array().unwrap() {
            let half = usize::from(q["half"] == "held");
            let question = q["q"].as_str().unwrap();
            let told = answer(question, &known, &Language::english());
            let text = told.as_ref().map_or("", |a| a.text.as_str()).to_lowercase();
            let ok = q["expect"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| text.contains(&e.as_str().unwrap().to_lowercase()));
            asked[half] += 1;
            if ok {
                right[half] += 1;
            } else {
                misses.push(format!("{question} → {told:?}"));
            }
        }
    }
    println!(
        "fact questions answered: tuning {}/{}, held out {}/{}",
        right[0], asked[0], right[1], asked[1]
    );
    for m in &misses {
        println!("  missed: {m}");
    }
    assert!(
        right[1] * 10 >= asked[1] * 9,
        "held out {}/{}; missed:\n{}",
        right[1],
        asked[1],
        misses.join("\n")
    );
}
