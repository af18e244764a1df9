//! The compression queue: finished sessions waiting to be turned into facts and summaries.
//!
//! The Stop hook only adds a row; the worker that drains it runs elsewhere, because a hook has no
//! time budget for extraction. One row per (project, session): a session that stops many times
//! is queued once, and a stop after the worker finished puts it back to pending.

use super::{Store, StoreError};
use rusqlite::{Transaction, params};

/// Queue a session inside `tx`.
pub(crate) fn enqueue_tx(
    tx: &Transaction<'_>,
    project: &str,
    session_id: &str,
    host: &str,
    at: i64,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO session_queue (project, session_id, tool, enqueued_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (project, session_id) DO UPDATE SET state = 'pending',
             enqueued_at = max(enqueued_at, excluded.enqueued_at)",
    )?
    .execute(params![project, session_id, host, at])?;
    Ok(())
}

/// A queued session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedSession {
    pub project: String,
    pub session_id: String,
    pub host: String,
    pub state: String,
}

impl Store {
    /// The queue, oldest first.
    pub fn queued_sessions(&self) -> Result<Vec<QueuedSession>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT project, session_id, tool, state FROM session_queue ORDER BY enqueued_at, id")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(QueuedSession {
                    project: r.get(0)?,
                    session_id: r.get(1)?,
                    host: r.get(2)?,
                    state: r.get(3)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}
