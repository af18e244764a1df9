//! Supersession links and feedback on PostgreSQL, kept and read as the SQLite store keeps them
//! (see [`crate::store::standing`]).

use crate::store::standing::{Cause, Feedback, Link, Standing, Vote, vote_columns};
use postgres::{Error, GenericClient};

/// Mark `older` as replaced by `newer`; whether a link was made (see the SQLite store's).
pub(super) fn link(
    c: &mut impl GenericClient,
    older: i64,
    newer: i64,
    cause: Cause,
    now: i64,
) -> Result<bool, Error> {
    if older == newer {
        return Ok(false);
    }
    let made = c.execute(
        "INSERT INTO memory_links (older, newer, cause, created_at)
         SELECT $1, $2, $3, $4
         WHERE EXISTS (SELECT 1 FROM memories WHERE id = $1)
           AND EXISTS (SELECT 1 FROM memories WHERE id = $2)
           AND NOT EXISTS (SELECT 1 FROM memory_links WHERE older = $2 AND newer = $1)
         ON CONFLICT DO NOTHING",
        &[&older, &newer, &cause.as_str(), &now],
    )?;
    Ok(made == 1)
}

/// The supersessions memory `id` takes part in, oldest first.
pub(super) fn links(c: &mut impl GenericClient, id: i64) -> Result<Vec<Link>, Error> {
    Ok(c.query(
        "SELECT older, newer, cause, created_at FROM memory_links
         WHERE older = $1 OR newer = $1 ORDER BY created_at, older, newer",
        &[&id],
    )?
    .iter()
    .map(|r| Link {
        older: r.get(0),
        newer: r.get(1),
        cause: Cause::parse(r.get(2)),
        created_at: r.get(3),
    })
    .collect())
}

/// Supersession and feedback in a scope as they stood at `as_of`.
pub(super) fn standing(
    c: &mut impl GenericClient,
    project: Option<&str>,
    as_of: Option<i64>,
) -> Result<Standing, Error> {
    let mut out = Standing::default();
    for r in c.query(
        "SELECT l.older, l.newer FROM memory_links l JOIN memories m ON m.id = l.older
         WHERE ($1::TEXT IS NULL OR m.project = $1) AND ($2::BIGINT IS NULL OR l.created_at <= $2)
         ORDER BY l.created_at, l.newer",
        &[&project, &as_of],
    )? {
        // Oldest first, so the newest replacement is the one kept.
        out.superseded.insert(r.get(0), r.get(1));
    }
    for r in c.query(
        "SELECT f.memory_id, f.favourite, f.positive, f.negative
         FROM memory_feedback f JOIN memories m ON m.id = f.memory_id
         WHERE ($1::TEXT IS NULL OR m.project = $1)",
        &[&project],
    )? {
        out.feedback.insert(r.get(0), feedback(&r));
    }
    Ok(out)
}

fn feedback(r: &postgres::Row) -> Feedback {
    Feedback {
        favourite: r.get("favourite"),
        positive: r.get("positive"),
        negative: r.get("negative"),
    }
}

/// Record `vote` on memory `id`: its feedback now, `None` when there is no such memory.
pub(super) fn give(
    c: &mut impl GenericClient,
    id: i64,
    vote: Vote,
    now: i64,
) -> Result<Option<Feedback>, Error> {
    let (favourite, positive, negative) = vote_columns(vote);
    if c.query_opt("SELECT 1 FROM memories WHERE id = $1 FOR SHARE", &[&id])?
        .is_none()
    {
        return Ok(None);
    }
    let row = c.query_one(
        "INSERT INTO memory_feedback (memory_id, favourite, positive, negative, updated_at)
         VALUES ($1, coalesce($2, false), $3, $4, $5)
         ON CONFLICT (memory_id) DO UPDATE SET
             favourite = coalesce($2, memory_feedback.favourite),
             positive = memory_feedback.positive + $3,
             negative = memory_feedback.negative + $4, updated_at = $5
         RETURNING favourite, positive, negative",
        &[&id, &favourite, &positive, &negative, &now],
    )?;
    Ok(Some(feedback(&row)))
}

/// The feedback memory `id` has.
pub(super) fn of(c: &mut impl GenericClient, id: i64) -> Result<Feedback, Error> {
    Ok(c.query_opt(
        "SELECT favourite, positive, negative FROM memory_feedback WHERE memory_id = $1",
        &[&id],
    )?
    .map(|r| feedback(&r))
    .unwrap_or_default())
}
