//! Minimal GGUF files, for tests of programs that handle model files.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` as a catalog entry writes it (lower-case hex).
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::download::hex(&Sha256::digest(bytes))
}

/// The ggml type number of F32 tensors.
pub const F32: u32 = 0;

/// One tensor of a test GGUF file: its dimensions, its ggml type number,
/// and where its data starts in the data section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestTensor {
    pub dims: Vec<u64>,
    pub ty: u32,
    pub offset: u64,
}

/// The bytes of a small but complete GGUF v3 file: architecture `llama`,
/// name `tiny`, file type Q4_1, context length 2048, one F32 tensor of 8
/// values, and a chat template when `chat_template` is true.
pub fn tiny_gguf(chat_template: bool) -> Vec<u8> {
    one_tensor_gguf("tiny", chat_template)
}

/// A GGUF v3 file like [`tiny_gguf`] with a chat template, whose context
/// length is `context_length` (a 64-bit value), whose tensor table is
/// `tensors`, and whose data section holds `data` zero bytes.
pub fn gguf_with(context_length: u64, tensors: &[TestTensor], data: usize) -> Vec<u8> {
    let mut kvs = base_metadata("tiny", Kv::U64(context_length));
    kvs.push(("tokenizer.chat_template", Kv::Str(CHAT_TEMPLATE)));
    build(&kvs, tensors, data)
}

/// A GGUF file like [`tiny_gguf`] with a chat template, whose
/// `general.name` is `name` (as a model's publisher names it).
pub fn named_gguf(name: &'static str) -> Vec<u8> {
    one_tensor_gguf(name, true)
}

/// [`tiny_gguf`]'s file under the `general.name` `name`.
fn one_tensor_gguf(name: &'static str, chat_template: bool) -> Vec<u8> {
    let mut kvs: Vec<(&str, Kv)> = base_metadata(name, Kv::U32(2048));
    if chat_template {
        kvs.push(("tokenizer.chat_template", Kv::Str(CHAT_TEMPLATE)));
    }
    let tensor = TestTensor {
        dims: vec![8],
        ty: F32,
        offset: 0,
    };
    build(&kvs, &[tensor], 32)
}

const CHAT_TEMPLATE: &str = "{% for m in messages %}{{ m.content }}{% endfor %}";

fn base_metadata(name: &'static str, context_length: Kv) -> Vec<(&'static str, Kv)> {
    vec![
        ("general.architecture", Kv::Str("llama")),
        ("general.name", Kv::Str(name)),
        ("general.file_type", Kv::U32(3)),
        ("llama.context_length", context_length),
    ]
}

/// The header, `kvs`, the tensor table of `tensors`, padding to 32 bytes,
/// and `data` zero bytes.
fn build(kvs: &[(&str, Kv)], tensors: &[TestTensor], data: usize) -> Vec<u8> {
    let mut v = b"GGUF".to_vec();
    v.extend(3u32.to_le_bytes());
    v.extend((tensors.len() as u64).to_le_bytes());
    v.extend((kvs.len() as u64).to_le_bytes());
    for (key, value) in kvs {
        string(&mut v, key);
        match value {
            Kv::Str(s) => {
                v.extend(8u32.to_le_bytes());
                string(&mut v, s);
            }
            Kv::U32(n) => {
                v.extend(4u32.to_le_bytes());
                v.extend(n.to_le_bytes());
            }
            Kv::U64(n) => {
                v.extend(10u32.to_le_bytes());
                v.extend(n.to_le_bytes());
            }
        }
    }
    for (i, tensor) in tensors.iter().enumerate() {
        // `w`, `w1`, `w2`…: tiny_gguf's one tensor keeps its name `w`.
        let name = match i {
            0 => "w".to_string(),
            i => format!("w{i}"),
        };
        string(&mut v, &name);
        v.extend((tensor.dims.len() as u32).to_le_bytes());
        for d in &tensor.dims {
            v.extend(d.to_le_bytes());
        }
        v.extend(tensor.ty.to_le_bytes());
        v.extend(tensor.offset.to_le_bytes());
    }
    while !v.len().is_multiple_of(32) {
        v.push(0);
    }
    v.extend(std::iter::repeat_n(0u8, data));
    v
}

enum Kv {
    Str(&'static str),
    U32(u32),
    U64(u64),
}

fn string(v: &mut Vec<u8>, s: &str) {
    v.extend((s.len() as u64).to_le_bytes());
    v.extend(s.as_bytes());
}
