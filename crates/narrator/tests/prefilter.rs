//! The keyword router over the labeled input sets, without the model: the
//! skills a plan with `Prefilter::Require` must use.

mod support;

use narratoria_core::skills::Catalog;
use narratoria_narrator::catalog::cards;
use narratoria_narrator::prompt::route;

#[test]
fn the_router_finds_most_needed_skills() {
    // Floors, not targets: the synthetic guides were written against the
    // labeled set; the held-out set and the shipped skills' own guides show
    // how keyword routing carries over.
    let (_a, synthetic) = support::builtin_catalog();
    score(
        "synthetic guides, labeled set",
        &synthetic,
        &support::inputs(),
        0.85,
    );
    score(
        "synthetic guides, held-out set",
        &synthetic,
        &support::heldout(),
        0.5,
    );
    let (_b, shipped) = support::real_skills_catalog();
    score(
        "shipped guides, labeled set",
        &shipped,
        &support::inputs(),
        0.5,
    );
    score(
        "shipped guides, held-out set",
        &shipped,
        &support::heldout(),
        0.35,
    );
}

fn score(label: &str, catalog: &Catalog, items: &[support::Labeled], floor: f64) {
    let cards = cards(catalog, &[]);
    let (mut exact, mut needed, mut found) = (0, 0, 0);
    for item in items {
        let mut got: Vec<String> = route(&cards, &item.input, 2)
            .iter()
            .map(|g| g[0].path.split('/').next().unwrap_or_default().to_string())
            .collect();
        got.sort();
        let mut want = item.skills.clone();
        want.sort();
        needed += want.len();
        found += want.iter().filter(|w| got.contains(w)).count();
        if got == want {
            exact += 1;
        } else {
            println!("{label}: {:?}: want {want:?}, routed {got:?}", item.input);
        }
    }
    println!(
        "{label}: exact {exact}/{}, needed skills found {found}/{needed}",
        items.len()
    );
    assert!(
        exact as f64 >= items.len() as f64 * floor,
        "{label}: exact {exact} of {}",
        items.len()
    );
}

/// Skill names of the keyword fallback's groups for `input`.
fn keyword_routed(catalog: &Catalog, input: &str, disabled: &[String]) -> Vec<String> {
    let usable = cards(catalog, disabled);
    let (groups, why) = narratoria_narrator::routing::route_skills(
        None, catalog, &usable, input, disabled, None, 2,
    );
    assert!(why.is_none(), "keywords give no routing explanation");
    groups
        .iter()
        .filter_map(|g| g.first())
        .map(|t| t.path.split_once('/').map_or("", |(s, _)| s).to_string())
        .collect()
}

#[test]
fn a_disabled_skill_is_not_replaced_by_keywords_either() {
    let (_dir, catalog) = support::real_skills_catalog();
    let off = ["reputation".to_string()];
    let mut items = support::inputs();
    items.extend(support::heldout());
    for item in items {
        let mut want = keyword_routed(&catalog, &item.input, &[]);
        want.retain(|s| s != "reputation");
        // Without reputation, what is left of the decision, and nothing else.
        assert_eq!(
            keyword_routed(&catalog, &item.input, &off),
            want,
            "{:?}",
            item.input
        );
    }
}
