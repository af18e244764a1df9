//! The SQLite store: opening, migrations, and the error type every caller sees.
//!
//! One file (`hub.db`), WAL mode so readers never wait for the writer, `synchronous=NORMAL`
//! (durable across process crashes; a power cut may lose the last transactions, never corrupt),
//! foreign keys on. Opening does the least it can: the hook opens a store on every event, so a
//! store already at the current schema costs one `PRAGMA user_version` read.

pub mod compression;
pub mod facts;
pub mod jobs;
mod memories;
mod queue;
pub mod rules;
pub mod schema;
mod scrub;
pub mod state;
pub mod term_counts;
pub mod usage;
pub mod vectors;

pub(crate) use memories::{COLUMNS, from_row, insert_tx, touch_capture};
pub use memories::{Inserted, MemoryFilter, content_hash};
pub(crate) use queue::enqueue_tx;

use crate::config::Paths;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the store {path} has schema version {found}, newer than this aletheia knows ({supported}); upgrade aletheia"
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the store's folder {0} does not exist; create it or point ALETHEIA_HUB_DB elsewhere")]
    MissingFolder(PathBuf),
    #[error("store {path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

impl StoreError {
    /// Whether SQLite refused a write for breaking a constraint (a clash with stored data),
    /// rather than failing to reach or read the store.
    pub fn is_constraint(&self) -> bool {
        matches!(self, StoreError::Sqlite { source, .. }
            if source.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation))
    }
}

/// How long to wait for another writer before giving up.
///
/// No memory map: a search in a fresh process reads scattered pages once each (postings, row
/// lengths, the rows of old memories), and measured at 100,000 and 1,000,000 memories a page
/// fault, which maps its neighbours too, cost more than a read call per page.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub busy_timeout: Duration,
}

impl OpenOptions {
    /// The hook's budget: short, because a locked store means spooling, not waiting.
    pub const HOOK: OpenOptions = OpenOptions {
        busy_timeout: Duration::from_millis(300),
    };
    /// Interactive commands wait longer for a busy writer.
    pub const INTERACTIVE: OpenOptions = OpenOptions {
        busy_timeout: Duration::from_secs(5),
    };
}

/// An open store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Whether `aletheia_terms` is registered on `conn` (only searches need it).
    term_counts: std::cell::Cell<bool>,
}

impl Store {
    /// Open (and create or migrate) the store named by `paths`.
    pub fn open(paths: &Paths, opts: OpenOptions) -> Result<Store, StoreError> {
        if paths.db_is_explicit {
            if let Some(parent) = paths.db.parent()
                && !parent.as_os_str().is_empty()
                && !parent.is_dir()
            {
                return Err(StoreError::MissingFolder(parent.to_owned()));
            }
        } else {
            std::fs::create_dir_all(&paths.data_dir).map_err(|source| StoreError::DataDir {
                path: paths.data_dir.clone(),
                source,
            })?;
        }
        Store::open_path(&paths.db, opts)
    }

    /// Open (and create or migrate) the store at `path`.
    pub fn open_path(path: &Path, opts: OpenOptions) -> Result<Store, StoreError> {
        let err = |source| StoreError::Sqlite {
            path: path.to_owned(),
            source,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_timeout(opts.busy_timeout).map_err(err)?;
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
            .map_err(err)?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
            term_counts: std::cell::Cell::new(false),
        };
        store.migrate()?;
        Ok(store)
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying connection, for the recall queries.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Make the FTS5 function `aletheia_terms` available on this connection (see
    /// `term_counts`). The hook never needs it, so it is registered on first use.
    pub(crate) fn ensure_term_counts(&self) -> Result<(), StoreError> {
        if !self.term_counts.get() {
            term_counts::register(&self.conn).map_err(|e| self.err(e))?;
            self.term_counts.set(true);
        }
        Ok(())
    }

    pub(crate) fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// The schema version on disk.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version = self.schema_version()?;
        if version == schema::CURRENT_VERSION {
            return Ok(());
        }
        self.check_not_newer(version)?;
        // WAL must be set outside a transaction; it is persistent, so this runs once per file.
        self.conn
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(|e| self.err(e))?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| StoreError::Sqlite {
                path: self.path.clone(),
                source: e,
            })?;
        // Another process may have migrated while we waited for the write lock.
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| StoreError::Sqlite {
                path: self.path.clone(),
                source: e,
            })?;
        if version > schema::CURRENT_VERSION {
            drop(tx);
            return self.check_not_newer(version);
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(sql)
                .and_then(|_| tx.pragma_update(None, "user_version", i as i64 + 1))
                .map_err(|e| StoreError::Sqlite {
                    path: self.path.clone(),
                    source: e,
                })?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    fn check_not_newer(&self, version: i64) -> Result<(), StoreError> {
        if version > schema::CURRENT_VERSION {
            return Err(StoreError::NewerSchema {
                path: self.path.clone(),
                found: version,
                supported: schema::CURRENT_VERSION,
            });
        }
        Ok(())
    }

    /// Run `f` inside one write transaction.
    pub fn write<T>(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let out = f(&tx).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newer_schema_is_refused_with_a_clear_message() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("hub.db");
        {
            let s = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
            assert_eq!(s.schema_version().unwrap(), schema::CURRENT_VERSION);
            s.conn.pragma_update(None, "user_version", 99).unwrap();
        }
        let e = Store::open_path(&db, OpenOptions::INTERACTIVE)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("schema version 99") && e.contains("upgrade aletheia"),
            "{e}"
        );
    }

    #[test]
    fn opening_twice_migrates_once_and_uses_wal() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("hub.db");
        drop(Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap());
        let s = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
}
