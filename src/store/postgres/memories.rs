//! Memories on PostgreSQL: writing them once per content, reading and curating them, as the
//! SQLite store's `memories.rs`, `memory_reads.rs` and back-fill do.
//!
//! A memory with the same project, kind and content hash as a stored one is not stored again.
//! The insert looks for the stored one first, so that a repeated memory (a replayed spool, a
//! second import) does not draw an id from the identity sequence: `ON CONFLICT DO NOTHING`
//! alone would burn one per duplicate, and the ranking reads the largest id as the row count
//! (see `search.rs`). The unique keys still settle a race between two writers.

use super::PgStore;
use super::rows::{MEMORY_COLUMNS, memory};
use crate::model::{Kind, Memory, MemoryType, NewMemory};
use crate::redact::Redacted;
use crate::store::contract::Memories;
use crate::store::sql_numbers::sql_int;
use crate::store::standing::{Cause, Feedback, Link, Standing, Vote};
use crate::store::versions::MemoryVersion;
use crate::store::{Inserted, MemoryFilter, QueuedSession, StoreError, content_hash};
use postgres::{Statement, Transaction};
use std::collections::HashMap;

/// The most pinned memories [`Memories::pinned_memories`] returns, as the SQLite store.
const PINNED_MAX: i64 = 30;

/// Inserting memories inside a transaction, its statements prepared once for a whole batch.
pub(super) struct MemoryWriter {
    insert: Statement,
    by_content: Statement,
    by_uid: Statement,
    add_files: Statement,
}

impl MemoryWriter {
    pub(super) fn prepare(tx: &mut Transaction<'_>) -> Result<MemoryWriter, postgres::Error> {
        Ok(MemoryWriter {
            insert: tx.prepare(
                "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id,
                                       files, pinned, dismissed, created_at, content_hash)
                 SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text,
                        $8::text, $9::text, $10::boolean, $11::boolean, $12::bigint, $13::text
                 WHERE NOT EXISTS (SELECT 1 FROM memories
                                   WHERE project = $2 AND kind = $3 AND content_hash = $13)
                   AND NOT EXISTS (SELECT 1 FROM memories WHERE uid = $1)
                 ON CONFLICT DO NOTHING RETURNING id",
            )?,
            by_content: tx.prepare(
                "SELECT id FROM memories WHERE project = $1 AND kind = $2 AND content_hash = $3",
            )?,
            by_uid: tx.prepare("SELECT id FROM memories WHERE uid = $1")?,
            add_files: tx.prepare(
                "INSERT INTO memory_files (path, memory_id) SELECT unnest($1::text[]), $2
                 ON CONFLICT DO NOTHING",
            )?,
        })
    }

    /// Store `m` (fields already redacted), with `uid` when the caller carries one (an import,
    /// a synced memory), else a new time-ordered one; a memory already stored with the same
    /// content is returned, not doubled.
    pub(super) fn insert(
        &self,
        tx: &mut Transaction<'_>,
        m: &NewMemory,
        uid: Option<&str>,
        dismissed: bool,
    ) -> Result<Inserted, postgres::Error> {
        let hash = content_hash(&m.title, &m.text);
        let uid = uid.map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
        let files = serde_json::to_string(&m.files).unwrap_or_else(|_| "[]".into());
        let new = tx.query_opt(
            &self.insert,
            &[
                &uid,
                &m.project,
                &m.kind.as_str(),
                &m.mtype.as_str(),
                &m.title,
                &m.text,
                &m.host,
                &m.session_id,
                &files,
                &m.pinned,
                &dismissed,
                &m.created_at,
                &hash,
            ],
        )?;
        if let Some(row) = new {
            let id: i64 = row.get(0);
            if !m.files.is_empty() {
                tx.execute(&self.add_files, &[&m.files, &id])?;
            }
            return Ok(Inserted { id, new: true });
        }
        if let Some(row) = tx.query_opt(&self.by_content, &[&m.project, &m.kind.as_str(), &hash])? {
            return Ok(Inserted {
                id: row.get(0),
                new: false,
            });
        }
        // The uid is taken: an import of a row that is already here under other text.
        let row = tx.query_one(&self.by_uid, &[&uid])?;
        Ok(Inserted {
            id: row.get(0),
            new: false,
        })
    }
}

/// Record that `host` captured something at `at` (for `doctor`), to the minute. The row is
/// only written when it would change: an upsert locks the host's row until its transaction
/// commits even when its condition leaves the row as it was, which would make every writer
/// of that host wait for the one before it.
pub(super) fn touch_capture(
    tx: &mut Transaction<'_>,
    host: &str,
    at: i64,
) -> Result<(), postgres::Error> {
    tx.execute(
        "INSERT INTO captures (tool, last_at) SELECT $1::text, $2::bigint
         WHERE NOT EXISTS (SELECT 1 FROM captures WHERE tool = $1 AND last_at + 60000 >= $2)
         ON CONFLICT (tool) DO UPDATE SET last_at = EXCLUDED.last_at
         WHERE EXCLUDED.last_at > captures.last_at + 60000",
        &[&host, &at],
    )?;
    Ok(())
}

/// Queue a session for compression (again: a session that stopped after the worker took it
/// goes back to pending).
fn enqueue(
    tx: &mut Transaction<'_>,
    stmt: &Statement,
    session: &QueuedSession,
    at: i64,
) -> Result<(), postgres::Error> {
    tx.execute(
        stmt,
        &[&session.project, &session.session_id, &session.host, &at],
    )?;
    Ok(())
}

impl PgStore {
    fn memories_where(
        &self,
        sql: &str,
        args: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Memory>, StoreError> {
        self.with(|c| c.query(sql, args))
            .map(|rows| rows.iter().map(memory).collect())
    }

    fn counts(&self, sql: &str) -> Result<Vec<(String, i64)>, StoreError> {
        self.with(|c| c.query(sql, &[]))
            .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }
}

impl Memories for PgStore {
    fn insert(&mut self, m: &Redacted<NewMemory>) -> Result<Inserted, StoreError> {
        self.write(|tx| {
            let ins = MemoryWriter::prepare(tx)?.insert(tx, m.get(), None, false)?;
            touch_capture(tx, &m.get().host, m.get().created_at)?;
            Ok(ins)
        })
    }

    fn get_many(&self, ids: &[i64]) -> Result<Vec<Memory>, StoreError> {
        let found = self.memories_where(
            &format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1)"),
            &[&ids],
        )?;
        let by_id: HashMap<i64, Memory> = found.into_iter().map(|m| (m.id, m)).collect();
        Ok(ids.iter().filter_map(|id| by_id.get(id).cloned()).collect())
    }

    fn import(
        &mut self,
        batch: &[(Redacted<NewMemory>, Option<String>, bool)],
    ) -> Result<(usize, usize), StoreError> {
        self.write(|tx| {
            let writer = MemoryWriter::prepare(tx)?;
            let (mut new, mut dup) = (0, 0);
            for (m, uid, dismissed) in batch {
                if writer.insert(tx, m.get(), uid.as_deref(), *dismissed)?.new {
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

    fn backfill(
        &mut self,
        batch: &[(Redacted<NewMemory>, Option<Redacted<QueuedSession>>)],
        at: i64,
    ) -> Result<Vec<bool>, StoreError> {
        self.write(|tx| {
            let writer = MemoryWriter::prepare(tx)?;
            let queue = tx.prepare(
                "INSERT INTO session_queue (project, session_id, tool, enqueued_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (project, session_id) DO UPDATE SET state = 'pending',
                     enqueued_at = greatest(session_queue.enqueued_at, EXCLUDED.enqueued_at)",
            )?;
            let mut new = Vec::with_capacity(batch.len());
            let mut queued: Vec<&QueuedSession> = Vec::new();
            for (m, session) in batch {
                let is_new = writer.insert(tx, m.get(), None, false)?.new;
                new.push(is_new);
                // A session with nothing new stays as it is: a second back-fill does not put
                // a compressed session back to pending.
                if let Some(session) = session.as_ref().filter(|_| is_new)
                    && !queued.contains(&session.get())
                {
                    enqueue(tx, &queue, session.get(), at)?;
                    queued.push(session.get());
                }
            }
            Ok(new)
        })
    }

    fn memories_page(
        &self,
        project: Option<&str>,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let (at, id) = after.unwrap_or((i64::MIN, i64::MIN));
        self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m
                 WHERE ($1::text IS NULL OR m.project = $1) AND (m.created_at, m.id) > ($2, $3)
                 ORDER BY m.created_at, m.id LIMIT $4"
            ),
            &[&project, &at, &id, &sql_int(limit)],
        )
    }

    fn count_by_kind(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.counts("SELECT kind, count(*) FROM memories GROUP BY kind ORDER BY kind COLLATE \"C\"")
    }

    fn count(&self) -> Result<i64, StoreError> {
        self.with(|c| c.query_one("SELECT count(*) FROM memories", &[]))
            .map(|r| r.get(0))
    }

    fn browse(
        &self,
        f: &MemoryFilter<'_>,
        limit: usize,
        offset: i64,
    ) -> Result<Vec<Memory>, StoreError> {
        let flags = match (f.dismissed, f.pinned_only) {
            (Some(false), false) => "NOT m.dismissed",
            (Some(false), true) => "NOT m.dismissed AND m.pinned",
            (Some(true), false) => "m.dismissed",
            (Some(true), true) => "m.dismissed AND m.pinned",
            (None, false) => "true",
            (None, true) => "m.pinned",
        };
        self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m
                 WHERE ($1::text IS NULL OR m.project = $1) AND ($2::text IS NULL OR m.type = $2)
                   AND ($3::text IS NULL OR m.kind = $3) AND {flags}
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $4 OFFSET $5"
            ),
            &[
                &f.project,
                &f.mtype.map(MemoryType::as_str),
                &f.kind.map(Kind::as_str),
                &sql_int(limit),
                // A negative offset is no offset, as SQLite reads it.
                &offset.max(0),
            ],
        )
    }

    fn project_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        // Byte order, as SQLite sorts text, whatever the database's collation.
        self.counts(
            "SELECT project, count(*) FROM memories GROUP BY project ORDER BY project COLLATE \"C\"",
        )
    }

    fn set_pinned(&mut self, id: i64, pinned: bool) -> Result<bool, StoreError> {
        self.write(|tx| {
            tx.execute(
                "UPDATE memories SET pinned = $2 WHERE id = $1",
                &[&id, &pinned],
            )
        })
        .map(|n| n == 1)
    }

    fn content_twin(&self, id: i64, m: &Redacted<NewMemory>) -> Result<Option<i64>, StoreError> {
        let m = m.get();
        let hash = content_hash(&m.title, &m.text);
        self.with(|c| {
            c.query_opt(
                "SELECT id FROM memories
                 WHERE project = $1 AND kind = $2 AND content_hash = $3 AND id <> $4",
                &[&m.project, &m.kind.as_str(), &hash, &id],
            )
        })
        .map(|r| r.map(|r| r.get(0)))
    }

    fn replace_text(
        &mut self,
        id: i64,
        m: &Redacted<NewMemory>,
        now: i64,
    ) -> Result<bool, StoreError> {
        let m = m.get();
        self.write(|tx| super::versions::edit(tx, id, &m.title, &m.text, &m.host, now))
    }

    fn memory_versions(&self, id: i64) -> Result<Vec<MemoryVersion>, StoreError> {
        // One snapshot for both reads: an edit between them would show its text twice.
        self.with(|c| {
            let mut tx = c
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let out = super::versions::versions(&mut tx, id)?;
            tx.commit()?;
            Ok(out)
        })
    }

    fn stored_at(&self, id: i64) -> Result<Option<i64>, StoreError> {
        self.with(|c| {
            c.query_opt("SELECT stored_at FROM memories WHERE id = $1", &[&id])
                .map(|r| r.and_then(|r| r.get(0)))
        })
    }

    fn link_superseded(
        &mut self,
        older: i64,
        newer: i64,
        cause: Cause,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.write(|tx| super::standing::link(tx, older, newer, cause, now))
    }

    fn memory_links(&self, id: i64) -> Result<Vec<Link>, StoreError> {
        self.with(|c| super::standing::links(c, id))
    }

    fn standing(&self, project: Option<&str>, as_of: Option<i64>) -> Result<Standing, StoreError> {
        self.with(|c| {
            // One snapshot for both reads, as on SQLite.
            let mut tx = c
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let out = super::standing::standing(&mut tx, project, as_of)?;
            tx.commit()?;
            Ok(out)
        })
    }

    fn give_feedback(
        &mut self,
        id: i64,
        vote: Vote,
        now: i64,
    ) -> Result<Option<Feedback>, StoreError> {
        self.write(|tx| super::standing::give(tx, id, vote, now))
    }

    fn feedback_of(&self, id: i64) -> Result<Feedback, StoreError> {
        self.with(|c| super::standing::of(c, id))
    }

    fn pinned_memories(&self, project: &str) -> Result<Vec<Memory>, StoreError> {
        self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m
                 WHERE m.project = $1 AND m.pinned AND NOT m.dismissed
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $2"
            ),
            &[&project, &PINNED_MAX],
        )
    }

    fn newest_told(&self, project: &str, limit: usize) -> Result<Vec<Memory>, StoreError> {
        self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m
                 WHERE m.project = $1 AND NOT m.dismissed AND m.kind <> 'event'
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $2"
            ),
            &[&project, &sql_int(limit)],
        )
    }

    fn first_with_episode(&self, ids: &[i64]) -> Result<Option<i64>, StoreError> {
        let kept: Vec<i64> = self
            .with(|c| {
                c.query(
                    "SELECT memory_id FROM episodes WHERE memory_id = ANY($1)",
                    &[&ids],
                )
            })?
            .iter()
            .map(|r| r.get(0))
            .collect();
        Ok(ids.iter().copied().find(|id| kept.contains(id)))
    }

    fn episode(&self, memory_id: i64) -> Result<Option<String>, StoreError> {
        self.with(|c| {
            c.query_opt(
                "SELECT text FROM episodes WHERE memory_id = $1 AND NOT dismissed",
                &[&memory_id],
            )
        })
        .map(|r| r.map(|r| r.get(0)))
    }

    fn session_memories(
        &self,
        project: &str,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.project = $1 AND m.session_id = $2
                 ORDER BY m.created_at, m.id LIMIT $3"
            ),
            &[&project, &session_id, &sql_int(limit)],
        )
    }

    fn memories_around(
        &self,
        anchor: &Memory,
        project: Option<&str>,
        before: usize,
        after: usize,
    ) -> Result<(Vec<Memory>, Vec<Memory>), StoreError> {
        let mut earlier = self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m
                 WHERE NOT m.dismissed AND ($3::text IS NULL OR m.project = $3)
                   AND (m.created_at, m.id) < ($1, $2)
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $4"
            ),
            &[&anchor.created_at, &anchor.id, &project, &sql_int(before)],
        )?;
        earlier.reverse();
        let later = self.memories_where(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m
                 WHERE NOT m.dismissed AND ($3::text IS NULL OR m.project = $3)
                   AND (m.created_at, m.id) > ($1, $2)
                 ORDER BY m.created_at, m.id LIMIT $4"
            ),
            &[&anchor.created_at, &anchor.id, &project, &sql_int(after)],
        )?;
        Ok((earlier, later))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::redact::Redactor;
    use crate::store::{OpenOptions, Store};

    fn memory(project: &str, title: &str, text: &str, at: i64) -> NewMemory {
        NewMemory {
            project: project.into(),
            kind: Kind::Note,
            mtype: MemoryType::Note,
            title: title.into(),
            text: text.into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: at,
        }
    }

    fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
        Redacted::new(v, &Redactor::builtin())
    }

    fn sqlite() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, store)
    }

    fn pg_rows(pg: &PgStore, sql: &str) -> Vec<String> {
        pg.with(|c| c.query(sql, &[]))
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    }

    /// Forty memories over three projects, of several kinds and types, some pinned, some
    /// dismissed, with dates that tie and do not follow ids: imported into both engines in one
    /// order, so that each memory has the same id in both.
    fn corpus() -> Vec<(Redacted<NewMemory>, Option<String>, bool)> {
        let projects = ["shop", "Shop", "blog-2"];
        let kinds = [Kind::Note, Kind::Event, Kind::Prompt, Kind::Summary];
        let types = [MemoryType::Note, MemoryType::Decision, MemoryType::Gotcha];
        (0..40)
            .map(|i: usize| {
                let mut m = memory(
                    projects[i % 3],
                    &format!("title {i}"),
                    &format!("text {i}"),
                    i64::try_from((i * 7) % 13).unwrap(),
                );
                m.kind = kinds[i % 4];
                m.mtype = types[i % 3];
                m.pinned = i.is_multiple_of(5);
                m.session_id = i.is_multiple_of(2).then(|| format!("s{}", i % 3));
                m.files = vec![format!("src/f{}.rs", i % 4)];
                (redacted(m), Some(format!("u{i}")), i % 7 == 3)
            })
            .collect()
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_memory_is_stored_once_without_spending_an_id_and_read_back_in_the_order_asked() {
        let mut pg = testing::fresh();
        let mut m = memory("shop", "deploys", "deploys go through staging", 1_000);
        m.files = vec!["src/a.rs".into(), "src/a.rs".into(), "src/b.rs".into()];
        let first = pg.insert(&redacted(m.clone())).unwrap();
        let again = pg.insert(&redacted(m.clone())).unwrap();
        assert!(first.new && !again.new);
        assert_eq!(first.id, again.id);
        // The same words as another kind are another memory.
        let event = Memories::insert(
            &mut pg,
            &redacted(NewMemory {
                kind: Kind::Event,
                ..m.clone()
            }),
        )
        .unwrap();
        assert!(event.new);
        assert_eq!(event.id, first.id + 1, "the duplicate drew no id");
        assert_eq!(Memories::count(&pg).unwrap(), 2);
        assert_eq!(
            pg_rows(
                &pg,
                "SELECT path FROM memory_files ORDER BY path, memory_id"
            ),
            ["src/a.rs", "src/a.rs", "src/b.rs", "src/b.rs"]
        );

        let read: Vec<i64> = pg
            .get_many(&[event.id, 999, first.id, event.id])
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(read, [event.id, first.id, event.id]);
        let got = &pg.get_many(&[first.id]).unwrap()[0];
        assert_eq!(
            (got.title.as_str(), got.files.len(), got.kind),
            ("deploys", 3, Kind::Note)
        );

        // The host's last capture, to the minute.
        let at = |pg: &PgStore| pg_rows(pg, "SELECT tool || ' ' || last_at FROM captures");
        assert_eq!(at(&pg), ["cli 1000"]);
        pg.insert(&redacted(memory("shop", "b", "b", 30_000)))
            .unwrap();
        assert_eq!(at(&pg), ["cli 1000"]);
        pg.insert(&redacted(memory("shop", "c", "c", 70_000)))
            .unwrap();
        assert_eq!(at(&pg), ["cli 70000"]);
        pg.insert(&redacted(memory("shop", "d", "d", 5))).unwrap();
        assert_eq!(at(&pg), ["cli 70000"], "an older capture never lowers it");
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn reads_filter_and_order_as_sqlite_does() {
        let (_dir, mut lite) = sqlite();
        let mut pg = testing::fresh();
        let batch = corpus();
        assert_eq!(lite.import(&batch).unwrap(), pg.import(&batch).unwrap());
        let all: Vec<i64> = (1..=40).collect();
        assert_eq!(lite.get_many(&all).unwrap(), pg.get_many(&all).unwrap());

        for project in [None, Some("shop"), Some("Shop"), Some("none")] {
            for mtype in [None, Some(MemoryType::Decision)] {
                for kind in [None, Some(Kind::Event)] {
                    for dismissed in [None, Some(false), Some(true)] {
                        for pinned_only in [false, true] {
                            let f = MemoryFilter {
                                project,
                                mtype,
                                kind,
                                dismissed,
                                pinned_only,
                            };
                            for (limit, offset) in [(100, 0), (3, 2), (5, -1)] {
                                assert_eq!(
                                    lite.browse(&f, limit, offset).unwrap(),
                                    pg.browse(&f, limit, offset).unwrap(),
                                    "{f:?} {limit} {offset}"
                                );
                            }
                        }
                    }
                }
            }
        }

        for project in [None, Some("shop")] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut after = None;
            loop {
                let page = lite.memories_page(project, after, 7).unwrap();
                assert_eq!(page, pg.memories_page(project, after, 7).unwrap());
                let Some(last) = page.last() else { break };
                after = Some((last.created_at, last.id));
                a.extend(page.iter().map(|m| m.id));
            }
            b.extend(
                lite.memories_page(project, None, 1000)
                    .unwrap()
                    .iter()
                    .map(|m| m.id),
            );
            assert_eq!(a, b, "pages walk every memory once");
        }

        assert_eq!(lite.count().unwrap(), Memories::count(&pg).unwrap());
        assert_eq!(lite.count_by_kind().unwrap(), pg.count_by_kind().unwrap());
        assert_eq!(lite.project_counts().unwrap(), pg.project_counts().unwrap());
        for project in ["shop", "Shop", "blog-2", "none"] {
            assert_eq!(
                lite.pinned_memories(project).unwrap(),
                pg.pinned_memories(project).unwrap()
            );
            assert_eq!(
                lite.newest_told(project, 4).unwrap(),
                pg.newest_told(project, 4).unwrap()
            );
        }
        let anchors = pg.get_many(&[1, 8, 14, 40]).unwrap();
        for anchor in &anchors {
            for project in [None, Some("shop")] {
                assert_eq!(
                    lite.memories_around(anchor, project, 3, 4).unwrap(),
                    pg.memories_around(anchor, project, 3, 4).unwrap(),
                    "around {} in {project:?}",
                    anchor.id
                );
            }
        }
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn curating_a_memory_changes_what_sqlite_changes() {
        let (_dir, mut lite) = sqlite();
        let mut pg = testing::fresh();
        let batch = corpus();
        lite.import(&batch).unwrap();
        pg.import(&batch).unwrap();

        for (id, pinned) in [(2, true), (5, false), (999, true)] {
            assert_eq!(
                lite.set_pinned(id, pinned).unwrap(),
                pg.set_pinned(id, pinned).unwrap()
            );
        }
        // Memory 4's content, asked for memory 1 (same project and kind): 4 is its twin.
        let four = batch[3].0.clone();
        for id in [1, 4] {
            assert_eq!(
                lite.content_twin(id, &four).unwrap(),
                pg.content_twin(id, &four).unwrap()
            );
        }
        assert_eq!(pg.content_twin(1, &four).unwrap(), Some(4));
        let new_text = redacted(memory("shop", "rewritten", "the new text", 0));
        assert!(pg.replace_text(1, &new_text, 50).unwrap());
        assert!(lite.replace_text(1, &new_text, 50).unwrap());
        assert!(!pg.replace_text(999, &new_text, 50).unwrap());
        // The text it replaced is kept as a version, alike on both.
        let versions = pg.memory_versions(1).unwrap();
        assert_eq!(versions, lite.memory_versions(1).unwrap());
        assert_eq!(
            versions
                .iter()
                .map(|v| (v.version, v.classification, v.replaced_at))
                .collect::<Vec<_>>(),
            [(2, "edit", None), (1, "original", Some(50))]
        );
        // Memory 13 is a note of the same project: the same content clashes with 1's key.
        let clash = pg.replace_text(13, &new_text, 60).unwrap_err();
        assert!(clash.is_constraint(), "{clash}");
        assert!(
            lite.replace_text(13, &new_text, 60)
                .unwrap_err()
                .is_constraint()
        );
        assert_eq!(
            pg.memory_versions(13).unwrap().len(),
            1,
            "a refused edit keeps nothing"
        );
        let all: Vec<i64> = (1..=40).collect();
        assert_eq!(lite.get_many(&all).unwrap(), pg.get_many(&all).unwrap());

        // Episodes: compression's originals, the first of the ids asked that has one.
        for (sql_lite, id) in [(0, 7_i64), (1, 3)] {
            lite.conn
                .execute(
                    "INSERT INTO episodes (memory_id, title, text, replaced_at, dismissed)
                     VALUES (?1, 't', 'original', 1, ?2)",
                    rusqlite::params![id, sql_lite],
                )
                .unwrap();
            pg.with(|c| {
                c.execute(
                    "INSERT INTO episodes (memory_id, title, text, replaced_at, dismissed)
                     VALUES ($1, 't', 'original', 1, $2)",
                    &[&id, &(sql_lite == 1)],
                )
            })
            .unwrap();
        }
        for ids in [vec![1, 3, 7], vec![9, 7, 3], vec![], vec![2]] {
            assert_eq!(
                lite.first_with_episode(&ids).unwrap(),
                pg.first_with_episode(&ids).unwrap()
            );
        }
        assert_eq!(pg.first_with_episode(&[1, 3, 7]).unwrap(), Some(3));
        for id in [3, 7, 8] {
            assert_eq!(lite.episode(id).unwrap(), pg.episode(id).unwrap());
        }
        assert_eq!(pg.episode(7).unwrap().as_deref(), Some("original"));
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn an_import_counts_new_and_known_and_a_backfill_queues_only_new_sessions() {
        let (_dir, mut lite) = sqlite();
        let mut pg = testing::fresh();
        let batch = corpus();
        assert_eq!(pg.import(&batch[..10]).unwrap(), (10, 0));
        assert_eq!(pg.import(&batch[..12]).unwrap(), (2, 10));
        // A known uid under other text is known, not stored again.
        let moved = vec![(
            redacted(memory("shop", "other", "other", 1)),
            Some("u0".to_owned()),
            false,
        )];
        assert_eq!(pg.import(&moved).unwrap(), (0, 1));
        lite.import(&batch[..12]).unwrap();
        assert_eq!(lite.import(&moved).unwrap(), (0, 1));
        let all: Vec<i64> = (1..=20).collect();
        assert_eq!(lite.get_many(&all).unwrap(), pg.get_many(&all).unwrap());

        let session = |id: &str| {
            redacted(QueuedSession {
                project: "shop".into(),
                session_id: id.into(),
                host: "claude-code".into(),
            })
        };
        let backfill = |titles: &[(&str, &str)]| -> Vec<_> {
            titles
                .iter()
                .map(|(t, sid)| {
                    let mut m = memory("shop", t, t, 1);
                    m.session_id = Some((*sid).to_owned());
                    (redacted(m), Some(session(sid)))
                })
                .collect()
        };
        let first = backfill(&[("one", "s1"), ("two", "s1"), ("three", "s2")]);
        assert_eq!(pg.backfill(&first, 10).unwrap(), [true, true, true]);
        assert_eq!(lite.backfill(&first, 10).unwrap(), [true, true, true]);
        let queue = "SELECT session_id || ' ' || state || ' ' || enqueued_at FROM session_queue ORDER BY id";
        assert_eq!(pg_rows(&pg, queue), ["s1 pending 10", "s2 pending 10"]);
        pg.with(|c| c.execute("UPDATE session_queue SET state = 'done'", &[]))
            .unwrap();
        // Again with one new memory: only its session goes back to pending.
        let again = backfill(&[("one", "s1"), ("four", "s2")]);
        assert_eq!(pg.backfill(&again, 20).unwrap(), [false, true]);
        assert_eq!(pg_rows(&pg, queue), ["s1 done 10", "s2 pending 20"]);
        // An earlier back-fill time never moves a queued session back.
        let late = backfill(&[("five", "s2")]);
        assert_eq!(pg.backfill(&late, 5).unwrap(), [true]);
        assert_eq!(pg_rows(&pg, queue), ["s1 done 10", "s2 pending 20"]);
    }
    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn supersession_feedback_and_stored_times_are_kept_as_sqlite_keeps_them() {
        use crate::store::standing::{Cause, Vote};
        let (_dir, mut lite) = sqlite();
        let mut pg = testing::fresh();
        let batch = corpus();
        lite.import(&batch).unwrap();
        pg.import(&batch).unwrap();
        let both = |lite: &mut Store, pg: &mut PgStore, older, newer, at| {
            let a = lite
                .link_superseded(older, newer, Cause::Replaced, at)
                .unwrap();
            let b = pg
                .link_superseded(older, newer, Cause::Replaced, at)
                .unwrap();
            assert_eq!(a, b, "link {older} -> {newer}");
            a
        };
        assert!(both(&mut lite, &mut pg, 1, 5, 100));
        assert!(both(&mut lite, &mut pg, 5, 9, 200));
        assert!(!both(&mut lite, &mut pg, 5, 1, 300), "never both ways");
        assert!(!both(&mut lite, &mut pg, 1, 1, 300), "never to itself");
        assert!(
            !both(&mut lite, &mut pg, 1, 999, 300),
            "never to a missing memory"
        );
        for id in [1, 5, 9, 2] {
            assert_eq!(lite.memory_links(id).unwrap(), pg.memory_links(id).unwrap());
        }
        for vote in [
            Vote::Favourite,
            Vote::Positive,
            Vote::Negative,
            Vote::Negative,
        ] {
            assert_eq!(
                lite.give_feedback(9, vote, 400).unwrap(),
                pg.give_feedback(9, vote, 400).unwrap()
            );
        }
        assert_eq!(pg.give_feedback(999, Vote::Positive, 400).unwrap(), None);
        assert_eq!(lite.feedback_of(9).unwrap(), pg.feedback_of(9).unwrap());
        for project in [None, Some("shop"), Some("blog-2")] {
            for as_of in [None, Some(150), Some(50)] {
                assert_eq!(
                    lite.standing(project, as_of).unwrap(),
                    pg.standing(project, as_of).unwrap(),
                    "{project:?} as of {as_of:?}"
                );
            }
        }
        // Both record when they took a memory in, by the wall clock, apart from its own time.
        let now = crate::time::now_ms();
        for store in [&lite as &dyn Memories, &pg] {
            let at = store.stored_at(1).unwrap().unwrap();
            assert!((now - at).abs() < 600_000, "{at} vs {now}");
            assert_eq!(store.stored_at(999).unwrap(), None);
        }
    }
}
