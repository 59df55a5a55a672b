//! The player's corrections, kept as examples of the story's routing,
//! change how later inputs of the same kind are routed.

mod support;

use narratoria_core::skills::corrections::Correction;
use narratoria_routing::Calibration;

fn correction(input: &str, needed: &[&str], unneeded: &[&str]) -> Correction {
    Correction {
        id: 0,
        input: input.into(),
        needed: needed.iter().map(|s| s.to_string()).collect(),
        unneeded: unneeded.iter().map(|s| s.to_string()).collect(),
        created_at: String::new(),
    }
}

fn routed(
    router: &narratoria_routing::Router,
    catalog: &narratoria_core::skills::Catalog,
    input: &str,
) -> Vec<String> {
    support::routed_skills(router, catalog, input, &[])
}

#[test]
fn three_corrections_of_one_kind_route_a_fresh_input_of_that_kind_right() {
    let router = support::embedder_router(None, Calibration::default());
    let (_dir, catalog) = support::shipped_skills();
    // Haggling is a check, and routing missed it.
    let haggles = [
        correction(
            "Let's see if I can haggle for the horse",
            &["dice-roller/roll-dice"],
            &[],
        ),
        correction(
            "can I talk the fishwife into a cheaper price",
            &["dice-roller/roll-dice"],
            &["reputation"],
        ),
        correction(
            "I barter with the peddler for his lantern",
            &["dice-roller/roll-dice"],
            &["reputation"],
        ),
    ];
    // Following someone's directions is a walk, and routing rolled or recalled for it.
    let walks = [
        correction(
            "I follow the sailor's directions down to the foggy docks",
            &[],
            &["dice-roller"],
        ),
        correction(
            "I follow the old map's trail up to the ruined chapel",
            &[],
            &["memory"],
        ),
        correction(
            "I walk the road the carter told me about to the next village",
            &[],
            &["dice-roller"],
        ),
    ];
    // Fresh inputs of each kind, none of them among the corrections.
    let fresh_haggles = [
        "I haggle with the innkeeper over the price of the room",
        "haggle over the ferry fare",
    ];
    let fresh_walks = [
        "I follow the fisherman's directions to the lighthouse",
        "I follow the guard's directions to the barracks",
    ];
    // Before: the first of each kind is routed wrong.
    assert!(routed(&router, &catalog, fresh_haggles[0]).is_empty());
    assert!(!routed(&router, &catalog, fresh_walks[0]).is_empty());
    let corrected = catalog.with_corrections(&[haggles, walks].concat());
    for input in fresh_haggles {
        assert_eq!(
            routed(&router, &corrected, input),
            ["dice-roller"],
            "{input}"
        );
    }
    for input in fresh_walks {
        assert!(routed(&router, &corrected, input).is_empty(), "{input}");
    }
    // Other kinds of input route as before.
    for (input, want) in [
        (
            "I attack the bandit and remember his face",
            vec!["dice-roller", "memory"],
        ),
        (
            "I tip off the harbour watch about the smugglers",
            vec!["reputation"],
        ),
        ("I look around the room", vec![]),
    ] {
        assert_eq!(routed(&router, &corrected, input), want, "{input}");
    }
}

#[test]
fn the_skills_a_player_names_replace_the_decision_with_routing_s_scripts() {
    let router = support::embedder_router(None, Calibration::default());
    let (_dir, catalog) = support::shipped_skills();
    let input = "do I remember what the ferryman charged?";
    let decision = router.route(&catalog, input, &[]).unwrap();
    let needed = [
        "dice-roller".to_string(),
        "memory".to_string(),
        "weather".to_string(),
    ];
    let corrected = decision.clone().as_needed(&needed);
    let chosen: Vec<(&str, &str)> = corrected
        .skills
        .iter()
        .map(|r| (r.skill.as_str(), r.script.as_str()))
        .collect();
    // A skill the catalog lacks is left out; memory keeps the script routing chose.
    assert_eq!(
        chosen,
        [("dice-roller", "roll-dice"), ("memory", "recall-memory")]
    );
    let why = corrected.why();
    assert!(why.by_player && !decision.why().by_player);
    assert_eq!(why.skills.iter().filter(|s| s.chosen).count(), 2);
    // The scores stay routing's.
    assert_eq!(corrected.scores, decision.scores);
}
