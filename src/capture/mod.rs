//! Capture: the hook runner and the adapter engine that turns host payloads into memories.

pub mod adapter;
pub mod hook;
pub mod template;
pub mod transcript;

use crate::model::NewMemory;
use crate::redact::{Redacted, Redactor};
use crate::store::{Inserted, QueuedSession, enqueue_tx, insert_tx, touch_capture};

/// What one event leaves in the store, written in the caller's transaction: its memory, its
/// session's place in the compression queue, and the host's last-event time. The hook and the
/// `capture_event` operation (`POST /v1/events`) both write an event this way.
pub(crate) fn record_tx(
    tx: &rusqlite::Transaction<'_>,
    host: &str,
    capture: &adapter::Capture,
    memory: Option<&Redacted<NewMemory>>,
    redactor: &Redactor,
    at: i64,
) -> rusqlite::Result<Option<Inserted>> {
    let inserted = memory.map(|m| insert_tx(tx, m, None, false)).transpose()?;
    if capture.queue
        && let Some(session) = &capture.session_id
    {
        let session = QueuedSession {
            project: capture.project.clone(),
            session_id: session.clone(),
            host: host.to_owned(),
        };
        enqueue_tx(tx, &Redacted::new(session, redactor), at)?;
    }
    touch_capture(tx, host, at)?;
    Ok(inserted)
}
