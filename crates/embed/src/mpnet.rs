//! MPNet (all-mpnet-base-v2's encoder) over candle, which has no module for
//! it: BERT's layers with no token types, positions counted from the
//! padding id, and one relative-position bias, bucketed as T5 buckets it,
//! added to every layer's attention scores (as `transformers`'
//! `modeling_mpnet.py` computes it; docs/narrator.md, "Routing measurements").

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{
    embedding, layer_norm, linear, Embedding, LayerNorm, LayerNormConfig, Linear, VarBuilder,
};
use serde::Deserialize;

/// The fields of an MPNet `config.json` the encoder reads.
#[derive(Debug, Clone, Deserialize)]
pub struct MpNetConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_pad")]
    pub pad_token_id: u32,
    #[serde(default = "default_buckets")]
    pub relative_attention_num_buckets: usize,
}

fn default_eps() -> f64 {
    1e-5
}
fn default_pad() -> u32 {
    1
}
fn default_buckets() -> usize {
    32
}

/// The farthest distance the relative-position buckets tell apart.
const MAX_DISTANCE: i64 = 128;

struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
    heads: usize,
}

impl Layer {
    fn load(vb: VarBuilder, c: &MpNetConfig) -> Result<Layer> {
        let h = c.hidden_size;
        let norm = LayerNormConfig {
            eps: c.layer_norm_eps,
            ..Default::default()
        };
        let attn = vb.pp("attention");
        Ok(Layer {
            q: linear(h, h, attn.pp("attn.q"))?,
            k: linear(h, h, attn.pp("attn.k"))?,
            v: linear(h, h, attn.pp("attn.v"))?,
            o: linear(h, h, attn.pp("attn.o"))?,
            attention_norm: layer_norm(h, norm, attn.pp("LayerNorm"))?,
            intermediate: linear(h, c.intermediate_size, vb.pp("intermediate.dense"))?,
            output: linear(c.intermediate_size, h, vb.pp("output.dense"))?,
            output_norm: layer_norm(h, norm, vb.pp("output.LayerNorm"))?,
            heads: c.num_attention_heads,
        })
    }

    /// `x` (batch, tokens, hidden); `bias` (batch or 1, heads, tokens, tokens)
    /// holds the position bias and the padding mask together.
    fn forward(&self, x: &Tensor, bias: &Tensor) -> Result<Tensor> {
        let (b, t, h) = x.dims3()?;
        let d = h / self.heads;
        let split = |y: Tensor| -> Result<Tensor> {
            y.reshape((b, t, self.heads, d))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split(self.q.forward(x)?)?;
        let k = split(self.k.forward(x)?)?;
        let v = split(self.v.forward(x)?)?;
        let scores = (q.matmul(&k.t()?)? / (d as f64).sqrt())?.broadcast_add(bias)?;
        let probs = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = probs.matmul(&v)?.transpose(1, 2)?.reshape((b, t, h))?;
        let attended = self
            .attention_norm
            .forward(&(self.o.forward(&context)? + x)?)?;
        let inner = self.intermediate.forward(&attended)?.gelu_erf()?;
        self.output_norm
            .forward(&(self.output.forward(&inner)? + attended)?)
    }
}

/// An MPNet encoder: token ids in, the last layer's hidden states out.
pub struct MpNet {
    words: Embedding,
    positions: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
    relative_bias: Embedding,
    config: MpNetConfig,
    device: Device,
}

impl MpNet {
    /// Loads the weights under `vb` (names as in the model's safetensors,
    /// with or without an `mpnet.` prefix).
    pub fn load(vb: VarBuilder, config: &MpNetConfig) -> Result<MpNet> {
        let vb = if vb.contains_tensor("mpnet.embeddings.word_embeddings.weight") {
            vb.pp("mpnet")
        } else {
            vb
        };
        let h = config.hidden_size;
        let emb = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|i| Layer::load(vb.pp(format!("encoder.layer.{i}")), config))
            .collect::<Result<Vec<_>>>()?;
        Ok(MpNet {
            words: embedding(config.vocab_size, h, emb.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                h,
                emb.pp("position_embeddings"),
            )?,
            norm: layer_norm(
                h,
                LayerNormConfig {
                    eps: config.layer_norm_eps,
                    ..Default::default()
                },
                emb.pp("LayerNorm"),
            )?,
            layers,
            relative_bias: embedding(
                config.relative_attention_num_buckets,
                config.num_attention_heads,
                vb.pp("encoder.relative_attention_bias"),
            )?,
            config: config.clone(),
            device: vb.device().clone(),
        })
    }

    /// The hidden states (batch, tokens, hidden) of `ids` (batch, tokens),
    /// with `mask` (batch, tokens) 1 for real tokens and 0 for padding.
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, t) = ids.dims2()?;
        let pad = self.config.pad_token_id;
        // Positions count the real tokens from the padding id on.
        let id_rows = ids.to_vec2::<u32>()?;
        let positions: Vec<u32> = id_rows
            .iter()
            .flat_map(|row| {
                let mut seen = 0;
                row.iter()
                    .map(|&id| {
                        if id == pad {
                            pad
                        } else {
                            seen += 1;
                            seen + pad
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let positions = Tensor::from_vec(positions, (b, t), &self.device)?;
        let mut x = self
            .norm
            .forward(&(self.words.forward(ids)? + self.positions.forward(&positions)?)?)?;
        let buckets: Vec<u32> = (0..t as i64)
            .flat_map(|q| {
                (0..t as i64)
                    .map(move |k| bucket(k - q, self.config.relative_attention_num_buckets as i64))
            })
            .collect();
        let buckets = Tensor::from_vec(buckets, (t, t), &self.device)?;
        let position_bias = self
            .relative_bias
            .forward(&buckets)? // (t, t, heads)
            .permute((2, 0, 1))?
            .unsqueeze(0)?; // (1, heads, t, t)
        let padding = ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?
            .unsqueeze(1)?
            .unsqueeze(1)?; // (batch, 1, 1, t): 0 for tokens, -1e9 for padding
        let bias = position_bias.broadcast_add(&padding)?.contiguous()?;
        for layer in &self.layers {
            x = layer.forward(&x, &bias)?;
        }
        Ok(x)
    }
}

/// The bucket of a key `relative` tokens after (negative: before) the
/// query, of `buckets` (half for each direction; exact up to a quarter,
/// then logarithmic up to [`MAX_DISTANCE`]).
fn bucket(relative: i64, buckets: i64) -> u32 {
    let half = buckets / 2;
    let n = -relative;
    let mut ret = if n < 0 { half } else { 0 };
    let n = n.abs();
    let exact = half / 2;
    ret += if n < exact {
        n
    } else {
        let scaled = ((n as f64 / exact as f64).ln() / (MAX_DISTANCE as f64 / exact as f64).ln()
            * (half - exact) as f64) as i64;
        (exact + scaled).min(half - 1)
    };
    ret as u32
}

#[cfg(test)]
mod tests {
    use super::bucket;

    #[test]
    fn buckets_are_exact_near_and_logarithmic_far_as_mpnet_counts_them() {
        // As transformers' relative_position_bucket(32 buckets, 128) gives them.
        assert_eq!(bucket(0, 32), 0);
        assert_eq!(bucket(-1, 32), 1);
        assert_eq!(bucket(1, 32), 17);
        assert_eq!(bucket(-7, 32), 7);
        assert_eq!(bucket(-8, 32), 8);
        assert_eq!(bucket(-20, 32), 10);
        assert_eq!(bucket(-200, 32), 15);
        assert_eq!(bucket(200, 32), 31);
    }
}
