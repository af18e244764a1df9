//! The cross-encoder that re-ranks the best few results of a search.
//!
//! A sentence model embeds the query and each memory apart, so it can only judge how alike two
//! texts are in general; a cross-encoder reads the query and one memory together, attention
//! running across both, and judges whether this memory answers this query. That is far better
//! and far dearer (a full pass per memory), so it reads only the first stage's top few, in the
//! long-running processes and `search --semantic`, never in a hook.
//!
//! The model is a BERT classifier (ms-marco-MiniLM-L-12-v2): `[CLS] query [SEP] memory [SEP]`,
//! the query's tokens segment 0 and the memory's segment 1, the encoder, then BERT's pooler
//! (tanh of a dense layer over the `[CLS]` vector) and a linear layer to one logit: the higher,
//! the more relevant. Loaded once per process.

use std::path::Path;

use candle_core::Module;
use candle_nn::{Linear, linear};
use candle_transformers::models::bert::BertModel;
use tokenizers::{EncodeInput, Tokenizer};

use super::bert::{self, EmbedError, by_length};
use super::catalog::{self, Spec};

/// A loaded cross-encoder. `Send + Sync`, like the sentence model.
pub struct Reranker {
    tokenizer: Tokenizer,
    model: BertModel,
    pooler: Linear,
    classifier: Linear,
    pad_id: u32,
}

impl Reranker {
    /// Load the re-ranker `ALETHEIA_RERANKER` names (else the default) from the models folder
    /// `dir`; `None` when it is turned off.
    pub fn load(dir: &Path) -> Result<Option<Reranker>, EmbedError> {
        match catalog::reranker().map_err(EmbedError::Choice)? {
            Some(spec) => Reranker::load_model(dir, spec).map(Some),
            None => Ok(None),
        }
    }

    /// Whether the models folder `dir` holds the chosen re-ranker's files.
    pub fn present(dir: &Path) -> bool {
        catalog::reranker()
            .is_ok_and(|spec| spec.is_some_and(|s| bert::present(&catalog::folder(dir, s))))
    }

    /// Load re-ranker `spec` from the models folder `dir`.
    pub fn load_model(dir: &Path, spec: &'static Spec) -> Result<Reranker, EmbedError> {
        let loaded = bert::load(spec.name, &catalog::folder(dir, spec), spec.max_tokens)?;
        let model = bert::encoder(&loaded)?;
        let hidden = loaded.config.hidden_size;
        let vb = &loaded.weights;
        let head = |what: &str, outputs: usize| {
            linear(hidden, outputs, vb.pp(what))
                .map_err(|e| bert::load_error(&loaded.weights_file, e))
        };
        Ok(Reranker {
            pooler: head("bert.pooler.dense", hidden)?,
            classifier: head("classifier", 1)?,
            pad_id: u32::try_from(loaded.config.pad_token_id).unwrap_or(0),
            tokenizer: loaded.tokenizer,
            model,
        })
    }

    /// How well each passage answers `query`: one logit per passage, in the order given.
    /// A query and passage longer than the model's cap together lose tokens from whichever is
    /// longer. Empty input gives empty output.
    pub fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, EmbedError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let pairs: Vec<EncodeInput<'_>> = passages
            .iter()
            .map(|p| EncodeInput::Dual((*query).into(), (*p).into()))
            .collect();
        let encodings = self
            .tokenizer
            .encode_batch_fast(pairs, true)
            .map_err(|e| EmbedError::Run(format!("tokenizing: {e}")))?;
        let lengths: Vec<usize> = encodings.iter().map(|e| e.len()).collect();
        by_length(&lengths, |batch| {
            let rows: Vec<(&[u32], &[u32])> = batch
                .iter()
                .map(|&i| (encodings[i].get_ids(), encodings[i].get_type_ids()))
                .collect();
            self.run_batch(&rows)
                .map_err(|e| EmbedError::Run(e.to_string()))
        })
    }

    fn run_batch(&self, rows: &[(&[u32], &[u32])]) -> candle_core::Result<Vec<f32>> {
        let (ids, type_ids, mask) = bert::batch(rows, self.pad_id, &self.model.device)?;
        let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?;
        let cls = hidden.narrow(1, 0, 1)?.squeeze(1)?;
        let pooled = self.pooler.forward(&cls)?.tanh()?;
        self.classifier.forward(&pooled)?.squeeze(1)?.to_vec1()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores computed independently (a numpy BERT forward pass in float64,
    /// `scripts/model-fixtures`) for pairs of a query and passages of differing relevance.
    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn scores_match_the_reference_and_order_each_query_s_passages_alike() {
        let dir = std::env::var_os("ALETHEIA_TEST_MODEL_DIR").expect("ALETHEIA_TEST_MODEL_DIR");
        let reranker =
            Reranker::load_model(Path::new(&dir), &catalog::MS_MARCO_L12).expect("it loads");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/rerank/ms-marco-MiniLM-L-12-v2-reference.json"
        );
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut by_query: Vec<(String, Vec<(String, f64)>)> = Vec::new();
        for pair in fixture["pairs"].as_array().expect("pairs") {
            let query = pair["query"].as_str().unwrap().to_owned();
            let passage = pair["passage"].as_str().unwrap().to_owned();
            let score = pair["score"].as_f64().unwrap();
            match by_query.iter_mut().find(|(q, _)| *q == query) {
                Some((_, passages)) => passages.push((passage, score)),
                None => by_query.push((query, vec![(passage, score)])),
            }
        }
        assert!(by_query.len() >= 3);
        for (query, passages) in &by_query {
            let texts: Vec<&str> = passages.iter().map(|p| p.0.as_str()).collect();
            // All of a query's passages in one call: batched and padded together.
            let scores = reranker.score(query, &texts).unwrap();
            for ((passage, expected), actual) in passages.iter().zip(&scores) {
                let gap = (f64::from(*actual) - expected).abs();
                assert!(
                    gap < 1e-2,
                    "{actual} vs {expected} for {query:?} / {passage:?}"
                );
            }
            let order = |s: &[f64]| {
                let mut o: Vec<usize> = (0..s.len()).collect();
                o.sort_by(|a, b| s[*b].total_cmp(&s[*a]));
                o
            };
            let expected: Vec<f64> = passages.iter().map(|p| p.1).collect();
            let actual: Vec<f64> = scores.iter().map(|s| f64::from(*s)).collect();
            assert_eq!(order(&actual), order(&expected), "{query:?}");
            // One pair alone scores as it does in the batch.
            let alone = reranker.score(query, &texts[..1]).unwrap();
            assert!((alone[0] - scores[0]).abs() < 1e-3);
        }
        assert!(reranker.score("anything", &[]).unwrap().is_empty());
    }
}
