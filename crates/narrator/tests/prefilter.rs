//! The keyword prefilter over the labeled input set, without the model.

mod support;

use narratoria_narrator::catalog::cards;
use narratoria_narrator::prompt::keyword_hints;

#[test]
fn the_prefilter_finds_most_needed_skills() {
    // Floors, not targets: the labeled set is what the guides were written
    // against; the held-out set shows how keyword routing carries over.
    score("labeled set", &support::inputs(), 0.8);
    score("held-out set", &support::heldout(), 0.5);
}

fn score(label: &str, items: &[support::Labeled], floor: f64) {
    let (_dir, catalog) = support::builtin_catalog();
    let cards = cards(&catalog, &[]);
    let (mut exact, mut needed, mut found) = (0, 0, 0);
    for item in items {
        let mut got: Vec<String> = keyword_hints(&cards, &item.input, 3)
            .iter()
            .map(|p| p.split('/').next().unwrap_or_default().to_string())
            .collect();
        got.sort();
        got.dedup();
        let mut want = item.skills.clone();
        want.sort();
        needed += want.len();
        found += want.iter().filter(|w| got.contains(w)).count();
        if got == want {
            exact += 1;
        } else {
            println!("{:?}: want {want:?}, candidates {got:?}", item.input);
        }
    }
    println!(
        "{label}, prefilter alone: exact {exact}/{}, needed skills found {found}/{needed}",
        items.len()
    );
    // A floor, not a target: the prefilter must keep finding the bulk of what is needed.
    assert!(
        found as f64 >= needed as f64 * floor,
        "{label}: found {found} of {needed}"
    );
}
