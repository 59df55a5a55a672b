//! The keyword router the narrator used before routing by meaning (rare
//! shared word stems between the input and each script's descriptions and
//! guide; a second skill needs half the first one's score), over the same
//! labelled sets, for comparison in docs/narrator.md. Needs no model.

mod support;

use narratoria_core::skills::Catalog;
use narratoria_routing::keywords::{script_text, skills_by_score, KeywordIndex};
use support::{Labelled, Score};

fn keyword_route(catalog: &Catalog, input: &str) -> Vec<String> {
    let docs = catalog.usable(&[]).flat_map(|skill| {
        skill
            .scripts
            .iter()
            .filter(move |s| s.is_executable && !narratoria_routing::is_host_step(skill, s))
            .map(move |s| {
                let text = script_text(
                    &skill.name,
                    &s.name,
                    &skill.description,
                    s.description.as_deref(),
                    skill.prompt.as_deref(),
                );
                (format!("{}/{}", skill.name, s.name), text)
            })
    });
    skills_by_score(&KeywordIndex::new(docs).scores(input, usize::MAX), 2)
}

fn score(catalog: &Catalog, items: &[Labelled]) -> Score {
    let mut s = Score::default();
    for item in items {
        s.add(
            &item.input,
            &item.skills,
            &keyword_route(catalog, &item.input),
        );
    }
    s
}

/// Floors under the keyword router's exact-set accuracy, in percent: the
/// figures this test printed on 2026-11-29 (56/112, 58/112 and 18/112
/// exact), rounded down to the percent. The router reads only the skills'
/// texts, so a drop means the keyword index or the skills' words changed;
/// docs/narrator.md ("Routing", the "keywords alone" rows) quotes them.
const TUNING_HALF: f64 = 50.0;
const HELD_OUT_HALF: f64 = 51.0;
const HELD_OUT_REWORDED: f64 = 16.0;

#[test]
fn the_keyword_router_on_the_labelled_sets() {
    let (_a, shipped) = support::shipped_skills();
    let (_b, reworded) = support::reworded_skills();
    for (label, catalog, items, floor) in [
        (
            "shipped skills, tuning half",
            &shipped,
            support::tune(),
            TUNING_HALF,
        ),
        (
            "shipped skills, held-out half",
            &shipped,
            support::heldout(),
            HELD_OUT_HALF,
        ),
        (
            "reworded skills, held-out half",
            &reworded,
            support::heldout(),
            HELD_OUT_REWORDED,
        ),
    ] {
        let s = score(catalog, &items);
        println!("keywords, {label}: {}", s.line());
        assert!(
            !items.is_empty() && s.total == items.len(),
            "{label}: no inputs scored"
        );
        assert!(
            100.0 * s.accuracy() >= floor,
            "keywords, {label}: {} is under the {floor} % measured before",
            s.line()
        );
    }
}
