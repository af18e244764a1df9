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
    /// The key is pinned to another sync machine.
    KeyElsewhere {
        fingerprint: String,
        sync_machine: String,
    },
    /// Another key, with the same fingerprint, is already known under this key's name.
    NameTaken { fingerprint: String },
    /// The sync machine belongs to another token (the first that pushed with it).
    OtherToken { sync_machine: String },
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
            Refusal::KeyElsewhere {
                fingerprint,
                sync_machine,
            } => write!(
                f,
                "key {fingerprint} is pinned to sync machine {sync_machine}: if this store's \
                 sync id changed, run `aletheia hub keys --forget {sync_machine}` where the \
                 hub's store is"
            ),
            Refusal::NameTaken { fingerprint } => write!(
                f,
                "another key with fingerprint {fingerprint} is known to the hub: this key's \
                 entries cannot be told from that machine's, so the hub keeps none of them"
            ),
            Refusal::OtherToken { sync_machine } => write!(
                f,
                "sync machine {sync_machine} belongs to another token: each machine syncs \
                 with the token it first synced with"
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

/// What a store holds that decides a [`Push`]: the key pinned to its sync machine, the key
/// known under its key's fingerprint (with the sync machine that key is pinned to, empty once
/// forgotten), and its chain's entries as [`admit`] takes them.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    pub pinned: Option<&'a PublicKey>,
    pub named: Option<(&'a PublicKey, &'a str)>,
    pub held: &'a [Entry],
}

/// What a hub keeps of a [`Push`], and whether to pin its key to its sync machine.
///
/// A key is pinned on first sight only once an entry it signed is kept, which proves the
/// pusher holds it: a key anyone can read (the hub serves them) cannot be pinned to a sync
/// machine by someone else to lock its owner out. A key stays pinned to one sync machine.
pub fn receive(known: Known<'_>, push: &Push) -> Result<(Vec<Entry>, bool), Refusal> {
    let fingerprint = push.key.fingerprint();
    if let super::Pin::Changed { was } = super::pin(known.pinned, &push.key) {
        return Err(Refusal::KeyChanged {
            sync_machine: push.machine.clone(),
            was: was.fingerprint(),
            now: fingerprint,
        });
    }
    if let Some((key, sync_machine)) = known.named {
        if *key != push.key {
            return Err(Refusal::NameTaken { fingerprint });
        }
        if !sync_machine.is_empty() && sync_machine != push.machine {
            return Err(Refusal::KeyElsewhere {
                fingerprint,
                sync_machine: sync_machine.to_owned(),
            });
        }
    }
    let taken = admit(known.held, &push.key, &push.entries)?;
    let pin = known.pinned.is_none() && !taken.is_empty();
    Ok((taken, pin))
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
    use crate::history::MachineKey;

    fn chain(key: &MachineKey, n: usize) -> Vec<Entry> {
        super::super::tests::chain(key, &key.public().fingerprint(), n)
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
            entries: theirs.clone(),
        };
        let (kp, op) = (key.public(), other.public());
        let known = |pinned, named| Known {
            pinned,
            named,
            held: &[],
        };
        let refusal = receive(known(Some(&kp), None), &push).unwrap_err();
        assert!(
            refusal
                .to_string()
                .contains("aletheia hub keys --forget m1"),
            "{refusal}"
        );
        let (kept, pin) = receive(known(Some(&op), None), &push).unwrap();
        assert_eq!((kept.len(), pin), (1, false), "pinned already");
        // First sight: kept, and pinned since an entry proved the key.
        assert_eq!(receive(known(None, None), &push).unwrap(), (theirs, true));
        // Nothing new proves nothing: the key is not pinned.
        let empty = Push {
            entries: vec![],
            ..push.clone()
        };
        assert_eq!(receive(known(None, None), &empty).unwrap(), (vec![], false));
        // A key pinned to another sync machine stays there.
        let elsewhere = receive(known(None, Some((&op, "m0"))), &push);
        assert!(
            matches!(elsewhere, Err(Refusal::KeyElsewhere { .. })),
            "{elsewhere:?}"
        );
        // Another key under this key's name is refused.
        assert!(matches!(
            receive(known(None, Some((&kp, ""))), &push),
            Err(Refusal::NameTaken { .. })
        ));
    }
}
