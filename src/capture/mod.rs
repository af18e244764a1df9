//! Capture: the hook runner and the adapter engine that turns host payloads into memories.

pub mod adapter;
pub mod hook;
pub mod recall;
pub mod template;
pub mod transcript;

use crate::model::NewMemory;
use crate::redact::{Redacted, Redactor};
use crate::store::{Inserted, QueuedSession, Store, StoreError};

/// What one event leaves in the store, in one transaction: its memory, its session's place in
/// the compression queue, and the host's last-event time. The hook and the `capture_event`
/// operation (`POST /v1/events`) both write an event this way.
pub(crate) fn record(
    store: &mut Store,
    host: &str,
    capture: &adapter::Capture,
    memory: Option<&Redacted<NewMemory>>,
    redactor: &Redactor,
    at: i64,
) -> Result<Option<Inserted>, StoreError> {
    let session = capture
        .session_id
        .as_ref()
        .filter(|_| capture.queue)
        .map(|session| {
            let session = QueuedSession {
                project: capture.project.clone(),
                session_id: session.clone(),
                host: host.to_owned(),
            };
            Redacted::new(session, redactor)
        });
    store.record_event(host, memory, session.as_ref(), at)
}
