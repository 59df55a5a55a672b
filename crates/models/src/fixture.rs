//! Minimal GGUF files, for tests of programs that handle model files.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` as a catalog entry writes it (lower-case hex).
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::download::hex(&Sha256::digest(bytes))
}

/// The bytes of a small but complete GGUF v3 file: architecture `llama`,
/// name `tiny`, file type Q4_1, context length 2048, one F32 tensor of 8
/// values, and a chat template when `chat_template` is true.
pub fn tiny_gguf(chat_template: bool) -> Vec<u8> {
    let mut kvs: Vec<(&str, Kv)> = vec![
        ("general.architecture", Kv::Str("llama")),
        ("general.name", Kv::Str("tiny")),
        ("general.file_type", Kv::U32(3)),
        ("llama.context_length", Kv::U32(2048)),
    ];
    if chat_template {
        kvs.push((
            "tokenizer.chat_template",
            Kv::Str("{% for m in messages %}{{ m.content }}{% endfor %}"),
        ));
    }
    let mut v = b"GGUF".to_vec();
    v.extend(3u32.to_le_bytes());
    v.extend(1u64.to_le_bytes());
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
        }
    }
    string(&mut v, "w");
    v.extend(1u32.to_le_bytes());
    v.extend(8u64.to_le_bytes());
    v.extend(0u32.to_le_bytes()); // F32
    v.extend(0u64.to_le_bytes());
    while !v.len().is_multiple_of(32) {
        v.push(0);
    }
    v.extend([0u8; 32]);
    v
}

enum Kv {
    Str(&'static str),
    U32(u32),
}

fn string(v: &mut Vec<u8>, s: &str) {
    v.extend((s.len() as u64).to_le_bytes());
    v.extend(s.as_bytes());
}
