//! The worked examples the prompt shows, against the skills players get: an
//! example whose input the shipped schema refuses is silently left out, so
//! the model would never see it (docs/narrator.md, "One plan").

mod support;

use narratoria_narrator::catalog::cards;
use narratoria_narrator::prompt::{prefix, Levers};

#[test]
fn every_worked_example_is_shown_with_the_shipped_skills() {
    let (_dir, catalog) = support::real_skills_catalog();
    let shown = prefix(&cards(&catalog, &[]), Levers::default(), 600, &|t| {
        t.split_whitespace().count()
    })
    .examples;
    let inputs: Vec<&str> = shown.iter().map(|(input, _)| input.as_str()).collect();
    assert_eq!(inputs.len(), 5, "{inputs:#?}");
    let plans = shown
        .iter()
        .map(|(_, plan)| plan.as_str())
        .collect::<String>();
    for tool in [
        "memory/store-memory",
        "reputation/update-reputation",
        "dice-roller/roll-dice",
    ] {
        assert!(plans.contains(tool), "no example uses {tool}: {plans}");
    }
    // A standing can fall as well as rise.
    assert!(plans.contains("\"delta\":-"), "{plans}");
    assert!(plans.contains("\"delta\":15"), "{plans}");
}
