//! Chooses the calibration on the tuning half of the labelled set only:
//! embeds every input once, then tries every combination of weights and
//! thresholds and prints the best. Run with
//! `cargo test -p narratoria-routing --test tune -- --ignored --nocapture`.

mod support;

use narratoria_routing::{decide_signals, Calibration, ExampleIndex, ScriptSignals};

#[test]
#[ignore = "a search over calibrations; prints the best, changes nothing"]
fn search_calibrations_on_the_tuning_half() {
    let Some(router) = support::router(None, Calibration::default()) else {
        return;
    };
    let (_dir, catalog) = support::shipped_skills();
    let index: std::sync::Arc<ExampleIndex> = router.prepare(&catalog).unwrap();
    let items = support::tune();
    let vectors: Vec<Vec<Vec<f32>>> = items
        .iter()
        .map(|i| router.embed_input(&i.input).unwrap())
        .collect();
    let mut best: Vec<(usize, Calibration)> = Vec::new();
    for top_k in [5, 8] {
        let signals: Vec<Vec<ScriptSignals>> = items
            .iter()
            .zip(&vectors)
            .map(|(i, v)| index.signals(&i.input, v, top_k))
            .collect();
        for further_wins_a_clause in [false, true] {
            for description_weight in [0.0] {
                for counter_weight in [0.0, 1.0] {
                    for narration_weight in [0.75, 1.0, 1.25] {
                        for keyword_weight in [0.1, 0.2, 0.3, 0.4, 0.6] {
                            for further_share in [0.0, 0.3, 0.5] {
                                for t in 0..40 {
                                    let cal = Calibration {
                                        top_k,
                                        further_wins_a_clause,
                                        description_weight,
                                        counter_weight,
                                        narration_weight,
                                        keyword_weight,
                                        further_share,
                                        threshold: -0.1 + 0.01 * t as f32,
                                        ..Calibration::default()
                                    };
                                    let mut exact = 0;
                                    for (item, sig) in items.iter().zip(&signals) {
                                        let mut got: Vec<String> = decide_signals(sig, &cal)
                                            .into_iter()
                                            .map(|r| r.skill)
                                            .collect();
                                        got.sort();
                                        exact += usize::from(got == item.skills);
                                    }
                                    best.push((exact, cal));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    best.sort_by(|a, b| b.0.cmp(&a.0));
    for (exact, cal) in best.iter().take(25) {
        println!("{exact}/{}: {cal:?}", items.len());
    }
    let cal = best[0].1;
    let mut s = support::Score::default();
    for (item, v) in items.iter().zip(&vectors) {
        let got: Vec<String> = decide_signals(&index.signals(&item.input, v, cal.top_k), &cal)
            .into_iter()
            .map(|r| r.skill)
            .collect();
        s.add(&item.input, &item.skills, &got);
    }
    for m in &s.misses {
        println!("tuning half, best: {m}");
    }
}
