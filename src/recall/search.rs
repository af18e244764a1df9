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
    /// Answer as the store stood then: memories said or done later left out (by `created_at`,
    /// as the date filters), supersessions made later not counted, and each hit's text as it
    /// read then. Matching is on the words memories hold now.
    pub as_of: Option<i64>,
}

/// One hit.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub memory: Memory,
    pub score: f64,
    /// What changed in the files it names since it was written (`stale: src/a.rs changed 2
    /// days later`), when the front end knows the project's folder and something did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    /// The newer memory that replaced this one (see `supersession`), when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<i64>,
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
                stale: None,
                replaced_by: None,
            })
        })
        .collect())
}

/// Memories found without a score (by date or by file), as hits.
fn unscored(memories: Vec<Memory>) -> Vec<Hit> {
    memories
        .into_iter()
        .map(|memory| Hit {
            memory,
            score: 0.0,
            stale: None,
            replaced_by: None,
        })
        .collect()
}

/// Run a search.
pub fn search(store: &dyn Storage, q: &SearchQuery) -> Result<SearchResult, StoreError> {
    let mut result = words(store, q)?;
    settle(store, q, &mut result.hits)?;
    Ok(result)
}

/// The memories stored up to `as_of` (inclusive) and before `until` (exclusive): the earlier
/// bound.
fn until_as_of(q: &SearchQuery) -> Option<i64> {
    let as_of = q.as_of.map(|t| t.saturating_add(1));
    match (q.until, as_of) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Mark each hit that a newer memory replaced, and put a replaced memory below its replacement
/// where a relevance search found both; as of `q.as_of`, with each text as it read then.
pub(super) fn settle(
    store: &dyn Storage,
    q: &SearchQuery,
    hits: &mut [Hit],
) -> Result<(), StoreError> {
    if hits.is_empty() {
        return Ok(());
    }
    let standing = store.standing(q.project.as_deref(), q.as_of)?;
    for h in hits.iter_mut() {
        h.replaced_by = standing.superseded.get(&h.memory.id).copied();
    }
    if q.order == Order::Relevance {
        // A replaced hit scores just under its replacement when it scored more, so any later
        // sort by score (stale marks, several projects merged) keeps the two in that order.
        // Each pass settles one link of a chain (#1 replaced by #2 by #3).
        for _ in 0..hits.len() {
            let scores: std::collections::HashMap<i64, f64> =
                hits.iter().map(|h| (h.memory.id, h.score)).collect();
            let mut moved = false;
            for h in hits.iter_mut() {
                if let Some(&newer) = h.replaced_by.and_then(|n| scores.get(&n))
                    && h.score >= newer
                {
                    h.score = newer - (newer.abs() * 1e-3).max(1e-9);
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
    if let Some(t) = q.as_of {
        for h in hits.iter_mut() {
            let versions = store.memory_versions(h.memory.id)?;
            if let Some(v) = versions
                .iter()
                .find(|v| v.written_at <= t && v.replaced_at.is_none_or(|r| t < r))
            {
                h.memory.title.clone_from(&v.title);
                h.memory.text.clone_from(&v.text);
            }
        }
    }
    Ok(())
}

/// The search by words alone, before [`settle`].
fn words(store: &dyn Storage, q: &SearchQuery) -> Result<SearchResult, StoreError> {
    let limit = q.limit.clamp(1, 100);
    let filter = Filter {
        project: q.project.as_deref(),
        mtype: q.mtype,
        kind: q.kind,
        since: q.since,
        until: until_as_of(q),
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
                as_of: q.as_of,
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

/// The words' share of a fused score; meaning has the rest. Both rankings' scores are turned
/// into z-scores first (see [`fuse`]).
const WORDS_WEIGHT: f64 = 0.3;

/// The re-ranker's share of a re-ranked result's score; the fused score has the rest, both as
/// z-scores over the results re-ranked. Chosen on LoCoMo and coderecall's tuning set together
/// (`docs/recall.md`): more helps on LoCoMo's conversation, less on commit messages, and 0.6
/// gave the best sum of hit@1 and hit@5 over both at the default depth.
const RERANK_WEIGHT: f64 = 0.6;

/// The re-ranker's scores are logits (the log-odds that a memory answers the query), so a gap
/// of a small fraction of one means it cannot tell the two apart: its z-scores are taken over
/// a spread of at least this much, and such a gap leaves the first stage's order alone.
const RERANK_LEAST_SPREAD: f64 = 1.0;

/// The most of a memory's text the re-ranker reads: its cap of 256 tokens, query included, is
/// a thousand characters or so of prose.
const RERANK_CHARS: usize = 1_200;

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

/// Search by words and by meaning, fuse the two (`fuse`), and re-rank the best of them when a
/// re-ranker is loaded (`rerank`). Only a relevance search by words, within its first hundred
/// results, fuses; by date, by file and raw FTS5 queries are the keyword search's alone. A
/// memory without a vector is still found by its words.
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
    // The words' own search, not yet settled: the fused page is settled once, at the end.
    let mut words = self::words(
        store,
        &SearchQuery {
            limit: depth,
            offset: 0,
            ..q.clone()
        },
    )?;
    // If the model fails on this text, the words alone answer, as without a model. The search's
    // filters narrow the neighbours before they are taken, so that a narrow filter still gets
    // its own; `passes` checks each memory again as it is now (a dismissal since). Each memory
    // the words found gets its cosine too, nearest or not, so that fusing weighs both.
    let scope = crate::store::vectors::VectorScope {
        project: q.project.as_deref(),
        mtype: q.mtype,
        kind: q.kind,
        since: q.since,
        until: until_as_of(q),
    };
    let word_ids: Vec<i64> = words.hits.iter().map(|h| h.memory.id).collect();
    let found = semantic
        .meaning(store, text, &scope, 2 * depth, &word_ids)
        .unwrap_or_default();
    let ids: Vec<i64> = found
        .nearest
        .iter()
        .map(|n| n.0)
        .filter(|id| !word_ids.contains(id))
        .collect();
    let mut by_id: std::collections::HashMap<i64, Memory> = store
        .get_many(&ids)?
        .into_iter()
        .filter(|m| passes(m, q))
        .map(|m| (m.id, m))
        .collect();
    let kscores: Vec<(i64, f64)> = words.hits.iter().map(|h| (h.memory.id, h.score)).collect();
    for h in words.hits.drain(..) {
        by_id.insert(h.memory.id, h.memory);
    }
    let meaning: Vec<(i64, f64)> = found
        .nearest
        .iter()
        .filter(|n| by_id.contains_key(&n.0))
        .take(depth)
        .map(|n| (n.0, f64::from(n.1)))
        .collect();
    let cosines: std::collections::HashMap<i64, f64> = found
        .cosines
        .iter()
        .map(|(id, c)| (*id, f64::from(*c)))
        .chain(meaning.iter().copied())
        .collect();
    let mut fused = fuse(&kscores, &meaning, &cosines);
    if q.offset < semantic.rerank_depth() {
        rerank(semantic, text, &mut fused, &by_id);
    }
    words.hits = fused
        .into_iter()
        .skip(q.offset)
        .take(limit)
        .filter_map(|(id, score)| {
            Some(Hit {
                memory: by_id.remove(&id)?,
                score,
                stale: None,
                replaced_by: None,
            })
        })
        .collect();
    if !words.hits.is_empty() {
        words.reason = None;
    }
    settle(store, q, &mut words.hits)?;
    Ok(words)
}

/// Whether a memory found by meaning passes the filters the keyword search applies in SQL.
fn passes(m: &Memory, q: &SearchQuery) -> bool {
    !m.dismissed
        && q.project.as_ref().is_none_or(|p| *p == m.project)
        && q.mtype.is_none_or(|t| t == m.mtype)
        && q.kind.is_none_or(|k| k == m.kind)
        && q.since.is_none_or(|s| m.created_at >= s)
        && until_as_of(q).is_none_or(|u| m.created_at < u)
}

/// Each score's distance from the scores' mean, in standard deviations. Scores that are all
/// alike (or a single one) are all 0: they tell the results apart not at all.
fn z_scores(scores: &[f64]) -> Vec<f64> {
    z_scores_over(scores, 0.0)
}

/// [`z_scores`] with the spread taken as at least `least`: for a score on a scale of its own,
/// so that differences too small to mean anything on that scale stay small instead of being
/// stretched to a standard deviation.
fn z_scores_over(scores: &[f64], least: f64) -> Vec<f64> {
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n.max(1.0);
    let spread = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n.max(1.0))
        .sqrt()
        .max(least);
    scores
        .iter()
        .map(|s| {
            if spread > 1e-9 {
                (s - mean) / spread
            } else {
                0.0
            }
        })
        .collect()
}

/// Fuse the word ranking (adjusted BM25, best first) with the meaning ranking (the nearest by
/// cosine, best first), given every candidate's cosine where it has a vector. The words'
/// scores become z-scores over the word list, the cosines z-scores over every candidate, and a
/// memory scores `WORDS_WEIGHT` × its words' z plus the rest × its meaning's z. A memory the
/// words did not find takes the words' lowest z (its BM25 is at most the last one's), and one
/// without a vector meaning's lowest (0 when there are none).
///
/// Z-scores rather than each score over the best: a stronger model's cosines sit in a narrow
/// band (0.75 to 0.85, say), so scaled by the best they barely differ, and the words, which
/// spread from 1 down to near 0, would decide alone. With e5-small-v2 on LoCoMo, fused so, hit@5
/// is 0.704 against 0.608 for words alone (`docs/recall.md`).
/// Best first; a tie goes to the word ranking's order, then the meaning ranking's.
fn fuse(
    words: &[(i64, f64)],
    meaning: &[(i64, f64)],
    cosines: &std::collections::HashMap<i64, f64>,
) -> Vec<(i64, f64)> {
    let mut order: Vec<i64> = words.iter().map(|w| w.0).collect();
    for (id, _) in meaning {
        if !order.contains(id) {
            order.push(*id);
        }
    }
    let word_z = z_scores(&words.iter().map(|w| w.1).collect::<Vec<_>>());
    let word_of: std::collections::HashMap<i64, f64> = words
        .iter()
        .map(|w| w.0)
        .zip(word_z.iter().copied())
        .collect();
    let word_floor = word_z.iter().copied().fold(0.0, f64::min);
    // Meaning's z-scores are over every candidate with a vector, from either list: what is
    // close is judged against the whole pool the words and the meaning brought.
    let with_vector: Vec<i64> = order
        .iter()
        .copied()
        .filter(|id| cosines.contains_key(id))
        .collect();
    let meaning_z = z_scores(&with_vector.iter().map(|id| cosines[id]).collect::<Vec<_>>());
    let meaning_of: std::collections::HashMap<i64, f64> = with_vector
        .into_iter()
        .zip(meaning_z.iter().copied())
        .collect();
    let meaning_floor = meaning_z.iter().copied().fold(0.0, f64::min);
    let mut out: Vec<(i64, f64, usize)> = order
        .into_iter()
        .enumerate()
        .map(|(rank, id)| {
            let w = word_of.get(&id).copied().unwrap_or(word_floor);
            let m = meaning_of.get(&id).copied().unwrap_or(meaning_floor);
            (id, WORDS_WEIGHT * w + (1.0 - WORDS_WEIGHT) * m, rank)
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(id, s, _)| (id, s)).collect()
}

/// Re-order the first [`crate::embed::semantic::Semantic::rerank_depth`] of `fused` by the re-ranker, mixed with their fused
/// scores (both as z-scores over those results, `RERANK_WEIGHT` to the re-ranker); the rest
/// keep their order below them, their scores shifted under the last re-ranked one so that
/// scores still fall down the list. Without a re-ranker, or if it fails, nothing changes.
fn rerank(
    semantic: &crate::embed::semantic::Semantic,
    query: &str,
    fused: &mut [(i64, f64)],
    memories: &std::collections::HashMap<i64, Memory>,
) {
    let head = fused.len().min(semantic.rerank_depth());
    if head < 2 {
        return;
    }
    let passages: Vec<String> = fused[..head]
        .iter()
        .map(|(id, _)| memories.get(id).map(passage).unwrap_or_default())
        .collect();
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let Some(Ok(scores)) = semantic.rerank(query, &refs) else {
        return;
    };
    let judged = z_scores_over(
        &scores.iter().map(|s| f64::from(*s)).collect::<Vec<_>>(),
        RERANK_LEAST_SPREAD,
    );
    let first = z_scores(&fused[..head].iter().map(|f| f.1).collect::<Vec<_>>());
    let mut top: Vec<(i64, f64, usize)> = fused[..head]
        .iter()
        .enumerate()
        .map(|(i, (id, _))| {
            let mixed = RERANK_WEIGHT * judged[i] + (1.0 - RERANK_WEIGHT) * first[i];
            (*id, mixed, i)
        })
        .collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    let floor = top.last().map_or(0.0, |t| t.1);
    let below = fused.get(head).map_or(floor, |f| f.1);
    for (slot, (id, score, _)) in fused.iter_mut().zip(top) {
        *slot = (id, score);
    }
    for slot in &mut fused[head..] {
        slot.1 = slot.1 - below + floor - 1.0;
    }
}

/// What the re-ranker reads of a memory: its title, unless the text starts with it, then the
/// text, cut to what the model reads.
fn passage(m: &Memory) -> String {
    let body = if m.text.starts_with(m.title.trim_end_matches('…')) {
        m.text.clone()
    } else {
        format!("{}\n{}", m.title, m.text)
    };
    crate::model::cut_chars(&body, RERANK_CHARS)
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
    fn fusion_weighs_both_rankings_by_their_spread() {
        // By words: 1 (best by far), 4, 7. By meaning: 7, 9 and 4, close together.
        let words = [(1, 10.0), (4, 6.0), (7, 5.0)];
        let meaning = [(7, 0.84), (9, 0.83), (4, 0.80)];
        let mut cosines: std::collections::HashMap<i64, f64> = meaning.iter().copied().collect();
        cosines.insert(1, 0.70);
        let fused: Vec<i64> = fuse(&words, &meaning, &cosines)
            .iter()
            .map(|f| f.0)
            .collect();
        // Meaning's narrow band still counts: 7 leads both lists' tails, and 1, far from the
        // query in meaning (below meaning's whole list), drops under memories both find.
        assert_eq!(fused, vec![7, 9, 4, 1]);
        // Without meaning the word order stands; without words, meaning's.
        let alone: Vec<i64> = fuse(&words, &[], &std::collections::HashMap::new())
            .iter()
            .map(|f| f.0)
            .collect();
        assert_eq!(alone, vec![1, 4, 7]);
        let meaning_only: Vec<i64> = fuse(&[], &meaning, &cosines).iter().map(|f| f.0).collect();
        assert_eq!(meaning_only, vec![7, 9, 4]);
    }

    #[test]
    fn a_memory_only_one_ranking_found_takes_the_other_s_lowest() {
        // 3 has no vector: it takes meaning's lowest z, so words alone keep it above nothing.
        let words = [(3, 9.0), (5, 1.0)];
        let meaning = [(5, 0.9), (8, 0.1)];
        let cosines: std::collections::HashMap<i64, f64> = meaning.iter().copied().collect();
        let fused = fuse(&words, &meaning, &cosines);
        let ids: Vec<i64> = fused.iter().map(|f| f.0).collect();
        // 5: 0.3 x -1 + 0.7 x 1 = 0.4; 3: 0.3 x 1 + 0.7 x -1 = -0.4; 8: 0.3 x -1 + 0.7 x -1.
        assert_eq!(ids, vec![5, 3, 8]);
        assert!((fused[0].1 - 0.4).abs() < 1e-9, "{fused:?}");
        assert!((fused[2].1 + 1.0).abs() < 1e-9, "{fused:?}");
    }

    #[test]
    fn a_spread_floor_keeps_tiny_gaps_tiny() {
        let z = z_scores_over(&[-11.152, -11.150], 1.0);
        assert!(z[0].abs() < 0.01 && z[1].abs() < 0.01, "{z:?}");
        // A gap wider than the floor is measured by its own spread.
        let z = z_scores_over(&[-5.0, 5.0], 1.0);
        assert!((z[0] + 1.0).abs() < 1e-12 && (z[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn z_scores_of_alike_scores_are_zero() {
        assert_eq!(z_scores(&[2.0, 2.0]), vec![0.0, 0.0]);
        assert_eq!(z_scores(&[5.0]), vec![0.0]);
        let z = z_scores(&[1.0, 3.0]);
        assert!((z[0] + 1.0).abs() < 1e-12 && (z[1] - 1.0).abs() < 1e-12);
    }
}
