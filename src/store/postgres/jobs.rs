//! Compression jobs on PostgreSQL: the queue turned into jobs, leases, retries, a finished job's
//! writes in one transaction, the sources a job reads and the providers' usage, by the SQLite
//! store's rules (see [`crate::store::jobs`], [`crate::store::compression`] and
//! [`crate::store::usage`]).
//!
//! SQLite runs every write alone, holding the file's write lock; here several hub processes
//! write at once, so what SQLite got from that lock is said explicitly:
//! - a claim takes the next due job with `FOR UPDATE SKIP LOCKED`, so two claims never take one
//!   job and a claim never waits behind a job whose row another transaction holds (its owner
//!   finishing or failing it). The rule that one session is extracted by one worker at a time
//!   reads other jobs' rows, which a row lock cannot guard, so claims also hold a
//!   transaction-scoped advisory lock: they run one after another, as on SQLite, and each is a
//!   few statements long;
//! - `finish_job` checks the lease with `FOR UPDATE`, so no claim can take the job over between
//!   that check and the commit of everything the job wrote;
//! - a failed or released job whose pending twin holds the partial unique index `jobs_one_pending`
//!   is folded into it: the clash is caught under a savepoint, since an error aborts a
//!   PostgreSQL transaction where SQLite's only failed the statement.

use super::{PgStore, pg_error};
use crate::model::NewMemory;
use crate::redact::Redacted;
use crate::store::compression::{Comparable, Source, Summary};
use crate::store::contract::{JobWrites, Jobs};
use crate::store::facts::{FactOutcome, NewFact};
use crate::store::jobs::{EXTRACT_SESSION, Failure, Job, JobCounts, JobRow, Retry};
use crate::store::sql_numbers::{count_usize, sql_int};
use crate::store::standing::Cause;
use crate::store::usage::Usage;
use crate::store::{StoreError, content_hash};
use postgres::Transaction;
use postgres::error::SqlState;
use std::collections::HashSet;
use std::path::Path;

/// The advisory lock claims hold (any fixed number no other lock uses).
const CLAIM_LOCK: i64 = 0x616c_6574_6869_6132;

/// No pending job of type `$1` for the project and session of `q`. Checked before inserting,
/// though the unique index jobs_one_pending decides (ON CONFLICT DO NOTHING): an insert that
/// conflicts has already taken an id from the identity sequence, and job ids are shown to
/// people, so they stay dense as SQLite's are.
const NO_PENDING_TWIN: &str =
    "NOT EXISTS (SELECT 1 FROM jobs t WHERE t.type = $1 AND t.state = 'pending'
       AND t.project = q.project AND coalesce(t.session_id, '') = coalesce(q.session_id, ''))";

const JOB_COLUMNS: &str =
    "id, project, session_id, state, attempts, run_after, last_error, result, updated_at";

fn job_row(r: &postgres::Row) -> JobRow {
    JobRow {
        id: r.get(0),
        project: r.get(1),
        session_id: r.get(2),
        state: r.get(3),
        attempts: r.get(4),
        run_after: r.get(5),
        last_error: r.get(6),
        result: r.get(7),
        updated_at: r.get(8),
    }
}

/// Whether `e` is the clash with another pending job for the same session.
fn is_unique_violation(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

/// Run `update` under a savepoint; when it clashes with a pending twin, run `fold` instead.
/// `Ok(Some(n))`: the update changed `n` rows; `Ok(None)`: it was folded.
fn update_or_fold(
    tx: &mut Transaction<'_>,
    update: (&str, &[&(dyn postgres::types::ToSql + Sync)]),
    fold: (&str, &[&(dyn postgres::types::ToSql + Sync)]),
) -> Result<Option<u64>, postgres::Error> {
    let mut sp = tx.transaction()?;
    match sp.execute(update.0, update.1) {
        Ok(n) => {
            sp.commit()?;
            Ok(Some(n))
        }
        Err(e) if is_unique_violation(&e) => {
            sp.rollback()?;
            tx.execute(fold.0, fold.1)?;
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

impl Jobs for PgStore {
    fn jobs_from_queue(&mut self, now: i64) -> Result<usize, StoreError> {
        // One statement: the pending entries are marked and their jobs added in queue order; a
        // session whose job is already pending gets no second one (jobs_one_pending). A second
        // process running this at once waits on the rows this one marked and then finds them
        // jobbed.
        self.with(|c| {
            c.execute(
                &format!(
                    "WITH q AS (
                         UPDATE session_queue SET state = 'jobbed' WHERE state = 'pending'
                         RETURNING id, project, session_id, enqueued_at)
                     INSERT INTO jobs (type, project, session_id, run_after, created_at, updated_at)
                     SELECT $1, q.project, q.session_id, $2, $2, $2 FROM q
                     WHERE {NO_PENDING_TWIN}
                     ORDER BY q.enqueued_at, q.id
                     ON CONFLICT DO NOTHING"
                ),
                &[&EXTRACT_SESSION, &now],
            )
        })
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn queue_project_job(&mut self, project: &str, now: i64) -> Result<bool, StoreError> {
        let n = self.with(|c| {
            c.execute(
                &format!(
                    "INSERT INTO jobs (type, project, session_id, run_after, created_at, updated_at)
                     SELECT $1, q.project, q.session_id, $3, $3, $3
                     FROM (SELECT $2::text AS project, NULL::text AS session_id) AS q
                     WHERE {NO_PENDING_TWIN}
                     ON CONFLICT DO NOTHING"
                ),
                &[&EXTRACT_SESSION, &project, &now],
            )
        })?;
        Ok(n > 0)
    }

    fn claim_job(
        &mut self,
        owner: &str,
        now: i64,
        lease_ms: i64,
        max_attempts: i64,
    ) -> Result<Option<Job>, StoreError> {
        self.write(|tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&CLAIM_LOCK])?;
            // Each statement reads what committed before it began (READ COMMITTED), so the
            // claim below sees every claim that held the lock before this one.
            tx.execute(
                "UPDATE jobs SET state = 'failed', lease_owner = NULL, lease_until = NULL, updated_at = $1,
                     last_error = coalesce(last_error || '; ', '') || 'the worker stopped mid-job and its lease expired'
                 WHERE id IN (SELECT id FROM jobs WHERE state = 'running' AND lease_until <= $1
                                AND attempts >= $2 FOR UPDATE SKIP LOCKED)",
                &[&now, &max_attempts],
            )?;
            let row = tx.query_opt(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $2,
                     lease_until = $3, updated_at = $1
                 WHERE id = (
                     SELECT j.id FROM jobs j
                     WHERE ((j.state = 'pending' AND j.run_after <= $1)
                            OR (j.state = 'running' AND j.lease_until <= $1))
                       AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.id <> j.id AND r.state = 'running'
                                         AND r.lease_until > $1 AND r.project = j.project
                                         AND r.session_id IS NOT DISTINCT FROM j.session_id)
                     ORDER BY j.run_after, j.id LIMIT 1
                     FOR UPDATE OF j SKIP LOCKED)
                 RETURNING id, project, session_id, attempts",
                &[&now, &owner, &(now + lease_ms)],
            )?;
            Ok(row.map(|r| Job {
                id: r.get(0),
                project: r.get(1),
                session_id: r.get(2),
                attempts: r.get(3),
                owner: owner.to_owned(),
            }))
        })
    }

    fn renew_lease(&mut self, job: &Job, now: i64, lease_ms: i64) -> Result<bool, StoreError> {
        let n = self.with(|c| {
            c.execute(
                "UPDATE jobs SET lease_until = $3, updated_at = $4
                 WHERE id = $1 AND lease_owner = $2 AND state = 'running'",
                &[&job.id, &job.owner, &(now + lease_ms), &now],
            )
        })?;
        Ok(n == 1)
    }

    fn fail_job(
        &mut self,
        job: &Job,
        error: &Redacted<Failure>,
        now: i64,
        retry_at: i64,
        max_attempts: i64,
    ) -> Result<Retry, StoreError> {
        let out_of_attempts = job.attempts >= max_attempts;
        let error = &error.get().0;
        self.write(|tx| {
            let updated = update_or_fold(
                tx,
                (
                    "UPDATE jobs SET state = CASE WHEN $3 THEN 'failed' ELSE 'pending' END,
                         run_after = $4, last_error = $5, lease_owner = NULL, lease_until = NULL, updated_at = $6
                     WHERE id = $1 AND lease_owner = $2 AND state = 'running'",
                    &[&job.id, &job.owner, &out_of_attempts, &retry_at, error, &now],
                ),
                // Another pending job for the same session was queued meanwhile: this one is
                // folded into it, since that job reads everything not yet extracted.
                (
                    "UPDATE jobs SET state = 'done', last_error = $3, lease_owner = NULL, lease_until = NULL,
                         result = '{\"folded\":true}', updated_at = $4
                     WHERE id = $1 AND lease_owner = $2",
                    &[&job.id, &job.owner, error, &now],
                ),
            )?;
            Ok(match updated {
                Some(1) if out_of_attempts => Retry::Failed,
                Some(1) => Retry::At(retry_at),
                Some(_) => Retry::LostLease,
                None => Retry::Folded,
            })
        })
    }

    fn release_job(&mut self, job: &Job, now: i64) -> Result<Retry, StoreError> {
        self.write(|tx| {
            let updated = update_or_fold(
                tx,
                (
                    "UPDATE jobs SET state = 'pending', attempts = greatest(attempts - 1, 0), run_after = $3,
                         lease_owner = NULL, lease_until = NULL, updated_at = $3
                     WHERE id = $1 AND lease_owner = $2 AND state = 'running'",
                    &[&job.id, &job.owner, &now],
                ),
                // A pending twin exists: it will read everything this one would have.
                (
                    "UPDATE jobs SET state = 'done', result = '{\"folded\":true}', lease_owner = NULL,
                         lease_until = NULL, updated_at = $3 WHERE id = $1 AND lease_owner = $2",
                    &[&job.id, &job.owner, &now],
                ),
            )?;
            Ok(match updated {
                Some(1) => Retry::At(now),
                Some(_) => Retry::LostLease,
                None => Retry::Folded,
            })
        })
    }

    fn finish_job(
        &mut self,
        job: &Job,
        now: i64,
        write: &mut dyn FnMut(&mut dyn JobWrites) -> Result<String, StoreError>,
    ) -> Result<bool, StoreError> {
        let name = &self.name;
        self.write_or(|tx| {
            // The row stays locked until the commit: a claim skips it, so the lease checked
            // here is still the owner's when the job's writes and its done mark commit.
            let ours = tx
                .query_opt(
                    "SELECT 1 FROM jobs WHERE id = $1 AND lease_owner = $2 AND state = 'running'
                     FOR UPDATE",
                    &[&job.id, &job.owner],
                )
                .map_err(|e| pg_error(name, e))?
                .is_some();
            if !ours {
                return Ok(false);
            }
            let result = write(&mut PgJobWrites { tx, name })?;
            tx.execute(
                "UPDATE jobs SET state = 'done', result = $2, last_error = NULL, lease_owner = NULL,
                     lease_until = NULL, updated_at = $3 WHERE id = $1",
                &[&job.id, &result, &now],
            )
            .map_err(|e| pg_error(name, e))?;
            Ok(true)
        })
    }

    fn job_counts(&self) -> Result<JobCounts, StoreError> {
        let rows = self.with(|c| {
            c.query(
                "SELECT 'queued', count(*) FROM session_queue WHERE state = 'pending'
                 UNION ALL SELECT state, count(*) FROM jobs GROUP BY state",
                &[],
            )
        })?;
        let mut counts = JobCounts::default();
        for r in rows {
            let n: i64 = r.get(1);
            match r.get::<_, &str>(0) {
                "queued" => counts.queued_sessions = n,
                "pending" => counts.pending = n,
                "running" => counts.running = n,
                "done" => counts.done = n,
                _ => counts.failed = n,
            }
        }
        Ok(counts)
    }

    fn recent_jobs(&self, limit: usize) -> Result<Vec<JobRow>, StoreError> {
        let rows = self.with(|c| {
            c.query(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM jobs ORDER BY updated_at DESC, id DESC LIMIT $1"
                ),
                &[&sql_int(limit)],
            )
        })?;
        Ok(rows.iter().map(job_row).collect())
    }

    fn next_job_due(&self) -> Result<Option<i64>, StoreError> {
        self.with(|c| {
            c.query_one(
                "SELECT min(run_after) FROM jobs WHERE state = 'pending'",
                &[],
            )
            .map(|r| r.get(0))
        })
    }

    fn compression_sources(
        &self,
        project: &str,
        session_id: Option<&str>,
    ) -> Result<Vec<Source>, StoreError> {
        let rows = self.with(|c| {
            c.query(
                "SELECT m.id, m.kind, m.session_id, m.title, m.text, m.created_at FROM memories m
                 WHERE m.project = $1 AND m.session_id IS NOT DISTINCT FROM $2
                   AND m.kind IN ('summary', 'note') AND NOT m.dismissed
                   AND NOT EXISTS (SELECT 1 FROM extracted e WHERE e.memory_id = m.id)
                 ORDER BY m.created_at, m.id",
                &[&project, &session_id],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| {
                let title: String = r.get(3);
                let text: String = r.get(4);
                Source {
                    id: r.get(0),
                    kind: r.get(1),
                    session_id: r.get(2),
                    // A hook's title is the text's first line; a note's title may add to it.
                    text: if text.trim().is_empty() || !text.starts_with(title.trim()) {
                        format!("{title}\n{text}").trim().to_owned()
                    } else {
                        text
                    },
                    created_at: r.get(5),
                }
            })
            .collect())
    }

    fn merge_candidates(&self, project: &str, limit: usize) -> Result<Vec<Comparable>, StoreError> {
        // ILIKE: SQLite's LIKE ignores the case of ASCII letters, and the prefix is ASCII.
        let rows = self.with(|c| {
            c.query(
                "SELECT m.id, m.title || ' ' || m.text, v.scale, v.vector FROM memories m
                   LEFT JOIN memory_vectors v ON v.memory_id = m.id
                 WHERE m.project = $1 AND m.kind IN ('summary', 'note', 'observation') AND NOT m.dismissed
                   AND m.title NOT ILIKE 'Project summary:%'
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $2",
                &[&project, &sql_int(limit)],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| {
                let scale: Option<f64> = r.get(2);
                let blob: Option<Vec<u8>> = r.get(3);
                Comparable {
                    id: r.get(0),
                    text: r.get(1),
                    vector: scale.zip(blob).map(|(s, b)| {
                        let s = super::vectors::stored_scale(s);
                        b.iter().map(|&q| f32::from(q.cast_signed()) * s).collect()
                    }),
                }
            })
            .collect())
    }

    fn record_usage(
        &mut self,
        day: &str,
        provider: &str,
        job: i64,
        chars_sent: usize,
        chars_received: usize,
    ) -> Result<(), StoreError> {
        // One statement, so the job's count and the day's move together.
        self.with(|c| {
            c.execute(
                "WITH j AS (UPDATE jobs SET chars_sent = chars_sent + $3 WHERE id = $1)
                 INSERT INTO provider_usage (day, provider, calls, chars_sent, chars_received)
                 VALUES ($2, $5, 1, $3, $4)
                 ON CONFLICT (day, provider) DO UPDATE SET calls = provider_usage.calls + 1,
                     chars_sent = provider_usage.chars_sent + EXCLUDED.chars_sent,
                     chars_received = provider_usage.chars_received + EXCLUDED.chars_received",
                &[
                    &job,
                    &day,
                    &sql_int(chars_sent),
                    &sql_int(chars_received),
                    &provider,
                ],
            )
        })
        .map(drop)
    }

    fn usage_between(&self, first: &str, last: &str) -> Result<Vec<Usage>, StoreError> {
        // COLLATE "C": SQLite compares and orders text by its bytes.
        let rows = self.with(|c| {
            c.query(
                "SELECT provider, sum(calls)::bigint, sum(chars_sent)::bigint, sum(chars_received)::bigint
                 FROM provider_usage
                 WHERE day >= $1 COLLATE \"C\" AND day <= $2 COLLATE \"C\"
                 GROUP BY provider ORDER BY provider COLLATE \"C\"",
                &[&first, &last],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| Usage {
                provider: r.get(0),
                calls: r.get(1),
                chars_sent: r.get(2),
                chars_received: r.get(3),
            })
            .collect())
    }

    fn sent_on(&self, day: &str) -> Result<usize, StoreError> {
        self.with(|c| {
            c.query_one(
                "SELECT coalesce(sum(chars_sent), 0)::bigint FROM provider_usage WHERE day = $1",
                &[&day],
            )
            .map(|r| count_usize(r.get(0)))
        })
    }

    fn sent_for_job(&self, job: i64) -> Result<usize, StoreError> {
        // A job that does not exist is an error, as on SQLite (no row to read).
        self.with(|c| {
            c.query_one("SELECT chars_sent FROM jobs WHERE id = $1", &[&job])
                .map(|r| count_usize(r.get(0)))
        })
    }

    fn ever_used(&self, provider: &str) -> Result<bool, StoreError> {
        self.with(|c| {
            c.query_one(
                "SELECT EXISTS (SELECT 1 FROM provider_usage WHERE provider = $1)",
                &[&provider],
            )
            .map(|r| r.get(0))
        })
    }
}

/// A finished job's writes on the transaction `finish_job` holds.
struct PgJobWrites<'a, 't> {
    tx: &'a mut Transaction<'t>,
    name: &'a Path,
}

impl PgJobWrites<'_, '_> {
    fn or_err<T>(&self, r: Result<T, postgres::Error>) -> Result<T, StoreError> {
        r.map_err(|e| pg_error(self.name, e))
    }
}

impl JobWrites for PgJobWrites<'_, '_> {
    fn dismissed_among(&mut self, ids: &[i64]) -> Result<HashSet<i64>, StoreError> {
        // A deleted memory counts as dismissed: nothing of it may be stored.
        let rows = self.tx.query(
            "SELECT i.id FROM unnest($1::bigint[]) AS i(id)
             WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = i.id AND NOT m.dismissed)",
            &[&ids],
        );
        Ok(self.or_err(rows)?.iter().map(|r| r.get(0)).collect())
    }

    fn mark_extracted(
        &mut self,
        ids: &[i64],
        job_id: i64,
        now: i64,
    ) -> Result<HashSet<i64>, StoreError> {
        let rows = mark_extracted(self.tx, ids, job_id, now);
        self.or_err(rows)
    }

    fn insert_fact(&mut self, f: &Redacted<NewFact>, now: i64) -> Result<FactOutcome, StoreError> {
        let outcome = super::facts::insert_fact_tx(self.tx, f, now);
        self.or_err(outcome)
    }

    fn supersede_by_facts(
        &mut self,
        closed: &[i64],
        newer: i64,
        now: i64,
    ) -> Result<usize, StoreError> {
        // As the SQLite store's: never a memory and itself, nor a pair both ways, and only a
        // memory left with no current fact.
        let n = self.tx.execute(
            "INSERT INTO memory_links (older, newer, cause, created_at)
             SELECT DISTINCT f.memory_id, $2::BIGINT, $3, $4::BIGINT FROM facts f
             WHERE f.id = ANY($1) AND f.memory_id IS NOT NULL AND f.memory_id <> $2
               AND EXISTS (SELECT 1 FROM memories WHERE id = f.memory_id)
               AND NOT EXISTS (SELECT 1 FROM memory_links l WHERE l.older = $2 AND l.newer = f.memory_id)
               AND NOT EXISTS (SELECT 1 FROM facts g WHERE g.memory_id = f.memory_id
                               AND g.valid_to IS NULL AND NOT g.dismissed)
             ON CONFLICT DO NOTHING",
            &[&closed, &newer, &Cause::Facts.as_str(), &now],
        );
        Ok(usize::try_from(self.or_err(n)?).unwrap_or(usize::MAX))
    }

    fn merge_into(
        &mut self,
        id: i64,
        into: i64,
        similarity: f32,
        now: i64,
    ) -> Result<bool, StoreError> {
        // A pinned memory is never merged away: the user asked for it to stay in view.
        let reason = format!("near-duplicate of #{into} (similarity {similarity:.2})");
        let n = self.tx.execute(
            "WITH d AS (
                 UPDATE memories SET dismissed = true WHERE id = $1 AND NOT dismissed AND NOT pinned
                 RETURNING id)
             INSERT INTO audit (at, action, item_type, item_id, reason, actor)
             SELECT $2, 'merge', 'memory', d.id::text, $3, 'compress' FROM d",
            &[&id, &now, &reason],
        );
        Ok(self.or_err(n)? == 1)
    }

    fn replace_summary(
        &mut self,
        memory_id: i64,
        summary: &Redacted<Summary>,
        now: i64,
    ) -> Result<bool, StoreError> {
        // The episode keeps the row's first original: both parts of the statement read the row
        // as it was before it, and an episode already there stays.
        let Summary { title, text } = summary.get();
        let n = self.tx.execute(
            "WITH e AS (
                 INSERT INTO episodes (memory_id, title, text, replaced_at)
                 SELECT id, title, text, $4 FROM memories WHERE id = $1 ON CONFLICT DO NOTHING)
             UPDATE memories SET title = $2, text = $3 WHERE id = $1",
            &[&memory_id, title, text, &now],
        );
        Ok(self.or_err(n)? == 1)
    }

    fn summary_facts(&mut self, project: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let rows = self.tx.query(
            "SELECT subject, predicate, object FROM facts
             WHERE project = $1 AND valid_to IS NULL AND NOT dismissed
             ORDER BY confidence DESC, valid_from DESC, id LIMIT $2",
            &[&project, &sql_int(limit)],
        );
        Ok(self
            .or_err(rows)?
            .iter()
            .map(|r| {
                format!(
                    "{} {} {}",
                    r.get::<_, &str>(0),
                    r.get::<_, &str>(1),
                    r.get::<_, &str>(2)
                )
            })
            .collect())
    }

    fn upsert_project_summary(
        &mut self,
        m: &Redacted<NewMemory>,
        job_id: i64,
        now: i64,
    ) -> Result<Option<i64>, StoreError> {
        let id = upsert_project_summary(self.tx, m, job_id, now);
        self.or_err(id)
    }
}

/// Mark memories as read by `job_id`; those that were not marked before (a memory read by a
/// job that lost its lease is not read again).
fn mark_extracted(
    tx: &mut Transaction<'_>,
    ids: &[i64],
    job_id: i64,
    now: i64,
) -> Result<HashSet<i64>, postgres::Error> {
    let rows = tx.query(
        "INSERT INTO extracted (memory_id, job_id, at)
         SELECT id, $2, $3 FROM unnest($1::bigint[]) AS i(id)
         ON CONFLICT DO NOTHING RETURNING memory_id",
        &[&ids, &job_id, &now],
    )?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Write the project's summary: the one row whose title starts with `Project summary:`,
/// updated in place, else inserted; marked extracted, so no job reads it as a source. Its id,
/// or `None` when a new row was not stored (the same summary is already a memory).
fn upsert_project_summary(
    tx: &mut Transaction<'_>,
    m: &Redacted<NewMemory>,
    job_id: i64,
    now: i64,
) -> Result<Option<i64>, postgres::Error> {
    let new = m.get();
    let hash = content_hash(&new.title, &new.text);
    let existing: Option<i64> = tx
        .query_opt(
            "SELECT id FROM memories WHERE project = $1 AND kind = 'summary' AND session_id IS NULL
               AND title ILIKE 'Project summary:%' ORDER BY id LIMIT 1",
            &[&new.project],
        )?
        .map(|r| r.get(0));
    let id = match existing {
        Some(id) => {
            // SQLite's UPDATE OR IGNORE: left as it is when another summary memory of the
            // project already holds this content (the unique key would clash).
            tx.execute(
                "UPDATE memories SET title = $2, text = $3, content_hash = $4, created_at = $5,
                     dismissed = false
                 WHERE id = $1 AND NOT EXISTS (
                     SELECT 1 FROM memories o WHERE o.project = $6 AND o.kind = 'summary'
                       AND o.content_hash = $4 AND o.id <> $1)",
                &[&id, &new.title, &new.text, &hash, &now, &new.project],
            )?;
            Some(id)
        }
        None => insert_memory(tx, new, &hash)?,
    };
    if let Some(id) = id {
        mark_extracted(tx, &[id], job_id, now)?;
    }
    Ok(id)
}

/// Insert a memory as the store's insert does (a new uid, its file paths indexed); its id, or
/// `None` when the same content is already stored.
fn insert_memory(
    tx: &mut Transaction<'_>,
    m: &NewMemory,
    hash: &str,
) -> Result<Option<i64>, postgres::Error> {
    let uid = uuid::Uuid::now_v7().to_string();
    let files = serde_json::to_string(&m.files).unwrap_or_else(|_| "[]".into());
    let id: Option<i64> = tx
        .query_opt(
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                                   pinned, dismissed, created_at, content_hash)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false, $11, $12)
             ON CONFLICT DO NOTHING RETURNING id",
            &[
                &uid,
                &m.project,
                &m.kind.as_str(),
                &m.mtype.as_str(),
                &m.title,
                &m.text,
                &m.host,
                &m.session_id,
                &files,
                &m.pinned,
                &m.created_at,
                &hash,
            ],
        )?
        .map(|r| r.get(0));
    if let Some(id) = id {
        tx.execute(
            "INSERT INTO memory_files (path, memory_id) SELECT p, $2 FROM unnest($1::text[]) AS p
             ON CONFLICT DO NOTHING",
            &[&m.files, &id],
        )?;
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::model::{Kind, MemoryType};
    use crate::redact::Redactor;
    use crate::store::contract::Vectors;
    use crate::store::{OpenOptions, QueuedSession, Store};
    use std::fmt::Debug;

    const LEASE: i64 = 60_000;

    fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
        Redacted::new(v, &Redactor::builtin())
    }

    fn sqlite() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        (dir, s)
    }

    /// A memory as the tests store it, with its id given so both engines hold the same rows.
    struct Row<'a> {
        id: i64,
        kind: &'a str,
        session: Option<&'a str>,
        title: &'a str,
        text: &'a str,
        at: i64,
        pinned: bool,
        dismissed: bool,
    }

    /// What the tests write below the contract: memories and queue entries (another part
    /// writes those), and what they read back to compare.
    trait Raw: Jobs + Vectors {
        fn memory(&mut self, m: &Row<'_>);
        fn queue(&mut self, session: &str, at: i64);
        /// Memories, episodes, audit entries and extraction marks, one line each.
        fn dump(&mut self) -> Vec<String>;
    }

    impl Raw for Store {
        fn memory(&mut self, m: &Row<'_>) {
            self.conn()
                .execute(
                    "INSERT INTO memories (id, uid, project, kind, type, title, text, tool, session_id,
                                           pinned, dismissed, created_at, content_hash)
                     VALUES (?1, ?1, 'shop', ?2, 'note', ?3, ?4, 'cli', ?5, ?6, ?7, ?8, ?1)",
                    rusqlite::params![
                        m.id, m.kind, m.title, m.text, m.session, m.pinned, m.dismissed, m.at
                    ],
                )
                .unwrap();
        }

        fn queue(&mut self, session: &str, at: i64) {
            let queued = redacted(QueuedSession {
                project: "shop".into(),
                session_id: session.into(),
                host: "claude-code".into(),
            });
            self.write(|tx| crate::store::queue::enqueue_tx(tx, &queued, at))
                .unwrap();
        }

        fn dump(&mut self) -> Vec<String> {
            let mut stmt = self
                .conn()
                .prepare(
                    "SELECT 'memory ' || id || ' ' || title || ' | ' || text || ' dismissed ' || dismissed FROM memories
                     UNION ALL SELECT 'episode ' || memory_id || ' ' || title || ' | ' || text FROM episodes
                     UNION ALL SELECT 'audit ' || action || ' ' || item_id || ' ' || reason || ' ' || actor FROM audit
                     UNION ALL SELECT 'extracted ' || memory_id || ' by ' || job_id FROM extracted
                     ORDER BY 1",
                )
                .unwrap();
            stmt.query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        }
    }

    impl Raw for PgStore {
        fn memory(&mut self, m: &Row<'_>) {
            insert_row(self, m);
        }

        fn queue(&mut self, session: &str, at: i64) {
            self.with(|c| {
                c.execute(
                    "INSERT INTO session_queue (project, session_id, tool, enqueued_at)
                     VALUES ('shop', $1, 'claude-code', $2)
                     ON CONFLICT (project, session_id) DO UPDATE SET state = 'pending',
                         enqueued_at = greatest(session_queue.enqueued_at, EXCLUDED.enqueued_at)",
                    &[&session, &at],
                )
            })
            .unwrap();
        }

        fn dump(&mut self) -> Vec<String> {
            self.with(|c| {
                c.query(
                    "SELECT line FROM (
                         SELECT 'memory ' || id || ' ' || title || ' | ' || text || ' dismissed ' || dismissed::int FROM memories
                         UNION ALL SELECT 'episode ' || memory_id || ' ' || title || ' | ' || text FROM episodes
                         UNION ALL SELECT 'audit ' || action || ' ' || item_id || ' ' || reason || ' ' || actor FROM audit
                         UNION ALL SELECT 'extracted ' || memory_id || ' by ' || job_id FROM extracted
                     ) AS d(line) ORDER BY line COLLATE \"C\"",
                    &[],
                )
            })
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
        }
    }

    /// A memory inserted with plain SQL (the memories part is another's), keeping its id; the
    /// id sequence moves past it, as `hub migrate` moves it past the rows it copies.
    fn insert_row(pg: &PgStore, m: &Row<'_>) {
        pg.with(|c| {
            c.execute(
                "INSERT INTO memories (id, uid, project, kind, type, title, text, tool, session_id,
                                       pinned, dismissed, created_at, content_hash)
                 VALUES ($1, $9, 'shop', $2, 'note', $3, $4, 'cli', $5, $6, $7, $8, $9)",
                &[
                    &m.id,
                    &m.kind,
                    &m.title,
                    &m.text,
                    &m.session,
                    &m.pinned,
                    &m.dismissed,
                    &m.at,
                    &m.id.to_string(),
                ],
            )?;
            c.execute(
                "SELECT setval(pg_get_serial_sequence('memories', 'id'), max(id)) FROM memories",
                &[],
            )
        })
        .unwrap();
    }

    fn note(id: i64, session: Option<&'static str>, text: &'static str, at: i64) -> Row<'static> {
        Row {
            id,
            kind: "note",
            session,
            title: text,
            text,
            at,
            pinned: false,
            dismissed: false,
        }
    }

    fn summary() -> Redacted<NewMemory> {
        redacted(NewMemory {
            project: "shop".into(),
            kind: Kind::Summary,
            mtype: MemoryType::Note,
            title: "Project summary: shop".into(),
            text: "shop bills in cents".into(),
            host: "compress".into(),
            session_id: None,
            files: vec!["src/bill.rs".into()],
            pinned: false,
            created_at: 5,
        })
    }

    /// The same calls on any engine, each answer logged as one line.
    fn lifecycle<S: Raw>(s: &mut S) -> Vec<String> {
        let mut log = Vec::new();
        let mut say = |what: &str, v: &dyn Debug| log.push(format!("{what}: {v:?}"));
        for m in [
            Row {
                kind: "summary",
                title: "Session ends",
                ..note(1, Some("s1"), "Session ends with the bill fixed", 1)
            },
            note(2, Some("s1"), "bills round down", 2),
            note(3, None, "invoices go out monthly", 3),
            Row {
                kind: "observation",
                ..note(4, None, "ran the billing tests", 4)
            },
            Row {
                dismissed: true,
                ..note(5, Some("s1"), "a dismissed note", 5)
            },
            Row {
                pinned: true,
                ..note(6, Some("s1"), "a pinned note", 6)
            },
        ] {
            s.memory(&m);
        }
        s.queue("s1", 1);
        s.queue("s2", 2);
        say("from queue", &s.jobs_from_queue(10).unwrap());
        s.queue("s1", 11);
        say("from queue again", &s.jobs_from_queue(12).unwrap());
        say("project job", &s.queue_project_job("shop", 12).unwrap());
        say(
            "project job again",
            &s.queue_project_job("shop", 13).unwrap(),
        );
        say("counts", &s.job_counts().unwrap());
        say("due", &s.next_job_due().unwrap());

        let j1 = s.claim_job("w1", 20, LEASE, 3).unwrap().unwrap();
        let j2 = s.claim_job("w2", 20, LEASE, 3).unwrap().unwrap();
        let j3 = s.claim_job("w3", 20, LEASE, 3).unwrap().unwrap();
        say("claimed", &(&j1, &j2, &j3));
        say("nothing left", &s.claim_job("w4", 20, LEASE, 3).unwrap());
        say("renew", &s.renew_lease(&j1, 30, LEASE).unwrap());
        let stranger = Job {
            owner: "w9".into(),
            ..j1.clone()
        };
        say(
            "renew by another",
            &s.renew_lease(&stranger, 30, LEASE).unwrap(),
        );
        let boom = redacted(Failure(
            "provider said: token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB".into(),
        ));
        say("fail", &s.fail_job(&j2, &boom, 31, 1031, 3).unwrap());
        say("fail again", &s.fail_job(&j2, &boom, 31, 1031, 3).unwrap());
        say(
            "before its retry",
            &s.claim_job("w4", 1000, LEASE, 3).unwrap(),
        );
        s.queue("s1", 40);
        say("twin queued", &s.jobs_from_queue(41).unwrap());
        say("release into twin", &s.release_job(&j1, 42).unwrap());
        say("release lost", &s.release_job(&j1, 43).unwrap());
        say(
            "sources s1",
            &s.compression_sources("shop", Some("s1")).unwrap(),
        );
        say(
            "sources project",
            &s.compression_sources("shop", None).unwrap(),
        );

        let j4 = s.claim_job("w1", 1031, LEASE, 3).unwrap().unwrap();
        let j5 = s.claim_job("w2", 1031, LEASE, 3).unwrap().unwrap();
        say("claimed after retry", &(&j4, &j5));
        s.put_vectors("m", &[(2, vec![0.6, 0.8]), (3, vec![-1.0, 0.5])])
            .unwrap();
        say("merge candidates", &s.merge_candidates("shop", 10).unwrap());
        let fact = redacted(NewFact {
            project: "shop".into(),
            subject: "bills".into(),
            predicate: "round".into(),
            object: "down".into(),
            confidence: 0.8,
            source: "rules".into(),
            memory_id: Some(2),
            valid_from: 2,
            job_id: Some(j4.id),
        });
        let later = redacted(NewFact {
            project: "shop".into(),
            subject: "bills".into(),
            predicate: "round".into(),
            object: "up".into(),
            confidence: 0.8,
            source: "rules".into(),
            memory_id: Some(3),
            valid_from: 3,
            job_id: Some(j4.id),
        });
        let generated = redacted(Summary {
            title: "Fixed the bill".into(),
            text: "Fixed the bill's rounding; key ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"
                .into(),
        });
        let mut wrote = Vec::new();
        let finished = s
            .finish_job(&j4, 1040, &mut |w: &mut dyn JobWrites| {
                let mut gone: Vec<i64> = w.dismissed_among(&[1, 2, 5, 99])?.into_iter().collect();
                gone.sort_unstable();
                let mut fresh: Vec<i64> = w
                    .mark_extracted(&[1, 2, 6], j4.id, 1040)?
                    .into_iter()
                    .collect();
                fresh.sort_unstable();
                let again = w.mark_extracted(&[1, 2], j4.id, 1040)?;
                wrote.push(format!("{gone:?} {fresh:?} {again:?}"));
                let first = w.insert_fact(&fact, 1040)?;
                wrote.push(format!("{first:?}"));
                wrote.push(format!("{:?}", w.insert_fact(&fact, 1041)?));
                // While memory 2's fact is current, nothing replaces memory 2.
                if let FactOutcome::New(id) = first {
                    wrote.push(format!("{:?}", w.supersede_by_facts(&[id], 3, 1040)?));
                }
                // Memory 3 says otherwise and closes it: memory 3 replaces memory 2, once, and
                // memory 2 never replaces itself.
                let closed = w.insert_fact(&later, 1042)?;
                wrote.push(format!("{closed:?}"));
                if let FactOutcome::Superseded { closed, .. } = closed {
                    wrote.push(format!("{:?}", w.supersede_by_facts(&closed, 3, 1042)?));
                    wrote.push(format!("{:?}", w.supersede_by_facts(&closed, 3, 1043)?));
                    wrote.push(format!("{:?}", w.supersede_by_facts(&closed, 2, 1042)?));
                }
                wrote.push(format!("{:?}", w.summary_facts("shop", 5)?));
                wrote.push(format!("{:?}", w.replace_summary(1, &generated, 1040)?));
                wrote.push(format!("{:?}", w.replace_summary(1, &generated, 1041)?));
                wrote.push(format!("{:?}", w.replace_summary(99, &generated, 1041)?));
                wrote.push(format!("{:?}", w.merge_into(2, 1, 0.934, 1040)?));
                wrote.push(format!("{:?}", w.merge_into(6, 1, 0.95, 1040)?));
                wrote.push(format!(
                    "{:?}",
                    w.upsert_project_summary(&summary(), j4.id, 1040)?
                ));
                Ok("{\"facts\":1}".into())
            })
            .unwrap();
        say("finished", &(finished, &wrote));

        // The project job's lease runs out; another worker takes it over, and the first
        // worker's finish writes nothing.
        let j6 = s.claim_job("w5", 20 + LEASE, LEASE, 3).unwrap().unwrap();
        say("taken over", &j6);
        say(
            "lost finish",
            &s.finish_job(&j3, 20 + LEASE, &mut |w: &mut dyn JobWrites| {
                w.mark_extracted(&[3], j3.id, 20 + LEASE)?;
                Ok("{}".into())
            })
            .unwrap(),
        );
        let mut again = None;
        say(
            "finish",
            &s.finish_job(&j6, 21 + LEASE, &mut |w: &mut dyn JobWrites| {
                again = Some(w.upsert_project_summary(&summary(), j6.id, 21 + LEASE)?);
                Ok("{}".into())
            })
            .unwrap(),
        );
        say("summary upserted in place", &again);
        say(
            "fail for good",
            &s.fail_job(&j5, &boom, 1050, 2050, 2).unwrap(),
        );

        // A lease that runs out on the last attempt fails the job.
        s.queue("s3", 1060);
        s.jobs_from_queue(1060).unwrap();
        let last = s.claim_job("w6", 1060, 100, 1).unwrap().unwrap();
        say("last attempt", &last);
        say(
            "expired on its last",
            &s.claim_job("w7", 1160, 100, 1).unwrap(),
        );

        for (day, provider, job, sent, received) in [
            ("2026-01-01", "openai", j4.id, 100, 10),
            ("2026-01-01", "openai", j4.id, 50, 5),
            ("2026-01-01", "anthropic", j5.id, 7, 1),
            ("2026-01-02", "Zed", j5.id, 3, 0),
            ("2026-01-03", "openai", j5.id, 1, 1),
        ] {
            s.record_usage(day, provider, job, sent, received).unwrap();
        }
        say(
            "usage",
            &s.usage_between("2026-01-01", "2026-01-02").unwrap(),
        );
        say("sent on", &s.sent_on("2026-01-01").unwrap());
        say("sent on nothing", &s.sent_on("2025-01-01").unwrap());
        say(
            "sent for job",
            &(
                s.sent_for_job(j4.id).unwrap(),
                s.sent_for_job(j5.id).unwrap(),
            ),
        );
        say("sent for no job", &s.sent_for_job(999).is_err());
        say(
            "ever used",
            &(
                s.ever_used("openai").unwrap(),
                s.ever_used("mistral").unwrap(),
            ),
        );
        say("counts", &s.job_counts().unwrap());
        say("due", &s.next_job_due().unwrap());
        say("jobs", &s.recent_jobs(usize::MAX).unwrap());
        say("two jobs", &s.recent_jobs(2).unwrap().len());
        say(
            "sources s1",
            &s.compression_sources("shop", Some("s1")).unwrap(),
        );
        say(
            "sources project",
            &s.compression_sources("shop", None).unwrap(),
        );
        say("rows", &s.dump());
        log
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_jobs_life_answers_as_on_sqlite() {
        let (_dir, mut lite) = sqlite();
        let mut pg = testing::fresh();
        let expected = lifecycle(&mut lite);
        let got = lifecycle(&mut pg);
        for (e, g) in expected.iter().zip(&got) {
            assert_eq!(g, e);
        }
        assert_eq!(got.len(), expected.len());
        // One link from the fact's memory to the one that closed it, once, never to itself.
        let finished = expected.iter().find(|l| l.starts_with("finished")).unwrap();
        assert!(finished.contains(r#""0", "Superseded"#), "{finished}");
        assert!(finished.contains(r#"] }", "1", "0", "0""#), "{finished}");
        // The provider's error was stored redacted, as on SQLite.
        let kept: String = pg
            .with(|c| c.query_one("SELECT last_error FROM jobs WHERE id = 2", &[]))
            .unwrap()
            .get(0);
        assert!(!kept.contains("ghp_1234567890"), "{kept}");
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_job_whose_writes_fail_leaves_nothing_written_and_stays_claimed() {
        let mut s = testing::fresh();
        insert_row(&s, &note(1, None, "billing stores invoices", 1));
        s.queue_project_job("shop", 0).unwrap();
        let job = s.claim_job("w", 0, LEASE, 5).unwrap().unwrap();
        let failed = s.finish_job(&job, 1, &mut |w: &mut dyn JobWrites| {
            w.mark_extracted(&[1], job.id, 1)?;
            // A memory that does not exist breaks the extraction mark's foreign key.
            w.mark_extracted(&[404], job.id, 1)?;
            Ok("{}".into())
        });
        assert!(failed.unwrap_err().is_constraint());
        assert_eq!(s.compression_sources("shop", None).unwrap().len(), 1);
        assert_eq!(s.job_counts().unwrap().running, 1);
        assert!(s.renew_lease(&job, 2, LEASE).unwrap());
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn two_connections_claiming_at_once_never_get_the_same_job() {
        const JOBS: usize = 40;
        let url = testing::fresh_database();
        let mut setup = PgStore::open(&url).unwrap();
        for i in 0..JOBS {
            setup.queue_project_job(&format!("p{i}"), 0).unwrap();
        }
        let start = std::sync::Arc::new(std::sync::Barrier::new(2));
        let workers: Vec<_> = ["w1", "w2"]
            .into_iter()
            .map(|owner| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    let mut s = PgStore::open(&url).unwrap();
                    start.wait();
                    let mut got = Vec::new();
                    while let Some(job) = s.claim_job(owner, 1, LEASE, 5).unwrap() {
                        got.push(job.id);
                    }
                    got
                })
            })
            .collect();
        let mut all: Vec<i64> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        all.sort_unstable();
        let claimed = all.len();
        all.dedup();
        assert_eq!(all.len(), claimed, "a job was claimed twice");
        assert_eq!(claimed, JOBS, "every job was claimed");
        let c = setup.job_counts().unwrap();
        assert_eq!((c.running, c.pending), (40, 0));
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn two_connections_claiming_at_once_never_run_one_session_twice() {
        // A session's job whose worker died (its lease expired) and the session's pending twin:
        // each claimer may take one of them, but never both at once.
        let url = testing::fresh_database();
        for round in 0..10 {
            let mut setup = PgStore::open(&url).unwrap();
            setup.queue(&format!("s{round}"), 0);
            setup.jobs_from_queue(0).unwrap();
            setup.claim_job("dead", 0, 10, 5).unwrap().unwrap();
            setup.queue(&format!("s{round}"), 1);
            assert_eq!(setup.jobs_from_queue(1).unwrap(), 1);
            let start = std::sync::Arc::new(std::sync::Barrier::new(2));
            let claims: Vec<_> = ["w1", "w2"]
                .into_iter()
                .map(|owner| {
                    let (url, start) = (url.clone(), start.clone());
                    std::thread::spawn(move || {
                        let mut s = PgStore::open(&url).unwrap();
                        start.wait();
                        s.claim_job(owner, 100, LEASE, 5).unwrap()
                    })
                })
                .collect();
            let got: Vec<Job> = claims
                .into_iter()
                .filter_map(|c| c.join().unwrap())
                .collect();
            assert_eq!(got.len(), 1, "round {round}: {got:?}");
            let live = setup
                .with(|c| {
                    c.query_one(
                        "SELECT count(*) FROM jobs WHERE state = 'running' AND lease_until > 100",
                        &[],
                    )
                })
                .unwrap()
                .get::<_, i64>(0);
            assert_eq!(live, 1);
            setup
                .with(|c| c.execute("UPDATE jobs SET state = 'done'", &[]))
                .unwrap();
        }
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_claim_while_the_owner_finishes_passes_the_job_by() {
        let url = testing::fresh_database();
        let mut owner = PgStore::open(&url).unwrap();
        let mut other = PgStore::open(&url).unwrap();
        insert_row(&owner, &note(1, None, "billing stores invoices", 1));
        owner.queue_project_job("shop", 0).unwrap();
        let job = owner.claim_job("w1", 0, 10, 5).unwrap().unwrap();
        // The lease has run out, but its owner is finishing: the row is locked, so a claim on
        // another connection passes it by at once instead of taking it over.
        let finished = owner
            .finish_job(&job, 20, &mut |w: &mut dyn JobWrites| {
                w.mark_extracted(&[1], job.id, 20)?;
                assert_eq!(other.claim_job("w2", 20, LEASE, 5).unwrap(), None);
                Ok("{}".into())
            })
            .unwrap();
        assert!(finished);
        assert_eq!(other.claim_job("w2", 21, LEASE, 5).unwrap(), None);
        assert_eq!(other.job_counts().unwrap().done, 1);
    }
}
