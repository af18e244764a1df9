//! The embedding API of a build without the `semantic` feature.
//!
//! Each type holds a [`Never`]: no embedder, semantic index or background indexer can exist, so
//! every caller's "no model" path is the one taken. The field is private, so callers compile as
//! they do with the real types, without warnings that their model paths are unreachable.
//! Only [`model::Embedder::load`] says why, for a user who asked for meaning by hand
//! (`search --semantic`).

/// A type with no values.
enum Never {}

pub mod model {
    use super::Never;
    use crate::features::NotBuilt;
    use std::path::Path;

    /// Why a model could not be loaded: this build has none.
    pub type EmbedError = NotBuilt;

    /// A loaded model; none can be, in this build.
    pub struct Embedder(pub(super) Never);

    impl Embedder {
        pub fn load(_dir: &Path) -> Result<Embedder, EmbedError> {
            Err(NotBuilt::SEMANTIC)
        }

        /// False whatever `dir` holds: this build could not use the files.
        pub fn present(_dir: &Path) -> bool {
            false
        }

        pub fn embed(&self, _texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            match self.0 {}
        }
    }
}

pub mod rerank {
    use std::path::Path;

    /// The re-ranker; none can be loaded in this build.
    pub struct Reranker;

    impl Reranker {
        /// False whatever `dir` holds.
        pub fn present(_dir: &Path) -> bool {
            false
        }
    }
}

pub mod semantic {
    use super::Never;
    use super::model::{EmbedError, Embedder};
    use crate::store::contract::Storage;
    use std::sync::Arc;

    /// Why a semantic search could not run.
    pub type SemanticError = EmbedError;

    /// The model and its vectors; never present in this build.
    pub struct Semantic(Never);

    /// What a search by meaning found; never made in this build.
    #[derive(Debug, Default)]
    pub struct Meaning {
        pub nearest: Vec<(i64, f32)>,
        pub cosines: std::collections::HashMap<i64, f32>,
    }

    impl Semantic {
        pub fn load(_dir: &std::path::Path) -> Result<Semantic, EmbedError> {
            Err(crate::features::NotBuilt::SEMANTIC)
        }

        pub fn embedder(&self) -> &Arc<Embedder> {
            match self.0 {}
        }

        pub fn reranks(&self) -> bool {
            match self.0 {}
        }

        pub fn rerank_depth(&self) -> usize {
            match self.0 {}
        }

        pub fn meaning(
            &self,
            _store: &dyn Storage,
            _query: &str,
            _scope: &crate::store::vectors::VectorScope<'_>,
            _k: usize,
            _also: &[i64],
        ) -> Result<Meaning, SemanticError> {
            match self.0 {}
        }

        pub fn rerank(
            &self,
            _query: &str,
            _passages: &[&str],
        ) -> Option<Result<Vec<f32>, SemanticError>> {
            match self.0 {}
        }
    }
}

pub mod background {
    use super::Never;
    use super::semantic::Semantic;
    use crate::config::Paths;
    use crate::store::StoreError;
    use crate::store::contract::Storage;
    use std::path::Path;

    /// The background model of a long-running process; never started in this build.
    pub struct Background(Never);

    impl Background {
        /// `None`: search uses words alone.
        pub fn start(_paths: &Paths) -> Option<Background> {
            None
        }

        /// `None`, over any store.
        pub fn start_on(
            _dir: &Path,
            _open: impl Fn() -> Result<Box<dyn Storage + Send>, StoreError> + Send + 'static,
        ) -> Option<Background> {
            None
        }

        pub fn semantic(&self) -> Option<&Semantic> {
            match self.0 {}
        }
    }
}
