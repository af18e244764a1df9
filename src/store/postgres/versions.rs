//! A memory's earlier texts on PostgreSQL, kept as the SQLite store keeps them (see
//! [`crate::store::versions`]).

use crate::store::versions::MemoryVersion;
use postgres::{Error, GenericClient};

/// Replace memory `id`'s title and text, written by `by` at `at`, keeping the text it held as
/// a version; nothing when they are the same. Whether the memory changed; text another memory
/// of its project holds already is a unique violation, a constraint error as on SQLite.
pub(super) fn edit(
    tx: &mut impl GenericClient,
    id: i64,
    title: &str,
    text: &str,
    by: &str,
    at: i64,
) -> Result<bool, Error> {
    let Some(row) = tx.query_opt(
        "SELECT title, text, coalesce(edited_by, tool), coalesce(edited_at, created_at)
         FROM memories WHERE id = $1 FOR UPDATE",
        &[&id],
    )?
    else {
        return Ok(false);
    };
    let (old_title, old_text): (String, String) = (row.get(0), row.get(1));
    if old_title == title && old_text == text {
        return Ok(false);
    }
    let hash = crate::store::content_hash(title, text);
    let changed = tx.execute(
        "UPDATE memories SET title = $2, text = $3, content_hash = $4, edited_by = $5, edited_at = $6
         WHERE id = $1",
        &[&id, &title, &text, &hash, &by, &at],
    )?;
    if changed == 0 {
        return Ok(false);
    }
    let (source, written_at): (String, i64) = (row.get(2), row.get(3));
    tx.execute(
        "INSERT INTO memory_versions (memory_id, version, title, text, source, written_at, replaced_at)
         VALUES ($1, (SELECT coalesce(max(version), 0) + 1 FROM memory_versions WHERE memory_id = $1),
                 $2, $3, $4, $5, $6)",
        &[&id, &old_title, &old_text, &source, &written_at, &at],
    )?;
    Ok(true)
}

/// Every text memory `id` held, the current one first.
pub(super) fn versions(c: &mut impl GenericClient, id: i64) -> Result<Vec<MemoryVersion>, Error> {
    let Some(now) = c.query_opt(
        "SELECT title, text, coalesce(edited_by, tool), coalesce(edited_at, created_at)
         FROM memories WHERE id = $1",
        &[&id],
    )?
    else {
        return Ok(Vec::new());
    };
    let earlier: Vec<MemoryVersion> = c
        .query(
            "SELECT version, title, text, source, written_at, replaced_at FROM memory_versions
             WHERE memory_id = $1 ORDER BY version DESC, id DESC",
            &[&id],
        )?
        .iter()
        .map(|r| {
            let version: i64 = r.get(0);
            MemoryVersion {
                version,
                title: r.get(1),
                text: r.get(2),
                source: r.get(3),
                classification: MemoryVersion::classify(version),
                written_at: r.get(4),
                replaced_at: Some(r.get(5)),
            }
        })
        .collect();
    let version = earlier.first().map_or(1, |v| v.version + 1);
    let mut all = vec![MemoryVersion {
        version,
        title: now.get(0),
        text: now.get(1),
        source: now.get(2),
        classification: MemoryVersion::classify(version),
        written_at: now.get(3),
        replaced_at: None,
    }];
    all.extend(earlier);
    Ok(all)
}
