//! Where a model's layers run: the graphics card llama.cpp's GPU backend
//! finds (Vulkan in a build with the `vulkan` feature), as far as its free
//! memory allows, or the processor (docs/models.md, "GPU offload").

use llama_cpp_2::{list_llama_ggml_backend_devices, LlamaBackendDeviceType};
use narratoria_models::fit;
use narratoria_models::gguf::GgufSummary;
use narratoria_models::machine::Gpu;
use serde::Serialize;

/// Whether this build carries a GPU backend.
pub const BUILT_WITH_GPU: bool = cfg!(feature = "vulkan");

/// The graphics card layers would go to: the first device llama.cpp lists
/// that is not the processor, with its free memory now. `None` in a build
/// without a GPU backend, or with no card or driver.
pub fn gpu() -> Option<Gpu> {
    crate::backend::backend().ok()?;
    list_llama_ggml_backend_devices()
        .into_iter()
        .find(|d| {
            matches!(
                d.device_type,
                LlamaBackendDeviceType::Gpu | LlamaBackendDeviceType::IntegratedGpu
            )
        })
        .map(|d| {
            let name = if d.description.is_empty() {
                d.name.clone()
            } else {
                d.description.clone()
            };
            Gpu::new(&name, d.memory_free as u64, d.memory_total as u64)
        })
}

/// Where one model's layers went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    /// The card, when layers went to one.
    pub device: Option<String>,
    /// Layers on the card (the output layer counted as one).
    pub gpu_layers: u32,
    /// The model's layers and its output layer.
    pub layers: u32,
}

impl Placement {
    /// In words, for the status bar: "on the processor", or "on Radeon RX
    /// 7600 (33 of 33 layers)".
    pub fn describe(&self) -> String {
        match &self.device {
            Some(device) if self.gpu_layers > 0 => format!(
                "on {device} ({} of {} layers)",
                self.gpu_layers.min(self.layers),
                self.layers
            ),
            _ => "on the processor".to_string(),
        }
    }
}

/// Where the layers of the model `header` describes go: `chosen` layers
/// when the player set a number (0: the processor only), else as many as
/// the card's free memory holds with a KV cache of `context` tokens
/// ([`fit::gpu_layers`]); none without a card.
pub fn place(header: &GgufSummary, chosen: Option<u32>, context: u32) -> Placement {
    let layers = header.block_count.unwrap_or(0).min(u64::from(u32::MAX - 1)) as u32 + 1;
    let card = if chosen == Some(0) { None } else { gpu() };
    let Some(card) = card else {
        return Placement {
            device: None,
            gpu_layers: 0,
            layers,
        };
    };
    let gpu_layers = match chosen {
        Some(n) => n.min(layers),
        None => {
            let kv = header
                .kv_bytes_per_token
                .unwrap_or(0)
                .saturating_mul(u64::from(context));
            fit::gpu_layers(&card, header.file_len, u64::from(layers - 1), kv)
        }
    };
    Placement {
        device: (gpu_layers > 0).then_some(card.name),
        gpu_layers,
        layers,
    }
}

/// The number of layers the player chose (`NARRATORIA_GPU_LAYERS`, else
/// the settings' `gpuLayers`): `None` leaves it to [`place`]. Anything
/// that is not a whole number is left out with a warning.
pub fn chosen_layers(setting: Option<u32>) -> Option<u32> {
    match std::env::var("NARRATORIA_GPU_LAYERS") {
        Ok(v) if !v.trim().is_empty() => match v.trim() {
            "auto" => None,
            n => n.parse().ok().or_else(|| {
                tracing::warn!(value = %v, "NARRATORIA_GPU_LAYERS is not a number of layers; ignored");
                setting
            }),
        },
        _ => setting,
    }
}
