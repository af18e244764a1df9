//! Facts on PostgreSQL: storing them by the rules the SQLite store keeps too (see
//! [`crate::store::facts`]: a fact stored twice is a duplicate, a change in the world closes
//! the old fact, a tie waits in `fact_reviews`; `fact_rules` decides which case applies for
//! both), settling reviews, and the reads of [`crate::store::fact_queries`].
//!
//! SQLite's writers take the whole file (`BEGIN IMMEDIATE`), so comparing a new fact with the
//! stored ones and writing it cannot interleave with another writer. Several hub processes
//! write one PostgreSQL database at once, so each write here first takes a transaction-level
//! advisory lock on the fact's project: the facts of one project are settled one transaction
//! at a time, and other projects' never wait for them. One lock per project rather than per
//! subject, because a compression job stores many facts of its project in one transaction:
//! two jobs taking per-subject locks in different orders could deadlock, two taking the
//! project's lock simply queue.
//!
//! `COLLATE NOCASE` comparisons are `lower(…)` on both sides, as the schema's indexes are.

use super::PgStore;
use crate::model::{Fact, Review};
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::contract::Facts;
use crate::store::fact_queries::{HistoryQuery, SubjectCount, Subjects, subject_words};
use crate::store::fact_rules::{FactWrites, Known, shifted, store_fact};
use crate::store::facts::{Accepted, FactOutcome, NewFact, Rejected, TIE_PENALTY};
use crate::store::state::AuditEntry;
use postgres::types::ToSql;
use postgres::{Row, Transaction};

/// The first key of the advisory locks on a project's facts (the second is the project's
/// hash), so that they share no lock with the single-key advisory locks other parts take.
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

/// Wait until no other transaction settles facts of `project`.
fn lock_project(tx: &mut Transaction<'_>, project: &str) -> Result<(), postgres::Error> {
    tx.execute(
        "SELECT pg_advisory_xact_lock($1, hashtext($2))",
        &[&FACT_LOCK_CLASS, &project],
    )?;
    Ok(())
}

/// Store `f` inside the caller's transaction (a compression job writes a whole session in
/// one), by the rules the SQLite store keeps too (see [`crate::store::facts`]).
pub(super) fn insert_fact_tx(
    tx: &mut Transaction<'_>,
    f: &Redacted<NewFact>,
    now: i64,
) -> Result<FactOutcome, postgres::Error> {
    let f = f.get();
    lock_project(tx, &f.project)?;
    store_fact(tx, f, now)
}

impl FactWrites for Transaction<'_> {
    type Error = postgres::Error;

    fn same_key(&mut self, f: &NewFact) -> Result<Vec<Known>, postgres::Error> {
        let rows = self.query(
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

    fn keep_higher(&mut self, id: i64, confidence: f64) -> Result<(), postgres::Error> {
        self.execute(
            "UPDATE facts SET confidence = $2 WHERE id = $1 AND confidence < $2
               AND NOT EXISTS (SELECT 1 FROM fact_reviews r WHERE r.state = 'open' AND $1 IN (r.fact_a, r.fact_b))",
            &[&id, &confidence],
        )?;
        Ok(())
    }

    fn insert(&mut self, f: &NewFact, confidence: f64, now: i64) -> Result<i64, postgres::Error> {
        let row = self.query_one(
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

    fn close(&mut self, ids: &[i64], at: i64, by: i64, now: i64) -> Result<(), postgres::Error> {
        close(self, ids, at, by, now)
    }

    fn trim(&mut self, ids: &[i64], at: i64, by: i64, now: i64) -> Result<(), postgres::Error> {
        if !ids.is_empty() {
            self.execute(
                "UPDATE facts SET valid_to = $2, superseded_by = $3, superseded_at = coalesce(superseded_at, $4)
                 WHERE id = ANY($1)",
                &[&ids, &at, &by, &now],
            )?;
        }
        Ok(())
    }

    fn lower(&mut self, id: i64, confidence: f64) -> Result<(), postgres::Error> {
        self.execute(
            "UPDATE facts SET confidence = $2 WHERE id = $1",
            &[&id, &confidence],
        )?;
        Ok(())
    }

    fn open_review(
        &mut self,
        project: &str,
        a: i64,
        b: i64,
        now: i64,
    ) -> Result<i64, postgres::Error> {
        let review = self.query_one(
            "INSERT INTO fact_reviews (project, fact_a, fact_b, created_at) VALUES ($1, $2, $3, $4)
             RETURNING id",
            &[&project, &a, &b, &now],
        )?;
        Ok(review.get(0))
    }
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

/// The open reviews fact `id` is in, as (review, the other fact), oldest first.
fn open_reviews_of(tx: &mut Transaction<'_>, id: i64) -> Result<Vec<(i64, i64)>, postgres::Error> {
    let rows = tx.query(
        "SELECT id, CASE WHEN fact_a = $1 THEN fact_b ELSE fact_a END FROM fact_reviews
         WHERE state = 'open' AND $1 IN (fact_a, fact_b) ORDER BY id",
        &[&id],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Lock the project of fact `id` (every fact a review ties is of it); whether the fact exists.
fn lock_fact(tx: &mut Transaction<'_>, id: i64) -> Result<bool, postgres::Error> {
    let found = tx.execute(
        "SELECT pg_advisory_xact_lock($2, hashtext(project)) FROM facts WHERE id = $1",
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

/// A history's statement: the facts whose subject meets `subject` (a condition on `$1`), of
/// project `$2` and predicate `$3` when given, in the versions `$4` (`as_of`) and the query ask
/// for, in `order`. As [`crate::store::fact_queries`]'s, with PostgreSQL's types.
fn history_sql(q: &HistoryQuery, subject: &str, order: &str) -> String {
    let validity = if q.as_of.is_some() {
        "f.valid_from <= $4 AND (f.valid_to IS NULL OR f.valid_to > $4)"
    } else if q.include_superseded {
        "$4::bigint IS NULL"
    } else {
        "$4::bigint IS NULL AND f.valid_to IS NULL"
    };
    format!(
        "SELECT {FACT_COLUMNS} FROM facts f WHERE ({subject}) AND NOT f.dismissed
           AND ($2::text IS NULL OR f.project = $2)
           AND ($3::text IS NULL OR lower(f.predicate) = lower($3))
           AND {validity}
         ORDER BY {order}"
    )
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

    fn fact_by_id(&self, id: i64) -> Result<Option<Fact>, StoreError> {
        Ok(self
            .facts_where(
                &format!("SELECT {FACT_COLUMNS} FROM facts f WHERE f.id = $1"),
                &[&id],
            )?
            .pop())
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
        self.facts_where(
            &history_sql(q, "lower(f.subject) = lower($1)", "f.valid_from, f.id"),
            &[&q.subject, &q.project, &q.predicate, &q.as_of],
        )
    }

    fn fact_history_by_words(&self, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError> {
        let words = subject_words(&q.subject);
        if words.is_empty() {
            return Ok(vec![]);
        }
        // One array of words, so the statement is the same whatever their number; `COLLATE
        // "C"` orders the subjects byte by byte, as SQLite does.
        self.facts_where(
            &history_sql(
                q,
                "NOT EXISTS (SELECT 1 FROM unnest($1::text[]) w
                             WHERE strpos(lower(f.subject), lower(w)) = 0)",
                "lower(f.subject) COLLATE \"C\", f.valid_from, f.id",
            ),
            &[&words, &q.project, &q.predicate, &q.as_of],
        )
    }

    fn fact_subjects(
        &self,
        project: Option<&str>,
        include_superseded: bool,
        limit_n: usize,
    ) -> Result<Subjects, StoreError> {
        let current = if include_superseded {
            "true"
        } else {
            "f.valid_to IS NULL"
        };
        // `COLLATE "C"`: SQLite picks the first spelling and orders names byte by byte.
        self.with(|c| {
            let rows = c.query(
                &format!(
                    "SELECT min(f.subject COLLATE \"C\"), count(*), count(*) OVER () FROM facts f
                     WHERE NOT f.dismissed AND ($1::text IS NULL OR f.project = $1) AND {current}
                     GROUP BY lower(f.subject)
                     ORDER BY count(*) DESC, lower(f.subject) COLLATE \"C\" LIMIT $2"
                ),
                &[&project, &limit(limit_n)],
            )?;
            Ok(Subjects {
                total: rows.first().map_or(0, |r| r.get(2)),
                subjects: rows
                    .iter()
                    .map(|r| SubjectCount {
                        subject: r.get(0),
                        facts: r.get(1),
                    })
                    .collect(),
            })
        })
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

/// The same calls on the SQLite store and on PostgreSQL, for the parity tests of facts, rules
/// and lists: each engine's tables read back in one shape, and rows the tests need that other
/// parts write (memories, episodes) put in directly.
#[cfg(test)]
pub(super) mod parity {
    use crate::model::{Kind, MemoryType, NewMemory};
    use crate::redact::{Redacted, Redactor};
    use crate::store::contract::{Facts, Lists, Rules};
    use crate::store::{OpenOptions, Store, content_hash};

    /// A row of `facts`, every column.
    #[derive(Debug, PartialEq)]
    pub(crate) struct FactRow {
        pub id: i64,
        pub project: String,
        pub subject: String,
        pub predicate: String,
        pub object: String,
        pub confidence: f64,
        pub source: String,
        pub memory_id: Option<i64>,
        pub valid_from: i64,
        pub valid_to: Option<i64>,
        pub superseded_by: Option<i64>,
        pub dismissed: bool,
        pub created_at: i64,
        pub superseded_at: Option<i64>,
        pub job_id: Option<i64>,
    }
    /// (id, project, fact_a, fact_b, state, kept, created_at, resolved_at)
    pub(crate) type ReviewRow = (i64, String, i64, i64, String, Option<i64>, i64, Option<i64>);
    /// (id, at, action, item_type, item_id, reason, actor)
    pub(crate) type AuditRow = (
        i64,
        i64,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
    );
    /// (id, project, kind, title, text, tool, pinned, dismissed, created_at, content_hash): all
    /// but the uid, which is new on each engine.
    pub(crate) type MemoryRow = (
        i64,
        String,
        String,
        String,
        String,
        String,
        bool,
        bool,
        i64,
        String,
    );
    /// (project, name, memory_id, items, updated_at)
    pub(crate) type ListRow = (String, String, i64, String, i64);
    /// (id, when, then, tier, name, source, enabled, recheck, evidence, created_at, confirmed_at)
    pub(crate) type RuleRow = (
        String,
        String,
        String,
        String,
        String,
        String,
        bool,
        Option<String>,
        String,
        i64,
        i64,
    );

    /// Every table the three parts write, as one engine holds them.
    #[derive(Debug, PartialEq)]
    pub(crate) struct Tables {
        pub facts: Vec<FactRow>,
        pub reviews: Vec<ReviewRow>,
        pub audit: Vec<AuditRow>,
        pub memories: Vec<MemoryRow>,
        pub episodes: Vec<(i64, String, String, i64, bool)>,
        pub lists: Vec<ListRow>,
        pub rules: Vec<RuleRow>,
    }

    const FACTS: &str = "SELECT id, project, subject, predicate, object, confidence, source, memory_id, valid_from, \
         valid_to, superseded_by, dismissed, created_at, superseded_at, job_id FROM facts ORDER BY id";
    const REVIEWS: &str = "SELECT id, project, fact_a, fact_b, state, kept, created_at, resolved_at \
         FROM fact_reviews ORDER BY id";
    const AUDIT: &str =
        "SELECT id, at, action, item_type, item_id, reason, actor FROM audit ORDER BY id";
    const MEMORIES: &str = "SELECT id, project, kind, title, text, tool, pinned, dismissed, created_at, content_hash \
         FROM memories ORDER BY id";
    const EPISODES: &str =
        "SELECT memory_id, title, text, replaced_at, dismissed FROM episodes ORDER BY memory_id";
    const LISTS: &str =
        "SELECT project, name, memory_id, items, updated_at FROM work_lists ORDER BY project, name";
    const RULES: &str = "SELECT id, when_text, then_text, scope_tier, scope_name, source, enabled, recheck, \
         evidence, created_at, confirmed_at FROM rules ORDER BY id";

    /// (id, project, subject, predicate, object, confidence, source, memory_id, valid_from,
    /// valid_to, superseded_by, dismissed, created_at, superseded_at, job_id), as [`FACTS`]
    /// reads them.
    type FactColumns = (
        i64,
        String,
        String,
        String,
        String,
        f64,
        String,
        Option<i64>,
        i64,
        Option<i64>,
        Option<i64>,
        bool,
        i64,
        Option<i64>,
        Option<i64>,
    );

    impl From<FactColumns> for FactRow {
        fn from(c: FactColumns) -> FactRow {
            FactRow {
                id: c.0,
                project: c.1,
                subject: c.2,
                predicate: c.3,
                object: c.4,
                confidence: c.5,
                source: c.6,
                memory_id: c.7,
                valid_from: c.8,
                valid_to: c.9,
                superseded_by: c.10,
                dismissed: c.11,
                created_at: c.12,
                superseded_at: c.13,
                job_id: c.14,
            }
        }
    }

    /// A row read back as the tuple of its columns, in order, from either engine's driver.
    trait Columns: Sized {
        fn sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;
        fn pg(r: &postgres::Row) -> Self;
    }

    /// [`Columns`] for a tuple whose element `$t` is column `$i`.
    macro_rules! columns {
        ($($t:ident $i:tt),+) => {
            impl<$($t),+> Columns for ($($t,)+)
            where
                $($t: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>),+
            {
                fn sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
                    Ok(($(r.get($i)?,)+))
                }

                fn pg(r: &postgres::Row) -> Self {
                    ($(r.get($i),)+)
                }
            }
        };
    }

    columns!(A 0, B 1, C 2, D 3, E 4);
    columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14);

    /// Every row of a statement, as one engine reads it.
    trait ReadBack {
        fn rows<T: Columns>(&self, sql: &str) -> Vec<T>;
    }

    impl ReadBack for Store {
        fn rows<T: Columns>(&self, sql: &str) -> Vec<T> {
            let mut stmt = self.conn().prepare(sql).unwrap();
            stmt.query_map([], |r| T::sqlite(r))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        }
    }

    impl ReadBack for super::PgStore {
        fn rows<T: Columns>(&self, sql: &str) -> Vec<T> {
            self.with(|c| Ok(c.query(sql, &[])?.iter().map(T::pg).collect()))
                .unwrap()
        }
    }

    /// Every table, read the same way from either engine.
    fn tables(s: &impl ReadBack) -> Tables {
        Tables {
            facts: s
                .rows::<FactColumns>(FACTS)
                .into_iter()
                .map(FactRow::from)
                .collect(),
            reviews: s.rows(REVIEWS),
            audit: s.rows(AUDIT),
            memories: s.rows(MEMORIES),
            episodes: s.rows(EPISODES),
            lists: s.rows(LISTS),
            rules: s.rows(RULES),
        }
    }

    /// An engine under test.
    pub(crate) trait Engine: Facts + Rules + Lists {
        /// Store a memory as the memories part would; its id.
        fn seed_memory(
            &mut self,
            project: &str,
            kind: Kind,
            title: &str,
            text: &str,
            pinned: bool,
            at: i64,
        ) -> i64;
        /// Keep an episode for memory `id`, as compression does when it rewrites one.
        fn seed_episode(&mut self, id: i64, at: i64);
        fn tables(&self) -> Tables;
    }

    pub(crate) fn sqlite() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, s)
    }

    /// Run `scenario` on a fresh SQLite store and a fresh PostgreSQL database: both must give
    /// the same answers and leave the same tables.
    pub(crate) fn same_on_both<T: PartialEq + std::fmt::Debug>(
        scenario: impl Fn(&mut dyn Engine) -> T,
    ) {
        let (_dir, mut sqlite) = sqlite();
        let mut pg = super::super::testing::fresh();
        let on_sqlite = scenario(&mut sqlite);
        let on_pg = scenario(&mut pg);
        assert_eq!(
            on_sqlite, on_pg,
            "the answers differ (left SQLite, right PostgreSQL)"
        );
        assert_eq!(
            sqlite.tables(),
            pg.tables(),
            "the tables differ (left SQLite, right PostgreSQL)"
        );
    }

    fn note(
        project: &str,
        kind: Kind,
        title: &str,
        text: &str,
        pinned: bool,
        at: i64,
    ) -> NewMemory {
        NewMemory {
            project: project.into(),
            kind,
            mtype: MemoryType::Note,
            title: title.into(),
            text: text.into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned,
            created_at: at,
        }
    }

    impl Engine for Store {
        fn seed_memory(
            &mut self,
            project: &str,
            kind: Kind,
            title: &str,
            text: &str,
            pinned: bool,
            at: i64,
        ) -> i64 {
            let m = note(project, kind, title, text, pinned, at);
            Store::insert(self, &Redacted::new(m, &Redactor::builtin()))
                .unwrap()
                .id
        }

        fn seed_episode(&mut self, id: i64, at: i64) {
            self.conn()
                .execute(
                    "INSERT INTO episodes (memory_id, title, text, replaced_at) VALUES (?1, 'first', 'the message', ?2)",
                    rusqlite::params![id, at],
                )
                .unwrap();
        }

        fn tables(&self) -> Tables {
            tables(self)
        }
    }

    impl Engine for super::PgStore {
        fn seed_memory(
            &mut self,
            project: &str,
            kind: Kind,
            title: &str,
            text: &str,
            pinned: bool,
            at: i64,
        ) -> i64 {
            let m = note(project, kind, title, text, pinned, at);
            let hash = content_hash(&m.title, &m.text);
            self.with(|c| {
                Ok(c.query_one(
                    "INSERT INTO memories (uid, project, kind, type, title, text, tool, pinned, created_at, content_hash)
                     VALUES (gen_random_uuid()::text, $1, $2, 'note', $3, $4, $5, $6, $7, $8) RETURNING id",
                    &[&m.project, &m.kind.as_str(), &m.title, &m.text, &m.host, &m.pinned, &at, &hash],
                )?
                .get(0))
            })
            .unwrap()
        }

        fn seed_episode(&mut self, id: i64, at: i64) {
            self.with(|c| {
                c.execute(
                    "INSERT INTO episodes (memory_id, title, text, replaced_at) VALUES ($1, 'first', 'the message', $2)",
                    &[&id, &at],
                )
            })
            .unwrap();
        }

        fn tables(&self) -> Tables {
            tables(self)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parity::{Engine, same_on_both};
    use super::*;
    use crate::model::Kind;
    use crate::redact::Redactor;
    use crate::store::state::ItemType;

    const DAY: i64 = 86_400_000;
    const NOW: i64 = 100 * DAY;

    fn new_fact(object: &str, valid_from: i64, confidence: f64) -> NewFact {
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

    fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
        Redacted::new(v, &Redactor::builtin())
    }

    fn put(s: &mut dyn Engine, f: NewFact) -> FactOutcome {
        s.insert_fact(&redacted(f), NOW).unwrap()
    }

    fn entry() -> Redacted<AuditEntry> {
        redacted(AuditEntry {
            actor: "cli".into(),
            reason: None,
        })
    }

    /// (object, confidence, valid_to, superseded_at, superseded_by) of fact `id`.
    type Brief = (String, f64, Option<i64>, Option<i64>, Option<i64>);

    fn row(s: &dyn Engine, id: i64) -> Brief {
        let f = s.tables().facts.into_iter().find(|f| f.id == id).unwrap();
        (
            f.object,
            f.confidence,
            f.valid_to,
            f.superseded_at,
            f.superseded_by,
        )
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn insert_fact_tx_writes_inside_the_callers_transaction() {
        let pg = super::super::testing::fresh();
        let out = pg
            .write(|tx| {
                let a = insert_fact_tx(tx, &redacted(new_fact("30 s", DAY, 0.8)), NOW)?;
                let b = insert_fact_tx(tx, &redacted(new_fact("30 s.", DAY, 0.8)), NOW)?;
                let c = insert_fact_tx(tx, &redacted(new_fact("60 s", 2 * DAY, 0.8)), NOW)?;
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
        // Rolled back with the caller's transaction, the fact is gone.
        let gone = pg.write(|tx| -> Result<(), postgres::Error> {
            insert_fact_tx(tx, &redacted(new_fact("90 s", 3 * DAY, 0.8)), NOW)?;
            tx.execute("SELECT 1/0", &[])?;
            Ok(())
        });
        assert!(gone.is_err());
        assert_eq!(pg.tables().facts.len(), 2);
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn the_same_object_in_another_form_is_a_duplicate() {
        for object in ["60  S.", "60 s", "60 s !"] {
            same_on_both(|s| {
                assert_eq!(put(s, new_fact("60 s", DAY, 0.6)), FactOutcome::New(1));
                assert_eq!(
                    put(s, new_fact(object, 3 * DAY, 0.5)),
                    FactOutcome::Duplicate(1)
                );
                assert_eq!(s.tables().facts.len(), 1);
            });
        }
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_new_fact_records_its_job_and_when_the_store_learned_it() {
        same_on_both(|s| {
            assert_eq!(put(s, new_fact("60 s", DAY, 0.6)), FactOutcome::New(1));
            let f = &s.tables().facts[0];
            assert_eq!((f.job_id, f.created_at), (Some(7), NOW));
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_retried_fact_is_stored_once_and_a_higher_confidence_is_kept() {
        same_on_both(|s| {
            put(s, new_fact("60 s", DAY, 0.6));
            for c in [0.6, 0.8, 0.7] {
                assert_eq!(put(s, new_fact("60 s", DAY, c)), FactOutcome::Duplicate(1));
            }
            assert_eq!(s.tables().facts.len(), 1);
            assert_eq!(row(s, 1).1, 0.8);
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_newer_fact_closes_the_older_which_stays_as_history() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            assert_eq!(
                put(s, new_fact("60 s", 2 * DAY, 0.8)),
                FactOutcome::Superseded {
                    id: 2,
                    closed: vec![1]
                }
            );
            assert_eq!(
                row(s, 1),
                ("30 s".into(), 0.8, Some(2 * DAY), Some(NOW), Some(2))
            );
            assert_eq!(row(s, 2), ("60 s".into(), 0.8, None, None, None));
            assert_eq!(
                put(s, new_fact("60 s", 2 * DAY, 0.8)),
                FactOutcome::Duplicate(2)
            );
            assert_eq!(
                put(s, new_fact("30 s", DAY, 0.8)),
                FactOutcome::Duplicate(1)
            );
            assert_eq!(s.tables().facts.len(), 2);
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn subject_and_predicate_match_in_any_case() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            let f = NewFact {
                subject: "Cache".into(),
                predicate: "TTL".into(),
                ..new_fact("60 s", 2 * DAY, 0.8)
            };
            let out = put(s, f);
            assert!(matches!(out, FactOutcome::Superseded { .. }), "{out:?}");
            // Another project's fact of the same subject is another key.
            let elsewhere = NewFact {
                project: "blog".into(),
                ..new_fact("90 s", 3 * DAY, 0.8)
            };
            assert_eq!(put(s, elsewhere), FactOutcome::New(3));
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn an_older_fact_arriving_late_is_stored_as_history() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            put(s, new_fact("60 s", 5 * DAY, 0.8));
            assert_eq!(
                put(s, new_fact("45 s", 3 * DAY, 0.8)),
                FactOutcome::Historical(3)
            );
            assert_eq!(
                row(s, 3),
                ("45 s".into(), 0.8, Some(5 * DAY), Some(NOW), Some(2))
            );
            assert_eq!(row(s, 1).2, Some(3 * DAY));
            assert_eq!(row(s, 1).4, Some(3));
            assert_eq!(row(s, 2), ("60 s".into(), 0.8, None, None, None));
            assert_eq!(
                put(s, new_fact("45 s", 3 * DAY, 0.8)),
                FactOutcome::Duplicate(3)
            );
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_fact_older_than_all_history_ends_where_the_next_one_starts() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            put(s, new_fact("60 s", 5 * DAY, 0.8));
            assert_eq!(put(s, new_fact("15 s", 0, 0.8)), FactOutcome::Historical(3));
            assert_eq!(row(s, 3).2, Some(DAY));
            assert_eq!(row(s, 3).4, Some(1));
            assert_eq!(row(s, 1).2, Some(5 * DAY), "#1 keeps its own end");
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn two_facts_with_one_start_both_lose_confidence_and_wait_for_review() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            assert_eq!(
                put(s, new_fact("60 s", DAY, 0.7)),
                FactOutcome::Tied { id: 2, review: 1 }
            );
            assert_eq!(row(s, 1), ("30 s".into(), 0.7, None, None, None));
            assert_eq!(row(s, 2), ("60 s".into(), 0.6, None, None, None));
            let r = &s.tables().reviews[0];
            assert_eq!(
                (r.1.as_str(), r.2, r.3, r.4.as_str(), r.6),
                ("shop", 1, 2, "open", NOW)
            );
            assert_eq!(
                put(s, new_fact("60 s", DAY, 0.7)),
                FactOutcome::Duplicate(2)
            );
            assert_eq!(row(s, 2).1, 0.6);
            assert_eq!(s.tables().reviews.len(), 1);
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_tie_loses_no_more_than_its_confidence() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.05));
            put(s, new_fact("60 s", DAY, 0.0));
            assert_eq!(row(s, 1).1, 0.0);
            assert_eq!(row(s, 2).1, 0.0);
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_fact_is_compared_as_stored_after_redaction() {
        same_on_both(|s| {
            let key = format!("ghp_{}", "a".repeat(36));
            let with_key = |k: &str| new_fact(&format!("signed with {k}"), DAY, 0.8);
            assert_eq!(put(s, with_key(&key)), FactOutcome::New(1));
            let stored = row(s, 1).0;
            assert!(!stored.contains(&key), "{stored}");
            assert_eq!(put(s, with_key(&key)), FactOutcome::Duplicate(1));
            let other = format!("ghp_{}", "b".repeat(36));
            assert_eq!(put(s, with_key(&other)), FactOutcome::Duplicate(1));
            assert_eq!(s.tables().facts.len(), 1);
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_dismissed_fact_is_not_compared() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            assert!(
                s.set_dismissed(ItemType::Fact, 1, true, &entry(), NOW)
                    .unwrap()
            );
            assert_eq!(put(s, new_fact("60 s", DAY, 0.8)), FactOutcome::New(2));
            assert_eq!(
                put(s, new_fact("30 s", DAY, 0.8)),
                FactOutcome::Tied { id: 3, review: 1 }
            );
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn accepting_keeps_one_fact_and_closes_the_other() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            put(s, new_fact("60 s", DAY, 0.8));
            let unrelated = NewFact {
                predicate: "backend".into(),
                ..new_fact("redis", DAY, 0.8)
            };
            assert_eq!(put(s, unrelated), FactOutcome::New(3));
            assert_eq!(s.accept_fact(3, &entry(), NOW + 1).unwrap(), None);
            assert_eq!(s.accept_fact(99, &entry(), NOW + 1).unwrap(), None);
            assert!(s.tables().audit.is_empty());
            let out = s.accept_fact(2, &entry(), NOW + 5).unwrap().unwrap();
            assert_eq!(
                out,
                Accepted {
                    kept: 2,
                    closed: vec![1],
                    reviews: vec![1]
                }
            );
            assert_eq!(row(s, 2), ("60 s".into(), 0.8, None, None, None));
            assert_eq!(
                row(s, 1),
                ("30 s".into(), 0.7, Some(DAY), Some(NOW + 5), Some(2))
            );
            let r = &s.tables().reviews[0];
            assert_eq!(
                (r.4.as_str(), r.5, r.7),
                ("resolved", Some(2), Some(NOW + 5))
            );
            let a = &s.tables().audit[0];
            assert_eq!(
                (a.2.as_str(), a.3.as_str(), a.4.as_str(), a.6.as_deref()),
                ("review_accept", "fact", "2", Some("cli"))
            );
            assert_eq!(s.accept_fact(2, &entry(), NOW + 6).unwrap(), None);
            assert_eq!(
                put(s, new_fact("30 s", DAY, 0.8)),
                FactOutcome::Duplicate(1)
            );
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn rejecting_dismisses_one_fact_and_restores_the_other() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            put(s, new_fact("60 s", DAY, 0.8));
            let why = redacted(AuditEntry {
                actor: "mcp".into(),
                reason: Some("stale".into()),
            });
            let out = s.reject_fact(1, &why, NOW + 5).unwrap().unwrap();
            assert_eq!(
                out,
                Rejected {
                    dismissed: 1,
                    kept: vec![2],
                    reviews: vec![1]
                }
            );
            assert_eq!(row(s, 2), ("60 s".into(), 0.8, None, None, None));
            assert!(s.tables().facts[0].dismissed);
            assert_eq!(s.tables().reviews[0].5, Some(2));
            assert_eq!(s.reject_fact(1, &entry(), NOW + 6).unwrap(), None);
            assert_eq!(s.tables().audit.len(), 1);
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn keeping_one_of_three_tied_facts_settles_every_review_among_them() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.9));
            put(s, new_fact("60 s", DAY, 0.9));
            assert_eq!(
                put(s, new_fact("90 s", DAY, 0.9)),
                FactOutcome::Tied { id: 3, review: 2 }
            );
            assert_eq!(s.tables().reviews.len(), 3);
            assert_eq!(row(s, 3).1, 0.7, "one step per fact it disagrees with");
            let out = s.accept_fact(3, &entry(), NOW + 5).unwrap().unwrap();
            assert_eq!(out.closed, vec![1, 2]);
            assert_eq!(out.reviews, vec![2, 3, 1]);
            assert_eq!(row(s, 3).1, 0.9);
            assert!(s.tables().reviews.iter().all(|r| r.4 == "resolved"));
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn rejecting_one_of_three_tied_facts_leaves_the_others_in_review() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.9));
            put(s, new_fact("60 s", DAY, 0.9));
            put(s, new_fact("90 s", DAY, 0.9));
            let out = s.reject_fact(3, &entry(), NOW + 5).unwrap().unwrap();
            let open = s.open_fact_reviews(None).unwrap();
            (out, open)
        });
    }

    /// Facts of two projects and subjects, some closed, one tied, one dismissed, one from a
    /// pinned memory: what each read answers.
    fn a_history(s: &mut dyn Engine) {
        let pinned = s.seed_memory("shop", Kind::Note, "pinned", "a pinned note", true, DAY);
        let plain = s.seed_memory("shop", Kind::Note, "plain", "a note", false, DAY);
        let facts = [
            (
                "shop",
                "Cache",
                "ttl",
                "30 s",
                DAY,
                0.8,
                "rules",
                Some(plain),
            ),
            (
                "shop",
                "cache",
                "TTL",
                "60 s",
                3 * DAY,
                0.8,
                "rules",
                Some(plain),
            ),
            (
                "shop",
                "cache",
                "backend",
                "Redis",
                2 * DAY,
                0.5,
                "rules",
                Some(pinned),
            ),
            (
                "shop",
                "billing",
                "uses",
                "stripe",
                2 * DAY,
                0.5,
                "rules",
                None,
            ),
            (
                "shop",
                "billing",
                "currency",
                "EUR",
                2 * DAY,
                0.5,
                "openai",
                None,
            ),
            (
                "shop",
                "deploys",
                "through",
                "staging cache",
                4 * DAY,
                0.7,
                "rules",
                None,
            ),
            (
                "shop",
                "deploys",
                "through",
                "canary",
                4 * DAY,
                0.9,
                "rules",
                None,
            ),
            (
                "shop",
                "queue",
                "depth",
                "10",
                5 * DAY,
                0.9,
                "rules",
                Some(plain),
            ),
            ("blog", "cache", "ttl", "5 min", DAY, 0.9, "rules", None),
            ("blog", "theme", "is", "dark", DAY, 0.8, "rules", None),
            ("blog", "fonts", "are", "serif", DAY, 0.8, "rules", None),
        ];
        for (project, subject, predicate, object, from, confidence, source, memory) in facts {
            let f = NewFact {
                project: project.into(),
                subject: subject.into(),
                predicate: predicate.into(),
                object: object.into(),
                confidence,
                source: source.into(),
                memory_id: memory,
                valid_from: from,
                job_id: None,
            };
            put(s, f);
        }
        let queue = s.list_facts(Some("shop"), Some("queue"), false, 1).unwrap();
        s.set_dismissed(ItemType::Fact, queue[0].0.id, true, &entry(), NOW)
            .unwrap();
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn each_read_answers_as_sqlite_does() {
        same_on_both(|s| {
            a_history(s);
            let words = |w: &[&str]| w.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
            let trusted = [s.trusted_facts("shop", 10), s.trusted_facts("shop", 2)];
            let mentioning = [
                s.facts_mentioning(&words(&["CACHE"]), None, 10),
                s.facts_mentioning(&words(&["cache"]), Some("shop"), 10),
                s.facts_mentioning(&words(&["redis", "canary"]), None, 10),
                s.facts_mentioning(&words(&["ser"]), None, 1),
                s.facts_mentioning(&words(&["nothing"]), None, 10),
                s.facts_mentioning(&[], None, 10),
            ];
            let of_memory = [
                s.facts_of_memory(1),
                s.facts_of_memory(2),
                s.facts_of_memory(99),
            ];
            let history =
                |subject: &str, project: Option<&str>, predicate: Option<&str>| HistoryQuery {
                    subject: subject.into(),
                    project: project.map(Into::into),
                    predicate: predicate.map(Into::into),
                    as_of: None,
                    include_superseded: false,
                };
            let histories = [
                history("CACHE", None, None),
                history("cache", Some("shop"), Some("Ttl")),
                HistoryQuery {
                    include_superseded: true,
                    ..history("cache", Some("shop"), None)
                },
                HistoryQuery {
                    as_of: Some(2 * DAY),
                    ..history("cache", None, Some("ttl"))
                },
                HistoryQuery {
                    as_of: Some(3 * DAY),
                    include_superseded: true,
                    ..history("cache", None, Some("ttl"))
                },
                history("queue", None, None),
            ]
            .map(|q| s.fact_history(&q));
            let reviews = [s.open_fact_reviews(None), s.open_fact_reviews(Some("blog"))];
            let lists = [
                s.list_facts(None, None, false, 100),
                s.list_facts(None, None, true, 100),
                s.list_facts(Some("shop"), Some("CAC"), true, 100),
                s.list_facts(Some("blog"), None, false, 1),
                s.list_facts(None, Some("nothing"), true, 100),
            ];
            let answers = format!(
                "{trusted:?}\n{mentioning:?}\n{of_memory:?}\n{histories:?}\n{reviews:?}\n{lists:?}"
            );
            // Spot checks that the scenario reaches every filter.
            let trusted = trusted[0].as_ref().unwrap();
            assert!(trusted.iter().any(|f| f.object == "Redis"), "pinned memory");
            assert!(trusted.iter().any(|f| f.object == "EUR"), "a provider's");
            assert!(!trusted.iter().any(|f| f.object == "stripe"), "{trusted:?}");
            assert!(!trusted.iter().any(|f| f.object == "10"), "dismissed");
            assert_eq!(reviews[0].as_ref().unwrap().len(), 1);
            answers
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn subjects_are_listed_and_matched_by_words_as_sqlite_does() {
        same_on_both(|s| {
            a_history(s);
            // Subjects that share a word in several spellings, and one fact closed by another.
            let subjects = [
                ("postgres database", "15", DAY),
                ("the Postgres", "replica", DAY),
                ("PostgreSQL", "16", 2 * DAY),
                ("postgres", "main", DAY),
                ("Postgres", "primary", 3 * DAY),
                ("postgres pool", "20", DAY),
            ];
            for (subject, object, from) in subjects {
                let f = NewFact {
                    subject: subject.into(),
                    predicate: "is".into(),
                    ..new_fact(object, from, 0.8)
                };
                put(s, f);
            }
            let by_words = |words: &str, project: Option<&str>, superseded: bool| {
                s.fact_history_by_words(&HistoryQuery {
                    subject: words.into(),
                    project: project.map(Into::into),
                    predicate: None,
                    as_of: None,
                    include_superseded: superseded,
                })
            };
            let matched = [
                by_words("postgres", None, false),
                by_words("POSTGRES", Some("shop"), true),
                by_words("postgres  database", None, false),
                by_words("pool postgres", None, false),
                by_words("cache", Some("blog"), false),
                by_words("nothing", None, true),
                by_words("   ", None, true),
            ];
            let listed = [
                s.fact_subjects(None, false, 100),
                s.fact_subjects(None, true, 100),
                s.fact_subjects(Some("blog"), false, 100),
                s.fact_subjects(None, false, 2),
                s.fact_subjects(Some("nowhere"), true, 100),
            ];
            // Spot checks that the scenario reaches what it is for.
            let words = matched[0].as_ref().unwrap();
            assert!(
                words.iter().any(|f| f.subject == "the Postgres"),
                "{words:?}"
            );
            assert!(words.iter().any(|f| f.subject == "PostgreSQL"), "{words:?}");
            assert!(
                !words.iter().any(|f| f.object == "main"),
                "closed by primary"
            );
            let all = listed[0].as_ref().unwrap();
            assert_eq!(all.subjects[0].subject, "cache", "{all:?}");
            assert!(
                all.subjects
                    .iter()
                    .any(|c| c.subject == "Postgres" && c.facts == 1),
                "{all:?}"
            );
            format!("{matched:?}\n{listed:?}")
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn facts_with_equal_confidence_and_start_come_in_the_same_order() {
        same_on_both(|s| {
            for subject in ["a", "b", "c", "d"] {
                let f = NewFact {
                    subject: subject.into(),
                    ..new_fact(subject, DAY, 0.8)
                };
                put(s, f);
            }
            let terms = vec![
                "a".to_owned(),
                "b".to_owned(),
                "c".to_owned(),
                "d".to_owned(),
            ];
            (
                s.trusted_facts("shop", 10).unwrap(),
                s.facts_mentioning(&terms, None, 10).unwrap(),
                s.list_facts(None, None, true, 10).unwrap(),
            )
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_tied_fact_dismissed_by_hand_still_shows_in_its_review() {
        same_on_both(|s| {
            put(s, new_fact("30 s", DAY, 0.8));
            put(s, new_fact("60 s", DAY, 0.8));
            s.set_dismissed(ItemType::Fact, 2, true, &entry(), NOW)
                .unwrap();
            let reviews = s.open_fact_reviews(Some("shop")).unwrap();
            assert_eq!(reviews[0].facts.len(), 2);
            reviews
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn writers_of_one_project_are_settled_one_at_a_time() {
        // Two connections store the same fact at once: one stores it, the other finds it.
        let url = super::super::testing::fresh_database();
        let first = PgStore::open(&url).unwrap();
        let mut second = PgStore::open(&url).unwrap();
        let f = redacted(new_fact("30 s", DAY, 0.8));
        let (go, started) = std::sync::mpsc::channel();
        let held = std::thread::scope(|scope| {
            let (second, f) = (&mut second, &f);
            let waiter = scope.spawn(move || {
                started.recv().unwrap();
                second.insert_fact(f, NOW).unwrap()
            });
            let out = first
                .write(|tx| {
                    let out = insert_fact_tx(tx, f, NOW)?;
                    go.send(()).unwrap();
                    // The other writer waits on the project's lock while this one is open.
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    Ok(out)
                })
                .unwrap();
            (out, waiter.join().unwrap())
        });
        assert_eq!(held, (FactOutcome::New(1), FactOutcome::Duplicate(1)));
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn non_ascii_letters_match_in_any_case_on_postgresql_alone() {
        // SQLite's NOCASE folds ASCII letters only; lower() folds every letter the database's
        // locale knows, so "École" and "ÉCOLE" are one subject here.
        let mut pg = super::super::testing::fresh();
        let f = |subject: &str, object: &str, from: i64| NewFact {
            subject: subject.into(),
            ..new_fact(object, from, 0.8)
        };
        assert_eq!(
            Facts::insert_fact(&mut pg, &redacted(f("École", "a", DAY)), NOW).unwrap(),
            FactOutcome::New(1)
        );
        let out = Facts::insert_fact(&mut pg, &redacted(f("ÉCOLE", "b", 2 * DAY)), NOW).unwrap();
        assert!(matches!(out, FactOutcome::Superseded { .. }), "{out:?}");
    }
}
