//! Search candidates and term statistics: the questions recall asks the store to find and rank
//! memories by their words.
//!
//! Recall decides what a query means and how matches rank; the store answers typed questions
//! about its index: which memories hold any of these words (in date order, or walked with each
//! row's term counts for ranking), how common a word is, which memories touch a file, the newest
//! date and the pinned memories of a scope, and whether there is anything to find at all. The FTS5 particulars (MATCH expressions and
//! column filters, `bm25()` and its weights, the `aletheia_terms` function and its row sets) stay
//! in this file, so that a second engine answers the same questions its own way.

use super::keyword_index::KeywordIndex;
use super::sql_numbers::{count, count_usize};
use super::term_counts::{self, TermCounts};
use super::{COLUMNS, Store, StoreError, from_row};
use crate::model::{Kind, Memory, MemoryType};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{CachedStatement, OptionalExtension, params_from_iter};
use std::collections::HashSet;

/// What a text search matches.
#[derive(Debug, Clone, Copy)]
pub enum TextQuery<'a> {
    /// Memories holding any of these words (lowercased) in their title or text.
    AnyWord(&'a [String]),
    /// A query in the engine's own syntax, passed through as its user wrote it (FTS5 here).
    Native(&'a str),
}

/// Which memories a search may return. Dismissed memories never are; `None` leaves a field
/// open. Times are epoch milliseconds, `until` exclusive.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    pub project: Option<&'a str>,
    pub mtype: Option<MemoryType>,
    pub kind: Option<Kind>,
    pub since: Option<i64>,
    pub until: Option<i64>,
}

impl Filter<'_> {
    /// Whether it narrows beyond the project (by type, kind or date).
    pub fn narrows(&self) -> bool {
        self.mtype.is_some() || self.kind.is_some() || self.since.is_some() || self.until.is_some()
    }

    /// The filter as SQL conditions on `m` (the memories table), each starting with ` AND `,
    /// with their arguments numbered from 1.
    fn sql(&self) -> (String, Vec<SqlValue>) {
        let mut sql = String::from(" AND m.dismissed = 0");
        let mut args: Vec<SqlValue> = Vec::new();
        let mut push = |cond: &str, v: SqlValue| {
            args.push(v);
            sql.push_str(&cond.replace('?', &format!("?{}", args.len())));
        };
        if let Some(p) = self.project {
            push(" AND m.project = ?", SqlValue::Text(p.to_owned()));
        }
        if let Some(t) = self.mtype {
            push(" AND m.type = ?", SqlValue::Text(t.as_str().into()));
        }
        if let Some(k) = self.kind {
            push(" AND m.kind = ?", SqlValue::Text(k.as_str().into()));
        }
        if let Some(s) = self.since {
            push(" AND m.created_at >= ?", SqlValue::Integer(s));
        }
        if let Some(u) = self.until {
            push(" AND m.created_at < ?", SqlValue::Integer(u));
        }
        (sql, args)
    }
}

/// Which matches a walk of the index yields, for ranking.
#[derive(Debug, Clone, Copy, Default)]
pub struct Candidates<'a> {
    /// Narrows the matches to memories whose project has this project's words: a superset of
    /// the project's own, so the caller still checks the project of each row it keeps.
    pub project: Option<&'a str>,
    /// Applied to each match before it is yielded. Worth it when the filter narrows (type, kind,
    /// dates), so that rows failing it are never scored; otherwise the caller's own checks on
    /// the few rows it reads cost less than a check on every match.
    pub filter: Option<&'a Filter<'a>>,
}

/// Date order, newest or oldest first (a tie goes to the memory stored later, or earlier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateOrder {
    NewestFirst,
    OldestFirst,
}

impl DateOrder {
    fn sql(self) -> &'static str {
        match self {
            DateOrder::OldestFirst => "m.created_at ASC, m.id ASC",
            DateOrder::NewestFirst => "m.created_at DESC, m.id DESC",
        }
    }
}

/// A file a memory touches: the path exactly, or any path ending with it.
#[derive(Debug, Clone, Copy)]
pub struct FileMatch<'a> {
    pub path: &'a str,
    pub suffix: bool,
}

/// Of the newest rows holding a term (up to the sample asked for): how many there are, and
/// the oldest one's id (0 when there are none). Fewer than the sample means every row holding
/// the term was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermSample {
    pub hits: u64,
    pub oldest: u64,
}

/// What a ranking needs to know of one memory besides its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidateRow {
    pub created_at: i64,
    pub pinned: bool,
    pub mtype: MemoryType,
    pub kind: Kind,
    pub dismissed: bool,
    pub project: String,
}

/// Reads candidate rows one id at a time, for a ranking that reads a few hundred rows per
/// search: an engine keeps what makes the next read cheap (SQLite, one prepared statement).
pub trait CandidateReader {
    /// The memory `id`, or `None` when there is none (deleted since the index was read).
    fn get(&mut self, id: i64) -> Result<Option<CandidateRow>, StoreError>;

    /// What ranking reads of the memory `id` when it can be a result (not dismissed, and in
    /// `project` when one is given), else `None`. A ranking of a common word reads most of the
    /// store's rows this way, so an engine that can check the project in place answers without
    /// copying it.
    fn eligible(&mut self, id: i64, project: Option<&str>) -> Result<Option<Eligible>, StoreError> {
        Ok(self.get(id)?.and_then(|row| row.eligible(project)))
    }
}

impl CandidateRow {
    /// What ranking weighs of the row when it can be a result: not dismissed, and in `project`
    /// when one is given.
    fn eligible(self, project: Option<&str>) -> Option<Eligible> {
        (!self.dismissed && project.is_none_or(|p| p == self.project)).then_some(Eligible {
            created_at: self.created_at,
            pinned: self.pinned,
            mtype: self.mtype,
            kind: self.kind,
        })
    }
}

/// What a ranking weighs of a memory that can be a result (see [`CandidateReader::eligible`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eligible {
    pub created_at: i64,
    pub pinned: bool,
    pub mtype: MemoryType,
    pub kind: Kind,
}

/// SQLite's candidate reader: the keyword index in memory when it was ready as the reader was
/// made, else one cached statement.
struct CandidateRows<'s> {
    store: &'s Store,
    stmt: CachedStatement<'s>,
    /// Caught up as the reader was made, then read as it stands: checking the store's state
    /// again for each row would cost a statement per row, the cost the index is there to save.
    index: Option<&'s KeywordIndex>,
}

impl CandidateReader for CandidateRows<'_> {
    fn get(&mut self, id: i64) -> Result<Option<CandidateRow>, StoreError> {
        // The guard is taken per row, never held across calls: a search's next walk takes it
        // again, and a catch-up waiting in between must not wait on this one.
        if let Some(held) = self.index.and_then(KeywordIndex::as_is) {
            return Ok(held.candidate(id));
        }
        self.stmt
            .query_row([id], |r| {
                Ok(CandidateRow {
                    created_at: r.get(0)?,
                    pinned: r.get(1)?,
                    mtype: r.get::<_, String>(2)?.parse().unwrap_or(MemoryType::Note),
                    kind: r.get::<_, String>(3)?.parse().unwrap_or(Kind::Note),
                    dismissed: r.get(4)?,
                    project: r.get(5)?,
                })
            })
            .optional()
            .map_err(|e| self.store.err(e))
    }

    fn eligible(&mut self, id: i64, project: Option<&str>) -> Result<Option<Eligible>, StoreError> {
        if let Some(held) = self.index.and_then(KeywordIndex::as_is) {
            return Ok(held.eligible(id, project));
        }
        Ok(self.get(id)?.and_then(|row| row.eligible(project)))
    }
}

/// Beyond this many matches, date order walks the time index instead of sorting the matches.
const DENSE_MATCHES: usize = 2000;

impl Store {
    /// Up to `n` memories matching `query` and `filter`, in date order. Few matches: they are
    /// loaded and sorted. Many: the time index is walked newest (or oldest) first, keeping the
    /// rows that match, which stops as soon as `n` are found. A query without words matches
    /// nothing.
    pub fn matching_by_date(
        &self,
        query: TextQuery<'_>,
        filter: &Filter<'_>,
        order: DateOrder,
        n: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let Some(expr) = text_expression(query, filter.project) else {
            return Ok(vec![]);
        };
        let matches: usize = self
            .conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 LIMIT {})",
                    DENSE_MATCHES + 1
                ),
                [&expr],
                |r| r.get::<_, i64>(0),
            )
            .map(count_usize)
            .map_err(|e| self.err(e))?;
        // `+m.id` keeps SQLite from looking each match up by id, so it walks the time index.
        let id = if matches > DENSE_MATCHES {
            "+m.id"
        } else {
            "m.id"
        };
        let (filters, mut args) = filter.sql();
        let arg = args.len() + 1;
        let sql = format!(
            "SELECT {cols} FROM memories m
             WHERE {id} IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?{arg}) {filters}
             ORDER BY {order} LIMIT {n}",
            cols = prefixed_columns(),
            order = order.sql(),
        );
        args.push(SqlValue::Text(expr));
        self.memories(&sql, &args)
    }

    /// Memories touching `file` that pass `filter`, in date order: `limit` of them after the
    /// first `offset`.
    pub fn touching_file(
        &self,
        file: FileMatch<'_>,
        filter: &Filter<'_>,
        order: DateOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let (filters, mut args) = filter.sql();
        let cond = if file.suffix {
            args.push(SqlValue::Text(format!("%{}", like_escape(file.path))));
            format!("f.path LIKE ?{} ESCAPE '\\'", args.len())
        } else {
            args.push(SqlValue::Text(file.path.to_owned()));
            format!("f.path = ?{}", args.len())
        };
        let sql = format!(
            "SELECT {cols} FROM memories m WHERE m.id IN (SELECT f.memory_id FROM memory_files f WHERE {cond}) {filters}
             ORDER BY {order} LIMIT {limit} OFFSET {offset}",
            cols = prefixed_columns(),
            order = order.sql(),
        );
        self.memories(&sql, &args)
    }

    /// Whether the store holds any memory at all, dismissed or not.
    pub fn has_memories(&self) -> Result<bool, StoreError> {
        // Existence, not a count: a count walks the whole store.
        self.conn
            .query_row("SELECT EXISTS (SELECT 1 FROM memories)", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Whether `project` holds any memory that is not dismissed.
    pub fn project_has_memories(&self, project: &str) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM memories WHERE project = ?1 AND dismissed = 0)",
                [project],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }

    /// The row count term statistics are taken against (what the term counts call
    /// `index_rows`): the largest memory id, since ids are dense and memories are dismissed
    /// rather than deleted.
    pub fn indexed_rows(&self) -> Result<u64, StoreError> {
        if let Some(held) = self.keywords() {
            return Ok(held.indexed_rows());
        }
        self.conn
            .prepare_cached("SELECT coalesce(max(id), 0) FROM memories")
            .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)))
            .map(count)
            .map_err(|e| self.err(e))
    }

    /// How many of the newest `sample` rows hold `term` (in the title or the text), and the
    /// oldest of them. Kept in the store's memo: a server answering many searches between
    /// writes samples each term once.
    pub fn term_sample(&self, term: &str, sample: u64) -> Result<TermSample, StoreError> {
        if let Some(token) = self.keywords.as_ref().and_then(|k| k.query_token(term))
            && let Some(held) = self.keywords()
        {
            return Ok(held.term_sample(&token, sample));
        }
        let [hits, oldest] = self
            .memo(&format!("df {sample} {term}"), || {
                let mut stmt = self.conn.prepare_cached(&format!(
                    "SELECT count(*), min(rowid) FROM (SELECT rowid FROM memories_fts
                     WHERE memories_fts MATCH ?1 ORDER BY rowid DESC LIMIT {sample})"
                ))?;
                stmt.query_row([term_expression(std::slice::from_ref(&term))], |r| {
                    Ok([
                        count(r.get(0)?),
                        count(r.get::<_, Option<i64>>(1)?.unwrap_or(0)),
                    ])
                })
            })
            .map_err(|e| self.err(e))?;
        Ok(TermSample { hits, oldest })
    }

    /// The newest memory's date in `project` (or the store), 0 when there is none.
    pub fn newest_in_scope(&self, project: Option<&str>) -> Result<i64, StoreError> {
        let newest: Option<i64> = match project {
            Some(p) => self.conn.query_row(
                "SELECT max(created_at) FROM memories WHERE project = ?1",
                [p],
                |r| r.get(0),
            ),
            None => self
                .conn
                .query_row("SELECT max(created_at) FROM memories", [], |r| r.get(0)),
        }
        .map_err(|e| self.err(e))?;
        Ok(newest.unwrap_or(0))
    }

    /// The pinned memories in `project` (or the store) that are not dismissed.
    pub fn pinned_ids(&self, project: Option<&str>) -> Result<HashSet<i64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id FROM memories WHERE pinned = 1 AND dismissed = 0
                 AND (?1 IS NULL OR project = ?1)",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([project], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }

    /// Walk the memories holding any of `terms` among `candidates`, with each row's term counts
    /// (one entry per term, in order, then one per word of the candidates' project). With
    /// `only`, rows outside that set are skipped without their counts being gathered, so a walk
    /// that can only complete rows already held costs the walk alone.
    pub fn each_match_counted(
        &self,
        terms: &[String],
        candidates: Candidates<'_>,
        only: Option<Vec<i64>>,
        each: &mut dyn FnMut(i64, &TermCounts),
    ) -> Result<(), StoreError> {
        if let Some(index) = &self.keywords
            && let Some(tokens) = terms
                .iter()
                .map(|t| index.query_token(t))
                .collect::<Option<Vec<_>>>()
            && let Some(held) = self.keywords()
        {
            let tokens: Vec<&[u8]> = tokens.iter().map(Vec::as_slice).collect();
            held.each_match(&tokens, candidates, only.as_deref(), each);
            return Ok(());
        }
        self.ensure_term_counts()?;
        let expr = scoped(&term_expression(terms), candidates.project);
        let (join, filters, mut args) = joined(candidates);
        let n = args.len() + 1;
        let sql = format!(
            "SELECT memories_fts.rowid, aletheia_terms(memories_fts, ?{only}) FROM memories_fts {join}
             WHERE memories_fts MATCH ?{n} {filters}",
            only = n + 1,
        );
        args.push(SqlValue::Text(expr));
        args.push(only.map_or(SqlValue::Null, |mut ids| {
            SqlValue::Blob(term_counts::rowid_set(&mut ids))
        }));
        let mut walk = || -> rusqlite::Result<()> {
            // Cached: a ranking walks its terms one at a time with the same statement.
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let mut rows = stmt.query(params_from_iter(args.iter()))?;
            while let Some(r) = rows.next()? {
                let blob = match r.get_ref(1)? {
                    ValueRef::Null => continue,
                    v => v.as_blob()?,
                };
                let counts = TermCounts::decode(blob).ok_or_else(|| {
                    rusqlite::Error::InvalidColumnType(
                        1,
                        "aletheia_terms".into(),
                        rusqlite::types::Type::Blob,
                    )
                })?;
                each(r.get(0)?, &counts);
            }
            Ok(())
        };
        walk().map_err(|e| self.err(e))
    }

    /// Every match of a query in the engine's own syntax among `candidates`, with the engine's
    /// own relevance score (higher is better; FTS5's `bm25()` with title and text weighted
    /// alike, the project column not at all).
    pub fn native_scores(
        &self,
        query: &str,
        candidates: Candidates<'_>,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let expr = scoped(query, candidates.project);
        let (join, filters, mut args) = joined(candidates);
        let n = args.len() + 1;
        let sql = format!(
            "SELECT memories_fts.rowid, bm25(memories_fts, 1.0, 1.0, 0.0) FROM memories_fts {join}
             WHERE memories_fts MATCH ?{n} {filters}"
        );
        args.push(SqlValue::Text(expr));
        let read = || -> rusqlite::Result<Vec<(i64, f64)>> {
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
                Ok((r.get(0)?, -r.get::<_, f64>(1)?))
            })?;
            rows.collect()
        };
        read().map_err(|e| self.err(e))
    }

    /// A reader of candidate rows by id (see [`CandidateReader`]).
    pub fn candidate_rows(&self) -> Result<Box<dyn CandidateReader + '_>, StoreError> {
        let stmt = self
            .conn
            .prepare_cached(
                "SELECT created_at, pinned, type, kind, dismissed, project FROM memories WHERE id = ?1",
            )
            .map_err(|e| self.err(e))?;
        let index = self.keywords().and(self.keywords.as_deref());
        Ok(Box::new(CandidateRows {
            store: self,
            stmt,
            index,
        }))
    }

    fn memories(&self, sql: &str, args: &[SqlValue]) -> Result<Vec<Memory>, StoreError> {
        let read = || -> rusqlite::Result<Vec<Memory>> {
            let mut stmt = self.conn.prepare(sql)?;
            let rows = stmt.query_map(params_from_iter(args.iter()), from_row)?;
            rows.collect()
        };
        read().map_err(|e| self.err(e))
    }
}

impl StoreError {
    /// What the engine said, without the store's path: the answer to a query its user wrote
    /// in the engine's own syntax.
    pub fn engine_message(&self) -> String {
        match self {
            StoreError::Engine { source, .. } => source.to_string(),
            other => other.to_string(),
        }
    }
}

/// An FTS5 MATCH expression for any of `terms`: each quoted as a phrase, so no FTS5 syntax in
/// them can error or change the meaning, joined with OR, limited to the title and text columns.
/// `None` when there are no terms.
pub fn any_word_expression(terms: &[impl AsRef<str>]) -> Option<String> {
    (!terms.is_empty()).then(|| term_expression(terms))
}

fn term_expression(terms: &[impl AsRef<str>]) -> String {
    let words: Vec<String> = terms.iter().map(|t| quoted(t.as_ref())).collect();
    format!("{{title text}} : ({})", words.join(" OR "))
}

/// A term as an FTS5 phrase.
fn quoted(term: &str) -> String {
    format!("\"{}\"", term.replace('"', ""))
}

/// The MATCH clause that narrows to a project's rows inside the index (the exact project check
/// still applies afterwards: the index sees the key's words, not the key).
fn project_expression(project: &str) -> Option<String> {
    let words: Vec<String> = project
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect();
    (!words.is_empty()).then(|| format!("project : \"{}\"", words.join(" ")))
}

/// `expr`, narrowed to `project`'s rows inside the index when it has words.
fn scoped(expr: &str, project: Option<&str>) -> String {
    match project.and_then(project_expression) {
        Some(p) => format!("({expr}) AND {p}"),
        None => expr.to_owned(),
    }
}

/// The whole MATCH expression of a text query in a project, `None` for words without any.
fn text_expression(query: TextQuery<'_>, project: Option<&str>) -> Option<String> {
    let expr = match query {
        TextQuery::AnyWord(terms) => any_word_expression(terms)?,
        TextQuery::Native(text) => text.to_owned(),
    };
    Some(scoped(&expr, project))
}

/// The join with the memories table when there is a filter to apply, the filter's conditions,
/// and their arguments (the MATCH parameter comes after them).
fn joined(candidates: Candidates<'_>) -> (&'static str, String, Vec<SqlValue>) {
    match candidates.filter {
        Some(f) => {
            let (filters, args) = f.sql();
            (
                "JOIN memories m ON m.id = memories_fts.rowid",
                filters,
                args,
            )
        }
        None => ("", String::new(), Vec::new()),
    }
}

fn prefixed_columns() -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("m.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::search::query_terms;
    use proptest::prelude::*;

    #[test]
    fn the_sanitiser_keeps_words_only() {
        let q = |s: &str| any_word_expression(&query_terms(s)).unwrap();
        assert_eq!(q("pnpm AND (npm"), r#"{title text} : ("pnpm" OR "npm")"#);
        assert_eq!(q("\"NEAR(a b)\" *"), r#"{title text} : ("near" OR "b")"#);
        assert_eq!(q("the"), r#"{title text} : ("the")"#);
        assert_eq!(any_word_expression(&query_terms("()*\"^-")), None);
        assert_eq!(
            project_expression("shop/feat-x").unwrap(),
            r#"project : "shop feat x""#
        );
    }

    #[test]
    fn a_failed_native_query_is_told_in_the_engines_words_without_the_store_path() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hub.db");
        let store = Store::open_path(&db, crate::store::OpenOptions::INTERACTIVE).unwrap();
        let e = store
            .native_scores("pnpm AND (", Candidates::default())
            .unwrap_err();
        let path = db.display().to_string();
        assert!(e.to_string().contains(&path), "{e}");
        let said = e.engine_message();
        assert!(
            said.contains("syntax error") && !said.contains(&path),
            "{said}"
        );
    }

    proptest! {
        #[test]
        fn any_text_gives_a_valid_fts_query(q in any::<String>()) {
            let conn = rusqlite::Connection::open_in_memory().unwrap();
            conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(title, text); INSERT INTO t VALUES ('hello', 'world');").unwrap();
            if let Some(expr) = any_word_expression(&query_terms(&q)) {
                let r: rusqlite::Result<i64> =
                    conn.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [expr], |r| r.get(0));
                prop_assert!(r.is_ok(), "{:?}", r);
            }
        }
    }
}
