//! Facts as recall sees them: the ones worth showing at session start, the ones a search
//! matches, the history of one subject, and the pairs that wait for the user's review.
//!
//! Facts come from compressing finished sessions; a newer fact with the same subject and
//! predicate closes the older one (`valid_to`, and `superseded_at` for when the store learned
//! it), which stays as history. Two that start at the same moment wait in a review instead
//! (see `store::facts`).

use crate::store::{Store, StoreError};
use rusqlite::params;

/// One fact.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Fact {
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
    /// When the store learned it (epoch milliseconds).
    pub recorded_at: i64,
    /// When the store replaced it with another fact; `None` while nothing has.
    pub superseded_at: Option<i64>,
}

impl Fact {
    /// `subject predicate object (confidence 0.80, since 2026-10-29)`, dates in the clock's
    /// time zone; a closed fact adds `, until DATE`, and `, replaced DATE` when the store
    /// recorded replacing it. Raw: the text or block it goes into neutralises it.
    pub fn line(&self, clock: &crate::time::Clock) -> String {
        let mut s = format!(
            "{} {} {} (confidence {:.2}, since {}",
            self.subject,
            self.predicate,
            self.object,
            self.confidence,
            clock.date(self.valid_from)
        );
        if let Some(to) = self.valid_to {
            s.push_str(&format!(", until {}", clock.date(to)));
        }
        if let Some(at) = self.superseded_at {
            s.push_str(&format!(", replaced {}", clock.date(at)));
        }
        s.push(')');
        s
    }
}

const COLUMNS: &str = "f.id, f.project, f.subject, f.predicate, f.object, f.confidence, f.source, f.memory_id, f.valid_from, f.valid_to, f.created_at, f.superseded_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Fact> {
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

fn query(store: &Store, sql: &str, args: impl rusqlite::Params) -> Result<Vec<Fact>, StoreError> {
    let mut stmt = store.conn().prepare_cached(sql).map_err(|e| store.err(e))?;
    let rows = stmt.query_map(args, from_row).map_err(|e| store.err(e))?;
    rows.collect::<Result<_, _>>().map_err(|e| store.err(e))
}

/// The facts the session-start block lists in auto mode: current, not dismissed, and either
/// extracted by a model provider, held with confidence 0.6 or more, or tied to a pinned memory.
pub fn active_for_context(
    store: &Store,
    project: &str,
    limit: usize,
) -> Result<Vec<Fact>, StoreError> {
    query(
        store,
        &format!(
            "SELECT {COLUMNS} FROM facts f LEFT JOIN memories m ON m.id = f.memory_id
             WHERE f.project = ?1 AND f.valid_to IS NULL AND f.dismissed = 0
               AND (f.source != 'rules' OR f.confidence >= 0.6 OR m.pinned = 1)
             ORDER BY f.confidence DESC, f.valid_from DESC LIMIT ?2"
        ),
        params![project, limit as i64],
    )
}

/// Current facts whose subject or object contains one of `terms`, best first.
pub fn matching(
    store: &Store,
    terms: &[String],
    project: Option<&str>,
    limit: usize,
) -> Result<Vec<Fact>, StoreError> {
    if terms.is_empty() {
        return Ok(vec![]);
    }
    // `instr` on lowered text, not `LIKE '%term%'`: the same ASCII-case-blind substring test,
    // but a bound LIKE pattern makes SQLite prepare the statement again for every new value.
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
        "SELECT {COLUMNS} FROM facts f WHERE f.valid_to IS NULL AND f.dismissed = 0
           AND (?1 IS NULL OR f.project = ?1) AND ({cond})
         ORDER BY f.confidence DESC LIMIT ?2"
    );
    let mut args: Vec<rusqlite::types::Value> = vec![
        project
            .map(|p| p.to_owned().into())
            .unwrap_or(rusqlite::types::Value::Null),
        (limit as i64).into(),
    ];
    args.extend(likes.into_iter().map(Into::into));
    query(store, &sql, rusqlite::params_from_iter(args))
}

/// Facts tied to a memory (for observations).
pub fn for_memory(store: &Store, memory_id: i64) -> Result<Vec<Fact>, StoreError> {
    query(
        store,
        &format!(
            "SELECT {COLUMNS} FROM facts f WHERE f.memory_id = ?1 AND f.dismissed = 0 ORDER BY f.valid_from"
        ),
        params![memory_id],
    )
}

/// What `fact_history` asks for.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub subject: String,
    pub project: Option<String>,
    pub predicate: Option<String>,
    /// Facts valid at this instant (takes priority over `include_superseded`).
    pub as_of: Option<i64>,
    pub include_superseded: bool,
}

/// How the facts about one subject changed: current facts only by default, every version with
/// `include_superseded`, or those valid at `as_of`. Oldest first.
pub fn history(store: &Store, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError> {
    let validity = if q.as_of.is_some() {
        "f.valid_from <= ?4 AND (f.valid_to IS NULL OR f.valid_to > ?4)"
    } else if q.include_superseded {
        "?4 IS NULL"
    } else {
        "?4 IS NULL AND f.valid_to IS NULL"
    };
    query(
        store,
        &format!(
            "SELECT {COLUMNS} FROM facts f WHERE f.subject = ?1 COLLATE NOCASE AND f.dismissed = 0
               AND (?2 IS NULL OR f.project = ?2) AND (?3 IS NULL OR f.predicate = ?3 COLLATE NOCASE)
               AND {validity}
             ORDER BY f.valid_from, f.id"
        ),
        params![q.subject, q.project, q.predicate, q.as_of],
    )
}

/// Two facts about one subject and predicate that started at the same moment, waiting for the
/// user to keep one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Review {
    pub id: i64,
    pub project: String,
    /// When the second fact arrived (epoch milliseconds).
    pub created_at: i64,
    /// The two facts, the one stored first first.
    pub facts: Vec<Fact>,
}

/// The open reviews, in `project` or every project, oldest first.
pub fn open_reviews(store: &Store, project: Option<&str>) -> Result<Vec<Review>, StoreError> {
    let heads: Vec<(i64, String, i64, i64, i64)> = {
        let mut stmt = store
            .conn()
            .prepare_cached(
                "SELECT id, project, created_at, fact_a, fact_b FROM fact_reviews
                 WHERE state = 'open' AND (?1 IS NULL OR project = ?1) ORDER BY created_at, id",
            )
            .map_err(|e| store.err(e))?;
        let rows = stmt
            .query_map(params![project], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .map_err(|e| store.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| store.err(e))?
    };
    heads
        .into_iter()
        .map(|(id, project, created_at, a, b)| {
            // By id, dismissed or not: a review shows both sides until the user settles it.
            let facts = query(
                store,
                &format!("SELECT {COLUMNS} FROM facts f WHERE f.id IN (?1, ?2) ORDER BY f.id"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;

    #[test]
    fn history_shows_current_superseded_and_as_of() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        s.conn()
            .execute_batch(
                "INSERT INTO facts (id, project, subject, predicate, object, confidence, valid_from, valid_to, created_at) VALUES
                   (1, 'shop', 'cache', 'ttl', '30 s', 0.8, 100, 200, 100),
                   (2, 'shop', 'cache', 'ttl', '60 s', 0.8, 200, NULL, 200),
                   (3, 'billing', 'cache', 'ttl', '5 s', 0.8, 150, NULL, 150);",
            )
            .unwrap();
        let q = |include_superseded, as_of, project: Option<&str>| {
            history(
                &s,
                &HistoryQuery {
                    subject: "Cache".into(),
                    project: project.map(Into::into),
                    predicate: None,
                    as_of,
                    include_superseded,
                },
            )
            .unwrap()
            .iter()
            .map(|f| f.id)
            .collect::<Vec<_>>()
        };
        assert_eq!(q(false, None, None), vec![3, 2]);
        assert_eq!(q(true, None, Some("shop")), vec![1, 2]);
        assert_eq!(q(false, Some(150), Some("shop")), vec![1]);
        assert_eq!(
            q(true, Some(250), Some("shop")),
            vec![2],
            "as_of wins over include_superseded"
        );
    }

    #[test]
    fn open_reviews_show_both_facts_per_project_oldest_first() {
        use crate::redact::{Redacted, Redactor};
        use crate::store::facts::NewFact;
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut put = |project: &str, object: &str, now: i64| {
            let f = NewFact {
                project: project.into(),
                subject: "cache".into(),
                predicate: "ttl".into(),
                object: object.into(),
                confidence: 0.8,
                source: "rules".into(),
                memory_id: None,
                valid_from: 100,
                job_id: None,
            };
            s.insert_fact(&Redacted::new(f, &Redactor::builtin()), now)
                .unwrap()
        };
        put("shop", "30 s", 1000);
        put("billing", "5 s", 1500);
        put("billing", "10 s", 2000);
        put("shop", "60 s", 3000);
        let reviews = open_reviews(&s, None).unwrap();
        let seen: Vec<(i64, &str, Vec<&str>)> = reviews
            .iter()
            .map(|r| {
                (
                    r.created_at,
                    r.project.as_str(),
                    r.facts.iter().map(|f| f.object.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (2000, "billing", vec!["5 s", "10 s"]),
                (3000, "shop", vec!["30 s", "60 s"]),
            ]
        );
        let shop = open_reviews(&s, Some("shop")).unwrap();
        assert_eq!(shop.len(), 1);
        assert_eq!(shop[0].facts[0].recorded_at, 1000);
        assert_eq!(shop[0].facts[0].confidence, 0.7);
    }
}
