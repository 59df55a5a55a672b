use super::*;
use crate::fixture::tiny_gguf;

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
