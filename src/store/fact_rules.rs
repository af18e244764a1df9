//! The rules that settle a new fact against the stored facts of its key (the cases
//! [`super::facts`] lists), apart from any engine. The SQLite store and PostgreSQL each give
//! [`store_fact`] their own reads and writes ([`FactWrites`]) but decide here, so that a fact
//! stored on either engine is a duplicate, history or a tie by the very same rules.

use super::cardinality::Cardinality;
use super::facts::{FactOutcome, NewFact, TIE_PENALTY};

/// A stored fact with the same project, subject and predicate as a new one.
pub(super) struct Known {
    pub(super) id: i64,
    pub(super) object: String,
    pub(super) valid_from: i64,
    pub(super) valid_to: Option<i64>,
    pub(super) confidence: f64,
}

impl Known {
    /// Whether this (closed) fact held at `t`; a fact closed at its own start (one that lost a
    /// review) still counts at that start, so a retry of it is recognised.
    fn held_at(&self, t: i64) -> bool {
        self.valid_from == t
            || self
                .valid_to
                .is_some_and(|to| self.valid_from < t && t < to)
    }
}

/// The form in which two objects count as the same: extractors and models differ in case,
/// spacing and a closing full stop, none of which changes what a fact says.
fn normalise(object: &str) -> String {
    object
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(|c: char| {
            matches!(c, '.' | ',' | ';' | ':' | '!' | '?') || c.is_whitespace()
        })
        .to_owned()
}

/// `c` moved by `delta`, kept within 0 to 1 and rounded so repeated steps leave no float dust.
/// Both engines round here, in Rust: PostgreSQL's `round` of a double rounds halves to even.
pub(super) fn shifted(c: f64, delta: f64) -> f64 {
    ((c + delta).clamp(0.0, 1.0) * 1e6).round() / 1e6
}

/// The reads and writes that storing a fact takes, in one engine's transaction and SQL.
pub(super) trait FactWrites {
    type Error;

    /// The stored facts, not dismissed, with `f`'s project, subject and predicate
    /// (case-insensitive, as `fact_history` reads them), oldest first.
    fn same_key(&mut self, f: &NewFact) -> Result<Vec<Known>, Self::Error>;

    /// Raise fact `id` to `confidence` if that is higher, unless it waits for review: only
    /// the review settles a tied fact's lowered confidence.
    fn keep_higher(&mut self, id: i64, confidence: f64) -> Result<(), Self::Error>;

    /// Store `f` with `confidence`; its id.
    fn insert(&mut self, f: &NewFact, confidence: f64, now: i64) -> Result<i64, Self::Error>;

    /// Close facts `ids` at `at` in the world, replaced by `by`; they stay as history.
    fn close(&mut self, ids: &[i64], at: i64, by: i64, now: i64) -> Result<(), Self::Error>;

    /// End the closed facts `ids` at `at`, replaced by `by`; their `superseded_at` keeps the
    /// first time the store replaced them.
    fn trim(&mut self, ids: &[i64], at: i64, by: i64, now: i64) -> Result<(), Self::Error>;

    /// Lower tied fact `id` to `confidence` while it waits for review.
    fn lower(&mut self, id: i64, confidence: f64) -> Result<(), Self::Error>;

    /// Open a review of facts `a` and `b` of `project`; its id.
    fn open_review(&mut self, project: &str, a: i64, b: i64, now: i64) -> Result<i64, Self::Error>;
}

/// Store `f` through `w`, settled against the stored facts of its key by the rules in
/// [`super::facts`]' comment.
pub(super) fn store_fact<W: FactWrites>(
    w: &mut W,
    f: &NewFact,
    now: i64,
) -> Result<FactOutcome, W::Error> {
    let known = w.same_key(f)?;
    let object = normalise(&f.object);
    let (same, other): (Vec<&Known>, Vec<&Known>) =
        known.iter().partition(|k| normalise(&k.object) == object);

    if let Some(dup) = same
        .iter()
        .find(|k| k.valid_to.is_none() || k.held_at(f.valid_from))
    {
        w.keep_higher(dup.id, f.confidence)?;
        return Ok(FactOutcome::Duplicate(dup.id));
    }

    // "Uses Redis" does not replace "uses SQLite": a multi-valued predicate's objects stand
    // side by side, and the cases below (history, supersession, a tie) are only between
    // versions of one thing ("uses PostgreSQL 16" after "uses PostgreSQL 15").
    let other: Vec<&Known> = if super::cardinality::of(&f.predicate) == Cardinality::Multi {
        let Some(name) = super::cardinality::versioned_name(&object) else {
            return Ok(FactOutcome::New(w.insert(f, f.confidence, now)?));
        };
        let versions: Vec<&Known> = other
            .into_iter()
            .filter(|k| {
                super::cardinality::versioned_name(&normalise(&k.object)).as_deref()
                    == Some(name.as_str())
            })
            .collect();
        if versions.is_empty() {
            return Ok(FactOutcome::New(w.insert(f, f.confidence, now)?));
        }
        versions
    } else {
        other
    };

    // A fact that arrives late can start inside a closed fact's interval: that fact then held
    // only until the new one started, so `fact_history` as of any instant gives one answer.
    let overlapped: Vec<i64> = other
        .iter()
        .filter(|k| {
            k.valid_to
                .is_some_and(|to| k.valid_from < f.valid_from && f.valid_from < to)
        })
        .map(|k| k.id)
        .collect();
    // Older news: it held until the first later fact started, current or already closed, so
    // it never overlaps the history that followed it.
    if let Some(newer) = other
        .iter()
        .filter(|k| k.valid_from > f.valid_from)
        .min_by_key(|k| (k.valid_from, k.id))
    {
        let id = w.insert(f, f.confidence, now)?;
        w.close(&[id], newer.valid_from, newer.id, now)?;
        w.trim(&overlapped, f.valid_from, id, now)?;
        return Ok(FactOutcome::Historical(id));
    }

    let current = other.into_iter().filter(|k| k.valid_to.is_none());
    let (tied, earlier): (Vec<&Known>, Vec<&Known>) =
        current.partition(|k| k.valid_from == f.valid_from);
    let penalty = TIE_PENALTY * tied.len() as f64;
    let id = w.insert(f, shifted(f.confidence, -penalty), now)?;
    let closed: Vec<i64> = earlier.iter().map(|k| k.id).collect();
    w.close(&closed, f.valid_from, id, now)?;
    w.trim(&overlapped, f.valid_from, id, now)?;
    let mut reviews = Vec::with_capacity(tied.len());
    for old in &tied {
        w.lower(old.id, shifted(old.confidence, -TIE_PENALTY))?;
        reviews.push(w.open_review(&f.project, old.id, id, now)?);
    }
    Ok(match reviews.first() {
        Some(&review) => FactOutcome::Tied { id, review },
        None if !closed.is_empty() => FactOutcome::Superseded { id, closed },
        None => FactOutcome::New(id),
    })
}
