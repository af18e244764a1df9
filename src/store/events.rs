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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, MemoryType};
    use crate::redact::Redactor;
    use crate::store::OpenOptions;

    fn memory(title: &str, session: Option<&str>, at: i64) -> Redacted<NewMemory> {
        let m = NewMemory {
            project: "shop".into(),
            kind: Kind::Prompt,
            mtype: MemoryType::Note,
            title: title.into(),
            text: title.into(),
            host: "claude-code".into(),
            session_id: session.map(Into::into),
            files: vec![],
            pinned: false,
            created_at: at,
        };
        Redacted::new(m, &Redactor::builtin())
    }

    fn session(id: &str) -> Redacted<QueuedSession> {
        let s = QueuedSession {
            project: "shop".into(),
            session_id: id.into(),
            host: "claude-code".into(),
        };
        Redacted::new(s, &Redactor::builtin())
    }

    fn rows(s: &Store, sql: &str) -> Vec<String> {
        let mut stmt = s.conn.prepare(sql).unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn a_backfill_queues_a_session_once_and_only_for_something_new() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let batch = |titles: &[(&str, &str)]| -> Vec<_> {
            titles
                .iter()
                .map(|(t, sid)| (memory(t, Some(sid), 1), Some(session(sid))))
                .collect()
        };
        let first = batch(&[("one", "s1"), ("two", "s1"), ("three", "s2")]);
        assert_eq!(s.backfill(&first, 10).unwrap(), vec![true, true, true]);
        assert_eq!(
            rows(&s, "SELECT session_id FROM session_queue ORDER BY id"),
            vec!["s1", "s2"]
        );
        s.conn
            .execute("UPDATE session_queue SET state = 'done'", [])
            .unwrap();
        // Run again with one new memory: only its session goes back to pending.
        let again = batch(&[("one", "s1"), ("four", "s2")]);
        assert_eq!(s.backfill(&again, 20).unwrap(), vec![false, true]);
        assert_eq!(
            rows(
                &s,
                "SELECT session_id || ' ' || state FROM session_queue ORDER BY id"
            ),
            vec!["s1 done", "s2 pending"]
        );
    }

    #[test]
    fn a_batch_counts_queue_lines_as_stored_and_repeated_memories_as_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let records = [
            Record::Memory(memory("one", None, 5)),
            Record::Memory(memory("one", None, 6)),
            Record::Queue(session("s1"), 7),
        ];
        assert_eq!(s.record_all(&records).unwrap(), (2, 1));
        assert_eq!(rows(&s, "SELECT title FROM memories"), vec!["one"]);
        assert_eq!(
            rows(&s, "SELECT tool || ' ' || last_at FROM captures"),
            vec!["claude-code 5"]
        );
    }

    #[test]
    fn an_event_stores_its_memory_queues_its_session_and_marks_its_host() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let m = memory("stop", Some("s1"), 3);
        let first = s
            .record_event("claude-code", Some(&m), Some(&session("s1")), 3)
            .unwrap()
            .unwrap();
        assert!(first.new);
        let again = s.record_event("claude-code", Some(&m), None, 4).unwrap();
        assert_eq!(
            again,
            Some(Inserted {
                id: first.id,
                new: false
            })
        );
        assert_eq!(s.record_event("cursor", None, None, 5).unwrap(), None);
        assert_eq!(rows(&s, "SELECT session_id FROM session_queue"), vec!["s1"]);
        assert_eq!(
            rows(&s, "SELECT tool FROM captures ORDER BY tool"),
            vec!["claude-code", "cursor"]
        );
    }
}
