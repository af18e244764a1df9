//! The machines' signed histories on a PostgreSQL hub, as a SQLite hub keeps them (see
//! [`crate::store::history_sync`]), the checks being [`crate::history::sync`]'s.
//!
//! Several hub processes may take pushes at once. Each push holds one advisory lock,
//! [`HISTORY_LOCK`], to its commit: two pushes of one machine cannot both take the same next
//! entry, and the arrival numbers are handed out in commit order, so a puller's cursor never
//! passes an entry committed late under a smaller number (as the sync sequence, see `sync`).

use super::{PgStore, pg_error};
use crate::history::sync::{self as travel, Known, Page, Pinned, Push, Refusal};
use crate::history::{Entry, PublicKey, from_hex, to_hex};
use crate::store::StoreError;
use crate::store::contract::HistoryHub;
use postgres::{IsolationLevel, Row, Transaction};

/// The advisory lock every push of a history holds to its commit (a fixed number no other
/// single-key lock uses).
const HISTORY_LOCK: i64 = 0x616c_6574_6869_7374;

const ENTRY_COLUMNS: &str =
    "seq, machine, at, action, item, actor, content_hash, prev, hash, signature";

/// An entry as stored; a hash or signature that is not this program's hex was written by
/// someone else, and is reported rather than passed on.
fn entry(r: &Row) -> Result<Entry, StoreError> {
    let hex = |i: usize| r.get::<_, String>(i);
    let bad = |what: &str| {
        StoreError::History(format!(
            "the hub's history holds an entry whose {what} is not lowercase hex: it was written outside aletheia"
        ))
    };
    Ok(Entry {
        seq: r.get(0),
        machine: r.get(1),
        at_ms: r.get(2),
        action: r.get(3),
        item: r.get(4),
        actor: r.get(5),
        content_hash: from_hex(&hex(6)).ok_or_else(|| bad("content hash"))?,
        prev: from_hex(&hex(7)).ok_or_else(|| bad("previous hash"))?,
        hash: from_hex(&hex(8)).ok_or_else(|| bad("hash"))?,
        signature: from_hex(&hex(9)).ok_or_else(|| bad("signature"))?,
    })
}

fn pinned(r: &Row) -> Option<Pinned> {
    Some(Pinned {
        machine: r.get(0),
        sync_machine: r.get(1),
        public_key: PublicKey::from_text(r.get(2)).ok()?,
        first_seen: r.get(3),
    })
}

fn pinned_to(
    tx: &mut Transaction<'_>,
    sync_machine: &str,
) -> Result<Option<PublicKey>, postgres::Error> {
    Ok(tx
        .query_opt(
            "SELECT public_key FROM history_keys WHERE sync_machine = $1 AND sync_machine <> ''",
            &[&sync_machine],
        )?
        .and_then(|r| PublicKey::from_text(r.get(0)).ok()))
}

impl HistoryHub for PgStore {
    fn history_receive(
        &mut self,
        push: &Push,
        token: i64,
        now: i64,
    ) -> Result<Result<usize, Refusal>, StoreError> {
        let name = self.name().to_owned();
        let pg = |e| pg_error(&name, e);
        self.write_or(|tx| {
            // Read committed whatever the database's default: each statement after the lock
            // sees what the pushes before it committed.
            tx.batch_execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
                .map_err(pg)?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&HISTORY_LOCK])
                .map_err(pg)?;
            if super::sync::another_tokens(tx, &push.machine, token).map_err(pg)? {
                return Ok(Err(Refusal::OtherToken {
                    sync_machine: push.machine.clone(),
                }));
            }
            let machine = push.key.fingerprint();
            let pinned = pinned_to(tx, &push.machine).map_err(pg)?;
            let named: Option<(PublicKey, String)> = tx
                .query_opt(
                    "SELECT public_key, sync_machine FROM history_keys WHERE machine = $1",
                    &[&machine],
                )
                .map_err(pg)?
                .and_then(|r| Some((PublicKey::from_text(r.get(0)).ok()?, r.get(1))));
            let from = push.entries.iter().map(|e| e.seq).min().unwrap_or(1);
            let to = push.entries.iter().map(|e| e.seq).max().unwrap_or(0);
            let held = tx
                .query(
                    &format!(
                        "SELECT {ENTRY_COLUMNS} FROM history WHERE machine = $1
                           AND (seq BETWEEN $2::bigint - 1 AND $3::bigint
                                OR seq = (SELECT max(seq) FROM history WHERE machine = $1))"
                    ),
                    &[&machine, &from, &to],
                )
                .map_err(pg)?
                .iter()
                .map(entry)
                .collect::<Result<Vec<_>, _>>()?;
            let known = Known {
                pinned: pinned.as_ref(),
                named: named.as_ref().map(|(k, s)| (k, s.as_str())),
                held: &held,
            };
            let (taken, pin_it) = match travel::receive(known, push) {
                Ok(t) => t,
                Err(r) => return Ok(Err(r)),
            };
            if pin_it {
                tx.execute(
                    "INSERT INTO history_keys (machine, public_key, first_seen, sync_machine)
                     VALUES ($1, $2, $3, $4)
                     ON CONFLICT (machine) DO UPDATE SET sync_machine = excluded.sync_machine",
                    &[&machine, &push.key.to_text(), &now, &push.machine],
                )
                .map_err(pg)?;
            }
            let mut arrival: i64 = tx
                .query_one("SELECT coalesce(max(arrival), 0) FROM history", &[])
                .map_err(pg)?
                .get(0);
            let insert = tx
                .prepare(
                    "INSERT INTO history (seq, machine, at, action, item, actor, content_hash, prev, hash, signature, arrival)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                )
                .map_err(pg)?;
            for e in &taken {
                arrival += 1;
                tx.execute(
                    &insert,
                    &[
                        &e.seq,
                        &e.machine,
                        &e.at_ms,
                        &e.action,
                        &e.item,
                        &e.actor,
                        &to_hex(&e.content_hash),
                        &to_hex(&e.prev),
                        &to_hex(&e.hash),
                        &to_hex(&e.signature),
                        &arrival,
                    ],
                )
                .map_err(pg)?;
            }
            Ok(Ok(taken.len()))
        })
    }

    fn history_since(&self, after: i64, limit: usize, except: &str) -> Result<Page, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let (rows, next, left, keys) = self.with(|c| {
            // One snapshot, so the count left and the keys agree with the entries given.
            let mut tx = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let rows = tx.query(
                &format!(
                    "SELECT {ENTRY_COLUMNS}, arrival FROM history
                     WHERE arrival > $1 AND machine <> $2 ORDER BY arrival LIMIT $3"
                ),
                &[&after, &except, &limit],
            )?;
            // With nothing left for this puller, its cursor moves past the entries it was not
            // given (its own), so it does not ask for them again.
            let next: i64 = match rows.last() {
                Some(r) => r.get(10),
                None => tx
                    .query_one("SELECT coalesce(max(arrival), 0) FROM history", &[])?
                    .get::<_, i64>(0)
                    .max(after),
            };
            let left: i64 = tx
                .query_one(
                    "SELECT count(*) FROM history WHERE arrival > $1 AND machine <> $2",
                    &[&next, &except],
                )?
                .get(0);
            let machines: Vec<String> = rows
                .iter()
                .map(|r| r.get::<_, String>(1))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let keys = tx.query(
                "SELECT machine, sync_machine, public_key, first_seen FROM history_keys
                 WHERE machine = ANY($1) ORDER BY machine",
                &[&machines],
            )?;
            tx.commit()?;
            Ok((rows, next, left, keys))
        })?;
        Ok(Page {
            entries: rows.iter().map(entry).collect::<Result<_, _>>()?,
            keys: keys.iter().filter_map(pinned).collect(),
            next,
            left,
        })
    }

    fn history_pins(&self) -> Result<Vec<(Pinned, i64)>, StoreError> {
        let rows = self.with(|c| {
            c.query(
                "SELECT k.machine, k.sync_machine, k.public_key, k.first_seen,
                        (SELECT count(*) FROM history h WHERE h.machine = k.machine)
                 FROM history_keys k ORDER BY k.first_seen, k.machine",
                &[],
            )
        })?;
        Ok(rows
            .iter()
            .filter_map(|r| Some((pinned(r)?, r.get::<_, i64>(4))))
            .collect())
    }

    fn forget_history_pin(&mut self, sync_machine: &str) -> Result<bool, StoreError> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE history_keys SET sync_machine = '' WHERE sync_machine = $1 AND $1 <> ''",
                &[&sync_machine],
            )? > 0)
        })
    }
}
