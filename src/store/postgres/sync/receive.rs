//! A push: refused whole or taken change by change. Each change's item is made the hub's
//! (its projects localised), the items' rows are locked, and each is settled against what
//! the hub holds by `store::sync::hub_rules`, as on SQLite, and written.

use super::items::{list_keys, read_local, store_at, store_new_memory, unknown_memories};
use super::projects::{localise, named};
use super::{Tx, absorb, clock, lock, machine_id, save_clock};
use crate::store::sync::hub_rules::{self, CONFLICTS_KEPT};
use crate::store::sync::{Pusher, Received, Written, key_of, rank};
use crate::sync::item::{Batch, Change, Item};
use postgres::Error;
use std::collections::BTreeMap;

/// Lock the rows of the items a push names, so that no other connection edits them until it
/// commits (see the parent module's comment). Items not stored yet have no row to lock.
fn lock_items<'i>(tx: &mut Tx<'_, '_>, items: impl Iterator<Item = &'i Item>) -> Result<(), Error> {
    let mut by_kind: BTreeMap<i64, (&'static str, Vec<String>)> = BTreeMap::new();
    for item in items {
        by_kind
            .entry(rank(item.kind()))
            .or_insert_with(|| (item.kind(), Vec::new()))
            .1
            .push(key_of(item));
    }
    for (kind, mut keys) in by_kind.into_values() {
        keys.sort_unstable();
        keys.dedup();
        match kind {
            "memory" => tx.execute(
                "SELECT 1 FROM memories WHERE uid = ANY($1) ORDER BY id FOR UPDATE",
                &[&keys],
            )?,
            "episode" => tx.execute(
                "SELECT 1 FROM episodes e JOIN memories m ON m.id = e.memory_id
                 WHERE m.uid = ANY($1) ORDER BY e.memory_id FOR UPDATE OF e",
                &[&keys],
            )?,
            "fact" => tx.execute(
                "SELECT 1 FROM facts f JOIN sync_fact_uids u ON u.fact_id = f.id
                 WHERE u.uid = ANY($1) ORDER BY f.id FOR UPDATE OF f",
                &[&keys],
            )?,
            "rule" => tx.execute(
                "SELECT 1 FROM rules WHERE id = ANY($1) ORDER BY id FOR UPDATE",
                &[&keys],
            )?,
            _ => {
                let (projects, names) = list_keys(&keys);
                tx.execute(
                    "SELECT 1 FROM work_lists w JOIN unnest($1::text[], $2::text[]) AS k(project, name)
                       ON w.project = k.project AND w.name = k.name
                     ORDER BY w.memory_id FOR UPDATE OF w",
                    &[&projects, &names],
                )?
            }
        };
    }
    Ok(())
}

/// The project of the memory an episode hangs on, which decides who may reach the episode.
fn episode_project(tx: &mut Tx<'_, '_>, item: &Item) -> Result<Option<String>, Error> {
    let Item::Episode(e) = item else {
        return Ok(None);
    };
    Ok(tx
        .query_opt(
            "SELECT project FROM memories WHERE uid = $1",
            &[&e.memory_uid],
        )?
        .map(|r| r.get(0)))
}

/// The revision the hub holds `kind`/`key` at, and where it came from.
fn held(tx: &mut Tx<'_, '_>, kind: &str, key: &str) -> Result<Option<(String, String)>, Error> {
    Ok(tx
        .query_opt(
            "SELECT rev, origin FROM sync_revs WHERE kind = $1 AND key = $2",
            &[&kind, &key],
        )?
        .map(|r| (r.get(0), r.get(1))))
}

/// Why a whole push is refused, before anything in it is written
/// ([`hub_rules::refuse_push`]); a machine pushing for the first time is tied to `token`.
fn refuse_push(
    tx: &mut Tx<'_, '_>,
    batch: &Batch,
    token: i64,
    now: i64,
) -> Result<Option<String>, Error> {
    hub_rules::refuse_push(batch, now, |machine| {
        another_tokens(&mut *tx.tx, machine, token)
    })
}

/// Whether sync machine `machine` belongs to another token than `token`, tying it to `token`
/// when no token pushed with it yet (as on SQLite: `store::sync::another_tokens`).
pub(in crate::store) fn another_tokens(
    tx: &mut impl postgres::GenericClient,
    machine: &str,
    token: i64,
) -> Result<bool, Error> {
    let bound: Option<i64> = tx
        .query_opt(
            "SELECT token FROM sync_machines WHERE machine = $1",
            &[&machine],
        )?
        .map(|r| r.get(0));
    if bound.is_none() {
        tx.execute(
            "INSERT INTO sync_machines (machine, token) VALUES ($1, $2)",
            &[&machine, &token],
        )?;
    }
    Ok(bound.is_some_and(|t| t != token))
}

/// Keep a losing version, unless it is kept already, and only the newest few per item.
fn keep_conflict(
    tx: &mut Tx<'_, '_>,
    kind: &str,
    key: &str,
    winner: &Change,
    loser: &Change,
    now: i64,
) -> Result<bool, Error> {
    let loser_json = serde_json::to_string(&loser.item).unwrap_or_default();
    let kept = tx.execute(
        "INSERT INTO sync_conflicts (at, kind, key, winner_rev, winner_origin, loser_rev, loser_origin, loser)
         SELECT $1::bigint, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text
         WHERE NOT EXISTS (SELECT 1 FROM sync_conflicts WHERE kind = $2 AND key = $3 AND loser_rev = $6)",
        &[
            &now,
            &kind,
            &key,
            &winner.rev,
            &winner.origin,
            &loser.rev,
            &loser.origin,
            &loser_json,
        ],
    )?;
    if kept == 0 {
        return Ok(false);
    }
    tx.execute(
        "DELETE FROM sync_conflicts WHERE kind = $1 AND key = $2 AND id NOT IN
           (SELECT id FROM sync_conflicts WHERE kind = $1 AND key = $2 ORDER BY id DESC LIMIT $3)",
        &[&kind, &key, &CONFLICTS_KEPT],
    )?;
    Ok(true)
}

/// Take `batch` for `pusher`, holding [`SYNC_LOCK`](super::SYNC_LOCK) to the commit.
pub(super) fn receive(
    tx: &mut Tx<'_, '_>,
    batch: &Batch,
    pusher: &Pusher<'_>,
) -> Result<Received, Error> {
    lock(tx)?;
    let me = machine_id(tx)?;
    let mut c = clock(tx)?;
    let mut out = Received::default();
    if let Some(why) = refuse_push(tx, batch, pusher.token, pusher.now)? {
        // SQLite absorbs before it refuses; so does this, so a refused push leaves the same.
        absorb(tx, &mut c, &me)?;
        save_clock(tx, c)?;
        out.rejected = Some(why);
        return Ok(out);
    }
    // Each change's item with the hub's projects, or `None` when it is too big to take.
    let mut local = Vec::with_capacity(batch.changes.len());
    for change in &batch.changes {
        local.push(if hub_rules::too_big(&change.item) {
            None
        } else {
            Some(localise(
                tx,
                change.item.clone(),
                &batch.projects,
                pusher.may_tie,
            )?)
        });
    }
    // The hub's own edits first, so a push that races one is settled against it; and the
    // items' rows locked before them, so an edit committed through another connection before
    // the lock is absorbed now, and one after it waits for this commit.
    lock_items(tx, local.iter().flatten())?;
    absorb(tx, &mut c, &me)?;
    let mut unknown = unknown_memories(tx, local.iter().flatten())?;
    let allowed = pusher.allowed;
    for (change, item) in batch.changes.iter().zip(local) {
        let Some(item) = item else {
            out.refused += 1;
            continue;
        };
        // A memory new to the hub, the bulk of most pushes: nothing held to settle against.
        // Taken from the set at its first change, so a second change of it in this push takes
        // the full path and meets the first.
        if let Item::Memory(m) = &item
            && hub_rules::allowed_item(&item, None, allowed)
            && unknown.remove(&m.uid)
        {
            c.observe(&change.rev);
            let incoming = Change {
                item: item.clone(),
                ..change.clone()
            };
            if store_new_memory(tx, &incoming, m)? == Written::Stored {
                out.accepted += 1;
            } else {
                out.orphans += 1;
            }
            continue;
        }
        let owner = episode_project(tx, &item)?;
        if !hub_rules::allowed_item(&item, owner.as_deref(), allowed) {
            out.refused += 1;
            continue;
        }
        let kind = item.kind();
        let key = key_of(&item);
        let held_item = read_local(tx, kind, &key)?;
        if let Some((h, owner)) = &held_item
            && (!hub_rules::same_place(h, &item)
                || !hub_rules::allowed_item(h, owner.as_deref(), allowed))
        {
            out.refused += 1;
            continue;
        }
        let held_item = held_item.map(|(h, _)| h);
        c.observe(&change.rev);
        let incoming = Change {
            item,
            ..change.clone()
        };
        let raw_held = held(tx, kind, &key)?;
        let settled = hub_rules::settle(incoming, raw_held.clone(), held_item).apply(
            &mut out,
            &me,
            |winner, loser| keep_conflict(tx, kind, &key, winner, loser, pusher.now),
            || c.tick(pusher.now, &me),
        )?;
        let mut now_held = raw_held;
        if let Some(settled) = settled {
            let taken_as_sent = settled.rev == change.rev;
            match store_at(tx, &settled)? {
                Written::Stored => {
                    if taken_as_sent {
                        out.accepted += 1;
                    }
                    now_held = Some((settled.rev, settled.origin));
                }
                Written::Orphan => out.orphans += 1,
            }
        }
        // The hub's version of each item it did not take as sent.
        if let Some((rev, origin)) = now_held.filter(|(rev, _)| *rev != change.rev)
            && let Some((item, _)) = read_local(tx, kind, &key)?
        {
            let item = named(tx, item, &mut out.current.projects)?;
            out.current.changes.push(Change {
                rev,
                base: None,
                origin,
                item,
            });
        }
    }
    save_clock(tx, c)?;
    // The memories this push stored were marked new by the trigger; they have their
    // revision, so the next pull need not take the lock to find that out.
    if !tx.inserted.is_empty() {
        let inserted = std::mem::take(&mut tx.inserted);
        tx.execute(
            "DELETE FROM sync_new_memories WHERE memory_id = ANY($1)",
            &[&inserted],
        )?;
    }
    Ok(out)
}
