//! Search: keyword search over the store, ranked.
//!
//! Users type anything: quotes, `AND`, `NEAR`, unbalanced parentheses. The sanitiser keeps only
//! the words, which the store matches each as written, so FTS5 syntax never errors and never
//! changes the meaning; `raw` passes the text to FTS5 untouched for those who ask. Very common words are dropped from
//! the match (they would make the OR scan most of a large store) but count nowhere else.
//! Ranking (`rank`): BM25 with the title weighted above the text, adjusted for recency, pinning
//! and type; `topk` finds the best of every match without scoring them all.

use super::topk;
use crate::model::{Kind, Memory, MemoryType};
use crate::store::search::{Candidates, DateOrder, FileMatch, Filter, TextQuery};
use crate::store::{Storage, StoreError};

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

/// One page of the best matches: scored by `topk` (by the store alone for a raw query), then
/// the page's rows read.
fn by_relevance(
    store: &dyn Storage,
    q: &SearchQuery,
    req: &topk::Request,
    raw: Option<&str>,
    limit: usize,
) -> Result<Vec<Hit>, StoreError> {
    let scored = match raw {
        Some(query) => topk::best_raw(store, req, query)?,
        None => topk::best(store, req)?,
    };
    let page: Vec<(f64, i64)> = scored.into_iter().skip(q.offset).take(limit).collect();
    let ids: Vec<i64> = page.iter().map(|p| p.1).collect();
    let mut by_id: std::collections::HashMap<i64, Memory> = store
        .get_many(&ids)?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
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

/// Memories found without a score (by date or by file), as hits.
fn unscored(memories: Vec<Memory>) -> Vec<Hit> {
    memories
        .into_iter()
        .map(|memory| Hit { memory, score: 0.0 })
        .collect()
}

/// Run a search.
pub fn search(store: &dyn Storage, q: &SearchQuery) -> Result<SearchResult, StoreError> {
    let limit = q.limit.clamp(1, 100);
    let filter = Filter {
        project: q.project.as_deref(),
        mtype: q.mtype,
        kind: q.kind,
        since: q.since,
        until: q.until,
    };
    let order = match q.order {
        Order::DateAsc => DateOrder::OldestFirst,
        _ => DateOrder::NewestFirst,
    };

    let mut hits: Vec<Hit> = if let Some(file) = q.file.as_deref().filter(|f| !f.is_empty()) {
        let file = FileMatch {
            path: file,
            suffix: q.file_suffix,
        };
        unscored(store.touching_file(file, &filter, order, limit, q.offset)?)
    } else {
        let terms = match q.query.as_deref() {
            Some(text) if !q.raw => query_terms(text),
            _ => vec![],
        };
        let text = match q.query.as_deref() {
            Some(text) if q.raw => TextQuery::Native(text),
            Some(_) if !terms.is_empty() => TextQuery::AnyWord(&terms),
            _ => {
                return Ok(SearchResult {
                    facts: vec![],
                    hits: vec![],
                    reason: Some("The query has no words to search for.".into()),
                });
            }
        };
        let found = if q.order == Order::Relevance {
            // The project and dismissed checks happen as rows are read; other filters narrow
            // the index's matches themselves, so that rows failing them are never scored.
            let req = topk::Request {
                terms: &terms,
                candidates: Candidates {
                    project: q.project.as_deref(),
                    filter: filter.narrows().then_some(&filter),
                },
                need: q.offset + limit,
            };
            let raw = match text {
                TextQuery::Native(query) => Some(query),
                TextQuery::AnyWord(_) => None,
            };
            by_relevance(store, q, &req, raw, limit)
        } else {
            store
                .matching_by_date(text, &filter, order, limit + q.offset)
                .map(|v| unscored(v).into_iter().skip(q.offset).collect())
        };
        match found {
            Ok(f) => f,
            Err(e) if q.raw => {
                return Ok(SearchResult {
                    facts: vec![],
                    hits: vec![],
                    reason: Some(format!("The raw FTS query failed: {}.", e.engine_message())),
                });
            }
            Err(e) => return Err(e),
        }
    };
    hits.truncate(limit);
    let facts = match (&q.query, &q.file, q.offset) {
        (Some(text), None, 0) if !q.raw => {
            store.facts_mentioning(&query_terms(text), q.project.as_deref(), 5)?
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

/// How many results of each ranking are fused: enough that a memory found by only one of them,
/// fairly high, still reaches the first page.
const FUSE_DEPTH: usize = 50;

/// The words' share of a fused score; meaning has the rest. Measured on LoCoMo (turn level,
/// categories 1-4, hit@5): words alone 0.592, meaning alone 0.403, reciprocal rank fusion 0.536,
/// this combination at 0.5 0.584 and at 0.7 0.598 (hit@10 0.702 against 0.678 for words alone).
const WORDS_WEIGHT: f64 = 0.7;

/// [`hybrid`] when the model is loaded, else the words alone: what every search by a person or
/// an agent runs.
pub fn ranked(
    store: &dyn Storage,
    q: &SearchQuery,
    semantic: Option<&crate::embed::semantic::Semantic>,
) -> Result<SearchResult, StoreError> {
    match semantic {
        Some(s) => hybrid(store, q, s),
        None => search(store, q),
    }
}

/// Search by words and by meaning, and fuse the two (`fuse`). Only a relevance search by words,
/// within its first hundred results, fuses; by date, by file and raw FTS5 queries are the
/// keyword search's alone. A memory without a vector is still found by its words.
pub fn hybrid(
    store: &dyn Storage,
    q: &SearchQuery,
    semantic: &crate::embed::semantic::Semantic,
) -> Result<SearchResult, StoreError> {
    let limit = q.limit.clamp(1, 100);
    // Pages past the first hundred results are the words' alone: the word ranking is read at
    // most a hundred deep for fusing.
    let text = match q.query.as_deref() {
        Some(t)
            if q.order == Order::Relevance
                && !q.raw
                && q.file.is_none()
                && q.offset + limit <= 100 =>
        {
            t
        }
        _ => return search(store, q),
    };
    let depth = FUSE_DEPTH.max(q.offset + limit);
    let mut words = search(
        store,
        &SearchQuery {
            limit: depth,
            offset: 0,
            ..q.clone()
        },
    )?;
    // If the model fails on this text, the words alone answer, as without a model. The search's
    // filters narrow the neighbours before they are taken, so that a narrow filter still gets
    // its own; `passes` checks each memory again as it is now (a dismissal since).
    let scope = crate::store::vectors::VectorScope {
        project: q.project.as_deref(),
        mtype: q.mtype,
        kind: q.kind,
        since: q.since,
        until: q.until,
    };
    let nearest = semantic
        .nearest(store, text, &scope, 2 * depth)
        .unwrap_or_default();
    let ids: Vec<i64> = nearest.iter().map(|n| n.0).collect();
    let rows = store.get_many(&ids)?;
    let mut by_id: std::collections::HashMap<i64, Memory> = rows
        .into_iter()
        .filter(|m| passes(m, q))
        .map(|m| (m.id, m))
        .collect();
    let meaning: Vec<(i64, f64)> = nearest
        .iter()
        .filter(|n| by_id.contains_key(&n.0))
        .take(depth)
        .map(|n| (n.0, n.1 as f64))
        .collect();
    let kscores: Vec<(i64, f64)> = words.hits.iter().map(|h| (h.memory.id, h.score)).collect();
    for h in words.hits.drain(..) {
        by_id.insert(h.memory.id, h.memory);
    }
    let fused = fuse(&kscores, &meaning);
    words.hits = fused
        .into_iter()
        .skip(q.offset)
        .take(limit)
        .filter_map(|(id, score)| {
            Some(Hit {
                memory: by_id.remove(&id)?,
                score,
            })
        })
        .collect();
    if !words.hits.is_empty() {
        words.reason = None;
    }
    Ok(words)
}

/// Whether a memory found by meaning passes the filters the keyword search applies in SQL.
fn passes(m: &Memory, q: &SearchQuery) -> bool {
    !m.dismissed
        && q.project.as_ref().is_none_or(|p| *p == m.project)
        && q.mtype.is_none_or(|t| t == m.mtype)
        && q.kind.is_none_or(|k| k == m.kind)
        && q.since.is_none_or(|s| m.created_at >= s)
        && q.until.is_none_or(|u| m.created_at < u)
}

/// Fuse the word ranking (adjusted BM25, best first) with the meaning ranking (cosines): each
/// memory scores `WORDS_WEIGHT` × its BM25 over the best one's, plus the rest × its cosine (0
/// where a ranking did not find it; a negative cosine counts as 0). A calibrated sum rather than
/// reciprocal rank fusion: rank fusion gives both rankings the same say, and on conversation
/// turns this model's ranking is much weaker than the words' (see `WORDS_WEIGHT`), so it diluted
/// them; scaled scores keep the words in charge and let meaning lift what they rank low or miss.
/// Best first; a tie goes to the word ranking's order, then the meaning ranking's.
fn fuse(words: &[(i64, f64)], meaning: &[(i64, f64)]) -> Vec<(i64, f64)> {
    let top = words.first().map_or(1.0, |w| w.1.max(f64::MIN_POSITIVE));
    let mut score: std::collections::HashMap<i64, (f64, usize)> = std::collections::HashMap::new();
    for (order, (id, bm25)) in words.iter().enumerate() {
        score.insert(*id, (WORDS_WEIGHT * bm25 / top, order));
    }
    for (order, (id, cosine)) in meaning.iter().enumerate() {
        let entry = score.entry(*id).or_insert((0.0, words.len() + order));
        entry.0 += (1.0 - WORDS_WEIGHT) * cosine.max(0.0);
    }
    let mut out: Vec<(i64, f64, usize)> =
        score.into_iter().map(|(id, (s, o))| (id, s, o)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(id, s, _)| (id, s)).collect()
}

/// Why a search found nothing, in words a user can act on.
fn no_match_reason(store: &dyn Storage, q: &SearchQuery) -> Result<String, StoreError> {
    if let Some(p) = &q.project
        && !store.project_has_memories(p)?
    {
        return Ok(format!("No memories in project \"{p}\"."));
    }
    if !store.has_memories()? {
        return Ok("The store is empty.".into());
    }
    let filtered = q.mtype.is_some() || q.kind.is_some() || q.since.is_some() || q.until.is_some();
    Ok(match (&q.file, filtered) {
        (Some(f), _) => format!("No memory touches the file \"{f}\"."),
        (None, true) => "Nothing matches these words with these filters.".into(),
        (None, false) => "Nothing matches these words.".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_keeps_the_words_in_charge_and_lets_meaning_lift() {
        // By words: 1 (best), 4, 7. By meaning: 7 (close), 9 (close), 4 (far).
        let words = [(1, 10.0), (4, 6.0), (7, 5.0)];
        let meaning = [(7, 0.9), (9, 0.8), (4, -0.2)];
        let fused: Vec<i64> = fuse(&words, &meaning).iter().map(|f| f.0).collect();
        // 1: 0.7; 7: 0.35 + 0.27 = 0.62; 4: 0.42; 9: 0.24.
        assert_eq!(fused, vec![1, 7, 4, 9]);
        // Without meaning the word order stands; without words, meaning's.
        let alone: Vec<i64> = fuse(&words, &[]).iter().map(|f| f.0).collect();
        assert_eq!(alone, vec![1, 4, 7]);
        let meaning_only: Vec<i64> = fuse(&[], &meaning).iter().map(|f| f.0).collect();
        assert_eq!(meaning_only, vec![7, 9, 4]);
    }
}
