//! The local sentence-embedding model, run on the CPU with candle.
//!
//! A 384-dimensional BERT sentence model (see [`super::catalog`] for the choice) maps a text to
//! a vector; texts that mean the same thing land close together, which is what semantic recall
//! needs and full-text search cannot give. It runs in-process so that recall needs no network
//! and no second program, but it costs a fraction of a second to load and some memory, so only
//! the long-lived parts (server, worker, back-fill, explicit searches) load it; the hook never
//! does.
//!
//! The vectors reproduce what the model's reference implementation computes: WordPiece tokens
//! (at most the model's cap), with the model's own prefix before a query or a stored text, the
//! BERT encoder, the model's pooling (the mean of the token vectors over the attention mask, or
//! the first token's), then scaling to unit length. Unit length means cosine similarity is a
//! plain dot product for the vector index.

use std::path::Path;

use candle_core::Tensor;
use candle_transformers::models::bert::BertModel;
use tokenizers::Tokenizer;

use super::bert::{self, by_length};
pub use super::bert::{DIMENSIONS, EmbedError, FILES};
use super::catalog::{self, Pooling, Spec};

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
    spec: &'static Spec,
}

impl Embedder {
    /// Load the sentence model `ALETHEIA_MODEL` names (else the default) from the models
    /// folder `dir`.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        let spec = catalog::sentence_model_in(dir).map_err(EmbedError::Choice)?;
        Embedder::load_model(dir, spec)
    }

    /// Load model `spec` from the models folder `dir`.
    pub fn load_model(dir: &Path, spec: &'static Spec) -> Result<Embedder, EmbedError> {
        let loaded = bert::load(spec.name, &catalog::folder(dir, spec), spec.max_tokens)?;
        let model = bert::encoder(&loaded)?;
        Ok(Embedder {
            pad_id: u32::try_from(loaded.config.pad_token_id).unwrap_or(0),
            tokenizer: loaded.tokenizer,
            model,
            spec,
        })
    }

    /// Whether the models folder `dir` holds the chosen model's files (cheap; no parsing).
    pub fn present(dir: &Path) -> bool {
        catalog::sentence_model_in(dir).is_ok_and(|spec| bert::present(&catalog::folder(dir, spec)))
    }

    /// The model's name, stored beside each vector it makes.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// Unit-length vectors of [`DIMENSIONS`] floats for stored texts, one per text, in the
    /// order of `texts`.
    ///
    /// Texts longer than the model's cap (256 tokens, roughly 200 English words) are
    /// truncated: only their beginning counts, as in the reference implementations. An empty
    /// string is embedded like any other text and yields a valid unit vector, never a zero
    /// vector, so callers need no special case; skip empty texts before calling if they should
    /// not be indexed. Empty input gives empty output.
    ///
    /// The texts are tokenized once, sorted by token count and run in batches of up to 32
    /// (fewer when they are long), so each batch is padded only to its own longest text.
    /// Padding does not change a vector beyond float rounding, so a text gets the same vector
    /// alone or in any batch.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_with(self.spec.passage_prefix, texts)
    }

    /// The vector of a query: the same model, with the model's query prefix.
    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self
            .embed_with(self.spec.query_prefix, &[query])?
            .pop()
            .unwrap_or_else(|| vec![0.0; DIMENSIONS]))
    }

    fn embed_with(&self, prefix: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let encodings = self
            .tokenizer
            .encode_batch_fast(inputs, true)
            .map_err(|e| EmbedError::Run(format!("tokenizing: {e}")))?;
        let tokens: Vec<&[u32]> = encodings.iter().map(|e| e.get_ids()).collect();
        let lengths: Vec<usize> = tokens.iter().map(|t| t.len()).collect();
        by_length(&lengths, |batch| {
            let rows: Vec<&[u32]> = batch.iter().map(|&i| tokens[i]).collect();
            self.run_batch(&rows)
                .map_err(|e| EmbedError::Run(e.to_string()))
        })
    }

    /// One forward pass over token rows of any lengths, each padded to the longest.
    fn run_batch(&self, rows: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        // Single texts are all segment 0.
        let zeros: Vec<Vec<u32>> = rows.iter().map(|r| vec![0; r.len()]).collect();
        let paired: Vec<(&[u32], &[u32])> = rows
            .iter()
            .zip(&zeros)
            .map(|(r, z)| (*r, z.as_slice()))
            .collect();
        let (ids, type_ids, mask) = bert::batch(&paired, self.pad_id, &self.model.device)?;
        let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?; // (count, width, 384)
        let pooled = match self.spec.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                // (count, 1, width) × (count, width, 384) sums each text's token vectors in one
                // matrix product, skipping the padding whose mask is 0.
                let mask = mask.unsqueeze(1)?;
                let sums = mask.matmul(&hidden)?.squeeze(1)?;
                let lengths = mask.sum(2)?; // (count, 1); at least 2, for [CLS] and [SEP]
                sums.broadcast_div(&lengths)?
            }
        };
        unit(&pooled)?.to_vec2()
    }
}

/// Each row scaled to unit length, with torch's `normalize` floor against dividing by zero.
fn unit(rows: &Tensor) -> candle_core::Result<Tensor> {
    let norms = rows.sqr()?.sum_keepdim(1)?.sqrt()?.maximum(1e-12)?;
    rows.broadcast_div(&norms)
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
        Embedder::load_model(Path::new(&dir), &catalog::MINILM).expect("the test model loads")
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

    /// A models folder with an empty folder for `spec`.
    fn models_folder(spec: &Spec) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join(spec.name);
        std::fs::create_dir(&own).unwrap();
        (dir, own)
    }

    #[rstest]
    fn load_names_the_missing_file(#[values(0, 1, 2)] missing: usize) {
        let (dir, own) = models_folder(&catalog::E5_SMALL);
        for (i, file) in FILES.iter().enumerate() {
            if i != missing {
                std::fs::write(own.join(file), "").unwrap();
            }
        }
        assert!(!bert::present(&own));
        match Embedder::load_model(dir.path(), &catalog::E5_SMALL) {
            Err(error @ EmbedError::Missing { file, model, .. }) => {
                assert_eq!(model, "e5-small-v2");
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
        let (_dir, own) = models_folder(&catalog::MINILM);
        assert!(!bert::present(&own));
        for file in FILES {
            std::fs::write(own.join(file), "").unwrap();
        }
        assert!(bert::present(&own));
    }

    #[test]
    fn load_reports_an_unreadable_file_as_load() {
        let (dir, own) = models_folder(&catalog::BGE_SMALL);
        for file in FILES {
            std::fs::write(own.join(file), "not a model").unwrap();
        }
        match Embedder::load_model(dir.path(), &catalog::BGE_SMALL) {
            Err(EmbedError::Load { file, .. }) => assert_eq!(file, own.join("config.json")),
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

    /// e5-small-v2 and bge-small-en-v1.5 against vectors computed independently (a numpy BERT
    /// forward pass in float64, `scripts/model-fixtures`), each sentence a query or a stored
    /// text, given without its prefix: the model's conventions are what is checked as much as
    /// its weights.
    #[rstest]
    #[case::e5(&catalog::E5_SMALL, "e5-small-v2-reference.json")]
    #[case::bge(&catalog::BGE_SMALL, "bge-small-en-v1.5-reference.json")]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn each_model_matches_its_reference_with_its_own_conventions(
        #[case] spec: &'static Spec,
        #[case] fixture: &str,
    ) {
        let dir = std::env::var_os("ALETHEIA_TEST_MODEL_DIR").expect("ALETHEIA_TEST_MODEL_DIR");
        let embedder = Embedder::load_model(Path::new(&dir), spec).expect("the model loads");
        assert_eq!(embedder.name(), spec.name);
        let path = format!(
            "{}/fixtures/embeddings/{fixture}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
        let sentences = fixture["sentences"].as_array().expect("a sentences array");
        assert!(sentences.len() >= 4);
        for s in sentences {
            let text = s["text"].as_str().expect("a text");
            #[allow(
                clippy::cast_possible_truncation,
                reason = "the reference vectors are compared as f32s"
            )]
            let expected: Vec<f32> = s["vector"]
                .as_array()
                .expect("a vector")
                .iter()
                .map(|x| x.as_f64().expect("a number") as f32)
                .collect();
            let actual = match s["role"].as_str() {
                Some("query") => embedder.embed_query(text).unwrap(),
                Some("passage") => embedder.embed(&[text]).unwrap().remove(0),
                other => panic!("unknown role {other:?}"),
            };
            assert_unit(&actual);
            let similarity = cosine(&expected, &actual);
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
