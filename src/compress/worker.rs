//! The worker: turns queue entries into jobs, claims them one at a time, runs them, and
//! records how each ended (done, retried with backoff, failed with its reason, or released
//! when the worker stops). `aletheia compress` drains once; `--daemon` ticks.
//!
//! What the worker needs from its edge comes in an [`Extraction`]: the providers the user
//! chose (none means the rule extractor), the limits, the clock, and the stop flag a signal
//! handler sets.

use super::job::{self, JobError, JobReport};
use super::provider::{Provider, ProviderError, Reply};
use super::window::Limits;
use crate::embed::model::Embedder;
use crate::redact::{Redacted, Redactor};
use crate::store::jobs::{Failure, Job, Retry};
use crate::store::{Storage, StoreError};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A claimed job's lease.
pub const LEASE_MS: i64 = 60_000;
/// Attempts before a job fails for good.
pub const MAX_ATTEMPTS: i64 = 5;
/// The retry delay's ceiling.
pub const MAX_BACKOFF_MS: i64 = 60_000;
/// How often a long-running worker looks at the queue.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(2);

/// The delay before retrying a job that failed its `attempts`-th attempt: 1 s, 2 s, 4 s, …,
/// at most 60 s.
pub fn backoff_ms(attempts: i64) -> i64 {
    let doublings = attempts.clamp(1, 32) - 1;
    (1000i64 << doublings).min(MAX_BACKOFF_MS)
}

/// The caps on what is sent to model providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub chars_per_job: usize,
    pub chars_per_day: usize,
}

impl Default for Budget {
    /// About 25,000 and 250,000 tokens.
    fn default() -> Budget {
        Budget {
            chars_per_job: 100_000,
            chars_per_day: 1_000_000,
        }
    }
}

/// The worker's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub limits: Limits,
    pub budget: Budget,
    pub lease_ms: i64,
    pub max_attempts: i64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            limits: Limits::default(),
            budget: Budget::default(),
            lease_ms: LEASE_MS,
            max_attempts: MAX_ATTEMPTS,
        }
    }
}

impl Settings {
    /// The defaults, with what the user set: `ALETHEIA_WINDOW_ITEMS`, `ALETHEIA_WINDOW_CHARS`,
    /// `ALETHEIA_PROVIDER_JOB_CHARS`, `ALETHEIA_PROVIDER_DAY_CHARS`.
    pub fn from_lookup(lookup: &dyn Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let mut s = Settings::default();
        let read = |name: &str, slot: &mut usize| -> Result<(), String> {
            if let Some(v) = lookup(name).filter(|v| !v.trim().is_empty()) {
                *slot = v
                    .trim()
                    .replace('_', "")
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        format!("{name} must be a positive whole number, not \"{v}\".")
                    })?;
            }
            Ok(())
        };
        read("ALETHEIA_WINDOW_ITEMS", &mut s.limits.max_items)?;
        read("ALETHEIA_WINDOW_CHARS", &mut s.limits.max_chars)?;
        read("ALETHEIA_PROVIDER_JOB_CHARS", &mut s.budget.chars_per_job)?;
        read("ALETHEIA_PROVIDER_DAY_CHARS", &mut s.budget.chars_per_day)?;
        Ok(s)
    }
}

/// Everything a worker runs with.
pub struct Extraction {
    /// In fallback order; empty for the rule extractor.
    pub providers: Vec<Box<dyn Provider>>,
    pub settings: Settings,
    /// The lease owner token: unique per worker.
    pub owner: String,
    /// Set to stop at the next window: the current job is released, not failed.
    pub stop: Arc<AtomicBool>,
    /// With the model loaded, merges compare sentence vectors.
    pub embedder: Option<Arc<Embedder>>,
    /// Epoch milliseconds now; tests pass their own.
    pub now: Box<dyn Fn() -> i64 + Send + Sync>,
    /// The user's time zone, for the day usage is counted on.
    pub clock: crate::time::Clock,
    /// Where each provider call is logged (one JSON line per call); `None` to not log.
    pub call_log: Option<PathBuf>,
}

impl Extraction {
    /// The rule extractor with default settings and the system clock.
    pub fn rules() -> Extraction {
        Extraction {
            providers: vec![],
            settings: Settings::default(),
            owner: format!("{}-{}", std::process::id(), uuid::Uuid::now_v7()),
            stop: Arc::new(AtomicBool::new(false)),
            embedder: None,
            now: Box::new(crate::time::now_ms),
            clock: crate::time::Clock::system(),
            call_log: None,
        }
    }

    /// The extraction the user's environment asks for (`ALETHEIA_PROVIDER(S)` and the caps),
    /// with the model for merges when it is in `paths`, logging provider calls beside the store.
    pub fn from_env(paths: &crate::config::Paths) -> Result<Extraction, String> {
        let lookup = |k: &str| std::env::var(k).ok();
        let providers = super::provider::from_lookup(&lookup).map_err(|e| e.to_string())?;
        let settings = Settings::from_lookup(&lookup)?;
        let dir = paths.model_dir();
        // Merges compare meaning when the model is here; its load costs a fraction of a second.
        let embedder = Embedder::present(&dir)
            .then(|| Embedder::load(&dir).ok())
            .flatten()
            .map(Arc::new);
        Ok(Extraction {
            providers,
            settings,
            embedder,
            call_log: Some(paths.data_dir.join("provider-calls.jsonl")),
            ..Extraction::rules()
        })
    }

    /// The extractor's name as the server and `compress` print it.
    pub fn describe(&self) -> String {
        if self.providers.is_empty() {
            "rule-based".into()
        } else {
            self.providers
                .iter()
                .map(|p| format!("{} ({})", p.name(), p.model()))
                .collect::<Vec<_>>()
                .join(", then ")
        }
    }

    /// The day (`YYYY-MM-DD`, the user's time zone) usage at `ms` counts on.
    pub fn day(&self, ms: i64) -> String {
        self.clock.date(ms)
    }

    /// Append one provider call to the call log: what was sent (sizes and the job, never the
    /// text) and what it cost when the provider says.
    pub(crate) fn log_call(
        &self,
        at: i64,
        p: &dyn Provider,
        job: &Job,
        sent: usize,
        answer: Result<&Reply, &ProviderError>,
    ) {
        let Some(path) = &self.call_log else { return };
        let mut line = serde_json::json!({
            "at": crate::time::iso_utc(at),
            "provider": p.name(),
            "model": p.model(),
            "prompt": super::provider::prompt::PROMPT_VERSION,
            "job": job.id,
            "project": job.project,
            "chars_sent": sent,
            "est_tokens_sent": sent.div_ceil(4),
        });
        match answer {
            Ok(r) => {
                line["chars_received"] = r.chars_received.into();
                line["tokens_in"] = r.tokens_in.into();
                line["tokens_out"] = r.tokens_out.into();
                line["cost_usd"] = r.cost_usd.into();
                line["facts"] = r.facts.len().into();
            }
            Err(e) => line["error"] = e.to_string().into(),
        }
        use std::io::Write;
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }

    /// The notice shown before the first job a provider runs: what will be sent, and the caps.
    pub fn first_use_notice(&self, store: &dyn Storage) -> Result<Option<String>, StoreError> {
        let mut new = Vec::new();
        for p in &self.providers {
            if !store.ever_used(p.name())? {
                new.push(format!("{} ({})", p.name(), p.model()));
            }
        }
        if new.is_empty() {
            return Ok(None);
        }
        let b = self.settings.budget;
        Ok(Some(format!(
            "aletheia: compression will send session summaries and notes, redacted, to {} in windows of at most {} characters; caps: {} characters a job, {} a day (~{} tokens; ALETHEIA_PROVIDER_JOB_CHARS, ALETHEIA_PROVIDER_DAY_CHARS). Past a cap the rule extractor takes over; set ALETHEIA_PROVIDER=none to send nothing.",
            new.join(" and "),
            self.settings.limits.max_chars,
            b.chars_per_job,
            b.chars_per_day,
            b.chars_per_day / 4
        )))
    }
}

/// How one job ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Ended {
    Done {
        report: JobReport,
    },
    Retry {
        error: String,
        retry_at: i64,
    },
    Failed {
        error: String,
    },
    /// Given back without counting the attempt (the worker is stopping).
    Released,
    /// Closed in favour of a pending job for the same session, which reads everything this
    /// one would have.
    Folded,
    /// Another worker took the job over (this one was too slow): it wrote nothing.
    LostLease,
}

/// One job and how it ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JobEnd {
    pub job: i64,
    pub project: String,
    pub session_id: Option<String>,
    pub attempt: i64,
    #[serde(flatten)]
    pub ended: Ended,
}

/// Turn queued sessions into jobs, then run the jobs that are due, at most `max_jobs`, until
/// none is left or the stop flag is set.
pub fn drain(
    store: &mut dyn Storage,
    redactor: &Redactor,
    ex: &Extraction,
    max_jobs: usize,
) -> Result<Vec<JobEnd>, StoreError> {
    store.jobs_from_queue((ex.now)())?;
    let mut out = Vec::new();
    while out.len() < max_jobs && !ex.stop.load(Ordering::SeqCst) {
        let Some(job) = store.claim_job(
            &ex.owner,
            (ex.now)(),
            ex.settings.lease_ms,
            ex.settings.max_attempts,
        )?
        else {
            break;
        };
        let end = run_one(store, redactor, ex, &job)?;
        let stop = ex.stop.load(Ordering::SeqCst);
        out.push(end);
        if stop {
            break;
        }
    }
    Ok(out)
}

/// Run a claimed job and record how it ended.
pub fn run_one(
    store: &mut dyn Storage,
    redactor: &Redactor,
    ex: &Extraction,
    job: &Job,
) -> Result<JobEnd, StoreError> {
    let ended = match job::run(store, redactor, ex, job) {
        Ok(report) => Ended::Done { report },
        Err(JobError::Stopped) => match store.release_job(job, (ex.now)())? {
            Retry::Folded => Ended::Folded,
            _ => Ended::Released,
        },
        Err(JobError::LostLease) => Ended::LostLease,
        Err(e) => {
            let failure = Redacted::new(Failure(e.to_string()), redactor);
            let error = failure.get().0.clone();
            let now = (ex.now)();
            let retry_at = now + backoff_ms(job.attempts);
            match store.fail_job(job, &failure, now, retry_at, ex.settings.max_attempts)? {
                Retry::At(at) => Ended::Retry {
                    error,
                    retry_at: at,
                },
                Retry::Failed => Ended::Failed { error },
                Retry::Folded => Ended::Folded,
                Retry::LostLease => Ended::LostLease,
            }
        }
    };
    Ok(JobEnd {
        job: job.id,
        project: job.project.clone(),
        session_id: job.session_id.clone(),
        attempt: job.attempts,
        ended,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, MemoryType, NewMemory};
    use crate::redact::Redacted;
    use crate::store::OpenOptions;
    use crate::store::Store;
    use std::sync::atomic::AtomicI64;

    /// A provider that always fails, as a server answering 500 does.
    struct Down;

    impl Provider for Down {
        fn name(&self) -> &str {
            "openai"
        }
        fn model(&self) -> &str {
            "test"
        }
        fn extract(&self, _: &str) -> Result<Reply, ProviderError> {
            Err(ProviderError::Http {
                status: 500,
                body: "down".into(),
            })
        }
    }

    #[test]
    fn a_failing_job_is_retried_after_1_2_4_and_8_seconds_then_fails_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let mut store =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let redactor = Redactor::builtin();
        let note = NewMemory {
            project: "shop".into(),
            kind: Kind::Note,
            mtype: MemoryType::Note,
            title: "The cart service requires Node 22.".into(),
            text: "The cart service requires Node 22.".into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: 0,
        };
        store.insert(&Redacted::new(note, &redactor)).unwrap();
        store.queue_project_job("shop", 0).unwrap();
        let now = Arc::new(AtomicI64::new(1_000_000));
        let clock = Arc::clone(&now);
        let ex = Extraction {
            providers: vec![Box::new(Down)],
            now: Box::new(move || clock.load(Ordering::SeqCst)),
            ..Extraction::rules()
        };
        for (attempt, delay) in [(1, 1000), (2, 2000), (3, 4000), (4, 8000)] {
            let t = now.load(Ordering::SeqCst);
            let ends = drain(&mut store, &redactor, &ex, usize::MAX).unwrap();
            assert_eq!(ends.len(), 1, "attempt {attempt}");
            assert_eq!(ends[0].attempt, attempt);
            match &ends[0].ended {
                Ended::Retry { error, retry_at } => {
                    assert_eq!(*retry_at, t + delay, "attempt {attempt}");
                    assert!(error.contains("HTTP 500"), "{error}");
                }
                other => panic!("attempt {attempt}: {other:?}"),
            }
            now.store(t + delay - 1, Ordering::SeqCst);
            assert!(
                drain(&mut store, &redactor, &ex, usize::MAX)
                    .unwrap()
                    .is_empty(),
                "not before its time"
            );
            now.store(t + delay, Ordering::SeqCst);
        }
        let ends = drain(&mut store, &redactor, &ex, usize::MAX).unwrap();
        assert!(
            matches!(&ends[0].ended, Ended::Failed { error } if error.contains("HTTP 500")),
            "{ends:?}"
        );
        assert_eq!(ends[0].attempt, MAX_ATTEMPTS);
        assert_eq!(store.job_counts().unwrap().failed, 1);
        assert!(
            drain(&mut store, &redactor, &ex, usize::MAX)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn backoff_doubles_from_one_second_and_stops_at_a_minute() {
        let delays: Vec<i64> = (1..=8).map(backoff_ms).collect();
        assert_eq!(
            delays,
            vec![1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]
        );
        assert_eq!(backoff_ms(1000), 60_000);
    }

    #[test]
    fn settings_read_the_users_caps_and_refuse_nonsense() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let s = Settings::from_lookup(&env(&[
            ("ALETHEIA_PROVIDER_DAY_CHARS", "50_000"),
            ("ALETHEIA_WINDOW_ITEMS", "5"),
        ]))
        .unwrap();
        assert_eq!(s.budget.chars_per_day, 50_000);
        assert_eq!(s.limits.max_items, 5);
        assert_eq!(s.limits.max_chars, 12_000);
        let e =
            Settings::from_lookup(&env(&[("ALETHEIA_PROVIDER_JOB_CHARS", "lots")])).unwrap_err();
        assert!(
            e.contains("ALETHEIA_PROVIDER_JOB_CHARS") && e.contains("lots"),
            "{e}"
        );
    }
}
