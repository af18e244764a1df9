//! Writing facts. Facts come from compressing finished sessions; their subject, predicate and
//! object are drawn from text people and models wrote, so they pass the redaction gate like
//! every other stored type. Reading them is recall's job (`recall::facts`).

use super::{Store, StoreError};
use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::params;

/// A fact to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFact {
    pub project: String,
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub confidence: f64,
    /// `rules` for the rule extractor, else the model provider's name.
    pub source: String,
    /// The memory it was drawn from.
    pub memory_id: Option<i64>,
    pub valid_from: i64,
}

impl Redact for NewFact {
    fn redact(self, r: &Redactor) -> NewFact {
        NewFact {
            subject: r.redact(&self.subject),
            predicate: r.redact(&self.predicate),
            object: r.redact(&self.object),
            ..self
        }
    }
}

impl Store {
    /// Store one fact; returns its id.
    pub fn insert_fact(&mut self, f: &Redacted<NewFact>, now: i64) -> Result<i64, StoreError> {
        let f = f.get();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO facts (project, subject, predicate, object, confidence, source, memory_id, valid_from, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![f.project, f.subject, f.predicate, f.object, f.confidence, f.source, f.memory_id, f.valid_from, now],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }
}
