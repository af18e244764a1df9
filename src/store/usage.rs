//! What was sent to model providers, per day and provider: the cost guard's ledger and what
//! `aletheia doctor` reports. Rows are written right after each call, outside the job's
//! transaction, so characters sent are counted even when the job later fails.

use super::sql_numbers::{count_usize, sql_int};
use super::{Store, StoreError};
use rusqlite::params;

/// Usage of one provider over a period.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    pub provider: String,
    pub calls: i64,
    pub chars_sent: i64,
    pub chars_received: i64,
}

impl Usage {
    /// Tokens sent, estimated as characters / 4 (the context block's estimate too).
    pub fn est_tokens_sent(&self) -> i64 {
        (self.chars_sent + 3) / 4
    }
}

impl Store {
    /// Count one call on `day` (`YYYY-MM-DD` in the user's time zone), for `job`.
    pub fn record_usage(
        &mut self,
        day: &str,
        provider: &str,
        job: i64,
        chars_sent: usize,
        chars_received: usize,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            tx.prepare_cached("UPDATE jobs SET chars_sent = chars_sent + ?2 WHERE id = ?1")?
                .execute(params![job, sql_int(chars_sent)])?;
            tx.prepare_cached(
                "INSERT INTO provider_usage (day, provider, calls, chars_sent, chars_received) VALUES (?1, ?2, 1, ?3, ?4)
                 ON CONFLICT (day, provider) DO UPDATE SET calls = calls + 1,
                     chars_sent = chars_sent + excluded.chars_sent, chars_received = chars_received + excluded.chars_received",
            )?
            .execute(params![day, provider, sql_int(chars_sent), sql_int(chars_received)])?;
            Ok(())
        })
    }

    /// Usage per provider for days from `first` to `last` (inclusive, `YYYY-MM-DD`).
    pub fn usage_between(&self, first: &str, last: &str) -> Result<Vec<Usage>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT provider, sum(calls), sum(chars_sent), sum(chars_received) FROM provider_usage
                 WHERE day >= ?1 AND day <= ?2 GROUP BY provider ORDER BY provider",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![first, last], |r| {
                Ok(Usage {
                    provider: r.get(0)?,
                    calls: r.get(1)?,
                    chars_sent: r.get(2)?,
                    chars_received: r.get(3)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Characters sent on `day`, every provider together.
    pub fn sent_on(&self, day: &str) -> Result<usize, StoreError> {
        self.conn
            .query_row(
                "SELECT ifnull(sum(chars_sent), 0) FROM provider_usage WHERE day = ?1",
                [day],
                |r| r.get::<_, i64>(0),
            )
            .map(count_usize)
            .map_err(|e| self.err(e))
    }

    /// Characters sent for one job, over all its attempts.
    pub fn sent_for_job(&self, job: i64) -> Result<usize, StoreError> {
        self.conn
            .query_row("SELECT chars_sent FROM jobs WHERE id = ?1", [job], |r| {
                r.get::<_, i64>(0)
            })
            .map(count_usize)
            .map_err(|e| self.err(e))
    }

    /// Whether anything was ever sent to `provider`.
    pub fn ever_used(&self, provider: &str) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM provider_usage WHERE provider = ?1)",
                [provider],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;

    #[test]
    fn a_negative_character_count_reads_as_nothing_sent() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        s.record_usage("2026-01-01", "p", 0, 10, 20).unwrap();
        assert_eq!(s.sent_on("2026-01-01").unwrap(), 10);
        // Only a damaged or hand-edited file holds a negative count: it must not read as a
        // huge one, which the cost guard would add a call's size to.
        s.conn
            .execute("UPDATE provider_usage SET chars_sent = -5", [])
            .unwrap();
        assert_eq!(s.sent_on("2026-01-01").unwrap(), 0);
    }
}
