//! The memory skill's embeddings: the shared all-MiniLM-L6-v2 embedder
//! (crate `narratoria-embed`) and the `embedding` BLOB form vectors are
//! stored in.

pub use narratoria_embed::{cosine, Embedder, EmbedderError, DIMENSIONS, MAX_TOKENS};

/// A vector as the little-endian `f32` bytes stored in the `embedding` BLOB.
pub fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The vector in an `embedding` BLOB; `None` unless it holds 384 floats.
pub fn from_blob(b: &[u8]) -> Option<Vec<f32>> {
    (b.len() == DIMENSIONS * 4).then(|| {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip() {
        let v: Vec<f32> = (0..DIMENSIONS).map(|i| i as f32 * 0.5 - 3.0).collect();
        assert_eq!(from_blob(&to_blob(&v)).unwrap(), v);
        assert!(from_blob(&[0u8; 12]).is_none());
        assert!(from_blob(&[]).is_none());
    }
}
