//! How histories travel between machines through a hub, and the check each side makes before
//! it keeps another machine's entries.
//!
//! A machine pushes its own chain with its public key, under its sync machine id ([`Push`]).
//! The hub pins the key to that id the first time it sees it and refuses a push signed with
//! another ([`Refusal::KeyChanged`]) until a person forgets the pin, checks every entry as
//! the next of what it holds ([`admit`]), and keeps them in arrival order. Machines pull the
//! other machines' entries with their keys ([`Page`]) and make the same check before they keep
//! them, so a hub that altered or made up an entry is caught by every machine that pulls it.
//! A machine's name in its entries is its key's fingerprint, so no key can sign entries that
//! pass for another machine's.

use super::{Break, BreakKind, Entry, PublicKey};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// The most entries one push or pull carries.
pub const MAX_ENTRIES: usize = 5000;

/// What a machine sends: entries of its own chain, in any order, and the key they verify with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Push {
    /// The pushing store's sync machine id, which its key is pinned to.
    pub machine: String,
    pub key: PublicKey,
    pub entries: Vec<Entry>,
}

/// What a pull answers: entries the hub took after the cursor, in the order it took them,
/// the key of each machine they come from, the cursor to send next, and how many remain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    pub entries: Vec<Entry>,
    pub keys: Vec<Pinned>,
    pub next: i64,
    pub left: i64,
}

/// A machine's public key as a store pinned it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pinned {
    /// The machine's name in its entries: its key's fingerprint.
    pub machine: String,
    /// The sync machine id the key is pinned to; empty once a person forgot the pin.
    #[serde(default)]
    pub sync_machine: String,
    pub public_key: PublicKey,
    /// When the key was first seen, in milliseconds since the Unix epoch.
    pub first_seen: i64,
}

/// Why entries are not kept. Each is one line that says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// An entry names another machine than the key's: the sender tried to pass entries off as
    /// another machine's.
    NotItsKey {
        machine: String,
        fingerprint: String,
    },
    /// The sync machine's key is not the one pinned for it (each named by its fingerprint).
    KeyChanged {
        sync_machine: String,
        was: String,
        now: String,
    },
    /// The hub's own store signs with the same key as the pusher: they share a data folder.
    SharedKey,
    /// An entry does not hold as the next of its chain.
    Broken(Box<Break>),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotItsKey {
                machine,
                fingerprint,
            } => write!(
                f,
                "the history holds entries of machine {machine}, but was sent with the key of \
                 machine {fingerprint}: a machine sends only its own entries"
            ),
            Refusal::KeyChanged {
                sync_machine,
                was,
                now,
            } => write!(
                f,
                "sync machine {sync_machine} now signs with key {now} but key {was} was pinned \
                 for it: if its machine.key was replaced on purpose, run `aletheia hub keys \
                 --forget {sync_machine}` where the hub's store is; otherwise another \
                 machine is using its sync id"
            ),
            Refusal::SharedKey => write!(
                f,
                "the hub's store signs with this machine's key (its file is in this machine's \
                 data folder): move the hub's file to a folder of its own"
            ),
            Refusal::Broken(b) => write!(f, "{b}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// The pin check, then [`admit`]: what a hub keeps of a [`Push`], given the key pinned for its
/// sync machine and the entries `held` as [`admit`] takes them.
pub fn receive(
    pinned: Option<&PublicKey>,
    held: &[Entry],
    push: &Push,
) -> Result<Vec<Entry>, Refusal> {
    if let super::Pin::Changed { was } = super::pin(pinned, &push.key) {
        return Err(Refusal::KeyChanged {
            sync_machine: push.machine.clone(),
            was: was.fingerprint(),
            now: push.key.fingerprint(),
        });
    }
    admit(held, &push.key, &push.entries)
}

/// Which of `entries` (one machine's chain, signed with `key`) to keep: those not held yet,
/// each checked as the next entry of the chain. `held` is what the store holds of that chain
/// from the entry before the first sent onwards, and its newest entry.
///
/// An entry sent again that the store holds is skipped, and one that differs from what the
/// store holds under its number is a fork. Nothing is kept when any entry fails: a chain
/// cannot be kept past a break, and the entries before it come again with the next push.
pub fn admit(held: &[Entry], key: &PublicKey, entries: &[Entry]) -> Result<Vec<Entry>, Refusal> {
    let fingerprint = key.fingerprint();
    if let Some(e) = entries.iter().find(|e| e.machine != fingerprint) {
        return Err(Refusal::NotItsKey {
            machine: e.machine.clone(),
            fingerprint,
        });
    }
    let by_seq: HashMap<i64, &Entry> = held.iter().map(|e| (e.seq, e)).collect();
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by_key(|e| e.seq);
    let mut prev: Option<&Entry> = held.iter().max_by_key(|e| e.seq);
    let mut taken: Vec<&Entry> = Vec::new();
    for e in sorted {
        if let Some(h) = by_seq.get(&e.seq) {
            if *h != e {
                return Err(Refusal::Broken(Break::at(e, BreakKind::Fork)));
            }
            continue;
        }
        if let Some(p) = prev
            && p.seq == e.seq
        {
            if p == e {
                continue;
            }
            return Err(Refusal::Broken(Break::at(e, BreakKind::Fork)));
        }
        e.check(prev, key)
            .map_err(|what| Refusal::Broken(Break::at(e, what)))?;
        prev = Some(e);
        taken.push(e);
    }
    Ok(taken.into_iter().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Change, MachineKey, append, content_hash};

    fn chain(key: &MachineKey, n: i64) -> Vec<Entry> {
        let machine = key.public().fingerprint();
        let mut out: Vec<Entry> = Vec::new();
        for i in 0..n {
            let item = format!("memory:{i}");
            let change = Change {
                action: "memory.insert",
                item: &item,
                content_hash: content_hash(&[&item]),
                actor: "",
                at_ms: 1000 + i,
            };
            out.push(append(key, &machine, out.last(), &change));
        }
        out
    }

    #[test]
    fn new_entries_are_kept_and_those_held_already_skipped() {
        let key = MachineKey::from_seed(&[7; 32]);
        let all = chain(&key, 5);
        let kept = admit(&all[..2], &key.public(), &all[1..]).unwrap();
        assert_eq!(kept, all[2..].to_vec());
        // Sent again once all are held: nothing new.
        assert!(admit(&all, &key.public(), &all).unwrap().is_empty());
    }

    #[test]
    fn a_gap_an_altered_entry_a_fork_and_a_wrong_signature_are_each_refused_and_named() {
        let key = MachineKey::from_seed(&[7; 32]);
        let all = chain(&key, 4);
        let held = &all[..1];
        let refused = |entries: &[Entry]| match admit(held, &key.public(), entries) {
            Err(Refusal::Broken(b)) => (b.seq, b.what),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            refused(&all[2..]),
            (3, BreakKind::Missing { expected_seq: 2 })
        );
        let mut altered = all[1..].to_vec();
        altered[1].item = "memory:other".into();
        assert_eq!(refused(&altered), (3, BreakKind::Hash));
        let other = MachineKey::from_seed(&[8; 32]);
        let mut forked = chain(&key, 1);
        forked[0].at_ms += 1;
        forked[0].hash = forked[0].computed_hash();
        forked[0].signature = key.sign(&forked[0].hash);
        assert_eq!(refused(&forked), (1, BreakKind::Fork));
        let mut forged = all[1..].to_vec();
        forged[0].signature = other.sign(&forged[0].hash);
        assert!(matches!(refused(&forged), (2, BreakKind::Signature { .. })));
    }

    #[test]
    fn entries_under_another_machines_name_or_a_changed_key_are_refused() {
        let key = MachineKey::from_seed(&[7; 32]);
        let other = MachineKey::from_seed(&[8; 32]);
        let theirs = chain(&other, 1);
        assert!(matches!(
            admit(&[], &key.public(), &theirs),
            Err(Refusal::NotItsKey { .. })
        ));
        let push = Push {
            machine: "m1".into(),
            key: other.public(),
            entries: theirs,
        };
        let refusal = receive(Some(&key.public()), &[], &push).unwrap_err();
        assert!(
            refusal
                .to_string()
                .contains("aletheia hub keys --forget m1"),
            "{refusal}"
        );
        assert_eq!(receive(Some(&other.public()), &[], &push).unwrap().len(), 1);
        assert_eq!(receive(None, &[], &push).unwrap().len(), 1);
    }
}
