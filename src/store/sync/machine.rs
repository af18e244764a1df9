//! A machine's side of a sync: stamp what changed, hand out bounded batches to push, take the
//! hub's answer, and apply what was pulled, each step in one transaction with its cursor.

use super::items::{self, Written};
use super::{advance_meta, clock, get_meta, machine_id, meta, meta_int, save_clock};
use crate::redact::Redacted;
use crate::store::{Store, StoreError};
use crate::sync::hlc::{self, Clock};
use crate::sync::item::{Batch, Change};
use rusqlite::{OptionalExtension, Transaction, params};

/// A batch to push, with what the store needs to know once the hub has taken it.
#[derive(Debug, Clone, Default)]
pub struct Outgoing {
    pub batch: Batch,
    /// The last memory id in it, for a batch of new memories.
    pub last_memory: Option<i64>,
    /// The last (kind, key) in it, for a batch of changed items: the next batch starts after.
    pub last_key: Option<(String, String)>,
    /// Each changed item sent, with the revision sent.
    sent: Vec<(String, String, String)>,
}

/// What applying a batch came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Applied {
    /// Items written.
    pub stored: usize,
    /// Items already at that revision.
    pub unchanged: usize,
    /// Items changed here since they last travelled: left for the next push, where the hub
    /// settles them.
    pub deferred: usize,
    /// Items that hang on a memory this store does not hold.
    pub orphans: usize,
}

impl Applied {
    /// Count `o` in too.
    pub fn add(&mut self, o: Applied) {
        self.stored += o.stored;
        self.unchanged += o.unchanged;
        self.deferred += o.deferred;
        self.orphans += o.orphans;
    }
}

/// Whether `kind`/`key` changed here and has not been pushed yet.
fn changed_here(tx: &Transaction<'_>, kind: &str, key: &str) -> rusqlite::Result<bool> {
    Ok(tx
        .prepare_cached("SELECT 1 FROM sync_dirty WHERE kind = ?1 AND key = ?2")?
        .exists([kind, key])?
        || tx
            .prepare_cached("SELECT 1 FROM sync_revs WHERE kind = ?1 AND key = ?2 AND pending = 1")?
            .exists([kind, key])?)
}

/// The revision this store holds `kind`/`key` at, and where it came from.
pub(super) fn held(
    tx: &Transaction<'_>,
    kind: &str,
    key: &str,
) -> rusqlite::Result<Option<(String, String)>> {
    tx.prepare_cached("SELECT rev, origin FROM sync_revs WHERE kind = ?1 AND key = ?2")?
        .query_row([kind, key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
}

/// Write `change` (its projects already this store's) at its revision, and record the
/// revision as held and clean. `seq` numbers it on a hub.
pub(super) fn store_at(
    tx: &Transaction<'_>,
    change: &Change,
    seq: Option<i64>,
) -> rusqlite::Result<Written> {
    let written = items::write(tx, &change.item)?;
    let kind = change.item.kind();
    let key = items::key_of(&change.item);
    // The write's own triggers marked it changed here; it is not.
    tx.prepare_cached("DELETE FROM sync_dirty WHERE kind = ?1 AND key = ?2")?
        .execute([kind, key.as_str()])?;
    if written == Written::Orphan {
        // Not held: a later copy, once its memory is here, is written then.
        return Ok(written);
    }
    tx.prepare_cached(
        "INSERT OR REPLACE INTO sync_revs (kind, key, rev, base, origin, pending, seq) VALUES (?1, ?2, ?3, NULL, ?4, 0, ?5)",
    )?
    .execute(params![kind, key, change.rev, change.origin, seq])?;
    Ok(written)
}

/// Apply changes from a hub: each is written unless it changed here since it last travelled
/// (the next push settles that one) or is already here at that revision.
fn apply(tx: &Transaction<'_>, batch: &Batch, c: &mut Clock) -> rusqlite::Result<Applied> {
    let mut out = Applied::default();
    for change in &batch.changes {
        c.observe(&change.rev);
        let item = items::localise(tx, change.item.clone(), &batch.projects, true)?;
        let kind = item.kind();
        let key = items::key_of(&item);
        if changed_here(tx, kind, &key)? {
            out.deferred += 1;
            continue;
        }
        if held(tx, kind, &key)?.is_some_and(|(rev, _)| rev == change.rev) {
            out.unchanged += 1;
            continue;
        }
        let local = Change {
            item,
            ..change.clone()
        };
        match store_at(tx, &local, None)? {
            Written::Stored => out.stored += 1,
            Written::Orphan => out.orphans += 1,
        }
    }
    Ok(out)
}

/// Turn each dirty item into a pending change with a new revision. On a hub the change is
/// numbered for pulling instead of pending (`hub`).
pub(super) fn stamp(tx: &Transaction<'_>, hub: bool) -> rusqlite::Result<usize> {
    let me = machine_id(tx)?;
    let mut c = clock(tx)?;
    let dirty: Vec<(String, String, i64)> = tx
        .prepare_cached(&format!(
            "SELECT kind, key, at FROM sync_dirty ORDER BY at, {RANK}, key"
        ))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let now = crate::time::now_ms();
    for (kind, key, at) in &dirty {
        // Seeded items carry no time of change: they are stamped now.
        let rev = c.tick(if *at > 0 { *at } else { now }, &me);
        let prior: Option<(String, Option<String>, bool)> = tx
            .prepare_cached(
                "SELECT rev, base, pending FROM sync_revs WHERE kind = ?1 AND key = ?2",
            )?
            .query_row([kind, key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        let base = match prior {
            Some((_, base, true)) => base,
            Some((rev, _, false)) => Some(rev),
            None => None,
        };
        let seq = if hub {
            Some(super::hub_side::next_seq(tx)?)
        } else {
            None
        };
        tx.prepare_cached(
            "INSERT OR REPLACE INTO sync_revs (kind, key, rev, base, origin, pending, seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![kind, key, rev, base, me, !hub, seq])?;
    }
    tx.execute("DELETE FROM sync_dirty", [])?;
    save_clock(tx, c)?;
    Ok(dirty.len())
}

/// The order kinds travel in: what others hang on first (an episode on its memory, a fact on
/// the memory it came from), so the side that applies them holds it already.
pub(super) const RANK: &str = "CASE kind WHEN 'memory' THEN 0 WHEN 'episode' THEN 1 WHEN 'fact' THEN 2 WHEN 'rule' THEN 3 ELSE 4 END";

/// [`RANK`] of one kind (the PostgreSQL hub orders by it too).
pub(in crate::store) fn rank(kind: &str) -> i64 {
    match kind {
        "memory" => 0,
        "episode" => 1,
        "fact" => 2,
        "rule" => 3,
        _ => 4,
    }
}

/// Whether a batch of `bytes` so far is full.
fn full(count: usize, bytes: usize, limit: usize, max_bytes: usize) -> bool {
    count >= limit || bytes >= max_bytes
}

impl Store {
    /// Stamp every item changed here since the last sync with a revision, so a push that is
    /// interrupted sends the same revisions when it resumes. Returns how many.
    pub fn sync_stamp(&mut self) -> Result<usize, StoreError> {
        self.write(|tx| stamp(tx, false))
    }

    /// The next memories no hub has acknowledged, oldest first: at most `limit`, and no more
    /// once the batch passes `max_bytes` of text. Only memories with no sync state: one pulled
    /// from elsewhere is the hub's already, and one changed here since goes with the changes.
    pub fn sync_memories_out(
        &mut self,
        limit: usize,
        max_bytes: usize,
    ) -> Result<Outgoing, StoreError> {
        self.write(|tx| {
            let me = machine_id(tx)?;
            let after = meta_int(tx, meta::PUSHED_MEMORY)?;
            let rows: Vec<(i64, crate::sync::item::MemoryItem, Option<String>, Option<String>)> = tx
                .prepare_cached(
                    "SELECT m.uid, m.project, m.kind, m.type, m.title, m.text, m.tool, m.session_id, m.files,
                            m.pinned, m.dismissed, m.created_at, m.id, r.rev, r.base
                     FROM memories m LEFT JOIN sync_revs r ON r.kind = 'memory' AND r.key = m.uid
                     WHERE m.id > ?1 AND m.id NOT IN (SELECT memory_id FROM work_lists)
                       AND r.kind IS NULL
                     ORDER BY m.id LIMIT ?2",
                )?
                .query_map(params![after, crate::store::sql_numbers::sql_int(limit)], |r| {
                    Ok((r.get(12)?, items::memory_from_row(r)?, r.get(13)?, r.get(14)?))
                })?
                .collect::<Result<_, _>>()?;
            let mut out = Outgoing::default();
            out.batch.machine = me.clone();
            let mut bytes = 0;
            for (id, m, rev, base) in rows {
                if full(out.batch.changes.len(), bytes, limit, max_bytes) {
                    break;
                }
                let identity = super::identity_of(tx, &m.project, true)?;
                out.batch.projects.insert(identity.clone(), m.project.clone());
                let rev = rev.unwrap_or_else(|| hlc::first(m.created_at, &me));
                let change = Change {
                    rev,
                    base,
                    origin: me.clone(),
                    item: crate::sync::item::Item::Memory(crate::sync::item::MemoryItem {
                        project: identity,
                        ..m
                    }),
                };
                bytes += serde_json::to_string(&change).map_or(0, |s| s.len());
                out.batch.changes.push(change);
                out.last_memory = Some(id);
            }
            // Rows skipped as pulled from elsewhere still move the cursor when nothing is left.
            if out.last_memory.is_none() {
                let last: Option<i64> = tx
                    .query_row("SELECT max(id) FROM memories", [], |r| r.get(0))?;
                if let Some(last) = last.filter(|l| *l > after) {
                    advance_meta(tx, meta::PUSHED_MEMORY, last)?;
                }
            }
            Ok(out)
        })
    }

    /// The next changed items to push, after `after` in key order: at most `limit`, and no
    /// more once past `max_bytes`.
    pub fn sync_changes_out(
        &mut self,
        after: Option<&(String, String)>,
        limit: usize,
        max_bytes: usize,
    ) -> Result<Outgoing, StoreError> {
        self.write(|tx| {
            let (ak, ay) = match after {
                Some((kind, key)) => (rank(kind), key.clone()),
                None => (-1, String::new()),
            };
            let rows: Vec<(String, String, String, Option<String>, String)> = tx
                .prepare_cached(&format!(
                    "SELECT kind, key, rev, base, origin FROM (SELECT *, {RANK} AS rank FROM sync_revs WHERE pending = 1)
                     WHERE (rank, key) > (?1, ?2) ORDER BY rank, key LIMIT ?3"
                ))?
                .query_map(params![ak, ay, crate::store::sql_numbers::sql_int(limit)], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect::<Result<_, _>>()?;
            let mut out = Outgoing::default();
            out.batch.machine = machine_id(tx)?;
            let mut bytes = 0;
            for (kind, key, rev, base, origin) in rows {
                if full(out.batch.changes.len(), bytes, limit, max_bytes) {
                    break;
                }
                out.last_key = Some((kind.clone(), key.clone()));
                let Some(item) = items::read(tx, &kind, &key, &mut out.batch.projects, true)? else {
                    // Gone since it changed (merged away by a scrub): nothing to send.
                    tx.execute(
                        "UPDATE sync_revs SET pending = 0 WHERE kind = ?1 AND key = ?2",
                        [&kind, &key],
                    )?;
                    continue;
                };
                bytes += serde_json::to_string(&item).map_or(0, |s| s.len());
                out.sent.push((kind, key, rev.clone()));
                out.batch.changes.push(Change {
                    rev,
                    base,
                    origin,
                    item,
                });
            }
            Ok(out)
        })
    }

    /// The hub took `out` and answered with its own version of the items it settled otherwise
    /// (`answer`): move the memory cursor past the batch, mark the sent revisions pushed, and
    /// apply the hub's versions.
    pub fn sync_pushed(
        &mut self,
        out: &Outgoing,
        answer: &Redacted<Batch>,
    ) -> Result<Applied, StoreError> {
        self.write(|tx| {
            if let Some(id) = out.last_memory {
                advance_meta(tx, meta::PUSHED_MEMORY, id)?;
            }
            for (kind, key, rev) in &out.sent {
                tx.prepare_cached(
                    "UPDATE sync_revs SET pending = 0, base = NULL WHERE kind = ?1 AND key = ?2 AND rev = ?3",
                )?
                .execute([kind, key, rev])?;
            }
            let mut c = clock(tx)?;
            let applied = apply(tx, answer.get(), &mut c)?;
            save_clock(tx, c)?;
            Ok(applied)
        })
    }

    /// Apply a batch pulled from a hub and move the pull cursor to `next`, together: a pull
    /// cut short resumes after the last batch that committed.
    pub fn sync_pulled(
        &mut self,
        batch: &Redacted<Batch>,
        next: i64,
    ) -> Result<Applied, StoreError> {
        self.write(|tx| {
            let mut c = clock(tx)?;
            let applied = apply(tx, batch.get(), &mut c)?;
            save_clock(tx, c)?;
            advance_meta(tx, meta::PULLED, next)?;
            Ok(applied)
        })
    }

    /// The hub's sequence number this store has pulled up to.
    pub fn sync_pulled_up_to(&self) -> Result<i64, StoreError> {
        meta_int(&self.conn, meta::PULLED).map_err(|e| self.err(e))
    }

    /// This store's machine id (empty before [`Store::enable_sync`]).
    pub fn sync_machine(&self) -> Result<String, StoreError> {
        machine_id(&self.conn).map_err(|e| self.err(e))
    }

    /// The hub recorded by `aletheia sync setup`.
    pub fn sync_hub(&self) -> Result<Option<String>, StoreError> {
        if !self.sync_enabled()? {
            return Ok(None);
        }
        get_meta(&self.conn, meta::HUB_URL).map_err(|e| self.err(e))
    }
}
