//! The SQLite store: opening, migrations, and the error type every caller sees.
//!
//! One file (`hub.db`), WAL mode so readers never wait for the writer, `synchronous=NORMAL`
//! (durable across process crashes; a power cut may lose the last transactions, never corrupt),
//! foreign keys on. The hook is the exception (see [`Durability`]): it syncs each commit and
//! leaves the log for a later checkpoint. Opening does the least it can: the hook opens a store on every event, so a
//! store already at the current schema costs one `PRAGMA user_version` read.
//!
//! The statements live here, behind functions named for what they answer (`trusted_facts`,
//! `record_event`, `memories_around`, ...), so the layers above never see SQL, and every
//! function that writes takes [`Redacted`](crate::redact::Redacted) values. The layers above
//! reach those functions through the engine-neutral [`contract`] (`&mut dyn Storage`); only
//! the hook's path and the commands that open the file hold a `Store` itself.

pub mod cardinality;
pub mod compression;
pub mod contract;
mod events;
pub mod fact_queries;
mod fact_rules;
pub mod facts;
mod fts5_api;
mod health;
pub mod history;
mod history_sync;
pub mod hub;
#[cfg(feature = "server")]
pub mod hub_database;
pub mod inbox;
pub mod jobs;
pub mod keyword_index;
mod memories;
mod memory_reads;
#[cfg(feature = "server")]
pub mod postgres;
mod queue;
mod rekey;
pub mod rules;
pub mod schema;
mod scrub;
pub mod search;
mod sql_numbers;
pub mod standing;
pub mod state;
pub mod sync;
pub mod term_counts;
mod told;
pub mod usage;
pub mod vectors;
pub mod versions;

pub use contract::{
    Facts, HistoryHub, HubStorage, HubTokens, Inbox, JobWrites, Jobs, Lists, Memories, Rules,
    SearchIndex, Storage, SyncHub, Upkeep, Vectors,
};
pub use events::Record;
use memories::{COLUMNS, from_row};
pub use memories::{Inserted, MemoryFilter, content_hash};
use memories::{insert_tx, touch_capture};
pub use queue::QueuedSession;
use queue::enqueue_tx;
pub use scrub::Rescrubbed;

use crate::config::Paths;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The signer of the store at `path` (its key in the store's folder), loaded once.
fn signer_of<'s>(
    cell: &'s std::cell::OnceCell<Option<history::Signer>>,
    path: &Path,
) -> Option<&'s history::Signer> {
    cell.get_or_init(|| {
        let dir = path.parent().unwrap_or(Path::new("."));
        history::Signer::load(dir).ok()
    })
    .as_ref()
}

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
    #[error(
        "the store {path} has schema version {found}, which aletheia never writes; point ALETHEIA_HUB_DB at an aletheia store or move the file aside"
    )]
    ForeignSchema { path: PathBuf, found: i64 },
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the store's folder {0} does not exist; create it or point ALETHEIA_HUB_DB elsewhere")]
    MissingFolder(PathBuf),
    /// The machine key that signs the history could not be read or made.
    #[error("{0}")]
    History(String),
    /// The engine refused or failed: its own error, kept as the source, classified so callers
    /// can act on it without knowing the engine.
    #[error("store {path}: {source}")]
    Engine {
        path: PathBuf,
        constraint: bool,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl StoreError {
    /// SQLite's error for the store at `path`, classified.
    fn sqlite(path: &Path, source: rusqlite::Error) -> StoreError {
        StoreError::Engine {
            path: path.to_owned(),
            constraint: source.sqlite_error_code()
                == Some(rusqlite::ErrorCode::ConstraintViolation),
            source: Box::new(source),
        }
    }

    /// Whether the engine refused a write for breaking a constraint (a clash with stored data),
    /// rather than failing to reach or read the store.
    pub fn is_constraint(&self) -> bool {
        matches!(
            self,
            StoreError::Engine {
                constraint: true,
                ..
            }
        )
    }
}

/// How long to wait for another writer before giving up.
///
/// No memory map, even for the server's long-lived connections: a search in a fresh process
/// reads scattered pages once each (postings, row lengths, the rows of old memories), and
/// measured at 100,000 and 1,000,000 memories a page fault, which maps its neighbours too, cost
/// more than a read call per page. In the server a map made searches 10–15% faster at 100,000
/// memories, but each pooled connection maps the file anew, and the process showed 190 MB
/// resident instead of 31 MB.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub busy_timeout: Duration,
    /// SQLite's memory map for this connection, in bytes (`PRAGMA mmap_size`); `None` leaves
    /// the build's default.
    pub map_bytes: Option<i64>,
    pub durability: Durability,
    /// Whether searches read the keyword index held in this process's memory (see
    /// `keyword_index`) rather than FTS5's postings on disk.
    pub keywords_in_memory: bool,
}

/// How a connection's commits reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous=NORMAL`: a commit is written to the log and synced at the next checkpoint,
    /// which SQLite runs at 1,000 pages of log and when the last connection to the file closes.
    Checkpointed,
    /// `synchronous=FULL` and no checkpoint on close: each commit is synced into the log before
    /// it returns, and the log is copied into the file later, when a close finds it past
    /// [`LOG_LIMIT_BYTES`] or any other command closes the store. For a process that writes
    /// once and exits. Closing the last connection otherwise checkpoints: it copies the pages it wrote
    /// into the file and syncs the log, the folder (a new log file) and the file, then deletes
    /// the log. Measured on a hook at 100,000 memories, those four syncs were a third of its
    /// wall time; one sync keeps the same promise, that the memory is on disk before the
    /// process exits.
    SyncedLog,
}

impl OpenOptions {
    /// The hook's budget: short, because a locked store means spooling, not waiting.
    pub const HOOK: OpenOptions = OpenOptions {
        busy_timeout: Duration::from_millis(300),
        map_bytes: None,
        durability: Durability::SyncedLog,
        keywords_in_memory: false,
    };
    /// Interactive commands wait longer for a busy writer.
    pub const INTERACTIVE: OpenOptions = OpenOptions {
        busy_timeout: Duration::from_secs(5),
        map_bytes: None,
        durability: Durability::Checkpointed,
        keywords_in_memory: false,
    };
    /// Processes that run for hours (`aletheia mcp`, the server and its worker): no memory map.
    /// A mapped store counts in the process's resident memory page by page as searches touch
    /// it, so a 1 GB store grows a 1 GB process in `top`; each pooled connection maps it again.
    /// Measured on the server: a map made searches 10-15% faster and took it from 31 MB to
    /// 190 MB resident. The bundled SQLite maps nothing by default, but one linked from the
    /// system (LIBSQLITE3_SYS_USE_PKG_CONFIG) may be built with a default map: this sets it.
    pub const SERVING: OpenOptions = OpenOptions {
        busy_timeout: Duration::from_secs(5),
        map_bytes: Some(0),
        durability: Durability::Checkpointed,
        keywords_in_memory: false,
    };
    /// The pooled connections of a process that answers many searches (the server, the hub):
    /// [`OpenOptions::SERVING`], with the keyword index in memory. It costs memory (about 87 MB
    /// at 100,000 memories) and a build at start, so a process that searches now and then
    /// (`aletheia mcp` on stdio, the worker) leaves it to FTS5.
    pub const SEARCH_SERVING: OpenOptions = OpenOptions {
        keywords_in_memory: true,
        ..OpenOptions::SERVING
    };

    /// A long-running process's connection: [`OpenOptions::SEARCH_SERVING`] when it answers
    /// searches with the keyword index in memory, else [`OpenOptions::SERVING`].
    pub const fn serving(keyword_index: bool) -> OpenOptions {
        if keyword_index {
            OpenOptions::SEARCH_SERVING
        } else {
            OpenOptions::SERVING
        }
    }
}

/// An open store.
///
/// Only values that went through redaction can be written: every write takes a
/// [`Redacted`](crate::redact::Redacted) value, which only [`Redacted::new`](crate::redact::Redacted::new) makes.
///
/// ```
/// use aletheia::model::{Kind, MemoryType, NewMemory};
/// use aletheia::redact::{Redacted, Redactor};
/// use aletheia::store::{OpenOptions, Store};
///
/// let dir = tempfile::tempdir()?;
/// let mut store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)?;
/// let memory = NewMemory {
///     project: "shop".into(),
///     kind: Kind::Note,
///     mtype: MemoryType::Note,
///     title: "deploy key".into(),
///     text: format!("the key is ghp_{}", "a".repeat(36)),
///     host: "cli".into(),
///     session_id: None,
///     files: vec![],
///     pinned: false,
///     created_at: 1,
/// };
/// let id = store.insert(&Redacted::new(memory, &Redactor::builtin()))?.id;
/// let stored = &store.get_many(&[id])?[0];
/// assert!(!stored.text.contains("ghp_aaaa"), "{}", stored.text);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A memory that skipped redaction does not compile (mismatched types):
///
/// ```compile_fail,E0308
/// use aletheia::model::{Kind, MemoryType, NewMemory};
/// use aletheia::store::{OpenOptions, Store};
///
/// let dir = tempfile::tempdir()?;
/// let mut store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)?;
/// let memory = NewMemory {
///     project: "shop".into(),
///     kind: Kind::Note,
///     mtype: MemoryType::Note,
///     title: "deploy key".into(),
///     text: format!("the key is ghp_{}", "a".repeat(36)),
///     host: "cli".into(),
///     session_id: None,
///     files: vec![],
///     pinned: false,
///     created_at: 1,
/// };
/// store.insert(&memory)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Nor does raw SQL, through the connection or a transaction of the store's (private methods):
///
/// ```compile_fail,E0624
/// use aletheia::store::{OpenOptions, Store};
///
/// let dir = tempfile::tempdir()?;
/// let store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)?;
/// store.conn().execute(
///     "INSERT INTO memories (uid, project, kind, type, title, text, tool, created_at, content_hash)
///      VALUES ('u', 'shop', 'note', 'note', 'key', 'ghp_unredacted', 'cli', 1, 'h')",
///     [],
/// )?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// ```compile_fail,E0624
/// use aletheia::store::{OpenOptions, Store};
///
/// let dir = tempfile::tempdir()?;
/// let mut store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)?;
/// store.write(|tx| {
///     tx.execute(
///         "INSERT INTO memories (uid, project, kind, type, title, text, tool, created_at, content_hash)
///          VALUES ('u', 'shop', 'note', 'note', 'key', 'ghp_unredacted', 'cli', 1, 'h')",
///         [],
///     )
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Whether `aletheia_terms` is registered on `conn` (only searches need it).
    term_counts: std::cell::Cell<bool>,
    /// Values computed from the whole store, kept while it is unchanged (see [`Store::memo`]).
    term_memo: std::cell::RefCell<Memo>,
    durability: Durability,
    /// The keyword index in memory this connection's searches read, shared with the process's
    /// other connections to the file, and the store's state (as [`Memo`] tells it) when this
    /// connection last caught it up.
    keywords: Option<std::sync::Arc<keyword_index::KeywordIndex>>,
    keywords_state: std::cell::Cell<Option<(i64, u64)>>,
    /// The machine key that signs the history's entries, loaded at the first write (`None`
    /// inside when it cannot be: the write goes on, its entries wait, and `verify` says so).
    signer: std::cell::OnceCell<Option<history::Signer>>,
}

/// How long a [`Durability::SyncedLog`] connection lets the log grow before it folds it into
/// the file as it closes. Each process that opens the store alone rebuilds the log's index by
/// reading every frame in it, and SQLite's own checkpoint, in a process that rebuilt the
/// index, copies the whole log again and never starts it afresh: left alone the log grows
/// without bound. A short log keeps that read small; folding it costs two syncs, paid by one
/// run in several. Measured at 100,000 memories, where a hook adds about ten pages: limits from
/// 400 KiB to 1.6 MiB ran alike, and folding on every close was a third slower.
const LOG_LIMIT_BYTES: u64 = 1024 * 1024;

impl Drop for Store {
    fn drop(&mut self) {
        if self.durability == Durability::SyncedLog {
            self.fold_long_log();
        }
    }
}

/// Per-key values that hold for one state of the store, with the state they hold for.
#[derive(Default)]
struct Memo {
    /// `PRAGMA data_version` (moves when another connection commits) and this connection's
    /// own total of changes, when the values were computed.
    state: Option<(i64, u64)>,
    values: std::collections::HashMap<String, [u64; 2]>,
}

/// Set SQLite up for this process, before anything opens a store: no memory statistics. With
/// them, every allocation and free SQLite makes takes a process-wide mutex and updates counters
/// that nothing here reads (`sqlite3_memory_used`, a soft heap limit); opening a store parses
/// its schema in thousands of allocations, and in a hook run they were 11% of its instructions
/// (callgrind, `scripts/bench --hook-breakdown`).
pub fn configure_process() {
    // SAFETY: sqlite3_config with SQLITE_CONFIG_MEMSTATUS takes one int and changes only a
    // process-wide setting. Called after SQLite has initialised (a library caller that opened
    // a connection first), it answers SQLITE_MISUSE and changes nothing: the default stays.
    let _ = unsafe { rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS, 0_i32) };
}

/// Keys a memo keeps before it starts afresh: a long-running server sees endless queries.
const MEMO_KEYS: usize = 4096;

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
        let err = |source| StoreError::sqlite(path, source);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_timeout(opts.busy_timeout).map_err(err)?;
        let pragmas = match opts.durability {
            Durability::Checkpointed => "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;",
            Durability::SyncedLog => {
                conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
                    .map_err(err)?;
                "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;"
            }
        };
        conn.execute_batch(pragmas).map_err(err)?;
        if let Some(bytes) = opts.map_bytes {
            // The pragma answers with the size it settled on (a plain execute would refuse
            // that), or with nothing on a file system SQLite cannot map at all.
            match conn.query_row(&format!("PRAGMA mmap_size = {bytes}"), [], |_| Ok(())) {
                Ok(()) | Err(rusqlite::Error::QueryReturnedNoRows) => {}
                Err(e) => return Err(err(e)),
            }
        }
        let mut store = Store {
            conn,
            path: path.to_owned(),
            term_counts: std::cell::Cell::new(false),
            term_memo: std::cell::RefCell::default(),
            durability: opts.durability,
            keywords: None,
            keywords_state: std::cell::Cell::new(None),
            signer: std::cell::OnceCell::new(),
        };
        store.migrate()?;
        if opts.keywords_in_memory {
            store.keywords = Some(keyword_index::shared(path));
        }
        Ok(store)
    }

    /// Copy the log into the file and empty it, if it has grown past [`LOG_LIMIT_BYTES`].
    /// Never waits: if another connection is reading or writing, a later close does it.
    fn fold_long_log(&self) {
        let mut log = self.path.clone().into_os_string();
        log.push("-wal");
        if std::fs::metadata(&log).is_ok_and(|m| m.len() > LOG_LIMIT_BYTES) {
            // A busy store is not this process's to wait for; the result only says how far
            // the checkpoint got, and anything short of all of it is left for the next close.
            let _ = self.conn.busy_timeout(Duration::ZERO);
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying connection.
    fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Make the FTS5 function `aletheia_terms` available on this connection (see
    /// `term_counts`). The hook never needs it, so it is registered on first use.
    fn ensure_term_counts(&self) -> Result<(), StoreError> {
        if !self.term_counts.get() {
            term_counts::register(&self.conn).map_err(|e| self.err(e))?;
            self.term_counts.set(true);
        }
        Ok(())
    }

    /// `key`'s value while the store is unchanged since it was computed, else `compute`'s,
    /// kept for next time. Exact: any commit, by this connection or another, clears the memo.
    /// Only a long-lived connection gains from it; a one-shot process computes each key once.
    /// No value is computed inside a write that could roll back: `Store::write` holds the store
    /// mutably for the whole transaction.
    fn memo(
        &self,
        key: &str,
        compute: impl FnOnce() -> rusqlite::Result<[u64; 2]>,
    ) -> rusqlite::Result<[u64; 2]> {
        let state = self.state()?;
        let mut memo = self.term_memo.borrow_mut();
        if memo.state != Some(state) || memo.values.len() >= MEMO_KEYS {
            memo.values.clear();
            memo.state = Some(state);
        }
        if let Some(v) = memo.values.get(key) {
            return Ok(*v);
        }
        let v = compute()?;
        memo.values.insert(key.to_owned(), v);
        Ok(v)
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::sqlite(&self.path, source)
    }

    /// This connection's view of the store's state: `PRAGMA data_version` (moves when another
    /// connection commits) and its own total of changes.
    fn state(&self) -> rusqlite::Result<(i64, u64)> {
        Ok((
            self.conn
                .prepare_cached("PRAGMA data_version")?
                .query_row([], |r| r.get::<_, i64>(0))?,
            self.conn.total_changes(),
        ))
    }

    /// The keyword index in memory, caught up with everything this connection can see; `None`
    /// when this store keeps none or it is not ready, and FTS5 answers.
    fn keywords(&self) -> Option<std::sync::RwLockReadGuard<'_, keyword_index::Held>> {
        let index = self.keywords.as_ref()?;
        let state = self.state().ok()?;
        if self.keywords_state.get() == Some(state)
            && let Some(held) = index.as_is()
        {
            return Some(held);
        }
        let held = index.caught_up(&self.conn)?;
        self.keywords_state.set(Some(state));
        Some(held)
    }

    /// Where this connection's keyword index stands: `ready`, `building`, or `off` (none kept,
    /// or it could not be).
    pub fn keyword_index_state(&self) -> &'static str {
        keyword_index::state_name(self.keywords.as_deref())
    }

    /// Whether searches on this connection read the keyword index in memory now (it is kept
    /// and caught up), rather than FTS5.
    #[cfg(test)]
    pub(crate) fn keywords_ready(&self) -> bool {
        self.keywords().is_some()
    }

    /// Wait (a minute at most) for the keyword index to be built or caught up in the
    /// background.
    #[cfg(test)]
    pub(crate) fn wait_for_keywords(&self) {
        let start = std::time::Instant::now();
        while !self.keywords_ready() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the index never became ready"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// How many bytes of the file this connection may map (`PRAGMA mmap_size`).
    pub fn map_limit(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA mmap_size", [], |r| r.get(0))
            .map_err(|e| self.err(e))
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
            .map_err(|e| StoreError::sqlite(&self.path, e))?;
        // Another process may have migrated while we waited for the write lock.
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| StoreError::sqlite(&self.path, e))?;
        if version > schema::CURRENT_VERSION {
            drop(tx);
            return self.check_not_newer(version);
        }
        // Only a file this code never wrote has a negative version: migrating would skip
        // every step and leave it without tables.
        let applied = usize::try_from(version).map_err(|_| StoreError::ForeignSchema {
            path: self.path.clone(),
            found: version,
        })?;
        for (sql, next) in schema::MIGRATIONS.iter().skip(applied).zip(version + 1..) {
            tx.execute_batch(sql)
                .and_then(|_| tx.pragma_update(None, "user_version", next))
                .map_err(|e| StoreError::sqlite(&self.path, e))?;
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
    /// The connection itself, for the copy into another engine (`hub migrate`), which reads
    /// every table as it is.
    #[cfg(feature = "server")]
    pub(in crate::store) fn connection(&self) -> &Connection {
        &self.conn
    }

    fn write<T>(
        &mut self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::sqlite(&path, source);
        let signer = signer_of(&self.signer, &self.path);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        // What this write changes is signed into the history before it commits.
        let mark = history::mark(&tx).map_err(err)?;
        let out = f(&tx).map_err(err)?;
        history::seal(&tx, signer, mark, false, crate::time::now_ms()).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_memory(i: i64) -> crate::redact::Redacted<crate::model::NewMemory> {
        use crate::model::{Kind, MemoryType, NewMemory};
        let memory = NewMemory {
            project: "shop".into(),
            kind: Kind::Note,
            mtype: MemoryType::Note,
            title: format!("run {i}"),
            // Distinct words, so each run adds postings as well as a row.
            text: (0..4000).map(|w| format!("w{i}x{w} ")).collect(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: i,
        };
        crate::redact::Redacted::new(memory, &crate::redact::Redactor::builtin())
    }

    fn log_len(db: &Path) -> u64 {
        let mut log = db.to_owned().into_os_string();
        log.push("-wal");
        std::fs::metadata(log).map_or(0, |m| m.len())
    }

    #[test]
    fn one_shot_writers_keep_the_log_short_and_every_commit_readable() {
        // Each hook is a process of its own that opens the store alone: with no checkpoint on
        // close, SQLite's own checkpoints would let the log grow run after run.
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("hub.db");
        let (mut longest, mut folded) = (0, false);
        for i in 0..60 {
            let before = log_len(&db);
            let mut store = Store::open_path(&db, OpenOptions::HOOK).unwrap();
            store.insert(&big_memory(i)).unwrap();
            drop(store);
            let after = log_len(&db);
            longest = longest.max(after);
            folded |= after < before;
        }
        assert!(folded, "the log was never folded into the file");
        assert!(
            longest <= LOG_LIMIT_BYTES + LOG_LIMIT_BYTES / 2,
            "the log reached {longest} bytes"
        );
        let store = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        let ids: Vec<i64> = (1..=60).collect();
        assert_eq!(store.get_many(&ids).unwrap().len(), 60);
    }

    #[test]
    fn a_one_shot_writer_leaves_its_commit_in_the_log_and_a_command_folds_it() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("hub.db");
        drop(Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap());
        let mut store = Store::open_path(&db, OpenOptions::HOOK).unwrap();
        store.insert(&big_memory(1)).unwrap();
        drop(store);
        assert!(log_len(&db) > 0, "the hook's commit should wait in the log");
        drop(Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap());
        assert_eq!(log_len(&db), 0, "closing a command's store folds the log");
        let store = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        assert_eq!(store.get_many(&[1]).unwrap().len(), 1);
    }

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
    fn a_negative_schema_version_is_refused_not_opened_as_current() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("hub.db");
        {
            let s = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
            s.conn.pragma_update(None, "user_version", -1).unwrap();
        }
        let e = Store::open_path(&db, OpenOptions::INTERACTIVE)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("schema version -1") && e.contains("never writes"),
            "{e}"
        );
    }

    #[test]
    fn a_memo_holds_until_anyone_commits() {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("hub.db");
        let s = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        let other = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        let calls = std::cell::Cell::new(0u64);
        let value = |s: &Store| {
            s.memo("k", || {
                calls.set(calls.get() + 1);
                Ok([calls.get(), 0])
            })
            .unwrap()
        };
        assert_eq!(value(&s), [1, 0]);
        assert_eq!(value(&s), [1, 0], "unchanged store: kept");
        let write = "INSERT INTO session_queue (project, session_id, tool, enqueued_at) VALUES ('p', 's', 'h', 1)";
        other.conn.execute(write, []).unwrap();
        assert_eq!(value(&s), [2, 0], "another connection committed");
        assert_eq!(value(&s), [2, 0]);
        s.conn.execute("DELETE FROM session_queue", []).unwrap();
        assert_eq!(value(&s), [3, 0], "this connection committed");
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
