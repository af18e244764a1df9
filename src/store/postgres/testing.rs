//! A fresh database for each test, on the throwaway PostgreSQL server `scripts/test` starts.
//!
//! `ALETHEIA_TEST_POSTGRES` is that server's URL (a role that may create databases). Tests that
//! need it are `#[ignore]`d, as the ones that need real hosts are, and `scripts/test` runs them
//! all; run alone without the server, they fail saying how to get one.

use super::PgStore;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The server's URL, or a panic that says how to start one.
pub(crate) fn server_url() -> String {
    std::env::var("ALETHEIA_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "ALETHEIA_TEST_POSTGRES is not set: run scripts/test, which starts a throwaway PostgreSQL server, or point it at one (postgres://user@host/db, a role that may create databases)"
        )
    })
}

/// `url` with its database replaced by `db`.
pub(crate) fn with_database(url: &str, db: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(q) => format!("{base}/{db}?{q}"),
        None => format!("{base}/{db}"),
    }
}

/// A new, empty database on the test server: its URL.
pub(crate) fn fresh_database() -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let url = server_url();
    let name = format!(
        "t_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        crate::time::now_ms()
    );
    let mut admin = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("cannot reach the test server at ALETHEIA_TEST_POSTGRES: {e}"));
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
    with_database(&url, &name)
}

/// A migrated hub store on a new, empty database.
pub(crate) fn fresh() -> PgStore {
    PgStore::open(&fresh_database()).unwrap_or_else(|e| panic!("opening a test database: {e}"))
}
