//! Moving stored rows to their project's stored key, for `aletheia scrub`.
//!
//! Project keys are redacted on the way in (see [`crate::project::stored_key`]), but a store
//! written by an older version, or before a rule was added, may hold a key in clear. Every table
//! that names a project is rewritten to the key the current rules give. Two projects can become
//! one key (`acme-ghp_…a` and `acme-ghp_…b` both become `acme-[redacted:github-token]`): their
//! rows are merged, and where a unique key would hold two rows, one is kept and what hangs on
//! the other (facts, file paths, its list, episode, pin) moves to it.

use crate::redact::Redactor;
use rusqlite::{OptionalExtension, Transaction, params};

/// Every project key stored, from every table that holds one.
const KEYS: &str = "SELECT project FROM memories UNION SELECT project FROM session_queue
    UNION SELECT project FROM facts UNION SELECT project FROM work_lists
    UNION SELECT project FROM jobs UNION SELECT project FROM fact_reviews
    UNION SELECT scope_name FROM rules WHERE scope_tier = 'project'";

/// Rewrite every project key to its stored form; returns how many rows moved or merged.
pub(super) fn rekey_projects(tx: &Transaction<'_>, r: &Redactor) -> rusqlite::Result<usize> {
    let keys: Vec<String> = tx
        .prepare(KEYS)?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut changed = 0;
    for old in keys {
        let new = crate::project::stored_key(&old, r);
        if new != old {
            changed += rekey(tx, &old, &new)?;
        }
    }
    Ok(changed)
}

fn rekey(tx: &Transaction<'_>, old: &str, new: &str) -> rusqlite::Result<usize> {
    let mut changed = 0;
    // Memories one at a time: each may have a twin (same kind and content) under the new key.
    let rows: Vec<(i64, String, String)> = tx
        .prepare("SELECT id, kind, content_hash FROM memories WHERE project = ?1 ORDER BY id")?
        .query_map([old], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (id, kind, hash) in rows {
        let twin: Option<i64> = tx
            .query_row(
                "SELECT id FROM memories WHERE project = ?1 AND kind = ?2 AND content_hash = ?3",
                params![new, kind, hash],
                |row| row.get(0),
            )
            .optional()?;
        match twin {
            Some(keep) => merge_memory(tx, id, keep)?,
            None => {
                tx.execute(
                    "UPDATE memories SET project = ?2 WHERE id = ?1",
                    params![id, new],
                )?;
            }
        }
        changed += 1;
    }
    // A list of the same name under both keys: the one written last is the list's state.
    changed += tx.execute(
        "DELETE FROM work_lists AS n WHERE n.project = ?2 AND EXISTS (SELECT 1 FROM work_lists o
           WHERE o.project = ?1 AND o.name = n.name AND o.updated_at > n.updated_at)",
        params![old, new],
    )?;
    // A session queued under both keys is pending if either was.
    tx.execute(
        "UPDATE session_queue SET state = 'pending' WHERE project = ?2 AND session_id IN
           (SELECT session_id FROM session_queue WHERE project = ?1 AND state = 'pending')",
        params![old, new],
    )?;
    for sql in [
        "UPDATE facts SET project = ?2 WHERE project = ?1",
        "UPDATE fact_reviews SET project = ?2 WHERE project = ?1",
    ] {
        changed += tx.execute(sql, params![old, new])?;
    }
    // What a unique key keeps from moving is already there under the new key (an identical
    // queue entry, pending job or rule, or an older list), so what is left behind goes.
    for (table, column, only) in [
        ("session_queue", "project", ""),
        ("jobs", "project", ""),
        ("work_lists", "project", ""),
        ("rules", "scope_name", " AND scope_tier = 'project'"),
    ] {
        changed += tx.execute(
            &format!("UPDATE OR IGNORE {table} SET {column} = ?2 WHERE {column} = ?1{only}"),
            params![old, new],
        )?;
        changed += tx.execute(
            &format!("DELETE FROM {table} WHERE {column} = ?1{only}"),
            [old],
        )?;
    }
    Ok(changed)
}

/// Fold memory `from` into its twin `keep` and delete it: its facts, file paths, list, episode
/// and extraction mark move to `keep` (where `keep` has none of its own), `keep` is pinned if
/// either was and dismissed only if both were.
pub(super) fn merge_memory(tx: &Transaction<'_>, from: i64, keep: i64) -> rusqlite::Result<()> {
    let (files_from, pinned, dismissed): (String, bool, bool) = tx.query_row(
        "SELECT files, pinned, dismissed FROM memories WHERE id = ?1",
        [from],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let files_keep: String =
        tx.query_row("SELECT files FROM memories WHERE id = ?1", [keep], |row| {
            row.get(0)
        })?;
    let mut files: Vec<String> = serde_json::from_str(&files_keep).unwrap_or_default();
    for f in serde_json::from_str::<Vec<String>>(&files_from).unwrap_or_default() {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    let files = serde_json::to_string(&files).unwrap_or_else(|_| "[]".into());
    tx.execute(
        "UPDATE memories SET files = ?2, pinned = max(pinned, ?3), dismissed = min(dismissed, ?4)
         WHERE id = ?1",
        params![keep, files, pinned, dismissed],
    )?;
    for sql in [
        "UPDATE facts SET memory_id = ?2 WHERE memory_id = ?1",
        "UPDATE work_lists SET memory_id = ?2 WHERE memory_id = ?1",
        "UPDATE OR IGNORE memory_files SET memory_id = ?2 WHERE memory_id = ?1",
        "UPDATE OR IGNORE episodes SET memory_id = ?2 WHERE memory_id = ?1",
        "UPDATE OR IGNORE extracted SET memory_id = ?2 WHERE memory_id = ?1",
        // A supersession the twin took part in now holds for the kept memory, unless it would
        // link it to itself or make two memories each replace the other; what cannot move goes
        // with the twin.
        "UPDATE OR IGNORE memory_links SET older = ?2 WHERE older = ?1 AND newer <> ?2
           AND NOT EXISTS (SELECT 1 FROM memory_links r WHERE r.older = memory_links.newer AND r.newer = ?2)",
        "UPDATE OR IGNORE memory_links SET newer = ?2 WHERE newer = ?1 AND older <> ?2
           AND NOT EXISTS (SELECT 1 FROM memory_links r WHERE r.older = ?2 AND r.newer = memory_links.older)",
        // Feedback on either counts for the one kept.
        "INSERT INTO memory_feedback (memory_id, favourite, positive, negative, updated_at)
             SELECT ?2, favourite, positive, negative, updated_at FROM memory_feedback WHERE memory_id = ?1
         ON CONFLICT (memory_id) DO UPDATE SET favourite = max(favourite, excluded.favourite),
             positive = positive + excluded.positive, negative = negative + excluded.negative,
             updated_at = max(updated_at, excluded.updated_at)",
    ] {
        tx.execute(sql, params![from, keep])?;
    }
    // The twin's earlier texts come after the kept memory's own, numbered on from them.
    let after: i64 = tx.query_row(
        "SELECT ifnull(max(version), 0) FROM memory_versions WHERE memory_id = ?1",
        [keep],
        |r| r.get(0),
    )?;
    tx.execute(
        "UPDATE memory_versions SET memory_id = ?2, version = version + ?3 WHERE memory_id = ?1",
        params![from, keep, after],
    )?;
    tx.execute("DELETE FROM memories WHERE id = ?1", [from])?;
    Ok(())
}
