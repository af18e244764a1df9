//! Compression jobs: the durable half of the queue.
//!
//! The Stop hook only adds a row to `session_queue` (see `queue`). A worker turns each pending
//! entry into an `extract_session` job and claims jobs one at a time under a lease: the claim
//! writes the worker's owner token and a deadline, so a worker that dies (even by `kill -9`)
//! leaves a lease that simply expires, and another claim picks the job up. Everything a job
//! writes commits in one transaction that first checks the lease is still its own
//! ([`Store::finish_job`]), so a job whose lease was taken over writes nothing twice.
//!
//! Times are passed in, never read here, so the retry schedule is tested with an injected clock.

use super::contract::JobWrites;
use super::contract::sqlite::TxWrites;
use super::sql_numbers::sql_int;
use super::{Store, StoreError};
use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::{OptionalExtension, Transaction, params};

/// The one job type today.
pub const EXTRACT_SESSION: &str = "extract_session";

/// A claimed job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub project: String,
    /// `None`: the project's own notes, not one session's.
    pub session_id: Option<String>,
    /// Including this one.
    pub attempts: i64,
    /// The token the lease was taken with.
    pub owner: String,
}

/// A job as listed (`compress --status`, doctor, the dashboard).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct JobRow {
    pub id: i64,
    pub project: String,
    pub session_id: Option<String>,
    pub state: String,
    pub attempts: i64,
    pub run_after: i64,
    pub last_error: Option<String>,
    pub result: Option<String>,
    pub updated_at: i64,
}

/// How many jobs are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct JobCounts {
    pub queued_sessions: i64,
    pub pending: i64,
    pub running: i64,
    pub done: i64,
    pub failed: i64,
}

/// What happened to a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Pending again, claimable from this instant.
    At(i64),
    /// Out of attempts: failed for good.
    Failed,
    /// A pending job for the same session was queued meanwhile: this one is closed in its
    /// favour (marked done, `{"folded":true}`), since that job reads everything not yet read.
    Folded,
    /// The lease was no longer this worker's: nothing was changed.
    LostLease,
}

const JOB_COLUMNS: &str =
    "id, project, session_id, state, attempts, run_after, last_error, result, updated_at";

fn job_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JobRow> {
    Ok(JobRow {
        id: r.get(0)?,
        project: r.get(1)?,
        session_id: r.get(2)?,
        state: r.get(3)?,
        attempts: r.get(4)?,
        run_after: r.get(5)?,
        last_error: r.get(6)?,
        result: r.get(7)?,
        updated_at: r.get(8)?,
    })
}

/// Add a pending job for (project, session) unless one is already pending; true when added.
fn add_job(
    tx: &Transaction<'_>,
    project: &str,
    session_id: Option<&str>,
    now: i64,
) -> rusqlite::Result<bool> {
    let n = tx
        .prepare_cached(
            "INSERT INTO jobs (type, project, session_id, run_after, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4, ?4) ON CONFLICT DO NOTHING",
        )?
        .execute(params![EXTRACT_SESSION, project, session_id, now])?;
    Ok(n > 0)
}

/// Why a job's attempt failed, as the job keeps it. A provider's error may quote what it was
/// sent (the session's own text), so it is stored redacted like everything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub String);

impl Redact for Failure {
    fn redact(self, r: &Redactor) -> Failure {
        Failure(r.redact(&self.0))
    }
}

impl Store {
    /// Turn every pending queue entry into a job; returns how many jobs were added. A session
    /// whose job is already pending gets no second one (that job reads every memory not yet
    /// extracted when it runs).
    pub fn jobs_from_queue(&mut self, now: i64) -> Result<usize, StoreError> {
        self.write(|tx| {
            let entries: Vec<(i64, String, String)> = tx
                .prepare_cached(
                    "SELECT id, project, session_id FROM session_queue WHERE state = 'pending' ORDER BY enqueued_at, id",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let mut added = 0;
            for (id, project, session) in entries {
                added += usize::from(add_job(tx, &project, Some(&session), now)?);
                tx.prepare_cached("UPDATE session_queue SET state = 'jobbed' WHERE id = ?1")?
                    .execute([id])?;
            }
            Ok(added)
        })
    }

    /// Queue a job for a project's own notes (those saved outside any session); true when
    /// added, false when one is already pending.
    pub fn queue_project_job(&mut self, project: &str, now: i64) -> Result<bool, StoreError> {
        self.write(|tx| add_job(tx, project, None, now))
    }

    /// Claim the next job that is due: a pending one whose backoff has passed, or a running one
    /// whose lease expired (its worker died). A job is skipped while another job for the same
    /// session holds a live lease, so two workers never extract one session at once. A job
    /// whose expired lease used its last attempt is failed instead of claimed.
    pub fn claim_job(
        &mut self,
        owner: &str,
        now: i64,
        lease_ms: i64,
        max_attempts: i64,
    ) -> Result<Option<Job>, StoreError> {
        self.write(|tx| {
            tx.prepare_cached(
                "UPDATE jobs SET state = 'failed', lease_owner = NULL, lease_until = NULL, updated_at = ?1,
                     last_error = ifnull(last_error || '; ', '') || 'the worker stopped mid-job and its lease expired'
                 WHERE state = 'running' AND lease_until <= ?1 AND attempts >= ?2",
            )?
            .execute(params![now, max_attempts])?;
            let next: Option<i64> = tx
                .prepare_cached(
                    "SELECT j.id FROM jobs j
                     WHERE ((j.state = 'pending' AND j.run_after <= ?1) OR (j.state = 'running' AND j.lease_until <= ?1))
                       AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.id != j.id AND r.state = 'running'
                                         AND r.lease_until > ?1 AND r.project = j.project
                                         AND r.session_id IS j.session_id)
                     ORDER BY j.run_after, j.id LIMIT 1",
                )?
                .query_row([now], |r| r.get(0))
                .optional()?;
            let Some(id) = next else { return Ok(None) };
            tx.prepare_cached(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?2,
                     lease_until = ?3, updated_at = ?4 WHERE id = ?1",
            )?
            .execute(params![id, owner, now + lease_ms, now])?;
            tx.prepare_cached("SELECT id, project, session_id, attempts FROM jobs WHERE id = ?1")?
                .query_row([id], |r| {
                    Ok(Some(Job {
                        id: r.get(0)?,
                        project: r.get(1)?,
                        session_id: r.get(2)?,
                        attempts: r.get(3)?,
                        owner: owner.to_owned(),
                    }))
                })
        })
    }

    /// Extend a job's lease; false when it is no longer this worker's.
    pub fn renew_lease(&mut self, job: &Job, now: i64, lease_ms: i64) -> Result<bool, StoreError> {
        self.write(|tx| {
            let n = tx
                .prepare_cached(
                    "UPDATE jobs SET lease_until = ?3, updated_at = ?4
                     WHERE id = ?1 AND lease_owner = ?2 AND state = 'running'",
                )?
                .execute(params![job.id, job.owner, now + lease_ms, now])?;
            Ok(n == 1)
        })
    }

    /// Record a failed attempt: pending again at `retry_at`, or failed for good when the job
    /// has used `max_attempts`. The error is kept either way.
    pub fn fail_job(
        &mut self,
        job: &Job,
        error: &Redacted<Failure>,
        now: i64,
        retry_at: i64,
        max_attempts: i64,
    ) -> Result<Retry, StoreError> {
        self.write(|tx| {
            let out_of_attempts = job.attempts >= max_attempts;
            let n = tx
                .prepare_cached(
                    "UPDATE jobs SET state = CASE WHEN ?3 THEN 'failed' ELSE 'pending' END,
                         run_after = ?4, last_error = ?5, lease_owner = NULL, lease_until = NULL, updated_at = ?6
                     WHERE id = ?1 AND lease_owner = ?2 AND state = 'running'",
                )?
                .execute(params![job.id, job.owner, out_of_attempts, retry_at, error.get().0, now]);
            match n {
                Ok(1) => Ok(if out_of_attempts {
                    Retry::Failed
                } else {
                    Retry::At(retry_at)
                }),
                // Another pending job for the same session was queued meanwhile: this one
                // is folded into it, since that job reads everything not yet extracted.
                Err(e) if is_unique_violation(&e) => {
                    tx.prepare_cached(
                        "UPDATE jobs SET state = 'done', last_error = ?3, lease_owner = NULL, lease_until = NULL,
                             result = '{\"folded\":true}', updated_at = ?4
                         WHERE id = ?1 AND lease_owner = ?2",
                    )?
                    .execute(params![job.id, job.owner, error.get().0, now])?;
                    Ok(Retry::Folded)
                }
                Ok(_) => Ok(Retry::LostLease),
                Err(e) => Err(e),
            }
        })
    }

    /// Give a job back without counting the attempt (a worker shutting down): `At(now)` when
    /// released, `Folded` when a pending twin takes its place, `LostLease` when it was no longer
    /// this worker's.
    pub fn release_job(&mut self, job: &Job, now: i64) -> Result<Retry, StoreError> {
        self.write(|tx| {
            let n = tx
                .prepare_cached(
                    "UPDATE jobs SET state = 'pending', attempts = max(attempts - 1, 0), run_after = ?3,
                         lease_owner = NULL, lease_until = NULL, updated_at = ?3
                     WHERE id = ?1 AND lease_owner = ?2 AND state = 'running'",
                )?
                .execute(params![job.id, job.owner, now]);
            match n {
                Ok(1) => Ok(Retry::At(now)),
                Ok(_) => Ok(Retry::LostLease),
                // A pending twin exists: it will read everything this one would have.
                Err(e) if is_unique_violation(&e) => {
                    tx.prepare_cached(
                        "UPDATE jobs SET state = 'done', result = '{\"folded\":true}', lease_owner = NULL,
                             lease_until = NULL, updated_at = ?3 WHERE id = ?1 AND lease_owner = ?2",
                    )?
                    .execute(params![job.id, job.owner, now])?;
                    Ok(Retry::Folded)
                }
                Err(e) => Err(e),
            }
        })
    }

    /// Run `write` and mark the job done in one transaction, only while the lease is still
    /// this worker's. Returns `false` (and writes nothing) when the lease was lost.
    pub fn finish_job(
        &mut self,
        job: &Job,
        now: i64,
        write: &mut dyn FnMut(&mut dyn JobWrites) -> Result<String, StoreError>,
    ) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let err = |e| StoreError::sqlite(&path, e);
        let signer = super::signer_of(&self.signer, &self.path);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let mark = super::history::mark(&tx).map_err(err)?;
        let ours: bool = tx
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM jobs WHERE id = ?1 AND lease_owner = ?2 AND state = 'running')",
            )
            .and_then(|mut s| s.query_row(params![job.id, job.owner], |r| r.get(0)))
            .map_err(err)?;
        if !ours {
            return Ok(false);
        }
        let result = write(&mut TxWrites {
            tx: &tx,
            path: &path,
        })?;
        tx.prepare_cached(
            "UPDATE jobs SET state = 'done', result = ?2, last_error = NULL, lease_owner = NULL,
                 lease_until = NULL, updated_at = ?3 WHERE id = ?1",
        )
        .and_then(|mut s| s.execute(params![job.id, result, now]))
        .map_err(err)?;
        super::history::seal(&tx, signer, mark, false, crate::time::now_ms()).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(true)
    }

    /// Job counts by state, and queue entries not yet turned into jobs.
    pub fn job_counts(&self) -> Result<JobCounts, StoreError> {
        let mut c = JobCounts {
            queued_sessions: self
                .conn
                .query_row(
                    "SELECT count(*) FROM session_queue WHERE state = 'pending'",
                    [],
                    |r| r.get(0),
                )
                .map_err(|e| self.err(e))?,
            ..JobCounts::default()
        };
        let mut stmt = self
            .conn
            .prepare("SELECT state, count(*) FROM jobs GROUP BY state")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| self.err(e))?;
        for row in rows {
            let (state, n) = row.map_err(|e| self.err(e))?;
            match state.as_str() {
                "pending" => c.pending = n,
                "running" => c.running = n,
                "done" => c.done = n,
                _ => c.failed = n,
            }
        }
        Ok(c)
    }

    /// The newest jobs first.
    pub fn recent_jobs(&self, limit: usize) -> Result<Vec<JobRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {JOB_COLUMNS} FROM jobs ORDER BY updated_at DESC, id DESC LIMIT ?1"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([sql_int(limit)], job_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// When the next pending job becomes due (a retry waiting out its backoff).
    pub fn next_job_due(&self) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row(
                "SELECT min(run_after) FROM jobs WHERE state = 'pending'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }

    /// One job by id.
    pub fn job(&self, id: i64) -> Result<Option<JobRow>, StoreError> {
        self.conn
            .query_row(
                &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?1"),
                [id],
                job_row,
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;

    const LEASE: i64 = 60_000;

    fn failure(text: &str) -> Redacted<Failure> {
        Redacted::new(Failure(text.to_owned()), &Redactor::builtin())
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, s)
    }

    fn queue(s: &mut Store, session: &str, at: i64) {
        let queued = crate::redact::Redacted::new(
            super::super::QueuedSession {
                project: "shop".into(),
                session_id: session.into(),
                host: "claude-code".into(),
            },
            &crate::redact::Redactor::builtin(),
        );
        s.write(|tx| super::super::queue::enqueue_tx(tx, &queued, at))
            .unwrap();
    }

    #[test]
    fn a_queued_session_becomes_one_job_until_it_runs() {
        let (_d, mut s) = store();
        queue(&mut s, "s1", 1);
        queue(&mut s, "s1", 2);
        assert_eq!(s.jobs_from_queue(10).unwrap(), 1);
        queue(&mut s, "s1", 11);
        assert_eq!(
            s.jobs_from_queue(12).unwrap(),
            0,
            "a pending job already covers the session"
        );
        let job = s.claim_job("w1", 20, LEASE, 5).unwrap().unwrap();
        assert_eq!(job.session_id.as_deref(), Some("s1"));
        queue(&mut s, "s1", 21);
        assert_eq!(
            s.jobs_from_queue(22).unwrap(),
            1,
            "a stop while the job runs queues another"
        );
        assert_eq!(
            s.claim_job("w2", 23, LEASE, 5).unwrap(),
            None,
            "not while the first holds its lease"
        );
    }

    #[test]
    fn a_limit_past_i64_max_lists_every_job() {
        let (_d, mut s) = store();
        for session in ["s1", "s2", "s3"] {
            queue(&mut s, session, 0);
        }
        assert_eq!(s.jobs_from_queue(1).unwrap(), 3);
        assert_eq!(s.recent_jobs(usize::MAX).unwrap().len(), 3);
        assert_eq!(s.recent_jobs(2).unwrap().len(), 2);
    }

    #[test]
    fn an_expired_lease_is_claimable_and_the_old_owner_cannot_finish() {
        let (_d, mut s) = store();
        s.queue_project_job("shop", 0).unwrap();
        let first = s.claim_job("w1", 0, LEASE, 5).unwrap().unwrap();
        assert_eq!(s.claim_job("w2", LEASE - 1, LEASE, 5).unwrap(), None);
        let second = s.claim_job("w2", LEASE, LEASE, 5).unwrap().unwrap();
        assert_eq!((second.id, second.attempts), (first.id, 2));
        let wrote = s
            .finish_job(&first, LEASE + 1, &mut |_| Ok("{}".into()))
            .unwrap();
        assert!(!wrote, "the first worker lost its lease");
        assert!(!s.renew_lease(&first, LEASE + 1, LEASE).unwrap());
        assert!(
            s.finish_job(&second, LEASE + 2, &mut |_| Ok("{\"facts\":1}".into()))
                .unwrap()
        );
        let row = s.job(first.id).unwrap().unwrap();
        assert_eq!((row.state.as_str(), row.attempts), ("done", 2));
    }

    #[test]
    fn a_failed_job_waits_for_its_retry_time_then_fails_for_good() {
        let (_d, mut s) = store();
        s.queue_project_job("shop", 0).unwrap();
        let mut now = 0;
        for attempt in 1..=5 {
            let job = s.claim_job("w", now, LEASE, 5).unwrap().unwrap();
            assert_eq!(job.attempts, attempt);
            let retry = s
                .fail_job(
                    &job,
                    &failure(&format!("boom {attempt}")),
                    now,
                    now + 1000,
                    5,
                )
                .unwrap();
            if attempt < 5 {
                assert_eq!(retry, Retry::At(now + 1000));
                assert_eq!(s.claim_job("w", now + 999, LEASE, 5).unwrap(), None);
                now += 1000;
            } else {
                assert_eq!(retry, Retry::Failed);
            }
        }
        assert_eq!(s.claim_job("w", now + 10_000_000, LEASE, 5).unwrap(), None);
        let row = &s.recent_jobs(1).unwrap()[0];
        assert_eq!(
            (row.state.as_str(), row.last_error.as_deref()),
            ("failed", Some("boom 5"))
        );
    }

    #[test]
    fn a_lease_that_expires_on_the_last_attempt_fails_the_job() {
        let (_d, mut s) = store();
        s.queue_project_job("shop", 0).unwrap();
        s.claim_job("w", 0, LEASE, 1).unwrap().unwrap();
        assert_eq!(s.claim_job("w2", LEASE, LEASE, 1).unwrap(), None);
        let c = s.job_counts().unwrap();
        assert_eq!((c.failed, c.running), (1, 0));
        assert!(
            s.recent_jobs(1).unwrap()[0]
                .last_error
                .as_deref()
                .unwrap()
                .contains("lease expired")
        );
    }

    #[test]
    fn a_released_job_does_not_count_the_attempt() {
        let (_d, mut s) = store();
        s.queue_project_job("shop", 0).unwrap();
        let job = s.claim_job("w", 0, LEASE, 5).unwrap().unwrap();
        assert_eq!(s.release_job(&job, 5).unwrap(), Retry::At(5));
        let again = s.claim_job("w", 5, LEASE, 5).unwrap().unwrap();
        assert_eq!(again.attempts, 1);
    }

    #[test]
    fn a_job_with_a_pending_twin_is_folded_into_it_when_it_fails_or_is_released() {
        let (_d, mut s) = store();
        for (i, release) in [(1, false), (2, true)] {
            let session = format!("s{i}");
            queue(&mut s, &session, 0);
            s.jobs_from_queue(0).unwrap();
            let job = s.claim_job("w", 0, LEASE, 5).unwrap().unwrap();
            // The session stops again while its job runs: a pending twin.
            queue(&mut s, &session, 1);
            assert_eq!(s.jobs_from_queue(1).unwrap(), 1);
            let out = if release {
                s.release_job(&job, 2).unwrap()
            } else {
                s.fail_job(&job, &failure("boom"), 2, 1002, 5).unwrap()
            };
            assert_eq!(out, Retry::Folded);
            let row = s.job(job.id).unwrap().unwrap();
            assert_eq!(
                (row.state.as_str(), row.result.as_deref()),
                ("done", Some("{\"folded\":true}"))
            );
            let twin = s.claim_job("w", 3, LEASE, 5).unwrap().unwrap();
            assert_eq!(twin.session_id.as_deref(), Some(session.as_str()));
            assert_ne!(twin.id, job.id);
            s.finish_job(&twin, 4, &mut |_| Ok("{}".into())).unwrap();
        }
    }

    #[test]
    fn a_providers_error_quoting_a_secret_is_kept_redacted() {
        let (_d, mut s) = store();
        queue(&mut s, "s1", 0);
        s.jobs_from_queue(0).unwrap();
        let job = s.claim_job("w", 0, LEASE, 5).unwrap().unwrap();
        let said =
            "400 bad request: cannot parse `token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB`";
        s.fail_job(&job, &failure(said), 1, 1001, 5).unwrap();
        let kept: String = s
            .conn
            .query_row("SELECT last_error FROM jobs WHERE id = ?1", [job.id], |r| {
                r.get(0)
            })
            .unwrap();
        assert!(kept.starts_with("400 bad request"), "{kept}");
        assert!(!kept.contains("ghp_1234567890"), "{kept}");
    }
}
