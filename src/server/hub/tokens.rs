//! Hub tokens: made here and shown once, stored only as a hash, checked in constant time.
//!
//! A token reads `alh_<id>_<secret>`: the id finds its row without comparing against every
//! stored hash, and the secret (32 random bytes as hex) is what proves it. The store keeps
//! SHA-256 of the secret; a secret of 256 random bits needs no slow hash, since there is no
//! dictionary to try. The id is not a secret.

use crate::ops::Caller;
use crate::redact::{Redacted, Redactor};
use crate::store::hub::{NewToken, Token};
use crate::store::{HubTokens, StoreError};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const PREFIX: &str = "alh_";

/// What a token may do, exactly as the hub documents it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The read tools, for an MCP client (the same rights as `read`, as the seed names them).
    Mcp,
    /// The read tools.
    Read,
    /// Every tool.
    Sync,
    /// Every tool, and managing tokens and reading the audit over the admin API.
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Mcp, Scope::Read, Scope::Sync, Scope::Admin];

    pub fn parse(s: &str) -> Result<Scope, String> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == s)
            .ok_or_else(|| format!("unknown scope \"{s}\": use mcp, read, sync or admin"))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Mcp => "mcp",
            Scope::Read => "read",
            Scope::Sync => "sync",
            Scope::Admin => "admin",
        }
    }

    /// Whether it may call write tools.
    pub fn can_write(self) -> bool {
        matches!(self, Scope::Sync | Scope::Admin)
    }
}

/// Why a presented token lets nothing through. The messages never repeat the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "send a hub token as `Authorization: Bearer <token>` (aletheia mcp-link create makes one)"
    )]
    Missing,
    #[error(
        "this is not a hub token, or not this hub's: aletheia mcp-link list shows the tokens it knows"
    )]
    Unknown,
    #[error("this token was revoked: ask the hub's admin for a new one")]
    Revoked,
    #[error("this token has expired: ask the hub's admin for a new one")]
    Expired,
    #[error("the hub's store cannot be read: {0}")]
    Store(String),
}

fn hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new token's secret: 32 bytes from the operating system, as hex.
fn new_secret() -> String {
    let mut buf = [0u8; 32];
    getrandom::fill(&mut buf).expect("the operating system's random source");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// What `mint` is asked to make.
#[derive(Debug, Clone)]
pub struct Request {
    pub label: String,
    pub scope: Scope,
    pub projects: Option<Vec<String>>,
    pub expires_at: Option<i64>,
    /// The admin token asking, over the API.
    pub created_by: Option<i64>,
}

/// Store a new token and return it, whole, for the one time it is shown.
pub fn mint(
    store: &mut dyn HubTokens,
    req: Request,
    now: i64,
    r: &Redactor,
) -> Result<(i64, String), StoreError> {
    let secret = new_secret();
    let t = NewToken {
        hash: hash(&secret),
        label: req.label,
        scope: req.scope.as_str().to_owned(),
        projects: req.projects,
        created_at: now,
        expires_at: req.expires_at,
        created_by: req.created_by,
    };
    let id = store.create_token(&Redacted::new(t, r))?;
    Ok((id, format!("{PREFIX}{id}_{secret}")))
}

/// The live token an `Authorization` header's value names.
pub fn verify(store: &dyn HubTokens, header: Option<&str>, now: i64) -> Result<Token, Refused> {
    let raw = crate::server::guard::bearer(header).ok_or(Refused::Missing)?;
    let (id, secret) = raw
        .as_str()
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.split_once('_'))
        .and_then(|(id, secret)| Some((id.parse::<i64>().ok()?, secret)))
        .ok_or(Refused::Unknown)?;
    let token = store
        .token(id)
        .map_err(|e| Refused::Store(e.to_string()))?
        .ok_or(Refused::Unknown)?;
    if !bool::from(hash(secret).as_bytes().ct_eq(token.hash.as_bytes())) {
        return Err(Refused::Unknown);
    }
    if token.revoked_at.is_some() {
        return Err(Refused::Revoked);
    }
    if token.expires_at.is_some_and(|at| at <= now) {
        return Err(Refused::Expired);
    }
    Ok(token)
}

/// The caller a token speaks as, named `client` (who saved what). A token limited to projects
/// works in its first project when a request names none; others in `hub_default`. A token that
/// may write is a client known to `aletheia trust` as `token:<id>`, so its writes are held to
/// the level the hub's owner set for it.
pub fn caller(token: &Token, client: &str, hub_default: &str) -> Caller {
    let scope = Scope::parse(&token.scope).unwrap_or(Scope::Read);
    Caller {
        name: client.to_owned(),
        projects: token.projects.clone(),
        standing: if scope.can_write() {
            crate::ops::trust::Standing::Client {
                key: format!("token:{}", token.id),
            }
        } else {
            crate::ops::trust::Standing::Reader
        },
        default_project: token
            .projects
            .as_ref()
            .and_then(|p| p.first().cloned())
            .unwrap_or_else(|| hub_default.to_owned()),
        via_token: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{OpenOptions, Store};

    fn hub() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, store)
    }

    fn req(scope: Scope) -> Request {
        Request {
            label: "laptop".into(),
            scope,
            projects: Some(vec!["shop".into()]),
            expires_at: Some(10_000),
            created_by: None,
        }
    }

    #[test]
    fn a_minted_token_verifies_and_nothing_near_it_does() {
        let (_d, mut s) = hub();
        let r = Redactor::builtin();
        let (id, token) = mint(&mut s, req(Scope::Sync), 1, &r).unwrap();
        let ok = verify(&s, Some(&format!("Bearer {token}")), 2).unwrap();
        assert_eq!(
            verify(&s, Some(&format!("bEARER {token}")), 2).unwrap().id,
            id
        );
        assert_eq!((ok.id, ok.scope.as_str()), (id, "sync"));
        let mut wrong = token.clone();
        wrong.pop();
        wrong.push(if token.ends_with('0') { '1' } else { '0' });
        for header in [
            format!("Bearer {wrong}"),
            token.clone(),
            "Bearer alh_1".to_owned(),
            "Bearer alh_x_00".to_owned(),
            format!("Bearer alh_{}_", id),
            "Bearer ".to_owned(),
            format!("Basic {token}"),
        ] {
            assert!(verify(&s, Some(&header), 2).is_err(), "{header}");
        }
        assert_eq!(verify(&s, None, 2), Err(Refused::Missing));
    }

    #[test]
    fn revoked_and_expired_tokens_are_refused_for_that_reason() {
        let (_d, mut s) = hub();
        let r = Redactor::builtin();
        let (id, token) = mint(&mut s, req(Scope::Mcp), 1, &r).unwrap();
        let header = format!("Bearer {token}");
        assert_eq!(verify(&s, Some(&header), 10_000), Err(Refused::Expired));
        assert!(s.revoke_token(id, 5).unwrap());
        assert!(!s.revoke_token(id, 6).unwrap(), "revoked twice");
        assert_eq!(verify(&s, Some(&header), 2), Err(Refused::Revoked));
    }

    #[test]
    fn the_store_holds_the_hash_never_the_secret() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hub.db");
        let mut s = Store::open_hub(&db, OpenOptions::INTERACTIVE).unwrap();
        let (_, token) = mint(&mut s, req(Scope::Admin), 1, &Redactor::builtin()).unwrap();
        drop(s);
        let secret = token.rsplit('_').next().unwrap();
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "the secret is in a file"
            );
        }
    }

    #[test]
    fn scopes_read_or_write_as_documented() {
        let writes: Vec<&str> = Scope::ALL
            .into_iter()
            .filter(|s| s.can_write())
            .map(Scope::as_str)
            .collect();
        assert_eq!(writes, ["sync", "admin"]);
        assert!(
            Scope::parse("root")
                .unwrap_err()
                .contains("mcp, read, sync or admin")
        );
    }
}
