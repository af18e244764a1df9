//! What `aletheia doctor` asks of the store: SQLite's integrity check, the search index's own
//! check and its rebuild, when each tool last sent an event, and how many memories still need
//! a vector. Each is one typed call, so doctor never touches SQL.

use super::{Store, StoreError};

impl Store {
    /// SQLite's `PRAGMA quick_check`: `"ok"`, or the faults it found, joined by `"; "`.
    pub fn quick_check(&self) -> Result<String, StoreError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA quick_check")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        let found = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        Ok(found.join("; "))
    }

    /// Whether the search index holds exactly the memories' words (FTS5's `integrity-check`).
    /// `Ok(false)` is an index that does not match; an error is a check that could not run (a
    /// busy or unreadable store), which says nothing about the index.
    ///
    /// The index's content is the `memories` table, and without `rank = 1` FTS5 checks only
    /// that the index agrees with itself: an index missing every memory passes.
    pub fn search_index_consistent(&self) -> Result<bool, StoreError> {
        match self.conn.execute(
            "INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)",
            [],
        ) {
            Ok(_) => Ok(true),
            // FTS5 answers a mismatch with SQLITE_CORRUPT_VTAB, whose primary code is CORRUPT.
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                Ok(false)
            }
            Err(e) => Err(self.err(e)),
        }
    }

    /// Build the search index again from the memories. It holds only what the memories hold
    /// (already redacted), so nothing new is written.
    pub fn rebuild_search_index(&self) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')",
                [],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Each tool that ever sent an event, with the time of its last (Unix seconds), by name.
    pub fn last_captures(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT tool, last_at FROM captures ORDER BY tool")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{OpenOptions, Store};

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, store)
    }

    #[test]
    fn a_new_store_passes_both_checks_and_has_no_captures() {
        let (_dir, s) = store();
        assert_eq!(s.quick_check().unwrap(), "ok");
        assert!(s.search_index_consistent().unwrap());
        assert!(s.last_captures().unwrap().is_empty());
        assert_eq!(s.count_without_vector("m").unwrap(), 0);
    }

    #[test]
    fn an_index_emptied_behind_the_memories_fails_its_check_until_rebuilt() {
        let (_dir, s) = store();
        s.conn
            .execute_batch(
                "INSERT INTO memories (uid, kind, project, tool, title, text, content_hash, created_at)
                 VALUES ('u1', 'note', 'shop', 'cli', 't', 'the invoice total rounds down', 'h1', 1);
                 INSERT INTO memories_fts (memories_fts) VALUES ('delete-all');",
            )
            .unwrap();
        assert!(!s.search_index_consistent().unwrap());
        s.rebuild_search_index().unwrap();
        assert!(s.search_index_consistent().unwrap());
        assert_eq!(s.count_without_vector("m").unwrap(), 1);
    }
}
