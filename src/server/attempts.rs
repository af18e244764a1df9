//! Wrong API keys, counted per client address, so that guessing the key is slow.
//!
//! Without a limit a client could try thousands of keys a second. Each address may send
//! [`LIMIT`] wrong keys within [`WINDOW`]; the next one closes the server to that address for
//! [`BLOCK`], during which no key it sends is even compared (answering 200 to a right guess
//! would leak the key through the block). Every local process shares 127.0.0.1, so a local
//! process can lock the other local clients out for a minute at a time: the price of making a
//! short loopback key as slow to guess as a long one.
//!
//! Memory is bounded: at most [`CAPACITY`] addresses are tracked (IPv6 by its /64, the block a
//! single host usually holds). When the table is full and nothing in it has expired, every
//! new address shares one overflow entry, so an attacker who fills the table throttles only
//! the addresses that come after, together, and cannot make the table grow.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong keys an address may send within [`WINDOW`].
pub const LIMIT: u32 = 10;
/// How long wrong keys are remembered.
pub const WINDOW: Duration = Duration::from_secs(60);
/// How long an address that passed [`LIMIT`] is refused.
pub const BLOCK: Duration = WINDOW;
/// Addresses tracked at once.
pub const CAPACITY: usize = 4096;

/// Who an entry counts for: one address (IPv6 by /64), or every address past [`CAPACITY`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Peer {
    Addr(IpAddr),
    Overflow,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    failures: u32,
    since: Instant,
    blocked_until: Option<Instant>,
}

impl Entry {
    /// Whether this entry still says anything at `now`.
    fn live(&self, now: Instant) -> bool {
        self.blocked_until.is_some_and(|b| b > now) || now.duration_since(self.since) < WINDOW
    }
}

/// What became of a wrong key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Counted; the address may still try.
    Counted(u32),
    /// This one reached the limit: the address is refused from now on for [`BLOCK`].
    Blocked,
}

/// The table of recent wrong keys.
#[derive(Debug, Default)]
pub struct Attempts {
    table: Mutex<HashMap<Peer, Entry>>,
}

impl Attempts {
    /// How long `ip` must still wait before its key is looked at, if it is refused now.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        let table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let entry = table.get(&Peer::Addr(prefix(ip))).or_else(|| {
            table
                .get(&Peer::Overflow)
                .filter(|_| table.len() >= CAPACITY)
        })?;
        entry
            .blocked_until
            .filter(|b| *b > now)
            .map(|b| b.duration_since(now))
    }

    /// Count a wrong key from `ip`.
    pub fn fail(&self, ip: IpAddr, now: Instant) -> Failure {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let mut peer = Peer::Addr(prefix(ip));
        if !table.contains_key(&peer) && table.len() >= CAPACITY {
            table.retain(|_, e| e.live(now));
            if table.len() >= CAPACITY {
                peer = Peer::Overflow;
            }
        }
        let entry = table.entry(peer).or_insert(Entry {
            failures: 0,
            since: now,
            blocked_until: None,
        });
        if !entry.live(now) {
            *entry = Entry {
                failures: 0,
                since: now,
                blocked_until: None,
            };
        }
        entry.failures += 1;
        if entry.failures >= LIMIT {
            // The window started at or before now and BLOCK is no shorter than WINDOW, so the
            // entry expires when the block ends and the address starts afresh.
            entry.blocked_until = Some(now + BLOCK);
            Failure::Blocked
        } else {
            Failure::Counted(entry.failures)
        }
    }
}

/// The part of an address that names one client: the whole IPv4 address, an IPv6 address's
/// /64 (a host is usually handed a whole /64, so counting single addresses would let it
/// rotate through 2^64 of them).
fn prefix(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(bits.into())
            }
        },
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_address_is_refused_after_the_limit_until_the_block_ends() {
        let a = Attempts::default();
        let t0 = Instant::now();
        for n in 1..LIMIT {
            assert_eq!(a.fail(ip("127.0.0.1"), t0), Failure::Counted(n));
            assert_eq!(a.blocked(ip("127.0.0.1"), t0), None);
        }
        assert_eq!(a.fail(ip("127.0.0.1"), t0), Failure::Blocked);
        assert_eq!(a.blocked(ip("127.0.0.1"), t0), Some(BLOCK));
        assert_eq!(a.blocked(ip("10.0.0.9"), t0), None, "others still may try");
        let later = t0 + BLOCK + Duration::from_millis(1);
        assert_eq!(a.blocked(ip("127.0.0.1"), later), None);
        assert_eq!(a.fail(ip("127.0.0.1"), later), Failure::Counted(1));
    }

    #[test]
    fn wrong_keys_older_than_the_window_are_forgotten() {
        let a = Attempts::default();
        let t0 = Instant::now();
        for _ in 1..LIMIT {
            a.fail(ip("127.0.0.1"), t0);
        }
        assert_eq!(a.fail(ip("127.0.0.1"), t0 + WINDOW), Failure::Counted(1));
    }

    #[test]
    fn an_ipv6_host_cannot_rotate_through_its_own_64() {
        let a = Attempts::default();
        let t0 = Instant::now();
        for n in 0..LIMIT {
            a.fail(ip(&format!("2001:db8:1:2::{n:x}")), t0);
        }
        assert!(a.blocked(ip("2001:db8:1:2:ffff::1"), t0).is_some());
        assert!(a.blocked(ip("2001:db8:1:3::1"), t0).is_none());
    }

    #[test]
    fn the_table_never_grows_past_its_capacity() {
        let a = Attempts::default();
        let t0 = Instant::now();
        let capacity = u32::try_from(CAPACITY).unwrap();
        for n in 0..(capacity + 500) {
            a.fail(IpAddr::V4(n.into()), t0);
        }
        assert!(a.table.lock().unwrap().len() <= CAPACITY + 1);
        // The addresses past the capacity share one entry, which the limit closes.
        let newcomer = IpAddr::V4((capacity + 1000).into());
        assert!(a.blocked(newcomer, t0).is_some());
        // Once the old entries expire, a newcomer gets its own again.
        let later = t0 + WINDOW + BLOCK + Duration::from_secs(1);
        assert_eq!(a.fail(newcomer, later), Failure::Counted(1));
        assert!(a.table.lock().unwrap().len() <= 2);
    }
}
