//! The hub's own edits (an MCP client pinning, saving a list, storing a memory): each gets a
//! revision and a number of the hub's sequence, so machines pull them, and a push is settled
//! against them (see the parent module's comment).

use super::{Tx, next_seqs};
use crate::store::sync::rank;
use crate::sync::hlc::{self, Clock};
use postgres::Error;

/// Give each item marked dirty a revision and a sequence number; how many. The marks are
/// taken with the same statement that deletes them, so an edit committed meanwhile through
/// another connection keeps its mark for the next call rather than losing it.
fn stamp(tx: &mut Tx<'_, '_>, c: &mut Clock, me: &str) -> Result<usize, Error> {
    let mut dirty: Vec<(String, String, i64)> = tx
        .query("DELETE FROM sync_dirty RETURNING kind, key, at", &[])?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    if dirty.is_empty() {
        return Ok(0);
    }
    dirty.sort_by(|a, b| (a.2, rank(&a.0), &a.1).cmp(&(b.2, rank(&b.0), &b.1)));
    let now = crate::time::now_ms();
    let seqs = next_seqs(tx, dirty.len())?;
    let (mut kinds, mut keys, mut revs) = (Vec::new(), Vec::new(), Vec::new());
    for (kind, key, at) in &dirty {
        // Seeded items carry no time of change: they are stamped now.
        revs.push(c.tick(if *at > 0 { *at } else { now }, me));
        kinds.push(kind.as_str());
        keys.push(key.as_str());
    }
    // A revision replaced here was the hub's own, never pending: it becomes the base.
    tx.execute(
        "INSERT INTO sync_revs (kind, key, rev, base, origin, pending, seq)
         SELECT k, y, r, NULL, $4::text, false, s FROM unnest($1::text[], $2::text[], $3::text[], $5::bigint[]) AS t(k, y, r, s)
         ON CONFLICT (kind, key) DO UPDATE SET rev = EXCLUDED.rev,
             base = CASE WHEN sync_revs.pending THEN sync_revs.base ELSE sync_revs.rev END,
             origin = EXCLUDED.origin, pending = false, seq = EXCLUDED.seq",
        &[&kinds, &keys, &revs, &me, &seqs],
    )?;
    Ok(dirty.len())
}

/// Give every memory stored on the hub itself (over MCP) since the last call a revision and a
/// sequence number, and stamp the hub's own edits, so machines pull them. Under [`SYNC_LOCK`](super::SYNC_LOCK).
///
/// SQLite finds the new memories by a cursor on their id; here a memory's id is taken when it
/// is inserted, not when it commits, so one stored by a transaction still open when a later id
/// was absorbed would fall behind the cursor for good. The schema's trigger lists each new
/// memory in `sync_new_memories` instead, and each is taken from there once committed.
pub(super) fn absorb(tx: &mut Tx<'_, '_>, c: &mut Clock, me: &str) -> Result<(), Error> {
    let fresh: Vec<(String, i64)> = tx
        .query(
            "WITH fresh AS (DELETE FROM sync_new_memories RETURNING memory_id)
             SELECT m.uid, m.created_at FROM memories m JOIN fresh ON fresh.memory_id = m.id
             WHERE NOT EXISTS (SELECT 1 FROM work_lists w WHERE w.memory_id = m.id)
               AND NOT EXISTS (SELECT 1 FROM sync_revs r WHERE r.kind = 'memory' AND r.key = m.uid)
             ORDER BY m.id",
            &[],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    if !fresh.is_empty() {
        let seqs = next_seqs(tx, fresh.len())?;
        let uids: Vec<&str> = fresh.iter().map(|(uid, _)| uid.as_str()).collect();
        let revs: Vec<String> = fresh.iter().map(|(_, at)| hlc::first(*at, me)).collect();
        tx.execute(
            "INSERT INTO sync_revs (kind, key, rev, base, origin, pending, seq)
             SELECT 'memory', k, r, NULL, $3::text, false, s FROM unnest($1::text[], $2::text[], $4::bigint[]) AS t(k, r, s)",
            &[&uids, &revs, &me, &seqs],
        )?;
    }
    // After the new memories, so an episode or fact made with one is numbered after it.
    stamp(tx, c, me)?;
    Ok(())
}
