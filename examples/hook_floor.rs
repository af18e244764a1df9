//! The floor for hook latency: the least a hook can do. Parse one JSON payload from stdin, open
//! SQLite in WAL mode, insert one row into a table and its FTS5 index. `scripts/bench` runs it
//! beside the real hook so every figure is also a ratio to this one, measured in the same run.

use std::io::Read;

fn main() {
    let mut raw = String::new();
    std::io::stdin().read_to_string(&mut raw).unwrap();
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let prompt = v["prompt"].as_str().unwrap_or_default();
    let db = std::env::args().nth(1).expect("usage: hook_floor DB");
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
         CREATE TABLE IF NOT EXISTS m (id INTEGER PRIMARY KEY, text TEXT);
         CREATE VIRTUAL TABLE IF NOT EXISTS m_fts USING fts5 (text, content = 'm', content_rowid = 'id');",
    )
    .unwrap();
    let tx = conn.unchecked_transaction().unwrap();
    tx.execute("INSERT INTO m (text) VALUES (?1)", [prompt])
        .unwrap();
    tx.execute(
        "INSERT INTO m_fts (rowid, text) VALUES (last_insert_rowid(), ?1)",
        [prompt],
    )
    .unwrap();
    tx.commit().unwrap();
}
