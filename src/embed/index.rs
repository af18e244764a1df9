//! Indexing: give every memory a vector, in batches, each committed on its own.
//!
//! Never run by the hook (a model load alone is a hundred milliseconds). `aletheia index` runs it
//! by hand; `aletheia mcp` runs it in the background. Each batch is one transaction, and what
//! still lacks a vector is read from the store each time, so a run that is killed resumes where
//! it stopped, and two runs at once only repeat a batch's work, never store a vector twice.

use super::model::{EmbedError, Embedder};
use crate::store::{Storage, StoreError};

/// Memories embedded per transaction: large enough to keep both cores busy in the model,
/// small enough that a kill loses seconds of work.
pub const BATCH: usize = 64;

/// Why indexing stopped.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Embed memories without a vector, with ids above `*after`, until none is left; `*after` then
/// holds the largest id looked at, so a caller that runs again later starts there. `done` hears how many each batch stored.
/// Returns the total stored.
pub fn index_missing(
    store: &mut dyn Storage,
    embedder: &Embedder,
    after: &mut i64,
    mut done: impl FnMut(usize),
) -> Result<usize, IndexError> {
    let mut total = 0;
    loop {
        let batch = store.memories_without_vector(embedder.name(), *after, BATCH)?;
        let Some(last) = batch.last().map(|b| b.0) else {
            break;
        };
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let vecs = embedder.embed(&texts)?;
        let pairs: Vec<(i64, Vec<f32>)> = batch.iter().map(|(id, _)| *id).zip(vecs).collect();
        // The model's name goes beside each vector, so that a switch of model is seen as
        // memories without a vector of the new one.
        let stored = store.put_vectors(embedder.name(), &pairs)?;
        // Only once the batch is stored: a failed one is tried again on the next pass.
        *after = last;
        if stored == 0 {
            // Every memory of the batch was deleted meanwhile.
            continue;
        }
        total += stored;
        done(stored);
    }
    Ok(total)
}
