//! Reading facts: the ones the session-start block trusts, the ones a search matches, those
//! drawn from one memory, the history of one subject (or of every subject holding some words),
//! the subjects with their counts, the pairs waiting for review, and the curated list. Every
//! query reads its rows through [`fact_from_row`], so a fact has one shape however it is asked
//! for.

use super::sql_numbers::sql_int;
use super::{Store, StoreError};
use crate::model::{Fact, Review};
use rusqlite::params;
use serde::Serialize;

/// The columns [`fact_from_row`] reads, in its order, from `facts f`.
const FACT_COLUMNS: &str = "f.id, f.project, f.subject, f.predicate, f.object, f.confidence, f.source, \
                            f.memory_id, f.valid_from, f.valid_to, f.created_at, f.superseded_at";

/// Map a row selected with [`FACT_COLUMNS`] first.
fn fact_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Fact> {
    Ok(Fact {
        id: r.get(0)?,
        project: r.get(1)?,
        subject: r.get(2)?,
        predicate: r.get(3)?,
        object: r.get(4)?,
        confidence: r.get(5)?,
        source: r.get(6)?,
        memory_id: r.get(7)?,
        valid_from: r.get(8)?,
        valid_to: r.get(9)?,
        recorded_at: r.get(10)?,
        superseded_at: r.get(11)?,
    })
}

/// What [`Store::fact_history`] asks for.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub subject: String,
    pub project: Option<String>,
    pub predicate: Option<String>,
    /// Facts valid at this instant (takes priority over `include_superseded`).
    pub as_of: Option<i64>,
    pub include_superseded: bool,
}

/// A subject and how many facts it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubjectCount {
    /// As stored; of the spellings that differ only in case, the first byte by byte.
    pub subject: String,
    pub facts: i64,
}

/// The subjects [`Store::fact_subjects`] lists, and how many there are in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subjects {
    pub subjects: Vec<SubjectCount>,
    pub total: i64,
}

/// The words of a subject a caller typed, as [`Store::fact_history_by_words`] matches them:
/// split on white space, ASCII letters lowered (SQLite's `lower` folds no others).
pub fn subject_words(subject: &str) -> Vec<String> {
    subject
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Which versions of a subject's facts a history holds, as a condition on `?3` (the `as_of`,
/// always bound, so the statement has the same parameters either way).
fn validity(q: &HistoryQuery) -> &'static str {
    if q.as_of.is_some() {
        "f.valid_from <= ?3 AND (f.valid_to IS NULL OR f.valid_to > ?3)"
    } else if q.include_superseded {
        "?3 IS NULL"
    } else {
        "?3 IS NULL AND f.valid_to IS NULL"
    }
}

impl Store {
    fn facts_where(&self, sql: &str, args: impl rusqlite::Params) -> Result<Vec<Fact>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(args, fact_from_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The facts the session-start block lists in auto mode: current, not dismissed, and either
    /// extracted by a model provider, held with confidence 0.6 or more, or tied to a pinned
    /// memory. Most confident first.
    pub fn trusted_facts(&self, project: &str, limit: usize) -> Result<Vec<Fact>, StoreError> {
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f LEFT JOIN memories m ON m.id = f.memory_id
                 WHERE f.project = ?1 AND f.valid_to IS NULL AND f.dismissed = 0
                   AND (f.source != 'rules' OR f.confidence >= 0.6 OR m.pinned = 1)
                 ORDER BY f.confidence DESC, f.valid_from DESC LIMIT ?2"
            ),
            params![project, sql_int(limit)],
        )
    }

    /// Current facts, not dismissed, whose subject or object contains one of `terms`
    /// (ASCII-case-blind), in `project` or every project, most confident first.
    pub fn facts_mentioning(
        &self,
        terms: &[String],
        project: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Fact>, StoreError> {
        if terms.is_empty() {
            return Ok(vec![]);
        }
        // `instr` on lowered text, not `LIKE '%term%'`: the same ASCII-case-blind substring
        // test, but a bound LIKE pattern makes SQLite prepare the statement again for every
        // new value.
        let likes: Vec<String> = terms.iter().map(|t| t.to_ascii_lowercase()).collect();
        let cond = (0..likes.len())
            .map(|i| {
                format!(
                    "(instr(lower(f.subject), ?{n}) > 0 OR instr(lower(f.object), ?{n}) > 0)",
                    n = i + 3
                )
            })
            .collect::<Vec<_>>()
            .join(" OR ");
        let sql = format!(
            "SELECT {FACT_COLUMNS} FROM facts f WHERE f.valid_to IS NULL AND f.dismissed = 0
               AND (?1 IS NULL OR f.project = ?1) AND ({cond})
             ORDER BY f.confidence DESC LIMIT ?2"
        );
        let mut args: Vec<rusqlite::types::Value> = vec![
            project
                .map(|p| p.to_owned().into())
                .unwrap_or(rusqlite::types::Value::Null),
            sql_int(limit).into(),
        ];
        args.extend(likes.into_iter().map(Into::into));
        self.facts_where(&sql, rusqlite::params_from_iter(args))
    }

    /// One fact by id, dismissed or not.
    pub fn fact_by_id(&self, id: i64) -> Result<Option<Fact>, StoreError> {
        Ok(self
            .facts_where(
                &format!("SELECT {FACT_COLUMNS} FROM facts f WHERE f.id = ?1"),
                params![id],
            )?
            .pop())
    }

    /// The facts drawn from memory `memory_id`, not dismissed, oldest first.
    pub fn facts_of_memory(&self, memory_id: i64) -> Result<Vec<Fact>, StoreError> {
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f WHERE f.memory_id = ?1 AND f.dismissed = 0
                 ORDER BY f.valid_from"
            ),
            params![memory_id],
        )
    }

    /// How the facts about one subject changed: current facts only by default, every version
    /// with `include_superseded`, or those valid at `as_of`. Oldest first.
    pub fn fact_history(&self, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError> {
        self.history_where(
            q,
            "f.subject = ?4 COLLATE NOCASE",
            "f.valid_from, f.id",
            vec![q.subject.clone().into()],
        )
    }

    /// [`Store::fact_history`] of every subject that holds each word of `q.subject`
    /// (ASCII-case-blind, a word may be part of a longer one: "postgres" finds "the postgres"
    /// and "postgresql"), subject by subject, each oldest first. No words, no facts.
    pub fn fact_history_by_words(&self, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError> {
        let words = subject_words(&q.subject);
        if words.is_empty() {
            return Ok(vec![]);
        }
        // `instr` on lowered text, as `facts_mentioning` does and for its reason.
        let each = (0..words.len())
            .map(|i| format!("instr(lower(f.subject), ?{}) > 0", i + 4))
            .collect::<Vec<_>>()
            .join(" AND ");
        let words = words.into_iter().map(Into::into).collect();
        self.history_where(q, &each, "lower(f.subject), f.valid_from, f.id", words)
    }

    /// The facts of `q` (all but its subject) whose subject meets `subject`, a condition whose
    /// values `subject_args` binds from `?4` on, in `order`.
    fn history_where(
        &self,
        q: &HistoryQuery,
        subject: &str,
        order: &str,
        subject_args: Vec<rusqlite::types::Value>,
    ) -> Result<Vec<Fact>, StoreError> {
        let sql = format!(
            "SELECT {FACT_COLUMNS} FROM facts f WHERE f.dismissed = 0 AND ({subject})
               AND (?1 IS NULL OR f.project = ?1) AND (?2 IS NULL OR f.predicate = ?2 COLLATE NOCASE)
               AND {validity}
             ORDER BY {order}",
            validity = validity(q)
        );
        let mut args: Vec<rusqlite::types::Value> = vec![
            q.project.clone().into(),
            q.predicate.clone().into(),
            q.as_of.into(),
        ];
        args.extend(subject_args);
        self.facts_where(&sql, rusqlite::params_from_iter(args))
    }

    /// The subjects of the facts `facts SUBJECT` would show (current ones unless
    /// `include_superseded`; never dismissed ones), of one project or every one, subjects that
    /// differ only in ASCII case counted as one: the `limit` with the most facts, then by name.
    pub fn fact_subjects(
        &self,
        project: Option<&str>,
        include_superseded: bool,
        limit: usize,
    ) -> Result<Subjects, StoreError> {
        let current = if include_superseded {
            "1"
        } else {
            "f.valid_to IS NULL"
        };
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT min(f.subject), count(*), count(*) OVER () FROM facts f
                 WHERE f.dismissed = 0 AND (?1 IS NULL OR f.project = ?1) AND {current}
                 GROUP BY lower(f.subject)
                 ORDER BY count(*) DESC, lower(f.subject) LIMIT ?2"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![project, sql_int(limit)], |r| {
                Ok((
                    SubjectCount {
                        subject: r.get(0)?,
                        facts: r.get(1)?,
                    },
                    r.get::<_, i64>(2)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let rows: Vec<(SubjectCount, i64)> =
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?;
        Ok(Subjects {
            total: rows.first().map_or(0, |r| r.1),
            subjects: rows.into_iter().map(|r| r.0).collect(),
        })
    }

    /// The open reviews, in `project` or every project, oldest first.
    pub fn open_fact_reviews(&self, project: Option<&str>) -> Result<Vec<Review>, StoreError> {
        let heads: Vec<(i64, String, i64, i64, i64)> = {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT id, project, created_at, fact_a, fact_b FROM fact_reviews
                     WHERE state = 'open' AND (?1 IS NULL OR project = ?1) ORDER BY created_at, id",
                )
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map(params![project], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .map_err(|e| self.err(e))?;
            rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?
        };
        heads
            .into_iter()
            .map(|(id, project, created_at, a, b)| {
                // By id, dismissed or not: a review shows both sides until the user settles it.
                let facts = self.facts_where(
                    &format!(
                        "SELECT {FACT_COLUMNS} FROM facts f WHERE f.id IN (?1, ?2) ORDER BY f.id"
                    ),
                    params![a, b],
                )?;
                Ok(Review {
                    id,
                    project,
                    created_at,
                    facts,
                })
            })
            .collect()
    }

    /// Up to `limit` facts, newest first (by when they started to hold), each with its
    /// dismissed flag: of one project or every one, whose subject contains `subject`
    /// (case-insensitive) when given, and only the current ones (not closed, not dismissed)
    /// unless `include_superseded`.
    pub fn list_facts(
        &self,
        project: Option<&str>,
        subject: Option<&str>,
        include_superseded: bool,
        limit: usize,
    ) -> Result<Vec<(Fact, bool)>, StoreError> {
        let current = if include_superseded {
            "1"
        } else {
            "f.valid_to IS NULL AND f.dismissed = 0"
        };
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {FACT_COLUMNS}, f.dismissed FROM facts f
                 WHERE (?1 IS NULL OR f.project = ?1)
                   AND (?2 IS NULL OR instr(lower(f.subject), lower(?2)) > 0)
                   AND {current}
                 ORDER BY f.valid_from DESC, f.id DESC LIMIT ?3"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![project, subject, sql_int(limit)], |r| {
                Ok((fact_from_row(r)?, r.get(12)?))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;

    /// A store with facts about several spellings of postgres (one closed, one dismissed) and
    /// about a cache in another project.
    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hub.db");
        let s = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(
                "INSERT INTO facts (id, project, subject, predicate, object, confidence, valid_from, valid_to, dismissed, created_at) VALUES
                   (1, 'shop', 'postgres database', 'version', '15', 0.8, 100, 200, 0, 100),
                   (2, 'shop', 'postgres database', 'version', '16', 0.8, 200, NULL, 0, 200),
                   (3, 'shop', 'the Postgres', 'role', 'replica', 0.8, 150, NULL, 0, 150),
                   (4, 'blog', 'PostgreSQL', 'port', '5432', 0.8, 120, NULL, 0, 120),
                   (5, 'shop', 'Postgres', 'pool', '20', 0.8, 130, NULL, 1, 130),
                   (6, 'blog', 'cache', 'ttl', '5 min', 0.8, 110, NULL, 0, 110),
                   (7, 'shop', 'Cache', 'ttl', '30 s', 0.8, 140, NULL, 0, 140);",
            )
            .unwrap();
        (dir, s)
    }

    fn by_words(s: &Store, words: &str, project: Option<&str>, superseded: bool) -> Vec<i64> {
        let q = HistoryQuery {
            subject: words.into(),
            project: project.map(Into::into),
            include_superseded: superseded,
            ..HistoryQuery::default()
        };
        let found = s.fact_history_by_words(&q).unwrap();
        found.iter().map(|f| f.id).collect()
    }

    #[test]
    fn a_subject_is_found_by_each_of_its_words_in_any_case() {
        let (_dir, s) = store();
        // Subject by subject (lowered), each oldest first; the dismissed fact never shows.
        assert_eq!(by_words(&s, "postgres", None, false), vec![2, 4, 3]);
        assert_eq!(by_words(&s, "POSTGRES", Some("shop"), true), vec![1, 2, 3]);
        assert_eq!(by_words(&s, "database  postgres", None, false), vec![2]);
        assert_eq!(
            by_words(&s, "postgres mysql", None, false),
            Vec::<i64>::new()
        );
        assert_eq!(by_words(&s, " \t", None, true), Vec::<i64>::new());
        // Whole-subject history is unchanged: one subject, any case.
        let q = HistoryQuery {
            subject: "POSTGRES DATABASE".into(),
            include_superseded: true,
            ..HistoryQuery::default()
        };
        let ids: Vec<i64> = s.fact_history(&q).unwrap().iter().map(|f| f.id).collect();
        assert_eq!(ids, vec![1, 2]);
    }

    #[test]
    fn subjects_are_counted_once_whatever_their_case_most_facts_then_by_name() {
        let (_dir, s) = store();
        let listed = |project, superseded, limit| {
            let out = s.fact_subjects(project, superseded, limit).unwrap();
            let names: Vec<(String, i64)> = out
                .subjects
                .into_iter()
                .map(|c| (c.subject, c.facts))
                .collect();
            (names, out.total)
        };
        let named = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
            pairs.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect()
        };
        assert_eq!(
            listed(None, false, 10),
            (
                named(&[
                    ("Cache", 2),
                    ("postgres database", 1),
                    ("PostgreSQL", 1),
                    ("the Postgres", 1)
                ]),
                4
            )
        );
        assert_eq!(
            listed(Some("shop"), true, 1),
            (named(&[("postgres database", 2)]), 3)
        );
        assert_eq!(listed(Some("nowhere"), true, 10), (vec![], 0));
    }
}
