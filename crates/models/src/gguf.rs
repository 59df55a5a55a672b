//! A GGUF header reader: checks that a file is a complete GGUF model (so a
//! missing, truncated or foreign file becomes a clear error instead of a
//! crash or an opaque "null model" from llama.cpp) and reads what the model
//! manager shows: architecture, name, quantization, context length and
//! whether the file carries a chat template.
//!
//! Hand-written on purpose: of the GGUF crates on crates.io, `gguf-rs-lib`
//! needs a newer Rust than this workspace's 1.85, `gguf` parses a byte slice
//! (the whole file in memory) and `gguf-rs` pulls a command line's
//! dependencies into the library; none reports a truncated file, which is
//! the failure users meet after an interrupted copy.
//!
//! candle's reader (`candle_core::quantized::gguf_file::Content::read`,
//! candle 0.9.2, already built for the sentence encoder) was weighed too
//! and is not used: it allocates whatever length a file claims before
//! reading it, so a lying string length (2^62) or dimension count (2^32)
//! aborts the process on a failed allocation and a lying array length
//! panics (capacity overflow); and it refuses every tensor type it cannot
//! compute with (the IQ and TQ quantizations llama.cpp runs), so it would
//! call a good IQ4_XS download "not a GGUF file". A check in front of it
//! would have to walk every length in the file, which is this reader.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use crate::error::GgufError;

const MAGIC: &[u8; 4] = b"GGUF";
const MAX_STRING: u64 = 16 << 20;
const MAX_ARRAY: u64 = 1 << 26;
const MAX_COUNT: u64 = 1 << 20;
const MAX_DIMS: u32 = 4;
/// The longest tensor name read (ggml's own limit is 64 bytes).
const MAX_TENSOR_NAME: u64 = 4096;

/// What the header says about a GGUF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GgufSummary {
    pub version: u32,
    pub tensor_count: u64,
    pub metadata_count: u64,
    /// `general.architecture`, when present.
    pub architecture: Option<String>,
    /// `general.name`, when present.
    pub name: Option<String>,
    /// `general.file_type`: how the weights are quantized, when present.
    pub file_type: Option<u32>,
    /// `<architecture>.context_length`: the longest context the model was trained for.
    pub context_length: Option<u64>,
    /// Whether `tokenizer.chat_template` is present (instruct models carry one).
    pub has_chat_template: bool,
    /// Bytes the file needs to hold its tensor data (always given: a tensor
    /// whose type's layout is not known is refused).
    pub data_end: Option<u64>,
    /// Bytes one token of context takes in the KV cache, when the header
    /// gives the layout (`<architecture>.block_count`, `.embedding_length`,
    /// `.attention.head_count`, `.attention.head_count_kv`).
    pub kv_bytes_per_token: Option<u64>,
    /// `<architecture>.block_count`: the model's layers, when given.
    pub block_count: Option<u64>,
    /// The model's parameters: the elements of every tensor added up
    /// (the product of each tensor's dimensions).
    pub parameters: u64,
    pub file_len: u64,
}

enum Fault {
    Eof,
    Bad(String),
}

impl From<std::io::Error> for Fault {
    fn from(e: std::io::Error) -> Fault {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Fault::Eof
        } else {
            Fault::Bad(e.to_string())
        }
    }
}

struct Reader<R> {
    inner: R,
    pos: u64,
    /// The file's length: a length field that runs past it is a truncated
    /// file, found before anything of that length is allocated.
    len: u64,
}

impl<R: Read> Reader<R> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], Fault> {
        let mut b = [0u8; N];
        self.inner.read_exact(&mut b)?;
        self.pos += N as u64;
        Ok(b)
    }
    fn u32(&mut self) -> Result<u32, Fault> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }
    fn u64(&mut self) -> Result<u64, Fault> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }
    fn skip(&mut self, n: u64) -> Result<(), Fault> {
        let copied = std::io::copy(&mut (&mut self.inner).take(n), &mut std::io::sink())?;
        self.pos += copied;
        if copied < n {
            return Err(Fault::Eof);
        }
        Ok(())
    }
    fn string(&mut self) -> Result<Vec<u8>, Fault> {
        let len = self.u64()?;
        if len > MAX_STRING {
            return Err(Fault::Bad(format!(
                "a string of {len} bytes at offset {}",
                self.pos
            )));
        }
        if len > self.len.saturating_sub(self.pos) {
            return Err(Fault::Eof);
        }
        let mut v = vec![0u8; len as usize];
        self.inner.read_exact(&mut v)?;
        self.pos += len;
        Ok(v)
    }
    /// Reads one metadata value of type `ty`; returns it when it is a string or an integer.
    fn value(&mut self, ty: u32, depth: u32) -> Result<Value, Fault> {
        Ok(match ty {
            0 | 1 | 7 => {
                self.skip(1)?;
                Value::Other
            }
            2 | 3 => {
                self.skip(2)?;
                Value::Other
            }
            4 => Value::U32(self.u32()?),
            10 => Value::U64(self.u64()?),
            5 | 6 => {
                self.skip(4)?;
                Value::Other
            }
            11 | 12 => {
                self.skip(8)?;
                Value::Other
            }
            8 => Value::Str(self.string()?),
            9 if depth == 0 => {
                let item = self.u32()?;
                let n = self.u64()?;
                if n > MAX_ARRAY {
                    return Err(Fault::Bad(format!("an array of {n} items")));
                }
                match fixed_size(item) {
                    Some(size) => self.skip(n * size)?,
                    None => {
                        for _ in 0..n {
                            self.value(item, depth + 1)?;
                        }
                    }
                }
                Value::Other
            }
            other => return Err(Fault::Bad(format!("unknown metadata value type {other}"))),
        })
    }
}

enum Value {
    U32(u32),
    U64(u64),
    Str(Vec<u8>),
    Other,
}

fn fixed_size(ty: u32) -> Option<u64> {
    match ty {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// The most tokens of context a model may claim to be trained for: 2^24
/// (16,777,216), above the longest any published model gives (10,485,760).
/// A larger `<architecture>.context_length` is a malformed header, not a
/// model (docs/models.md, on the GGUF reader).
pub const MAX_CONTEXT_LENGTH: u64 = 1 << 24;

/// (elements per block, bytes per block) of the ggml tensor types whose
/// layout is known here (ggml's `ggml_type` and the block structs of
/// `ggml-common.h`). A tensor of any other type is refused.
fn block_layout(ty: u32) -> Option<(u64, u64)> {
    Some(match ty {
        0 => (1, 4),      // F32
        1 => (1, 2),      // F16
        2 => (32, 18),    // Q4_0
        3 => (32, 20),    // Q4_1
        6 => (32, 22),    // Q5_0
        7 => (32, 24),    // Q5_1
        8 => (32, 34),    // Q8_0
        9 => (32, 36),    // Q8_1
        10 => (256, 84),  // Q2_K
        11 => (256, 110), // Q3_K
        12 => (256, 144), // Q4_K
        13 => (256, 176), // Q5_K
        14 => (256, 210), // Q6_K
        15 => (256, 292), // Q8_K
        16 => (256, 66),  // IQ2_XXS
        17 => (256, 74),  // IQ2_XS
        18 => (256, 98),  // IQ3_XXS
        19 => (256, 50),  // IQ1_S
        20 => (32, 18),   // IQ4_NL
        21 => (256, 110), // IQ3_S
        22 => (256, 82),  // IQ2_S
        23 => (256, 136), // IQ4_XS
        24 => (1, 1),     // I8
        25 => (1, 2),     // I16
        26 => (1, 4),     // I32
        27 => (1, 8),     // I64
        28 => (1, 8),     // F64
        29 => (256, 56),  // IQ1_M
        30 => (1, 2),     // BF16
        34 => (256, 54),  // TQ1_0
        35 => (256, 66),  // TQ2_0
        39 => (32, 17),   // MXFP4
        _ => return None,
    })
}

/// Checks that `path` is a readable GGUF file whose header, metadata and
/// tensor table are complete, that it has tensors, each of a type whose
/// layout is known here with whole blocks in a row, whose data fits in the
/// file, and that its context length is at most [`MAX_CONTEXT_LENGTH`].
/// Promises a typed error naming the problem, never a panic.
pub fn read(path: &Path) -> Result<GgufSummary, GgufError> {
    let (file, file_len) = open(path)?;
    let mut r = Reader {
        inner: BufReader::with_capacity(1 << 16, file),
        pos: 0,
        len: file_len,
    };
    let p = Problems { path, file_len };
    if file_len < 24 {
        let mut head = Vec::new();
        let _ = r.inner.read_to_end(&mut head);
        if head.len() >= 4 && &head[..4] == MAGIC {
            return Err(p.truncated(file_len, "header"));
        }
        return Err(p.not_gguf(format!("only {file_len} bytes, no GGUF header")));
    }
    let magic: [u8; 4] = r.bytes().map_err(|_| p.truncated(r.pos, "header"))?;
    if &magic != MAGIC {
        return Err(p.not_gguf(format!(
            "the file starts with {:02x?}, not the GGUF magic",
            magic
        )));
    }
    let version = r.u32().map_err(|f| p.fault(f, "header"))?;
    if !(2..=3).contains(&version) {
        return Err(p.not_gguf(format!(
            "unsupported GGUF version {version} (2 or 3 expected)"
        )));
    }
    let tensor_count = r.u64().map_err(|f| p.fault(f, "header"))?;
    let metadata_count = r.u64().map_err(|f| p.fault(f, "header"))?;
    if tensor_count > MAX_COUNT || metadata_count > MAX_COUNT {
        return Err(p.not_gguf(format!(
            "implausible header: {tensor_count} tensors, {metadata_count} metadata entries"
        )));
    }
    let metadata = Metadata::read(&mut r, metadata_count, &p)?;
    let tensors = Tensors::read(&mut r, tensor_count, &p)?;
    let data_start = r.pos.div_ceil(metadata.alignment) * metadata.alignment;
    let data_end = data_start.saturating_add(tensors.data_len);
    if data_end > file_len {
        return Err(GgufError::Truncated {
            path: path.to_path_buf(),
            reason: format!("its tensors need {data_end} bytes but the file has {file_len}"),
        });
    }
    Ok(GgufSummary {
        kv_bytes_per_token: metadata.kv_bytes_per_token(),
        block_count: metadata.of_arch("block_count"),
        context_length: metadata.context_length(&p)?,
        version,
        tensor_count,
        metadata_count,
        architecture: metadata.architecture,
        name: metadata.name,
        file_type: metadata.file_type,
        has_chat_template: metadata.has_chat_template,
        data_end: Some(data_end),
        parameters: tensors.parameters,
        file_len,
    })
}

/// The regular file at `path`, opened, and its length.
fn open(path: &Path) -> Result<(File, u64), GgufError> {
    let unreadable = |reason: String| GgufError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(GgufError::Missing(path.to_path_buf()))
        }
        Err(e) => return Err(unreadable(e.to_string())),
    };
    if !meta.is_file() {
        return Err(unreadable("not a regular file".into()));
    }
    let file = File::open(path).map_err(|e| unreadable(e.to_string()))?;
    Ok((file, meta.len()))
}

/// The errors of one file's read.
struct Problems<'a> {
    path: &'a Path,
    file_len: u64,
}

impl Problems<'_> {
    fn not_gguf(&self, reason: String) -> GgufError {
        GgufError::NotGguf {
            path: self.path.to_path_buf(),
            reason,
        }
    }

    fn truncated(&self, at: u64, what: &str) -> GgufError {
        GgufError::Truncated {
            path: self.path.to_path_buf(),
            reason: format!(
                "the file ends at byte {at} inside the {what} ({} bytes in all)",
                self.file_len
            ),
        }
    }

    /// A fault met while reading the `what` part of the file.
    fn fault(&self, f: Fault, what: &str) -> GgufError {
        match f {
            Fault::Eof => self.truncated(self.file_len, what),
            Fault::Bad(m) => self.not_gguf(format!("malformed {what}: {m}")),
        }
    }
}

/// What the metadata says that the summary shows.
struct Metadata {
    architecture: Option<String>,
    name: Option<String>,
    alignment: u64,
    file_type: Option<u32>,
    has_chat_template: bool,
    /// `<architecture>.context_length`, in the file's order.
    context_lengths: Vec<(Vec<u8>, u64)>,
    /// `<architecture>.<field>` of the KV cache's layout.
    layout: Vec<(Vec<u8>, &'static str, u64)>,
}

impl Metadata {
    /// Reads `count` metadata entries.
    fn read<R: Read>(r: &mut Reader<R>, count: u64, p: &Problems) -> Result<Metadata, GgufError> {
        let mut m = Metadata {
            architecture: None,
            name: None,
            alignment: 32,
            file_type: None,
            has_chat_template: false,
            context_lengths: Vec::new(),
            layout: Vec::new(),
        };
        for _ in 0..count {
            let key = r.string().map_err(|f| p.fault(f, "metadata"))?;
            let ty = r.u32().map_err(|f| p.fault(f, "metadata"))?;
            let value = r.value(ty, 0).map_err(|f| p.fault(f, "metadata"))?;
            let number = match value {
                Value::U32(n) => Some(u64::from(n)),
                Value::U64(n) => Some(n),
                _ => None,
            };
            match (key.as_slice(), value) {
                (b"general.architecture", Value::Str(s)) => {
                    m.architecture = Some(String::from_utf8_lossy(&s).into_owned())
                }
                (b"general.name", Value::Str(s)) => {
                    m.name = Some(String::from_utf8_lossy(&s).into_owned())
                }
                (b"general.alignment", Value::U32(a)) if a > 0 && a.is_power_of_two() => {
                    m.alignment = u64::from(a)
                }
                (b"general.file_type", Value::U32(t)) => m.file_type = Some(t),
                (b"tokenizer.chat_template", Value::Str(s)) => m.has_chat_template = !s.is_empty(),
                (k, _) => match (layout_field(k), number) {
                    (Some((arch, field)), Some(n)) => m.layout.push((arch.to_vec(), field, n)),
                    (None, Some(n)) if k.ends_with(b".context_length") => {
                        m.context_lengths.push((k[..k.len() - 15].to_vec(), n))
                    }
                    _ => {}
                },
            }
        }
        Ok(m)
    }

    fn is_architecture(&self, arch: &[u8]) -> bool {
        Some(arch) == self.architecture.as_deref().map(str::as_bytes)
    }

    /// The trained context: the architecture's `context_length`, else the
    /// first one in the file. More than [`MAX_CONTEXT_LENGTH`] is refused.
    fn context_length(&self, p: &Problems) -> Result<Option<u64>, GgufError> {
        let Some((arch, n)) = self
            .context_lengths
            .iter()
            .find(|(arch, _)| self.is_architecture(arch))
            .or(self.context_lengths.first())
        else {
            return Ok(None);
        };
        if *n > MAX_CONTEXT_LENGTH {
            return Err(p.not_gguf(format!(
                "malformed metadata: {}.context_length is {n} tokens, more than any model's ({MAX_CONTEXT_LENGTH} at most)",
                String::from_utf8_lossy(arch)
            )));
        }
        Ok(Some(*n))
    }

    /// `<architecture>.<field>` of the KV cache's layout, when given.
    fn of_arch(&self, field: &str) -> Option<u64> {
        self.layout
            .iter()
            .find(|(arch, f, _)| *f == field && self.is_architecture(arch))
            .map(|(_, _, n)| *n)
    }

    fn kv_bytes_per_token(&self) -> Option<u64> {
        let layers = self.of_arch("block_count")?;
        let embedding = self.of_arch("embedding_length")?;
        let heads = self.of_arch("attention.head_count")?;
        let kv_heads = self.of_arch("attention.head_count_kv").unwrap_or(heads);
        Some(crate::context::kv_bytes_per_token(
            layers, embedding, heads, kv_heads,
        ))
    }
}

/// What the tensor table says: where the data ends and how many values
/// there are.
struct Tensors {
    /// The end of the last tensor's data, from the data section's start.
    data_len: u64,
    parameters: u64,
}

impl Tensors {
    /// Reads `count` tensor entries. At least one; each of a type whose
    /// layout is known ([`block_layout`]), with rows of whole blocks.
    fn read<R: Read>(r: &mut Reader<R>, count: u64, p: &Problems) -> Result<Tensors, GgufError> {
        if count == 0 {
            return Err(p.not_gguf("it has no tensors: no weights to run".into()));
        }
        let mut t = Tensors {
            data_len: 0,
            parameters: 0,
        };
        for i in 0..count {
            let (elements, end) = read_tensor(r, i, p)?;
            t.parameters = t.parameters.checked_add(elements).ok_or_else(|| {
                p.not_gguf("malformed tensor table: the tensors add up past 2^64 elements".into())
            })?;
            t.data_len = t.data_len.max(end);
        }
        Ok(t)
    }
}

/// Reads tensor `i`'s entry: its values and the end of its data (from the
/// data section's start).
fn read_tensor<R: Read>(r: &mut Reader<R>, i: u64, p: &Problems) -> Result<(u64, u64), GgufError> {
    let table = |f: Fault| p.fault(f, "tensor table");
    let name_len = r.u64().map_err(table)?;
    if name_len > MAX_TENSOR_NAME {
        return Err(p.not_gguf(format!(
            "malformed tensor table: tensor {i} has a name of {name_len} bytes"
        )));
    }
    r.skip(name_len).map_err(table)?;
    let n_dims = r.u32().map_err(table)?;
    if n_dims == 0 || n_dims > MAX_DIMS {
        return Err(p.not_gguf(format!("a tensor with {n_dims} dimensions")));
    }
    let mut elements: u64 = 1;
    let mut row: u64 = 0;
    for d in 0..n_dims {
        let size = r.u64().map_err(table)?;
        if d == 0 {
            row = size;
        }
        elements = elements.checked_mul(size).ok_or_else(|| {
            p.not_gguf(format!(
                "malformed tensor table: tensor {i}'s dimensions multiply past 2^64 elements"
            ))
        })?;
    }
    let ty = r.u32().map_err(table)?;
    let offset = r.u64().map_err(table)?;
    let Some((per_block, bytes)) = block_layout(ty) else {
        return Err(p.not_gguf(format!(
            "tensor {i} has type {ty}, a tensor type this version does not know: its data cannot be checked and the narrator cannot load it"
        )));
    };
    if !row.is_multiple_of(per_block) {
        return Err(p.not_gguf(format!(
            "malformed tensor table: tensor {i}'s rows of {row} values are not whole blocks of {per_block} (type {ty})"
        )));
    }
    let end = offset.saturating_add((elements / per_block).saturating_mul(bytes));
    Ok((elements, end))
}

/// `(architecture, field)` of a metadata key naming part of the KV cache's
/// layout (`qwen2.block_count` → `("qwen2", "block_count")`).
fn layout_field(key: &[u8]) -> Option<(&[u8], &'static str)> {
    const FIELDS: [&str; 4] = [
        "block_count",
        "embedding_length",
        "attention.head_count",
        "attention.head_count_kv",
    ];
    FIELDS.iter().find_map(|field| {
        let arch = key.strip_suffix(field.as_bytes())?.strip_suffix(b".")?;
        (!arch.is_empty() && !arch.contains(&b'.')).then_some((arch, *field))
    })
}

impl GgufSummary {
    /// The quantization's usual name (`Q4_1`, `Q4_K_M`, `F16`…), when the
    /// file says which one it is.
    pub fn quantization(&self) -> Option<String> {
        self.file_type.map(quantization_name)
    }
}

/// llama.cpp's name for a `general.file_type` value (`llama_ftype`).
pub fn quantization_name(file_type: u32) -> String {
    let name = match file_type {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        other => return format!("type {other}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests;
