//! The player's machine as far as running a model goes: memory, processor
//! cores and extensions, and a graphics card when the narrator found one
//! (docs/models.md, "What this machine can run").

use serde::Serialize;

/// What decides which models this machine runs and how fast.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Machine {
    /// The processor's name, when the system says it.
    pub cpu: Option<String>,
    /// Threads the program may run on.
    pub cores: u32,
    /// The vector extensions llama.cpp's speed depends on that the
    /// processor has (`avx2`, `fma`, `f16c`, `avx512f`; `neon` on ARM).
    pub cpu_features: Vec<String>,
    /// Bytes of memory in all.
    pub memory_total: Option<u64>,
    /// Bytes of memory free for a model now.
    pub memory_available: Option<u64>,
    /// The graphics card layers can go to, when the narrator found one.
    pub gpu: Option<Gpu>,
}

/// A graphics card as llama.cpp's GPU backend reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gpu {
    pub name: String,
    /// Bytes of its memory free now.
    pub memory_free: u64,
    pub memory_total: u64,
    /// A driver that runs on the processor (Mesa's lavapipe, "llvmpipe"):
    /// offloading to it saves no time.
    pub software: bool,
}

impl Gpu {
    /// A card called `name`; a name naming a driver that runs on the
    /// processor (llvmpipe, lavapipe, SwiftShader) is marked `software`.
    pub fn new(name: &str, memory_free: u64, memory_total: u64) -> Gpu {
        let lower = name.to_ascii_lowercase();
        Gpu {
            name: name.to_string(),
            memory_free,
            memory_total,
            software: ["llvmpipe", "lavapipe", "swiftshader", "softpipe"]
                .iter()
                .any(|s| lower.contains(s)),
        }
    }
}

impl Machine {
    /// This machine, as the system describes it now; `gpu` is what the
    /// narrator's GPU backend found (`None`: no card, or a build without
    /// one).
    pub fn probe(gpu: Option<Gpu>) -> Machine {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Machine {
            cpu: cpu_name(),
            cores: std::thread::available_parallelism()
                .map(|n| n.get() as u32)
                .unwrap_or(1),
            cpu_features: cpu_features(),
            memory_total: meminfo_bytes(&meminfo, "MemTotal:"),
            memory_available: meminfo_bytes(&meminfo, "MemAvailable:"),
            gpu,
        }
    }

    /// Whether the processor has AVX2 (or, on ARM, NEON): llama.cpp's fast
    /// paths.
    pub fn has_fast_vectors(&self) -> bool {
        self.cpu_features.iter().any(|f| f == "avx2" || f == "neon")
    }
}

/// A `/proc/meminfo` line's value in bytes.
fn meminfo_bytes(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kb| kb * 1024)
}

fn cpu_name() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, name)| name.trim().to_string())
        .filter(|n| !n.is_empty())
}

#[cfg(target_arch = "x86_64")]
fn cpu_features() -> Vec<String> {
    let mut found = Vec::new();
    if std::arch::is_x86_feature_detected!("avx") {
        found.push("avx");
    }
    if std::arch::is_x86_feature_detected!("avx2") {
        found.push("avx2");
    }
    if std::arch::is_x86_feature_detected!("fma") {
        found.push("fma");
    }
    if std::arch::is_x86_feature_detected!("f16c") {
        found.push("f16c");
    }
    if std::arch::is_x86_feature_detected!("avx512f") {
        found.push("avx512f");
    }
    found.into_iter().map(String::from).collect()
}

#[cfg(target_arch = "aarch64")]
fn cpu_features() -> Vec<String> {
    vec!["neon".to_string()]
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn cpu_features() -> Vec<String> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_is_described() {
        let m = Machine::probe(None);
        assert!(m.cores >= 1);
        if cfg!(target_os = "linux") {
            let total = m.memory_total.expect("MemTotal on Linux");
            let available = m.memory_available.expect("MemAvailable on Linux");
            assert!(available <= total && total > 0);
        }
    }

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       24576000 kB\nMemAvailable:    1000 kB\n";
        assert_eq!(meminfo_bytes(text, "MemTotal:"), Some(24_576_000 * 1024));
        assert_eq!(meminfo_bytes(text, "MemAvailable:"), Some(1_024_000));
        assert_eq!(meminfo_bytes(text, "SwapTotal:"), None);
    }

    #[test]
    fn a_driver_on_the_processor_is_no_graphics_card() {
        assert!(Gpu::new("llvmpipe (LLVM 15.0.6, 256 bits)", 1, 2).software);
        assert!(!Gpu::new("AMD Radeon RX 7600 (RADV NAVI33)", 1, 2).software);
    }
}
