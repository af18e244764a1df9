//! Where things live: the data directory, the store, the spool, the embedding model.
//!
//! Every path is resolved here from the environment so that the hook, the CLI and the tests agree
//! on one layout. `ALETHEIA_DATA_DIR` wins over the platform data directory; `ALETHEIA_HUB_DB`
//! moves only the store, never the spool, so that an unreachable store still leaves a spool that
//! works.

use std::path::{Path, PathBuf};

/// The resolved locations for one run.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The data directory; created on demand.
    pub data_dir: PathBuf,
    /// The SQLite store.
    pub db: PathBuf,
    /// True when `ALETHEIA_HUB_DB` named the store: its folder is then never created by us,
    /// because a missing folder there means the store is unreachable (an unmounted drive, say).
    pub db_is_explicit: bool,
    /// The main spool file, `spool/hook-spool.jsonl` in the data directory.
    pub spool: PathBuf,
    /// The per-user spool in the system's temporary directory, used when the data directory
    /// cannot be written either.
    pub fallback_spool: PathBuf,
}

impl Paths {
    /// Resolve from the process environment.
    pub fn from_env() -> Paths {
        let data_dir = match std::env::var_os("ALETHEIA_DATA_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => default_data_dir(),
        };
        let (db, db_is_explicit) = match std::env::var_os("ALETHEIA_HUB_DB") {
            Some(db) if !db.is_empty() => (PathBuf::from(db), true),
            _ => (data_dir.join("hub.db"), false),
        };
        Paths {
            spool: data_dir.join("spool").join("hook-spool.jsonl"),
            fallback_spool: fallback_spool_path(),
            data_dir,
            db,
            db_is_explicit,
        }
    }

    /// Everything inside one folder, the fallback spool too: for a server or a test that must
    /// not touch the user's own data or `$TMPDIR`.
    pub fn within(dir: &Path) -> Paths {
        Paths {
            data_dir: dir.to_owned(),
            db: dir.join("hub.db"),
            db_is_explicit: false,
            spool: dir.join("spool").join("hook-spool.jsonl"),
            fallback_spool: dir.join("fallback").join("hook-spool.jsonl"),
        }
    }

    /// The folder the embedding model is loaded from: `ALETHEIA_MODEL_DIR`, else `model/` in the
    /// data directory.
    pub fn model_dir(&self) -> PathBuf {
        match std::env::var_os("ALETHEIA_MODEL_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => self.data_dir.join("model"),
        }
    }

    /// The folder that holds the spool and its rejected files.
    pub fn spool_dir(&self) -> &Path {
        self.spool.parent().unwrap_or(&self.data_dir)
    }
}

fn default_data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "aletheia")
        .map(|dirs| dirs.data_dir().to_path_buf())
        .unwrap_or_else(|| std::env::temp_dir().join(format!("aletheia-{}", user_id())))
}

/// The per-user fallback spool: `$TMPDIR/aletheia-<uid>/hook-spool.jsonl`.
pub fn fallback_spool_path() -> PathBuf {
    std::env::temp_dir()
        .join(format!("aletheia-{}", user_id()))
        .join("hook-spool.jsonl")
}

fn user_id() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// Project keys the user asked never to record (`ALETHEIA_EXCLUDED_PROJECTS`, comma or space
/// separated).
pub fn excluded_projects() -> Vec<String> {
    std::env::var("ALETHEIA_EXCLUDED_PROJECTS")
        .unwrap_or_default()
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The working directory that decides the default project: `ALETHEIA_CWD`, else the process's.
pub fn working_dir() -> PathBuf {
    match std::env::var_os("ALETHEIA_CWD") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    }
}
