//! Recording what hosts captured: one event as a hook or `POST /v1/events` sees it, a drained
//! spool's lines, and a back-filled transcript. Each is one transaction and takes only
//! [`Redacted`] values, so nothing a host sent reaches the tables unredacted.

use super::{Inserted, QueuedSession, Store, StoreError, enqueue_tx, insert_tx, touch_capture};
use crate::model::NewMemory;
use crate::redact::Redacted;

/// One line of a batch for [`Store::record_all`].
#[derive(Debug, Clone)]
pub enum Record {
    /// A memory (stored once: identical content is recognised), which also marks its host as
    /// having captured at the memory's time.
    Memory(Redacted<NewMemory>),
    /// A session to queue for compression at this time (epoch milliseconds).
    Queue(Redacted<QueuedSession>, i64),
}

impl Store {
    /// Record one event of `host` at `at`: its memory, if any; its session in the compression
    /// queue, if it finished one; and the host's last capture time. Returns the memory's id and
    /// whether it was new.
    pub fn record_event(
        &mut self,
        host: &str,
        memory: Option<&Redacted<NewMemory>>,
        session: Option<&Redacted<QueuedSession>>,
        at: i64,
    ) -> Result<Option<Inserted>, StoreError> {
        self.write(|tx| {
            let inserted = memory.map(|m| insert_tx(tx, m, None, false)).transpose()?;
            if let Some(session) = session {
                enqueue_tx(tx, session, at)?;
            }
            touch_capture(tx, host, at)?;
            Ok(inserted)
        })
    }

    /// Record a batch in one transaction; returns how many lines were stored and how many were
    /// memories already stored.
    pub fn record_all(&mut self, records: &[Record]) -> Result<(usize, usize), StoreError> {
        self.write(|tx| {
            let (mut stored, mut duplicates) = (0, 0);
            for record in records {
                match record {
                    Record::Memory(m) => {
                        if insert_tx(tx, m, None, false)?.new {
                            stored += 1;
                        } else {
                            duplicates += 1;
                        }
                        touch_capture(tx, &m.get().host, m.get().created_at)?;
                    }
                    Record::Queue(session, at) => {
                        enqueue_tx(tx, session, *at)?;
                        stored += 1;
                    }
                }
            }
            Ok((stored, duplicates))
        })
    }

    /// Store back-filled memories in one transaction, each with the session to queue at `at`
    /// when it is new: a session with nothing new is left as it is, so running a back-fill
    /// again does not put a compressed session back to pending. Returns, for each memory in
    /// order, whether it was new.
    pub fn backfill(
        &mut self,
        batch: &[(Redacted<NewMemory>, Option<Redacted<QueuedSession>>)],
        at: i64,
    ) -> Result<Vec<bool>, StoreError> {
        self.write(|tx| {
            let mut new = Vec::with_capacity(batch.len());
            let mut queued: Vec<&QueuedSession> = Vec::new();
            for (m, session) in batch {
                let is_new = insert_tx(tx, m, None, false)?.new;
                new.push(is_new);
                if let Some(session) = session.as_ref().filter(|_| is_new)
                    && !queued.contains(&session.get())
                {
                    enqueue_tx(tx, session, at)?;
                    queued.push(session.get());
                }
            }
            Ok(new)
        })
    }
}
