//! A hub's side of a sync: take a machine's push, settle versions that did not see each
//! other, and serve what the hub gained after a machine's cursor, by the hub's own sequence.
//!
//! A pushed change whose base is what the hub holds (or that follows the hub's copy from the
//! same machine) replaces it. Any other is concurrent: the later revision wins, the winner
//! keeps the loser's tombstones (a dismissal, a disabled rule), and the loser is kept in
//! `sync_conflicts` ([`super::hub_rules`] decides, for the PostgreSQL hub too). The pusher is answered with the hub's version of every item it did not
//! take as sent, so both sides end with the same content.

use super::hub_rules;
use super::items::{self, Written};
use super::machine::{held, stamp, store_at};
use super::{advance_meta, clock, machine_id, meta, meta_int, save_clock};
use crate::redact::Redacted;
use crate::store::{Store, StoreError};
use crate::sync::hlc;
use crate::sync::item::{Batch, Change, Item};
use rusqlite::{Transaction, params};

/// The next number in the hub's sequence.
pub(super) fn next_seq(tx: &Transaction<'_>) -> rusqlite::Result<i64> {
    tx.prepare_cached("SELECT coalesce(max(seq), 0) + 1 FROM sync_revs WHERE seq IS NOT NULL")?
        .query_row([], |r| r.get(0))
}

/// What a push came to.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Received {
    pub accepted: usize,
    pub unchanged: usize,
    /// Versions that did not see the hub's: settled, the loser kept.
    pub conflicts: usize,
    /// Items for a project the token may not touch.
    pub refused: usize,
    pub orphans: usize,
    /// Why the whole push was refused, when it was: nothing in it was written.
    pub rejected: Option<String>,
    /// The hub's version of each item it did not take as sent.
    #[serde(skip)]
    pub current: Batch,
}

/// A kept losing version.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Conflict {
    pub id: i64,
    pub at: i64,
    pub kind: String,
    pub key: String,
    pub winner_rev: String,
    pub winner_origin: String,
    pub loser_rev: String,
    pub loser_origin: String,
    /// The losing version, as it was.
    pub loser: serde_json::Value,
}

/// Whether every project `item` names (or, for an episode, its memory's) passes `allowed`.
fn allowed_item(
    tx: &Transaction<'_>,
    item: &Item,
    allowed: &dyn Fn(&str) -> bool,
) -> rusqlite::Result<bool> {
    let memory_project: Option<String> = match item {
        Item::Episode(e) => rusqlite::OptionalExtension::optional(
            tx.prepare_cached("SELECT project FROM memories WHERE uid = ?1")?
                .query_row([&e.memory_uid], |r| r.get(0)),
        )?,
        _ => None,
    };
    Ok(hub_rules::allowed_item(
        item,
        memory_project.as_deref(),
        allowed,
    ))
}

/// The hub's current version of an item, as it travels.
fn current(
    tx: &Transaction<'_>,
    kind: &str,
    key: &str,
    names: &mut items::Names,
) -> rusqlite::Result<Option<Change>> {
    let Some((rev, origin)) = held(tx, kind, key)? else {
        return Ok(None);
    };
    Ok(
        items::read(tx, kind, key, names, false)?.map(|item| Change {
            rev,
            base: None,
            origin,
            item,
        }),
    )
}

/// Give every memory stored on the hub itself (over MCP) since the last call a revision and
/// a sequence number, and stamp the hub's own edits, so machines pull them.
fn absorb(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let me = machine_id(tx)?;
    let after = meta_int(tx, meta::ABSORBED_MEMORY)?;
    let new: Vec<(i64, String, i64)> = tx
        .prepare_cached(
            "SELECT m.id, m.uid, m.created_at FROM memories m WHERE m.id > ?1
               AND m.id NOT IN (SELECT memory_id FROM work_lists)
               AND NOT EXISTS (SELECT 1 FROM sync_revs r WHERE r.kind = 'memory' AND r.key = m.uid)
             ORDER BY m.id",
        )?
        .query_map([after], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (_, uid, created_at) in &new {
        let seq = next_seq(tx)?;
        tx.prepare_cached(
            "INSERT INTO sync_revs (kind, key, rev, base, origin, pending, seq) VALUES ('memory', ?1, ?2, NULL, ?3, 0, ?4)",
        )?
        .execute(params![uid, hlc::first(*created_at, &me), me, seq])?;
    }
    let last: Option<i64> = tx.query_row("SELECT max(id) FROM memories", [], |r| r.get(0))?;
    if let Some(last) = last.filter(|l| *l > after) {
        advance_meta(tx, meta::ABSORBED_MEMORY, last)?;
    }
    // After the new memories, so an episode or fact made with one is numbered after it.
    stamp(tx, true)?;
    Ok(())
}

/// Who pushes, as the hub's gate let them in.
pub struct Pusher<'a> {
    /// The token's id: a machine id is tied to the first token that pushes with it.
    pub token: i64,
    /// Which of the hub's projects it may write (`"\0every project"` asks for a rule for every
    /// project).
    pub allowed: &'a dyn Fn(&str) -> bool,
    /// Whether it may tie a repository the hub has not seen to a project: a token limited to
    /// projects may not, or it could route another team's repository into a project it reads.
    pub may_tie: bool,
    /// The hub's clock, which no revision may be far ahead of.
    pub now: i64,
}

/// Why a whole push is refused, before anything in it is written
/// ([`hub_rules::refuse_push`]); a machine pushing for the first time is tied to `token`.
fn refuse_push(
    tx: &Transaction<'_>,
    batch: &Batch,
    token: i64,
    now: i64,
) -> rusqlite::Result<Option<String>> {
    hub_rules::refuse_push(batch, now, |machine| another_tokens(tx, machine, token))
}

/// Whether sync machine `machine` belongs to another token than `token`: a machine belongs to
/// the first token that pushed with it (its items or its history), and is tied to `token` here
/// when no token pushed with it yet.
pub(in crate::store) fn another_tokens(
    tx: &Transaction<'_>,
    machine: &str,
    token: i64,
) -> rusqlite::Result<bool> {
    let bound: Option<i64> = rusqlite::OptionalExtension::optional(
        tx.prepare_cached("SELECT token FROM sync_machines WHERE machine = ?1")?
            .query_row([machine], |r| r.get(0)),
    )?;
    if bound.is_none() {
        tx.prepare_cached("INSERT INTO sync_machines (machine, token) VALUES (?1, ?2)")?
            .execute(params![machine, token])?;
    }
    Ok(bound.is_some_and(|t| t != token))
}

/// Keep a losing version, unless it is kept already, and only the newest few per item.
fn keep_conflict(
    tx: &Transaction<'_>,
    kind: &str,
    key: &str,
    winner: &Change,
    loser: &Change,
    now: i64,
) -> rusqlite::Result<bool> {
    let known = tx
        .prepare_cached(
            "SELECT 1 FROM sync_conflicts WHERE kind = ?1 AND key = ?2 AND loser_rev = ?3",
        )?
        .exists([kind, key, loser.rev.as_str()])?;
    if known {
        return Ok(false);
    }
    tx.prepare_cached(
        "INSERT INTO sync_conflicts (at, kind, key, winner_rev, winner_origin, loser_rev, loser_origin, loser)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        now,
        kind,
        key,
        winner.rev,
        winner.origin,
        loser.rev,
        loser.origin,
        serde_json::to_string(&loser.item).unwrap_or_default()
    ])?;
    tx.prepare_cached(
        "DELETE FROM sync_conflicts WHERE kind = ?1 AND key = ?2 AND id NOT IN
           (SELECT id FROM sync_conflicts WHERE kind = ?1 AND key = ?2 ORDER BY id DESC LIMIT ?3)",
    )?
    .execute(params![kind, key, hub_rules::CONFLICTS_KEPT])?;
    Ok(true)
}

impl Store {
    /// Take a machine's pushed batch for `pusher`.
    pub fn sync_receive(
        &mut self,
        batch: &Redacted<Batch>,
        pusher: &Pusher<'_>,
    ) -> Result<Received, StoreError> {
        let batch = batch.get();
        let allowed = pusher.allowed;
        self.write(|tx| {
            // The hub's own edits first, so a push that races one is settled against it.
            absorb(tx)?;
            let mut out = Received::default();
            if let Some(why) = refuse_push(tx, batch, pusher.token, pusher.now)? {
                out.rejected = Some(why);
                return Ok(out);
            }
            let me = machine_id(tx)?;
            let mut c = clock(tx)?;
            for change in &batch.changes {
                if hub_rules::too_big(&change.item) {
                    out.refused += 1;
                    continue;
                }
                let item =
                    items::localise(tx, change.item.clone(), &batch.projects, pusher.may_tie)?;
                if !allowed_item(tx, &item, allowed)? {
                    out.refused += 1;
                    continue;
                }
                let kind = item.kind();
                let key = items::key_of(&item);
                let held_item = items::read_local(tx, kind, &key)?;
                if let Some(h) = &held_item
                    && (!hub_rules::same_place(h, &item) || !allowed_item(tx, h, allowed)?)
                {
                    out.refused += 1;
                    continue;
                }
                c.observe(&change.rev);
                let incoming = Change {
                    item,
                    ..change.clone()
                };
                let settled = hub_rules::settle(incoming, held(tx, kind, &key)?, held_item).apply(
                    &mut out,
                    &me,
                    |winner, loser| keep_conflict(tx, kind, &key, winner, loser, pusher.now),
                    || c.tick(pusher.now, &me),
                )?;
                if let Some(settled) = settled {
                    let taken_as_sent = settled.rev == change.rev;
                    match store_at(tx, &settled, Some(next_seq(tx)?))? {
                        Written::Stored if taken_as_sent => out.accepted += 1,
                        Written::Stored => {}
                        Written::Orphan => out.orphans += 1,
                    }
                }
                if held_differs(tx, kind, &key, &change.rev)? {
                    let mut names = items::Names::new();
                    if let Some(now) = current(tx, kind, &key, &mut names)? {
                        out.current.projects.extend(names);
                        out.current.changes.push(now);
                    }
                }
            }
            save_clock(tx, c)?;
            Ok(out)
        })
    }

    /// Up to `limit` items the hub gained after `after` in its sequence, without those whose
    /// revision came from `machine` (it has them) or that `allowed` refuses. Returns the batch,
    /// the sequence number to continue after, and how many numbers are left past it.
    pub fn sync_changes_since(
        &mut self,
        after: i64,
        limit: usize,
        machine: &str,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Result<(Batch, i64, i64), StoreError> {
        self.write(|tx| {
            absorb(tx)?;
            let rows: Vec<(String, String, String, String, i64)> = tx
                .prepare_cached(
                    "SELECT kind, key, rev, origin, seq FROM sync_revs WHERE seq > ?1 ORDER BY seq LIMIT ?2",
                )?
                .query_map(
                    params![after, crate::store::sql_numbers::sql_int(limit)],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )?
                .collect::<Result<_, _>>()?;
            let mut batch = Batch::default();
            let mut next = after;
            let mut bytes = 0;
            for (kind, key, rev, origin, seq) in rows {
                if bytes >= hub_rules::MAX_PULL_BYTES {
                    break;
                }
                next = seq;
                if origin == machine {
                    continue;
                }
                let Some(local) = items::read_local(tx, &kind, &key)? else {
                    continue;
                };
                if !allowed_item(tx, &local, allowed)? {
                    continue;
                }
                let mut names = items::Names::new();
                let Some(item) = items::read(tx, &kind, &key, &mut names, false)? else {
                    continue;
                };
                bytes += serde_json::to_string(&item).map_or(0, |s| s.len());
                batch.projects.extend(names);
                batch.changes.push(Change {
                    rev,
                    base: None,
                    origin,
                    item,
                });
            }
            let left = tx.query_row(
                "SELECT count(*) FROM sync_revs WHERE seq > ?1",
                [next],
                |r| r.get(0),
            )?;
            Ok((batch, next, left))
        })
    }

    /// The kept losing versions, newest first.
    pub fn sync_conflicts(&self, limit: usize) -> Result<Vec<Conflict>, StoreError> {
        let run = || -> rusqlite::Result<Vec<Conflict>> {
            self.conn
                .prepare(
                    "SELECT id, at, kind, key, winner_rev, winner_origin, loser_rev, loser_origin, loser
                     FROM sync_conflicts ORDER BY id DESC LIMIT ?1",
                )?
                .query_map([crate::store::sql_numbers::sql_int(limit)], |r| {
                    let loser: String = r.get(8)?;
                    Ok(Conflict {
                        id: r.get(0)?,
                        at: r.get(1)?,
                        kind: r.get(2)?,
                        key: r.get(3)?,
                        winner_rev: r.get(4)?,
                        winner_origin: r.get(5)?,
                        loser_rev: r.get(6)?,
                        loser_origin: r.get(7)?,
                        loser: serde_json::from_str(&loser).unwrap_or_default(),
                    })
                })?
                .collect()
        };
        if !self.sync_enabled()? {
            return Ok(Vec::new());
        }
        run().map_err(|e| self.err(e))
    }
}

/// Whether the hub now holds `kind`/`key` at a revision other than `rev`.
fn held_differs(tx: &Transaction<'_>, kind: &str, key: &str, rev: &str) -> rusqlite::Result<bool> {
    Ok(held(tx, kind, key)?.is_some_and(|(held, _)| held != rev))
}
