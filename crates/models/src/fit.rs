//! Which models a machine runs, and how fast: "runs well", "runs slowly" or
//! "does not fit", with the tokens per second to expect and one pick
//! (docs/models.md, "What this machine can run").
//!
//! Writing a token reads every weight once, so a model's speed is bounded
//! by how fast memory is read: seconds per token ≈ the bytes on each device
//! over its bandwidth, plus a fixed cost per token. The figures below were
//! measured on the 2-core machine Narratoria is built on (SmolLM2-135M
//! Q4_1: 43 tokens/s; Qwen2.5 1.5B Q4_K_M: 7–9 tokens/s; docs/benchmarks.md).

use serde::Serialize;

use crate::catalog::{Entry, Kind};
use crate::machine::{Gpu, Machine};

/// Bytes per second one core reads weights at with AVX2 or NEON.
const CORE_BANDWIDTH: f64 = 4.5e9;
/// The same without them (llama.cpp's plain code).
const CORE_BANDWIDTH_PLAIN: f64 = 2.2e9;
/// Cores past this many share the memory bus and add little.
const CORES_THAT_COUNT: u32 = 8;
/// Seconds every token costs besides reading weights on the processor.
const CPU_TOKEN_OVERHEAD: f64 = 0.013;
/// Bytes per second a graphics card reads weights at (a modest card's;
/// most read faster).
const GPU_BANDWIDTH: f64 = 120e9;
/// Seconds every token costs on a graphics card besides reading weights.
const GPU_TOKEN_OVERHEAD: f64 = 0.008;
/// Share of a card's free memory the weights may take (the rest: its KV
/// cache and compute buffers).
const GPU_MEMORY_SHARE: f64 = 0.85;
/// Tokens per second below which a story is written slower than it is
/// comfortably read (about six words a second).
pub const WELL_TOKENS_PER_SECOND: f64 = 8.0;

/// How a model fares on a machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    RunsWell,
    RunsSlowly,
    DoesNotFit,
}

impl Verdict {
    /// The words a player reads.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::RunsWell => "runs well",
            Verdict::RunsSlowly => "runs slowly",
            Verdict::DoesNotFit => "does not fit",
        }
    }
}

/// One model judged against one machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    pub verdict: Verdict,
    /// Tokens per second to expect: the measured speed when there is one,
    /// else the estimate.
    pub tokens_per_second: f64,
    /// Whether `tokens_per_second` was measured in play on this machine.
    pub measured: bool,
    /// Share of the weights a graphics card would hold (0: the processor
    /// runs it all).
    pub on_gpu: f64,
    /// Why, in a sentence.
    pub reason: String,
}

/// What a model needs: its file's bytes and the memory it runs in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Needs {
    pub file_bytes: u64,
    pub ram_bytes: u64,
}

impl Needs {
    /// A catalog entry's needs; without a memory figure, its file plus a
    /// quarter. `None` without a size.
    pub fn of(entry: &Entry) -> Option<Needs> {
        let file_bytes = entry.size?;
        Some(Needs {
            file_bytes,
            ram_bytes: entry.ram.unwrap_or(file_bytes + file_bytes / 4),
        })
    }

    /// A model file of `file_bytes` on disk: its file plus a quarter and
    /// 300 MB of buffers.
    pub fn of_file(file_bytes: u64) -> Needs {
        Needs {
            file_bytes,
            ram_bytes: file_bytes + file_bytes / 4 + 300_000_000,
        }
    }
}

/// How a model that needs `needs` fares on `machine`; `measured` is its
/// speed in play on this machine, when it has been used.
pub fn judge(machine: &Machine, needs: Needs, measured: Option<f64>) -> Fit {
    let file = needs.file_bytes as f64;
    let usable_gpu = machine
        .gpu
        .as_ref()
        .filter(|g| !g.software)
        .map(|g| g.memory_free as f64 * GPU_MEMORY_SHARE)
        .unwrap_or(0.0);
    let on_gpu = if file > 0.0 {
        (usable_gpu / file).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let cores = machine.cores.clamp(1, CORES_THAT_COUNT) as f64;
    let per_core = if machine.has_fast_vectors() {
        CORE_BANDWIDTH
    } else {
        CORE_BANDWIDTH_PLAIN
    };
    let cpu_seconds = file * (1.0 - on_gpu) / (cores * per_core);
    let gpu_seconds = file * on_gpu / GPU_BANDWIDTH;
    let overhead = if on_gpu >= 1.0 {
        GPU_TOKEN_OVERHEAD
    } else {
        CPU_TOKEN_OVERHEAD
    };
    let estimate = 1.0 / (cpu_seconds + gpu_seconds + overhead);
    let tokens_per_second = measured.filter(|m| *m > 0.0).unwrap_or(estimate);
    let in_ram = needs.ram_bytes.saturating_sub((file * on_gpu) as u64);
    let where_ = match on_gpu {
        s if s >= 1.0 => "on the graphics card".to_string(),
        s if s > 0.0 => format!("{:.0}% on the graphics card", s * 100.0),
        _ => "on the processor".to_string(),
    };
    let speed = format!(
        "{} {tokens_per_second:.0} tokens/s {where_}",
        if measured.is_some() {
            "measured"
        } else {
            "about"
        }
    );
    let (verdict, reason) = match machine.memory_available {
        Some(free) if in_ram > free => (
            Verdict::DoesNotFit,
            format!(
                "needs {} of memory, {} is free",
                gigabytes(in_ram),
                gigabytes(free)
            ),
        ),
        _ if tokens_per_second >= WELL_TOKENS_PER_SECOND => (Verdict::RunsWell, speed),
        _ => (
            Verdict::RunsSlowly,
            format!("{speed}: slower than a story is read"),
        ),
    };
    Fit {
        verdict,
        tokens_per_second,
        measured: measured.is_some(),
        on_gpu,
        reason,
    }
}

/// How many of a model's layers go to `gpu` when the player leaves it to
/// the program: as many as its free memory holds (weights and their share
/// of a KV cache of `kv_bytes`, within [`GPU_MEMORY_SHARE`] of it), every
/// one of them and the output layer when it all fits, none on a driver that
/// runs on the processor. `layers` is the model's block count; `file_bytes`
/// its weights.
pub fn gpu_layers(gpu: &Gpu, file_bytes: u64, layers: u64, kv_bytes: u64) -> u32 {
    if gpu.software || layers == 0 {
        return 0;
    }
    let budget = gpu.memory_free as f64 * GPU_MEMORY_SHARE;
    // The output layer counts as one more, as llama.cpp counts it.
    let per_layer = file_bytes as f64 / (layers + 1) as f64 + kv_bytes as f64 / layers as f64;
    if per_layer <= 0.0 {
        return 0;
    }
    let fits = (budget / per_layer).floor().max(0.0) as u64;
    fits.min(layers + 1) as u32
}

/// "2.1 GB".
fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// The narrator to recommend among `judged`: the one with the most
/// parameters that runs well (the smaller file on a tie); `None` when none
/// does.
pub fn recommend<'a>(judged: &[(&'a Entry, Fit)]) -> Option<&'a Entry> {
    judged
        .iter()
        .filter(|(e, f)| e.kind == Kind::Narrator && f.verdict == Verdict::RunsWell)
        .max_by(|(a, _), (b, _)| {
            a.parameters
                .unwrap_or(0)
                .cmp(&b.parameters.unwrap_or(0))
                .then(b.size.unwrap_or(0).cmp(&a.size.unwrap_or(0)))
        })
        .map(|(e, _)| *e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{builtin, find};

    /// The machine the constants were measured on: 2 cores with AVX2, 24 GB.
    fn two_cores(available_gb: u64, gpu: Option<Gpu>) -> Machine {
        Machine {
            cpu: None,
            cores: 2,
            cpu_features: vec!["avx".into(), "avx2".into(), "fma".into(), "f16c".into()],
            memory_total: Some(24 << 30),
            memory_available: Some(available_gb << 30),
            gpu,
        }
    }

    fn fit_of(machine: &Machine, name: &str) -> Fit {
        judge(
            machine,
            Needs::of(find(&builtin(), name).unwrap()).unwrap(),
            None,
        )
    }

    #[test]
    fn the_estimates_meet_what_was_measured_here() {
        let m = two_cores(20, None);
        let small = fit_of(&m, "smollm2");
        assert!((35.0..50.0).contains(&small.tokens_per_second), "{small:?}");
        assert_eq!(small.verdict, Verdict::RunsWell);
        let qwen = fit_of(&m, "qwen2.5-1.5b");
        assert!((6.0..9.5).contains(&qwen.tokens_per_second), "{qwen:?}");
        assert_eq!(qwen.verdict, Verdict::RunsSlowly);
        assert!(qwen.reason.contains("processor"), "{}", qwen.reason);
    }

    #[test]
    fn a_model_larger_than_the_free_memory_does_not_fit() {
        let m = two_cores(3, None);
        let big = fit_of(&m, "llama3.1-8b");
        assert_eq!(big.verdict, Verdict::DoesNotFit);
        assert!(big.reason.contains("is free"), "{}", big.reason);
    }

    #[test]
    fn a_graphics_card_takes_what_fits_and_speeds_it_up() {
        let card = Gpu::new("Radeon RX 7600", 7 << 30, 8 << 30);
        let m = two_cores(3, Some(card));
        let big = fit_of(&m, "llama3.1-8b");
        assert_eq!(big.on_gpu, 1.0);
        assert_eq!(big.verdict, Verdict::RunsWell, "{big:?}");
        let small_card = Gpu::new("GeForce GT 1030", 2 << 30, 2 << 30);
        let half = fit_of(&two_cores(20, Some(small_card)), "llama3.1-8b");
        assert!(half.on_gpu > 0.2 && half.on_gpu < 0.5, "{half:?}");
        assert!(
            half.reason.contains("% on the graphics card"),
            "{}",
            half.reason
        );
        let software = Gpu::new("llvmpipe (LLVM 15.0.6, 256 bits)", 16 << 30, 16 << 30);
        let cpu_only = fit_of(&two_cores(20, Some(software)), "qwen2.5-1.5b");
        assert_eq!(
            cpu_only.on_gpu, 0.0,
            "a driver on the processor saves nothing"
        );
    }

    #[test]
    fn layers_go_to_the_card_as_far_as_its_free_memory_holds_them() {
        // Llama 3.1 8B: 32 layers, 4.9 GB, 0.5 GB of KV at 4,096 tokens.
        let (file, layers, kv) = (4_920_739_232, 32, 536_870_912);
        let big = Gpu::new("Radeon RX 7600", 8 << 30, 8 << 30);
        assert_eq!(
            gpu_layers(&big, file, layers, kv),
            33,
            "all of it and the output layer"
        );
        let small = Gpu::new("GeForce GT 1030", 2 << 30, 2 << 30);
        let some = gpu_layers(&small, file, layers, kv);
        assert!((8..=14).contains(&some), "{some}");
        let none = Gpu::new("Radeon", 0, 8 << 30);
        assert_eq!(gpu_layers(&none, file, layers, kv), 0);
        let software = Gpu::new("llvmpipe (LLVM 15.0.6, 256 bits)", 16 << 30, 16 << 30);
        assert_eq!(gpu_layers(&software, file, layers, kv), 0);
        assert_eq!(gpu_layers(&big, file, 0, kv), 0);
    }

    #[test]
    fn a_measured_speed_wins_over_the_estimate() {
        let m = two_cores(20, None);
        let needs = Needs::of(find(&builtin(), "qwen2.5-1.5b").unwrap()).unwrap();
        let fit = judge(&m, needs, Some(12.0));
        assert_eq!((fit.verdict, fit.measured), (Verdict::RunsWell, true));
        assert!(
            fit.reason.starts_with("measured 12 tokens/s"),
            "{}",
            fit.reason
        );
    }

    #[test]
    fn the_pick_is_the_largest_model_that_runs_well() {
        let catalog = builtin();
        let judge_all = |m: &Machine| -> Vec<(&Entry, Fit)> {
            catalog
                .iter()
                .filter_map(|e| Some((e, judge(m, Needs::of(e)?, None))))
                .collect()
        };
        let here = judge_all(&two_cores(20, None));
        let pick = recommend(&here).unwrap();
        assert!(
            ["qwen2.5-0.5b", "llama3.2-1b"].contains(&pick.name.as_str()),
            "on two cores: {}",
            pick.name
        );
        let card = Gpu::new("Radeon RX 7600", 7 << 30, 8 << 30);
        let gpu = judge_all(&two_cores(20, Some(card)));
        assert_eq!(recommend(&gpu).unwrap().name, "llama3.1-8b");
        let nothing = judge_all(&two_cores(0, None));
        assert!(recommend(&nothing).is_none());
    }
}
