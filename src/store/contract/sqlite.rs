//! SQLite's side of [`JobWrites`]: a job's writes on the transaction `Store::finish_job`
//! holds, so the whole result commits with the job's `done` mark or not at all.

use super::JobWrites;
use crate::model::NewMemory;
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::compression::{self, Summary};
use crate::store::facts::{FactOutcome, NewFact, insert_fact_tx};
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
