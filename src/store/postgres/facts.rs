//! Facts on PostgreSQL: storing them by the SQLite store's rules (see [`crate::store::facts`]:
//! a fact stored twice is a duplicate, a change in the world closes the old fact, a tie waits
//! in `fact_reviews`), settling reviews, and the reads of [`crate::store::fact_queries`].
//!
//! SQLite's writers take the whole file (`BEGIN IMMEDIATE`), so comparing a new fact with the
//! stored ones and writing it cannot interleave with another writer. Several hub processes
//! write one PostgreSQL database at once, so each write here first takes a transaction-level
//! advisory lock on the fact's key (project, subject and predicate, case-blind): facts of one
//! key are settled one transaction at a time, and facts of different keys never wait for each
//! other. `COLLATE NOCASE` comparisons are `lower(…)` on both sides, as the schema's indexes are.

use super::PgStore;
use crate::model::{Fact, Review};
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::contract::Facts;
use crate::store::fact_queries::HistoryQuery;
use crate::store::facts::{Accepted, FactOutcome, NewFact, Rejected, TIE_PENALTY};
use crate::store::state::AuditEntry;
use postgres::types::ToSql;
use postgres::{Row, Transaction};

/// The first key of the advisory locks on a fact's key (the second is the key's hash), so that
/// they share no lock with the single-key advisory locks other parts take.
const FACT_LOCK_CLASS: i32 = 0x6661_6374; // "fact"

/// The columns [`fact`] reads, in its order, from `facts f`.
const FACT_COLUMNS: &str = "f.id, f.project, f.subject, f.predicate, f.object, f.confidence, f.source, \
                            f.memory_id, f.valid_from, f.valid_to, f.created_at, f.superseded_at";

/// A fact from a row that selected [`FACT_COLUMNS`] first.
fn fact(r: &Row) -> Fact {
    fact_at(r, 0)
}

/// A fact from a row whose [`FACT_COLUMNS`] start at column `at`.
fn fact_at(r: &Row, at: usize) -> Fact {
    Fact {
        id: r.get(at),
        project: r.get(at + 1),
        subject: r.get(at + 2),
        predicate: r.get(at + 3),
        object: r.get(at + 4),
        confidence: r.get(at + 5),
        source: r.get(at + 6),
        memory_id: r.get(at + 7),
        valid_from: r.get(at + 8),
        valid_to: r.get(at + 9),
        recorded_at: r.get(at + 10),
        superseded_at: r.get(at + 11),
    }
}

/// The form in which two objects count as the same, as the SQLite store compares them (case,
/// spacing and a closing full stop change nothing a fact says).
fn normalise(object: &str) -> String {
    object
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(|c: char| {
            matches!(c, '.' | ',' | ';' | ':' | '!' | '?') || c.is_whitespace()
        })
        .to_owned()
}

/// `c` moved by `delta`, kept within 0 to 1 and rounded as the SQLite store rounds it, in Rust
/// (PostgreSQL's `round` of a double rounds halves to even).
fn shifted(c: f64, delta: f64) -> f64 {
    ((c + delta).clamp(0.0, 1.0) * 1e6).round() / 1e6
}

/// A stored fact with the same project, subject and predicate as a new one.
struct Known {
    id: i64,
    object: String,
    valid_from: i64,
    valid_to: Option<i64>,
    confidence: f64,
}

impl Known {
    /// Whether this (closed) fact held at `t`; one closed at its own start (it lost a review)
    /// still counts there, so a retry of it is recognised.
    fn held_at(&self, t: i64) -> bool {
        self.valid_from == t
            || self
                .valid_to
                .is_some_and(|to| self.valid_from < t && t < to)
    }
}

/// Wait until no other transaction settles facts of this key.
fn lock_key(
    tx: &mut Transaction<'_>,
    project: &str,
    subject: &str,
    predicate: &str,
) -> Result<(), postgres::Error> {
    tx.execute(
        "SELECT pg_advisory_xact_lock($1, hashtext($2 || chr(31) || lower($3) || chr(31) || lower($4)))",
        &[&FACT_LOCK_CLASS, &project, &subject, &predicate],
    )?;
    Ok(())
}

/// Store `f` inside the caller's transaction (a compression job writes a whole session in
/// one), by the SQLite store's rules (see [`crate::store::facts`]).
pub(super) fn insert_fact_tx(
    tx: &mut Transaction<'_>,
    f: &Redacted<NewFact>,
    now: i64,
) -> Result<FactOutcome, postgres::Error> {
    let f = f.get();
    lock_key(tx, &f.project, &f.subject, &f.predicate)?;
    let known = same_key(tx, f)?;
    let object = normalise(&f.object);
    let (same, other): (Vec<&Known>, Vec<&Known>) =
        known.iter().partition(|k| normalise(&k.object) == object);

    if let Some(dup) = same
        .iter()
        .find(|k| k.valid_to.is_none() || k.held_at(f.valid_from))
    {
        // A fact waiting for review keeps its lowered confidence: only the review settles it.
        tx.execute(
            "UPDATE facts SET confidence = $2 WHERE id = $1 AND confidence < $2
               AND NOT EXISTS (SELECT 1 FROM fact_reviews r WHERE r.state = 'open' AND $1 IN (r.fact_a, r.fact_b))",
            &[&dup.id, &f.confidence],
        )?;
        return Ok(FactOutcome::Duplicate(dup.id));
    }

    // A fact that arrives late can start inside a closed fact's interval: that fact then held
    // only until the new one started.
    let overlapped: Vec<i64> = other
        .iter()
        .filter(|k| {
            k.valid_to
                .is_some_and(|to| k.valid_from < f.valid_from && f.valid_from < to)
        })
        .map(|k| k.id)
        .collect();
    // Older news: it held until the first later fact started, current or already closed.
    if let Some(newer) = other
        .iter()
        .filter(|k| k.valid_from > f.valid_from)
        .min_by_key(|k| (k.valid_from, k.id))
    {
        let id = insert(tx, f, f.confidence, now)?;
        close(tx, &[id], newer.valid_from, newer.id, now)?;
        trim(tx, &overlapped, f.valid_from, id, now)?;
        return Ok(FactOutcome::Historical(id));
    }

    let current = other.into_iter().filter(|k| k.valid_to.is_none());
    let (tied, earlier): (Vec<&Known>, Vec<&Known>) =
        current.partition(|k| k.valid_from == f.valid_from);
    let penalty = TIE_PENALTY * tied.len() as f64;
    let id = insert(tx, f, shifted(f.confidence, -penalty), now)?;
    let closed: Vec<i64> = earlier.iter().map(|k| k.id).collect();
    close(tx, &closed, f.valid_from, id, now)?;
    trim(tx, &overlapped, f.valid_from, id, now)?;
    let mut reviews = Vec::with_capacity(tied.len());
    if !tied.is_empty() {
        let lower = tx.prepare("UPDATE facts SET confidence = $2 WHERE id = $1")?;
        let open = tx.prepare(
            "INSERT INTO fact_reviews (project, fact_a, fact_b, created_at) VALUES ($1, $2, $3, $4)
             RETURNING id",
        )?;
        for old in &tied {
            tx.execute(&lower, &[&old.id, &shifted(old.confidence, -TIE_PENALTY)])?;
            let review: i64 = tx
                .query_one(&open, &[&f.project, &old.id, &id, &now])?
                .get(0);
            reviews.push(review);
        }
    }
    Ok(match reviews.first() {
        Some(&review) => FactOutcome::Tied { id, review },
        None if !closed.is_empty() => FactOutcome::Superseded { id, closed },
        None => FactOutcome::New(id),
    })
}

/// The stored facts, not dismissed, with `f`'s project, subject and predicate (case-blind, as
/// `fact_history` reads them), oldest first.
fn same_key(tx: &mut Transaction<'_>, f: &NewFact) -> Result<Vec<Known>, postgres::Error> {
    let rows = tx.query(
        "SELECT id, object, valid_from, valid_to, confidence FROM facts
         WHERE lower(subject) = lower($2) AND project = $1 AND lower(predicate) = lower($3)
           AND NOT dismissed
         ORDER BY valid_from, id",
        &[&f.project, &f.subject, &f.predicate],
    )?;
    Ok(rows
        .iter()
        .map(|r| Known {
            id: r.get(0),
            object: r.get(1),
            valid_from: r.get(2),
            valid_to: r.get(3),
            confidence: r.get(4),
        })
        .collect())
}

fn insert(
    tx: &mut Transaction<'_>,
    f: &NewFact,
    confidence: f64,
    now: i64,
) -> Result<i64, postgres::Error> {
    let row = tx.query_one(
        "INSERT INTO facts (project, subject, predicate, object, confidence, source, memory_id, valid_from, created_at, job_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        &[
            &f.project,
            &f.subject,
            &f.predicate,
            &f.object,
            &confidence,
            &f.source,
            &f.memory_id,
            &f.valid_from,
            &now,
            &f.job_id,
        ],
    )?;
    Ok(row.get(0))
}

/// Close facts `ids` at `at` in the world, replaced by `by`; they stay as history.
fn close(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    at: i64,
    by: i64,
    now: i64,
) -> Result<(), postgres::Error> {
    if !ids.is_empty() {
        tx.execute(
            "UPDATE facts SET valid_to = $2, superseded_at = $3, superseded_by = $4 WHERE id = ANY($1)",
            &[&ids, &at, &now, &by],
        )?;
    }
    Ok(())
}

/// End the closed facts `ids` at `at`, replaced by `by`; their `superseded_at` keeps the first
/// time the store replaced them.
fn trim(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    at: i64,
    by: i64,
    now: i64,
) -> Result<(), postgres::Error> {
    if !ids.is_empty() {
        tx.execute(
            "UPDATE facts SET valid_to = $2, superseded_by = $3, superseded_at = coalesce(superseded_at, $4)
             WHERE id = ANY($1)",
            &[&ids, &at, &by, &now],
        )?;
    }
    Ok(())
}

/// The open reviews fact `id` is in, as (review, the other fact), oldest first.
fn open_reviews_of(tx: &mut Transaction<'_>, id: i64) -> Result<Vec<(i64, i64)>, postgres::Error> {
    let rows = tx.query(
        "SELECT id, CASE WHEN fact_a = $1 THEN fact_b ELSE fact_a END FROM fact_reviews
         WHERE state = 'open' AND $1 IN (fact_a, fact_b) ORDER BY id",
        &[&id],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Lock the key of fact `id` (every fact a review ties shares it); whether the fact exists.
fn lock_fact(tx: &mut Transaction<'_>, id: i64) -> Result<bool, postgres::Error> {
    let found = tx.execute(
        "SELECT pg_advisory_xact_lock($2, hashtext(project || chr(31) || lower(subject) || chr(31) || lower(predicate)))
         FROM facts WHERE id = $1",
        &[&id, &FACT_LOCK_CLASS],
    )?;
    Ok(found == 1)
}

fn resolve(
    tx: &mut Transaction<'_>,
    reviews: &[i64],
    kept: i64,
    now: i64,
) -> Result<(), postgres::Error> {
    if !reviews.is_empty() {
        tx.execute(
            "UPDATE fact_reviews SET state = 'resolved', kept = $2, resolved_at = $3 WHERE id = ANY($1)",
            &[&reviews, &kept, &now],
        )?;
    }
    Ok(())
}

/// Give fact `id` back the confidence `times` ties took, one step at a time as the SQLite
/// store does (each step is rounded).
fn give_back(tx: &mut Transaction<'_>, id: i64, times: usize) -> Result<(), postgres::Error> {
    let c: f64 = tx
        .query_one("SELECT confidence FROM facts WHERE id = $1", &[&id])?
        .get(0);
    let c = (0..times).fold(c, |c, _| shifted(c, TIE_PENALTY));
    tx.execute("UPDATE facts SET confidence = $2 WHERE id = $1", &[&id, &c])?;
    Ok(())
}

fn audit(
    tx: &mut Transaction<'_>,
    action: &str,
    fact: i64,
    entry: &AuditEntry,
    now: i64,
) -> Result<(), postgres::Error> {
    tx.execute(
        "INSERT INTO audit (at, action, item_type, item_id, reason, actor) VALUES ($1, $2, 'fact', $3, $4, $5)",
        &[&now, &action, &fact.to_string(), &entry.reason, &entry.actor],
    )?;
    Ok(())
}

/// `usize` as a `LIMIT`, saturating: past `i64::MAX` still means no limit.
fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl PgStore {
    fn facts_where(
        &self,
        sql: &str,
        args: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Fact>, StoreError> {
        self.with(|c| Ok(c.query(sql, args)?.iter().map(fact).collect()))
    }
}

impl Facts for PgStore {
    fn trusted_facts(&self, project: &str, limit_n: usize) -> Result<Vec<Fact>, StoreError> {
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f LEFT JOIN memories m ON m.id = f.memory_id
                 WHERE f.project = $1 AND f.valid_to IS NULL AND NOT f.dismissed
                   AND (f.source != 'rules' OR f.confidence >= 0.6 OR m.pinned)
                 ORDER BY f.confidence DESC, f.valid_from DESC, f.id LIMIT $2"
            ),
            &[&project, &limit(limit_n)],
        )
    }

    fn facts_mentioning(
        &self,
        terms: &[String],
        project: Option<&str>,
        limit_n: usize,
    ) -> Result<Vec<Fact>, StoreError> {
        if terms.is_empty() {
            return Ok(vec![]);
        }
        // One array of terms, so the statement is the same whatever their number.
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f WHERE f.valid_to IS NULL AND NOT f.dismissed
                   AND ($1::text IS NULL OR f.project = $1)
                   AND EXISTS (SELECT 1 FROM unnest($3::text[]) t
                               WHERE strpos(lower(f.subject), lower(t)) > 0
                                  OR strpos(lower(f.object), lower(t)) > 0)
                 ORDER BY f.confidence DESC, f.id LIMIT $2"
            ),
            &[&project, &limit(limit_n), &terms],
        )
    }

    fn facts_of_memory(&self, memory_id: i64) -> Result<Vec<Fact>, StoreError> {
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f WHERE f.memory_id = $1 AND NOT f.dismissed
                 ORDER BY f.valid_from, f.id"
            ),
            &[&memory_id],
        )
    }

    fn fact_history(&self, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError> {
        let validity = if q.as_of.is_some() {
            "f.valid_from <= $4 AND (f.valid_to IS NULL OR f.valid_to > $4)"
        } else if q.include_superseded {
            "$4::bigint IS NULL"
        } else {
            "$4::bigint IS NULL AND f.valid_to IS NULL"
        };
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f WHERE lower(f.subject) = lower($1) AND NOT f.dismissed
                   AND ($2::text IS NULL OR f.project = $2)
                   AND ($3::text IS NULL OR lower(f.predicate) = lower($3))
                   AND {validity}
                 ORDER BY f.valid_from, f.id"
            ),
            &[&q.subject, &q.project, &q.predicate, &q.as_of],
        )
    }

    fn open_fact_reviews(&self, project: Option<&str>) -> Result<Vec<Review>, StoreError> {
        // The reviews and both sides of each in one statement; a review shows its facts by id,
        // dismissed or not, until the user settles it.
        self.with(|c| {
            let rows = c.query(
                &format!(
                    "SELECT r.id, r.project, r.created_at, {FACT_COLUMNS} FROM fact_reviews r
                     JOIN facts f ON f.id IN (r.fact_a, r.fact_b)
                     WHERE r.state = 'open' AND ($1::text IS NULL OR r.project = $1)
                     ORDER BY r.created_at, r.id, f.id"
                ),
                &[&project],
            )?;
            let mut reviews: Vec<Review> = Vec::new();
            for r in &rows {
                let id: i64 = r.get(0);
                let f = fact_at(r, 3);
                match reviews.last_mut() {
                    Some(last) if last.id == id => last.facts.push(f),
                    _ => reviews.push(Review {
                        id,
                        project: r.get(1),
                        created_at: r.get(2),
                        facts: vec![f],
                    }),
                }
            }
            Ok(reviews)
        })
    }

    fn list_facts(
        &self,
        project: Option<&str>,
        subject: Option<&str>,
        include_superseded: bool,
        limit_n: usize,
    ) -> Result<Vec<(Fact, bool)>, StoreError> {
        let current = if include_superseded {
            "true"
        } else {
            "f.valid_to IS NULL AND NOT f.dismissed"
        };
        self.with(|c| {
            let rows = c.query(
                &format!(
                    "SELECT {FACT_COLUMNS}, f.dismissed FROM facts f
                     WHERE ($1::text IS NULL OR f.project = $1)
                       AND ($2::text IS NULL OR strpos(lower(f.subject), lower($2)) > 0)
                       AND {current}
                     ORDER BY f.valid_from DESC, f.id DESC LIMIT $3"
                ),
                &[&project, &subject, &limit(limit_n)],
            )?;
            Ok(rows.iter().map(|r| (fact(r), r.get(12))).collect())
        })
    }

    fn insert_fact(&mut self, f: &Redacted<NewFact>, now: i64) -> Result<FactOutcome, StoreError> {
        self.write(|tx| insert_fact_tx(tx, f, now))
    }

    fn accept_fact(
        &mut self,
        id: i64,
        entry: &Redacted<AuditEntry>,
        now: i64,
    ) -> Result<Option<Accepted>, StoreError> {
        self.write(|tx| {
            if !lock_fact(tx, id)? {
                return Ok(None);
            }
            let open = open_reviews_of(tx, id)?;
            if open.is_empty() {
                return Ok(None);
            }
            let starts: i64 = tx
                .query_one("SELECT valid_from FROM facts WHERE id = $1", &[&id])?
                .get(0);
            let (mut reviews, closed): (Vec<i64>, Vec<i64>) = open.into_iter().unzip();
            close(tx, &closed, starts, id, now)?;
            give_back(tx, id, closed.len())?;
            resolve(tx, &reviews, id, now)?;
            // Facts closed together may wait in a review of their own (three facts with one
            // start): keeping this one settled that too.
            let among = tx.prepare(
                "SELECT id, CASE WHEN fact_a = $1 THEN fact_b ELSE fact_a END FROM fact_reviews
                 WHERE state = 'open' AND $1 IN (fact_a, fact_b) ORDER BY id",
            )?;
            for &old in &closed {
                let settled: Vec<i64> = tx
                    .query(&among, &[&old])?
                    .iter()
                    .filter(|r| closed.contains(&r.get::<_, i64>(1)))
                    .map(|r| r.get(0))
                    .collect();
                resolve(tx, &settled, id, now)?;
                reviews.extend(settled);
            }
            audit(tx, "review_accept", id, entry.get(), now)?;
            Ok(Some(Accepted {
                kept: id,
                closed,
                reviews,
            }))
        })
    }

    fn reject_fact(
        &mut self,
        id: i64,
        entry: &Redacted<AuditEntry>,
        now: i64,
    ) -> Result<Option<Rejected>, StoreError> {
        self.write(|tx| {
            if !lock_fact(tx, id)? {
                return Ok(None);
            }
            let open = open_reviews_of(tx, id)?;
            if open.is_empty() {
                return Ok(None);
            }
            tx.execute("UPDATE facts SET dismissed = true WHERE id = $1", &[&id])?;
            let (reviews, kept): (Vec<i64>, Vec<i64>) = open.into_iter().unzip();
            for &other in &kept {
                give_back(tx, other, 1)?;
            }
            // Each review keeps the fact on its other side.
            tx.execute(
                "UPDATE fact_reviews SET state = 'resolved', resolved_at = $2,
                     kept = CASE WHEN fact_a = $3 THEN fact_b ELSE fact_a END
                 WHERE id = ANY($1)",
                &[&reviews, &now, &id],
            )?;
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
    use crate::redact::Redactor;

    const DAY: i64 = 86_400_000;
    const NOW: i64 = 100 * DAY;

    fn fact(object: &str, valid_from: i64, confidence: f64) -> Redacted<NewFact> {
        let f = NewFact {
            project: "shop".into(),
            subject: "cache".into(),
            predicate: "ttl".into(),
            object: object.into(),
            confidence,
            source: "rules".into(),
            memory_id: None,
            valid_from,
            job_id: Some(7),
        };
        Redacted::new(f, &Redactor::builtin())
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn insert_fact_tx_writes_inside_the_callers_transaction() {
        let pg = super::super::testing::fresh();
        let out = pg
            .write(|tx| {
                let a = insert_fact_tx(tx, &fact("30 s", DAY, 0.8), NOW)?;
                let b = insert_fact_tx(tx, &fact("30 s.", DAY, 0.8), NOW)?;
                let c = insert_fact_tx(tx, &fact("60 s", 2 * DAY, 0.8), NOW)?;
                Ok((a, b, c))
            })
            .unwrap();
        assert_eq!(
            out,
            (
                FactOutcome::New(1),
                FactOutcome::Duplicate(1),
                FactOutcome::Superseded {
                    id: 2,
                    closed: vec![1]
                }
            )
        );
    }
}
