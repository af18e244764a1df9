//! Reading memories for recall: a project's pinned and newest memories (the session-start
//! block), which of a session's summaries compression wrote, and the memories either side of
//! one in time (the timeline). Each is bounded, so a store of any size costs the same.

use super::sql_numbers::sql_int;
use super::{COLUMNS, Store, StoreError, from_row};
use crate::model::Memory;
use rusqlite::params;

/// The most pinned memories [`Store::pinned_memories`] returns.
const PINNED_MAX: i64 = 30;

impl Store {
    fn memories_where(
        &self,
        sql: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<Memory>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map(args, from_row).map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// A project's pinned memories that are not dismissed, newest first, at most 30.
    pub fn pinned_memories(&self, project: &str) -> Result<Vec<Memory>, StoreError> {
        self.memories_where(
            &format!(
                "SELECT {COLUMNS} FROM memories INDEXED BY memories_pinned
                 WHERE project = ?1 AND pinned = 1 AND dismissed = 0
                 ORDER BY created_at DESC, id DESC LIMIT ?2"
            ),
            params![project, PINNED_MAX],
        )
    }

    /// A project's newest `limit` memories that are not dismissed and not raw tool events
    /// (what people said, concluded and decided), newest first.
    pub fn newest_told(&self, project: &str, limit: usize) -> Result<Vec<Memory>, StoreError> {
        self.memories_where(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE project = ?1 AND dismissed = 0 AND kind != 'event'
                 ORDER BY created_at DESC, id DESC LIMIT ?2"
            ),
            params![project, sql_int(limit)],
        )
    }

    /// The first of `ids` whose memory compression rewrote, keeping its original message as an
    /// episode; `None` when none was.
    pub fn first_with_episode(&self, ids: &[i64]) -> Result<Option<i64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM episodes WHERE memory_id = ?1)")
            .map_err(|e| self.err(e))?;
        for &id in ids {
            if stmt
                .query_row([id], |r| r.get(0))
                .map_err(|e| self.err(e))?
            {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The first `limit` memories of one session of a project, dismissed or not, in time order
    /// (ties by id): where a memory came from, for `aletheia why`.
    pub fn session_memories(
        &self,
        project: &str,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        self.memories_where(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE project = ?1 AND session_id = ?2
                 ORDER BY created_at, id LIMIT ?3"
            ),
            params![project, session_id, sql_int(limit)],
        )
    }

    /// Up to `before` memories just before `anchor` and up to `after` just after it, in time
    /// order (ties by id), not dismissed, in `project` or every project.
    pub fn memories_around(
        &self,
        anchor: &Memory,
        project: Option<&str>,
        before: usize,
        after: usize,
    ) -> Result<(Vec<Memory>, Vec<Memory>), StoreError> {
        let mut earlier = self.memories_where(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE dismissed = 0 AND (?3 IS NULL OR project = ?3)
                   AND (created_at < ?1 OR (created_at = ?1 AND id < ?2))
                 ORDER BY created_at DESC, id DESC LIMIT ?4"
            ),
            params![anchor.created_at, anchor.id, project, sql_int(before)],
        )?;
        earlier.reverse();
        let later = self.memories_where(
            &format!(
                "SELECT {COLUMNS} FROM memories WHERE dismissed = 0 AND (?3 IS NULL OR project = ?3)
                   AND (created_at > ?1 OR (created_at = ?1 AND id > ?2))
                 ORDER BY created_at, id LIMIT ?4"
            ),
            params![anchor.created_at, anchor.id, project, sql_int(after)],
        )?;
        Ok((earlier, later))
    }
}
