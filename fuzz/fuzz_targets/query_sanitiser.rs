//! Any query text becomes an FTS5 expression that SQLite accepts.
#![no_main]
use aletheia::recall::search::query_terms;
use aletheia::store::search::any_word_expression;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use std::sync::Mutex;

static CONN: LazyLock<Mutex<rusqlite::Connection>> = LazyLock::new(|| {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    c.execute_batch(
        "CREATE VIRTUAL TABLE t USING fts5(title, text); INSERT INTO t VALUES ('hello', 'world');",
    )
    .unwrap();
    Mutex::new(c)
});

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(expr) = any_word_expression(&query_terms(&text)) {
        let c = CONN.lock().unwrap();
        let r: rusqlite::Result<i64> =
            c.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [&expr], |r| {
                r.get(0)
            });
        assert!(r.is_ok(), "{expr:?}: {r:?}");
    }
});
