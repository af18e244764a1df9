//! Revisions: a hybrid logical clock, written so that comparing two as strings orders them.
//!
//! A revision is `<ms>-<counter>-<machine>`: the wall-clock milliseconds of the change (or the
//! last revision this machine has seen, when that is later: a clock that lags never issues a
//! revision older than one it already knows), a counter for changes within one millisecond,
//! and the machine id that breaks the last tie. Fixed widths make the string order the clock's.

use std::cmp::Ordering;

/// The clock's state: the newest time and counter issued or seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Clock {
    pub ms: i64,
    pub counter: u32,
}

impl Clock {
    /// Read a stored clock (`ms.counter`); a missing or damaged one starts at zero.
    pub fn parse(s: &str) -> Clock {
        let (ms, counter) = s.split_once('.').unwrap_or((s, "0"));
        Clock {
            ms: ms.parse().unwrap_or(0),
            counter: counter.parse().unwrap_or(0),
        }
    }

    /// As stored.
    pub fn stored(&self) -> String {
        format!("{}.{}", self.ms, self.counter)
    }

    /// The next revision for a change made at `at_ms` on `machine`.
    pub fn tick(&mut self, at_ms: i64, machine: &str) -> String {
        if at_ms > self.ms {
            self.ms = at_ms;
            self.counter = 0;
        } else {
            self.counter = self.counter.saturating_add(1);
        }
        rev(self.ms, self.counter, machine)
    }

    /// Take in a revision seen from elsewhere, so the next local one is later than it.
    pub fn observe(&mut self, revision: &str) {
        if let Some(seen) = parts(revision) {
            *self = (*self).max(seen);
        }
    }
}

/// The revision string for a time, counter and machine.
pub fn rev(ms: i64, counter: u32, machine: &str) -> String {
    format!("{:015}-{counter:06}-{machine}", ms.max(0))
}

/// The revision of a memory as it was first written: its creation time on the machine that
/// wrote it. Deterministic, so a memory pushed twice carries the same revision both times.
pub fn first(created_at_ms: i64, machine: &str) -> String {
    rev(created_at_ms, 0, machine)
}

/// The time and counter of a revision.
fn parts(revision: &str) -> Option<Clock> {
    let mut it = revision.splitn(3, '-');
    let ms = it.next()?.parse().ok()?;
    let counter = it.next()?.parse().ok()?;
    Some(Clock { ms, counter })
}

/// Which of two revisions is later.
pub fn later<'a>(a: &'a str, b: &'a str) -> &'a str {
    match a.cmp(b) {
        Ordering::Less => b,
        _ => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_order_as_the_clock_and_ties_break_by_machine() {
        let mut c = Clock::default();
        let a = c.tick(1_000, "m1");
        let b = c.tick(1_000, "m1");
        let d = c.tick(999, "m1");
        assert!(a < b && b < d, "{a} {b} {d}");
        assert!(rev(5, 0, "a") < rev(5, 0, "b"));
        assert!(rev(9, 0, "z") < rev(10, 0, "a"));
        assert_eq!(later(&a, &d), d);
    }

    #[test]
    fn a_seen_revision_moves_the_clock_past_it() {
        let mut c = Clock { ms: 10, counter: 0 };
        c.observe(&rev(5_000, 3, "other"));
        let next = c.tick(100, "me");
        assert!(next > rev(5_000, 3, "other"), "{next}");
        assert_eq!(Clock::parse(&c.stored()), c);
    }
}
