//! Observations: the full record of memories by id, with the facts drawn from each.

use super::facts::Fact;
use crate::model::Memory;
use crate::store::{Storage, StoreError};

/// One memory in full, with its facts.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Observation {
    #[serde(flatten)]
    pub memory: Memory,
    pub facts: Vec<Fact>,
    /// For a summary compression rewrote, the message it replaced (its episode), unless
    /// dismissed.
    pub episode: Option<String>,
}

/// The memories with these ids that are not dismissed, newest first; unknown ids are skipped.
pub fn fetch(store: &dyn Storage, ids: &[i64]) -> Result<Vec<Observation>, StoreError> {
    let mut found = store.get_many(ids)?;
    found.retain(|m| !m.dismissed);
    found.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    found
        .into_iter()
        .map(|memory| {
            let facts = store.facts_of_memory(memory.id)?;
            let episode = store.episode(memory.id)?;
            Ok(Observation {
                memory,
                facts,
                episode,
            })
        })
        .collect()
}
