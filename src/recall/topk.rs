//! The best matches of a query by relevance, whatever their age: MaxScore over FTS5's postings.
//!
//! Scoring every memory that holds any query word is exact but slow: a question in plain words
//! shares a common word with most of a large store. Scoring only the newest matches is fast but
//! blind to an old memory that answers the question well. MaxScore is exact and usually fast.
//!
//! Each term's BM25 contribution has a ceiling (`DocFreqs::ceiling`: IDF × (k1 + 1), which no
//! row can pass however often it holds the word). Terms are walked one at a time, rarest first,
//! and each walk adds the term's share to a running score per row (term at a time: FTS5 gives
//! one doclist per phrase in rowid order and no per-block maxima, which rules out WAND and
//! block-max, while a walk of one phrase is its cheapest query). A row first seen at a term can
//! hold only that term and commoner ones, so once the ceilings of the terms still to walk, times
//! the largest adjustment a memory can get, fall short of a lower bound on the page's worst
//! score, no new row can reach the page: the remaining terms are walked only to complete the rows
//! already held, and FTS5 skips gathering counts for every other row (see `term_counts`). In
//! practice the rare words fill the page and the common ones cost little more than their walk.
//!
//! Pinned memories and those favoured by feedback can be lifted further than the rest, so they
//! are always held; every bound on the rest uses `rank::MAX_BOOST_UNPINNED`. Supersession and
//! feedback (`rank::standing`) are read for the whole scope once per search.

use super::rank::{self, Traits};
use crate::store::search::{CandidateReader, Candidates};
use crate::store::standing::Standing;
use crate::store::{Storage, StoreError};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

/// What a relevance search asks for.
pub(super) struct Request<'a> {
    /// The query's words.
    pub terms: &'a [String],
    /// The matches to walk: the project's (also checked exactly on each row read), filtered by
    /// the store only when the filter narrows (else the row checks in `Ranker::offer` are the
    /// only filter).
    pub candidates: Candidates<'a>,
    /// How many results the page needs (offset plus limit).
    pub need: usize,
    /// Rank as the store stood then: supersessions made later do not count.
    pub as_of: Option<i64>,
}

/// The best `need` matches of the sanitised query, best first, as (score, id).
pub(super) fn best(store: &dyn Storage, req: &Request) -> Result<Vec<(f64, i64)>, StoreError> {
    let index_rows = store.indexed_rows()?;
    let df = rank::document_frequencies(store, req.terms, index_rows)?;
    // Rarest first: the largest ceiling is the rarest term.
    let mut order: Vec<usize> = (0..req.terms.len()).collect();
    order.sort_by(|&a, &b| df.ceiling(b).total_cmp(&df.ceiling(a)).then(a.cmp(&b)));

    let mut ranker = Ranker::new(store, req)?;
    // The share of the store the walks may reach: each term's, as its sample tells it.
    let reach: f64 = df
        .terms
        .iter()
        .map(|t| t.hits as f64 / t.rows.max(1) as f64)
        .sum();
    let mut held = Running::new(index_rows, reach);
    let mut open = true;
    for (step, &term) in order.iter().enumerate() {
        let still_to_walk: f64 = order[step..].iter().map(|&t| df.ceiling(t)).sum();
        if open && ranker.floor(&held)? > still_to_walk * rank::MAX_BOOST_UNPINNED {
            open = false;
        }
        let only = (!open).then(|| {
            let mut ids = held.ids();
            ids.extend(&ranker.lifted);
            ids
        });
        let weight = df.terms[term].weight();
        let one = std::slice::from_ref(&req.terms[term]);
        store.each_match_counted(one, req.candidates, only, &mut |id, counts| {
            let share = rank::weighted_score(counts, 0, weight);
            if open || ranker.lifted.contains(&id) {
                held.add(id, share);
            } else {
                held.add_if_held(id, share);
            }
        })?;
    }
    // Lifted rows can pass any other, so each is offered; then the rest best first,
    // until one cannot reach the page: every row after it scores less. The best few are
    // selected and sorted first, not all of them: a common word holds most of the store.
    let (pinned, mut rest): (Vec<Entry>, Vec<Entry>) = held
        .entries()
        .partition(|(id, _)| ranker.lifted.contains(id));
    for (id, bm25) in pinned {
        ranker.offer(bm25, id, true)?;
    }
    let best_first = |a: &(i64, f64), b: &(i64, f64)| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0));
    let mut chunk = (4 * ranker.need).max(64);
    let mut from = 0;
    while from < rest.len() {
        let to = (from + chunk).min(rest.len());
        if to < rest.len() {
            rest[from..].select_nth_unstable_by(to - from - 1, best_first);
        }
        rest[from..to].sort_unstable_by(best_first);
        for &(id, bm25) in &rest[from..to] {
            if ranker.cannot_reach(bm25 * rank::MAX_BOOST_UNPINNED) {
                return Ok(ranker.into_best());
            }
            ranker.offer(bm25, id, false)?;
        }
        from = to;
        // Twice as many each time: when the scores are too close to cut early, the selections
        // add up to one sort, not one pass over the rest per chunk.
        chunk *= 2;
    }
    Ok(ranker.into_best())
}

/// A row's id and its BM25 so far.
type Entry = (i64, f64);

/// Where a held id sits in `Running::Dense` (it was checked when it was added).
fn slot(id: i64) -> usize {
    usize::try_from(id).unwrap_or(usize::MAX)
}

/// The BM25 so far of every row that can still make the page. A map; or, when the walks are
/// expected to touch a large share of the store, an array indexed by id (ids are dense, so the
/// store's largest id bounds it), which the walks, in id order, read and write in sequence.
enum Running {
    Map(HashMap<i64, f64>),
    /// A row is held when its score is above zero: every share is (a match's IDF is at least
    /// 1e-6 and its frequency at least one).
    Dense {
        scores: Vec<f64>,
        ids: Vec<i64>,
    },
}

impl Running {
    /// An array when the walks are expected to reach one row in 64 or more (`reach`, the
    /// share of the store): 8 bytes a memory then cost less than a map entry a match.
    fn new(index_rows: u64, reach: f64) -> Running {
        match usize::try_from(index_rows) {
            Ok(rows) if rows <= 1 << 26 && reach * 64.0 >= 1.0 => Running::Dense {
                scores: vec![0.0; rows + 1],
                ids: Vec::new(),
            },
            _ => Running::Map(HashMap::new()),
        }
    }

    fn add(&mut self, id: i64, share: f64) {
        match self {
            Running::Map(m) => *m.entry(id).or_default() += share,
            Running::Dense { scores, ids } => {
                let Ok(slot) = usize::try_from(id) else {
                    return;
                };
                // A row stored since the store's largest id was read.
                if slot >= scores.len() {
                    scores.resize(slot + 1, 0.0);
                }
                if scores[slot] == 0.0 {
                    ids.push(id);
                }
                scores[slot] += share;
            }
        }
    }

    fn add_if_held(&mut self, id: i64, share: f64) {
        match self {
            Running::Map(m) => {
                if let Some(score) = m.get_mut(&id) {
                    *score += share;
                }
            }
            Running::Dense { scores, .. } => {
                if let Some(score) = usize::try_from(id).ok().and_then(|s| scores.get_mut(s))
                    && *score > 0.0
                {
                    *score += share;
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Running::Map(m) => m.len(),
            Running::Dense { ids, .. } => ids.len(),
        }
    }

    fn ids(&self) -> Vec<i64> {
        match self {
            Running::Map(m) => m.keys().copied().collect(),
            Running::Dense { ids, .. } => ids.clone(),
        }
    }

    /// Each held row with its score so far.
    fn entries(&self) -> Box<dyn Iterator<Item = (i64, f64)> + '_> {
        match self {
            Running::Map(m) => Box::new(m.iter().map(|(&id, &s)| (id, s))),
            Running::Dense { scores, ids } => {
                Box::new(ids.iter().map(|&id| (id, scores[slot(id)])))
            }
        }
    }
}

/// The best `need` matches of a query in the store's own syntax, scored by the store's own
/// relevance (FTS5's `bm25()`). Its phrases cannot be taken apart, so every match is scored; the
/// user wrote the query and chose its cost.
pub(super) fn best_raw(
    store: &dyn Storage,
    req: &Request,
    query: &str,
) -> Result<Vec<(f64, i64)>, StoreError> {
    let mut ranker = Ranker::new(store, req)?;
    for (id, bm25) in store.native_scores(query, req.candidates)? {
        let lifted = ranker.lifted.contains(&id);
        ranker.offer(bm25, id, lifted)?;
    }
    Ok(ranker.into_best())
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

/// The best `need` adjusted scores so far. A row is read (for its date, type, pin and the checks
/// the index cannot make) only when its BM25 times its largest possible adjustment could still
/// enter the page.
struct Ranker<'s> {
    rows: Box<dyn CandidateReader + 's>,
    project: Option<String>,
    need: usize,
    newest: i64,
    /// The pinned rows and those feedback lifts: the rows that can pass `MAX_BOOST_UNPINNED`.
    lifted: HashSet<i64>,
    standing: Standing,
    /// Worst on top.
    best: BinaryHeap<Reverse<Scored>>,
    /// What each row read so far told: its traits, or `None` when it cannot be a result.
    seen: HashMap<i64, Option<Traits>>,
}

impl<'s> Ranker<'s> {
    fn new(store: &'s dyn Storage, req: &Request) -> Result<Ranker<'s>, StoreError> {
        let project = req.candidates.project;
        let standing = store.standing(project, req.as_of)?;
        let mut lifted = store.pinned_ids(project)?;
        lifted.extend(
            standing
                .feedback
                .keys()
                .filter(|&&id| rank::standing(id, &standing) > 1.0),
        );
        Ok(Ranker {
            rows: store.candidate_rows()?,
            project: project.map(str::to_owned),
            need: req.need.max(1),
            // Ages are measured from the scope's newest memory, so that a project last touched
            // a year ago still tells its fresher memories from its staler ones.
            newest: store.newest_in_scope(project)?,
            lifted,
            standing,
            best: BinaryHeap::with_capacity(req.need + 1),
            seen: HashMap::new(),
        })
    }

    /// Whether a row whose adjusted score is at most `bound` can no longer enter the page.
    fn cannot_reach(&self, bound: f64) -> bool {
        self.best.len() >= self.need
            && self
                .best
                .peek()
                .is_some_and(|Reverse(worst)| bound < worst.0)
    }

    /// A lower bound on the page's worst final score, from the running scores in `held` (each
    /// at most its row's final BM25): the `need`-th best adjusted score among the rows with the
    /// best running scores. Zero while fewer than `need` rows can be results.
    fn floor(&mut self, held: &Running) -> Result<f64, StoreError> {
        if held.len() < self.need {
            return Ok(0.0);
        }
        let mut top: Vec<(i64, f64)> = held.entries().collect();
        // A few spares, so that a dismissed row or another project's does not void the bound.
        let take = (2 * self.need).min(top.len());
        top.select_nth_unstable_by(take - 1, |a, b| b.1.total_cmp(&a.1));
        top.truncate(take);
        let mut adjusted = Vec::with_capacity(take);
        let newest = self.newest;
        for (id, bm25) in top {
            let factor = rank::standing(id, &self.standing);
            if let Some(traits) = self.traits(id)? {
                adjusted.push(rank::adjusted(bm25, traits, newest) * factor);
            }
        }
        if adjusted.len() < self.need {
            return Ok(0.0);
        }
        adjusted.sort_by(|a, b| b.total_cmp(a));
        Ok(adjusted[self.need - 1])
    }

    /// The row's traits, read once; `None` when it cannot be a result (dismissed, another
    /// project, or deleted since the index was read).
    fn traits(&mut self, id: i64) -> Result<Option<&Traits>, StoreError> {
        if !self.seen.contains_key(&id) {
            let traits = self.read(id)?;
            self.seen.insert(id, traits);
        }
        Ok(self.seen[&id].as_ref())
    }

    /// The row's traits as the store has them now, `None` when it cannot be a result.
    fn read(&mut self, id: i64) -> Result<Option<Traits>, StoreError> {
        let row = self.rows.eligible(id, self.project.as_deref())?;
        Ok(row.map(|row| Traits {
            created_at: row.created_at,
            pinned: row.pinned,
            mtype: row.mtype,
            kind: row.kind,
        }))
    }

    fn offer(&mut self, bm25: f64, id: i64, lifted: bool) -> Result<(), StoreError> {
        let boost = if lifted {
            rank::MAX_BOOST
        } else {
            rank::MAX_BOOST_UNPINNED
        };
        if self.cannot_reach(bm25 * boost) {
            return Ok(());
        }
        let newest = self.newest;
        // Read once more rather than kept: of a common word's rows most are offered once, and
        // keeping each would cost more than the read.
        let factor = rank::standing(id, &self.standing);
        let traits = match self.seen.get(&id) {
            Some(seen) => seen
                .as_ref()
                .map(|t| rank::adjusted(bm25, t, newest) * factor),
            None => self
                .read(id)?
                .map(|t| rank::adjusted(bm25, &t, newest) * factor),
        };
        let Some(score) = traits else {
            return Ok(());
        };
        self.best.push(Reverse(Scored(score, id)));
        if self.best.len() > self.need {
            self.best.pop();
        }
        Ok(())
    }

    fn into_best(self) -> Vec<(f64, i64)> {
        self.best
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(Scored(score, id))| (score, id))
            .collect()
    }
}

#[cfg(test)]
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    reason = "test data: small counters and seeded random numbers, far inside every range"
)]
mod tests {
    use super::*;
    use crate::model::NewMemory;
    use crate::redact::{Redacted, Redactor};
    use crate::store::OpenOptions;
    use crate::store::Store;

    /// A small deterministic generator (xorshift), so the stores are the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        /// A word index with a Zipf-like skew: low indexes are common.
        fn word(&mut self, vocabulary: u64) -> u64 {
            let u = (self.below(1 << 20) as f64 + 1.0) / (1 << 20) as f64;
            ((vocabulary as f64).powf(u) - 1.0) as u64
        }
    }

    /// Project, title, text, date, pinned, dismissed, kind, type.
    type Row = (
        String,
        String,
        String,
        i64,
        bool,
        bool,
        &'static str,
        &'static str,
    );

    fn insert(store: &mut Store, rows: &[Row]) {
        let redactor = Redactor::builtin();
        let batch: Vec<_> = rows
            .iter()
            .enumerate()
            .map(
                |(i, (project, title, text, at, pinned, dismissed, kind, mtype))| {
                    let m = NewMemory {
                        project: project.clone(),
                        kind: kind.parse().unwrap(),
                        mtype: mtype.parse().unwrap(),
                        title: title.clone(),
                        text: text.clone(),
                        host: "test".into(),
                        session_id: None,
                        files: vec![],
                        pinned: *pinned,
                        created_at: *at,
                    };
                    (
                        Redacted::new(m, &redactor),
                        Some(format!("h{i}")),
                        *dismissed,
                    )
                },
            )
            .collect();
        store.import(&batch).unwrap();
    }

    /// A store of `n` random memories over a skewed vocabulary, in three projects, with dates
    /// that do not follow ids, some pinned, some dismissed, of every kind and type.
    fn random_store(n: usize, seed: u64) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut rng = Rng(seed);
        let kinds = ["prompt", "event", "note", "summary", "observation"];
        let types = ["note", "decision", "gotcha", "bugfix", "change"];
        let rows: Vec<_> = (0..n)
            .map(|_| {
                let words = |rng: &mut Rng, k: u64| {
                    (0..1 + rng.below(k))
                        .map(|_| format!("w{}", rng.word(3000)))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                (
                    format!("p{}", rng.below(3)),
                    words(&mut rng, 6),
                    words(&mut rng, 40),
                    rng.below(400 * 86_400_000) as i64,
                    rng.below(200) == 0,
                    rng.below(100) == 0,
                    kinds[rng.below(5) as usize],
                    types[rng.below(5) as usize],
                )
            })
            .collect();
        insert(&mut store, &rows);
        (dir, store)
    }

    /// The reference: every match of any term scored, then the best `need`.
    fn exhaustive(
        store: &Store,
        terms: &[String],
        project: Option<&str>,
        need: usize,
    ) -> Vec<(f64, i64)> {
        let rows = store.indexed_rows().unwrap();
        let df = rank::document_frequencies(store, terms, rows).unwrap();
        let newest = store.newest_in_scope(project).unwrap();
        let mut matches = Vec::new();
        store
            .each_match_counted(terms, Candidates::default(), None, &mut |id, counts| {
                matches.push((id, counts.clone()))
            })
            .unwrap();
        let mut read = store.candidate_rows().unwrap();
        let mut all: Vec<(f64, i64)> = matches
            .into_iter()
            .filter_map(|(id, counts)| {
                let row = read.get(id).unwrap()?;
                let traits = Traits {
                    created_at: row.created_at,
                    pinned: row.pinned,
                    mtype: row.mtype,
                    kind: row.kind,
                };
                let keep = !row.dismissed && project.is_none_or(|p| p == row.project);
                keep.then(|| {
                    (
                        rank::adjusted(rank::bm25(&counts, &df), &traits, newest),
                        id,
                    )
                })
            })
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        all.truncate(need);
        all
    }

    fn pruned(
        store: &Store,
        terms: &[String],
        project: Option<&str>,
        need: usize,
    ) -> Vec<(f64, i64)> {
        let candidates = Candidates {
            project,
            filter: None,
        };
        best(
            store,
            &Request {
                terms,
                candidates,
                need,
                as_of: None,
            },
        )
        .unwrap()
    }

    /// One to five words of `random_store`'s vocabulary, every other query in a project, and a
    /// page of 1, 10 or 30.
    fn random_query(rng: &mut Rng, q: usize) -> (Vec<String>, Option<String>, usize) {
        let terms = 1 + rng.below(5);
        let mut words: Vec<String> = (0..terms).map(|_| format!("w{}", rng.word(3000))).collect();
        words.dedup();
        let project = q.is_multiple_of(2).then(|| format!("p{}", rng.below(3)));
        (words, project, [1, 10, 30][q % 3])
    }

    #[test]
    fn the_pruned_top_ten_is_the_top_ten_of_every_match() {
        for (n, seed) in [(300, 1), (5_000, 2), (50_000, 3)] {
            let (_dir, store) = random_store(n, seed);
            let mut rng = Rng(seed * 7919);
            for q in 0..40 {
                let (words, project, need) = random_query(&mut rng, q);
                let want = exhaustive(&store, &words, project.as_deref(), need);
                let got = pruned(&store, &words, project.as_deref(), need);
                assert_eq!(
                    got.iter().map(|g| g.1).collect::<Vec<_>>(),
                    want.iter().map(|w| w.1).collect::<Vec<_>>(),
                    "store of {n}, query {words:?} in {project:?}, top {need}"
                );
                for (g, w) in got.iter().zip(&want) {
                    assert!((g.0 - w.0).abs() < 1e-9 * w.0.max(1.0));
                }
            }
        }
    }

    #[test]
    fn the_keyword_index_in_memory_ranks_every_query_as_fts5_does() {
        let (dir, store) = random_store(20_000, 4);
        let served =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::SEARCH_SERVING).unwrap();
        served.wait_for_keywords();
        let mut rng = Rng(31);
        for q in 0..60 {
            let (words, project, need) = random_query(&mut rng, q);
            let got = pruned(&served, &words, project.as_deref(), need);
            // The same counts in the same order: the same scores to the bit.
            assert_eq!(got, pruned(&store, &words, project.as_deref(), need));
            let want = exhaustive(&store, &words, project.as_deref(), need);
            assert_eq!(
                got.iter().map(|g| g.1).collect::<Vec<_>>(),
                want.iter().map(|w| w.1).collect::<Vec<_>>(),
                "query {words:?} in {project:?}, top {need}"
            );
        }
    }

    #[test]
    fn an_old_memory_with_most_query_words_is_found_under_twenty_thousand_newer_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut store =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let day = 86_400_000;
        // A year ago: how the cache was set up for staging. Three of the question's four words.
        let mut rows = vec![(
            "shop".to_owned(),
            "Cache for staging".to_owned(),
            "We configured the Redis cache for the staging environment with a ten minute TTL."
                .to_owned(),
            0,
            false,
            false,
            "note",
            "note",
        )];
        // Since then: everyday memories, each sharing one or two common words of the question.
        let common = [
            "configured",
            "cache",
            "staging",
            "deploy",
            "the",
            "build",
            "test",
        ];
        let mut rng = Rng(42);
        for i in 0..20_000 {
            let a = common[rng.below(common.len() as u64) as usize];
            let b = common[rng.below(common.len() as u64) as usize];
            rows.push((
                "shop".to_owned(),
                format!("step {i}"),
                format!(
                    "ran {a} then {b} on branch {} of the worker",
                    rng.below(500)
                ),
                365 * day + i as i64 * 60_000,
                false,
                false,
                "event",
                "change",
            ));
        }
        insert(&mut store, &rows);
        let words: Vec<String> = ["configured", "cache", "staging", "deploy"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        let got = pruned(&store, &words, Some("shop"), 10);
        assert_eq!(got[0].1, 1, "the old memory comes first: {got:?}");
    }
}
