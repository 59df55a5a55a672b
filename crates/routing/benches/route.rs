//! What routing adds to a plan: embedding the input (and its clauses) and
//! scoring it against the catalog's examples, over the held-out inputs.
//! `cargo bench -p narratoria-routing --bench route`; with
//! `NARRATORIA_ROUTING_ENCODER=DIR` another encoder's folder (all-mpnet-base-v2).

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use narratoria_routing::Calibration;

/// This process's resident memory, in MiB (Linux; 0 elsewhere).
fn resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() {
    let before = resident_mib();
    let start = Instant::now();
    let router = support::embedder_router(None, Calibration::default());
    println!(
        "encoder {} loaded in {:?}",
        support::embedder_dir().display(),
        start.elapsed()
    );
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
    println!(
        "resident memory: {:.0} MiB before loading, {:.0} MiB after routing",
        before,
        resident_mib()
    );
}
