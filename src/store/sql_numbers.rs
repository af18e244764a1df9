//! Sizes and counts crossing between Rust's unsigned integers and SQLite's signed 64-bit ones.
//!
//! SQLite has one integer type, `i64`. What the store hands it (a `LIMIT`, a character count)
//! is a `usize`, and what it reads back as a count (`count(*)`, `max(id)`, a sum of counts) is
//! non-negative by the schema. An `as` in either direction would turn an out-of-range value
//! into a different valid-looking one (a `LIMIT` past `i64::MAX` into a negative one); these
//! say once what happens instead.

/// `n` for SQLite, saturating at `i64::MAX`: more rows than a database can hold, more
/// characters than fit in memory. As a `LIMIT` that still means "no limit".
pub(super) fn sql_int(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A count or id SQLite returned, non-negative by the schema. A negative one (only a damaged
/// or hand-edited file holds one) reads as 0, not as a huge number.
pub(super) fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// [`count`] as a `usize`, saturating where `usize` is narrower than SQLite's integers.
pub(super) fn count_usize(n: i64) -> usize {
    usize::try_from(count(n)).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_past_i64_max_saturates_instead_of_turning_negative() {
        assert_eq!(sql_int(0), 0);
        assert_eq!(sql_int(2000), 2000);
        assert_eq!(sql_int(usize::MAX), i64::MAX);
    }

    #[test]
    fn a_negative_count_reads_as_zero_not_as_a_huge_number() {
        assert_eq!(count(-1), 0);
        assert_eq!(count(i64::MIN), 0);
        assert_eq!(count(i64::MAX), u64::MAX / 2);
        assert_eq!(count_usize(-1), 0);
        assert_eq!(count_usize(42), 42);
    }
}
