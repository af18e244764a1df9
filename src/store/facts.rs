//! Writing facts, and settling the facts that disagree. Facts come from compressing finished
//! sessions; their subject, predicate and object are drawn from text people and models wrote,
//! so they pass the redaction gate like every other stored type. Reading them is
//! [`super::fact_queries`]'s job.
//!
//! Facts are bi-temporal: `valid_from`/`valid_to` say when a fact held in the world,
//! `created_at`/`superseded_at` when the store learned it and when it replaced it. A new fact is
//! compared with the stored facts, not dismissed, of the same project, subject and predicate
//! (case-insensitive), objects in a normalised form, so that a worker retrying a job stores
//! nothing twice and a change in the world closes the old fact instead of leaving two current
//! answers ([`FactOutcome`] names each case):
//!
//! - the same object, current or holding when the new one starts: a duplicate, nothing stored
//!   (a higher confidence is kept);
//! - a current fact that started earlier: closed where the new one starts, kept as history;
//! - a current fact that started later: the new one is stored already closed, as history;
//! - a current fact with the same start: nothing says which is right, so both lose
//!   [`TIE_PENALTY`] confidence and wait in `fact_reviews` until the user keeps one
//!   (`aletheia review accept|reject`).
//!
//! The last three only for a single-valued predicate ([`super::cardinality`]): a fact of a
//! multi-valued one ("uses", "depends on") with another object is one more current fact.
//!
//! Which case applies is decided in `fact_rules`, for PostgreSQL too; here are SQLite's reads
//! and writes.

use super::fact_rules::{FactWrites, Known, shifted, store_fact};
use super::state::AuditEntry;
use super::{Store, StoreError};
use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::{Transaction, params};

/// The confidence each of two tied facts loses while they wait for review, and what the one
/// kept gets back.
pub const TIE_PENALTY: f64 = 0.1;

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
    /// The memory (or episode's memory) it was drawn from.
    pub memory_id: Option<i64>,
    pub valid_from: i64,
    /// The compression job that extracted it, if any.
    pub job_id: Option<i64>,
}

impl Redact for NewFact {
    fn redact(self, r: &Redactor) -> NewFact {
        NewFact {
            project: crate::project::stored_key(&self.project, r),
            subject: r.redact(&self.subject),
            predicate: r.redact(&self.predicate),
            object: r.redact(&self.object),
            ..self
        }
    }
}

/// What storing a fact did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FactOutcome {
    /// Stored; nothing else is known about its subject and predicate.
    New(i64),
    /// Already known as this fact: nothing stored.
    Duplicate(i64),
    /// Stored as current; the older current facts it replaces were closed.
    Superseded { id: i64, closed: Vec<i64> },
    /// Stored already closed: a current fact started later, so this one is history.
    Historical(i64),
    /// Stored beside a current fact with the same start: both wait in review `review`.
    Tied { id: i64, review: i64 },
}

impl FactOutcome {
    /// The id of the fact stored, or of the stored fact it duplicates.
    pub fn id(&self) -> i64 {
        match *self {
            FactOutcome::New(id)
            | FactOutcome::Duplicate(id)
            | FactOutcome::Historical(id)
            | FactOutcome::Superseded { id, .. }
            | FactOutcome::Tied { id, .. } => id,
        }
    }
}

/// What accepting a fact under review did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Accepted {
    /// The fact kept.
    pub kept: i64,
    /// The facts it disagreed with, now closed and kept as history.
    pub closed: Vec<i64>,
    /// The reviews resolved.
    pub reviews: Vec<i64>,
}

/// What rejecting a fact under review did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rejected {
    /// The fact rejected, now dismissed.
    pub dismissed: i64,
    /// The facts it disagreed with, which stay as they were.
    pub kept: Vec<i64>,
    /// The reviews resolved.
    pub reviews: Vec<i64>,
}

/// Store `f` inside the caller's transaction (the compression job writes a whole session in
/// one), by the rules in this module's comment.
pub(super) fn insert_fact_tx(
    tx: &Transaction<'_>,
    f: &Redacted<NewFact>,
    now: i64,
) -> rusqlite::Result<FactOutcome> {
    store_fact(&mut { tx }, f.get(), now)
}

impl FactWrites for &Transaction<'_> {
    type Error = rusqlite::Error;

    fn same_key(&mut self, f: &NewFact) -> rusqlite::Result<Vec<Known>> {
        let mut stmt = self.prepare_cached(
            "SELECT id, object, valid_from, valid_to, confidence FROM facts
             WHERE subject = ?2 COLLATE NOCASE AND project = ?1 AND predicate = ?3 COLLATE NOCASE
               AND dismissed = 0
             ORDER BY valid_from, id",
        )?;
        let rows = stmt.query_map(params![f.project, f.subject, f.predicate], |r| {
            Ok(Known {
                id: r.get(0)?,
                object: r.get(1)?,
                valid_from: r.get(2)?,
                valid_to: r.get(3)?,
                confidence: r.get(4)?,
            })
        })?;
        rows.collect()
    }

    fn keep_higher(&mut self, id: i64, confidence: f64) -> rusqlite::Result<()> {
        self.execute(
            "UPDATE facts SET confidence = ?2 WHERE id = ?1 AND confidence < ?2
               AND NOT EXISTS (SELECT 1 FROM fact_reviews r WHERE r.state = 'open' AND ?1 IN (r.fact_a, r.fact_b))",
            params![id, confidence],
        )?;
        Ok(())
    }

    fn insert(&mut self, f: &NewFact, confidence: f64, now: i64) -> rusqlite::Result<i64> {
        self.execute(
            "INSERT INTO facts (project, subject, predicate, object, confidence, source, memory_id, valid_from, created_at, job_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![f.project, f.subject, f.predicate, f.object, confidence, f.source, f.memory_id, f.valid_from, now, f.job_id],
        )?;
        Ok(self.last_insert_rowid())
    }

    fn close(&mut self, ids: &[i64], at: i64, by: i64, now: i64) -> rusqlite::Result<()> {
        for &id in ids {
            close(self, id, at, by, now)?;
        }
        Ok(())
    }

    fn trim(&mut self, ids: &[i64], at: i64, by: i64, now: i64) -> rusqlite::Result<()> {
        for id in ids {
            self.execute(
                "UPDATE facts SET valid_to = ?2, superseded_by = ?3, superseded_at = coalesce(superseded_at, ?4)
                 WHERE id = ?1",
                params![id, at, by, now],
            )?;
        }
        Ok(())
    }

    fn lower(&mut self, id: i64, confidence: f64) -> rusqlite::Result<()> {
        self.execute(
            "UPDATE facts SET confidence = ?2 WHERE id = ?1",
            params![id, confidence],
        )?;
        Ok(())
    }

    fn open_review(&mut self, project: &str, a: i64, b: i64, now: i64) -> rusqlite::Result<i64> {
        self.execute(
            "INSERT INTO fact_reviews (project, fact_a, fact_b, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![project, a, b, now],
        )?;
        Ok(self.last_insert_rowid())
    }
}

/// Close fact `id` at `at` in the world, replaced by `by`; it stays as history.
fn close(tx: &Transaction<'_>, id: i64, at: i64, by: i64, now: i64) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE facts SET valid_to = ?2, superseded_at = ?3, superseded_by = ?4 WHERE id = ?1",
        params![id, at, now, by],
    )?;
    Ok(())
}

/// The open reviews fact `id` is in, as (review, the other fact).
fn open_reviews_of(tx: &Transaction<'_>, id: i64) -> rusqlite::Result<Vec<(i64, i64)>> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, CASE WHEN fact_a = ?1 THEN fact_b ELSE fact_a END FROM fact_reviews
         WHERE state = 'open' AND ?1 IN (fact_a, fact_b) ORDER BY id",
    )?;
    let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

fn resolve(tx: &Transaction<'_>, review: i64, kept: i64, now: i64) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE fact_reviews SET state = 'resolved', kept = ?2, resolved_at = ?3 WHERE id = ?1",
        params![review, kept, now],
    )?;
    Ok(())
}

fn give_back(tx: &Transaction<'_>, id: i64) -> rusqlite::Result<()> {
    let c: f64 = tx.query_row("SELECT confidence FROM facts WHERE id = ?1", [id], |r| {
        r.get(0)
    })?;
    tx.execute(
        "UPDATE facts SET confidence = ?2 WHERE id = ?1",
        params![id, shifted(c, TIE_PENALTY)],
    )?;
    Ok(())
}

fn audit(
    tx: &Transaction<'_>,
    action: &str,
    fact: i64,
    entry: &AuditEntry,
    now: i64,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO audit (at, action, item_type, item_id, reason, actor) VALUES (?1, ?2, 'fact', ?3, ?4, ?5)",
        params![now, action, fact.to_string(), entry.reason, entry.actor],
    )?;
    Ok(())
}

impl Store {
    /// Store one fact in its own transaction (see [`insert_fact_tx`]).
    pub fn insert_fact(
        &mut self,
        f: &Redacted<NewFact>,
        now: i64,
    ) -> Result<FactOutcome, StoreError> {
        self.write(|tx| insert_fact_tx(tx, f, now))
    }

    /// Keep fact `id`, which waits in one or more open reviews: each fact it disagreed with is
    /// closed where the kept one starts (it never held) and stays as history, and the kept one
    /// gets its confidence back. `None`, with nothing written, when `id` waits in no review.
    pub fn accept_fact(
        &mut self,
        id: i64,
        entry: &Redacted<AuditEntry>,
        now: i64,
    ) -> Result<Option<Accepted>, StoreError> {
        self.write(|tx| {
            let open = open_reviews_of(tx, id)?;
            if open.is_empty() {
                return Ok(None);
            }
            let starts: i64 =
                tx.query_row("SELECT valid_from FROM facts WHERE id = ?1", [id], |r| {
                    r.get(0)
                })?;
            let mut closed = Vec::new();
            let mut reviews = Vec::new();
            for (review, other) in open {
                close(tx, other, starts, id, now)?;
                give_back(tx, id)?;
                resolve(tx, review, id, now)?;
                closed.push(other);
                reviews.push(review);
            }
            // Facts closed together may wait in a review of their own (three facts with one
            // start): keeping this one settled that too.
            for &old in &closed {
                for (review, other) in open_reviews_of(tx, old)? {
                    if closed.contains(&other) {
                        resolve(tx, review, id, now)?;
                        reviews.push(review);
                    }
                }
            }
            audit(tx, "review_accept", id, entry.get(), now)?;
            Ok(Some(Accepted {
                kept: id,
                closed,
                reviews,
            }))
        })
    }

    /// Reject fact `id`, which waits in one or more open reviews: it is dismissed, and each
    /// fact it disagreed with gets its confidence back and stays as it was. `None`, with
    /// nothing written, when `id` waits in no review.
    pub fn reject_fact(
        &mut self,
        id: i64,
        entry: &Redacted<AuditEntry>,
        now: i64,
    ) -> Result<Option<Rejected>, StoreError> {
        self.write(|tx| {
            let open = open_reviews_of(tx, id)?;
            if open.is_empty() {
                return Ok(None);
            }
            tx.execute("UPDATE facts SET dismissed = 1 WHERE id = ?1", [id])?;
            let mut kept = Vec::new();
            let mut reviews = Vec::new();
            for (review, other) in open {
                give_back(tx, other)?;
                resolve(tx, review, other, now)?;
                kept.push(other);
                reviews.push(review);
            }
            audit(tx, "review_reject", id, entry.get(), now)?;
            Ok(Some(Rejected {
                dismissed: id,
                kept,
                reviews,
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;
    use rstest::rstest;

    const DAY: i64 = 86_400_000;
    const NOW: i64 = 100 * DAY;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, s)
    }

    fn fact(object: &str, valid_from: i64, confidence: f64) -> NewFact {
        NewFact {
            project: "shop".into(),
            subject: "cache".into(),
            predicate: "ttl".into(),
            object: object.into(),
            confidence,
            source: "rules".into(),
            memory_id: None,
            valid_from,
            job_id: Some(7),
        }
    }

    fn put(s: &mut Store, f: NewFact) -> FactOutcome {
        s.insert_fact(&Redacted::new(f, &Redactor::builtin()), NOW)
            .unwrap()
    }

    /// (object, confidence, valid_to, superseded_at, superseded_by) of fact `id`.
    type Row = (String, f64, Option<i64>, Option<i64>, Option<i64>);

    fn row(s: &Store, id: i64) -> Row {
        s.conn()
            .query_row(
                "SELECT object, confidence, valid_to, superseded_at, superseded_by FROM facts WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap()
    }

    fn count(s: &Store, table: &str) -> i64 {
        s.conn()
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }

    fn entry() -> Redacted<AuditEntry> {
        let e = AuditEntry {
            actor: "cli".into(),
            reason: None,
        };
        Redacted::new(e, &Redactor::builtin())
    }

    #[rstest]
    #[case::case_and_spacing("60  S.")]
    #[case::same_text("60 s")]
    #[case::trailing_punctuation("60 s !")]
    fn the_same_object_in_another_form_is_a_duplicate(#[case] object: &str) {
        let (_d, mut s) = store();
        let first = put(&mut s, fact("60 s", DAY, 0.6));
        assert_eq!(first, FactOutcome::New(1));
        assert_eq!(
            put(&mut s, fact(object, 3 * DAY, 0.5)),
            FactOutcome::Duplicate(1)
        );
        assert_eq!(count(&s, "facts"), 1);
    }

    #[test]
    fn a_new_fact_records_its_job_and_when_the_store_learned_it() {
        let (_d, mut s) = store();
        assert_eq!(put(&mut s, fact("60 s", DAY, 0.6)), FactOutcome::New(1));
        let (job, created): (Option<i64>, i64) = s
            .conn()
            .query_row(
                "SELECT job_id, created_at FROM facts WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((job, created), (Some(7), NOW));
    }

    #[test]
    fn a_retried_fact_is_stored_once_and_a_higher_confidence_is_kept() {
        let (_d, mut s) = store();
        put(&mut s, fact("60 s", DAY, 0.6));
        assert_eq!(
            put(&mut s, fact("60 s", DAY, 0.6)),
            FactOutcome::Duplicate(1)
        );
        assert_eq!(
            put(&mut s, fact("60 s", DAY, 0.8)),
            FactOutcome::Duplicate(1)
        );
        assert_eq!(
            put(&mut s, fact("60 s", DAY, 0.7)),
            FactOutcome::Duplicate(1)
        );
        assert_eq!(count(&s, "facts"), 1);
        assert_eq!(row(&s, 1).1, 0.8);
    }

    #[test]
    fn a_newer_fact_closes_the_older_which_stays_as_history() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        let out = put(&mut s, fact("60 s", 2 * DAY, 0.8));
        assert_eq!(
            out,
            FactOutcome::Superseded {
                id: 2,
                closed: vec![1]
            }
        );
        assert_eq!(
            row(&s, 1),
            ("30 s".into(), 0.8, Some(2 * DAY), Some(NOW), Some(2))
        );
        assert_eq!(row(&s, 2), ("60 s".into(), 0.8, None, None, None));
        // A retry of the superseding fact, and of the one it closed, store nothing.
        assert_eq!(
            put(&mut s, fact("60 s", 2 * DAY, 0.8)),
            FactOutcome::Duplicate(2)
        );
        assert_eq!(
            put(&mut s, fact("30 s", DAY, 0.8)),
            FactOutcome::Duplicate(1)
        );
        assert_eq!(count(&s, "facts"), 2);
    }

    #[test]
    fn a_multi_valued_predicate_keeps_both_facts_and_a_single_valued_one_closes_the_older() {
        let (_d, mut s) = store();
        let with = |predicate: &str, object: &str, from: i64| NewFact {
            subject: "shop".into(),
            predicate: predicate.into(),
            ..fact(object, from, 0.8)
        };
        // A service uses both: neither closes the other, nor do they tie.
        assert_eq!(
            put(&mut s, with("uses", "SQLite", DAY)),
            FactOutcome::New(1)
        );
        assert_eq!(
            put(&mut s, with("uses", "Redis", 2 * DAY)),
            FactOutcome::New(2)
        );
        assert_eq!(
            put(&mut s, with("uses", "Kafka", 2 * DAY)),
            FactOutcome::New(3)
        );
        for id in 1..=3 {
            assert_eq!(row(&s, id).2, None, "fact {id} is still current");
        }
        assert_eq!(count(&s, "fact_reviews"), 0);
        // It runs on one place at a time: the move closes the older.
        assert_eq!(
            put(&mut s, with("runs on", "Fly", DAY)),
            FactOutcome::New(4)
        );
        assert_eq!(
            put(&mut s, with("runs on", "AWS", 3 * DAY)),
            FactOutcome::Superseded {
                id: 5,
                closed: vec![4]
            }
        );
        // A new version of one thing replaces the old, even for a multi-valued predicate.
        assert_eq!(
            put(&mut s, with("uses", "PostgreSQL 16", 3 * DAY)),
            FactOutcome::New(6)
        );
        assert!(matches!(
            put(&mut s, with("uses", "postgresql 17", 4 * DAY)),
            FactOutcome::Superseded { ref closed, .. } if closed == &vec![6]
        ));
        assert_eq!(row(&s, 2).2, None, "Redis is no version of PostgreSQL");
        assert_eq!(
            put(&mut s, with("is", "a monolith", DAY)),
            FactOutcome::New(8)
        );
        assert!(matches!(
            put(&mut s, with("is", "two services", 3 * DAY)),
            FactOutcome::Superseded { .. }
        ));
    }

    #[test]
    fn subject_and_predicate_match_in_any_case() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        let f = NewFact {
            subject: "Cache".into(),
            predicate: "TTL".into(),
            ..fact("60 s", 2 * DAY, 0.8)
        };
        assert!(matches!(put(&mut s, f), FactOutcome::Superseded { .. }));
    }

    #[test]
    fn an_older_fact_arriving_late_is_stored_as_history() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        put(&mut s, fact("60 s", 5 * DAY, 0.8));
        // It started inside #1's interval, so #1 held only until it started.
        let out = put(&mut s, fact("45 s", 3 * DAY, 0.8));
        assert_eq!(out, FactOutcome::Historical(3));
        assert_eq!(
            row(&s, 3),
            ("45 s".into(), 0.8, Some(5 * DAY), Some(NOW), Some(2))
        );
        assert_eq!(row(&s, 1).2, Some(3 * DAY));
        assert_eq!(row(&s, 1).4, Some(3));
        assert_eq!(row(&s, 2), ("60 s".into(), 0.8, None, None, None));
        assert_eq!(
            put(&mut s, fact("45 s", 3 * DAY, 0.8)),
            FactOutcome::Duplicate(3)
        );
    }

    #[test]
    fn a_fact_older_than_all_history_ends_where_the_next_one_starts() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        put(&mut s, fact("60 s", 5 * DAY, 0.8));
        // Before #1 started: it held until #1, not until the current #2.
        let out = put(&mut s, fact("15 s", 0, 0.8));
        assert_eq!(out, FactOutcome::Historical(3));
        assert_eq!(row(&s, 3).2, Some(DAY));
        assert_eq!(row(&s, 3).4, Some(1));
        assert_eq!(row(&s, 1).2, Some(5 * DAY), "#1 keeps its own end");
    }

    #[test]
    fn two_facts_with_one_start_both_lose_confidence_and_wait_for_review() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        let out = put(&mut s, fact("60 s", DAY, 0.7));
        assert_eq!(out, FactOutcome::Tied { id: 2, review: 1 });
        assert_eq!(row(&s, 1), ("30 s".into(), 0.7, None, None, None));
        assert_eq!(row(&s, 2), ("60 s".into(), 0.6, None, None, None));
        let review: (String, i64, i64, String, i64) = s
            .conn()
            .query_row(
                "SELECT project, fact_a, fact_b, state, created_at FROM fact_reviews",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(review, ("shop".into(), 1, 2, "open".into(), NOW));
        // A retry finds the tied fact and leaves its lowered confidence alone.
        assert_eq!(
            put(&mut s, fact("60 s", DAY, 0.7)),
            FactOutcome::Duplicate(2)
        );
        assert_eq!(row(&s, 2).1, 0.6);
        assert_eq!(count(&s, "fact_reviews"), 1);
    }

    #[test]
    fn a_tie_loses_no_more_than_its_confidence() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.05));
        put(&mut s, fact("60 s", DAY, 0.0));
        assert_eq!(row(&s, 1).1, 0.0);
        assert_eq!(row(&s, 2).1, 0.0);
    }

    #[test]
    fn a_fact_is_compared_as_stored_after_redaction() {
        let (_d, mut s) = store();
        let key = format!("ghp_{}", "a".repeat(36));
        let with_key = |k: &str| fact(&format!("signed with {k}"), DAY, 0.8);
        assert_eq!(put(&mut s, with_key(&key)), FactOutcome::New(1));
        let stored = row(&s, 1).0;
        assert!(!stored.contains(&key), "{stored}");
        // The retry redacts to the same object, so it is the same fact.
        assert_eq!(put(&mut s, with_key(&key)), FactOutcome::Duplicate(1));
        // Another secret of the same shape redacts to the same marker too.
        let other = format!("ghp_{}", "b".repeat(36));
        assert_eq!(put(&mut s, with_key(&other)), FactOutcome::Duplicate(1));
        assert_eq!(count(&s, "facts"), 1);
    }

    #[test]
    fn a_dismissed_fact_is_not_compared() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        s.conn()
            .execute("UPDATE facts SET dismissed = 1 WHERE id = 1", [])
            .unwrap();
        assert_eq!(put(&mut s, fact("60 s", DAY, 0.8)), FactOutcome::New(2));
        assert_eq!(
            put(&mut s, fact("30 s", DAY, 0.8)),
            FactOutcome::Tied { id: 3, review: 1 }
        );
    }

    #[test]
    fn accepting_keeps_one_fact_and_closes_the_other() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        put(&mut s, fact("60 s", DAY, 0.8));
        let unrelated = NewFact {
            predicate: "backend".into(),
            ..fact("redis", DAY, 0.8)
        };
        assert_eq!(put(&mut s, unrelated), FactOutcome::New(3));
        assert_eq!(
            s.accept_fact(3, &entry(), NOW + 1).unwrap(),
            None,
            "not under review"
        );
        assert_eq!(count(&s, "audit"), 0);
        let out = s.accept_fact(2, &entry(), NOW + 5).unwrap().unwrap();
        assert_eq!(
            out,
            Accepted {
                kept: 2,
                closed: vec![1],
                reviews: vec![1]
            }
        );
        assert_eq!(row(&s, 2), ("60 s".into(), 0.8, None, None, None));
        assert_eq!(
            row(&s, 1),
            ("30 s".into(), 0.7, Some(DAY), Some(NOW + 5), Some(2))
        );
        let review: (String, Option<i64>, Option<i64>) = s
            .conn()
            .query_row(
                "SELECT state, kept, resolved_at FROM fact_reviews",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(review, ("resolved".into(), Some(2), Some(NOW + 5)));
        let audit: (String, String, String) = s
            .conn()
            .query_row("SELECT action, item_id, actor FROM audit", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(audit, ("review_accept".into(), "2".into(), "cli".into()));
        assert_eq!(
            s.accept_fact(2, &entry(), NOW + 6).unwrap(),
            None,
            "already settled"
        );
        // The closed fact is recognised when it comes again, so the question is not reopened.
        assert_eq!(
            put(&mut s, fact("30 s", DAY, 0.8)),
            FactOutcome::Duplicate(1)
        );
    }

    #[test]
    fn rejecting_dismisses_one_fact_and_restores_the_other() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.8));
        put(&mut s, fact("60 s", DAY, 0.8));
        let out = s.reject_fact(1, &entry(), NOW + 5).unwrap().unwrap();
        assert_eq!(
            out,
            Rejected {
                dismissed: 1,
                kept: vec![2],
                reviews: vec![1]
            }
        );
        assert_eq!(row(&s, 2), ("60 s".into(), 0.8, None, None, None));
        let dismissed: i64 = s
            .conn()
            .query_row("SELECT dismissed FROM facts WHERE id = 1", [], |r| r.get(0))
            .unwrap();
        assert_eq!(dismissed, 1);
        let kept: Option<i64> = s
            .conn()
            .query_row(
                "SELECT kept FROM fact_reviews WHERE state = 'resolved'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(kept, Some(2));
        assert_eq!(s.reject_fact(1, &entry(), NOW + 6).unwrap(), None);
    }

    #[test]
    fn keeping_one_of_three_tied_facts_settles_every_review_among_them() {
        let (_d, mut s) = store();
        put(&mut s, fact("30 s", DAY, 0.9));
        put(&mut s, fact("60 s", DAY, 0.9));
        assert_eq!(
            put(&mut s, fact("90 s", DAY, 0.9)),
            FactOutcome::Tied { id: 3, review: 2 }
        );
        assert_eq!(count(&s, "fact_reviews"), 3);
        assert_eq!(row(&s, 3).1, 0.7, "one step per fact it disagrees with");
        let out = s.accept_fact(3, &entry(), NOW + 5).unwrap().unwrap();
        assert_eq!(out.closed, vec![1, 2]);
        assert_eq!(out.reviews, vec![2, 3, 1]);
        assert_eq!(row(&s, 3).1, 0.9);
        let open: i64 = s
            .conn()
            .query_row(
                "SELECT count(*) FROM fact_reviews WHERE state = 'open'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(open, 0);
    }
}
