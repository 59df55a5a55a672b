use super::*;
use crate::fixture::{gguf_with, tiny_gguf, TestTensor, F32};

fn write(bytes: &[u8]) -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f
}

#[test]
fn reads_what_the_model_list_shows() {
    let f = write(&tiny_gguf(true));
    let s = read(f.path()).unwrap();
    assert_eq!(s.architecture.as_deref(), Some("llama"));
    assert_eq!(s.name.as_deref(), Some("tiny"));
    assert_eq!(s.quantization().as_deref(), Some("Q4_1"));
    assert_eq!(s.context_length, Some(2048));
    assert!(s.has_chat_template);
    assert_eq!(s.data_end, Some(s.file_len));
}

#[test]
fn a_file_without_a_chat_template_says_so() {
    let f = write(&tiny_gguf(false));
    let s = read(f.path()).unwrap();
    assert!(!s.has_chat_template);
}

#[test]
fn names_missing_foreign_and_truncated_files() {
    assert!(matches!(
        read(Path::new("/nonexistent/m.gguf")),
        Err(GgufError::Missing(_))
    ));
    let f = write(b"<html>not a model at all, just some text</html>");
    assert!(matches!(read(f.path()), Err(GgufError::NotGguf { .. })));
    let full = tiny_gguf(true);
    let f = write(&full[..full.len() - 4]);
    assert!(matches!(read(f.path()), Err(GgufError::Truncated { .. })));
}

fn tensor(dims: &[u64], ty: u32) -> TestTensor {
    TestTensor {
        dims: dims.to_vec(),
        ty,
        offset: 0,
    }
}

/// The audit's file: a few hundred bytes whose one tensor is of a type
/// without a known layout and has no data. It was read as a good model
/// (`data_end: None`, no problem) and llama.cpp then refused it.
#[test]
fn a_tensor_of_a_type_without_a_known_layout_is_refused() {
    let bytes = gguf_with(2048, &[tensor(&[4096, 4096], 99)], 0);
    assert!(bytes.len() < 400, "{} bytes", bytes.len());
    let f = write(&bytes);
    let err = read(f.path()).unwrap_err();
    assert!(matches!(err, GgufError::NotGguf { .. }), "{err}");
    assert!(err.to_string().contains("type 99"), "{err}");
}

/// IQ and TQ quantizations llama.cpp runs are known, so their data is
/// checked: present it is read, missing it is a truncated file.
#[test]
fn the_data_of_every_known_type_must_be_in_the_file() {
    // IQ4_XS: blocks of 256 values in 136 bytes.
    let whole = gguf_with(2048, &[tensor(&[256, 2], 23)], 2 * 136);
    let f = write(&whole);
    let s = read(f.path()).unwrap();
    assert_eq!(s.data_end, Some(s.file_len));
    assert_eq!(s.parameters, 512);
    let short = gguf_with(2048, &[tensor(&[256, 2], 23)], 136);
    let f = write(&short);
    let err = read(f.path()).unwrap_err();
    assert!(matches!(err, GgufError::Truncated { .. }), "{err}");
    // TQ1_0 (54 bytes a block) and MXFP4 (17 bytes for 32 values).
    for (ty, values, bytes) in [(34, 256, 54), (35, 256, 66), (39, 32, 17), (19, 256, 50)] {
        let f = write(&gguf_with(2048, &[tensor(&[values], ty)], bytes));
        read(f.path()).unwrap_or_else(|e| panic!("type {ty}: {e}"));
        let f = write(&gguf_with(2048, &[tensor(&[values], ty)], bytes - 1));
        assert!(read(f.path()).is_err(), "type {ty} with a byte missing");
    }
}

#[test]
fn rows_of_partial_blocks_and_files_without_tensors_are_refused() {
    // Q4_K holds 256 values a block: a row of 8 is no whole block.
    let f = write(&gguf_with(2048, &[tensor(&[8], 12)], 144));
    let err = read(f.path()).unwrap_err();
    assert!(err.to_string().contains("not whole blocks"), "{err}");
    let f = write(&gguf_with(2048, &[], 0));
    let err = read(f.path()).unwrap_err();
    assert!(err.to_string().contains("no tensors"), "{err}");
}

/// A context length of 2^64 - 1 was listed as the model's.
#[test]
fn an_absurd_context_length_is_refused() {
    let one = [tensor(&[8], F32)];
    for absurd in [u64::MAX, MAX_CONTEXT_LENGTH + 1] {
        let f = write(&gguf_with(absurd, &one, 32));
        let err = read(f.path()).unwrap_err();
        assert!(matches!(err, GgufError::NotGguf { .. }), "{err}");
        assert!(
            err.to_string()
                .contains(&format!("llama.context_length is {absurd} tokens")),
            "{err}"
        );
    }
    let f = write(&gguf_with(MAX_CONTEXT_LENGTH, &one, 32));
    assert_eq!(
        read(f.path()).unwrap().context_length,
        Some(MAX_CONTEXT_LENGTH)
    );
}

#[test]
fn unknown_file_types_keep_their_number() {
    assert_eq!(quantization_name(15), "Q4_K_M");
    assert_eq!(quantization_name(99), "type 99");
}

/// Runs when the default model has been fetched (scripts/fetch-model.sh).
#[test]
fn the_default_model_is_an_instruct_q4_1_model() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/SmolLM2-135M-Instruct.Q4_1.gguf");
    if !path.is_file() {
        return;
    }
    let s = read(&path).unwrap();
    assert_eq!(s.quantization().as_deref(), Some("Q4_1"));
    assert!(s.has_chat_template);
    assert!(s.context_length.unwrap_or(0) >= 2048, "{s:?}");
}
