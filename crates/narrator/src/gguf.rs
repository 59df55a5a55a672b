//! A GGUF sanity check that runs before llama.cpp sees the file, so a
//! missing, truncated or foreign file becomes a clear error instead of a
//! crash or an opaque "null model" from C++. The header reader itself lives
//! in `narratoria-models` (shared with the model manager, which needs no
//! llama.cpp); this is its narrator-facing form.

use std::path::Path;

pub use narratoria_models::gguf::GgufSummary;
use narratoria_models::GgufError;

use crate::error::NarratorError;

/// Checks that `path` is a readable GGUF file whose header, metadata and
/// tensor table are complete and whose tensor data fits in the file.
/// Promises a typed error naming the problem, never a panic.
pub fn check(path: &Path) -> Result<GgufSummary, NarratorError> {
    narratoria_models::gguf::read(path).map_err(|e| match e {
        GgufError::Missing(path) => NarratorError::ModelMissing(path),
        GgufError::Unreadable { path, reason } => NarratorError::ModelUnreadable { path, reason },
        GgufError::NotGguf { path, reason } => NarratorError::NotGguf { path, reason },
        GgufError::Truncated { path, reason } => NarratorError::ModelTruncated { path, reason },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn header(tensors: u64, kvs: u64) -> Vec<u8> {
        let mut v = b"GGUF".to_vec();
        v.extend(3u32.to_le_bytes());
        v.extend(tensors.to_le_bytes());
        v.extend(kvs.to_le_bytes());
        v
    }

    fn string(v: &mut Vec<u8>, s: &str) {
        v.extend((s.len() as u64).to_le_bytes());
        v.extend(s.as_bytes());
    }

    fn write(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    fn one_tensor_file(data: usize) -> Vec<u8> {
        let mut v = header(1, 1);
        string(&mut v, "general.architecture");
        v.extend(8u32.to_le_bytes());
        string(&mut v, "llama");
        string(&mut v, "w");
        v.extend(1u32.to_le_bytes());
        v.extend(8u64.to_le_bytes());
        v.extend(0u32.to_le_bytes()); // F32
        v.extend(0u64.to_le_bytes());
        #[allow(clippy::manual_is_multiple_of)]
        // is_multiple_of needs Rust 1.87; the workspace builds on 1.85
        while v.len() % 32 != 0 {
            v.push(0);
        }
        v.extend(std::iter::repeat_n(0u8, data));
        v
    }

    #[test]
    fn accepts_a_complete_file() {
        let f = write(&one_tensor_file(32));
        let s = check(f.path()).unwrap();
        assert_eq!(s.architecture.as_deref(), Some("llama"));
        assert_eq!(s.tensor_count, 1);
        assert_eq!(s.data_end, Some(s.file_len));
    }

    #[test]
    fn names_a_missing_file() {
        let err = check(Path::new("/nonexistent/model.gguf")).unwrap_err();
        assert_eq!(err.code(), "model_missing");
        assert!(err.to_string().contains("fetch-model.sh"), "{err}");
    }

    #[test]
    fn rejects_foreign_and_tiny_files() {
        let f = write(b"<html>not a model at all, just some text</html>");
        let err = check(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_not_gguf", "{err}");
        let f = write(b"");
        assert_eq!(check(f.path()).unwrap_err().code(), "model_not_gguf");
        let f = write(b"GGUF\x03\0");
        assert_eq!(check(f.path()).unwrap_err().code(), "model_truncated");
    }

    #[test]
    fn rejects_truncation_in_metadata_and_data() {
        let full = one_tensor_file(32);
        let f = write(&full[..40]);
        let err = check(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_truncated", "{err}");
        assert!(err.to_string().contains("metadata"), "{err}");
        let f = write(&full[..full.len() - 4]);
        let err = check(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_truncated", "{err}");
        assert!(err.to_string().contains("tensors need"), "{err}");
    }

    #[test]
    fn rejects_implausible_headers() {
        let f = write(&header(u64::MAX, 1));
        assert_eq!(check(f.path()).unwrap_err().code(), "model_not_gguf");
        let mut v = b"GGUF".to_vec();
        v.extend(99u32.to_le_bytes());
        v.extend([0u8; 16]);
        let f = write(&v);
        assert!(check(f.path())
            .unwrap_err()
            .to_string()
            .contains("version 99"));
    }
}
