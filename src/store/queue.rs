//! The compression queue: finished sessions waiting to be turned into facts and summaries.
//!
//! The Stop hook only adds a row; the worker that drains it runs elsewhere, because a hook has no
//! time budget for extraction. One row per (project, session): a session that stops many times
//! is queued once, and a stop after the worker took it puts it back to pending. The worker turns
//! pending entries into jobs (`jobs`).

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
