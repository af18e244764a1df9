//! The models Aletheia can run, and which one this process uses.
//!
//! Sentence models differ in more than their weights: e5 wants `query: ` and `passage: ` before
//! each text and averages its token vectors, bge wants an instruction before a query and takes
//! the first token's vector, MiniLM wants neither. A vector made one way and compared with a
//! query made another is quietly worse, so each model's conventions live here beside its name,
//! and every vector is stored with the name of the model that made it.
//!
//! A models folder (`ALETHEIA_MODEL_DIR`, else `model/` in the data directory) holds one folder
//! per model, named as here, each with the model's `model.safetensors`, `tokenizer.json` and
//! `config.json`. `ALETHEIA_MODEL` picks the sentence model, `ALETHEIA_RERANKER` the re-ranker
//! (`off` for none).

use std::path::{Path, PathBuf};

/// How a sentence model turns its token vectors into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The mean over the real tokens.
    Mean,
    /// The first token's (`[CLS]`).
    Cls,
}

/// A model and how to use it.
#[derive(Debug, PartialEq, Eq)]
pub struct Spec {
    /// Its name: its folder in the models folder, the value of `ALETHEIA_MODEL`, and the name
    /// stored beside each vector it makes.
    pub name: &'static str,
    /// Where its files are published; a file's name is appended.
    pub home: &'static str,
    /// sha256 of the `model.safetensors` its public home serves, where known. The fetch checks
    /// it; a model without one is checked by loading it.
    pub weights_sha256: Option<&'static str>,
    /// Put before a query, and before a stored text.
    pub query_prefix: &'static str,
    pub passage_prefix: &'static str,
    pub pooling: Pooling,
    /// The longest input in tokens, `[CLS]` and `[SEP]` included.
    pub max_tokens: usize,
}

/// all-MiniLM-L6-v2: 6 layers, the fastest; the model every vector was made with before
/// models could be chosen. Its cap is sentence-transformers' `max_seq_length`.
pub const MINILM: Spec = Spec {
    name: "all-MiniLM-L6-v2",
    home: "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/",
    weights_sha256: Some("53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    query_prefix: "",
    passage_prefix: "",
    pooling: Pooling::Mean,
    max_tokens: 256,
};

/// e5-small-v2: 12 layers, trained for short queries against passages, with its prefixes.
pub const E5_SMALL: Spec = Spec {
    name: "e5-small-v2",
    home: "https://huggingface.co/intfloat/e5-small-v2/resolve/main/",
    weights_sha256: None,
    query_prefix: "query: ",
    passage_prefix: "passage: ",
    pooling: Pooling::Mean,
    max_tokens: 256,
};

/// bge-small-en-v1.5: 12 layers; an instruction before each query, nothing before a passage.
pub const BGE_SMALL: Spec = Spec {
    name: "bge-small-en-v1.5",
    home: "https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/",
    weights_sha256: None,
    query_prefix: "Represent this sentence for searching relevant passages: ",
    passage_prefix: "",
    pooling: Pooling::Cls,
    max_tokens: 256,
};

/// The cross-encoder that re-ranks: ms-marco-MiniLM-L-12-v2 reads a query and a memory together
/// and gives one score, which judges relevance far better than two separate vectors can.
pub const MS_MARCO_L12: Spec = Spec {
    name: "ms-marco-MiniLM-L-12-v2",
    home: "https://huggingface.co/cross-encoder/ms-marco-MiniLM-L-12-v2/resolve/main/",
    weights_sha256: None,
    query_prefix: "",
    passage_prefix: "",
    pooling: Pooling::Cls,
    max_tokens: 256,
};

/// Every sentence model, the default first: e5-small-v2 found the most on both recall
/// benchmarks (see `docs/recall.md`).
pub const SENTENCE_MODELS: [&Spec; 3] = [&E5_SMALL, &MINILM, &BGE_SMALL];

/// Every re-ranker, the default first.
pub const RERANKERS: [&Spec; 1] = [&MS_MARCO_L12];

/// The sentence model `ALETHEIA_MODEL` names, else the default.
pub fn sentence_model() -> Result<&'static Spec, String> {
    let wanted = std::env::var("ALETHEIA_MODEL").unwrap_or_default();
    pick("ALETHEIA_MODEL", wanted.trim(), &SENTENCE_MODELS)
}

/// [`sentence_model`] for the models folder `dir`: with no model named, a folder that holds
/// only all-MiniLM-L6-v2 as it was fetched before models could be chosen keeps using it, so
/// search by meaning goes on working after an upgrade until the user fetches the default.
pub fn sentence_model_in(dir: &Path) -> Result<&'static Spec, String> {
    let chosen = sentence_model()?;
    let named = std::env::var("ALETHEIA_MODEL").is_ok_and(|v| !v.trim().is_empty());
    let fetched = dir.join(chosen.name).join("model.safetensors").is_file();
    // `folder` gives the models folder itself only when it holds the old layout.
    if !named && !fetched && folder(dir, &MINILM) == dir {
        return Ok(&MINILM);
    }
    Ok(chosen)
}

/// The re-ranker `ALETHEIA_RERANKER` names, else the default; `None` for `off`.
pub fn reranker() -> Result<Option<&'static Spec>, String> {
    let wanted = std::env::var("ALETHEIA_RERANKER").unwrap_or_default();
    match wanted.trim() {
        "off" | "none" => Ok(None),
        name => pick("ALETHEIA_RERANKER", name, &RERANKERS).map(Some),
    }
}

/// How many of a search's best results the re-ranker reads by default. Each pair costs the
/// cross-encoder 60 to 120 ms on 2 cores: at 5 an MCP search at 100,000 memories took 338 ms,
/// over the 300 asked, so 4 (`docs/benchmarks.md`); 20 finds more (`docs/recall.md`) at about
/// a second and a half.
pub const RERANK_DEPTH: usize = 4;

/// The most results the re-ranker may be asked to read: each costs a pass of the cross-encoder.
const MOST_RERANKED: usize = 50;

/// How many results the re-ranker reads: `ALETHEIA_RERANK_DEPTH`, else [`RERANK_DEPTH`]. More
/// finds more (docs/recall.md) and costs a pass of the cross-encoder each.
pub fn rerank_depth() -> Result<usize, String> {
    depth_from(std::env::var("ALETHEIA_RERANK_DEPTH").ok().as_deref())
}

fn depth_from(value: Option<&str>) -> Result<usize, String> {
    match value {
        Some(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|d| (2..=MOST_RERANKED).contains(d))
            .ok_or_else(|| {
                format!(
                    "ALETHEIA_RERANK_DEPTH={v} is not a count from 2 to {MOST_RERANKED}: set one, or unset it for {RERANK_DEPTH}"
                )
            }),
        _ => Ok(RERANK_DEPTH),
    }
}

fn pick(variable: &str, name: &str, from: &[&'static Spec]) -> Result<&'static Spec, String> {
    if name.is_empty() {
        return Ok(from[0]);
    }
    from.iter()
        .copied()
        .find(|spec| spec.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            let names: Vec<&str> = from.iter().map(|s| s.name).collect();
            format!(
                "{variable}={name} names no known model: use one of {}",
                names.join(", ")
            )
        })
}

/// The folder holding `spec`'s files within the models folder `dir`. A models folder from
/// before models could be chosen holds all-MiniLM-L6-v2's files itself, and still works.
pub fn folder(dir: &Path, spec: &Spec) -> PathBuf {
    let own = dir.join(spec.name);
    if spec == &MINILM && !own.is_dir() && dir.join("model.safetensors").is_file() {
        return dir.to_path_buf();
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_picks_its_model_and_an_unknown_one_lists_the_choices() {
        assert_eq!(pick("V", "", &SENTENCE_MODELS).unwrap(), &E5_SMALL);
        assert_eq!(
            pick("V", "E5-Small-V2", &SENTENCE_MODELS).unwrap(),
            &E5_SMALL
        );
        let error = pick("V", "gpt", &SENTENCE_MODELS).unwrap_err();
        assert!(error.starts_with("V=gpt names no known model"), "{error}");
        assert!(error.contains("bge-small-en-v1.5"), "{error}");
    }

    #[test]
    fn an_old_single_model_folder_still_serves_minilm_only() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(folder(dir.path(), &MINILM), dir.path().join(MINILM.name));
        std::fs::write(dir.path().join("model.safetensors"), "").unwrap();
        assert_eq!(folder(dir.path(), &MINILM), dir.path());
        assert_eq!(
            folder(dir.path(), &E5_SMALL),
            dir.path().join(E5_SMALL.name)
        );
        std::fs::create_dir(dir.path().join(MINILM.name)).unwrap();
        assert_eq!(folder(dir.path(), &MINILM), dir.path().join(MINILM.name));
    }

    #[test]
    fn an_old_folder_keeps_its_model_until_the_default_is_fetched() {
        if std::env::var("ALETHEIA_MODEL").is_ok_and(|v| !v.trim().is_empty()) {
            return; // a model named by the environment is used whatever the folder holds
        }
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(sentence_model_in(dir.path()).unwrap(), &E5_SMALL);
        std::fs::write(dir.path().join("model.safetensors"), "").unwrap();
        assert_eq!(sentence_model_in(dir.path()).unwrap(), &MINILM);
        std::fs::create_dir(dir.path().join(E5_SMALL.name)).unwrap();
        std::fs::write(dir.path().join(E5_SMALL.name).join("model.safetensors"), "").unwrap();
        assert_eq!(sentence_model_in(dir.path()).unwrap(), &E5_SMALL);
    }

    #[test]
    fn a_depth_is_a_count_within_bounds_and_anything_else_says_so() {
        assert_eq!(depth_from(None), Ok(RERANK_DEPTH));
        assert_eq!(depth_from(Some(" ")), Ok(RERANK_DEPTH));
        assert_eq!(depth_from(Some("20")), Ok(20));
        for bad in ["1", "51", "ten", "-3"] {
            let error = depth_from(Some(bad)).unwrap_err();
            assert!(
                error.starts_with(&format!("ALETHEIA_RERANK_DEPTH={bad} ")),
                "{error}"
            );
        }
    }

    #[test]
    fn every_name_is_a_plain_folder_name() {
        for spec in SENTENCE_MODELS.iter().chain(&RERANKERS) {
            assert!(
                spec.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'),
                "{}",
                spec.name
            );
            assert!(spec.home.starts_with("https://") && spec.home.ends_with('/'));
        }
    }
}
