//! Requests per token per minute: a sliding window of the last minute's request times, so a
//! burst at the turn of a minute cannot send twice the limit. The time comes from the caller,
//! so tests set it.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// The window, in milliseconds.
const WINDOW_MS: i64 = 60_000;

/// Requests each token may make per minute, as the hub documents.
pub const PER_MINUTE: usize = 60;

pub struct RateLimit {
    per_window: usize,
    seen: Mutex<HashMap<i64, VecDeque<i64>>>,
}

impl RateLimit {
    pub fn new(per_minute: usize) -> RateLimit {
        RateLimit {
            per_window: per_minute.max(1),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Requests a token may make per minute.
    pub fn per_minute(&self) -> usize {
        self.per_window
    }

    /// Count a request by `token` at `now` (ms), or refuse it with the whole seconds until
    /// one is allowed again. A refused request is not counted: a client that keeps retrying
    /// does not push its own window forward.
    pub fn check(&self, token: i64, now: i64) -> Result<(), u64> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        // Tokens idle for a window take no memory: the table grows with the tokens in use.
        if seen.len() > 1024 {
            seen.retain(|_, times| times.back().is_some_and(|&t| now - t < WINDOW_MS));
        }
        let times = seen.entry(token).or_default();
        while times.front().is_some_and(|&t| now - t >= WINDOW_MS) {
            times.pop_front();
        }
        if times.len() >= self.per_window {
            let oldest = times.front().copied().unwrap_or(now);
            let wait_ms = (oldest + WINDOW_MS - now).max(1);
            let wait_ms = u64::try_from(wait_ms).unwrap_or(1);
            return Err(wait_ms.div_ceil(1000));
        }
        times.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_61st_request_in_a_minute_is_refused_until_the_first_is_a_minute_old() {
        let limit = RateLimit::new(PER_MINUTE);
        for i in 0..60 {
            assert_eq!(limit.check(1, 1_000 + i * 100), Ok(()), "request {}", i + 1);
        }
        // The first was at 1,000 ms: it leaves the window at 61,000.
        assert_eq!(limit.check(1, 7_000), Err(54));
        assert_eq!(limit.check(1, 60_999), Err(1));
        assert_eq!(
            limit.check(2, 7_000),
            Ok(()),
            "another token has its own window"
        );
        assert_eq!(limit.check(1, 61_000), Ok(()));
        assert_eq!(
            limit.check(1, 61_050),
            Err(1),
            "the second leaves at 61,100"
        );
    }
}
