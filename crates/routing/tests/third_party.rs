//! Skills the router has never seen (a weather skill and a shop skill, from
//! tests/fixtures/third-party) are chosen by their own examples, beside the
//! built-in skills, with no change to the engine.

mod support;

use narratoria_core::skills::discover;
use narratoria_routing::Calibration;

#[test]
fn third_party_skills_are_chosen_for_their_inputs_and_left_out_otherwise() {
    let router = support::embedder_router(None, Calibration::default());
    let (dir, _) = support::shipped_skills();
    let third = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/third-party");
    let catalog = discover(&[dir.path().to_path_buf(), third]).unwrap();
    assert_eq!(catalog.skills().len(), 6, "{:?}", catalog.problems);
    let routed = |input: &str| -> Vec<String> {
        let mut s: Vec<String> = router
            .route(&catalog, input, &[])
            .unwrap()
            .skills
            .into_iter()
            .map(|r| format!("{}/{}", r.skill, r.script))
            .collect();
        s.sort();
        s
    };
    for (input, want) in [
        (
            "is it going to rain when we reach the harbor?",
            vec!["weather/forecast"],
        ),
        (
            "what will the weather be like up in the hills tomorrow",
            vec!["weather/forecast"],
        ),
        (
            "any chance of a blizzard on the pass?",
            vec!["weather/forecast"],
        ),
        ("I buy two torches and a waterskin", vec!["shop/buy"]),
        (
            "how much does the shopkeeper want for that bow?",
            vec!["shop/buy"],
        ),
        ("I'd like to purchase a warm blanket", vec!["shop/buy"]),
        (
            "I attack the troll with my spear",
            vec!["dice-roller/roll-dice"],
        ),
        (
            "remember that the shopkeeper is called Wenna",
            vec!["memory/store-memory"],
        ),
        ("I look around the market square", vec![]),
        ("I sit by the window and watch the clouds", vec![]),
        ("I say hello to the merchant", vec![]),
    ] {
        assert_eq!(routed(input), want, "{input:?}");
    }
    // Disabled for this plan: never chosen.
    let d = router
        .route(&catalog, "I buy a rope", &["shop".to_string()])
        .unwrap();
    assert!(d.skills.iter().all(|r| r.skill != "shop"), "{d:?}");
}
