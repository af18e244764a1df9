//! What a compression job reads and writes besides facts and the job row: its source memories,
//! the marks that keep a memory from being extracted twice, a session summary written over
//! its row (the original kept as an episode), the project summary, and near-duplicate merges.
//!
//! The writers take the job's transaction, so a job's whole result commits or none of it does.

use super::sql_numbers::sql_int;
use super::{Store, StoreError, content_hash};
use crate::model::{Kind, Memory, NewMemory};
use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::HashSet;

/// A memory a job reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub id: i64,
    pub kind: String,
    pub session_id: Option<String>,
    pub text: String,
    pub created_at: i64,
}

/// A memory a merge compares.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparable {
    pub id: i64,
    pub text: String,
    /// The stored sentence vector (dequantised), when the memory has one.
    pub vector: Option<Vec<f32>>,
}

/// A session summary a job writes over its row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub title: String,
    pub text: String,
}

impl Redact for Summary {
    fn redact(self, r: &Redactor) -> Summary {
        Summary {
            title: r.redact(&self.title),
            text: r.redact(&self.text),
        }
    }
}

/// The project summary's title starts with this; one such row per project.
pub const PROJECT_SUMMARY: &str = "Project summary:";

/// A session summary's heading, as the hooks' Stop titles start and as a generated one starts.
pub const SESSION_SUMMARY: &str = "Session summary:";

/// Whether `m` is a project's summary row, as [`upsert_project_summary`] finds it: a summary
/// outside any session whose title starts with [`PROJECT_SUMMARY`] (in any case, as SQL's
/// `LIKE` compares).
pub fn is_project_summary(m: &Memory) -> bool {
    m.kind == Kind::Summary
        && m.session_id.is_none()
        && m.title
            .get(..PROJECT_SUMMARY.len())
            .is_some_and(|t| t.eq_ignore_ascii_case(PROJECT_SUMMARY))
}

impl Store {
    /// The summary and note memories of a session (or, with `None`, those of the project saved
    /// outside any session) that no job has read yet, oldest first. The two never overlap, so a
    /// project's job and a session's job never read one memory. Prompts and events are never fact sources: they hold
    /// requests and raw tool output.
    pub fn compression_sources(
        &self,
        project: &str,
        session_id: Option<&str>,
    ) -> Result<Vec<Source>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT m.id, m.kind, m.session_id, m.title, m.text, m.created_at FROM memories m
                 WHERE m.project = ?1 AND m.session_id IS ?2
                   AND m.kind IN ('summary', 'note') AND m.dismissed = 0
                   AND NOT EXISTS (SELECT 1 FROM extracted e WHERE e.memory_id = m.id)
                 ORDER BY m.created_at, m.id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![project, session_id], |r| {
                let title: String = r.get(3)?;
                let text: String = r.get(4)?;
                Ok(Source {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    session_id: r.get(2)?,
                    // A hook's title is the text's first line; a note's title may add to it.
                    text: if text.trim().is_empty() || !text.starts_with(title.trim()) {
                        format!("{title}\n{text}").trim().to_owned()
                    } else {
                        text
                    },
                    created_at: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The original message of a summary row compression rewrote, unless dismissed.
    pub fn episode(&self, memory_id: i64) -> Result<Option<String>, StoreError> {
        self.conn
            .prepare_cached("SELECT text FROM episodes WHERE memory_id = ?1 AND dismissed = 0")
            .and_then(|mut s| s.query_row([memory_id], |r| r.get(0)).optional())
            .map_err(|e| self.err(e))
    }

    /// The project's newest summary, note and observation memories (up to `limit`), with their
    /// stored vectors when they have one: what a new memory is compared with for merging.
    pub fn merge_candidates(
        &self,
        project: &str,
        limit: usize,
    ) -> Result<Vec<Comparable>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT m.id, m.title || ' ' || m.text, v.scale, v.vector FROM memories m
                   LEFT JOIN memory_vectors v ON v.memory_id = m.id
                 WHERE m.project = ?1 AND m.kind IN ('summary', 'note', 'observation') AND m.dismissed = 0
                   AND m.title NOT LIKE 'Project summary:%'
                 ORDER BY m.created_at DESC, m.id DESC LIMIT ?2",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![project, sql_int(limit)], |r| {
                let scale: Option<f32> = r.get(2)?;
                let blob: Option<Vec<u8>> = r.get(3)?;
                Ok(Comparable {
                    id: r.get(0)?,
                    text: r.get(1)?,
                    vector: scale
                        .zip(blob)
                        .map(|(s, b)| b.iter().map(|&q| f32::from(q.cast_signed()) * s).collect()),
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}

/// Which of `ids` are dismissed now (the user may dismiss a source while its job runs).
pub(super) fn dismissed_among(tx: &Transaction<'_>, ids: &[i64]) -> rusqlite::Result<HashSet<i64>> {
    let mut stmt = tx.prepare_cached("SELECT dismissed FROM memories WHERE id = ?1")?;
    let mut out = HashSet::new();
    for &id in ids {
        let dismissed: Option<bool> = stmt.query_row([id], |r| r.get(0)).optional()?;
        // A deleted memory counts as dismissed: nothing of it may be stored.
        if dismissed.unwrap_or(true) {
            out.insert(id);
        }
    }
    Ok(out)
}

/// Mark memories as read by `job_id`; returns those that were not marked before (a memory
/// read by a job that lost its lease is not read again).
pub(super) fn mark_extracted(
    tx: &Transaction<'_>,
    ids: &[i64],
    job_id: i64,
    now: i64,
) -> rusqlite::Result<HashSet<i64>> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO extracted (memory_id, job_id, at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    )?;
    let mut fresh = HashSet::new();
    for &id in ids {
        if stmt.execute(params![id, job_id, now])? == 1 {
            fresh.insert(id);
        }
    }
    Ok(fresh)
}

/// Write a generated summary over a summary row, keeping the row's id; the original title and
/// text are kept as the row's episode (the first original, if the row is rewritten again).
///
/// The row keeps its content hash, the dedupe key of the message it was stored for: the same
/// message arriving again (a replayed spool line, the same last message) is still recognised as
/// this row, and two sessions with the same generated summary never clash on that key.
pub(super) fn replace_summary(
    tx: &Transaction<'_>,
    memory_id: i64,
    summary: &Redacted<Summary>,
    now: i64,
) -> rusqlite::Result<bool> {
    let Summary { title, text } = summary.get();
    tx.prepare_cached(
        "INSERT INTO episodes (memory_id, title, text, replaced_at)
         SELECT id, title, text, ?2 FROM memories WHERE id = ?1 ON CONFLICT DO NOTHING",
    )?
    .execute(params![memory_id, now])?;
    let changed = tx
        .prepare_cached("UPDATE memories SET title = ?2, text = ?3 WHERE id = ?1")?
        .execute(params![memory_id, title, text])?;
    Ok(changed == 1)
}

/// Write the project's summary: the one row whose title starts with [`PROJECT_SUMMARY`],
/// updated in place, else inserted. It is marked extracted, so no job reads it as a source.
/// Returns its id.
pub(super) fn upsert_project_summary(
    tx: &Transaction<'_>,
    m: &Redacted<NewMemory>,
    job_id: i64,
    now: i64,
) -> rusqlite::Result<Option<i64>> {
    let new = m.get();
    let existing: Option<i64> = tx
        .prepare_cached(
            "SELECT id FROM memories WHERE project = ?1 AND kind = 'summary' AND session_id IS NULL
               AND title LIKE 'Project summary:%' ORDER BY id LIMIT 1",
        )?
        .query_row([&new.project], |r| r.get(0))
        .optional()?;
    let id = match existing {
        Some(id) => {
            tx.prepare_cached(
                "UPDATE OR IGNORE memories SET title = ?2, text = ?3, content_hash = ?4, created_at = ?5,
                     dismissed = 0 WHERE id = ?1",
            )?
            .execute(params![
                id,
                new.title,
                new.text,
                content_hash(&new.title, &new.text),
                now
            ])?;
            Some(id)
        }
        None => {
            let ins = super::memories::insert_tx(tx, m, None, false)?;
            ins.new.then_some(ins.id)
        }
    };
    if let Some(id) = id {
        mark_extracted(tx, &[id], job_id, now)?;
    }
    Ok(id)
}

/// Dismiss `id` as a near-duplicate of `into`, with the similarity in the audit trail. A pinned
/// memory is never merged away: the user asked for it to stay in view.
pub(super) fn merge_into(
    tx: &Transaction<'_>,
    id: i64,
    into: i64,
    similarity: f32,
    now: i64,
) -> rusqlite::Result<bool> {
    let changed = tx
        .prepare_cached(
            "UPDATE memories SET dismissed = 1 WHERE id = ?1 AND dismissed = 0 AND pinned = 0",
        )?
        .execute([id])?;
    if changed == 1 {
        tx.prepare_cached(
            "INSERT INTO audit (at, action, item_type, item_id, reason, actor)
             VALUES (?1, 'merge', 'memory', ?2, ?3, 'compress')",
        )?
        .execute(params![
            now,
            id.to_string(),
            format!("near-duplicate of #{into} (similarity {similarity:.2})")
        ])?;
    }
    Ok(changed == 1)
}

/// The current facts a summary lists: best first.
pub(super) fn summary_facts(
    tx: &Transaction<'_>,
    project: &str,
    limit: usize,
) -> rusqlite::Result<Vec<String>> {
    let mut stmt = tx.prepare_cached(
        "SELECT subject, predicate, object FROM facts
         WHERE project = ?1 AND valid_to IS NULL AND dismissed = 0
         ORDER BY confidence DESC, valid_from DESC, id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![project, sql_int(limit)], |r| {
        Ok(format!(
            "{} {} {}",
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?
        ))
    })?;
    rows.collect()
}
