//! The two engines a hub's store can be on, for the hub's tests: each of them runs on a SQLite
//! file and on a PostgreSQL database of its own, made on the throwaway server `scripts/test`
//! starts (`ALETHEIA_TEST_POSTGRES`). [`both!`] writes the pair of tests; the PostgreSQL one is
//! `#[ignore]`d, as the tests that need real hosts are, and `scripts/test` runs it.

#![cfg(feature = "server")]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where a hub's store is.
#[derive(Debug, Clone)]
pub enum Engine {
    Sqlite(PathBuf),
    Postgres(String),
}

/// Which engine a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    Sqlite,
    Postgres,
}

impl Engine {
    /// A new, empty store on `on`: a file in `dir`, or a new database.
    pub fn fresh(on: On, dir: &Path) -> Engine {
        match on {
            On::Sqlite => Engine::Sqlite(dir.join("team.db")),
            On::Postgres => Engine::Postgres(fresh_database()),
        }
    }

    /// The arguments that name it to `aletheia hub`, `mcp-link` and `hub audit`.
    pub fn args(&self) -> Vec<String> {
        match self {
            Engine::Sqlite(file) => vec!["--hub-db".into(), file.display().to_string()],
            Engine::Postgres(url) => vec!["--database".into(), url.clone()],
        }
    }

    /// The rows of one query's first column, as text, whichever engine holds them.
    pub fn texts(&self, sql: &str) -> Vec<String> {
        match self {
            Engine::Sqlite(file) => {
                let conn = rusqlite::Connection::open(file).unwrap();
                let mut stmt = conn.prepare(sql).unwrap();
                stmt.query_map([], |r| r.get::<_, Option<String>>(0))
                    .unwrap()
                    .map(|r| r.unwrap().unwrap_or_default())
                    .collect()
            }
            Engine::Postgres(url) => {
                let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
                c.query(sql, &[])
                    .unwrap()
                    .iter()
                    .map(|r| r.get::<_, Option<String>>(0).unwrap_or_default())
                    .collect()
            }
        }
    }

    /// The one number a query answers (a count), whichever engine holds the rows.
    pub fn count(&self, sql: &str) -> i64 {
        match self {
            Engine::Sqlite(file) => rusqlite::Connection::open(file)
                .unwrap()
                .query_row(sql, [], |r| r.get(0))
                .unwrap(),
            Engine::Postgres(url) => postgres::Client::connect(url, postgres::NoTls)
                .unwrap()
                .query_one(sql, &[])
                .unwrap()
                .get(0),
        }
    }

    /// Run one statement that changes rows, as someone with the database's password would.
    pub fn execute(&self, sql: &str) {
        match self {
            Engine::Sqlite(file) => {
                rusqlite::Connection::open(file)
                    .unwrap()
                    .execute_batch(sql)
                    .unwrap();
            }
            Engine::Postgres(url) => {
                postgres::Client::connect(url, postgres::NoTls)
                    .unwrap()
                    .batch_execute(sql)
                    .unwrap();
            }
        }
    }

    /// The folder whose files hold what the store holds: the SQLite file's, or the test
    /// server's cluster.
    pub fn files(&self) -> PathBuf {
        match self {
            Engine::Sqlite(file) => file.parent().unwrap().to_owned(),
            Engine::Postgres(_) => PathBuf::from(
                std::env::var("ALETHEIA_TEST_POSTGRES_CA")
                    .expect("scripts/test sets ALETHEIA_TEST_POSTGRES_CA"),
            )
            .parent()
            .unwrap()
            .join("data"),
        }
    }
}

/// The test server's URL, or a panic that says how to get one.
pub fn server_url() -> String {
    std::env::var("ALETHEIA_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!("ALETHEIA_TEST_POSTGRES is not set: run scripts/test, which starts a throwaway PostgreSQL server, or point it at one")
    })
}

/// A new, empty database on the test server: its URL.
pub fn fresh_database() -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let url = server_url();
    let name = format!(
        "it_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros()
    );
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    let (base, query) = url
        .split_once('?')
        .map_or((url.as_str(), None), |(b, q)| (b, Some(q)));
    let base = &base[..base.rfind('/').unwrap()];
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// `both!(name)`: `name::sqlite` and `name::postgres`, each calling `name(On::…)`.
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name($crate::hub_engines::On::Sqlite);
                }

                #[test]
                #[ignore = "needs PostgreSQL: scripts/test starts one"]
                fn postgres() {
                    super::$name($crate::hub_engines::On::Postgres);
                }
            }
        )*
    };
}
pub(crate) use both;
