//! The dashboard's sign-ins, when the server has an API key.
//!
//! A browser cannot send a bearer token, so the login page trades the key for a random token
//! the browser keeps as an HttpOnly cookie. Each token is its own sign-in: it ends after
//! [`LIFETIME`], when the person signs out, or when the server stops (tokens live only in this
//! process's memory, so a restart, or a changed key, signs every browser out). The table holds
//! SHA-256 digests of the tokens, never the tokens: a lookup's timing can then tell an attacker
//! nothing about a live token.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The cookie that carries a sign-in token: HttpOnly, SameSite=Strict.
pub const COOKIE: &str = "aletheia_session";

/// How long a sign-in lasts: a working week, so a person signs in about once a week and a
/// forgotten browser does not stay signed in for good.
pub const LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Live sign-ins, by digest of their token, with when each ends.
#[derive(Debug, Default)]
pub struct Logins {
    live: Mutex<HashMap<[u8; 32], Instant>>,
}

impl Logins {
    /// A new sign-in: its token (64 hex digits from 32 random bytes).
    pub fn start(&self) -> String {
        let token: String = random_bytes().iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        // Dropping ended sign-ins here keeps the table as small as the live ones.
        live.retain(|_, end| *end > now);
        live.insert(digest(&token), now + LIFETIME);
        token
    }

    /// Whether `token` is a sign-in that has not ended.
    pub fn valid(&self, token: &str) -> bool {
        if token.is_empty() {
            return false;
        }
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.get(&digest(token))
            .is_some_and(|end| *end > Instant::now())
    }

    /// Sign out: `token` opens nothing from now on.
    pub fn end(&self, token: &str) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.remove(&digest(token));
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// 32 bytes from the operating system's random source.
pub fn random_bytes() -> [u8; 32] {
    let mut buf = [0u8; 32];
    // The OS source failing leaves nothing safe to fall back on; the server cannot guard its
    // pages without it.
    getrandom::fill(&mut buf).expect("the operating system's random source");
    buf
}

/// The sign-in token a request's `Cookie` headers carry ("" when none).
pub fn token(headers: &axum::http::HeaderMap) -> &str {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(from_cookie_header)
        .unwrap_or("")
}

/// The token in a `Cookie` header's value, if it carries ours.
fn from_cookie_header(header: &str) -> Option<&str> {
    header.split(';').find_map(|part| {
        let (k, v) = part.trim().split_once('=')?;
        (k == COOKIE).then_some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sign_in_opens_until_it_is_ended() {
        let logins = Logins::default();
        let a = logins.start();
        let b = logins.start();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(logins.valid(&a) && logins.valid(&b));
        assert!(
            !logins.valid("") && !logins.valid(&a[..63]) && !logins.valid("0".repeat(64).as_str())
        );
        logins.end(&a);
        assert!(!logins.valid(&a));
        assert!(
            logins.valid(&b),
            "signing out one browser leaves the others"
        );
    }

    #[test]
    fn an_ended_sign_in_opens_nothing_and_is_dropped() {
        let logins = Logins::default();
        let old = logins.start();
        // Age it past its end.
        for end in logins.live.lock().unwrap().values_mut() {
            *end = Instant::now() - Duration::from_secs(1);
        }
        assert!(!logins.valid(&old));
        let _ = logins.start();
        assert_eq!(logins.live.lock().unwrap().len(), 1);
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        assert_eq!(
            from_cookie_header("theme=dark; aletheia_session=abc; x=1"),
            Some("abc")
        );
        assert_eq!(from_cookie_header("aletheia_sessionx=abc"), None);
    }
}
