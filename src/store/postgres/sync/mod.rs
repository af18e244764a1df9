//! The hub's side of sync on PostgreSQL: take a machine's push, settle versions that did not
//! see each other, and serve what the hub gained after a machine's cursor, by the hub's own
//! sequence. What is taken, refused, settled and served is the SQLite hub's
//! (`store::sync::hub_side`, item by item as `store::sync::items` writes them), decided by the
//! rules both share (`store::sync::hub_rules`); what differs is how it holds up when several
//! hub processes share the database.
//!
//! # The sequence is handed out in commit order
//!
//! A puller asks for everything after the sequence number it has read up to. Were two pushes
//! to number their rows at once, the one holding the smaller numbers could commit second, and a
//! puller that read in between would have moved its cursor past rows it never saw. So every
//! transaction that takes numbers from `sync_seq` (a push, and the hub stamping its own edits)
//! first takes one advisory lock, [`SYNC_LOCK`], and holds it to its commit: the numbers of one
//! transaction all come after those of every transaction that committed before it, and a
//! reader's snapshot always holds a prefix of the sequence. Pulls read without the lock, in
//! one repeatable-read snapshot, so they wait for no push.
//!
//! # The hub's own edits
//!
//! The schema's triggers mark an edit made on the hub (an MCP client pinning, saving a list) in
//! `sync_dirty`, and a memory stored on the hub in `sync_new_memories`; [`absorb`] gives them a
//! revision and a number. A push locks the rows of the items it names before it absorbs, so an
//! edit made through another connection is either absorbed first (and settled against the
//! push as a concurrent version, as on SQLite) or waits until the push has committed (and is
//! then an edit on top of it): it is never overwritten unseen.

mod absorb;
mod items;
mod projects;
mod receive;
mod serve;
#[cfg(test)]
mod tests;

use super::PgStore;
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::contract::SyncHub;
use crate::store::sync::{Conflict, Pusher, Received};
use crate::sync::hlc::Clock;
use crate::sync::item::Batch;
use absorb::absorb;
use postgres::types::ToSql;
use postgres::{Error, IsolationLevel, Row, Statement, Transaction};
pub(in crate::store) use receive::another_tokens;
use receive::receive;
use serve::serve;
use std::collections::HashMap;

/// The advisory lock every taker of sync sequence numbers holds to its commit (any fixed
/// number no other single-key lock uses).
const SYNC_LOCK: i64 = 0x616c_6574_6873_796e;

/// The keys of `sync_meta` a hub uses.
const MACHINE: &str = "machine";
const CLOCK: &str = "clock";

type Params<'p> = [&'p (dyn ToSql + Sync)];

/// One transaction on the hub's sync state, with the statements it has prepared (a push runs
/// the same few for every item) and the project names it has looked up.
struct Tx<'a, 't> {
    tx: &'a mut Transaction<'t>,
    prepared: HashMap<String, Statement>,
    /// Local project -> the identity it travels under.
    identities: HashMap<String, String>,
    /// (identity, sender's name) -> the local project it was made.
    projects: HashMap<(String, String), String>,
    /// Memories this transaction stored from a push: they have their revision already.
    inserted: Vec<i64>,
}

impl<'a, 't> Tx<'a, 't> {
    fn new(tx: &'a mut Transaction<'t>) -> Tx<'a, 't> {
        Tx {
            tx,
            prepared: HashMap::new(),
            identities: HashMap::new(),
            projects: HashMap::new(),
            inserted: Vec::new(),
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.tx.prepare(sql)?;
        self.prepared.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    fn query(&mut self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>, Error> {
        let s = self.statement(sql)?;
        self.tx.query(&s, params)
    }

    fn query_opt(&mut self, sql: &str, params: &Params<'_>) -> Result<Option<Row>, Error> {
        let s = self.statement(sql)?;
        self.tx.query_opt(&s, params)
    }

    fn query_one(&mut self, sql: &str, params: &Params<'_>) -> Result<Row, Error> {
        let s = self.statement(sql)?;
        self.tx.query_one(&s, params)
    }

    fn execute(&mut self, sql: &str, params: &Params<'_>) -> Result<u64, Error> {
        let s = self.statement(sql)?;
        self.tx.execute(&s, params)
    }
}

/// Take [`SYNC_LOCK`] until the transaction ends.
fn lock(tx: &mut Tx<'_, '_>) -> Result<(), Error> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SYNC_LOCK])?;
    Ok(())
}

fn get_meta(tx: &mut Tx<'_, '_>, key: &str) -> Result<Option<String>, Error> {
    Ok(tx
        .query_opt("SELECT value FROM sync_meta WHERE key = $1", &[&key])?
        .map(|r| r.get(0)))
}

fn set_meta(tx: &mut Tx<'_, '_>, key: &str, value: &str) -> Result<(), Error> {
    tx.execute(
        "INSERT INTO sync_meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&key, &value],
    )?;
    Ok(())
}

/// The hub's machine id, made on first use. Two processes making it at once both read the
/// one that was stored first.
fn machine_id(tx: &mut Tx<'_, '_>) -> Result<String, Error> {
    if let Some(id) = get_meta(tx, MACHINE)?.filter(|id| !id.is_empty()) {
        return Ok(id);
    }
    let id = uuid::Uuid::now_v7().simple().to_string();
    tx.execute(
        "INSERT INTO sync_meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE sync_meta.value = ''",
        &[&MACHINE, &id],
    )?;
    Ok(get_meta(tx, MACHINE)?.unwrap_or(id))
}

/// The clock, read for a run of revisions and written back with [`save_clock`] (both under
/// [`SYNC_LOCK`], so no two runs interleave).
fn clock(tx: &mut Tx<'_, '_>) -> Result<Clock, Error> {
    Ok(Clock::parse(&get_meta(tx, CLOCK)?.unwrap_or_default()))
}

fn save_clock(tx: &mut Tx<'_, '_>, c: Clock) -> Result<(), Error> {
    set_meta(tx, CLOCK, &c.stored())
}

/// `n` numbers of the hub's sequence, in order (under [`SYNC_LOCK`]).
fn next_seqs(tx: &mut Tx<'_, '_>, n: usize) -> Result<Vec<i64>, Error> {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    let mut seqs: Vec<i64> = tx
        .query(
            "SELECT nextval('sync_seq') FROM generate_series(1, $1::bigint)",
            &[&n],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    seqs.sort_unstable();
    Ok(seqs)
}

impl SyncHub for PgStore {
    /// The schema made the sync state with the hub; what is left is the machine id.
    fn enable_sync(&mut self) -> Result<String, StoreError> {
        self.write(|tx| machine_id(&mut Tx::new(tx)))
    }

    fn sync_receive(
        &mut self,
        batch: &Redacted<Batch>,
        pusher: &Pusher<'_>,
    ) -> Result<Received, StoreError> {
        let batch = batch.get();
        self.write(|tx| receive(&mut Tx::new(tx), batch, pusher))
    }

    /// The hub's own edits are absorbed first, in a short transaction under [`SYNC_LOCK`]
    /// taken only when there are some; the items are then read in one repeatable-read
    /// snapshot without the lock, so a pull waits for no push and sees each item as one
    /// moment left it.
    fn sync_changes_since(
        &mut self,
        after: i64,
        limit: usize,
        machine: &str,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Result<(Batch, i64, i64), StoreError> {
        let edited: bool = self.with(|c| {
            c.query_one(
                "SELECT EXISTS (SELECT 1 FROM sync_dirty) OR EXISTS (SELECT 1 FROM sync_new_memories)",
                &[],
            )
            .map(|r| r.get(0))
        })?;
        if edited {
            self.write(|tx| {
                let mut tx = Tx::new(tx);
                lock(&mut tx)?;
                let me = machine_id(&mut tx)?;
                let mut c = clock(&mut tx)?;
                absorb(&mut tx, &mut c, &me)?;
                save_clock(&mut tx, c)
            })?;
        }
        self.with(|c| {
            let mut t = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let out = serve(&mut Tx::new(&mut t), after, limit, machine, allowed)?;
            t.commit()?;
            Ok(out)
        })
    }

    fn sync_conflicts(&self, limit: usize) -> Result<Vec<Conflict>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            c.query(
                "SELECT id, at, kind, key, winner_rev, winner_origin, loser_rev, loser_origin, loser
                 FROM sync_conflicts ORDER BY id DESC LIMIT $1",
                &[&limit],
            )
            .map(|rows| {
                rows.iter()
                    .map(|r| {
                        let loser: String = r.get(8);
                        Conflict {
                            id: r.get(0),
                            at: r.get(1),
                            kind: r.get(2),
                            key: r.get(3),
                            winner_rev: r.get(4),
                            winner_origin: r.get(5),
                            loser_rev: r.get(6),
                            loser_origin: r.get(7),
                            loser: serde_json::from_str(&loser).unwrap_or_default(),
                        }
                    })
                    .collect()
            })
        })
    }
}
