//! The hub's tokens, the audit of the calls made with them, and the rate limit's window, on
//! PostgreSQL, where several hub processes share one database.
//!
//! Nothing here is cached: a token made or revoked through one connection is what every other
//! reads at its next call. The rate window is a table, so each process counts every process's
//! requests; admitting one is serialised per token (see [`admit_request`](HubTokens::admit_request)).

use super::PgStore;
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::contract::HubTokens;
use crate::store::hub::{AuditEntry, NewToken, RATE_WINDOW_MS, Token, rate_verdict};
use postgres::Row;

/// The first key of the advisory locks that admitting a request takes (the second is the
/// token's): any fixed number no other two-key lock uses. Two-key locks are a key space of
/// their own, apart from the single keys that migrating and sync hold.
const RATE_LOCK: i32 = 0x7261_7465;

const TOKEN_COLUMNS: &str =
    "id, hash, label, scope, projects, created_at, expires_at, revoked_at, created_by";

fn token(r: &Row) -> Token {
    let projects: Option<String> = r.get(4);
    Token {
        id: r.get(0),
        hash: r.get(1),
        label: r.get(2),
        scope: r.get(3),
        // Written by `create_token` as a JSON array; anything else reads as no project at
        // all rather than every project, as on SQLite.
        projects: projects.map(|p| serde_json::from_str(&p).unwrap_or_default()),
        created_at: r.get(5),
        expires_at: r.get(6),
        revoked_at: r.get(7),
        created_by: r.get(8),
    }
}

/// The second key of a token's rate lock. Ids past 2^31 fold onto smaller ones: two tokens
/// sharing a lock only wait for each other, they never count each other's requests.
fn rate_key(token: i64) -> i32 {
    i32::try_from(token.rem_euclid(1 << 31)).unwrap_or(0)
}

impl HubTokens for PgStore {
    fn create_token(&mut self, t: &Redacted<NewToken>) -> Result<i64, StoreError> {
        let t = t.get();
        let projects = t
            .projects
            .as_ref()
            .map(|p| serde_json::to_string(p).unwrap_or_else(|_| "[]".to_owned()));
        self.with(|c| {
            c.query_one(
                "INSERT INTO hub_tokens (hash, label, scope, projects, created_at, expires_at, created_by)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                &[
                    &t.hash,
                    &t.label,
                    &t.scope,
                    &projects,
                    &t.created_at,
                    &t.expires_at,
                    &t.created_by,
                ],
            )
            .map(|r| r.get(0))
        })
    }

    fn token(&self, id: i64) -> Result<Option<Token>, StoreError> {
        self.with(|c| {
            c.query_opt(
                &format!("SELECT {TOKEN_COLUMNS} FROM hub_tokens WHERE id = $1"),
                &[&id],
            )
            .map(|r| r.as_ref().map(token))
        })
    }

    fn tokens(&self) -> Result<Vec<Token>, StoreError> {
        self.with(|c| {
            c.query(
                &format!("SELECT {TOKEN_COLUMNS} FROM hub_tokens ORDER BY id"),
                &[],
            )
            .map(|rows| rows.iter().map(token).collect())
        })
    }

    fn revoke_token(&mut self, id: i64, now: i64) -> Result<bool, StoreError> {
        self.with(|c| {
            c.execute(
                "UPDATE hub_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                &[&id, &now],
            )
            .map(|n| n == 1)
        })
    }

    /// Another process may be admitting a request for the same token at the same moment: each
    /// takes the token's advisory lock before it reads the window, so the second reads the
    /// window only once the first has committed its row, and no more than `per_minute` get in.
    /// The lock is the transaction's, released at its commit. Rows older than the window go
    /// on every call, so the table holds at most a minute of each token's requests.
    fn admit_request(
        &mut self,
        token: i64,
        now: i64,
        per_minute: usize,
    ) -> Result<Result<(), u64>, StoreError> {
        let since = now - RATE_WINDOW_MS;
        self.write(|tx| {
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, $2)",
                &[&RATE_LOCK, &rate_key(token)],
            )?;
            // The statement's snapshot is taken after the lock is held. Its delete is not
            // visible to its own count, hence `at > $2` there too.
            let row = tx.query_one(
                "WITH gone AS (DELETE FROM hub_requests WHERE token_id = $1 AND at <= $2)
                 SELECT count(*), min(at) FROM hub_requests WHERE token_id = $1 AND at > $2",
                &[&token, &since],
            )?;
            let verdict = rate_verdict(row.get(0), row.get(1), per_minute, now);
            if verdict.is_ok() {
                tx.execute(
                    "INSERT INTO hub_requests (token_id, at) VALUES ($1, $2)",
                    &[&token, &now],
                )?;
            }
            Ok(verdict)
        })
    }

    fn record_call(&mut self, e: &Redacted<AuditEntry>) -> Result<(), StoreError> {
        let e = e.get();
        self.with(|c| {
            c.execute(
                "INSERT INTO hub_audit (at, token_id, label, tool, project, result)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[&e.at, &e.token_id, &e.label, &e.tool, &e.project, &e.result],
            )
            .map(|_| ())
        })
    }

    fn calls(
        &self,
        since: i64,
        token: Option<i64>,
        limit: usize,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            c.query(
                "SELECT at, token_id, label, tool, project, result FROM hub_audit
                 WHERE at >= $1 AND ($2::bigint IS NULL OR token_id = $2) ORDER BY at, id LIMIT $3",
                &[&since, &token, &limit],
            )
            .map(|rows| {
                rows.iter()
                    .map(|r| AuditEntry {
                        at: r.get(0),
                        token_id: r.get(1),
                        label: r.get(2),
                        tool: r.get(3),
                        project: r.get(4),
                        result: r.get(5),
                    })
                    .collect()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::redact::Redactor;
    use crate::store::{OpenOptions, Store};
    use std::sync::{Arc, Barrier};

    fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
        Redacted::new(v, &Redactor::builtin())
    }

    /// calls' filters and order, the same on both engines.
    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn calls_are_filtered_and_ordered_as_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let mut sqlite =
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut pg = testing::fresh();
        for s in [&mut sqlite as &mut dyn HubTokens, &mut pg] {
            for (at, token, tool) in [(5, 1, "b"), (3, 2, "a"), (5, 2, "a"), (9, 1, "c")] {
                s.record_call(&redacted(AuditEntry {
                    at,
                    token_id: token,
                    label: "l".into(),
                    tool: tool.into(),
                    project: None,
                    result: "ok".into(),
                }))
                .unwrap();
            }
        }
        for (since, token, limit) in [
            (0, None, 10),
            (4, None, 2),
            (0, Some(2), 10),
            (6, Some(2), 10),
        ] {
            assert_eq!(
                HubTokens::calls(&pg, since, token, limit).unwrap(),
                HubTokens::calls(&sqlite, since, token, limit).unwrap(),
                "since {since}, token {token:?}, limit {limit}"
            );
        }
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_token_made_or_revoked_on_one_connection_is_seen_on_another_at_once() {
        let url = testing::fresh_database();
        let (mut a, mut b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
        assert!(HubTokens::tokens(&b).unwrap().is_empty());
        let id = a
            .create_token(&redacted(NewToken {
                hash: "cd".repeat(32),
                label: "ci".into(),
                scope: "read".into(),
                projects: None,
                created_at: 1,
                expires_at: Some(99),
                created_by: None,
            }))
            .unwrap();
        let seen = HubTokens::token(&b, id).unwrap().unwrap();
        assert_eq!((seen.projects, seen.revoked_at), (None, None));
        assert!(b.revoke_token(id, 7).unwrap());
        assert_eq!(
            HubTokens::token(&a, id).unwrap().unwrap().revoked_at,
            Some(7)
        );
        assert!(!a.revoke_token(id, 8).unwrap(), "revoked once, by either");
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn two_connections_admitting_for_one_token_at_once_let_in_exactly_per_minute() {
        let url = testing::fresh_database();
        drop(PgStore::open(&url).unwrap());
        let start = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2)
            .map(|t| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    let mut s = PgStore::open(&url).unwrap();
                    start.wait();
                    (0..100)
                        .filter(|i| s.admit_request(7, 10_000 + i * 2 + t, 60).unwrap().is_ok())
                        .count()
                })
            })
            .collect();
        let admitted: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(admitted, 60);
        let mut s = PgStore::open(&url).unwrap();
        // A minute on, the window is empty again and the rows it held are gone.
        assert_eq!(s.admit_request(7, 70_500, 60).unwrap(), Ok(()));
        let rows: i64 = s
            .with(|c| c.query_one("SELECT count(*) FROM hub_requests WHERE token_id = 7", &[]))
            .unwrap()
            .get(0);
        assert_eq!(rows, 1);
    }

    #[test]
    fn a_token_id_past_2_to_the_31_folds_onto_a_lock_key() {
        assert_eq!(rate_key(5), 5);
        assert_eq!(rate_key((1 << 31) + 5), 5);
        assert_eq!(rate_key(-1), i32::MAX);
    }
}
