//! The keyword prefilter over the labeled input set, without the model.

mod support;

use narratoria_narrator::catalog::cards;
use narratoria_narrator::prompt::keyword_hints;

#[test]
fn the_prefilter_finds_most_needed_skills() {
    let (_dir, catalog) = support::builtin_catalog();
    let cards = cards(&catalog, &[]);
    let items = support::inputs();
    let (mut exact, mut needed, mut found) = (0, 0, 0);
    for item in &items {
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
        "prefilter alone: exact {exact}/{}, needed skills found {found}/{needed}",
        items.len()
    );
    // A floor, not a target: the prefilter must keep finding the bulk of what is needed.
    assert!(found * 10 >= needed * 7, "found {found} of {needed}");
}
