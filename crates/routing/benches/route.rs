//! What routing adds to a plan: embedding the input (and its clauses) and
//! scoring it against the catalog's examples, over the held-out inputs.
//! `cargo bench -p narratoria-routing --bench route`; with
//! `NARRATORIA_ROUTING_ENCODER=DIR` another encoder's folder
//! (all-mpnet-base-v2, or models/multilingual-e5-small, which is timed
//! under its own calibration over the French, Spanish and German held-out
//! inputs as well).

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

/// Prints `times`' median, 95th percentile and maximum.
fn report(label: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "route {label}, {} calls: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        at(1.0).as_secs_f64() * 1e3
    );
}

fn main() {
    let multilingual = support::embedder_dir()
        .join(narratoria_embed::e5::WEIGHTS)
        .is_file();
    let calibration = if multilingual {
        Calibration::multilingual()
    } else {
        Calibration::default()
    };
    let before = resident_mib();
    let start = Instant::now();
    let router = support::embedder_router(None, calibration);
    println!(
        "encoder {} loaded in {:?}",
        support::embedder_dir().display(),
        start.elapsed()
    );
    let (_dir, catalog) = support::shipped_skills();
    let start = Instant::now();
    router.prepare(&catalog).unwrap();
    println!("index built (no cache) in {:?}", start.elapsed());
    let mut sets = vec![("en", support::heldout())];
    if multilingual {
        for language in ["fr", "es", "de"] {
            sets.push((language, support::labelled_in(language, "heldout.jsonl")));
        }
    }
    let items: Vec<_> = sets.iter().flat_map(|(_, s)| s.clone()).collect();
    for item in items.iter().take(5) {
        router.route(&catalog, &item.input, &[]).unwrap();
    }
    let mut all: Vec<Duration> = Vec::new();
    for (language, set) in &sets {
        let mut times: Vec<Duration> = Vec::new();
        for _ in 0..3 {
            for item in set {
                let start = Instant::now();
                router.route(&catalog, &item.input, &[]).unwrap();
                times.push(start.elapsed());
            }
        }
        report(language, &mut times);
        all.extend(times);
    }
    report("all", &mut all);
    println!(
        "resident memory: {:.0} MiB before loading, {:.0} MiB after routing",
        before,
        resident_mib()
    );
}
