//! Reading facts: the ones the session-start block trusts, the ones a search matches, those
//! drawn from one memory, the history of one subject, the pairs waiting for review, and the
//! curated list. Every query reads its rows through [`fact_from_row`], so a fact has one shape
//! however it is asked for.

use super::sql_numbers::sql_int;
use super::{Store, StoreError};
use crate::model::{Fact, Review};
use rusqlite::params;

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
        let validity = if q.as_of.is_some() {
            "f.valid_from <= ?4 AND (f.valid_to IS NULL OR f.valid_to > ?4)"
        } else if q.include_superseded {
            "?4 IS NULL"
        } else {
            "?4 IS NULL AND f.valid_to IS NULL"
        };
        self.facts_where(
            &format!(
                "SELECT {FACT_COLUMNS} FROM facts f WHERE f.subject = ?1 COLLATE NOCASE AND f.dismissed = 0
                   AND (?2 IS NULL OR f.project = ?2) AND (?3 IS NULL OR f.predicate = ?3 COLLATE NOCASE)
                   AND {validity}
                 ORDER BY f.valid_from, f.id"
            ),
            params![q.subject, q.project, q.predicate, q.as_of],
        )
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
