//! Chooses the calibration on the tuning inputs only (the tuning half and the
//! three fresh sets, `support::tuning`; never the held-out half):
//! embeds every input once, then tries every combination of weights and
//! thresholds and prints the best. Run with
//! `cargo test -p narratoria-routing --release --test tune -- --ignored --nocapture`.

mod support;

use narratoria_routing::decision::decide;
use narratoria_routing::{Calibration, ExampleIndex, SkillScore};

/// The narration-only margins tried (no margin first: every input may use a skill).
const NARRATION_MARGINS: [f32; 9] = [
    f32::NEG_INFINITY,
    -4.0,
    -3.0,
    -2.0,
    -1.5,
    -1.0,
    -0.5,
    0.0,
    1.0,
];

/// How many of `items` the decision under `cal` routes exactly right, from
/// their skills' and the narration-only class's `scores`.
fn exact(
    items: &[support::Labelled],
    scores: &[(Vec<SkillScore>, f32)],
    cal: &Calibration,
) -> usize {
    items
        .iter()
        .zip(scores)
        .filter(|(item, (s, narration))| {
            let mut got: Vec<String> = decide(s, *narration, cal)
                .into_iter()
                .map(|r| r.skill)
                .collect();
            got.sort();
            let mut want = item.skills.clone();
            want.sort();
            got == want
        })
        .count()
}

/// Each of `items`' skill scores and narration-only score under `cal`,
/// from their input `vectors`.
fn scored(
    index: &ExampleIndex,
    items: &[support::Labelled],
    vectors: &[Vec<Vec<f32>>],
    cal: &Calibration,
) -> Vec<(Vec<SkillScore>, f32)> {
    items
        .iter()
        .zip(vectors)
        .map(|(i, v)| {
            let signals = index.signals(&i.input, v, cal.top_k);
            (
                index.skill_scores(&signals, v, cal),
                index.narration_score(&signals, v, cal),
            )
        })
        .collect()
}

/// Every (threshold, further threshold, narration margin) step tried.
fn grid() -> impl Iterator<Item = (usize, usize, usize)> {
    (0..11).flat_map(|t| {
        (0..16).flat_map(move |f| (0..NARRATION_MARGINS.len()).map(move |m| (t, f, m)))
    })
}

#[test]
#[ignore = "a search over calibrations; prints the best, changes nothing"]
fn search_calibrations_on_the_tuning_inputs() {
    let items = support::tuning();
    let (_dir, catalog) = support::shipped_skills();
    let mut best: Vec<(usize, Calibration)> = Vec::new();
    for l2 in [0.0003f32, 0.001, 0.003] {
        let base = Calibration {
            l2,
            ..Calibration::default()
        };
        let router = support::embedder_router(None, base);
        let index = router.prepare(&catalog).unwrap();
        let vectors: Vec<Vec<Vec<f32>>> = items
            .iter()
            .map(|i| router.embed_input(&i.input).unwrap())
            .collect();
        for example_weight in [10.0f32, 20.0, 30.0] {
            let weighed = Calibration {
                example_weight,
                ..base
            };
            let scores = scored(&index, &items, &vectors, &weighed);
            for further_wins_a_clause in [false, true] {
                for (t, f, m) in grid() {
                    let threshold = -1.6 + 0.4 * t as f32;
                    let cal = Calibration {
                        further_wins_a_clause,
                        threshold,
                        further_threshold: threshold + 0.5 * f as f32,
                        narration_margin: NARRATION_MARGINS[m],
                        ..weighed
                    };
                    best.push((exact(&items, &scores, &cal), cal));
                }
            }
        }
    }
    best.sort_by_key(|b| std::cmp::Reverse(b.0));
    for (exact, cal) in best.iter().take(25) {
        println!("{exact}/{}: {cal:?}", items.len());
    }
    let cal = best[0].1;
    let router = support::embedder_router(None, cal);
    let mut s = support::Score::default();
    for item in &items {
        let got: Vec<String> = router
            .route(&catalog, &item.input, &[])
            .unwrap()
            .skills
            .into_iter()
            .map(|r| r.skill)
            .collect();
        s.add(&item.input, &item.skills, &got);
    }
    for m in &s.misses {
        println!("tuning inputs, best: {m}");
    }
    println!("tuning inputs, best: {}", s.line());
}

/// The clause score from which a clause's best skill is used as a second
/// skill, chosen on the tuning inputs and the compound deeds' tuning half
/// (the other weights as shipped); prints the held-out sets beside each.
#[test]
#[ignore = "a search over one threshold; prints the figures, changes nothing"]
fn search_the_clause_threshold_on_the_tuning_inputs() {
    let (_dir, catalog) = support::shipped_skills();
    let base = Calibration::default();
    let router = support::embedder_router(None, base);
    let index = router.prepare(&catalog).unwrap();
    let scored = |items: &[support::Labelled]| -> Vec<(Vec<SkillScore>, f32)> {
        items
            .iter()
            .map(|i| {
                let v = router.embed_input(&i.input).unwrap();
                let signals = index.signals(&i.input, &v, base.top_k);
                (
                    index.skill_scores(&signals, &v, &base),
                    index.narration_score(&signals, &v, &base),
                )
            })
            .collect()
    };
    let tuning = support::tuning();
    let compound = support::compound_tune();
    let heldout = support::heldout();
    let compound_heldout = support::compound_heldout();
    let (s_tuning, s_compound) = (scored(&tuning), scored(&compound));
    let (s_heldout, s_compound_heldout) = (scored(&heldout), scored(&compound_heldout));
    let mut rows = Vec::new();
    for step in 0..=24 {
        let clause_threshold = if step == 24 {
            f32::INFINITY
        } else {
            -2.0 + 0.5 * step as f32
        };
        let cal = Calibration {
            clause_threshold,
            ..base
        };
        let (a, b) = (
            exact(&tuning, &s_tuning, &cal),
            exact(&compound, &s_compound, &cal),
        );
        rows.push((a + b, clause_threshold, a, b, cal));
    }
    for (sum, t, a, b, cal) in &rows {
        println!(
            "clause threshold {t}: tuning {a}/{}, compound tuning {b}/{} (sum {sum}); held-out {}/{}, compound held-out {}/{}",
            tuning.len(),
            compound.len(),
            exact(&heldout, &s_heldout, cal),
            heldout.len(),
            exact(&compound_heldout, &s_compound_heldout, cal),
            compound_heldout.len()
        );
    }
}

/// The multilingual encoder's calibration, chosen on the English tuning
/// inputs and the French, Spanish and German tuning halves together (the
/// held-out halves never): prints the best, each language's share beside
/// it, and the held-out halves under the best (docs/narrator.md, "Routing
/// in every language").
#[test]
#[ignore = "a search over calibrations; prints the best, changes nothing"]
fn search_calibrations_for_every_language() {
    let (_dir, catalog) = support::shipped_skills();
    let sets: Vec<(&str, Vec<support::Labelled>)> = vec![
        ("en", support::tuning()),
        ("fr", support::labelled_in("fr", "tune.jsonl")),
        ("es", support::labelled_in("es", "tune.jsonl")),
        ("de", support::labelled_in("de", "tune.jsonl")),
    ];
    let items: Vec<support::Labelled> = sets.iter().flat_map(|(_, s)| s.clone()).collect();
    let first = support::multilingual_router(Calibration::default());
    let vectors: Vec<Vec<Vec<f32>>> = items
        .iter()
        .map(|i| first.embed_input(&i.input).unwrap())
        .collect();
    let mut best: Vec<(usize, Vec<usize>, Calibration)> = Vec::new();
    for l2 in [0.0003f32, 0.003] {
        for keyword_weight in [0.0f32, 0.1, 0.2, 0.3] {
            let base = Calibration {
                l2,
                keyword_weight,
                ..Calibration::default()
            };
            let router = support::multilingual_router(base);
            let index = router.prepare(&catalog).unwrap();
            for example_weight in [10.0f32, 20.0, 40.0] {
                let weighed = Calibration {
                    example_weight,
                    ..base
                };
                let scores = scored(&index, &items, &vectors, &weighed);
                for (t, f, m) in grid() {
                    let threshold = -1.6 + 0.4 * t as f32;
                    let cal = Calibration {
                        threshold,
                        further_threshold: threshold + 0.5 * f as f32,
                        narration_margin: NARRATION_MARGINS[m],
                        ..weighed
                    };
                    let mut from = 0;
                    let per: Vec<usize> = sets
                        .iter()
                        .map(|(_, set)| {
                            let n = exact(set, &scores[from..from + set.len()], &cal);
                            from += set.len();
                            n
                        })
                        .collect();
                    best.push((per.iter().sum(), per, cal));
                }
            }
        }
    }
    best.sort_by_key(|b| std::cmp::Reverse(b.0));
    for (sum, per, cal) in best.iter().take(15) {
        println!("{sum}/{} (en, fr, es, de: {per:?}): {cal:?}", items.len());
    }
    let router = support::multilingual_router(best[0].2);
    let mut heldout = vec![("en", support::heldout())];
    for language in ["fr", "es", "de"] {
        heldout.push((language, support::labelled_in(language, "heldout.jsonl")));
    }
    for (language, set) in heldout {
        println!(
            "{language}, held-out half, best: {}",
            support::score(&router, &catalog, &set).line()
        );
    }
}
