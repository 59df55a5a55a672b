//! A disabled skill — turned off by the player, or failed on this turn — is
//! left out of what an input needs, and no other skill takes its place.

mod support;

use narratoria_routing::Calibration;

fn routed(
    router: &narratoria_routing::Router,
    catalog: &narratoria_core::skills::Catalog,
    input: &str,
    disabled: &[&str],
) -> Vec<String> {
    let disabled: Vec<String> = disabled.iter().map(|s| s.to_string()).collect();
    support::routed_skills(router, catalog, input, &disabled)
}

#[test]
fn a_disabled_skill_is_not_replaced_by_the_next_likeliest() {
    let router = support::embedder_router(None, Calibration::default());
    let (_dir, catalog) = support::shipped_skills();
    let deed = "I tip off the harbour watch about the smugglers";
    assert_eq!(routed(&router, &catalog, deed, &[]), ["reputation"]);
    // Without reputation the turn is told without mechanics, not rolled for.
    assert!(routed(&router, &catalog, deed, &["reputation"]).is_empty());
    // A turn needing two skills keeps the one still usable.
    let both = "I attack the bandit and remember his face";
    assert_eq!(
        routed(&router, &catalog, both, &[]),
        ["dice-roller", "memory"]
    );
    assert_eq!(
        routed(&router, &catalog, both, &["memory"]),
        ["dice-roller"]
    );
    // The explanation leaves the disabled skill out.
    let decision = router
        .route(&catalog, deed, &["reputation".to_string()])
        .unwrap();
    assert!(decision.scores.iter().all(|s| s.skill != "reputation"));
}
