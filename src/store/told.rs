//! Which memories each session was told: the session-start block's, and those recalled as
//! the agent reads or edits a file (see [`crate::capture::recall`]). Only the hook reads and
//! writes it, on this machine's own store; rows older than [`KEPT_MS`] are dropped at session
//! starts.

use super::{Store, StoreError};
use rusqlite::params;

/// How long a session's told memories are kept: longer than any session lasts.
pub const KEPT_MS: i64 = 30 * 86_400_000;

impl Store {
    /// Of `ids`, those `session` was not told yet, in the order given.
    pub fn untold(&self, session: &str, ids: &[i64]) -> Result<Vec<i64>, StoreError> {
        let run = || -> rusqlite::Result<Vec<i64>> {
            let mut st = self.conn.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM session_told WHERE session_id = ?1 AND memory_id = ?2)",
            )?;
            let mut out = Vec::new();
            for &id in ids {
                if !st.query_row(params![session, id], |r| r.get::<_, bool>(0))? {
                    out.push(id);
                }
            }
            Ok(out)
        };
        run().map_err(|e| self.err(e))
    }

    /// Record that `session` was told `ids` at `now`; with `trim`, drop what is older than
    /// [`KEPT_MS`] too.
    pub fn tell(
        &mut self,
        session: &str,
        ids: &[i64],
        now: i64,
        trim: bool,
    ) -> Result<(), StoreError> {
        self.write(|tx| {
            let mut st = tx.prepare_cached(
                "INSERT OR IGNORE INTO session_told (session_id, memory_id, at) VALUES (?1, ?2, ?3)",
            )?;
            for &id in ids {
                st.execute(params![session, id, now])?;
            }
            if trim {
                tx.execute(
                    "DELETE FROM session_told WHERE at < ?1",
                    [now.saturating_sub(KEPT_MS)],
                )?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{OpenOptions, Store};

    #[test]
    fn a_session_is_told_each_memory_once_and_old_sessions_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        assert_eq!(s.untold("a", &[3, 1, 2]).unwrap(), vec![3, 1, 2]);
        s.tell("a", &[1, 2], 10, false).unwrap();
        assert_eq!(s.untold("a", &[3, 1, 2]).unwrap(), vec![3]);
        assert_eq!(s.untold("b", &[1]).unwrap(), vec![1], "another session");
        s.tell("a", &[2], 11, false).unwrap();
        s.tell("b", &[5], 10 + super::KEPT_MS + 1, true).unwrap();
        assert_eq!(s.untold("a", &[1, 2]).unwrap(), vec![1, 2], "trimmed");
        assert_eq!(s.untold("b", &[5]).unwrap(), Vec::<i64>::new());
    }
}
