//! The signed history: a tamper-evident record of every write to the store.
//!
//! The store's rows say what holds now, and nothing in a row says whether aletheia wrote it or
//! someone edited it since with `sqlite3`. So each write (a memory saved, edited, dismissed or
//! restored, a rule, a list, a fact, a review accepted) also appends an [`Entry`] to this
//! machine's chain. An entry's hash covers the change (what was done to which item, by whom,
//! when, and the item's content hash after it) and the hash of the entry before it, and the
//! machine's ed25519 key signs that hash. Editing, removing or reordering an entry breaks the
//! chain there ([`verify_chain`] names the entry and what no longer holds); editing a row
//! without the tool leaves its content hash different from the one its newest entry recorded
//! ([`mismatches`]). Entries are meant to travel with sync to a hub and to other machines, which
//! check them with the writer's public key, pinned the first time it is seen ([`pin`]; what
//! travels and the checks on each side are [`sync`]'s).
//!
//! What the chain cannot show by itself: a chain whose newest entries were cut off looks like a
//! shorter chain. The content check catches the cut when those entries were the last word about
//! an item, and a hub or another machine holding a copy catches it on the next sync. Nor does
//! a signature say the change was right, only that this machine's aletheia wrote it: whoever
//! holds the key file can write a whole new history.
//!
//! The hook appends one entry per row its event changed inside a budget of a few milliseconds,
//! so appending is one SHA-256 and one signature, and loading the key is reading one small
//! file. The store's side is [`crate::store::history`]. Nothing here
//! touches the store: it keeps an [`Entry`] as plain columns (the numbers and texts as they
//! are, the hashes and the signature as [`to_hex`] text) and hands them back to be verified.

mod key;
pub mod sync;
mod verify;

#[cfg(test)]
pub(crate) mod tests;

pub use key::{BadPublicKey, KEY_FILE, KeyError, MachineKey, Pin, PublicKey, pin};
pub use verify::{Break, BreakKind, Mismatch, mismatches, verify_chain};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What every entry hash starts with, so that no other SHA-256 this program or another takes
/// (a content hash, a token's) can be passed off as an entry's.
const DOMAIN: &[u8] = b"aletheia-history-v1";

/// The previous-entry hash of a chain's first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// The content hash a change records when it removed its item. [`content_hash`] never gives
/// it: that would take an input whose SHA-256 is all zeros.
pub const REMOVED: [u8; 32] = [0; 32];

/// One write, as the store describes it to the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change<'a> {
    /// What was done, as `<item type>.<verb>`: the store writes `memory.insert`,
    /// `memory.update`, `memory.delete`, `rule.…`, `fact.…`, `list.…` and `….baseline` for rows
    /// from before the history. Text rather than a closed set: the vocabulary may grow, and an
    /// entry from a machine running a newer version still verifies here.
    pub action: &'a str,
    /// Which item, as `<type>:<id>`: `memory:42`, or better the item's stable uid, the same on
    /// every machine it syncs to.
    pub item: &'a str,
    /// [`content_hash`] of the item's canonical content after the change, or [`REMOVED`].
    pub content_hash: [u8; 32],
    /// Who asked. The store leaves it empty: entries are never rewritten, so they hold no text a
    /// host or client chose (a scrub could not reach it); the row itself names its host.
    pub actor: &'a str,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
}

/// One link of a machine's chain: a [`Change`], where it stands in the chain, and the proof.
///
/// In JSON (what sync carries) the hashes and the signature are lowercase hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Its place in its machine's chain, from 1 with no gaps.
    pub seq: i64,
    /// The machine whose chain it is and whose key signed it.
    pub machine: String,
    pub at_ms: i64,
    pub action: String,
    pub item: String,
    pub actor: String,
    #[serde(with = "hex_array")]
    pub content_hash: [u8; 32],
    /// The hash of the entry before it, [`GENESIS`] for the first.
    #[serde(with = "hex_array")]
    pub prev: [u8; 32],
    /// SHA-256 of the tag `aletheia-history-v1` and every field above, each length-prefixed.
    #[serde(with = "hex_array")]
    pub hash: [u8; 32],
    /// The machine key's ed25519 signature of `hash`.
    #[serde(with = "hex_array")]
    pub signature: [u8; 64],
}

/// The entry that records `change` after `prev`, the newest entry of `machine`'s chain (`None`
/// for the chain's first), signed with `key`.
pub fn append(key: &MachineKey, machine: &str, prev: Option<&Entry>, change: &Change<'_>) -> Entry {
    debug_assert!(
        prev.is_none_or(|p| p.machine == machine),
        "a chain holds one machine's entries"
    );
    // Saturating rather than panicking in the hook: a chain that reached i64::MAX (only a
    // tampered store can hold one) then fails to verify at this entry, which is the report.
    let (seq, prev) = prev.map_or((1, GENESIS), |p| (p.seq.saturating_add(1), p.hash));
    let mut entry = Entry {
        seq,
        machine: machine.to_owned(),
        at_ms: change.at_ms,
        action: change.action.to_owned(),
        item: change.item.to_owned(),
        actor: change.actor.to_owned(),
        content_hash: change.content_hash,
        prev,
        hash: GENESIS,
        signature: [0; 64],
    };
    entry.hash = entry.computed_hash();
    entry.signature = key.sign(&entry.hash);
    entry
}

impl Entry {
    /// The hash its fields give, to compare with the one it carries.
    fn computed_hash(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(DOMAIN);
        for field in [
            &self.seq.to_be_bytes()[..],
            self.machine.as_bytes(),
            &self.at_ms.to_be_bytes(),
            self.action.as_bytes(),
            self.item.as_bytes(),
            self.actor.as_bytes(),
            &self.content_hash,
            &self.prev,
        ] {
            put(&mut h, field);
        }
        h.finalize().into()
    }
}

/// SHA-256 of an item's canonical content, given as its parts in a fixed order (a memory's
/// title, text, kind…). Each part is length-prefixed, so moving text from one part to the
/// next changes the hash: `["ab", "c"]` and `["a", "bc"]` differ.
pub fn content_hash(parts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in parts {
        put(&mut h, part.as_bytes());
    }
    h.finalize().into()
}

/// Feed `bytes` to `h` after its length, which makes a sequence of fields decode one way only.
fn put(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// Lowercase hex, the form the store's columns and sync's JSON keep hashes and signatures in.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// The `N` bytes that `text` spells in [`to_hex`]'s form; `None` for any other text, uppercase
/// included, so that each value has one spelling a column can be compared on.
pub fn from_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    if text.len() != N * 2 {
        return None;
    }
    let mut out = [0; N];
    for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// Serde for byte arrays as [`to_hex`] text.
mod hex_array {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer, const N: usize>(
        bytes: &[u8; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::to_hex(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u8; N], D::Error> {
        let text = String::deserialize(d)?;
        super::from_hex(&text)
            .ok_or_else(|| D::Error::custom(format!("expected {} lowercase hex digits", N * 2)))
    }
}
