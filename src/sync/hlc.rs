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

    /// The next revision for a change made at `at_ms` on `machine`. A counter at its widest
    /// moves the time on a millisecond instead, so every revision stays later than the last.
    pub fn tick(&mut self, at_ms: i64, machine: &str) -> String {
        if at_ms > self.ms {
            self.ms = at_ms;
            self.counter = 0;
        } else if self.counter >= MAX_COUNTER {
            self.ms += 1;
            self.counter = 0;
        } else {
            self.counter += 1;
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

/// The widest counter a revision holds (its six digits).
const MAX_COUNTER: u32 = 999_999;

/// The latest time a revision may carry: fifteen digits of milliseconds.
const MAX_MS: i64 = 999_999_999_999_999;

/// How far ahead of the receiving side's clock a revision may be: machines' clocks drift, but
/// a revision from the far future would win every conflict until then.
pub const MAX_AHEAD_MS: i64 = 10 * 60 * 1000;

/// The revision string for a time, counter and machine.
pub fn rev(ms: i64, counter: u32, machine: &str) -> String {
    format!("{:015}-{counter:06}-{machine}", ms.clamp(0, MAX_MS))
}

/// Why a revision from elsewhere is refused: not of this form, made by another machine than
/// the one that sent it, or too far in the future.
pub fn check(revision: &str, machine: &str, now_ms: i64) -> Result<(), String> {
    let mut it = revision.splitn(3, '-');
    let (ms, counter, by) = (it.next(), it.next(), it.next());
    let well_formed = matches!((ms, counter, by), (Some(ms), Some(c), Some(by))
        if ms.len() == 15 && ms.bytes().all(|b| b.is_ascii_digit())
            && c.len() == 6 && c.bytes().all(|b| b.is_ascii_digit())
            && is_machine_id(by));
    if !well_formed {
        return Err(format!(
            "\"{}\" is not a revision",
            crate::model::cut_chars(revision, 80)
        ));
    }
    if by != Some(machine) {
        return Err("a revision made by another machine than the one pushing it".to_owned());
    }
    if parts(revision).is_some_and(|c| c.ms > now_ms.saturating_add(MAX_AHEAD_MS)) {
        return Err("a revision more than ten minutes ahead of the hub's clock: set this machine's clock right, then sync again".to_owned());
    }
    Ok(())
}

/// Whether `revision` has a revision's form, whoever made it.
pub fn well_formed(revision: &str) -> bool {
    revision
        .rsplit_once('-')
        .is_some_and(|(_, by)| check(revision, by, MAX_MS).is_ok())
}

/// Whether `id` can be a machine id: 1 to 64 lowercase letters and digits.
pub fn is_machine_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
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
    fn a_full_counter_moves_the_time_on_and_odd_revisions_are_refused() {
        let mut c = Clock {
            ms: 50,
            counter: MAX_COUNTER - 1,
        };
        let a = c.tick(10, "m");
        let b = c.tick(10, "m");
        assert!(a < b, "{a} {b}");
        assert_eq!(c, Clock { ms: 51, counter: 0 });
        let now = 1_000_000;
        assert_eq!(check(&rev(now, 0, "m1"), "m1", now), Ok(()));
        assert!(
            check(&rev(now, 0, "m1"), "m2", now).is_err(),
            "another machine's"
        );
        assert!(
            check(&rev(now + MAX_AHEAD_MS + 1, 0, "m1"), "m1", now).is_err(),
            "from the future"
        );
        for bad in [
            "~",
            "999999999999999-4294967295-m1",
            "1-2-m1",
            "000000000001000-000000-M1",
            "",
        ] {
            assert!(check(bad, "m1", now).is_err(), "{bad}");
        }
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
