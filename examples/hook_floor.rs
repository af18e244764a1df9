//! The floor for hook latency: the least a hook can do. Parse one JSON payload from stdin, open
//! SQLite in WAL mode, insert one row into a table and its FTS5 index. `scripts/bench` runs it
//! beside the real hook so every figure is also a ratio to this one, measured in the same run.
//!
//! With `ALETHEIA_HOOK_PHASES` set it prints the hook's line of timed steps (see the hook's
//! `stall` module), under the same step names, so the benchmark can split both runs alike.
//! It keeps its own few lines for that rather than calling the library: the floor must stay
//! the least a program can do.

#![allow(
    clippy::unwrap_used,
    reason = "the floor does the least a program can do; any failure ends the bench run"
)]

use std::io::Read;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    let timed = std::env::var_os("ALETHEIA_HOOK_PHASES").is_some();
    let mut steps = Vec::new();
    let mut at = |step: &'static str| {
        if timed {
            let ns = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            steps.push(format!("{step}={ns}"));
        }
    };
    at("main");
    let mut raw = String::new();
    std::io::stdin().read_to_string(&mut raw).unwrap();
    at("read");
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let prompt = v["prompt"].as_str().unwrap_or_default();
    at("parse");
    let db = std::env::args().nth(1).expect("usage: hook_floor DB");
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
         CREATE TABLE IF NOT EXISTS m (id INTEGER PRIMARY KEY, text TEXT);
         CREATE VIRTUAL TABLE IF NOT EXISTS m_fts USING fts5 (text, content = 'm', content_rowid = 'id');",
    )
    .unwrap();
    at("opened");
    let tx = conn.unchecked_transaction().unwrap();
    tx.execute("INSERT INTO m (text) VALUES (?1)", [prompt])
        .unwrap();
    tx.execute(
        "INSERT INTO m_fts (rowid, text) VALUES (last_insert_rowid(), ?1)",
        [prompt],
    )
    .unwrap();
    tx.commit().unwrap();
    at("written");
    drop(conn);
    at("closed");
    at("end");
    if timed {
        eprintln!("aletheia phases: {}", steps.join(" "));
    }
}
