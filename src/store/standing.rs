//! Where a memory stands besides its text: whether a newer memory replaced it (a supersession
//! link, see [`crate::supersession`]) and what people said of it (feedback: favourite, helpful,
//! not helpful). Ranking reads both for a whole scope at once ([`Standing`]), the context block
//! leaves out what was replaced or rated down, and `inspect` shows each memory's links.
//!
//! The older memory of a supersession is never deleted or changed: the link is a row of its
//! own, with the time it was made, so a search "as of" an earlier time sees the memory as it
//! stood then. Neither table holds text, so a scrub has nothing to redact in them.

use super::{Store, StoreError};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use std::collections::HashMap;

/// Why a newer memory replaced an older one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The newer names the older's value as replaced ("switched from npm to pnpm", "instead
    /// of", "replaced X with Y").
    Replaced,
    /// The newer says the older no longer holds ("no longer deploys on Fridays").
    Stopped,
    /// Both state one single-valued fact of the same subject, with other values.
    Changed,
    /// Compression found their facts in conflict: the newer's fact closed the older's.
    Facts,
}

impl Cause {
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Replaced => "replaced",
            Cause::Stopped => "stopped",
            Cause::Changed => "changed",
            Cause::Facts => "facts",
        }
    }

    /// The stored name read back; a name this binary does not know reads as `Facts`, the
    /// plainest claim (a newer binary may know more causes).
    pub fn parse(s: &str) -> Cause {
        match s {
            "replaced" => Cause::Replaced,
            "stopped" => Cause::Stopped,
            "changed" => Cause::Changed,
            _ => Cause::Facts,
        }
    }
}

/// One supersession: `newer` replaced `older` at `created_at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub older: i64,
    pub newer: i64,
    pub cause: Cause,
    pub created_at: i64,
}

/// What people said of a memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Feedback {
    pub favourite: bool,
    /// How many times it was marked helpful, and not helpful.
    pub positive: i64,
    pub negative: i64,
}

impl Feedback {
    /// More said against it than for it, and not a favourite: the context block leaves it out.
    pub fn hides(&self) -> bool {
        !self.favourite && self.negative > self.positive
    }
}

/// One piece of feedback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    Favourite,
    Unfavourite,
    Positive,
    Negative,
}

/// Supersession and feedback for every memory of a scope that has either.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Standing {
    /// Each replaced memory, with the newest memory that replaced it.
    pub superseded: HashMap<i64, i64>,
    pub feedback: HashMap<i64, Feedback>,
}

impl Standing {
    /// Whether the context block may list `id` as current.
    pub fn current(&self, id: i64) -> bool {
        !self.superseded.contains_key(&id) && !self.feedback.get(&id).is_some_and(Feedback::hides)
    }
}

/// The project filter of the scope queries: every project when `None`. The queries walk the
/// links or the feedback and look each memory up (`CROSS JOIN` keeps that order): both are
/// made by people, a few per project, while a project may hold a million memories, and the
/// session-start block reads them.
const IN_SCOPE: &str = "(?1 IS NULL OR m.project = ?1)";

impl Store {
    /// Mark `older` as replaced by `newer` for `cause`, at `now`. Whether a link was made: none
    /// for a memory and itself, a pair already linked, or a pair linked the other way round
    /// (two memories cannot each replace the other), or when either memory is missing.
    pub fn link_superseded(
        &mut self,
        older: i64,
        newer: i64,
        cause: Cause,
        now: i64,
    ) -> Result<bool, StoreError> {
        if older == newer {
            return Ok(false);
        }
        self.write(|tx| {
            Ok(tx.execute(
                "INSERT OR IGNORE INTO memory_links (older, newer, cause, created_at)
                 SELECT ?1, ?2, ?3, ?4
                 WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?1)
                   AND EXISTS (SELECT 1 FROM memories WHERE id = ?2)
                   AND NOT EXISTS (SELECT 1 FROM memory_links WHERE older = ?2 AND newer = ?1)",
                params![older, newer, cause.as_str(), now],
            )? == 1)
        })
    }

    /// The supersessions memory `id` takes part in, either side, oldest first.
    pub fn memory_links(&self, id: i64) -> Result<Vec<Link>, StoreError> {
        let err = |e| self.err(e);
        self.conn
            .prepare_cached(
                "SELECT older, newer, cause, created_at FROM memory_links
                 WHERE older = ?1 OR newer = ?1 ORDER BY created_at, older, newer",
            )
            .map_err(err)?
            .query_map([id], |r| {
                Ok(Link {
                    older: r.get(0)?,
                    newer: r.get(1)?,
                    cause: Cause::parse(&r.get::<_, String>(2)?),
                    created_at: r.get(3)?,
                })
            })
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)
    }

    /// Supersession and feedback in `project` (every project when `None`) as they stood at
    /// `as_of` (now when `None`): a link made later does not count. Feedback has no history;
    /// it counts as it is.
    pub fn standing(
        &self,
        project: Option<&str>,
        as_of: Option<i64>,
    ) -> Result<Standing, StoreError> {
        let err = |e| self.err(e);
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let mut out = Standing::default();
        {
            let mut links = tx
                .prepare_cached(&format!(
                    "SELECT l.older, l.newer FROM memory_links l CROSS JOIN memories m ON m.id = l.older
                     WHERE {IN_SCOPE} AND (?2 IS NULL OR l.created_at <= ?2)
                     ORDER BY l.created_at, l.newer"
                ))
                .map_err(err)?;
            let rows = links
                .query_map(params![project, as_of], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(err)?;
            for row in rows {
                let (older, newer): (i64, i64) = row.map_err(err)?;
                // Oldest first, so the newest replacement is the one kept.
                out.superseded.insert(older, newer);
            }
            let mut feedback = tx
                .prepare_cached(&format!(
                    "SELECT f.memory_id, f.favourite, f.positive, f.negative
                     FROM memory_feedback f CROSS JOIN memories m ON m.id = f.memory_id
                     WHERE {IN_SCOPE}"
                ))
                .map_err(err)?;
            let rows = feedback
                .query_map(params![project], |r| Ok((r.get(0)?, feedback_from(r, 1)?)))
                .map_err(err)?;
            for row in rows {
                let (id, f): (i64, Feedback) = row.map_err(err)?;
                out.feedback.insert(id, f);
            }
        }
        Ok(out)
    }

    /// Record `vote` on memory `id` at `now`: the feedback it now has, `None` when there is no
    /// such memory.
    pub fn give_feedback(
        &mut self,
        id: i64,
        vote: Vote,
        now: i64,
    ) -> Result<Option<Feedback>, StoreError> {
        let (favourite, positive, negative) = vote_columns(vote);
        self.write(|tx| {
            let exists = tx
                .query_row("SELECT 1 FROM memories WHERE id = ?1", [id], |_| Ok(()))
                .optional()?
                .is_some();
            if !exists {
                return Ok(None);
            }
            tx.execute(
                "INSERT INTO memory_feedback (memory_id, favourite, positive, negative, updated_at)
                 VALUES (?1, ifnull(?2, 0), ?3, ?4, ?5)
                 ON CONFLICT (memory_id) DO UPDATE SET
                     favourite = ifnull(?2, favourite), positive = positive + ?3,
                     negative = negative + ?4, updated_at = ?5",
                params![id, favourite, positive, negative, now],
            )?;
            tx.query_row(
                "SELECT favourite, positive, negative FROM memory_feedback WHERE memory_id = ?1",
                [id],
                |r| feedback_from(r, 0),
            )
            .map(Some)
        })
    }

    /// The feedback memory `id` has (none given reads as the default).
    pub fn feedback_of(&self, id: i64) -> Result<Feedback, StoreError> {
        let err = |e| self.err(e);
        self.conn
            .prepare_cached(
                "SELECT favourite, positive, negative FROM memory_feedback WHERE memory_id = ?1",
            )
            .map_err(err)?
            .query_row([id], |r| feedback_from(r, 0))
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(err)
    }
}

/// The feedback in `r`'s columns from `first` on: favourite, positive, negative.
fn feedback_from(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Feedback> {
    Ok(Feedback {
        favourite: r.get(first)?,
        positive: r.get(first + 1)?,
        negative: r.get(first + 2)?,
    })
}

/// What `vote` sets: the favourite flag (`None`: unchanged), and what it adds to the helpful and
/// not-helpful counts. Shared with PostgreSQL, so both engines count alike.
pub(super) fn vote_columns(vote: Vote) -> (Option<bool>, i64, i64) {
    match vote {
        Vote::Favourite => (Some(true), 0, 0),
        Vote::Unfavourite => (Some(false), 0, 0),
        Vote::Positive => (None, 1, 0),
        Vote::Negative => (None, 0, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, MemoryType, NewMemory};
    use crate::redact::{Redacted, Redactor};
    use crate::store::OpenOptions;

    fn note(project: &str, text: &str, at: i64) -> Redacted<NewMemory> {
        let m = NewMemory {
            project: project.into(),
            kind: Kind::Note,
            mtype: MemoryType::Note,
            title: text.into(),
            text: text.into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: at,
        };
        Redacted::new(m, &Redactor::builtin())
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, s)
    }

    #[test]
    fn a_link_is_made_once_one_way_and_counts_from_when_it_was_made() {
        let (_d, mut s) = store();
        let a = s.insert(&note("shop", "We deploy with npm", 1)).unwrap().id;
        let b = s
            .insert(&note("shop", "We switched from npm to pnpm", 2))
            .unwrap()
            .id;
        let other = s.insert(&note("blog", "The blog uses Hugo", 3)).unwrap().id;
        assert!(!s.link_superseded(a, a, Cause::Replaced, 10).unwrap());
        assert!(!s.link_superseded(a, 999, Cause::Replaced, 10).unwrap());
        assert!(s.link_superseded(a, b, Cause::Replaced, 10).unwrap());
        assert!(!s.link_superseded(a, b, Cause::Replaced, 11).unwrap());
        assert!(!s.link_superseded(b, a, Cause::Replaced, 11).unwrap());

        let links = s.memory_links(b).unwrap();
        assert_eq!(
            links,
            vec![Link {
                older: a,
                newer: b,
                cause: Cause::Replaced,
                created_at: 10
            }]
        );
        let now = s.standing(Some("shop"), None).unwrap();
        assert_eq!(now.superseded.get(&a), Some(&b));
        assert!(!now.current(a) && now.current(b));
        assert!(s.standing(Some("shop"), Some(9)).unwrap().current(a));
        assert!(
            s.standing(Some("blog"), None)
                .unwrap()
                .superseded
                .is_empty()
        );
        assert!(s.standing(None, None).unwrap().current(other));
    }

    #[test]
    fn feedback_counts_votes_and_a_negative_majority_hides_unless_favoured() {
        let (_d, mut s) = store();
        let a = s
            .insert(&note("shop", "Tests run with pytest", 1))
            .unwrap()
            .id;
        assert_eq!(s.give_feedback(999, Vote::Positive, 5).unwrap(), None);
        assert_eq!(s.feedback_of(a).unwrap(), Feedback::default());
        s.give_feedback(a, Vote::Negative, 5).unwrap();
        let f = s.standing(Some("shop"), None).unwrap();
        assert!(!f.current(a), "one negative and nothing else hides it");
        let f = s.give_feedback(a, Vote::Favourite, 6).unwrap().unwrap();
        assert!(f.favourite && !f.hides());
        s.give_feedback(a, Vote::Unfavourite, 7).unwrap();
        s.give_feedback(a, Vote::Positive, 8).unwrap();
        let f = s.feedback_of(a).unwrap();
        assert_eq!(
            f,
            Feedback {
                favourite: false,
                positive: 1,
                negative: 1
            }
        );
        assert!(!f.hides(), "as much for as against does not hide");
    }

    #[test]
    fn a_merge_moves_links_and_feedback_but_never_makes_a_pair_both_ways_or_a_self_link() {
        let (_d, mut s) = store();
        let [a, x, k, y] = ["a", "x", "k", "y"].map(|t| s.insert(&note("shop", t, 1)).unwrap().id);
        s.link_superseded(a, x, Cause::Replaced, 10).unwrap();
        s.link_superseded(x, k, Cause::Replaced, 11).unwrap();
        s.link_superseded(y, a, Cause::Stopped, 12).unwrap();
        s.link_superseded(a, k, Cause::Changed, 13).unwrap();
        s.give_feedback(a, Vote::Positive, 14).unwrap();
        s.give_feedback(k, Vote::Negative, 15).unwrap();
        // `a` folds into `k`: a→x would become k→x beside x→k, and a→k would become k→k.
        s.write(|tx| super::super::rekey::merge_memory(tx, a, k))
            .unwrap();
        let pairs: Vec<(i64, i64)> = [x, k, y]
            .iter()
            .flat_map(|&id| s.memory_links(id).unwrap())
            .map(|l| (l.older, l.newer))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(pairs, [(x, k), (y, k)]);
        assert_eq!(
            s.feedback_of(k).unwrap(),
            Feedback {
                favourite: false,
                positive: 1,
                negative: 1
            }
        );
    }
}
