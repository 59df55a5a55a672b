//! The narrator with its layers on a graphics card through llama.cpp's
//! Vulkan backend (docs/models.md, "GPU offload"). Built only with the
//! `vulkan` feature; `scripts/gpu-check.sh` runs it, on Mesa's software
//! driver (lavapipe) where there is no card: the same model must plan the
//! same kind of plan and write the same kind of prose with every layer on
//! the device as on the processor. The default model must be fetched.
#![cfg(feature = "vulkan")]

mod support;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_core::host::Generator;
use narratoria_core::planner::{PlanRequest, Planner};
use narratoria_core::protocol::GenerateRequest;
use narratoria_narrator::{gpu, LlamaPlanner, LoadOptions};
use serde_json::Map;

/// A software driver is slow, and its first use compiles every shader.
const ROOMY: Duration = Duration::from_secs(600);

fn load(gpu_layers: u32) -> LlamaPlanner {
    let p = LlamaPlanner::load(
        &support::model_path(),
        LoadOptions {
            gpu_layers: Some(gpu_layers),
            routing: false,
            ..LoadOptions::default()
        },
    )
    .expect("the default model loads");
    p
}

/// The skills the plan for `input` uses, its narrative, and how long it took.
fn plan(p: &LlamaPlanner, input: &str) -> (Vec<String>, Duration) {
    let (_dir, catalog) = support::builtin_catalog();
    let state = Map::new();
    let started = Instant::now();
    let out = p
        .plan(
            &PlanRequest::first(input, &catalog, &state, Instant::now() + ROOMY),
            &mut |_| {},
        )
        .expect("a valid plan");
    (support::skills_used(&out.plan), started.elapsed())
}

/// Prose for one request, and its tokens per second.
fn prose(p: &LlamaPlanner) -> (String, f64) {
    let request: GenerateRequest = serde_json::from_value(serde_json::json!({
        "id": "gpu",
        "messages": [
            {"role": "system", "content": "You narrate a fantasy story in the second person, in two or three sentences."},
            {"role": "user", "content": "I push open the door of the lighthouse and climb the stairs."}
        ],
        "maxTokens": 60,
        "temperature": 0.0
    }))
    .unwrap();
    let written = Generator::generate(
        p,
        &request,
        &mut |_| {},
        &Arc::new(AtomicBool::new(false)),
        Instant::now() + ROOMY,
    )
    .expect("prose");
    let per_s =
        f64::from(written.usage.completion_tokens) * 1000.0 / written.usage.ms.max(1) as f64;
    (written.text, per_s)
}

#[test]
fn every_layer_on_the_device_plans_and_writes_like_the_processor() {
    let card = gpu::gpu().expect(
        "a Vulkan device (set GGML_VK_VISIBLE_DEVICES=0 to use lavapipe; scripts/gpu-check.sh does)",
    );
    eprintln!("device: {} ({} MB free)", card.name, card.memory_free >> 20);

    let cpu = load(0);
    assert_eq!(cpu.load_report().placement.gpu_layers, 0);
    assert_eq!(cpu.runs_on().as_deref(), Some("on the processor"));
    let on_cpu = plan(&cpu, "I try to pick the lock of the old chest");
    let (cpu_prose, cpu_rate) = prose(&cpu);
    drop(cpu);

    let dev = load(99);
    let placement = dev.load_report().placement.clone();
    assert_eq!(placement.gpu_layers, placement.layers, "{placement:?}");
    assert!(
        dev.runs_on().unwrap().contains(&card.name),
        "{:?}",
        dev.runs_on()
    );
    // The first plan compiles the device's shaders; the second is timed.
    let _ = plan(&dev, "I look around the harbour");
    let on_dev = plan(&dev, "I try to pick the lock of the old chest");
    let (dev_prose, dev_rate) = prose(&dev);

    eprintln!(
        "processor: plan {:?} in {:.1} s, prose {cpu_rate:.1} tokens/s: {cpu_prose:?}",
        on_cpu.0,
        on_cpu.1.as_secs_f64()
    );
    eprintln!(
        "device:    plan {:?} in {:.1} s, prose {dev_rate:.1} tokens/s: {dev_prose:?}",
        on_dev.0,
        on_dev.1.as_secs_f64()
    );
    assert_eq!(on_dev.0, on_cpu.0, "the same skills are planned");
    for text in [&cpu_prose, &dev_prose] {
        assert!(text.split_whitespace().count() >= 8, "{text:?}");
    }
}

#[test]
fn left_to_itself_the_narrator_keeps_a_software_driver_out_of_the_way() {
    let card = gpu::gpu().expect("a Vulkan device");
    if card.software {
        let header = narratoria_models::gguf::read(&support::model_path()).unwrap();
        let placed = gpu::place(&header, None, 8192);
        assert_eq!(placed.gpu_layers, 0, "{placed:?}");
        assert_eq!(placed.describe(), "on the processor");
    }
    let header = narratoria_models::gguf::read(&support::model_path()).unwrap();
    assert_eq!(gpu::place(&header, Some(0), 8192).gpu_layers, 0);
    let some = gpu::place(&header, Some(5), 8192);
    assert_eq!((some.gpu_layers, some.device.is_some()), (5, true));
}
