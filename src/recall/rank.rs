//! Relevance: BM25 over title and text, computed here rather than by FTS5's `bm25()`.
//!
//! The formula is FTS5's own (k1 1.2, b 0.75, the row's length over the index's average length;
//! title and text weighted alike, see `WEIGHTS`), fed by the per-row counts of
//! `store::term_counts`. What differs is where the document frequencies come from: `bm25()`
//! counts each term over the whole index on every query, which at a million memories cost more
//! than everything else a search does. Here a term is counted exactly when it is rare (fewer than
//! `DF_SAMPLE` rows hold it), and otherwise estimated from its newest `DF_SAMPLE` rows: the share
//! of the rows they span that hold it. Rare words, the ones that decide a ranking, get exact
//! weights wherever in time they sit; a common word's weight is close to its true one and costs
//! a bounded walk. Then the score is adjusted for what a coding agent needs back: pinned
//! memories and decisions first, fresher before staler, raw tool events below what people said.

use crate::model::{Kind, MemoryType};
use crate::store::standing::Standing;
use crate::store::term_counts::TermCounts;
use crate::store::{Storage, StoreError};

/// A term held by fewer rows than this is counted exactly; a commoner one is estimated from
/// this many of its newest rows.
pub const DF_SAMPLE: u64 = 2_000;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Weights per column: title, text (the project column carries no weight). Alike: a memory's
/// title is nearly always its text's first line, so its words are already counted once in the
/// text. Measured with recency at 5%, the title at 4× and at 1×: the buried-memory benchmark's
/// nDCG@10 against plain BM25 went from 0.889 to 0.980, and LoCoMo's hit@5 from 0.598 to 0.608.
pub const WEIGHTS: [f64; 2] = [1.0, 1.0];

/// The most recency adds: a memory from the project's latest day scores up to 5% above one from
/// long ago. Enough to put the fresher of two near-equal matches first; too little to hide a
/// clearly better old one. Measured (buried-memory benchmark, nDCG@10 against plain BM25): with
/// the title at 4×, 25% gave 0.828 and 5% 0.889; with title and text alike, none gave 0.992 and
/// 5% 0.980.
const RECENCY: f64 = 0.05;

/// How common a term is: `hits` of `rows` hold it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermFreq {
    pub rows: u64,
    pub hits: u64,
}

/// The document frequency of each query term, in the query's order.
#[derive(Debug, Clone, PartialEq)]
pub struct DocFreqs {
    pub terms: Vec<TermFreq>,
}

impl DocFreqs {
    /// The most term `i` can add to a row's BM25, however often the row holds it: as the
    /// weighted frequency grows, `freq × (k1 + 1) / (freq + k1 × length)` tends to `k1 + 1`
    /// from below.
    pub fn ceiling(&self, i: usize) -> f64 {
        let t = self.terms[i];
        idf(t.rows, t.hits) * (K1 + 1.0)
    }
}

/// Count each term's documents (title or text): exactly for a term held by fewer than
/// `DF_SAMPLE` rows, else over the span of its newest `DF_SAMPLE` rows. `index_rows` is the
/// store's row count (its largest id: ids are dense). Each term is matched as the search matches
/// it, so stemming and phrases count alike. The store keeps each term's sample while it is
/// unchanged: a server answering many searches between writes counts each term once.
pub fn document_frequencies(
    store: &dyn Storage,
    terms: &[String],
    index_rows: u64,
) -> Result<DocFreqs, StoreError> {
    let terms = terms
        .iter()
        .map(|t| {
            let sample = store.term_sample(t, DF_SAMPLE)?;
            let hits = sample.hits;
            let rows = if hits < DF_SAMPLE {
                index_rows
            } else {
                // Ids run up to `index_rows`, so the sample spans the ids from its oldest.
                (index_rows + 1).saturating_sub(sample.oldest).max(hits)
            };
            Ok(TermFreq {
                rows: rows.max(hits),
                hits,
            })
        })
        .collect::<Result<_, StoreError>>()?;
    Ok(DocFreqs { terms })
}

/// BM25 of one row: the sum over the query's terms of IDF × saturated, length-normalised
/// frequency. Phrases beyond the terms (the project filter) add nothing.
pub fn bm25(c: &TermCounts, df: &DocFreqs) -> f64 {
    df.terms
        .iter()
        .enumerate()
        .map(|(i, &t)| term_score(c, i, t))
        .sum()
}

/// What the phrase at `phrase` of the counted expression adds to the row's BM25, as term `t`.
pub fn term_score(c: &TermCounts, phrase: usize, t: TermFreq) -> f64 {
    weighted_score(c, phrase, t.weight())
}

impl TermFreq {
    /// The term's IDF, for [`weighted_score`]: a walk over a common word's rows computes it
    /// once, not a logarithm per row.
    pub fn weight(self) -> f64 {
        idf(self.rows, self.hits)
    }
}

/// [`term_score`] with the term's IDF already computed ([`TermFreq::weight`]), the same to the
/// bit.
pub fn weighted_score(c: &TermCounts, phrase: usize, idf: f64) -> f64 {
    let Some(counts) = c.phrases.get(phrase) else {
        return 0.0;
    };
    let avgdl = if c.index_rows == 0 {
        1.0
    } else {
        (c.index_tokens as f64 / c.index_rows as f64).max(1.0)
    };
    let length = 1.0 - B + B * c.row_tokens as f64 / avgdl;
    let freq = WEIGHTS[0] * counts[0] as f64 + WEIGHTS[1] * counts[1] as f64;
    idf * freq * (K1 + 1.0) / (freq + K1 * length)
}

/// FTS5's IDF: rare terms weigh more; a term in more than half the rows weighs almost nothing
/// (never below zero, so a match never lowers a score).
fn idf(rows: u64, hits: u64) -> f64 {
    let v = ((rows as f64 - hits as f64 + 0.5) / (hits as f64 + 0.5)).ln();
    if v <= 0.0 { 1e-6 } else { v }
}

/// The most feedback lifts a memory: 6% for a favourite, 2% a net helpful vote up to 4%. Like
/// recency, enough to put the favoured of two near-equal matches first, too little to pass a
/// clearly better one.
pub const FEEDBACK_MAX: f64 = 1.10;

/// The share of its score a replaced memory keeps (see `supersession`): below the memory that
/// replaced it and most current matches, still found when it is what a search asks for.
pub const SUPERSEDED: f64 = 0.6;

/// How feedback and supersession move memory `id`'s score: a factor of at most
/// [`FEEDBACK_MAX`]. Not helpful votes lower it by 5% each, to 15% at most.
pub fn standing(id: i64, s: &Standing) -> f64 {
    let feedback = s.feedback.get(&id).map_or(1.0, |f| {
        let favourite = if f.favourite { 0.06 } else { 0.0 };
        let net = f.positive - f.negative;
        let votes = if net >= 0 {
            0.02 * net.min(2) as f64
        } else {
            -0.05 * (-net).min(3) as f64
        };
        1.0 + favourite + votes
    });
    let replaced = if s.superseded.contains_key(&id) {
        SUPERSEDED
    } else {
        1.0
    };
    feedback * replaced
}

/// What the ranking knows of a candidate besides its BM25.
pub struct Traits {
    pub created_at: i64,
    pub pinned: bool,
    pub mtype: MemoryType,
    pub kind: Kind,
}

/// The most `adjusted` and `standing` together can multiply a BM25 by: fresh, pinned, a
/// decision, favoured.
pub const MAX_BOOST: f64 = (1.0 + RECENCY) * 1.5 * 1.2 * FEEDBACK_MAX;
/// The most it can for a memory that is neither pinned nor lifted by feedback (most are).
pub const MAX_BOOST_UNPINNED: f64 = (1.0 + RECENCY) * 1.2;

/// BM25 adjusted for recency (age against `newest`), pinning, type and kind.
pub fn adjusted(bm25: f64, t: &Traits, newest: i64) -> f64 {
    let age_days = (newest - t.created_at).max(0) as f64 / 86_400_000.0;
    let recency = 1.0 + RECENCY / (1.0 + age_days / 30.0);
    let pinned = if t.pinned { 1.5 } else { 1.0 };
    let mtype = match t.mtype {
        MemoryType::Decision | MemoryType::Gotcha => 1.2,
        MemoryType::Bugfix | MemoryType::Discovery => 1.1,
        _ => 1.0,
    };
    let kind = match t.kind {
        Kind::Event => 0.85,
        _ => 1.0,
    };
    bm25 * recency * pinned * mtype * kind
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
    use crate::store::search::Candidates;
    use crate::store::{OpenOptions, Store};

    /// A store of `n` memories where "rare" occurs in every 50th and "common" in every 2nd.
    /// Each text ends with a word of its own, so that no two memories are the same memory.
    fn store(n: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let redactor = Redactor::builtin();
        let batch: Vec<_> = (0..n)
            .map(|i| {
                let mut words = vec![format!("filler{}", i % 7)];
                if i % 50 == 0 {
                    words.push("rare".into());
                }
                if i % 2 == 0 {
                    words.push("common".into());
                }
                let m = NewMemory {
                    project: "p".into(),
                    kind: Kind::Note,
                    mtype: MemoryType::Note,
                    title: words.join(" "),
                    text: format!("{} row{i}", words.join(" ")),
                    host: "test".into(),
                    session_id: None,
                    files: vec![],
                    pinned: false,
                    created_at: i as i64,
                };
                (Redacted::new(m, &redactor), Some(format!("h{i}")), false)
            })
            .collect();
        assert_eq!(store.import(&batch).unwrap(), (n, 0));
        (dir, store)
    }

    /// FTS5's own bm25() for the row `id` and the query `expr`.
    fn fts5_bm25(store: &Store, expr: &str, id: i64) -> f64 {
        let scores = store.native_scores(expr, Candidates::default()).unwrap();
        scores.into_iter().find(|s| s.0 == id).unwrap().1
    }

    /// Ours for the row `id` and any of `terms` in the project "p".
    fn ours(store: &Store, terms: &[String], id: i64) -> f64 {
        let mut counts = None;
        let candidates = Candidates {
            project: Some("p"),
            filter: None,
        };
        store
            .each_match_counted(terms, candidates, Some(vec![id]), &mut |row, c| {
                if row == id {
                    counts = Some(c.clone());
                }
            })
            .unwrap();
        let counts = counts.unwrap();
        let df = document_frequencies(store, terms, counts.index_rows).unwrap();
        bm25(&counts, &df)
    }

    #[test]
    fn below_the_sample_the_score_is_fts5s_own() {
        let (_dir, store) = store(500);
        let terms = vec!["rare".to_owned(), "common".to_owned()];
        let expr = "{title text} : (\"rare\" OR \"common\") AND project : \"p\"";
        for id in [1, 3, 51, 99, 401] {
            let (a, b) = (ours(&store, &terms, id), fts5_bm25(&store, expr, id));
            assert!(
                (a - b).abs() < 1e-9 * b.abs().max(1.0),
                "row {id}: {a} vs {b}"
            );
        }
    }

    #[test]
    fn a_rare_term_is_counted_exactly_and_a_common_one_from_its_newest_rows() {
        let n = 10_000;
        let (_dir, store) = store(n);
        let terms = vec!["rare".to_owned(), "common".to_owned()];
        let df = document_frequencies(&store, &terms, n as u64).unwrap();
        // "rare" is in rows i % 50 == 0 (200 of them): below the sample, so exact.
        assert_eq!(
            df.terms[0],
            TermFreq {
                rows: n as u64,
                hits: 200
            }
        );
        // "common" is in every other row: its newest DF_SAMPLE rows span twice as many ids.
        assert_eq!(
            df.terms[1],
            TermFreq {
                rows: 2 * DF_SAMPLE,
                hits: DF_SAMPLE
            }
        );
        assert!(df.ceiling(0) > df.ceiling(1));
    }

    #[test]
    fn no_adjustment_exceeds_the_bound_the_search_stops_on() {
        let types = [
            MemoryType::Decision,
            MemoryType::Gotcha,
            MemoryType::Bugfix,
            MemoryType::Note,
        ];
        let kinds = [
            Kind::Prompt,
            Kind::Event,
            Kind::Note,
            Kind::Summary,
            Kind::Observation,
        ];
        // The most feedback lifts: a favourite with more helpful votes than count.
        let favoured = Standing {
            feedback: [(
                7,
                crate::store::standing::Feedback {
                    favourite: true,
                    positive: 5,
                    negative: 0,
                },
            )]
            .into(),
            ..Standing::default()
        };
        let mut highest: f64 = 0.0;
        for mtype in types {
            for kind in kinds {
                for pinned in [false, true] {
                    for created_at in [-86_400_000, 0, 1_000, 10 * 86_400_000] {
                        let t = Traits {
                            created_at,
                            pinned,
                            mtype,
                            kind,
                        };
                        for (favoured, lift) in [(false, 1.0), (true, standing(7, &favoured))] {
                            let score = adjusted(2.0, &t, 1_000) * lift;
                            if !pinned && !favoured {
                                assert!(score <= 2.0 * MAX_BOOST_UNPINNED);
                            }
                            highest = highest.max(score);
                        }
                    }
                }
            }
        }
        assert_eq!(
            highest,
            2.0 * MAX_BOOST,
            "the bound is reached, never passed"
        );
    }

    #[test]
    fn a_rare_word_outweighs_a_common_one_and_idf_never_goes_negative() {
        assert!(idf(1000, 10) > idf(1000, 400));
        assert_eq!(idf(1000, 900), 1e-6);
        let counts = |rare, common| TermCounts {
            index_rows: 1000,
            index_tokens: 10_000,
            row_tokens: 10,
            phrases: vec![[0, rare], [0, common]],
        };
        let df = DocFreqs {
            terms: vec![
                TermFreq {
                    rows: 1000,
                    hits: 10,
                },
                TermFreq {
                    rows: 1000,
                    hits: 400,
                },
            ],
        };
        assert!(bm25(&counts(1, 0), &df) > bm25(&counts(0, 1), &df));
        let title = TermCounts {
            phrases: vec![[1, 0], [0, 0]],
            ..counts(0, 0)
        };
        assert_eq!(
            bm25(&title, &df),
            bm25(&counts(1, 0), &df),
            "title and text weigh alike"
        );
    }
}
