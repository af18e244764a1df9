//! Sentence vectors on PostgreSQL, stored as the SQLite store stores them (see
//! [`crate::store::vectors`]): int8 values with one scale, the values as BYTEA, one row per
//! memory, and `seq` growing with every write so a process holding the vectors in memory reads
//! only what is new.
//!
//! `seq` comes from an identity sequence, which hands out numbers when rows are inserted, not
//! when they commit: two writers at once could commit 11 before 10, and a reader that had seen
//! 11 would never look at 10. Writers therefore hold an advisory lock for their transaction, so
//! numbers are handed out in commit order, as SQLite's single writer does.

use super::PgStore;
use crate::model::{Kind, MemoryType};
use crate::store::StoreError;
use crate::store::contract::Vectors;
use crate::store::sql_numbers::{count, sql_int};
use crate::store::vectors::{StoredVector, quantise};

/// The advisory lock vector writers hold (any fixed number no other lock uses).
const VECTOR_LOCK: i64 = 0x616c_6574_6869_6133;

/// The most of a memory's text that is embedded (the SQLite store's limit).
const EMBED_CHARS: usize = 4_000;

/// A stored scale, written from an `f32`, as the `f32` it was.
#[allow(
    clippy::cast_possible_truncation,
    reason = "every scale was an f32 widened to f64 when stored, so narrowing it back is exact"
)]
pub(super) fn stored_scale(s: f64) -> f32 {
    s as f32
}

impl Vectors for PgStore {
    fn memories_without_vector(
        &self,
        model: &str,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        // Dismissed memories get one too, so a restored memory is found by meaning at once and
        // a caller can keep `after` as a watermark: ids only grow.
        let rows = self.with(|c| {
            c.query(
                "SELECT m.id, m.title, m.text FROM memories m
                 WHERE m.id > $1 AND NOT EXISTS
                     (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = $3)
                 ORDER BY m.id LIMIT $2",
                &[&after, &sql_int(limit), &model],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| {
                let title: &str = r.get(1);
                let text: &str = r.get(2);
                // The title is usually the text's beginning; repeating it would weigh it twice.
                let body = if text.starts_with(title.trim_end_matches('…')) {
                    text.to_owned()
                } else {
                    format!("{title}\n{text}")
                };
                (r.get(0), crate::model::cut_chars(&body, EMBED_CHARS))
            })
            .collect())
    }

    fn count_without_vector(&self, model: &str) -> Result<u64, StoreError> {
        self.with(|c| {
            c.query_one(
                "SELECT count(*) FROM memories m
                 WHERE NOT EXISTS
                     (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = $1)",
                &[&model],
            )
            .map(|r| count(r.get(0)))
        })
    }

    fn vectors_since(&self, model: &str, seq: i64) -> Result<Vec<StoredVector>, StoreError> {
        let rows = self.with(|c| {
            c.query(
                "SELECT v.seq, v.memory_id, m.project, v.scale, v.vector, m.kind, m.type, m.created_at
                 FROM memory_vectors v JOIN memories m ON m.id = v.memory_id
                 WHERE v.seq > $1 AND v.model = $2 ORDER BY v.seq",
                &[&seq, &model],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| {
                let bytes: &[u8] = r.get(4);
                StoredVector {
                    seq: r.get(0),
                    memory_id: r.get(1),
                    project: r.get(2),
                    kind: r.get::<_, &str>(5).parse().unwrap_or(Kind::Note),
                    mtype: r.get::<_, &str>(6).parse().unwrap_or(MemoryType::Note),
                    created_at: r.get(7),
                    scale: stored_scale(r.get(3)),
                    values: bytes.iter().map(|&b| b.cast_signed()).collect(),
                }
            })
            .collect())
    }

    fn put_vectors(
        &mut self,
        model: &str,
        vectors: &[(i64, Vec<f32>)],
    ) -> Result<usize, StoreError> {
        self.write(|tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&VECTOR_LOCK])?;
            // A vector replacing an earlier one gets a new `seq` (SQLite's INSERT OR REPLACE
            // writes a new row), so a reader that has seen the old one reads it again: the
            // number the insert drew, which EXCLUDED holds.
            let stmt = tx.prepare(
                "INSERT INTO memory_vectors (memory_id, model, scale, vector)
                 SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM memories WHERE id = $1)
                 ON CONFLICT (memory_id) DO UPDATE SET seq = EXCLUDED.seq, model = EXCLUDED.model,
                     scale = EXCLUDED.scale, vector = EXCLUDED.vector",
            )?;
            let mut stored = 0;
            for (id, v) in vectors {
                let (scale, q) = quantise(v);
                let bytes: Vec<u8> = q.iter().map(|x| x.cast_unsigned()).collect();
                stored += tx.execute(&stmt, &[id, &model, &f64::from(scale), &bytes])?;
            }
            Ok(usize::try_from(stored).unwrap_or(usize::MAX))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::store::{OpenOptions, Store};

    /// An engine the test can also write plain SQL to (the same statement on both).
    trait Engine: Vectors {
        fn sql(&mut self, q: &str);
    }

    impl Engine for Store {
        fn sql(&mut self, q: &str) {
            self.conn().execute_batch(q).unwrap();
        }
    }

    impl Engine for PgStore {
        fn sql(&mut self, q: &str) {
            self.with(|c| {
                c.batch_execute(q)?;
                // Rows inserted with their id: the sequence moves past them.
                c.batch_execute(
                    "SELECT setval(pg_get_serial_sequence('memories', 'id'), greatest(max(id), 1)) FROM memories",
                )
            })
            .unwrap();
        }
    }

    /// The SQLite store's own test of replaced and lost vectors, every answer logged.
    fn scenario(s: &mut dyn Engine) -> Vec<String> {
        let mut log = Vec::new();
        for (i, (title, text)) in [
            ("kept", "kept"),
            ("changed", "changed"),
            ("deleted", "deleted"),
            (
                "A title of its own",
                "and a text that does not start with it",
            ),
        ]
        .iter()
        .enumerate()
        {
            s.sql(&format!(
                "INSERT INTO memories (id, uid, project, kind, type, title, text, tool, created_at, content_hash)
                 VALUES ({id}, 'u{id}', 'p{id}', 'note', 'note', '{title}', '{text}', 'test', 0, 'h{id}')",
                id = i + 1
            ));
        }
        log.push(format!("{:?}", s.count_without_vector("m").unwrap()));
        let stored = s
            .put_vectors(
                "m",
                &[
                    (1, vec![1.0; 384]),
                    (2, vec![0.5; 384]),
                    (3, vec![0.2; 384]),
                    (99, vec![0.1; 384]),
                ],
            )
            .unwrap();
        log.push(format!("stored {stored}"));
        s.sql("UPDATE memories SET text = 'changed again' WHERE id = 2");
        s.sql("DELETE FROM memories WHERE id = 3");
        let left: Vec<i64> = s
            .vectors_since("m", 0)
            .unwrap()
            .iter()
            .map(|v| v.memory_id)
            .collect();
        log.push(format!("left {left:?}"));
        log.push(format!(
            "{:?}",
            s.memories_without_vector("m", 0, 10).unwrap()
        ));
        log.push(format!(
            "{:?}",
            s.memories_without_vector("m", 2, 10).unwrap()
        ));
        log.push(format!(
            "{:?}",
            s.memories_without_vector("m", 0, 1).unwrap()
        ));
        let stored = s
            .put_vectors(
                "m",
                &[
                    (2, vec![0.5; 384]),
                    (4, vec![0.25, -0.5]),
                    (4, vec![-1.0, 0.3]),
                ],
            )
            .unwrap();
        log.push(format!("stored {stored}"));
        for v in s.vectors_since("m", 0).unwrap() {
            log.push(format!(
                "seq {} memory {} {} scale {} {:?}",
                v.seq,
                v.memory_id,
                v.project,
                v.scale,
                &v.values[..2]
            ));
        }
        let first = s.vectors_since("m", 0).unwrap()[0].seq;
        log.push(format!(
            "after {first}: {}",
            s.vectors_since("m", first).unwrap().len()
        ));
        log.push(format!("{:?}", s.count_without_vector("m").unwrap()));
        log
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn vectors_read_back_after_their_sequence_as_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let mut lite =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut pg = testing::fresh();
        let expected = scenario(&mut lite);
        let got = scenario(&mut pg);
        assert_eq!(got, expected);
        // A vector written anew got a number never used before, and the memory written twice
        // in one call holds the second vector, under the later number.
        assert!(
            expected.iter().any(|l| l.starts_with("seq 4 memory 2")),
            "{expected:?}"
        );
        assert!(
            expected.iter().any(|l| l.starts_with("seq 6 memory 4")),
            "{expected:?}"
        );
    }
}
