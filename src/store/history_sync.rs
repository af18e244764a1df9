//! The signed histories on the move, on the SQLite store (see [`crate::history::sync`]): a
//! machine's own chain out to its hub, and the other machines' chains in from it, checked
//! before they are kept; and a SQLite hub's side, which takes machines' chains, pins their
//! keys and serves them in the order it took them.
//!
//! Every chain lives in the one `history` table, each under its machine's name (its key's
//! fingerprint), so `aletheia verify` checks the pulled chains with the pinned keys as it
//! checks this machine's own.

use super::history::{ENTRY_COLUMNS, entry, insert};
use super::sync::{advance_meta, get_meta};
use super::{Store, StoreError, signer_of};
use crate::history::sync::{self as travel, Known, Page, Pinned, Push, Refusal};
use crate::history::{Entry, Pin, PublicKey};
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::{BTreeMap, HashMap};

/// With the machine's name after it: the highest seq of that chain of this store's own the
/// hub acknowledged (a replaced key starts a new chain, pushed from its first entry).
const PUSHED: &str = "history_pushed:";
/// The hub's arrival number this machine has pulled entries up to.
const PULLED: &str = "history_pulled";

/// What applying a pulled page came to.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Pulled {
    /// Entries checked and kept.
    pub stored: usize,
    /// What was not kept, or a key that changed: one line each.
    pub warnings: Vec<String>,
    /// Something did not hold: the cursor stayed, and the pull stops here.
    pub stalled: bool,
}

/// The key pinned to sync machine `sync_machine`.
fn pinned_to(tx: &rusqlite::Connection, sync_machine: &str) -> rusqlite::Result<Option<PublicKey>> {
    if sync_machine.is_empty() {
        return Ok(None);
    }
    let text: Option<String> = tx
        .prepare_cached("SELECT public_key FROM history_keys WHERE sync_machine = ?1")?
        .query_row([sync_machine], |r| r.get(0))
        .optional()?;
    Ok(text.and_then(|t| PublicKey::from_text(&t).ok()))
}

/// Record `key`, pinned to `sync_machine` (which no other key stays pinned to).
fn pin(
    tx: &Transaction<'_>,
    sync_machine: &str,
    key: &PublicKey,
    now: i64,
) -> rusqlite::Result<()> {
    let machine = key.fingerprint();
    tx.prepare_cached(
        "UPDATE history_keys SET sync_machine = '' WHERE sync_machine = ?1 AND machine <> ?2",
    )?
    .execute(params![sync_machine, machine])?;
    tx.prepare_cached(
        "INSERT INTO history_keys (machine, public_key, first_seen, sync_machine)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (machine) DO UPDATE SET sync_machine = excluded.sync_machine",
    )?
    .execute(params![machine, key.to_text(), now, sync_machine])?;
    Ok(())
}

/// The key known under fingerprint `machine`, with the sync machine it is pinned to (empty when
/// it is pinned to none).
fn named(
    tx: &rusqlite::Connection,
    machine: &str,
) -> rusqlite::Result<Option<(PublicKey, String)>> {
    let row: Option<(String, String)> = tx
        .prepare_cached("SELECT public_key, sync_machine FROM history_keys WHERE machine = ?1")?
        .query_row([machine], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(row.and_then(|(k, s)| Some((PublicKey::from_text(&k).ok()?, s))))
}

/// What the store holds of `machine`'s chain over the seqs `entries` name (from the entry
/// before the first), and its newest entry: what [`travel::admit`] checks them against.
fn held(
    tx: &rusqlite::Connection,
    machine: &str,
    entries: &[Entry],
) -> rusqlite::Result<Vec<Entry>> {
    let from = entries.iter().map(|e| e.seq).min().unwrap_or(1);
    let to = entries.iter().map(|e| e.seq).max().unwrap_or(0);
    tx.prepare_cached(&format!(
        "SELECT {ENTRY_COLUMNS} FROM history WHERE machine = ?1
           AND (seq BETWEEN ?2 - 1 AND ?3
                OR seq = (SELECT max(seq) FROM history WHERE machine = ?1))"
    ))?
    .query_map(params![machine, from, to], entry)?
    .collect()
}

impl Store {
    /// This machine's name in its history (its key's fingerprint), when its key can be read.
    pub fn history_machine(&self) -> Option<String> {
        signer_of(&self.signer, &self.path).map(|s| s.machine().to_owned())
    }

    /// Up to `limit` entries of this machine's own chain the hub has not acknowledged, as a
    /// push from sync machine `sync_machine`; `None` when the key cannot be read.
    pub fn history_out(
        &self,
        sync_machine: &str,
        limit: usize,
    ) -> Result<Option<Push>, StoreError> {
        let Some(signer) = signer_of(&self.signer, &self.path) else {
            return Ok(None);
        };
        let err = |e| self.err(e);
        let after: i64 = get_meta(&self.conn, &format!("{PUSHED}{}", signer.machine()))
            .map_err(err)?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let entries = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS} FROM history WHERE machine = ?1 AND seq > ?2
                 ORDER BY seq LIMIT ?3"
            ))
            .map_err(err)?
            .query_map(
                params![
                    signer.machine(),
                    after,
                    i64::try_from(limit).unwrap_or(i64::MAX)
                ],
                entry,
            )
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(Some(Push {
            machine: sync_machine.to_owned(),
            key: signer.public(),
            entries,
        }))
    }

    /// The hub acknowledged the chain of `push` up to `seq`.
    pub fn history_pushed(&mut self, push: &Push, seq: i64) -> Result<(), StoreError> {
        let key = format!("{PUSHED}{}", push.key.fingerprint());
        self.write(|tx| advance_meta(tx, &key, seq))
    }

    /// The hub's arrival number this machine has pulled entries up to.
    pub fn history_pulled_up_to(&self) -> Result<i64, StoreError> {
        Ok(get_meta(&self.conn, PULLED)
            .map_err(|e| self.err(e))?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    /// Keep what holds of a page pulled from the hub, and move the cursor past it, unless
    /// something in it did not hold.
    ///
    /// Each key is pinned to its sync machine on first sight; a key the hub now gives for a
    /// sync machine that had another is taken and reported (the hub gives one only after a
    /// person forgot the old pin there). Each machine's entries are checked as the next of
    /// what this store holds of its chain; a machine whose entries do not hold is reported with
    /// the first that does not, none of its entries in the page are kept, and the cursor stays
    /// where it was: the next sync asks for the page again (what was kept is skipped then), so
    /// the warning stands until the hub's copy is repaired, and nothing is lost meanwhile.
    pub fn history_pulled(&mut self, page: &Page, now: i64) -> Result<Pulled, StoreError> {
        let own = self.history_machine();
        self.write(|tx| {
            let mut out = Pulled::default();
            for k in &page.keys {
                let fingerprint = k.public_key.fingerprint();
                let known = named(tx, &k.machine)?.map(|(key, _)| key);
                if fingerprint != k.machine || known.is_some_and(|key| key != k.public_key) {
                    out.warnings.push(format!(
                        "the hub gave key {fingerprint} for machine {}, which is another key's \
                         name: its entries were not kept",
                        k.machine
                    ));
                    out.stalled = true;
                    continue;
                }
                if let Pin::Changed { was } =
                    crate::history::pin(pinned_to(tx, &k.sync_machine)?.as_ref(), &k.public_key)
                {
                    out.warnings.push(format!(
                        "sync machine {} signs with a new key {} (key {} was pinned for it): \
                         its entries from now on are checked with the new key",
                        k.sync_machine,
                        k.machine,
                        was.fingerprint()
                    ));
                }
                if k.sync_machine.is_empty() {
                    tx.prepare_cached(
                        "INSERT OR IGNORE INTO history_keys (machine, public_key, first_seen)
                         VALUES (?1, ?2, ?3)",
                    )?
                    .execute(params![k.machine, k.public_key.to_text(), now])?;
                } else {
                    pin(tx, &k.sync_machine, &k.public_key, now)?;
                }
            }
            let mut chains: BTreeMap<&str, Vec<Entry>> = BTreeMap::new();
            for e in &page.entries {
                if own.as_deref() != Some(e.machine.as_str()) {
                    chains.entry(&e.machine).or_default().push(e.clone());
                }
            }
            for (machine, entries) in chains {
                let Some((key, _)) = named(tx, machine)? else {
                    out.warnings.push(format!(
                        "the hub gave entries of machine {machine} without its key: they were not kept"
                    ));
                    out.stalled = true;
                    continue;
                };
                let held = held(tx, machine, &entries)?;
                match travel::admit(&held, &key, &entries) {
                    Ok(taken) => {
                        for e in &taken {
                            insert(tx, e, None)?;
                        }
                        out.stored += taken.len();
                    }
                    Err(r) => {
                        out.warnings.push(format!("not kept from the hub: {r}"));
                        out.stalled = true;
                    }
                }
            }
            if !out.stalled {
                advance_meta(tx, PULLED, page.next)?;
            }
            Ok(out)
        })
    }

    /// A hub's side: take a machine's push with `token` (see
    /// [`crate::store::contract::HistoryHub`]).
    pub fn history_receive(
        &mut self,
        push: &Push,
        token: i64,
        now: i64,
    ) -> Result<Result<usize, Refusal>, StoreError> {
        let own = self.history_machine();
        self.write(|tx| {
            let machine = push.key.fingerprint();
            if own.as_deref() == Some(machine.as_str()) {
                return Ok(Err(Refusal::SharedKey));
            }
            if super::sync::another_tokens(tx, &push.machine, token)? {
                return Ok(Err(Refusal::OtherToken {
                    sync_machine: push.machine.clone(),
                }));
            }
            let pinned = pinned_to(tx, &push.machine)?;
            let named = named(tx, &machine)?;
            let held = held(tx, &machine, &push.entries)?;
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
                pin(tx, &push.machine, &push.key, now)?;
            }
            let mut arrival: i64 = tx
                .prepare_cached("SELECT ifnull(max(arrival), 0) FROM history")?
                .query_row([], |r| r.get(0))?;
            for e in &taken {
                arrival += 1;
                insert(tx, e, Some(arrival))?;
            }
            Ok(Ok(taken.len()))
        })
    }

    /// A hub's side: entries taken after `after`, without machine `except`'s.
    pub fn history_since(
        &self,
        after: i64,
        limit: usize,
        except: &str,
    ) -> Result<Page, StoreError> {
        let err = |e| self.err(e);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // One read transaction, one snapshot: a push committed between two of the reads below
        // would otherwise have `next` pass entries the rows did not include.
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let rows: Vec<(Entry, i64)> = tx
            .prepare_cached(&format!(
                "SELECT {ENTRY_COLUMNS}, arrival FROM history
                 WHERE arrival > ?1 AND machine <> ?2 ORDER BY arrival LIMIT ?3"
            ))
            .map_err(err)?
            .query_map(params![after, except, limit], |r| {
                Ok((entry(r)?, r.get(10)?))
            })
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        // With nothing left for this puller, its cursor moves past the entries it was not
        // given (its own), so it does not ask for them again.
        let next = match rows.last() {
            Some((_, a)) => *a,
            None => tx
                .query_row("SELECT ifnull(max(arrival), 0) FROM history", [], |r| {
                    r.get::<_, i64>(0)
                })
                .map_err(err)?
                .max(after),
        };
        let left: i64 = tx
            .query_row(
                "SELECT count(*) FROM history WHERE arrival > ?1 AND machine <> ?2",
                params![next, except],
                |r| r.get(0),
            )
            .map_err(err)?;
        let mut keys: HashMap<&str, Pinned> = HashMap::new();
        for (e, _) in &rows {
            if keys.contains_key(e.machine.as_str()) {
                continue;
            }
            let pinned = tx
                .prepare_cached(
                    "SELECT machine, sync_machine, public_key, first_seen FROM history_keys
                     WHERE machine = ?1",
                )
                .map_err(err)?
                .query_row([&e.machine], pinned_row)
                .optional()
                .map_err(err)?
                .flatten();
            if let Some(p) = pinned {
                keys.insert(&e.machine, p);
            }
        }
        let mut keys: Vec<Pinned> = keys.into_values().collect();
        keys.sort_by(|a, b| a.machine.cmp(&b.machine));
        drop(tx);
        Ok(Page {
            entries: rows.into_iter().map(|(e, _)| e).collect(),
            keys,
            next,
            left,
        })
    }

    /// Every key pinned, oldest first, with how many entries of its machine the store holds;
    /// not the store's own.
    pub fn history_pins(&self) -> Result<Vec<(Pinned, i64)>, StoreError> {
        let own = self.history_machine().unwrap_or_default();
        let err = |e| self.err(e);
        let mut st = self
            .conn
            .prepare(
                "SELECT k.machine, k.sync_machine, k.public_key, k.first_seen,
                        (SELECT count(*) FROM history h WHERE h.machine = k.machine)
                 FROM history_keys k WHERE k.machine <> ?1 ORDER BY k.first_seen, k.machine",
            )
            .map_err(err)?;
        let rows = st
            .query_map([&own], |r| Ok((pinned_row(r)?, r.get::<_, i64>(4)?)))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(rows
            .into_iter()
            .filter_map(|(p, n)| Some((p?, n)))
            .collect())
    }

    /// Forget which key `sync_machine` signs with; whether one was pinned.
    pub fn forget_history_pin(&mut self, sync_machine: &str) -> Result<bool, StoreError> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE history_keys SET sync_machine = '' WHERE sync_machine = ?1 AND ?1 <> ''",
                [sync_machine],
            )? > 0)
        })
    }
}

/// A `history_keys` row (machine, sync_machine, public_key, first_seen); `None` for a key
/// that does not parse, which no write of this program stores.
fn pinned_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<Pinned>> {
    let (machine, sync_machine, text, first_seen): (String, String, String, i64) =
        (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
    Ok(PublicKey::from_text(&text).ok().map(|public_key| Pinned {
        machine,
        sync_machine,
        public_key,
        first_seen,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::MachineKey;
    use crate::store::OpenOptions;

    fn chain(key: &MachineKey, n: usize) -> Vec<Entry> {
        crate::history::tests::chain(key, &key.public().fingerprint(), n)
    }

    fn push(machine: &str, key: &MachineKey, entries: Vec<Entry>) -> Push {
        Push {
            machine: machine.into(),
            key: key.public(),
            entries,
        }
    }

    /// Public keys and sync ids are no secret (the hub serves both): neither lets a token lock
    /// another machine out of history sync.
    #[test]
    fn no_token_can_pin_a_key_it_does_not_hold_or_take_another_tokens_machine() {
        let dir = tempfile::tempdir().unwrap();
        let mut hub =
            Store::open_hub(&dir.path().join("team.db"), OpenOptions::INTERACTIVE).unwrap();
        let (victim, attacker) = (
            MachineKey::from_seed(&[1; 32]),
            MachineKey::from_seed(&[2; 32]),
        );
        let entries = chain(&victim, 3);
        assert_eq!(
            hub.history_receive(&push("v", &victim, entries[..2].to_vec()), 1, 5)
                .unwrap(),
            Ok(2)
        );
        // Another token cannot push under the victim's sync machine.
        let taken = hub.history_receive(&push("v", &attacker, chain(&attacker, 1)), 2, 6);
        assert!(
            matches!(taken, Ok(Err(Refusal::OtherToken { .. }))),
            "{taken:?}"
        );
        // Nor move the victim's key to a sync machine of its own, with nothing or with the
        // victim's own entries replayed.
        for replayed in [vec![], entries.clone()] {
            let moved = hub.history_receive(&push("decoy", &victim, replayed), 2, 7);
            assert!(
                matches!(moved, Ok(Err(Refusal::KeyElsewhere { .. }))),
                "{moved:?}"
            );
        }
        // An empty push under a fresh sync machine proves no key: nothing is pinned to it.
        assert_eq!(
            hub.history_receive(&push("fresh", &attacker, vec![]), 3, 8)
                .unwrap(),
            Ok(0)
        );
        let pins = hub.history_pins().unwrap();
        assert_eq!(
            pins.iter()
                .map(|(p, n)| (p.sync_machine.as_str(), *n))
                .collect::<Vec<_>>(),
            [("v", 2)]
        );
        // The victim goes on as before.
        assert_eq!(
            hub.history_receive(&push("v", &victim, entries), 1, 9)
                .unwrap(),
            Ok(1)
        );
    }
}
