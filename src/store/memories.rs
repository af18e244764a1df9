//! Writing and reading memories.
//!
//! Inserts take only [`Redacted`] memories, so nothing reaches the table unredacted. A memory
//! with the same project, kind, title and text as a stored one is not stored twice: the content
//! hash is part of a unique key and the insert is `ON CONFLICT DO NOTHING`, which also makes a
//! replayed spool or a repeated import harmless.

use super::sql_numbers::sql_int;
use super::{Store, StoreError};
use crate::model::{Kind, Memory, MemoryType, NewMemory};
use crate::redact::Redacted;
use rusqlite::{OptionalExtension, Row, Transaction, params};
use sha2::{Digest, Sha256};

/// The result of one insert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    pub id: i64,
    /// False when an identical memory was already stored (its id is returned).
    pub new: bool,
}

/// The dedupe key of a memory's content: SHA-256 of title and text.
pub fn content_hash(title: &str, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(title.as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Insert one memory inside `tx`, with `uid` when the caller carries one (an import), else a new
/// time-ordered id.
pub(crate) fn insert_tx(
    tx: &Transaction<'_>,
    m: &Redacted<NewMemory>,
    uid: Option<&str>,
    dismissed: bool,
) -> rusqlite::Result<Inserted> {
    insert_fields(tx, m.get(), uid, dismissed)
}

/// [`insert_tx`] for fields the store already holds redacted: those of a redacted sync batch.
pub(super) fn insert_fields(
    tx: &Transaction<'_>,
    m: &NewMemory,
    uid: Option<&str>,
    dismissed: bool,
) -> rusqlite::Result<Inserted> {
    let hash = content_hash(&m.title, &m.text);
    let uid = match uid {
        Some(u) => u.to_owned(),
        None => uuid::Uuid::now_v7().to_string(),
    };
    let files = serde_json::to_string(&m.files).unwrap_or_else(|_| "[]".into());
    let id: Option<i64> = tx
        .prepare_cached(
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                                   pinned, dismissed, created_at, content_hash, stored_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
                     CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER))
             ON CONFLICT DO NOTHING RETURNING id",
        )?
        .query_row(
            params![
                uid,
                m.project,
                m.kind.as_str(),
                m.mtype.as_str(),
                m.title,
                m.text,
                m.host,
                m.session_id,
                files,
                m.pinned,
                dismissed,
                m.created_at,
                hash
            ],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(id) = id {
        let mut add_file = tx.prepare_cached(
            "INSERT OR IGNORE INTO memory_files (path, memory_id) VALUES (?1, ?2)",
        )?;
        for f in &m.files {
            add_file.execute(params![f, id])?;
        }
        return Ok(Inserted { id, new: true });
    }
    let id = tx
        .prepare_cached(
            "SELECT id FROM memories WHERE project = ?1 AND kind = ?2 AND content_hash = ?3",
        )?
        .query_row(params![m.project, m.kind.as_str(), hash], |r| r.get(0))
        .optional()?;
    match id {
        Some(id) => Ok(Inserted { id, new: false }),
        // The conflict was on the uid: an import of a row that is already here under other text.
        None => {
            let id = tx
                .prepare_cached("SELECT id FROM memories WHERE uid = ?1")?
                .query_row(params![uid], |r| r.get(0))?;
            Ok(Inserted { id, new: false })
        }
    }
}

/// Record that `host` captured something now (for `doctor`). To the minute: a row rewritten on
/// every hook would cost every hook a page write for a figure nobody needs to the millisecond.
pub(crate) fn touch_capture(tx: &Transaction<'_>, host: &str, at: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO captures (tool, last_at) VALUES (?1, ?2)
         ON CONFLICT (tool) DO UPDATE SET last_at = excluded.last_at
         WHERE excluded.last_at > last_at + 60000",
    )?
    .execute(params![host, at])?;
    Ok(())
}

pub(crate) const COLUMNS: &str = "id, uid, project, kind, type, title, text, tool, session_id, files, \
                                  pinned, dismissed, created_at";

/// Map a row selected with [`COLUMNS`].
pub(crate) fn from_row(r: &Row<'_>) -> rusqlite::Result<Memory> {
    let kind: String = r.get(3)?;
    let mtype: String = r.get(4)?;
    let files: String = r.get(9)?;
    Ok(Memory {
        id: r.get(0)?,
        uid: r.get(1)?,
        project: r.get(2)?,
        kind: kind.parse().unwrap_or(Kind::Note),
        mtype: mtype.parse().unwrap_or(MemoryType::Note),
        title: r.get(5)?,
        text: r.get(6)?,
        host: r.get(7)?,
        session_id: r.get(8)?,
        files: serde_json::from_str(&files).unwrap_or_default(),
        pinned: r.get(10)?,
        dismissed: r.get(11)?,
        created_at: r.get(12)?,
    })
}

/// Which memories [`Store::browse`] lists; `None` and `false` leave a field open.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemoryFilter<'a> {
    pub project: Option<&'a str>,
    pub mtype: Option<MemoryType>,
    pub kind: Option<Kind>,
    /// Only dismissed memories (`Some(true)`), only those not dismissed (`Some(false)`).
    pub dismissed: Option<bool>,
    /// Only pinned memories.
    pub pinned_only: bool,
}

impl Store {
    /// Store one memory.
    pub fn insert(&mut self, m: &Redacted<NewMemory>) -> Result<Inserted, StoreError> {
        self.write(|tx| {
            let ins = insert_tx(tx, m, None, false)?;
            touch_capture(tx, &m.get().host, m.get().created_at)?;
            Ok(ins)
        })
    }

    /// Memories by id, in the order asked; unknown ids are skipped.
    pub fn get_many(&self, ids: &[i64]) -> Result<Vec<Memory>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM memories WHERE id = ?1"))
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(m) = stmt
                .query_row([id], from_row)
                .optional()
                .map_err(|e| self.err(e))?
            {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// Store a batch of imported memories (each with the uid and dismissed flag its record
    /// carries) in one transaction; returns how many were new and how many already stored.
    pub fn import(
        &mut self,
        batch: &[(Redacted<NewMemory>, Option<String>, bool)],
    ) -> Result<(usize, usize), StoreError> {
        self.write(|tx| {
            let (mut new, mut dup) = (0, 0);
            for (m, uid, dismissed) in batch {
                if insert_tx(tx, m, uid.as_deref(), *dismissed)?.new {
                    new += 1;
                } else {
                    dup += 1;
                }
            }
            if let Some((m, _, _)) = batch.last() {
                touch_capture(tx, &m.get().host, m.get().created_at)?;
            }
            Ok((new, dup))
        })
    }

    /// Up to `limit` memories (optionally of one project) in time order, starting after the
    /// memory at `after` (its `created_at` and id), for `export`.
    pub fn memories_page(
        &self,
        project: Option<&str>,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let (at, id) = after.unwrap_or((i64::MIN, i64::MIN));
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM memories WHERE (?1 IS NULL OR project = ?1)
                   AND (created_at > ?2 OR (created_at = ?2 AND id > ?3))
                 ORDER BY created_at, id LIMIT ?4"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![project, at, id, sql_int(limit)], from_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Redact every stored row again with `redact`; returns how many rows changed. Rows whose new
    /// text collides with an existing identical memory are merged into it (that row stays, and
    /// what hung on the other moves to it).
    pub fn scrub(&mut self, redact: impl Fn(&str) -> String) -> Result<usize, StoreError> {
        self.write(|tx| {
            let mut changed = Vec::new();
            {
                let mut stmt = tx.prepare("SELECT id, project, kind, title, text, files FROM memories")?;
                let mut rows = stmt.query([])?;
                while let Some(r) = rows.next()? {
                    let (id, project, kind): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
                    let (title, text, files): (String, String, String) = (r.get(3)?, r.get(4)?, r.get(5)?);
                    let (t2, x2, f2) = (redact(&title), redact(&text), redact(&files));
                    if t2 != title || x2 != text || f2 != files {
                        changed.push((id, project, kind, t2, x2, f2));
                    }
                }
            }
            for (id, project, kind, title, text, files) in &changed {
                let hash = content_hash(title, text);
                let twin: Option<i64> = tx
                    .query_row(
                        "SELECT id FROM memories WHERE project = ?1 AND kind = ?2 AND content_hash = ?3 AND id != ?4",
                        params![project, kind, hash, id],
                        |r| r.get(0),
                    )
                    .optional()?;
                // The paths first: a row merged into its twin hands them on.
                tx.execute("UPDATE memories SET files = ?1 WHERE id = ?2", params![files, id])?;
                tx.execute("DELETE FROM memory_files WHERE memory_id = ?1", [id])?;
                let paths: Vec<String> = serde_json::from_str(files).unwrap_or_default();
                for p in paths {
                    tx.execute(
                        "INSERT OR IGNORE INTO memory_files (path, memory_id) VALUES (?1, ?2)",
                        params![p, id],
                    )?;
                }
                if let Some(keep) = twin {
                    super::rekey::merge_memory(tx, *id, keep)?;
                    continue;
                }
                tx.execute(
                    "UPDATE memories SET title = ?1, text = ?2, content_hash = ?3 WHERE id = ?4",
                    params![title, text, hash, id],
                )?;
            }
            Ok(changed.len())
        })
    }

    /// How many memories of each kind are stored.
    pub fn count_by_kind(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT kind, count(*) FROM memories GROUP BY kind ORDER BY kind")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// How many memories are stored.
    pub fn count(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Up to `limit` memories that pass `f`, newest first, after skipping `offset` of them.
    pub fn browse(
        &self,
        f: &MemoryFilter<'_>,
        limit: usize,
        offset: i64,
    ) -> Result<Vec<Memory>, StoreError> {
        let flags = match (f.dismissed, f.pinned_only) {
            (Some(false), false) => "dismissed = 0",
            (Some(false), true) => "dismissed = 0 AND pinned = 1",
            (Some(true), false) => "dismissed = 1",
            (Some(true), true) => "dismissed = 1 AND pinned = 1",
            (None, false) => "1",
            (None, true) => "pinned = 1",
        };
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM memories
                 WHERE (?1 IS NULL OR project = ?1) AND (?2 IS NULL OR type = ?2)
                   AND (?3 IS NULL OR kind = ?3) AND {flags}
                 ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(
                params![
                    f.project,
                    f.mtype.map(MemoryType::as_str),
                    f.kind.map(Kind::as_str),
                    sql_int(limit),
                    offset
                ],
                from_row,
            )
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Every project that holds memories, with how many it holds (dismissed ones included), in
    /// name order.
    pub fn project_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT project, count(*) FROM memories GROUP BY project ORDER BY project",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Set the pinned flag of memory `id`; false when there is no such memory.
    pub fn set_pinned(&mut self, id: i64, pinned: bool) -> Result<bool, StoreError> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE memories SET pinned = ?2 WHERE id = ?1",
                params![id, pinned],
            )? == 1)
        })
    }

    /// The id of another memory than `id` with `m`'s project, kind, title and text, which the
    /// unique key would not let `m`'s content be stored beside.
    pub fn content_twin(
        &self,
        id: i64,
        m: &Redacted<NewMemory>,
    ) -> Result<Option<i64>, StoreError> {
        let m = m.get();
        let hash = content_hash(&m.title, &m.text);
        self.conn
            .prepare_cached(
                "SELECT id FROM memories WHERE project = ?1 AND kind = ?2 AND content_hash = ?3 AND id != ?4",
            )
            .and_then(|mut stmt| {
                stmt.query_row(params![m.project, m.kind.as_str(), hash, id], |r| {
                    r.get(0)
                })
                .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// Replace the title and text of memory `id` with `m`'s, written by `m`'s host at `now`
    /// (its other fields stay as they were), keeping the text it held as a version; whether it
    /// changed.
    pub fn replace_text(
        &mut self,
        id: i64,
        m: &Redacted<NewMemory>,
        now: i64,
    ) -> Result<bool, StoreError> {
        let m = m.get();
        self.write(|tx| super::versions::edit(tx, id, &m.title, &m.text, &m.host, now))
    }
}
