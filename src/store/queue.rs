//! The compression queue: finished sessions waiting to be turned into facts and summaries.
//!
//! The Stop hook only adds a row; the worker that drains it runs elsewhere, because a hook has no
//! time budget for extraction. One row per (project, session): a session that stops many times
//! is queued once, and a stop after the worker took it puts it back to pending. The worker turns
//! pending entries into jobs (`jobs`).

use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::{Transaction, params};

/// A session to queue. Its project key and session id are redacted as its memories' are, so
/// the queue names the session as they do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedSession {
    pub project: String,
    pub session_id: String,
    pub host: String,
}

impl Redact for QueuedSession {
    fn redact(self, r: &Redactor) -> QueuedSession {
        QueuedSession {
            project: crate::project::stored_key(&self.project, r),
            session_id: r.redact(&self.session_id),
            host: r.redact(&self.host),
        }
    }
}

/// Queue a session inside `tx`.
pub(crate) fn enqueue_tx(
    tx: &Transaction<'_>,
    session: &Redacted<QueuedSession>,
    at: i64,
) -> rusqlite::Result<()> {
    let QueuedSession {
        project,
        session_id,
        host,
    } = session.get();
    tx.prepare_cached(
        "INSERT INTO session_queue (project, session_id, tool, enqueued_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (project, session_id) DO UPDATE SET state = 'pending',
             enqueued_at = max(enqueued_at, excluded.enqueued_at)",
    )?
    .execute(params![project, session_id, host, at])?;
    Ok(())
}
