//! What only a hub's store holds: its tokens (as hashes) and the audit of every tool call made
//! with them.
//!
//! These tables live only in a file `aletheia hub` serves (or `mcp-link` was pointed at), made
//! on first use by [`Store::open_hub`]; a machine's own store never has them, so the hook, which
//! parses the whole schema on every run, pays nothing for them.

use super::sql_numbers::sql_int;
use super::{OpenOptions, Store, StoreError};
use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::{OptionalExtension, params};
use std::path::Path;

/// The hub's tables. `CREATE … IF NOT EXISTS`, run at every hub open: the hub opens its store
/// once per process.
const HUB_SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS hub_tokens (
    id         INTEGER PRIMARY KEY,
    hash       TEXT    NOT NULL UNIQUE,
    label      TEXT    NOT NULL,
    scope      TEXT    NOT NULL CHECK (scope IN ('mcp', 'read', 'sync', 'admin')),
    projects   TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER,
    created_by INTEGER
);
CREATE TABLE IF NOT EXISTS hub_audit (
    id       INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL,
    token_id INTEGER NOT NULL,
    label    TEXT    NOT NULL,
    tool     TEXT    NOT NULL,
    project  TEXT,
    result   TEXT    NOT NULL CHECK (result IN ('ok', 'error', 'refused'))
);
CREATE INDEX IF NOT EXISTS hub_audit_by_time ON hub_audit (at);
CREATE TABLE IF NOT EXISTS hub_requests (
    token_id INTEGER NOT NULL,
    at       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS hub_requests_by_token ON hub_requests (token_id, at);
"#;

/// The rate limit's window, in milliseconds: requests are counted over the last minute.
pub const RATE_WINDOW_MS: i64 = 60_000;

/// The answer to a request counted against `per_minute` when `in_window` requests (the oldest
/// at `oldest`) were let in over the last minute: let in, or the whole seconds to wait.
pub fn rate_verdict(
    in_window: i64,
    oldest: Option<i64>,
    per_minute: usize,
    now: i64,
) -> Result<(), u64> {
    if usize::try_from(in_window).unwrap_or(usize::MAX) < per_minute.max(1) {
        return Ok(());
    }
    let wait_ms = (oldest.unwrap_or(now) + RATE_WINDOW_MS - now).max(1);
    Err(u64::try_from(wait_ms).unwrap_or(1).div_ceil(1000))
}

/// A token to store: everything but the secret, which only its hash stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    /// SHA-256 of the secret, as lowercase hex.
    pub hash: String,
    pub label: String,
    /// `mcp`, `read`, `sync` or `admin`.
    pub scope: String,
    /// The projects it may touch; `None` for every project.
    pub projects: Option<Vec<String>>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    /// The admin token that made it over the API; `None` for `mcp-link create`.
    pub created_by: Option<i64>,
}

impl Redact for NewToken {
    /// The label is free text an admin typed; project keys are stored as memories store them.
    fn redact(mut self, r: &Redactor) -> NewToken {
        self.label = r.redact(&self.label);
        if let Some(projects) = &mut self.projects {
            for p in projects.iter_mut() {
                *p = crate::project::stored_key(p, r);
            }
        }
        self
    }
}

/// A stored token.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Token {
    pub id: i64,
    #[serde(skip)]
    pub hash: String,
    pub label: String,
    pub scope: String,
    pub projects: Option<Vec<String>>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub created_by: Option<i64>,
}

/// One audited tool call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuditEntry {
    pub at: i64,
    pub token_id: i64,
    pub label: String,
    pub tool: String,
    pub project: Option<String>,
    /// `ok`, `error` or `refused`.
    pub result: String,
}

impl Redact for AuditEntry {
    /// The label was redacted when the token was made; a tool name or project a client sent
    /// is not trusted to be free of secrets.
    fn redact(mut self, r: &Redactor) -> AuditEntry {
        self.label = r.redact(&self.label);
        self.tool = r.redact(&self.tool);
        self.project = self.project.map(|p| crate::project::stored_key(&p, r));
        self
    }
}

fn token_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Token> {
    let projects: Option<String> = r.get(4)?;
    Ok(Token {
        id: r.get(0)?,
        hash: r.get(1)?,
        label: r.get(2)?,
        scope: r.get(3)?,
        // Written by `create_token` as a JSON array; anything else reads as no project at
        // all rather than every project.
        projects: projects.map(|p| serde_json::from_str(&p).unwrap_or_default()),
        created_at: r.get(5)?,
        expires_at: r.get(6)?,
        revoked_at: r.get(7)?,
        created_by: r.get(8)?,
    })
}

const TOKEN_COLUMNS: &str =
    "id, hash, label, scope, projects, created_at, expires_at, revoked_at, created_by";

impl Store {
    /// Open (and create or migrate) a hub's store at `path`, with the hub's own tables.
    pub fn open_hub(path: &Path, opts: OpenOptions) -> Result<Store, StoreError> {
        let mut store = Store::open_path(path, opts)?;
        store
            .conn
            .execute_batch(HUB_SCHEMA)
            .map_err(|e| store.err(e))?;
        // A hub keeps the sync state of the items it holds, and its own edits travel too.
        store.enable_sync()?;
        Ok(store)
    }

    /// Store a token; its id.
    pub fn create_token(&mut self, t: &Redacted<NewToken>) -> Result<i64, StoreError> {
        let t = t.get();
        let projects = t
            .projects
            .as_ref()
            .map(|p| serde_json::to_string(p).unwrap_or_else(|_| "[]".to_owned()));
        self.write(|tx| {
            tx.execute(
                "INSERT INTO hub_tokens (hash, label, scope, projects, created_at, expires_at, created_by)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    t.hash,
                    t.label,
                    t.scope,
                    projects,
                    t.created_at,
                    t.expires_at,
                    t.created_by
                ],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }

    /// The token with `id`, revoked or not.
    pub fn token(&self, id: i64) -> Result<Option<Token>, StoreError> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {TOKEN_COLUMNS} FROM hub_tokens WHERE id = ?1"
            ))
            .and_then(|mut s| s.query_row([id], token_from_row).optional())
            .map_err(|e| self.err(e))
    }

    /// Every token, oldest first.
    pub fn tokens(&self) -> Result<Vec<Token>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {TOKEN_COLUMNS} FROM hub_tokens ORDER BY id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], token_from_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Revoke token `id` at `now`; false when there is no such token or it was revoked already.
    pub fn revoke_token(&mut self, id: i64, now: i64) -> Result<bool, StoreError> {
        self.write(|tx| {
            let n = tx.execute(
                "UPDATE hub_tokens SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                params![id, now],
            )?;
            Ok(n == 1)
        })
    }

    /// Add one audit row.
    pub fn record_call(&mut self, e: &Redacted<AuditEntry>) -> Result<(), StoreError> {
        let e = e.get();
        self.write(|tx| {
            tx.prepare_cached(
                "INSERT INTO hub_audit (at, token_id, label, tool, project, result)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                e.at, e.token_id, e.label, e.tool, e.project, e.result
            ])?;
            Ok(())
        })
    }

    /// Count a request by `token` at `now` (ms) against `per_minute` over the last minute, or
    /// refuse it with the whole seconds until one is allowed again. A refused request is not
    /// counted, so a client that keeps retrying does not push its own window forward. The
    /// window is in the store, so every hub process on it counts the same requests.
    pub fn admit_request(
        &mut self,
        token: i64,
        now: i64,
        per_minute: usize,
    ) -> Result<Result<(), u64>, StoreError> {
        self.write(|tx| {
            let since = now - RATE_WINDOW_MS;
            tx.execute(
                "DELETE FROM hub_requests WHERE token_id = ?1 AND at <= ?2",
                params![token, since],
            )?;
            let (n, oldest): (i64, Option<i64>) = tx.query_row(
                "SELECT count(*), min(at) FROM hub_requests WHERE token_id = ?1",
                params![token],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let verdict = rate_verdict(n, oldest, per_minute, now);
            if verdict.is_ok() {
                tx.execute(
                    "INSERT INTO hub_requests (token_id, at) VALUES (?1, ?2)",
                    params![token, now],
                )?;
            }
            Ok(verdict)
        })
    }

    /// Audit rows at or after `since` (ms), of `token` when given, oldest first, at most
    /// `limit`.
    pub fn calls(
        &self,
        since: i64,
        token: Option<i64>,
        limit: usize,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT at, token_id, label, tool, project, result FROM hub_audit
                 WHERE at >= ?1 AND (?2 IS NULL OR token_id = ?2) ORDER BY at, id LIMIT ?3",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![since, token, sql_int(limit)], |r| {
                Ok(AuditEntry {
                    at: r.get(0)?,
                    token_id: r.get(1)?,
                    label: r.get(2)?,
                    tool: r.get(3)?,
                    project: r.get(4)?,
                    result: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}
