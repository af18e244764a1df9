//! Compression as operations: `compress` runs the jobs that are due, `jobs` shows the queue.
//! `aletheia compress`, its `--daemon` and the server's worker all call these, so the worker
//! is one more caller of the operations layer.
//!
//! What to extract with comes from the front end's [`crate::compress::Extraction`] in the
//! context: only a front end that built one (from the user's own settings) can compress, and
//! nothing reaches a model unless the user chose a provider there.

use super::{Access, Context, OpError, Operation};
use crate::compress::worker::{self, JobEnd};
use crate::store::jobs::{JobCounts, JobRow};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `compress`: turn queued sessions into jobs and run those that are due.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Compress {
    /// Also queue this project's own notes (those saved outside a session).
    pub project: Option<String>,
    /// Run at most this many jobs. Default: every job that is due.
    #[schemars(extend("minimum" = 1))]
    pub max_jobs: Option<i64>,
}

/// What a `compress` call did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compressed {
    /// `rule-based`, or the providers in fallback order.
    pub extractor: String,
    pub jobs: Vec<JobEnd>,
    /// The queue afterwards.
    pub counts: JobCounts,
    /// When the next job waiting out a retry is due (epoch ms).
    pub next_due: Option<i64>,
}

impl Operation for Compress {
    const NAME: &'static str = "compress";
    const DESCRIPTION: &'static str = "Turn finished sessions (and, with project, a project's own notes) into facts and summaries now.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = false;
    type Output = Compressed;

    fn run(self, ctx: &mut Context<'_>) -> Result<Compressed, OpError> {
        // Jobs of every project run in one queue.
        ctx.caller.check_every_project(Self::NAME)?;
        let Some(ex) = ctx.extraction else {
            return Err(OpError::NotFound(
                "compression runs from `aletheia compress`, not here.".into(),
            ));
        };
        let max_jobs = match self.max_jobs {
            None => usize::MAX,
            // More jobs than memory can count is no limit at all.
            Some(n) if n >= 1 => usize::try_from(n).unwrap_or(usize::MAX),
            Some(n) => {
                return Err(OpError::InvalidArgument(format!(
                    "max_jobs must be 1 or more, not {n}."
                )));
            }
        };
        if let Some(p) = self
            .project
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            let p = super::named_project(p, ctx.redactor)?;
            ctx.store.queue_project_job(&p, (ex.now)())?;
        }
        let jobs = worker::drain(ctx.store, ctx.redactor, ex, max_jobs)?;
        Ok(Compressed {
            extractor: ex.describe(),
            jobs,
            counts: ctx.store.job_counts()?,
            next_due: ctx.store.next_job_due()?,
        })
    }
}

/// `jobs`: the compression queue and the newest jobs.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Jobs {
    /// How many of the newest jobs to list, 1 to 100.
    #[schemars(extend("default" = 20, "minimum" = 1, "maximum" = 100))]
    pub limit: Option<i64>,
}

/// The queue's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobList {
    pub counts: JobCounts,
    pub jobs: Vec<JobRow>,
}

impl Operation for Jobs {
    const NAME: &'static str = "jobs";
    const DESCRIPTION: &'static str = "Show the compression queue: sessions waiting, jobs by state, and the newest jobs with their errors.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = JobList;

    fn run(self, ctx: &mut Context<'_>) -> Result<JobList, OpError> {
        ctx.caller.check_every_project(Self::NAME)?;
        let limit = super::policy::LIMIT.clamp(self.limit);
        Ok(JobList {
            counts: ctx.store.job_counts()?,
            jobs: ctx.store.recent_jobs(limit)?,
        })
    }
}
