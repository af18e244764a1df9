//! This machine's signing key, its file, and the public keys of the machines whose entries we
//! check.
//!
//! The key file is text: a header line, then the 32-byte ed25519 seed in base64.
//!
//! ```text
//! aletheia-machine-key-v1 ed25519
//! ZcZzn49DKnereQFaXAUv+iTgoLiKpTDS3KibdqB54Bk=
//! ```
//!
//! Text rather than the raw 32 bytes: the header says what the file is to whoever finds it,
//! the key can be backed up or moved through a terminal, and a later format (a key wrapped by a
//! passphrase) can be told apart by its header. The parse is strict, so a damaged file is
//! refused rather than its first 32 bytes taken for a key, which would make every entry after
//! it fail elsewhere as signed by a changed key.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest as _, Sha256};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The key file's name in the data directory.
pub const KEY_FILE: &str = "machine.key";

const HEADER: &str = "aletheia-machine-key-v1 ed25519";

/// How a public key is written: this, then the base64 of its 32 bytes.
const TEXT_PREFIX: &str = "ed25519:";

/// The most of a key file read: a real one is 77 bytes.
const MAX_FILE: u64 = 4096;

/// This machine's ed25519 signing key.
pub struct MachineKey {
    signing: SigningKey,
}

/// Why the machine key cannot be had. Each message is one line that says what to do.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot read the machine key {}: {error}", path.display())]
    Read { path: PathBuf, error: io::Error },
    #[error("cannot create the machine key {}: {error}", path.display())]
    Create { path: PathBuf, error: io::Error },
    /// Group or other users have some access to the file: a key others could copy proves
    /// nothing about who wrote an entry.
    #[error(
        "the machine key {} is open to other users (mode {mode:03o}): run `chmod 600 {}`",
        path.display(),
        path.display()
    )]
    Exposed { path: PathBuf, mode: u32 },
    #[error(
        "{} is not an aletheia machine key ({why}): restore it from a backup, or move it away \
         to have a new key made, which the hub and other machines will report as changed",
        path.display()
    )]
    Malformed { path: PathBuf, why: &'static str },
}

impl MachineKey {
    /// The key in `<data_dir>/machine.key`, made on first use.
    ///
    /// Hooks racing to make it end with one key they all use: each writes its own temporary
    /// file and links it to the final name, which fails when another got there first (a rename
    /// would replace the winner's key after the winner had signed with it), and the loser then
    /// reads the winner's file, complete since it was synced before it was linked.
    pub fn load_or_create(data_dir: &Path) -> Result<MachineKey, KeyError> {
        let path = data_dir.join(KEY_FILE);
        match load(&path)? {
            Some(key) => Ok(key),
            None => create(data_dir, &path),
        }
    }

    /// The key in `<data_dir>/machine.key`, or `None` when there is none yet (`aletheia
    /// doctor` reads it without making one).
    pub fn load(data_dir: &Path) -> Result<Option<MachineKey>, KeyError> {
        load(&data_dir.join(KEY_FILE))
    }

    /// The public half, which other machines check this machine's entries with.
    pub fn public(&self) -> PublicKey {
        PublicKey(self.signing.verifying_key())
    }

    pub(crate) fn from_seed(seed: &[u8; 32]) -> MachineKey {
        MachineKey {
            signing: SigningKey::from_bytes(seed),
        }
    }

    pub(super) fn sign(&self, hash: &[u8; 32]) -> [u8; 64] {
        self.signing.sign(hash).to_bytes()
    }
}

impl fmt::Debug for MachineKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MachineKey").field(&self.public()).finish()
    }
}

/// The key at `path`, or `None` when there is no file.
fn load(path: &Path) -> Result<Option<MachineKey>, KeyError> {
    let read_error = |error| KeyError::Read {
        path: path.to_owned(),
        error,
    };
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_error(e)),
    };
    // The mode of the file opened, not of whatever the path names a moment later.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = file.metadata().map_err(read_error)?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(KeyError::Exposed {
                path: path.to_owned(),
                mode,
            });
        }
    }
    let mut text = Vec::new();
    (&mut file)
        .take(MAX_FILE)
        .read_to_end(&mut text)
        .map_err(read_error)?;
    let seed = parse_file(&text).map_err(|why| KeyError::Malformed {
        path: path.to_owned(),
        why,
    })?;
    Ok(Some(MachineKey::from_seed(&seed)))
}

fn parse_file(text: &[u8]) -> Result<[u8; 32], &'static str> {
    let text = std::str::from_utf8(text).map_err(|_| "it is not text")?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err("its first line is not the header");
    }
    let seed = lines.next().ok_or("it holds no key")?;
    if lines.any(|l| !l.trim().is_empty()) {
        return Err("it goes on after the key");
    }
    let bytes = STANDARD
        .decode(seed.trim())
        .map_err(|_| "the key is not base64")?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| "the key is not 32 bytes")
}

fn create(dir: &Path, path: &Path) -> Result<MachineKey, KeyError> {
    let create_error = |error| KeyError::Create {
        path: path.to_owned(),
        error,
    };
    fs::create_dir_all(dir).map_err(create_error)?;
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| create_error(io::Error::other(e)))?;
    let tag = getrandom::u64().map_err(|e| create_error(io::Error::other(e)))?;
    let tmp = dir.join(format!(".{KEY_FILE}.{tag:016x}.tmp"));
    let text = format!("{HEADER}\n{}\n", STANDARD.encode(seed));
    write_private(&tmp, text.as_bytes()).map_err(create_error)?;
    let linked = fs::hard_link(&tmp, path);
    // The key lives on under its final name (or the winner's does); a temporary file left by
    // a failed removal is harmless and never read.
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_dir(dir).map_err(create_error)?;
            Ok(MachineKey::from_seed(&seed))
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => load(path)?.ok_or_else(|| {
            create_error(io::Error::other(
                "another process made it and it was gone when read",
            ))
        }),
        Err(e) => Err(create_error(e)),
    }
}

/// Write a new file only its owner can read, synced before it is linked into place.
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written
}

/// Make the new name survive a crash, as the file's contents already do.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// A machine's public key, which its entries' signatures are checked with.
///
/// As text (in the store's pins and in sync): `ed25519:` and the base64 of its 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey(VerifyingKey);

/// Text that is not a public key in [`PublicKey::to_text`]'s form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an ed25519 public key (`ed25519:` and the base64 of 32 bytes): {why}")]
pub struct BadPublicKey {
    why: &'static str,
}

impl PublicKey {
    pub fn to_text(&self) -> String {
        format!("{TEXT_PREFIX}{}", STANDARD.encode(self.0.as_bytes()))
    }

    pub fn from_text(text: &str) -> Result<PublicKey, BadPublicKey> {
        let bad = |why| BadPublicKey { why };
        let b64 = text
            .strip_prefix(TEXT_PREFIX)
            .ok_or(bad("it does not start with `ed25519:`"))?;
        let bytes = STANDARD.decode(b64).map_err(|_| bad("it is not base64"))?;
        let bytes =
            <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| bad("it is not 32 bytes"))?;
        VerifyingKey::from_bytes(&bytes)
            .map(PublicKey)
            .map_err(|_| bad("it is not a point of the curve"))
    }

    /// A short name for the key, for messages and for a person to compare: the first 8 bytes
    /// of the SHA-256 of the key, in hex.
    pub fn fingerprint(&self) -> String {
        super::to_hex(&Sha256::digest(self.0.as_bytes())[..8])
    }

    /// Whether `signature` is this key's signature of `hash`. Strict: a signature altered into
    /// another valid one for the same hash, or one made with a weak key, is refused.
    pub(super) fn verifies(&self, hash: &[u8; 32], signature: &[u8; 64]) -> bool {
        self.0
            .verify_strict(hash, &Signature::from_bytes(signature))
            .is_ok()
    }
}

impl fmt::Display for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.to_text())
    }
}

impl FromStr for PublicKey {
    type Err = BadPublicKey;

    fn from_str(s: &str) -> Result<PublicKey, BadPublicKey> {
        PublicKey::from_text(s)
    }
}

impl Serialize for PublicKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_text())
    }
}

impl<'de> Deserialize<'de> for PublicKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PublicKey, D::Error> {
        let text = String::deserialize(d)?;
        PublicKey::from_text(&text).map_err(serde::de::Error::custom)
    }
}

/// What a public key seen for a machine says against the one pinned for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pin {
    /// No key was pinned for the machine: pin this one.
    New,
    /// The pinned key.
    Same,
    /// Another key than the pinned one: the machine's key file was replaced, or someone else
    /// speaks for the machine. Its entries do not verify until a person accepts the new key.
    Changed { was: PublicKey },
}

/// Compare the key `seen` for a machine with the one `known` (pinned on first sight).
pub fn pin(known: Option<&PublicKey>, seen: &PublicKey) -> Pin {
    match known {
        None => Pin::New,
        Some(k) if k == seen => Pin::Same,
        Some(k) => Pin::Changed { was: *k },
    }
}
