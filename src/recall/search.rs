//! Search: keyword search over the store, ranked.
//!
//! Users type anything: quotes, `AND`, `NEAR`, unbalanced parentheses. The sanitiser keeps only
//! the words and quotes each one, so FTS5 syntax never errors and never changes the meaning;
//! `raw` passes the text to FTS5 untouched for those who ask. Very common words are dropped from
//! the match (they would make the OR scan most of a large store) but count nowhere else.
//! Ranking (`rank`): BM25 with the title weighted above the text, adjusted for recency, pinning
//! and type, over a bounded pool of candidates: the newest matches, plus those with every word.

use super::rank::{self, Traits};
use crate::model::{Kind, Memory, MemoryType};
use crate::store::term_counts::TermCounts;
use crate::store::{COLUMNS, Store, StoreError, from_row};
use rusqlite::types::Value as SqlValue;

/// Order of results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    #[default]
    Relevance,
    DateDesc,
    DateAsc,
}

impl std::str::FromStr for Order {
    type Err = String;
    fn from_str(s: &str) -> Result<Order, String> {
        match s {
            "relevance" => Ok(Order::Relevance),
            "date_desc" => Ok(Order::DateDesc),
            "date_asc" => Ok(Order::DateAsc),
            other => Err(format!(
                "unknown order \"{other}\": use relevance, date_desc or date_asc."
            )),
        }
    }
}

crate::serde_via_from_str!(Order, ["relevance", "date_desc", "date_asc"]);

/// A search request. Times are epoch milliseconds, `until` exclusive.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub query: Option<String>,
    pub file: Option<String>,
    pub file_suffix: bool,
    pub project: Option<String>,
    pub mtype: Option<MemoryType>,
    pub kind: Option<Kind>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub limit: usize,
    pub offset: usize,
    pub order: Order,
    /// Pass the query to FTS5 as written.
    pub raw: bool,
}

/// One hit.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub memory: Memory,
    pub score: f64,
}

/// The result: matching facts, hits, or why there are none.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SearchResult {
    /// Current facts whose subject or object matches a query word; listed before the hits.
    pub facts: Vec<super::facts::Fact>,
    pub hits: Vec<Hit>,
    /// Set when `hits` is empty.
    pub reason: Option<String>,
}

/// Words too common to be worth matching on.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "he", "her", "his", "how", "i", "in", "is", "it", "its", "me", "my",
    "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "they", "this", "to",
    "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "you",
    "your",
];

/// The words of a query, lowercased, without stopwords (unless nothing else is left).
pub fn query_terms(q: &str) -> Vec<String> {
    let words: Vec<String> = q
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let content: Vec<String> = words
        .iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    let mut out = if content.is_empty() { words } else { content };
    let mut seen = std::collections::HashSet::new();
    out.retain(|w| seen.insert(w.clone()));
    out
}

/// An FTS5 MATCH expression for any user text: each word quoted, joined with OR, limited to the
/// title and text columns. `None` when the text has no words.
pub fn fts_expression(q: &str) -> Option<String> {
    let terms = query_terms(q);
    if terms.is_empty() {
        return None;
    }
    let words: Vec<String> = terms.iter().map(|t| quoted(t)).collect();
    Some(format!("{{title text}} : ({})", words.join(" OR ")))
}

/// A term as an FTS5 phrase.
fn quoted(term: &str) -> String {
    format!("\"{}\"", term.replace('"', ""))
}

/// Every term required (`None` for fewer than two terms, where it adds nothing).
fn fts_all_expression(terms: &[String]) -> Option<String> {
    if terms.len() < 2 {
        return None;
    }
    let words: Vec<String> = terms.iter().map(|t| quoted(t)).collect();
    Some(format!("{{title text}} : ({})", words.join(" AND ")))
}

/// The MATCH clause that narrows to a project's rows inside the index (the exact project filter
/// still applies afterwards: the index sees the key's words, not the key).
fn project_expression(project: &str) -> Option<String> {
    let words: Vec<String> = project
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect();
    (!words.is_empty()).then(|| format!("project : \"{}\"", words.join(" ")))
}

/// How many matches each relevance query scores at most, newest first. Scoring costs a few
/// microseconds per matching row, so a query of common words over a large store would otherwise
/// score tens of thousands of rows. When that cap is reached, the query that needs every word
/// runs too, so the best matches are in even when they are old.
const CANDIDATES: usize = 600;

/// A candidate as the index sees it; the row itself is read only if it can still make the page.
struct Candidate {
    id: i64,
    relevance: Relevance,
}

/// What the index said about a candidate's relevance.
enum Relevance {
    /// Term counts, scored in `rank` (sanitised queries).
    Counts(TermCounts),
    /// FTS5's own bm25() (raw queries, whose phrases `rank` cannot name).
    Bm25(f64),
}

/// Collect the matches of the widest expression (the last), newest `CANDIDATES`; if that many
/// matched, also the older matches of the narrower ones (the newer are in already). `filters`
/// (over `m`, the memories table, with `args`) is empty when the search narrows by nothing the
/// index cannot see; then the index alone answers, and `ranked` checks each row it reads.
fn candidates(
    store: &Store,
    exprs: &[String],
    filters: &str,
    args: &[SqlValue],
    raw: bool,
) -> rusqlite::Result<Vec<Candidate>> {
    let mut out: Vec<Candidate> = Vec::new();
    let n = args.len() + 1;
    let relevance = if raw {
        "bm25(memories_fts, 4.0, 1.0, 0.0)"
    } else {
        "aletheia_terms(memories_fts)"
    };
    let join = if filters.is_empty() {
        ""
    } else {
        "JOIN memories m ON m.id = memories_fts.rowid"
    };
    let sql = format!(
        "SELECT memories_fts.rowid, {relevance} FROM memories_fts {join}
         WHERE memories_fts MATCH ?{n} AND memories_fts.rowid < ?{below} {filters}
         ORDER BY memories_fts.rowid DESC LIMIT {CANDIDATES}",
        below = n + 1
    );
    let mut stmt = store.conn().prepare_cached(&sql)?;
    for (i, expr) in exprs.iter().rev().enumerate() {
        if i > 0 && out.len() < CANDIDATES {
            break;
        }
        let below = out.last().map_or(i64::MAX, |c| c.id);
        let mut all = args.to_vec();
        all.push(SqlValue::Text(expr.clone()));
        all.push(SqlValue::Integer(below));
        let mut rows = stmt.query(rusqlite::params_from_iter(all.iter()))?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let relevance = if raw {
                Relevance::Bm25(-r.get::<_, f64>(1)?)
            } else {
                let blob = r.get_ref(1)?.as_blob()?;
                Relevance::Counts(TermCounts::decode(blob).ok_or_else(|| {
                    rusqlite::Error::InvalidColumnType(
                        1,
                        "aletheia_terms".into(),
                        rusqlite::types::Type::Blob,
                    )
                })?)
            };
            out.push(Candidate { id, relevance });
        }
    }
    Ok(out)
}

/// A score with its memory's id, ordered by score, then the newer id first on a tie.
#[derive(PartialEq)]
struct Scored(f64, i64);

impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The best `need` candidates, best first, as (score, id). `phrases` are the query's quoted
/// terms in the order the match expressions list them.
///
/// BM25 comes from the index alone; the adjustments need the row. Candidates are visited in
/// BM25 order and the walk stops once even the largest adjustment (`rank::MAX_BOOST`) could not
/// lift the next one into the best `need`; before that, a row that is not pinned is passed over
/// unread when its own bound (`rank::MAX_BOOST_UNPINNED`) falls short. So most rows are never
/// read. Each row read is also
/// checked against what the index cannot see: dismissed, and the exact project.
fn ranked(
    store: &Store,
    candidates: Vec<Candidate>,
    phrases: &[String],
    project: Option<&str>,
    need: usize,
) -> rusqlite::Result<Vec<(f64, i64)>> {
    let index_rows = candidates.iter().find_map(|c| match &c.relevance {
        Relevance::Counts(t) => Some(t.index_rows),
        Relevance::Bm25(_) => None,
    });
    let df = match index_rows {
        Some(rows) => Some(rank::document_frequencies(store.conn(), phrases, rows)?),
        None => None,
    };
    let mut pool: Vec<Scored> = candidates
        .into_iter()
        .map(|c| {
            let bm25 = match (&c.relevance, &df) {
                (Relevance::Counts(t), Some(df)) => rank::bm25(t, df),
                (Relevance::Bm25(s), _) => *s,
                (Relevance::Counts(_), None) => 0.0,
            };
            Scored(bm25, c.id)
        })
        .collect();
    pool.sort_by(|a, b| b.cmp(a));
    let newest = rank::newest_in_scope(store.conn(), project)?;
    let pinned = rank::pinned_ids(store.conn(), project)?;
    let mut stmt = store.conn().prepare_cached(
        "SELECT created_at, pinned, type, kind, dismissed, project FROM memories WHERE id = ?1",
    )?;
    // The best `need` so far, worst on top.
    let mut best: std::collections::BinaryHeap<std::cmp::Reverse<Scored>> =
        std::collections::BinaryHeap::with_capacity(need + 1);
    for Scored(bm25, id) in pool {
        if best.len() >= need
            && let Some(std::cmp::Reverse(worst)) = best.peek()
        {
            if bm25 * rank::MAX_BOOST < worst.0 {
                break;
            }
            if !pinned.contains(&id) && bm25 * rank::MAX_BOOST_UNPINNED < worst.0 {
                continue;
            }
        }
        let row = stmt.query_row([id], |r| {
            Ok((
                Traits {
                    created_at: r.get(0)?,
                    pinned: r.get(1)?,
                    mtype: r.get::<_, String>(2)?.parse().unwrap_or(MemoryType::Note),
                    kind: r.get::<_, String>(3)?.parse().unwrap_or(Kind::Note),
                },
                r.get::<_, bool>(4)?,
                r.get::<_, String>(5)?,
            ))
        });
        let (traits, dismissed, row_project) = match row {
            Ok(row) => row,
            // Deleted since the index was read.
            Err(rusqlite::Error::QueryReturnedNoRows) => continue,
            Err(e) => return Err(e),
        };
        if dismissed || project.is_some_and(|p| p != row_project) {
            continue;
        }
        best.push(std::cmp::Reverse(Scored(
            rank::adjusted(bm25, &traits, newest),
            id,
        )));
        if best.len() > need {
            best.pop();
        }
    }
    Ok(best
        .into_sorted_vec()
        .into_iter()
        .map(|std::cmp::Reverse(Scored(score, id))| (score, id))
        .collect())
}

/// One page of the best matches: candidates from the index, ranked, then the page's rows.
fn by_relevance(
    store: &Store,
    q: &SearchQuery,
    exprs: &[String],
    terms: &[String],
    filters: &str,
    args: &[SqlValue],
    limit: usize,
) -> rusqlite::Result<Vec<Hit>> {
    let phrases: Vec<String> = terms.iter().map(|t| quoted(t)).collect();
    let pool = candidates(store, exprs, filters, args, q.raw)?;
    let scored = ranked(
        store,
        pool,
        &phrases,
        q.project.as_deref(),
        q.offset + limit,
    )?;
    let page: Vec<(f64, i64)> = scored.into_iter().skip(q.offset).take(limit).collect();
    let ids: Vec<i64> = page.iter().map(|p| p.1).collect();
    let rows = store.get_many(&ids).map_err(|e| match e {
        StoreError::Sqlite { source, .. } => source,
        other => rusqlite::Error::ToSqlConversionFailure(Box::new(other)),
    })?;
    let mut by_id: std::collections::HashMap<i64, Memory> =
        rows.into_iter().map(|m| (m.id, m)).collect();
    Ok(page
        .into_iter()
        .filter_map(|(score, id)| {
            Some(Hit {
                memory: by_id.remove(&id)?,
                score,
            })
        })
        .collect())
}

/// Beyond this many matches, date order walks the time index instead of sorting the matches.
const DENSE_MATCHES: usize = 2000;

/// Matches in date order, only as many as the page needs. Few matches: load and sort them.
/// Many: walk the time index newest (or oldest) first and keep the rows that match, which stops
/// as soon as the page is full.
fn by_date(
    store: &Store,
    expr: &str,
    filters: &str,
    args: &[SqlValue],
    order_sql: &str,
    n: usize,
) -> rusqlite::Result<Vec<Hit>> {
    let matches: usize = store.conn().query_row(
        &format!("SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 LIMIT {})", DENSE_MATCHES + 1),
        [expr],
        |r| r.get::<_, i64>(0),
    )? as usize;
    // `+m.id` keeps SQLite from looking each match up by id, so it walks the time index instead.
    let id = if matches > DENSE_MATCHES {
        "+m.id"
    } else {
        "m.id"
    };
    let arg = args.len() + 1;
    let sql = format!(
        "SELECT {cols} FROM memories m
         WHERE {id} IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?{arg}) {filters}
         ORDER BY {order_sql} LIMIT {n}",
        cols = prefixed_columns(),
    );
    let mut all = args.to_vec();
    all.push(SqlValue::Text(expr.to_owned()));
    let mut stmt = store.conn().prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(all.iter()), |r| {
        Ok(Hit {
            memory: from_row(r)?,
            score: 0.0,
        })
    })?;
    rows.collect()
}

/// Run a search.
pub fn search(store: &Store, q: &SearchQuery) -> Result<SearchResult, StoreError> {
    let limit = q.limit.clamp(1, 100);
    let mut filters = String::from(" AND m.dismissed = 0");
    let mut args: Vec<SqlValue> = Vec::new();
    let mut push = |sql: &str, v: SqlValue, filters: &mut String| {
        args.push(v);
        filters.push_str(&sql.replace('?', &format!("?{}", args.len())));
    };
    if let Some(p) = &q.project {
        push(
            " AND m.project = ?",
            SqlValue::Text(p.clone()),
            &mut filters,
        );
    }
    if let Some(t) = q.mtype {
        push(
            " AND m.type = ?",
            SqlValue::Text(t.as_str().into()),
            &mut filters,
        );
    }
    if let Some(k) = q.kind {
        push(
            " AND m.kind = ?",
            SqlValue::Text(k.as_str().into()),
            &mut filters,
        );
    }
    if let Some(s) = q.since {
        push(" AND m.created_at >= ?", SqlValue::Integer(s), &mut filters);
    }
    if let Some(u) = q.until {
        push(" AND m.created_at < ?", SqlValue::Integer(u), &mut filters);
    }
    let order_sql = match q.order {
        Order::DateAsc => "m.created_at ASC, m.id ASC",
        _ => "m.created_at DESC, m.id DESC",
    };

    let mut hits: Vec<Hit> = if let Some(file) = q.file.as_deref().filter(|f| !f.is_empty()) {
        let cond = if q.file_suffix {
            args.push(SqlValue::Text(format!("%{}", like_escape(file))));
            format!("f.path LIKE ?{} ESCAPE '\\'", args.len())
        } else {
            args.push(SqlValue::Text(file.to_owned()));
            format!("f.path = ?{}", args.len())
        };
        let sql = format!(
            "SELECT {cols} FROM memories m WHERE m.id IN (SELECT f.memory_id FROM memory_files f WHERE {cond}) {filters}
             ORDER BY {order_sql} LIMIT {lim} OFFSET {off}",
            cols = prefixed_columns(),
            lim = limit,
            off = q.offset,
        );
        rows(store, &sql, &args)?
            .into_iter()
            .map(|m| Hit {
                memory: m,
                score: 0.0,
            })
            .collect()
    } else {
        let project_clause = q.project.as_deref().and_then(project_expression);
        let scoped = |e: String| match &project_clause {
            Some(p) => format!("({e}) AND {p}"),
            None => e,
        };
        let terms = match q.query.as_deref() {
            Some(text) if !q.raw => query_terms(text),
            _ => vec![],
        };
        let exprs: Vec<String> = match q.query.as_deref() {
            Some(text) if q.raw => vec![scoped(text.to_owned())],
            Some(text) => {
                let mut v = Vec::new();
                if let Some(all) = fts_all_expression(&terms) {
                    v.push(scoped(all));
                }
                if let Some(any) = fts_expression(text) {
                    v.push(scoped(any));
                }
                v
            }
            None => vec![],
        };
        let Some(widest) = exprs.last().cloned() else {
            return Ok(SearchResult {
                facts: vec![],
                hits: vec![],
                reason: Some("the query has no words to search for.".into()),
            });
        };
        if q.order == Order::Relevance && !q.raw {
            store.ensure_term_counts()?;
        }
        let found = if q.order == Order::Relevance {
            // The project and dismissed checks wait for `ranked`; other filters narrow the
            // candidates themselves, so that the newest matches are the newest that pass them.
            let narrowed =
                q.mtype.is_some() || q.kind.is_some() || q.since.is_some() || q.until.is_some();
            let (filters, args) = if narrowed {
                (filters.as_str(), args.as_slice())
            } else {
                ("", &[][..])
            };
            by_relevance(store, q, &exprs, &terms, filters, args, limit)
        } else {
            by_date(store, &widest, &filters, &args, order_sql, limit + q.offset)
                .map(|v| v.into_iter().skip(q.offset).collect())
        };
        match found {
            Ok(f) => f,
            Err(e) if q.raw => {
                return Ok(SearchResult {
                    facts: vec![],
                    hits: vec![],
                    reason: Some(format!("the raw FTS query failed: {e}.")),
                });
            }
            Err(e) => return Err(store.err(e)),
        }
    };
    hits.truncate(limit);
    let facts = match (&q.query, &q.file, q.offset) {
        (Some(text), None, 0) if !q.raw => {
            super::facts::matching(store, &query_terms(text), q.project.as_deref(), 5)?
        }
        _ => vec![],
    };
    let reason = if hits.is_empty() && facts.is_empty() {
        Some(no_match_reason(store, q)?)
    } else {
        None
    };
    Ok(SearchResult {
        facts,
        hits,
        reason,
    })
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

fn rows(store: &Store, sql: &str, args: &[SqlValue]) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = store.conn().prepare(sql).map_err(|e| store.err(e))?;
    let rows = stmt
        .query_map(rusqlite::params_from_iter(args.iter()), from_row)
        .map_err(|e| store.err(e))?;
    rows.collect::<Result<_, _>>().map_err(|e| store.err(e))
}

/// Why a search found nothing, in words a user can act on.
fn no_match_reason(store: &Store, q: &SearchQuery) -> Result<String, StoreError> {
    // Existence, not counts: a count walks a whole project or the whole store.
    let exists = |sql: &str, p: &[&dyn rusqlite::ToSql]| -> Result<bool, StoreError> {
        store
            .conn()
            .query_row(&format!("SELECT EXISTS ({sql})"), p, |r| r.get(0))
            .map_err(|e| store.err(e))
    };
    if let Some(p) = &q.project
        && !exists(
            "SELECT 1 FROM memories WHERE project = ?1 AND dismissed = 0",
            &[p],
        )?
    {
        return Ok(format!("no memories in project \"{p}\"."));
    }
    if !exists("SELECT 1 FROM memories", &[])? {
        return Ok("the store is empty.".into());
    }
    let filtered = q.mtype.is_some() || q.kind.is_some() || q.since.is_some() || q.until.is_some();
    Ok(match (&q.file, filtered) {
        (Some(f), _) => format!("no memory touches the file \"{f}\"."),
        (None, true) => "nothing matches these words with these filters.".into(),
        (None, false) => "nothing matches these words.".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_sanitiser_keeps_words_only() {
        let q = |s: &str| fts_expression(s).unwrap();
        assert_eq!(q("pnpm AND (npm"), r#"{title text} : ("pnpm" OR "npm")"#);
        assert_eq!(q("\"NEAR(a b)\" *"), r#"{title text} : ("near" OR "b")"#);
        assert_eq!(q("the"), r#"{title text} : ("the")"#);
        assert_eq!(fts_expression("()*\"^-"), None);
        assert_eq!(
            project_expression("shop/feat-x").unwrap(),
            r#"project : "shop feat x""#
        );
    }

    proptest! {
        #[test]
        fn any_text_gives_a_valid_fts_query(q in any::<String>()) {
            let conn = rusqlite::Connection::open_in_memory().unwrap();
            conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(title, text); INSERT INTO t VALUES ('hello', 'world');").unwrap();
            if let Some(expr) = fts_expression(&q) {
                let r: rusqlite::Result<i64> =
                    conn.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [expr], |r| r.get(0));
                prop_assert!(r.is_ok(), "{:?}", r);
            }
        }
    }
}
