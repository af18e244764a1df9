//! The local sentence-embedding model: all-MiniLM-L6-v2 run on the CPU with candle.
//!
//! The model is a 6-layer BERT that maps a text to a 384-dimensional vector; texts that mean the
//! same thing land close together, which is what semantic recall needs and full-text search cannot
//! give. It runs in-process so that recall needs no network and no second program, but it costs
//! about 100 ms to load and some memory, so only the long-lived parts (server, worker, back-fill,
//! explicit searches) load it; the hook never does.
//!
//! The vectors reproduce what `sentence-transformers` computes for this model: WordPiece tokens
//! (at most 256, as its `max_seq_length` says), the BERT encoder, the mean of the token vectors
//! over the attention mask, then scaling to unit length. Unit length means cosine similarity is a
//! plain dot product for the vector index.
//!
//! The model lives in a folder holding [`FILES`], fetched by `aletheia model fetch`.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams};

/// Length of every vector [`Embedder::embed`] returns (the model's hidden size).
pub const DIMENSIONS: usize = 384;

/// The files a model folder must hold: the weights, the tokenizer and the BERT configuration,
/// under the names the model's publisher uses, so a downloaded copy can be used as it is.
pub const FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

/// The longest input in tokens, `[CLS]` and `[SEP]` included: the model's `max_seq_length` in
/// sentence-transformers, so that long texts get the reference implementation's vectors. The
/// tokenizer file itself says 128, and BERT's position table would allow 512.
const MAX_TOKENS: usize = 256;

/// Most texts per forward pass. Every operation has a fixed cost, so small batches waste time:
/// measured on short texts, batches of 8 took about 1.6 times the CPU time of batches of 32,
/// while 64 saved only a few percent more.
const BATCH_SIZE: usize = 32;

/// Bound on texts × length² per forward pass. Each layer's attention holds a texts × 12 heads ×
/// length × length matrix of scores, several of them at once, so a batch of long texts is made
/// smaller: 32 texts of up to 128 tokens, 8 of 256 (25 MB per score matrix). Measured on 256-token
/// texts, 16 per batch peaked at 440 MB of memory and 8 at 270 MB, at the same speed.
const BATCH_ATTENTION: usize = BATCH_SIZE * 128 * 128;

/// Why the model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A file of [`FILES`] is not in the model folder.
    #[error(
        "the embedding model is missing {file} in {}: run `aletheia model fetch` or set ALETHEIA_MODEL_DIR",
        dir.display()
    )]
    Missing { dir: PathBuf, file: &'static str },
    /// A model file is present but could not be read or does not fit this model.
    #[error("cannot load the embedding model from {}: {message}", file.display())]
    Load { file: PathBuf, message: String },
    /// Tokenizing or running the model failed.
    #[error("embedding failed: {0}")]
    Run(String),
}

/// A loaded model, ready to embed. It is `Send + Sync`, so one copy can serve many threads.
///
/// The model runs on candle's CPU threads, one per physical core (`RAYON_NUM_THREADS` or
/// `CANDLE_NUM_THREADS` set the count). Those threads spin while they wait for each other, which
/// pays off on an idle machine and costs dearly on a busy one. On 2 cores, 2 threads embedded
/// 140 short texts a second when the machine was idle, against 100 with 1 thread, but only 50 to
/// 60 while a build ran next to them, when 1 thread still managed 90. A background indexer on a
/// developer's machine may be better off with 1 thread.
pub struct Embedder {
    tokenizer: Tokenizer,
    model: BertModel,
    pad_id: u32,
}

impl Embedder {
    /// Load from a folder holding [`FILES`].
    ///
    /// Every file is checked for presence first, so a half-fetched folder reports the missing
    /// file rather than a parse error.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        if let Some(file) = FILES.into_iter().find(|file| !dir.join(file).is_file()) {
            return Err(EmbedError::Missing {
                dir: dir.to_path_buf(),
                file,
            });
        }
        let [weights, tokenizer_file, config_file] = FILES.map(|file| dir.join(file));

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
        // The file pads every input to 128 tokens and cuts it there. `embed` pads each batch
        // itself, only to its longest text, and the cut belongs at the model's 256.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| load_error(&tokenizer_file, e))?;

        // SAFETY: the map lives only while the weights are copied into tensors (it is dropped
        // with `vb` at the end of this function), which spares holding the 90 MB file in memory
        // next to the tensors made from it. Memory mapping is unsafe because another process
        // truncating the file meanwhile would crash this one; whatever writes the model folder
        // must therefore replace files by renaming, never rewrite them in place.
        let vb =
            unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, &Device::Cpu) }
                .map_err(|e| load_error(&weights, e))?;
        // Checkpoints saved from a BERT task model (`BertForMaskedLM` and the like) keep the
        // encoder under `bert.`; the sentence-transformers export has no prefix.
        let vb = if vb.contains_tensor("embeddings.word_embeddings.weight") {
            vb
        } else {
            vb.pp("bert")
        };
        let model = BertModel::load(vb, &config).map_err(|e| load_error(&weights, e))?;

        Ok(Embedder {
            tokenizer,
            model,
            pad_id: u32::try_from(config.pad_token_id).unwrap_or(0),
        })
    }

    /// Whether `dir` holds all [`FILES`] (cheap; no parsing).
    pub fn present(dir: &Path) -> bool {
        FILES.iter().all(|file| dir.join(file).is_file())
    }

    /// Unit-length vectors of [`DIMENSIONS`] floats, one per text, in the order of `texts`.
    ///
    /// Texts longer than 256 tokens (roughly 200 English words) are truncated: only their
    /// beginning counts, as in sentence-transformers. An empty string is embedded like any other
    /// text (as `[CLS] [SEP]`) and yields a valid unit vector, never a zero vector, so callers
    /// need no special case; skip empty texts before calling if they should not be indexed.
    /// Empty input gives empty output.
    ///
    /// The texts are tokenized once, sorted by token count and run in batches of up to 32 (fewer
    /// when they are long), so each batch is padded only to its own longest text; the results
    /// come back in input order.
    /// Padding does not change a vector beyond float rounding, so a text gets the same vector
    /// alone or in any batch.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), true)
            .map_err(|e| EmbedError::Run(format!("tokenizing: {e}")))?;
        let tokens: Vec<&[u32]> = encodings.iter().map(|e| e.get_ids()).collect();

        // A stable sort keeps texts of equal length in input order, so results are repeatable.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| tokens[i].len());

        let mut vectors = vec![Vec::new(); texts.len()];
        let mut rest = &order[..];
        while !rest.is_empty() {
            // Ascending order means the last text taken is the batch's longest.
            let mut take = 1;
            while take < rest.len()
                && take < BATCH_SIZE
                && (take + 1) * tokens[rest[take]].len().pow(2) <= BATCH_ATTENTION
            {
                take += 1;
            }
            let (batch, next) = rest.split_at(take);
            let rows: Vec<&[u32]> = batch.iter().map(|&i| tokens[i]).collect();
            let pooled = self
                .run_batch(&rows)
                .map_err(|e| EmbedError::Run(e.to_string()))?;
            for (&i, vector) in batch.iter().zip(pooled) {
                vectors[i] = vector;
            }
            rest = next;
        }
        Ok(vectors)
    }

    /// One forward pass over token rows of any lengths, each padded to the longest.
    fn run_batch(&self, rows: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let device = &self.model.device;
        let count = rows.len();
        let width = rows.iter().map(|row| row.len()).max().unwrap_or(0);
        let mut ids = vec![self.pad_id; count * width];
        let mut mask = vec![0f32; count * width];
        for (r, row) in rows.iter().enumerate() {
            ids[r * width..r * width + row.len()].copy_from_slice(row);
            mask[r * width..r * width + row.len()].fill(1.0);
        }
        let ids = Tensor::from_vec(ids, (count, width), device)?;
        // Single texts are all segment 0.
        let type_ids = ids.zeros_like()?;
        let mask = Tensor::from_vec(mask, (count, width), device)?;

        let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?; // (count, width, 384)

        // Mean over the real tokens: (count, 1, width) × (count, width, 384) sums each text's
        // token vectors in one matrix product, skipping the padding whose mask is 0.
        let mask = mask.unsqueeze(1)?;
        let sums = mask.matmul(&hidden)?.squeeze(1)?;
        let lengths = mask.sum(2)?; // (count, 1); at least 2, for [CLS] and [SEP]
        let means = sums.broadcast_div(&lengths)?;
        // The same floor as torch's `normalize`, against dividing by zero.
        let norms = means.sqr()?.sum_keepdim(1)?.sqrt()?.maximum(1e-12)?;
        means.broadcast_div(&norms)?.to_vec2()
    }
}

fn load_error(file: &Path, message: impl std::fmt::Display) -> EmbedError {
    EmbedError::Load {
        file: file.to_path_buf(),
        message: message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use std::sync::LazyLock;

    /// One model for all tests: loading it per test would dominate their time.
    static EMBEDDER: LazyLock<Embedder> = LazyLock::new(|| {
        let dir = std::env::var_os("ALETHEIA_TEST_MODEL_DIR").unwrap_or_else(|| {
            panic!(
                "ALETHEIA_TEST_MODEL_DIR is not set: point it at a folder holding {FILES:?} \
                 (scripts/test fetches them and sets it)"
            )
        });
        Embedder::load(Path::new(&dir)).expect("the test model loads")
    });

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (na * nb)
    }

    fn assert_unit(vector: &[f32]) {
        assert_eq!(vector.len(), DIMENSIONS);
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }

    #[test]
    fn embedder_can_be_shared_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Embedder>();
    }

    #[rstest]
    fn load_names_the_missing_file(#[values(0, 1, 2)] missing: usize) {
        let dir = tempfile::tempdir().unwrap();
        for (i, file) in FILES.iter().enumerate() {
            if i != missing {
                std::fs::write(dir.path().join(file), "").unwrap();
            }
        }
        assert!(!Embedder::present(dir.path()));
        match Embedder::load(dir.path()) {
            Err(error @ EmbedError::Missing { file, .. }) => {
                assert_eq!(file, FILES[missing]);
                let message = error.to_string();
                assert!(message.contains(FILES[missing]), "{message}");
                assert!(message.contains("aletheia model fetch"), "{message}");
                assert!(message.contains("ALETHEIA_MODEL_DIR"), "{message}");
            }
            Err(other) => panic!("expected Missing, got {other}"),
            Ok(_) => panic!("expected Missing, the folder lacks {}", FILES[missing]),
        }
    }

    #[test]
    fn present_checks_files_without_reading_them() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!Embedder::present(dir.path()));
        for file in FILES {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        assert!(Embedder::present(dir.path()));
    }

    #[test]
    fn load_reports_an_unreadable_file_as_load() {
        let dir = tempfile::tempdir().unwrap();
        for file in FILES {
            std::fs::write(dir.path().join(file), "not a model").unwrap();
        }
        match Embedder::load(dir.path()) {
            Err(EmbedError::Load { file, .. }) => assert_eq!(file, dir.path().join("config.json")),
            Err(other) => panic!("expected Load, got {other}"),
            Ok(_) => panic!("expected Load, the files are not a model"),
        }
    }

    /// Vectors computed independently (Python, sentence-transformers) for the same model.
    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn matches_the_reference_implementation() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/embeddings/minilm-reference.json"
        );
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
        let sentences = fixture["sentences"].as_array().expect("a sentences array");
        assert!(!sentences.is_empty());
        let texts: Vec<&str> = sentences
            .iter()
            .map(|s| s["text"].as_str().expect("a text"))
            .collect();
        #[allow(
            clippy::cast_possible_truncation,
            reason = "the reference vectors were f32s, written out as JSON numbers"
        )]
        let expected: Vec<Vec<f32>> = sentences
            .iter()
            .map(|s| {
                s["vector"]
                    .as_array()
                    .expect("a vector")
                    .iter()
                    .map(|x| x.as_f64().expect("a number") as f32)
                    .collect()
            })
            .collect();

        let actual = EMBEDDER.embed(&texts).unwrap();
        assert_eq!(actual.len(), texts.len());
        for ((text, expected), actual) in texts.iter().zip(&expected).zip(&actual) {
            assert_eq!(expected.len(), DIMENSIONS, "fixture vector for {text:?}");
            assert_unit(actual);
            let similarity = cosine(expected, actual);
            assert!(similarity >= 0.9999, "cosine {similarity} for {text:?}");
        }
    }

    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn batching_does_not_change_vectors_or_order() {
        let long = "The worker retries a failed job three times with exponential backoff, \
                    then marks it dead and records the last error in the audit log. "
            .repeat(6);
        let texts = [
            "ok",
            long.as_str(),
            "the database is PostgreSQL",
            "",
            "Run cargo test before committing; CI rejects formatting errors.",
            "ok",
            "A much longer sentence about the session-start context block, which lists the \
             facts that mattered most in recent sessions of this project.",
        ];
        let together = EMBEDDER.embed(&texts).unwrap();
        assert_eq!(together.len(), texts.len());
        for (text, batched) in texts.iter().zip(&together) {
            let alone = EMBEDDER.embed(&[text]).unwrap();
            assert_eq!(alone.len(), 1);
            assert_unit(batched);
            let similarity = cosine(&alone[0], batched);
            assert!(similarity >= 0.99999, "cosine {similarity} for {text:?}");
        }
        // The same text twice in one call lands in one batch and gets the same vector.
        assert!(cosine(&together[0], &together[5]) >= 0.99999);
    }

    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn a_paraphrase_is_nearer_than_an_unrelated_sentence() {
        let v = EMBEDDER
            .embed(&[
                "the database is PostgreSQL",
                "we store data in Postgres",
                "the cat sat on the mat",
            ])
            .unwrap();
        let paraphrase = cosine(&v[0], &v[1]);
        let unrelated = cosine(&v[0], &v[2]);
        assert!(
            paraphrase > unrelated + 0.2,
            "paraphrase {paraphrase}, unrelated {unrelated}"
        );
    }

    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn empty_input_and_empty_text() {
        assert!(EMBEDDER.embed(&[]).unwrap().is_empty());
        let v = EMBEDDER.embed(&[""]).unwrap();
        assert_eq!(v.len(), 1);
        assert_unit(&v[0]);
    }

    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn text_past_the_token_limit_is_ignored() {
        // Each repetition is well over 256 tokens, so the tail never reaches the model.
        let head = "alpha beta gamma delta epsilon ".repeat(60);
        let longer = format!(
            "{head}{}",
            "completely different words about cooking ".repeat(40)
        );
        let v = EMBEDDER.embed(&[&head, &longer]).unwrap();
        assert_unit(&v[0]);
        let similarity = cosine(&v[0], &v[1]);
        assert!(similarity >= 0.99999, "cosine {similarity}");
    }
}
