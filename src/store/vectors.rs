//! Sentence vectors of memories, for semantic search, in the same file as the memories.
//!
//! One row per memory: the vector quantised to int8 with one scale (`value ≈ q × scale`), 384
//! bytes instead of 1,536 for f32, which keeps a long-running process's copy of 100,000 vectors
//! near 40 MB; measured, the cosines it gives differ from f32's by less than 0.01, far below the
//! gaps that order search results. `seq` grows with every write, so a process holding the
//! vectors in memory reads only what is new since its last look. The vectors are derived from
//! memories already redacted, and are removed with them.

use super::sql_numbers::{count, sql_int};
use super::{Store, StoreError};
use crate::model::{Kind, MemoryType};
use rusqlite::{Connection, Transaction, params};

/// One stored vector, with what a search by meaning filters on before it takes neighbours: the
/// memory's project, kind, type and date. None of them changes while the vector stands (a
/// rewrite that moves a memory's date changes its text too, which drops the vector).
pub struct StoredVector {
    pub seq: i64,
    pub memory_id: i64,
    pub project: String,
    pub kind: Kind,
    pub mtype: MemoryType,
    pub created_at: i64,
    pub scale: f32,
    pub values: Vec<i8>,
}

/// The memories a search by meaning may answer with: the search's own filters, applied to each
/// vector before it can take a place among the nearest, so that a narrow filter still gets its
/// neighbours.
#[derive(Debug, Clone, Copy, Default)]
pub struct VectorScope<'a> {
    pub project: Option<&'a str>,
    pub mtype: Option<MemoryType>,
    pub kind: Option<Kind>,
    /// Created at or after.
    pub since: Option<i64>,
    /// Created before.
    pub until: Option<i64>,
}

/// The most of a memory's text that is embedded: well past what the model reads (256 word
/// pieces), even for code, which splits into more pieces per character than prose.
const EMBED_CHARS: usize = 4_000;

/// Quantise a vector to int8 with its scale.
#[allow(
    clippy::cast_possible_truncation,
    reason = "each value is clamped to ±127 before the cast, and a NaN casts to 0"
)]
pub fn quantise(v: &[f32]) -> (f32, Vec<i8>) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (0.0, vec![0; v.len()]);
    }
    let scale = max / 127.0;
    (
        scale,
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
            .collect(),
    )
}

/// Memories with an id above `after` that have no vector of `model` yet (none, or one another
/// model made), in id order: the text to embed for each, title then text. Dismissed memories
/// get one too, so that a restored memory is found by meaning at once and a caller can keep
/// `after` as a watermark: ids only grow.
fn missing(
    conn: &Connection,
    model: &str,
    after: i64,
    limit: usize,
) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.id, m.title, m.text FROM memories m
         WHERE m.id > ?1 AND NOT EXISTS
             (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?3)
         ORDER BY m.id LIMIT ?2",
    )?;
    stmt.query_map(params![after, sql_int(limit), model], |r| {
        let title: String = r.get(1)?;
        let text: String = r.get(2)?;
        // The title is usually the text's beginning; repeating it would weigh it twice.
        let body = if text.starts_with(title.trim_end_matches('…')) {
            text
        } else {
            format!("{title}\n{text}")
        };
        // The model reads 256 word pieces, a thousand characters or so of prose; the rest of a
        // long tool output would only cost the tokenizer time.
        Ok((r.get(0)?, crate::model::cut_chars(&body, EMBED_CHARS)))
    })?
    .collect()
}

/// How many memories have no vector of `model` yet.
fn count_missing(conn: &Connection, model: &str) -> rusqlite::Result<u64> {
    conn.query_row(
        "SELECT count(*) FROM memories m
         WHERE NOT EXISTS
             (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?1)",
        [model],
        |r| r.get::<_, i64>(0),
    )
    .map(count)
}

/// Store vectors for memories (replacing any earlier one of the same memory). A memory deleted
/// meanwhile is skipped.
fn put(tx: &Transaction<'_>, model: &str, vectors: &[(i64, Vec<f32>)]) -> rusqlite::Result<usize> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR REPLACE INTO memory_vectors (memory_id, model, scale, vector)
         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?1)",
    )?;
    let mut stored = 0;
    for (id, v) in vectors {
        let (scale, q) = quantise(v);
        let bytes: Vec<u8> = q.iter().map(|x| x.cast_unsigned()).collect();
        stored += stmt.execute(params![id, model, scale as f64, bytes])?;
    }
    Ok(stored)
}

/// Every vector of `model` written after `seq`, with its memory's project, in write order.
fn since(conn: &Connection, model: &str, seq: i64) -> rusqlite::Result<Vec<StoredVector>> {
    let mut stmt = conn.prepare_cached(
        "SELECT v.seq, v.memory_id, m.project, v.scale, v.vector, m.kind, m.type, m.created_at
         FROM memory_vectors v JOIN memories m ON m.id = v.memory_id
         WHERE v.seq > ?1 AND v.model = ?2 ORDER BY v.seq",
    )?;
    stmt.query_map(params![seq, model], |r| {
        let bytes: Vec<u8> = r.get(4)?;
        Ok(StoredVector {
            seq: r.get(0)?,
            memory_id: r.get(1)?,
            project: r.get(2)?,
            kind: r.get::<_, String>(5)?.parse().unwrap_or(Kind::Note),
            mtype: r.get::<_, String>(6)?.parse().unwrap_or(MemoryType::Note),
            created_at: r.get(7)?,
            scale: r.get::<_, f32>(3)?,
            values: bytes.into_iter().map(u8::cast_signed).collect(),
        })
    })?
    .collect()
}

impl Store {
    /// Up to `limit` memories with an id above `after` that have no vector of `model` yet, in
    /// id order, each with the text to embed (see [`missing`]).
    pub fn memories_without_vector(
        &self,
        model: &str,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        missing(&self.conn, model, after, limit).map_err(|e| self.err(e))
    }

    /// How many memories have no vector of `model` yet.
    pub fn count_without_vector(&self, model: &str) -> Result<u64, StoreError> {
        count_missing(&self.conn, model).map_err(|e| self.err(e))
    }

    /// Every vector of `model` written after `seq`, with its memory's project, in write order.
    pub fn vectors_since(&self, model: &str, seq: i64) -> Result<Vec<StoredVector>, StoreError> {
        since(&self.conn, model, seq).map_err(|e| self.err(e))
    }

    /// Store vectors of `model` for memories in one transaction, replacing any earlier one of
    /// the same memory; a memory deleted meanwhile is skipped. Returns how many were stored.
    pub fn put_vectors(
        &mut self,
        model: &str,
        vectors: &[(i64, Vec<f32>)],
    ) -> Result<usize, StoreError> {
        self.write(|tx| put(tx, model, vectors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_vectors_keep_their_cosines() {
        let a: Vec<f32> = (0..384)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let b: Vec<f32> = (0..384)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let unit = |v: &[f32]| v.iter().map(|x| x / norm(v)).collect::<Vec<f32>>();
        let (a, b) = (unit(&a), unit(&b));
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let (sa, qa) = quantise(&a);
        let (sb, qb) = quantise(&b);
        let approx: f32 = qa
            .iter()
            .zip(&qb)
            .map(|(x, y)| *x as f32 * *y as f32)
            .sum::<f32>()
            * sa
            * sb;
        assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
        assert_eq!(quantise(&[0.0, 0.0]), (0.0, vec![0, 0]));
    }

    #[test]
    fn a_changed_text_loses_its_vector_and_sequence_numbers_are_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = crate::store::Store::open_path(
            &dir.path().join("hub.db"),
            crate::store::OpenOptions::INTERACTIVE,
        )
        .unwrap();
        let conn_rows = |store: &crate::store::Store| since(store.conn(), "m", 0).unwrap();
        store
            .write(|tx| {
                for (i, text) in ["kept", "changed", "deleted"].iter().enumerate() {
                    tx.execute(
                        "INSERT INTO memories (project, kind, type, title, text, tool, created_at, content_hash, uid)
                         VALUES ('p', 'note', 'note', ?1, ?1, 'test', 0, ?2, ?2)",
                        rusqlite::params![text, format!("h{i}")],
                    )?;
                }
                put(tx, "m", &[(1, vec![1.0; 384]), (2, vec![0.5; 384]), (3, vec![0.2; 384])])
            })
            .unwrap();
        store
            .write(|tx| {
                tx.execute(
                    "UPDATE memories SET text = 'changed again' WHERE id = 2",
                    [],
                )?;
                tx.execute("DELETE FROM memories WHERE id = 3", [])
            })
            .unwrap();
        let left: Vec<i64> = conn_rows(&store).iter().map(|v| v.memory_id).collect();
        assert_eq!(
            left,
            vec![1],
            "the changed and the deleted memory lost their vectors"
        );
        assert_eq!(missing(store.conn(), "m", 0, 10).unwrap().len(), 1);
        assert_eq!(
            missing(store.conn(), "other", 0, 10).unwrap().len(),
            2,
            "another model's vector counts as none"
        );
        store
            .write(|tx| put(tx, "m", &[(2, vec![0.5; 384])]))
            .unwrap();
        let seqs: Vec<i64> = conn_rows(&store).iter().map(|v| v.seq).collect();
        assert_eq!(
            seqs,
            vec![1, 4],
            "a new vector gets a sequence number never used before"
        );
    }
}
