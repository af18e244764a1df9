//! Long-running processes map none of the store, even under a SQLite whose default is to map
//! a gigabyte: a mapped store shows in `top` as resident memory, page by page.
//!
//! A process of its own: the default is process-wide and must be set before SQLite starts, and
//! the other tests share this binary (and, under `cargo test`, its process).

use aletheia::store::{OpenOptions, Store};
use rusqlite::ffi;
use rusty_fork::rusty_fork_test;

fn map_size(store: &Store) -> i64 {
    store.map_limit().unwrap()
}

rusty_fork_test! {
    #[test]
    fn serving_connections_map_nothing_whatever_the_default() {
        map_nothing_under_a_gigabyte_default();
    }
}

/// The test above, run in a child process of this binary in which SQLite has not started.
fn map_nothing_under_a_gigabyte_default() {
    const GIB: i64 = 1 << 30;
    // SAFETY: called once, before any connection exists in this process, as SQLite requires.
    let rc = unsafe { ffi::sqlite3_config(ffi::SQLITE_CONFIG_MMAP_SIZE, GIB, 2 * GIB) };
    assert_eq!(rc, ffi::SQLITE_OK);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hub.db");
    // The default took: a one-shot command's connection maps up to a gigabyte.
    let once = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
    assert_eq!(map_size(&once), GIB);
    let serving = Store::open_path(&db, OpenOptions::SERVING).unwrap();
    assert_eq!(map_size(&serving), 0);
}
