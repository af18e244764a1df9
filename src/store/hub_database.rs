//! Which engine a hub's store is on: a SQLite file (`--hub-db`) or a PostgreSQL database
//! (`--database`, `ALETHEIA_HUB_DATABASE`). Everything that opens a hub's store (the hub, its
//! connection pool, `mcp-link`, `hub audit`, `hub migrate`) goes through here, so each takes
//! both and none knows which engine answers beyond this choice.

use super::postgres::{self, PgStore};
use super::{HubStorage, OpenOptions, Store, StoreError};
use std::path::PathBuf;

/// Where a hub's store is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HubDatabase {
    /// A SQLite file, made on first use.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://…`); the schema is made or migrated on first use.
    Postgres(String),
}

impl HubDatabase {
    /// The store named by `--hub-db`, `--database` or, failing both, `ALETHEIA_HUB_DATABASE`.
    pub fn choose(
        hub_db: Option<PathBuf>,
        database: Option<String>,
    ) -> Result<HubDatabase, String> {
        if let Some(file) = hub_db {
            return Ok(HubDatabase::Sqlite(file));
        }
        let database = database.or_else(|| {
            std::env::var("ALETHEIA_HUB_DATABASE")
                .ok()
                .filter(|v| !v.trim().is_empty())
        });
        match database {
            Some(url) if postgres::is_url(url.trim()) => Ok(HubDatabase::Postgres(url.trim().to_owned())),
            Some(other) => Err(format!(
                "--database {}: give a PostgreSQL URL (postgres://user@host/dbname), or --hub-db <file> for a SQLite store",
                postgres::shown(&other)
            )),
            None => Err(
                "name the hub's store: --hub-db <file> (SQLite, made on first use) or --database postgres://user@host/dbname (also ALETHEIA_HUB_DATABASE)"
                    .to_owned(),
            ),
        }
    }

    /// Open it, making or migrating the hub's schema: what the hub does once at start and the
    /// commands do each time. A SQLite file's folder must exist (the command line says so
    /// before this is reached).
    /// A SQLite file's folder must exist (the file is made on first use, the folder is not):
    /// the one-line error that says so, before SQLite says only "unable to open".
    pub fn check_folder(&self) -> Result<(), String> {
        if let HubDatabase::Sqlite(file) = self
            && let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty())
            && !dir.is_dir()
        {
            return Err(format!(
                "the folder of --hub-db {} does not exist: create it, or name a file in a folder that does",
                file.display()
            ));
        }
        Ok(())
    }

    pub fn open(&self) -> Result<Box<dyn HubStorage + Send>, StoreError> {
        match self {
            HubDatabase::Sqlite(file) => {
                Ok(Box::new(Store::open_hub(file, OpenOptions::INTERACTIVE)?))
            }
            HubDatabase::Postgres(url) => Ok(Box::new(PgStore::open(url)?)),
        }
    }

    /// Open one more connection for a server's pool, once [`HubDatabase::open`] has made the
    /// schema: SQLite's serving settings (with the keyword index in memory for a connection
    /// that answers searches, when `searches`), or a PostgreSQL connection whose schema is
    /// checked.
    pub fn open_serving(&self, searches: bool) -> Result<Box<dyn HubStorage + Send>, StoreError> {
        match self {
            HubDatabase::Sqlite(file) => Ok(Box::new(Store::open_path(
                file,
                OpenOptions::serving(searches),
            )?)),
            HubDatabase::Postgres(url) => Ok(Box::new(PgStore::open(url)?)),
        }
    }

    /// How messages name it: the file, or the URL without its password.
    pub fn shown(&self) -> String {
        match self {
            HubDatabase::Sqlite(file) => file.display().to_string(),
            HubDatabase::Postgres(url) => postgres::shown(url),
        }
    }
}
