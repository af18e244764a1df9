//! Checking a history: the chains, entry by entry, and the store's rows against what their
//! newest entries recorded.

use super::{Entry, GENESIS, PublicKey, REMOVED};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The first entry of a chain that does not hold, and what about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub seq: i64,
    pub machine: String,
    pub at_ms: i64,
    pub action: String,
    pub item: String,
    pub actor: String,
    pub what: BreakKind,
}

/// What an entry fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakKind {
    /// Its sequence number skips some: the entries in between were removed.
    Missing { expected_seq: i64 },
    /// It does not point at the entry before it, or a chain's first entry points at one.
    Linkage,
    /// Its fields do not give its hash: one was changed after it was written.
    Hash,
    /// Its signature is not the machine's key's (the key has this fingerprint).
    Signature { fingerprint: String },
    /// No public key is known for its machine.
    UnknownMachine,
    /// Another, different entry of the same machine has its sequence number.
    Fork,
}

impl Break {
    pub(super) fn at(e: &Entry, what: BreakKind) -> Box<Break> {
        Box::new(Break {
            seq: e.seq,
            machine: e.machine.clone(),
            at_ms: e.at_ms,
            action: e.action.clone(),
            item: e.item.clone(),
            actor: e.actor.clone(),
            what,
        })
    }
}

/// " by <actor>", or nothing for an entry that names none (the store's entries never do).
fn by(actor: &str) -> String {
    if actor.is_empty() {
        String::new()
    } else {
        format!(" by {actor}")
    }
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (seq, machine) = (self.seq, &self.machine);
        write!(
            f,
            "entry {seq} of machine {machine} ({}, {}{}) does not hold: ",
            self.item,
            self.action,
            by(&self.actor)
        )?;
        match &self.what {
            BreakKind::Missing { expected_seq } if *expected_seq == seq.saturating_sub(1) => {
                write!(f, "entry {expected_seq} before it is missing")
            }
            BreakKind::Missing { expected_seq } => {
                write!(
                    f,
                    "entries {expected_seq} to {} before it are missing",
                    seq.saturating_sub(1)
                )
            }
            BreakKind::Linkage if seq < 1 => write!(f, "its sequence number is below 1"),
            BreakKind::Linkage if seq == 1 => write!(
                f,
                "it names an entry before it, and the first entry of a chain has none"
            ),
            BreakKind::Linkage => write!(
                f,
                "the entry before it that it names is not entry {}",
                seq.saturating_sub(1)
            ),
            BreakKind::Hash => write!(
                f,
                "its fields do not give its hash, so one was changed after it was written"
            ),
            BreakKind::Signature { fingerprint } => write!(
                f,
                "its signature is not machine {machine}'s (key {fingerprint})"
            ),
            BreakKind::UnknownMachine => write!(f, "no public key is known for machine {machine}"),
            BreakKind::Fork => write!(f, "another entry of machine {machine} is also entry {seq}"),
        }
    }
}

impl std::error::Error for Break {}

impl Entry {
    /// Check this entry as the one after `prev` (`None`: as its chain's first), signed with
    /// `key`. Sync checks a batch this way against the newest entry it already holds, having
    /// skipped the entries it holds already: one that comes at or before `prev`'s place is
    /// taken for a [`BreakKind::Fork`].
    pub fn check(&self, prev: Option<&Entry>, key: &PublicKey) -> Result<(), BreakKind> {
        let (expected_seq, expected_prev) = match prev {
            None => (Some(1), GENESIS),
            Some(p) => (p.seq.checked_add(1), p.hash),
        };
        match (prev, expected_seq) {
            (_, Some(s)) if self.seq > s => return Err(BreakKind::Missing { expected_seq: s }),
            (_, Some(s)) if self.seq == s => {}
            (Some(_), _) => return Err(BreakKind::Fork),
            (None, _) => return Err(BreakKind::Linkage),
        }
        // The hash before the link: a changed field is the most precise thing to report, and
        // an edited `prev` is one.
        if self.computed_hash() != self.hash {
            return Err(BreakKind::Hash);
        }
        if self.prev != expected_prev || prev.is_some_and(|p| p.machine != self.machine) {
            return Err(BreakKind::Linkage);
        }
        if !key.verifies(&self.hash, &self.signature) {
            return Err(BreakKind::Signature {
                fingerprint: key.fingerprint(),
            });
        }
        Ok(())
    }
}

/// Verify every chain in `entries`, each machine's on its own and in sequence order, whatever
/// order they come in (sync interleaves them); `key_of` gives a machine's pinned public key.
/// The same entry given twice counts once.
///
/// Returns how many entries hold, or the first that does not: where several machines' chains
/// break, the break written earliest.
pub fn verify_chain<'e>(
    entries: impl IntoIterator<Item = &'e Entry>,
    key_of: impl Fn(&str) -> Option<PublicKey>,
) -> Result<usize, Box<Break>> {
    let mut chains: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in entries {
        chains.entry(&e.machine).or_default().push(e);
    }
    let mut held = 0;
    let mut first: Option<Box<Break>> = None;
    for (machine, mut chain) in chains {
        chain.sort_by_key(|e| e.seq);
        match verify_one(&chain, key_of(machine)) {
            Ok(n) => held += n,
            Err(b) => {
                if first.as_ref().is_none_or(|f| b.at_ms < f.at_ms) {
                    first = Some(b);
                }
            }
        }
    }
    first.map_or(Ok(held), Err)
}

/// One machine's chain, in sequence order.
fn verify_one(chain: &[&Entry], key: Option<PublicKey>) -> Result<usize, Box<Break>> {
    let Some(&head) = chain.first() else {
        return Ok(0);
    };
    let key = key.ok_or_else(|| Break::at(head, BreakKind::UnknownMachine))?;
    let mut prev: Option<&Entry> = None;
    let mut held = 0;
    for &e in chain {
        if let Some(p) = prev
            && p.seq == e.seq
        {
            if p == e {
                continue;
            }
            return Err(Break::at(e, BreakKind::Fork));
        }
        e.check(prev, &key).map_err(|what| Break::at(e, what))?;
        prev = Some(e);
        held += 1;
    }
    Ok(held)
}

/// A row of the store that is not as the history last left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch<'e> {
    /// Its content is not what its newest entry recorded: it was edited outside aletheia (or
    /// it came back after its newest entry removed it).
    Changed { newest: &'e Entry },
    /// It is gone, and its newest entry did not remove it.
    Removed { newest: &'e Entry },
    /// No entry speaks of it: it was written outside aletheia.
    Unrecorded { item: &'e str },
}

impl fmt::Display for Mismatch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Changed { newest: e } => write!(
                f,
                "{} was changed outside aletheia: it is not as entry {} of machine {} ({}{}) left it",
                e.item,
                e.seq,
                e.machine,
                e.action,
                by(&e.actor)
            ),
            Mismatch::Removed { newest: e } => write!(
                f,
                "{} was removed outside aletheia: entry {} of machine {} ({}{}) is the last about it",
                e.item,
                e.seq,
                e.machine,
                e.action,
                by(&e.actor)
            ),
            Mismatch::Unrecorded { item } => {
                write!(
                    f,
                    "{item} is in no history entry: it was written outside aletheia"
                )
            }
        }
    }
}

/// The rows whose content is not what the history says.
///
/// `newest` is the newest entry about each item (where two are given for one item, the later
/// given counts). A store whose every write, a pulled one included, appends to its own chain
/// takes the highest `seq` of its own machine per item. `current` is each item's content hash
/// as the store holds it now, computed as the writes compute it. Rows present before the
/// history began need an entry each (a baseline written once) or they all come back as
/// [`Mismatch::Unrecorded`].
///
/// Changed and removed rows come in `newest`'s order, then unrecorded ones by item.
pub fn mismatches<'e>(
    newest: impl IntoIterator<Item = &'e Entry>,
    current: &'e HashMap<String, [u8; 32]>,
) -> Vec<Mismatch<'e>> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut last: Vec<&Entry> = Vec::new();
    for e in newest {
        match at.get(e.item.as_str()) {
            Some(&i) => last[i] = e,
            None => {
                at.insert(&e.item, last.len());
                last.push(e);
            }
        }
    }
    let mut out = Vec::new();
    for e in last {
        match current.get(&e.item) {
            Some(now) if *now != e.content_hash => out.push(Mismatch::Changed { newest: e }),
            None if e.content_hash != REMOVED => out.push(Mismatch::Removed { newest: e }),
            _ => {}
        }
    }
    let mut unrecorded: Vec<&str> = current
        .keys()
        .map(String::as_str)
        .filter(|item| !at.contains_key(item))
        .collect();
    unrecorded.sort_unstable();
    out.extend(
        unrecorded
            .into_iter()
            .map(|item| Mismatch::Unrecorded { item }),
    );
    out
}
