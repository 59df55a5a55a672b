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

/// The parameters of the model at `path` without loading it: the product
/// of each tensor's dimensions, added up over the tensor table. The read is
/// bounded like [`check`]'s (the header's counts, each name and each
/// dimension are held to limits, and a length that runs past the file is a
/// truncated file before anything is allocated for it); a malformed table
/// (dimensions multiplying past 2^64) is `model_not_gguf`, a short one
/// `model_truncated`.
pub fn parameter_count(path: &Path) -> Result<u64, NarratorError> {
    check(path).map(|summary| summary.parameters)
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

    /// A file of F32 tensors with the given dimensions, each tensor's data
    /// present and aligned.
    fn tensors_file(shapes: &[&[u64]]) -> Vec<u8> {
        let mut v = header(shapes.len() as u64, 1);
        string(&mut v, "general.architecture");
        v.extend(8u32.to_le_bytes());
        string(&mut v, "llama");
        let mut offset = 0u64;
        for (i, dims) in shapes.iter().enumerate() {
            string(&mut v, &format!("t{i}"));
            v.extend((dims.len() as u32).to_le_bytes());
            for d in *dims {
                v.extend(d.to_le_bytes());
            }
            v.extend(0u32.to_le_bytes()); // F32
            v.extend(offset.to_le_bytes());
            let bytes = dims.iter().product::<u64>() * 4;
            offset += bytes.div_ceil(32) * 32;
        }
        #[allow(clippy::manual_is_multiple_of)]
        while v.len() % 32 != 0 {
            v.push(0);
        }
        v.extend(std::iter::repeat_n(0u8, offset as usize));
        v
    }

    #[test]
    fn counts_the_parameters_of_every_tensor() {
        let f = write(&tensors_file(&[&[8], &[4, 3], &[2, 2, 2, 2]]));
        assert_eq!(parameter_count(f.path()).unwrap(), 8 + 12 + 16);
        let f = write(&one_tensor_file(32));
        assert_eq!(parameter_count(f.path()).unwrap(), 8);
    }

    #[test]
    fn a_truncated_tensor_table_is_named_not_counted() {
        let full = tensors_file(&[&[8], &[4, 3]]);
        // Cut inside the second tensor's entry (its dimensions).
        let table_end = full.len() - 64;
        for cut in [table_end - 30, table_end - 12, table_end - 1] {
            let f = write(&full[..cut]);
            let err = parameter_count(f.path()).unwrap_err();
            assert_eq!(err.code(), "model_truncated", "cut at {cut}: {err}");
        }
    }

    #[test]
    fn lying_tables_are_refused_without_a_panic_or_a_huge_allocation() {
        // Dimensions whose product runs past 2^64.
        let mut lying = header(1, 0);
        string(&mut lying, "w");
        lying.extend(2u32.to_le_bytes());
        lying.extend((1u64 << 40).to_le_bytes());
        lying.extend((1u64 << 40).to_le_bytes());
        lying.extend(0u32.to_le_bytes());
        lying.extend(0u64.to_le_bytes());
        let f = write(&lying);
        let err = parameter_count(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_not_gguf", "{err}");
        assert!(err.to_string().contains("2^64"), "{err}");

        // Tensors that add up past 2^64 (each one fits).
        let mut many = header(2, 0);
        for name in ["a", "b"] {
            string(&mut many, name);
            many.extend(1u32.to_le_bytes());
            many.extend((u64::MAX / 2 + 1).to_le_bytes());
            many.extend(0u32.to_le_bytes());
            many.extend(0u64.to_le_bytes());
        }
        let f = write(&many);
        let err = parameter_count(f.path()).unwrap_err();
        assert_eq!(err.code(), "model_not_gguf", "{err}");

        // A tensor name said to be 15 MiB long in a file of a few bytes: a
        // truncated file, found before the name is read.
        let mut long_name = header(1, 0);
        long_name.extend((15u64 << 20).to_le_bytes());
        long_name.extend(b"w");
        let f = write(&long_name);
        let err = parameter_count(f.path()).unwrap_err();
        assert!(
            matches!(err.code(), "model_not_gguf" | "model_truncated"),
            "{err}"
        );

        // A metadata string said to be 15 MiB long: truncated, nothing allocated.
        let mut long_key = header(0, 1);
        long_key.extend((15u64 << 20).to_le_bytes());
        long_key.extend(b"general");
        let f = write(&long_key);
        assert_eq!(
            parameter_count(f.path()).unwrap_err().code(),
            "model_truncated"
        );

        // A million tensors claimed, one present.
        let mut claimed = tensors_file(&[&[8]]);
        claimed[8..16].copy_from_slice(&(1u64 << 20).to_le_bytes());
        let f = write(&claimed);
        let err = parameter_count(f.path()).unwrap_err();
        assert!(
            matches!(err.code(), "model_not_gguf" | "model_truncated"),
            "{err}"
        );

        // A tensor of 2^30 values (4 GiB) in a file that holds 64 bytes of data.
        let mut short_data = header(1, 0);
        string(&mut short_data, "w");
        short_data.extend(1u32.to_le_bytes());
        short_data.extend((1u64 << 30).to_le_bytes());
        short_data.extend(0u32.to_le_bytes());
        short_data.extend(0u64.to_le_bytes());
        #[allow(clippy::manual_is_multiple_of)]
        while short_data.len() % 32 != 0 {
            short_data.push(0);
        }
        short_data.extend([0u8; 64]);
        let f = write(&short_data);
        assert_eq!(
            parameter_count(f.path()).unwrap_err().code(),
            "model_truncated"
        );
    }

    /// Runs when the default model has been fetched (scripts/fetch-model.sh):
    /// the count is llama.cpp's own (`n_params`, 134,515,008).
    #[test]
    fn the_default_model_has_135_million_parameters() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../models")
            .join(crate::DEFAULT_MODEL_FILE);
        if !path.is_file() {
            return;
        }
        assert_eq!(parameter_count(&path).unwrap(), 134_515_008);
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
