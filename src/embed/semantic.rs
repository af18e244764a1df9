//! Semantic search: the query's vector against every stored vector in scope, exactly.
//!
//! Brute force rather than an approximate index (or the sqlite-vec extension): the vectors of a
//! store sit in memory as int8 (384 bytes each), and one pass over 100,000 of them is a few
//! milliseconds on one core, with no recall lost to approximation and nothing to build or keep in
//! step. The copy is filled on first use and topped up from `Vectors::vectors_since` before each
//! search, so vectors written by another process (`aletheia index`) are seen at once; only the
//! vectors of the loaded model are read, so a store re-indexed with another model is never
//! compared with this one's queries.
//!
//! The re-ranker, when its files are there, is loaded beside the sentence model and held here, so
//! a process loads each model once and every search of that process can use both.

use super::model::{DIMENSIONS, EmbedError, Embedder};
use super::rerank::Reranker;
use crate::model::{Kind, MemoryType};
use crate::store::vectors::VectorScope;
use crate::store::{Storage, StoreError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The models and this process's copy of the stored vectors.
pub struct Semantic {
    embedder: Arc<Embedder>,
    reranker: Option<Reranker>,
    rerank_depth: usize,
    index: Mutex<VectorIndex>,
}

/// What a search by meaning found: the nearest memories, best first, and the cosine of each
/// memory asked about by id that has a vector (whether or not it is among the nearest).
#[derive(Debug, Default)]
pub struct Meaning {
    pub nearest: Vec<(i64, f32)>,
    pub cosines: HashMap<i64, f32>,
}

/// The vectors held in memory, in write order.
#[derive(Default)]
struct VectorIndex {
    seq: i64,
    ids: Vec<i64>,
    /// Each vector's project, as an index into `project_ids`: a `usize` (4 bytes more per
    /// vector than a `u32`, beside its 384) so that a new project's id can never wrap onto an
    /// old one and show one project's memories to another's search.
    projects: Vec<usize>,
    project_ids: HashMap<String, usize>,
    /// Each vector's memory's kind, type and date, for the search's filters.
    traits: Vec<(Kind, MemoryType, i64)>,
    scales: Vec<f32>,
    values: Vec<i8>,
    /// Where each memory's vector sits, so that a rewritten vector replaces the old one.
    slot: HashMap<i64, usize>,
}

/// Why a semantic search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error("reading the stored vectors: {0}")]
    Store(#[from] StoreError),
}

impl Semantic {
    pub fn new(embedder: Arc<Embedder>, reranker: Option<Reranker>) -> Semantic {
        Semantic {
            embedder,
            reranker,
            rerank_depth: super::catalog::RERANK_DEPTH,
            index: Mutex::new(VectorIndex::default()),
        }
    }

    /// The chosen sentence model and re-ranker from the models folder `dir`; the re-ranker only
    /// if its files are there (searches are then fused but not re-ranked).
    pub fn load(dir: &std::path::Path) -> Result<Semantic, EmbedError> {
        let depth = super::catalog::rerank_depth().map_err(EmbedError::Choice)?;
        let embedder = Arc::new(Embedder::load(dir)?);
        let reranker = if Reranker::present(dir) {
            Reranker::load(dir)?
        } else {
            None
        };
        Ok(Semantic {
            rerank_depth: depth,
            ..Semantic::new(embedder, reranker)
        })
    }

    /// How many of a search's best results the re-ranker reads (`ALETHEIA_RERANK_DEPTH`).
    pub fn rerank_depth(&self) -> usize {
        self.rerank_depth
    }

    /// The sentence model, for the indexer that shares it.
    pub fn embedder(&self) -> &Arc<Embedder> {
        &self.embedder
    }

    /// Whether results are re-ranked.
    pub fn reranks(&self) -> bool {
        self.reranker.is_some()
    }

    /// The `k` memories nearest to `query` (cosine, best first) within `scope`, and the cosine
    /// of each memory of `also` that has a vector.
    pub fn meaning(
        &self,
        store: &dyn Storage,
        query: &str,
        scope: &VectorScope<'_>,
        k: usize,
        also: &[i64],
    ) -> Result<Meaning, SemanticError> {
        let q = self.embedder.embed_query(query)?;
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        index.refresh(store, self.embedder.name())?;
        Ok(Meaning {
            nearest: index.nearest(&q, scope, k),
            cosines: also
                .iter()
                .filter_map(|id| Some((*id, index.cosine(&q, *id)?)))
                .collect(),
        })
    }

    /// The re-ranker's score of each passage for `query`, in order; `None` without one.
    pub fn rerank(
        &self,
        query: &str,
        passages: &[&str],
    ) -> Option<Result<Vec<f32>, SemanticError>> {
        let reranker = self.reranker.as_ref()?;
        Some(reranker.score(query, passages).map_err(SemanticError::from))
    }
}

impl VectorIndex {
    fn refresh(&mut self, store: &dyn Storage, model: &str) -> Result<(), StoreError> {
        for v in store.vectors_since(model, self.seq)? {
            self.seq = self.seq.max(v.seq);
            if v.values.len() != DIMENSIONS {
                continue;
            }
            let next = self.project_ids.len();
            let project = *self.project_ids.entry(v.project).or_insert(next);
            match self.slot.get(&v.memory_id) {
                Some(&i) => {
                    self.projects[i] = project;
                    self.traits[i] = (v.kind, v.mtype, v.created_at);
                    self.scales[i] = v.scale;
                    self.values[i * DIMENSIONS..(i + 1) * DIMENSIONS].copy_from_slice(&v.values);
                }
                None => {
                    self.slot.insert(v.memory_id, self.ids.len());
                    self.ids.push(v.memory_id);
                    self.projects.push(project);
                    self.traits.push((v.kind, v.mtype, v.created_at));
                    self.scales.push(v.scale);
                    self.values.extend_from_slice(&v.values);
                }
            }
        }
        Ok(())
    }

    fn nearest(&self, q: &[f32], scope: &VectorScope<'_>, k: usize) -> Vec<(i64, f32)> {
        let wanted = match scope.project {
            Some(p) => match self.project_ids.get(p) {
                Some(&id) => Some(id),
                None => return vec![],
            },
            None => None,
        };
        let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
        let mut worst = f32::NEG_INFINITY;
        for (i, row) in self.values.chunks_exact(DIMENSIONS).enumerate() {
            if wanted.is_some_and(|p| self.projects[i] != p) || !self.within(i, scope) {
                continue;
            }
            let score = dot(row, q) * self.scales[i];
            if best.len() < k || score > worst {
                best.push((score, i));
                if best.len() > k {
                    best.sort_by(|a, b| b.0.total_cmp(&a.0));
                    best.truncate(k);
                }
                if best.len() == k {
                    worst = best.iter().map(|b| b.0).fold(f32::INFINITY, f32::min);
                }
            }
        }
        best.sort_by(|a, b| b.0.total_cmp(&a.0));
        best.truncate(k);
        best.into_iter().map(|(s, i)| (self.ids[i], s)).collect()
    }

    /// The cosine between `q` and memory `id`'s vector, if it has one.
    fn cosine(&self, q: &[f32], id: i64) -> Option<f32> {
        let &i = self.slot.get(&id)?;
        let row = &self.values[i * DIMENSIONS..(i + 1) * DIMENSIONS];
        Some(dot(row, q) * self.scales[i])
    }

    /// Whether vector `i`'s memory passes the scope's kind, type and dates.
    fn within(&self, i: usize, scope: &VectorScope<'_>) -> bool {
        let (kind, mtype, created_at) = self.traits[i];
        scope.kind.is_none_or(|k| k == kind)
            && scope.mtype.is_none_or(|t| t == mtype)
            && scope.since.is_none_or(|s| created_at >= s)
            && scope.until.is_none_or(|u| created_at < u)
    }
}

fn dot(row: &[i8], q: &[f32]) -> f32 {
    row.iter().zip(q).map(|(a, b)| f32::from(*a) * b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::vectors;

    fn index(rows: &[(i64, &str, [f32; 2])]) -> VectorIndex {
        let typed: Vec<_> = rows
            .iter()
            .map(|&(id, p, v)| (id, p, MemoryType::Note, v))
            .collect();
        index_of(&typed)
    }

    /// Vectors of two dimensions, each with its project and type; the memory's date is its id.
    fn index_of(rows: &[(i64, &str, MemoryType, [f32; 2])]) -> VectorIndex {
        let mut ix = VectorIndex::default();
        for (id, project, mtype, v) in rows {
            let mut full = vec![0.0; DIMENSIONS];
            full[0] = v[0];
            full[1] = v[1];
            let (scale, q) = vectors::quantise(&full);
            let next = ix.project_ids.len();
            let p = *ix.project_ids.entry(project.to_string()).or_insert(next);
            ix.slot.insert(*id, ix.ids.len());
            ix.ids.push(*id);
            ix.projects.push(p);
            ix.traits.push((Kind::Note, *mtype, *id));
            ix.scales.push(scale);
            ix.values.extend_from_slice(&q);
        }
        ix
    }

    #[test]
    fn the_nearest_come_first_and_other_projects_are_left_out() {
        let ix = index(&[
            (1, "a", [1.0, 0.0]),
            (2, "a", [0.0, 1.0]),
            (3, "b", [1.0, 0.0]),
            (4, "a", [0.8, 0.6]),
        ]);
        let mut q = vec![0.0; DIMENSIONS];
        q[0] = 1.0;
        let in_a = VectorScope {
            project: Some("a"),
            ..VectorScope::default()
        };
        let got: Vec<i64> = ix.nearest(&q, &in_a, 2).iter().map(|h| h.0).collect();
        assert_eq!(got, vec![1, 4]);
        let all: Vec<i64> = ix
            .nearest(&q, &VectorScope::default(), 10)
            .iter()
            .map(|h| h.0)
            .collect();
        assert_eq!(all.len(), 4);
        assert_eq!(*all.last().unwrap(), 2);
        let nowhere = VectorScope {
            project: Some("nowhere"),
            ..VectorScope::default()
        };
        assert!(ix.nearest(&q, &nowhere, 3).is_empty());
    }

    #[test]
    fn a_narrow_filter_gets_its_own_nearest_however_many_others_are_nearer() {
        // Fifty notes right on the query, and two decisions further off.
        let mut rows: Vec<(i64, &str, MemoryType, [f32; 2])> = (1..=50)
            .map(|id| (id, "a", MemoryType::Note, [1.0, 0.0]))
            .collect();
        rows.push((51, "a", MemoryType::Decision, [0.6, 0.8]));
        rows.push((52, "a", MemoryType::Decision, [0.0, 1.0]));
        rows.push((53, "b", MemoryType::Decision, [1.0, 0.0]));
        let ix = index_of(&rows);
        let mut q = vec![0.0; DIMENSIONS];
        q[0] = 1.0;
        let decisions = VectorScope {
            project: Some("a"),
            mtype: Some(MemoryType::Decision),
            ..VectorScope::default()
        };
        let got: Vec<i64> = ix.nearest(&q, &decisions, 2).iter().map(|h| h.0).collect();
        assert_eq!(got, vec![51, 52]);
        // Dates: created at or after `since`, before `until` (here a memory's date is its id).
        let dated = VectorScope {
            project: Some("a"),
            since: Some(10),
            until: Some(12),
            ..VectorScope::default()
        };
        let mut got: Vec<i64> = ix.nearest(&q, &dated, 5).iter().map(|h| h.0).collect();
        got.sort_unstable();
        assert_eq!(got, vec![10, 11]);
        let none = VectorScope {
            kind: Some(Kind::Prompt),
            ..VectorScope::default()
        };
        assert!(ix.nearest(&q, &none, 5).is_empty());
    }
}
