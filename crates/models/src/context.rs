//! How many tokens a writer's context holds: as many as the model was
//! trained on, the player's bound (8,192 by default) and the machine's
//! memory allow (docs/models.md, "Roles"). The model library shows it and
//! the narrator loads a writer with it, so the two always agree.

use crate::gguf::GgufSummary;

/// The most tokens a writer's context holds unless the player sets another
/// bound (`writerContext`, `--writer-context`).
pub const WRITER_CONTEXT_DEFAULT: u32 = 8192;

/// The fewest tokens a writer's context holds, whatever the memory says.
pub const WRITER_CONTEXT_MIN: u32 = 512;

/// The share of the memory available at load time the KV cache may take
/// (one in this many bytes).
const KV_SHARE_OF_MEMORY: u64 = 4;

/// The context for a model trained on `trained` tokens whose KV cache takes
/// `kv_bytes_per_token`, held to `cap` and, when the memory available is
/// known, to a quarter of it. A multiple of 256, never under 512.
pub fn writer_context(
    trained: u32,
    cap: u32,
    kv_bytes_per_token: u64,
    available: Option<u64>,
) -> u32 {
    let mut tokens = u64::from(
        trained
            .max(WRITER_CONTEXT_MIN)
            .min(cap.max(WRITER_CONTEXT_MIN)),
    );
    if let Some(memory) = available {
        tokens = tokens.min(memory / KV_SHARE_OF_MEMORY / kv_bytes_per_token.max(1));
    }
    ((tokens / 256 * 256) as u32).max(WRITER_CONTEXT_MIN)
}

/// The bytes one token of context takes in the KV cache: keys and values
/// in f16, every layer, grouped heads counted once.
pub fn kv_bytes_per_token(layers: u64, embedding: u64, heads: u64, kv_heads: u64) -> u64 {
    let head_dim = embedding.max(1).div_ceil(heads.max(1));
    layers.max(1) * 2 * head_dim * kv_heads.max(1) * 2
}

/// The memory the system says is available now (`MemAvailable` on Linux);
/// `None` where it cannot be read.
pub fn available_memory() -> Option<u64> {
    crate::machine::Machine::probe(None).memory_available
}

impl GgufSummary {
    /// The context this model would write in, bounded by `cap` and the
    /// memory available now ([`writer_context`]); without its KV layout in
    /// the header, by its trained context and `cap` alone.
    pub fn writer_context(&self, cap: u32) -> u32 {
        let trained = self
            .context_length
            .map_or(WRITER_CONTEXT_MIN, |c| c.min(u64::from(u32::MAX)) as u32);
        match self.kv_bytes_per_token {
            Some(kv) => writer_context(trained, cap, kv, available_memory()),
            None => writer_context(trained, cap, 1, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_follows_the_model_the_cap_and_the_memory() {
        // Qwen2.5 1.5B: 28 layers, 1,536 wide, 12 heads, 2 of them for keys and values.
        let kv = kv_bytes_per_token(28, 1536, 12, 2);
        assert_eq!(kv, 28 * 2 * 128 * 2 * 2);
        // Plenty of memory: the cap, or the trained context when smaller.
        assert_eq!(writer_context(32_768, 8192, kv, Some(16 << 30)), 8192);
        assert_eq!(writer_context(2048, 8192, kv, Some(16 << 30)), 2048);
        assert_eq!(writer_context(32_768, 16_384, kv, None), 16_384);
        // 256 MiB available: a quarter of it holds 2,340 tokens, kept at a multiple of 256.
        assert_eq!(writer_context(32_768, 8192, kv, Some(256 << 20)), 2304);
        // Almost no memory, or nonsense: never under 512.
        assert_eq!(writer_context(32_768, 8192, kv, Some(1 << 20)), 512);
        assert_eq!(writer_context(0, 0, 0, Some(0)), 512);
    }
}
