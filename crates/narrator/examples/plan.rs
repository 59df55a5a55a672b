//! Writes one plan per argument with the default model and the synthetic
//! built-in catalog, printing the streamed narrative, the plan and the timings.
//!
//! `cargo run --release -p narratoria-narrator --example plan -- "I attack the orc."`

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::Write;
use std::time::{Duration, Instant};

use narratoria_core::planner::{PlanRequest, Planner};
use narratoria_narrator::{LlamaPlanner, LoadOptions};
use serde_json::Map;

fn main() {
    let (_dir, catalog) = support::builtin_catalog();
    let mut load = LoadOptions::default();
    if let Some(t) = std::env::var("NARRATOR_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        load.threads = t;
    }
    let planner = LlamaPlanner::load(&support::model_path(), load).expect("model loads");
    println!("loaded in {:?}", planner.load_report().load_time);
    let state = Map::new();
    for input in std::env::args().skip(1) {
        let seconds = std::env::var("DEADLINE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5);
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let request = PlanRequest::first(&input, &catalog, &state, deadline);
        print!("> {input}\n  narrative: ");
        let result = planner.plan(&request, &mut |piece| {
            print!("{piece}");
            let _ = std::io::stdout().flush();
        });
        println!();
        match result {
            Ok(out) => {
                let t = &out.transcript;
                if std::env::var_os("SHOW_PROMPT").is_some() {
                    println!("{}", t.prompt);
                }
                println!("  response: {}", t.response);
                println!(
                    "  prompt {} tokens ({} cached), completion {}, ttft {} ms, total {} ms",
                    t.prompt_tokens,
                    t.cached_tokens,
                    t.completion_tokens,
                    t.time_to_first_token_ms,
                    t.total_ms
                );
            }
            Err(e) => println!("  error: {e}"),
        }
    }
}
