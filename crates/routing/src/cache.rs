//! Example embeddings kept on disk between runs, one file per list of
//! texts, named by the hash of the model and the texts: a skill whose
//! examples did not change is never embedded again.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The user's cache folder for routing: `$NARRATORIA_CACHE_DIR/routing`,
/// else `$XDG_CACHE_HOME/narratoria/routing`, else
/// `~/.cache/narratoria/routing`, else a folder under the temp dir.
pub fn default_cache_dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    };
    if let Some(p) = env("NARRATORIA_CACHE_DIR") {
        return p.join("routing");
    }
    if let Some(p) = env("XDG_CACHE_HOME") {
        return p.join("narratoria/routing");
    }
    if let Some(home) = env("HOME") {
        return home.join(".cache/narratoria/routing");
    }
    std::env::temp_dir().join("narratoria-routing")
}

/// The cache key of `texts` embedded by the model `model_key`.
pub fn key(model_key: &str, texts: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(model_key.as_bytes());
    for t in texts {
        h.update([0u8]);
        h.update(t.as_bytes());
    }
    hex(&h.finalize())
}

/// The vectors stored under `key` in `dir`, when there are exactly `count`
/// (a file holds its vectors' width, then the vectors).
pub fn load(dir: &Path, key: &str, count: usize) -> Option<Vec<Vec<f32>>> {
    let bytes = std::fs::read(dir.join(format!("{key}.f32"))).ok()?;
    let (width, rows) = bytes.split_first_chunk::<4>()?;
    let width = u32::from_le_bytes(*width) as usize;
    (width > 0 && rows.len() == count * width * 4).then(|| {
        rows.chunks_exact(width * 4)
            .map(|row| {
                row.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            })
            .collect()
    })
}

/// Stores `vectors` (all of one width) under `key` in `dir` (written aside,
/// then renamed, so a reader never sees half a file). A cache that cannot be
/// written is skipped.
pub fn store(dir: &Path, key: &str, vectors: &[Vec<f32>]) {
    let width = vectors.first().map_or(0, Vec::len) as u32;
    let bytes: Vec<u8> = width
        .to_le_bytes()
        .into_iter()
        .chain(vectors.iter().flatten().flat_map(|x| x.to_le_bytes()))
        .collect();
    let path = dir.join(format!("{key}.f32"));
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, bytes))
        .and_then(|()| std::fs::rename(&tmp, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_keys_follow_the_texts() {
        let dir = tempfile::tempdir().unwrap();
        let v = vec![vec![0.5f32; 768], vec![-1.0f32; 768]];
        let k = key("m", &["a".into(), "b".into()]);
        assert_ne!(k, key("m", &["a".into(), "c".into()]));
        assert_ne!(k, key("n", &["a".into(), "b".into()]));
        assert_ne!(k, key("m", &["ab".into()]));
        store(dir.path(), &k, &v);
        assert_eq!(load(dir.path(), &k, 2), Some(v));
        assert_eq!(load(dir.path(), &k, 3), None);
        assert_eq!(load(dir.path(), &k, 4), None);
        assert_eq!(load(dir.path(), "other", 2), None);
    }
}
