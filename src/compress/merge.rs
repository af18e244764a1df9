//! Near-duplicate merging: a new summary or note that says what an older memory of the same
//! project already says is folded into it (dismissed, reversibly, with the similarity in the
//! audit trail), so recall does not list the same thing twice.
//!
//! The similarity is a cosine in both cases, so one threshold (0.92) means the same thing:
//! - with the embedding model present, the cosine of the two sentence vectors (all-MiniLM-L6-v2,
//!   L2-normalised): it sees "the cache keeps entries for 30 s" and "cache entries live 30 s"
//!   as one statement;
//! - without it, the cosine of the two texts' word-count vectors (lowercased letters and digits):
//!   a lexical measure that needs no model and, at 0.92, only merges texts that share nearly
//!   every word in nearly the same proportions, such as a note saved twice with a typo fixed.
//!   Word sets (Jaccard) were the other candidate; their scale differs from a cosine's, and
//!   repeated words would count for nothing.
//!
//! A pair where only one side has a vector is compared lexically: mixing the two scales in one
//! pair would mean nothing.

use crate::store::compression::Comparable;
use std::collections::HashMap;

/// Merge at this similarity or more.
pub const THRESHOLD: f32 = 0.92;

/// One merge: `id` is a near-duplicate of the older `into`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Merge {
    pub id: i64,
    pub into: i64,
    pub similarity: f32,
}

/// For each of `fresh` (new memories), the most similar older memory among `older` at
/// [`THRESHOLD`] or more. A memory merged away is not a merge target for a later one.
pub fn near_duplicates(fresh: &[Comparable], older: &[Comparable]) -> Vec<Merge> {
    let bags: HashMap<i64, WordBag> = fresh
        .iter()
        .chain(older)
        .map(|c| (c.id, WordBag::new(&c.text)))
        .collect();
    let mut merged: Vec<Merge> = Vec::new();
    for f in fresh {
        let best = older
            .iter()
            .filter(|o| o.id < f.id && !merged.iter().any(|m| m.id == o.id))
            .map(|o| (o.id, similarity(f, o, &bags)))
            .filter(|&(_, s)| s >= THRESHOLD)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((into, similarity)) = best {
            merged.push(Merge {
                id: f.id,
                into,
                similarity,
            });
        }
    }
    merged
}

fn similarity(a: &Comparable, b: &Comparable, bags: &HashMap<i64, WordBag>) -> f32 {
    match (&a.vector, &b.vector) {
        (Some(x), Some(y)) => cosine(x, y),
        _ => bags[&a.id].cosine(&bags[&b.id]),
    }
}

fn cosine(x: &[f32], y: &[f32]) -> f32 {
    let dot: f32 = x.iter().zip(y).map(|(a, b)| a * b).sum();
    let nx: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
    let ny: f32 = y.iter().map(|a| a * a).sum::<f32>().sqrt();
    if nx == 0.0 || ny == 0.0 {
        0.0
    } else {
        dot / (nx * ny)
    }
}

/// Word counts of a text.
struct WordBag {
    counts: HashMap<String, f32>,
    norm: f32,
}

impl WordBag {
    fn new(text: &str) -> WordBag {
        let mut counts: HashMap<String, f32> = HashMap::new();
        for w in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            *counts.entry(w.to_lowercase()).or_default() += 1.0;
        }
        let norm = counts.values().map(|c| c * c).sum::<f32>().sqrt();
        WordBag { counts, norm }
    }

    fn cosine(&self, other: &WordBag) -> f32 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let dot: f32 = self
            .counts
            .iter()
            .filter_map(|(w, c)| other.counts.get(w).map(|d| c * d))
            .sum();
        dot / (self.norm * other.norm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: i64, text: &str, vector: Option<Vec<f32>>) -> Comparable {
        Comparable {
            id,
            text: text.into(),
            vector,
        }
    }

    #[test]
    fn a_note_saved_again_with_a_small_change_merges_into_the_older_one() {
        let older = [
            c(
                1,
                "The shop service uses SQLite for storage and Redis for the session cache.",
                None,
            ),
            c(2, "Deploys go through the staging cluster first.", None),
        ];
        let fresh = [c(
            5,
            "The shop service uses SQLite for storage, and Redis for the session cache",
            None,
        )];
        let m = near_duplicates(&fresh, &older);
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].id, m[0].into), (5, 1));
        assert!(m[0].similarity > 0.99);
    }

    #[test]
    fn related_but_different_texts_stay_apart_lexically() {
        let older = [c(1, "The shop service uses SQLite for storage.", None)];
        let fresh = [c(2, "The billing service uses Postgres for storage.", None)];
        assert!(near_duplicates(&fresh, &older).is_empty());
        // 5 shared words of 7 each: a cosine of about 0.71.
        let bags: HashMap<i64, WordBag> = [
            (1, WordBag::new(&older[0].text)),
            (2, WordBag::new(&fresh[0].text)),
        ]
        .into();
        let s = similarity(&fresh[0], &older[0], &bags);
        assert!((0.6..0.8).contains(&s), "{s}");
    }

    #[test]
    fn vectors_decide_when_both_sides_have_one() {
        let older = [c(
            1,
            "cache entries live thirty seconds",
            Some(vec![1.0, 0.0, 0.1]),
        )];
        let fresh = [c(
            3,
            "the cache keeps an entry for 30 s",
            Some(vec![0.99, 0.02, 0.1]),
        )];
        assert_eq!(near_duplicates(&fresh, &older).len(), 1);
        let far = [c(
            4,
            "the cache keeps an entry for 30 s",
            Some(vec![0.0, 1.0, 0.0]),
        )];
        assert!(near_duplicates(&far, &older).is_empty());
    }

    #[test]
    fn only_older_memories_are_targets_and_a_merged_one_is_not_a_target() {
        let a = c(1, "Use pnpm in the shop repo", None);
        let b = c(2, "Use pnpm in the shop repo", None);
        let newer = c(9, "Use pnpm in the shop repo", None);
        assert!(near_duplicates(std::slice::from_ref(&a), std::slice::from_ref(&newer)).is_empty());
        let m = near_duplicates(std::slice::from_ref(&b), &[a, b.clone()]);
        assert_eq!((m[0].id, m[0].into), (2, 1));
    }
}
