//! The store's signed history: every write to a memory, rule, fact or list appends an entry to
//! this machine's hash chain, signed with its key (see [`crate::history`]), in the transaction
//! that made the write; [`Store::verify`] checks the chain and that each item is as its newest
//! entry left it.
//!
//! Triggers (migration v8) note each changed item in `history_pending`, whatever statement
//! changed it, so no write path can forget to. A write then seals the pending rows its own
//! statements added (those past the mark taken when it began) before it commits: an entry for
//! each, with the item's content hash as it now is. A change made behind the tool's back (with
//! `sqlite3`) leaves a pending row nobody seals, or no row at all when the triggers were
//! dropped: either way the item no longer matches its newest entry, which is what `verify`
//! reports. Rows stored before the history began wait as `baseline` rows (those the migration
//! queued, up to `history_baseline.last`), which `verify` seals for items the chain has no entry
//! for yet: a baseline row added later, or one for an item already recorded, is never signed.

use super::{Store, StoreError};
use crate::history::{self, Change, Entry, MachineKey, REMOVED};
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::HashMap;

/// What signs this machine's entries: its key, and the machine name the key gives.
pub struct Signer {
    key: MachineKey,
    machine: String,
}

impl Signer {
    /// The signer of the store whose file is in `dir` (the key beside it, made on first use).
    pub fn load(dir: &std::path::Path) -> Result<Signer, history::KeyError> {
        let key = MachineKey::load_or_create(dir)?;
        let machine = key.public().fingerprint();
        Ok(Signer { key, machine })
    }

    pub fn machine(&self) -> &str {
        &self.machine
    }

    pub fn public(&self) -> history::PublicKey {
        self.key.public()
    }
}

/// The item kinds the history follows, with how each names its items and what its content is.
struct Kind {
    name: &'static str,
    /// Selects (key, actor, content parts...) of every row, or of the row whose key is `?1`
    /// (the actor is empty: see [`row_hash`]).
    rows: &'static str,
    one: &'static str,
}

const KINDS: &[Kind] = &[
    Kind {
        name: "memory",
        rows: "SELECT uid, '', uid, project, kind, type, title, text, tool, ifnull(session_id, ''), files,
                      pinned, dismissed, created_at FROM memories",
        one: "SELECT uid, '', uid, project, kind, type, title, text, tool, ifnull(session_id, ''), files,
                     pinned, dismissed, created_at FROM memories WHERE uid = ?1",
    },
    Kind {
        name: "rule",
        rows: "SELECT id, '', id, when_text, then_text, scope_tier, scope_name, source, enabled,
                      ifnull(recheck, ''), created_at, confirmed_at FROM rules",
        one: "SELECT id, '', id, when_text, then_text, scope_tier, scope_name, source, enabled,
                     ifnull(recheck, ''), created_at, confirmed_at FROM rules WHERE id = ?1",
    },
    Kind {
        name: "fact",
        rows: "SELECT CAST(id AS TEXT), '', id, project, subject, predicate, object, confidence, source,
                      ifnull(memory_id, ''), valid_from, ifnull(valid_to, ''), ifnull(superseded_by, ''),
                      dismissed FROM facts",
        one: "SELECT CAST(id AS TEXT), '', id, project, subject, predicate, object, confidence, source,
                     ifnull(memory_id, ''), valid_from, ifnull(valid_to, ''), ifnull(superseded_by, ''),
                     dismissed FROM facts WHERE id = CAST(?1 AS INTEGER)",
    },
    Kind {
        name: "list",
        rows: "SELECT CAST(memory_id AS TEXT), '', project, name, items FROM work_lists",
        one: "SELECT CAST(memory_id AS TEXT), '', project, name, items FROM work_lists
              WHERE memory_id = CAST(?1 AS INTEGER)",
    },
];

/// A row as the history sees it: its key, its actor, its content hash. Keys are ids and uids
/// and the actor is left empty, never text a person or client wrote: an entry is never
/// rewritten (that would break its signature), so a scrub with new redaction rules could not
/// take a secret out of one. Who wrote is the signing machine; which host or client, the row
/// itself says, and its content hash covers that.
fn row_hash(r: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, [u8; 32])> {
    let key: String = r.get(0)?;
    let actor: String = r.get(1)?;
    let n = r.as_ref().column_count();
    let mut parts = Vec::with_capacity(n - 2);
    for i in 2..n {
        parts.push(match r.get_ref(i)? {
            rusqlite::types::ValueRef::Null => String::new(),
            rusqlite::types::ValueRef::Integer(v) => v.to_string(),
            rusqlite::types::ValueRef::Real(v) => v.to_string(),
            rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                String::from_utf8_lossy(t).into_owned()
            }
        });
    }
    let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
    Ok((key, actor, history::content_hash(&refs)))
}

fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The highest pending row now: a write seals only what comes after it.
pub(super) fn mark(tx: &Transaction<'_>) -> rusqlite::Result<i64> {
    tx.prepare_cached("SELECT ifnull(max(id), 0) FROM history_pending")?
        .query_row([], |r| r.get(0))
}

/// This machine's newest entry.
fn newest(tx: &Transaction<'_>, machine: &str) -> rusqlite::Result<Option<Entry>> {
    tx.prepare_cached(&format!(
        "SELECT {ENTRY_COLUMNS} FROM history WHERE machine = ?1 ORDER BY seq DESC LIMIT 1"
    ))?
    .query_row([machine], entry)
    .optional()
}

pub(super) const ENTRY_COLUMNS: &str =
    "seq, machine, at, action, item, actor, content_hash, prev, hash, signature";

pub(super) fn entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    let bad = |i: usize| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            "not lowercase hex of the right length".into(),
        )
    };
    let hex32 = |i: usize| -> rusqlite::Result<[u8; 32]> {
        history::from_hex::<32>(&r.get::<_, String>(i)?).ok_or_else(|| bad(i))
    };
    Ok(Entry {
        seq: r.get(0)?,
        machine: r.get(1)?,
        at_ms: r.get(2)?,
        action: r.get(3)?,
        item: r.get(4)?,
        actor: r.get(5)?,
        content_hash: hex32(6)?,
        prev: hex32(7)?,
        hash: hex32(8)?,
        signature: history::from_hex::<64>(&r.get::<_, String>(9)?).ok_or_else(|| bad(9))?,
    })
}

/// Keep entry `e`, with the number a hub took it under (`None` for a store's own entries, and
/// a machine's pulled ones).
pub(super) fn insert(
    tx: &Transaction<'_>,
    e: &Entry,
    arrival: Option<i64>,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO history (seq, machine, at, action, item, actor, content_hash, prev, hash, signature, arrival)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        e.seq,
        e.machine,
        e.at_ms,
        e.action,
        e.item,
        e.actor,
        history::to_hex(&e.content_hash),
        history::to_hex(&e.prev),
        history::to_hex(&e.hash),
        history::to_hex(&e.signature),
        arrival
    ])?;
    Ok(())
}

/// Seal the pending rows past `after` (or, with `baseline`, the rows stored before the history
/// began): one signed entry each, in order. Without a signer they stay pending, and `verify`
/// says so. How many were sealed.
pub(super) fn seal(
    tx: &Transaction<'_>,
    signer: Option<&Signer>,
    after: i64,
    baseline: bool,
    now: i64,
) -> rusqlite::Result<usize> {
    let Some(signer) = signer else {
        return Ok(0);
    };
    // A write seals what its statements queued; `verify` seals the rows the migration queued
    // for items the chain does not know yet.
    let pending: Vec<(i64, String, String, String)> = {
        let mut st = tx.prepare_cached(
            "SELECT p.id, p.item_type, p.item_key, p.op FROM history_pending p
             WHERE p.id > ?1 AND (p.op = 'baseline') = ?2
               AND (NOT ?2 OR (p.id <= (SELECT last FROM history_baseline)
                    AND NOT EXISTS (SELECT 1 FROM history h
                                    WHERE h.machine = ?3 AND h.item = p.item_type || ':' || p.item_key)))
             ORDER BY p.id",
        )?;
        st.query_map(params![after, baseline, signer.machine], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?
    };
    if pending.is_empty() {
        return Ok(0);
    }
    let mut prev = newest(tx, &signer.machine)?;
    if prev.is_none() {
        // A chain's first entry keeps its key beside the others': were the key file replaced,
        // `verify` still checks this chain with it.
        tx.prepare_cached(
            "INSERT OR IGNORE INTO history_keys (machine, public_key, first_seen) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![signer.machine, signer.key.public().to_text(), now])?;
    }
    for (id, item_type, key, op) in &pending {
        let Some(k) = kind(item_type) else { continue };
        let row = tx
            .prepare_cached(k.one)?
            .query_row([key], row_hash)
            .optional()?;
        let (actor, content) = match row {
            Some((_, actor, hash)) => (actor, hash),
            None => (String::new(), REMOVED),
        };
        let item = format!("{item_type}:{key}");
        let action = format!("{item_type}.{op}");
        let change = Change {
            action: &action,
            item: &item,
            content_hash: content,
            actor: &actor,
            at_ms: now,
        };
        let e = history::append(&signer.key, &signer.machine, prev.as_ref(), &change);
        insert(tx, &e, None)?;
        tx.prepare_cached("DELETE FROM history_pending WHERE id = ?1")?
            .execute([id])?;
        prev = Some(e);
    }
    Ok(pending.len())
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verified {
    /// This machine's name (its key's fingerprint).
    pub machine: String,
    /// Entries whose chain and signatures were checked.
    pub entries: usize,
    /// Rows stored before the history began, recorded by this check.
    pub baseline: usize,
    /// Changes no write signed: made while the machine key could not be read, or outside
    /// aletheia.
    pub unsigned: usize,
    /// The first entry that does not hold, and what it covers, in one line.
    pub broken: Option<String>,
    /// Items not as their newest entry left them (changed, removed, or never recorded), one
    /// line each, at most [`MISMATCHES_SHOWN`].
    pub mismatches: Vec<String>,
    /// How many items mismatch in all.
    pub mismatched: usize,
}

/// The most mismatching items `verify` names.
pub const MISMATCHES_SHOWN: usize = 50;

impl Store {
    /// Check the history: record the rows stored before it began (see the module doc), verify
    /// every chain and signature, and compare each item with its newest entry.
    pub fn verify(&mut self) -> Result<Verified, StoreError> {
        let dir = self
            .path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        let signer = Signer::load(&dir).map_err(|e| StoreError::History(e.to_string()))?;
        let path = self.path.clone();
        let err = |e| StoreError::sqlite(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        // This machine's key beside the others', were it missing (a chain begun before keys
        // were kept): a replaced key file must not leave its old chain unchecked.
        tx.execute(
            "INSERT OR IGNORE INTO history_keys (machine, public_key, first_seen) VALUES (?1, ?2, ?3)",
            rusqlite::params![
                signer.machine,
                signer.key.public().to_text(),
                crate::time::now_ms()
            ],
        )
        .map_err(err)?;
        let baseline = seal(&tx, Some(&signer), 0, true, crate::time::now_ms()).map_err(err)?;
        // Changes no write signed: made while the key could not be read, or outside aletheia
        // with its triggers in place. Each also shows below as an item not as left.
        let unsigned: usize = tx
            .query_row(
                "SELECT count(*) FROM history_pending WHERE op <> 'baseline'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(err)?
            .try_into()
            .unwrap_or(0);
        let entries: Vec<Entry> = {
            let mut st = tx
                .prepare(&format!(
                    "SELECT {ENTRY_COLUMNS} FROM history ORDER BY machine, seq"
                ))
                .map_err(err)?;
            st.query_map([], entry)
                .map_err(err)?
                .collect::<Result<_, _>>()
                .map_err(err)?
        };
        let keys: HashMap<String, history::PublicKey> = {
            let mut st = tx
                .prepare("SELECT machine, public_key FROM history_keys")
                .map_err(err)?;
            let rows: Vec<(String, String)> = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(err)?
                .collect::<Result<_, _>>()
                .map_err(err)?;
            let mut keys: HashMap<String, history::PublicKey> = rows
                .into_iter()
                .filter_map(|(m, k)| Some((m, history::PublicKey::from_text(&k).ok()?)))
                .collect();
            keys.insert(signer.machine.clone(), signer.key.public());
            keys
        };
        let broken = history::verify_chain(&entries, |m| keys.get(m).copied())
            .err()
            .map(|b| b.to_string());
        let mut current: HashMap<String, [u8; 32]> = HashMap::new();
        for k in KINDS {
            let mut st = tx.prepare(k.rows).map_err(err)?;
            let rows = st.query_map([], row_hash).map_err(err)?;
            for row in rows {
                let (key, _, hash) = row.map_err(err)?;
                current.insert(format!("{}:{key}", k.name), hash);
            }
        }
        // Each item's newest entry: this machine's own chain records every write here, pulled
        // ones included, so its highest seq per item is the last word.
        let own: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.machine == signer.machine)
            .collect();
        let found = history::mismatches(own, &current);
        let mismatched = found.len();
        let mismatches = found
            .iter()
            .take(MISMATCHES_SHOWN)
            .map(ToString::to_string)
            .collect();
        tx.commit().map_err(err)?;
        Ok(Verified {
            machine: signer.machine,
            entries: entries.len(),
            baseline,
            unsigned,
            broken,
            mismatches,
            mismatched,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Kind, MemoryType, NewMemory};
    use crate::redact::{Redacted, Redactor};
    use crate::store::{OpenOptions, Store};

    fn note(text: &str) -> Redacted<NewMemory> {
        let m = NewMemory {
            project: "shop".into(),
            kind: Kind::Note,
            mtype: MemoryType::Note,
            title: text.into(),
            text: text.into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: 1,
        };
        Redacted::new(m, &Redactor::builtin())
    }

    #[test]
    fn rows_from_before_the_history_are_recorded_once_even_after_writes_began_the_chain() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        s.insert(&note("old one")).unwrap();
        // As a store migrated with a row already in it: no entry yet, the row queued as
        // baseline by the migration.
        s.conn
            .execute_batch(
                "DELETE FROM history; DELETE FROM history_pending;
                 INSERT INTO history_pending (item_type, item_key, op)
                 SELECT 'memory', uid, 'baseline' FROM memories;
                 UPDATE history_baseline SET last = (SELECT max(id) FROM history_pending);",
            )
            .unwrap();
        // A hook writes before anyone verifies: the chain begins with its own entry.
        s.insert(&note("new one")).unwrap();
        let first = s.verify().unwrap();
        assert_eq!(
            (
                first.baseline,
                first.mismatched,
                first.unsigned,
                first.broken.clone()
            ),
            (1, 0, 0, None)
        );
        let again = s.verify().unwrap();
        assert_eq!((again.baseline, again.entries), (0, 2));
        // Once the chain has begun, a "baseline" row someone adds is never signed: the change
        // it hides is reported.
        s.conn
            .execute_batch(
                "UPDATE memories SET text = 'changed' WHERE text = 'old one';
                 DELETE FROM history_pending;
                 INSERT INTO history_pending (item_type, item_key, op)
                 SELECT 'memory', uid, 'baseline' FROM memories;
                 UPDATE history_baseline SET last = (SELECT max(id) FROM history_pending);",
            )
            .unwrap();
        let forged = s.verify().unwrap();
        // Even counted as the migration's own, a baseline row for an item already recorded is
        // not signed.
        assert_eq!((forged.baseline, forged.mismatched), (0, 1));
        assert!(
            forged.mismatches[0].contains("was changed outside aletheia"),
            "{forged:?}"
        );
    }

    #[test]
    fn each_write_signs_what_it_changed_in_the_same_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let id = s.insert(&note("a")).unwrap().id;
        s.set_pinned(id, true).unwrap();
        let actions: Vec<String> = s
            .conn
            .prepare("SELECT action FROM history ORDER BY seq")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(actions, vec!["memory.insert", "memory.update"]);
        let pending: i64 = s
            .conn
            .query_row("SELECT count(*) FROM history_pending", [], |r| r.get(0))
            .unwrap();
        assert_eq!(pending, 0);
        assert_eq!(s.verify().unwrap().mismatched, 0);
    }
}
