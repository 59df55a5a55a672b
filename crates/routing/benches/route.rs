//! What routing adds to a plan: embedding the input (and its clauses) and
//! scoring it against the catalog's examples, over the held-out inputs.
//! `cargo bench -p narratoria-routing --bench route`

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use narratoria_routing::Calibration;

fn main() {
    let router = support::embedder_router(None, Calibration::default());
    let (_dir, catalog) = support::shipped_skills();
    let start = Instant::now();
    router.prepare(&catalog).unwrap();
    println!("index built (no cache) in {:?}", start.elapsed());
    let items = support::heldout();
    for item in items.iter().take(5) {
        router.route(&catalog, &item.input, &[]).unwrap();
    }
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..3 {
        for item in &items {
            let start = Instant::now();
            router.route(&catalog, &item.input, &[]).unwrap();
            times.push(start.elapsed());
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "route, {} calls: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        at(1.0).as_secs_f64() * 1e3
    );
}
