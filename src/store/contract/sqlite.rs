//! SQLite's side of [`JobWrites`]: a job's writes on the transaction `Store::finish_job`
//! holds, so the whole result commits with the job's `done` mark or not at all.

use super::JobWrites;
use crate::model::NewMemory;
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::compression::{self, Summary};
use crate::store::facts::{FactOutcome, NewFact, insert_fact_tx};
use crate::store::standing::Cause;
use rusqlite::Transaction;
use std::collections::HashSet;
use std::path::Path;

/// The job's transaction, with the store's path for its errors.
pub(in crate::store) struct TxWrites<'t> {
    pub(in crate::store) tx: &'t Transaction<'t>,
    pub(in crate::store) path: &'t Path,
}

impl TxWrites<'_> {
    fn or_err<T>(&self, r: rusqlite::Result<T>) -> Result<T, StoreError> {
        r.map_err(|e| StoreError::sqlite(self.path, e))
    }
}

impl JobWrites for TxWrites<'_> {
    fn dismissed_among(&mut self, ids: &[i64]) -> Result<HashSet<i64>, StoreError> {
        self.or_err(compression::dismissed_among(self.tx, ids))
    }

    fn mark_extracted(
        &mut self,
        ids: &[i64],
        job_id: i64,
        now: i64,
    ) -> Result<HashSet<i64>, StoreError> {
        self.or_err(compression::mark_extracted(self.tx, ids, job_id, now))
    }

    fn insert_fact(&mut self, f: &Redacted<NewFact>, now: i64) -> Result<FactOutcome, StoreError> {
        self.or_err(insert_fact_tx(self.tx, f, now))
    }

    fn supersede_by_facts(
        &mut self,
        closed: &[i64],
        newer: i64,
        now: i64,
    ) -> Result<usize, StoreError> {
        let mut made = 0;
        for &fact in closed {
            // As `Store::link_superseded`: never a memory and itself, nor a pair both ways. And
            // only a memory left with no current fact: one changed fact of a note that says
            // several things does not replace the rest of it.
            made += self.or_err(self.tx.execute(
                "INSERT OR IGNORE INTO memory_links (older, newer, cause, created_at)
                 SELECT f.memory_id, ?2, ?3, ?4 FROM facts f
                 WHERE f.id = ?1 AND f.memory_id IS NOT NULL AND f.memory_id <> ?2
                   AND EXISTS (SELECT 1 FROM memories WHERE id = f.memory_id)
                   AND NOT EXISTS (SELECT 1 FROM memory_links l
                                   WHERE l.older = ?2 AND l.newer = f.memory_id)
                   AND NOT EXISTS (SELECT 1 FROM facts g WHERE g.memory_id = f.memory_id
                                   AND g.valid_to IS NULL AND g.dismissed = 0)",
                rusqlite::params![fact, newer, Cause::Facts.as_str(), now],
            ))?;
        }
        Ok(made)
    }

    fn merge_into(
        &mut self,
        id: i64,
        into: i64,
        similarity: f32,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.or_err(compression::merge_into(self.tx, id, into, similarity, now))
    }

    fn replace_summary(
        &mut self,
        memory_id: i64,
        summary: &Redacted<Summary>,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.or_err(compression::replace_summary(
            self.tx, memory_id, summary, now,
        ))
    }

    fn summary_facts(&mut self, project: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        self.or_err(compression::summary_facts(self.tx, project, limit))
    }

    fn upsert_project_summary(
        &mut self,
        m: &Redacted<NewMemory>,
        job_id: i64,
        now: i64,
    ) -> Result<Option<i64>, StoreError> {
        self.or_err(compression::upsert_project_summary(self.tx, m, job_id, now))
    }
}
