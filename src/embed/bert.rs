//! Loading a BERT model folder, shared by the sentence model and the re-ranker.
//!
//! Both are BERT encoders published the same way (`model.safetensors`, `tokenizer.json`,
//! `config.json`); they differ in what they put on top. Every file is checked for presence
//! first, so a half-fetched folder reports the missing file rather than a parse error.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams, TruncationStrategy};

/// Length of every vector a sentence model returns (the hidden size of every model we run).
pub const DIMENSIONS: usize = 384;

/// The files a model folder must hold, under the names the model's publisher uses, so a
/// downloaded copy can be used as it is.
pub const FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

/// Why a model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// `ALETHEIA_MODEL` or `ALETHEIA_RERANKER` names no model this build knows.
    #[error("{0}")]
    Choice(String),
    /// A file of [`FILES`] is not in the model folder.
    #[error(
        "the model {model} is missing {file} in {}: run `aletheia model fetch` or set ALETHEIA_MODEL_DIR",
        dir.display()
    )]
    Missing {
        model: &'static str,
        dir: PathBuf,
        file: &'static str,
    },
    /// A model file is present but could not be read or does not fit this model.
    #[error("cannot load the model from {}: {message}", file.display())]
    Load { file: PathBuf, message: String },
    /// Tokenizing or running the model failed.
    #[error("embedding failed: {0}")]
    Run(String),
}

/// A model folder's contents, read.
pub struct Loaded {
    pub tokenizer: Tokenizer,
    pub config: Config,
    /// The weights, to build the encoder and whatever sits on top of it.
    pub weights: VarBuilder<'static>,
    pub weights_file: PathBuf,
}

/// Whether `dir` holds all [`FILES`] (cheap; no parsing).
pub fn present(dir: &Path) -> bool {
    FILES.iter().all(|file| dir.join(file).is_file())
}

/// Read model `name`'s folder `dir`, its tokenizer cutting inputs at `max_tokens`.
pub fn load(name: &'static str, dir: &Path, max_tokens: usize) -> Result<Loaded, EmbedError> {
    if let Some(file) = FILES.into_iter().find(|file| !dir.join(file).is_file()) {
        return Err(EmbedError::Missing {
            model: name,
            dir: dir.to_path_buf(),
            file,
        });
    }
    let [weights_file, tokenizer_file, config_file] = FILES.map(|file| dir.join(file));

    let config: Config = std::fs::read_to_string(&config_file)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
        .and_then(|config: Config| {
            if config.hidden_size == DIMENSIONS {
                Ok(config)
            } else {
                Err(format!(
                    "this model has {} dimensions, {DIMENSIONS} are expected",
                    config.hidden_size
                ))
            }
        })
        .map_err(|message| load_error(&config_file, message))?;

    let mut tokenizer =
        Tokenizer::from_file(&tokenizer_file).map_err(|e| load_error(&tokenizer_file, e))?;
    // Published files pad every input to a fixed length (128, or 512) and cut it there. Each
    // batch is padded here only to its longest text, and the cut belongs at the model's own.
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            // A query and a memory read together lose from whichever is longer.
            strategy: TruncationStrategy::LongestFirst,
            ..TruncationParams::default()
        }))
        .map_err(|e| load_error(&tokenizer_file, e))?;

    // SAFETY: the map lives only while the weights are copied into tensors (candle copies them
    // on the CPU), which spares holding the file in memory next to the tensors made from it.
    // Memory mapping is unsafe because another process truncating the file meanwhile would
    // crash this one; whatever writes the model folder must therefore replace files by
    // renaming, never rewrite them in place.
    let weights =
        unsafe { VarBuilder::from_mmaped_safetensors(&[&weights_file], DType::F32, &Device::Cpu) }
            .map_err(|e| load_error(&weights_file, e))?;
    Ok(Loaded {
        tokenizer,
        config,
        weights,
        weights_file,
    })
}

/// The encoder of `loaded`. Checkpoints saved from a BERT task model (`BertForMaskedLM`, a
/// cross-encoder) keep it under `bert.`; sentence-transformers exports have no prefix.
pub fn encoder(loaded: &Loaded) -> Result<BertModel, EmbedError> {
    let vb = &loaded.weights;
    let vb = if vb.contains_tensor("embeddings.word_embeddings.weight") {
        vb.clone()
    } else {
        vb.pp("bert")
    };
    BertModel::load(vb, &loaded.config).map_err(|e| load_error(&loaded.weights_file, e))
}

/// Token rows of any lengths as one padded batch: ids, segment ids and the attention mask.
pub fn batch(
    rows: &[(&[u32], &[u32])],
    pad_id: u32,
    device: &Device,
) -> candle_core::Result<(Tensor, Tensor, Tensor)> {
    let count = rows.len();
    let width = rows.iter().map(|row| row.0.len()).max().unwrap_or(0);
    let mut ids = vec![pad_id; count * width];
    let mut types = vec![0u32; count * width];
    let mut mask = vec![0f32; count * width];
    for (r, (row, segments)) in rows.iter().enumerate() {
        let at = r * width;
        ids[at..at + row.len()].copy_from_slice(row);
        types[at..at + segments.len()].copy_from_slice(segments);
        mask[at..at + row.len()].fill(1.0);
    }
    Ok((
        Tensor::from_vec(ids, (count, width), device)?,
        Tensor::from_vec(types, (count, width), device)?,
        Tensor::from_vec(mask, (count, width), device)?,
    ))
}

/// Most texts per forward pass. Every operation has a fixed cost, so small batches waste time:
/// measured on short texts, batches of 8 took about 1.6 times the CPU time of batches of 32,
/// while 64 saved only a few percent more.
const BATCH_SIZE: usize = 32;

/// Bound on texts × length² per forward pass. Each layer's attention holds a texts × 12 heads ×
/// length × length matrix of scores, several of them at once, so a batch of long texts is made
/// smaller: 32 texts of up to 128 tokens, 8 of 256 (25 MB per score matrix). Measured on 256-token
/// texts, 16 per batch peaked at 440 MB of memory and 8 at 270 MB, at the same speed.
const BATCH_ATTENTION: usize = BATCH_SIZE * 128 * 128;

/// Run `each` over `lengths`' items in batches of similar length, shortest first: each batch is
/// padded only to its own longest, so sorting saves most of the padding. `each` gets the
/// items' indexes and returns one result per item; results come back in the input's order.
pub fn by_length<T: Clone + Default>(
    lengths: &[usize],
    mut each: impl FnMut(&[usize]) -> Result<Vec<T>, EmbedError>,
) -> Result<Vec<T>, EmbedError> {
    // A stable sort keeps items of equal length in input order, so results are repeatable.
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| lengths[i]);
    let mut out = vec![T::default(); lengths.len()];
    let mut rest = &order[..];
    while !rest.is_empty() {
        // Ascending order means the last item taken is the batch's longest.
        let mut take = 1;
        while take < rest.len()
            && take < BATCH_SIZE
            && (take + 1) * lengths[rest[take]].pow(2) <= BATCH_ATTENTION
        {
            take += 1;
        }
        let (batch, next) = rest.split_at(take);
        for (&i, result) in batch.iter().zip(each(batch)?) {
            out[i] = result;
        }
        rest = next;
    }
    Ok(out)
}

pub fn load_error(file: &Path, message: impl std::fmt::Display) -> EmbedError {
    EmbedError::Load {
        file: file.to_path_buf(),
        message: message.to_string(),
    }
}
