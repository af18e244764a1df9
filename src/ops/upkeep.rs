//! Store-wide upkeep the command line offers: scrub (redact stored rows again with the current
//! rules) and drain (bring spooled events in now). Both work across every project, so a caller
//! limited to projects may call neither.

use super::{Access, Context, OpError, Operation};
use crate::spool::{self, DrainReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `scrub`: redact everything stored again with the current rules.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Scrub {}

/// How many rows a scrub changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Scrubbed {
    pub memories: usize,
    /// Rules, work-state lists, facts, audit entries, and the tool and session names memories,
    /// captures and the queue carry.
    pub records: usize,
    /// Rows moved to their project's redacted key, or merged where two projects became one.
    pub projects: usize,
}

impl Operation for Scrub {
    const NAME: &'static str = "scrub";
    const DESCRIPTION: &'static str = "Redact every stored memory, rule, list, fact, audit reason and project key again with the current rules; rows that become identical to another are merged into it, and projects that become one key are merged.";
    const ACCESS: Access = Access::Destructive;
    const IDEMPOTENT: bool = true;
    type Output = Scrubbed;

    fn run(self, ctx: &mut Context<'_>) -> Result<Scrubbed, OpError> {
        ctx.caller.check_every_project(Self::NAME)?;
        let done = ctx.store.rescrub(ctx.redactor)?;
        Ok(Scrubbed {
            memories: done.memories,
            records: done.records,
            projects: done.projects,
        })
    }
}

/// `drain`: store everything spooled now.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Drain {}

impl Operation for Drain {
    const NAME: &'static str = "drain";
    const DESCRIPTION: &'static str =
        "Bring every spooled event into the store now; each is stored once.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = DrainReport;

    fn run(self, ctx: &mut Context<'_>) -> Result<DrainReport, OpError> {
        ctx.caller.check_every_project(Self::NAME)?;
        let Some(paths) = ctx.paths else {
            return Err(OpError::NotFound("there is no spool here to drain.".into()));
        };
        let Some(local) = ctx.store.hook_store() else {
            return Err(OpError::NotFound("there is no spool here to drain.".into()));
        };
        spool::drain(paths, local, ctx.redactor).map_err(|e| match e {
            spool::DrainError::Store(e) => e.into(),
            spool::DrainError::Spool(e) => OpError::StoreUnavailable(e.to_string()),
        })
    }
}

/// `verify`: check the signed history of this machine's store (also `aletheia verify`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Verify {}

impl Operation for Verify {
    const NAME: &'static str = "verify";
    const DESCRIPTION: &'static str = "Check the signed history: every chain and signature, and that each memory, rule, fact and list is as its newest entry left it.";
    // The first check records the rows stored before the history began.
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = crate::store::history::Verified;

    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError> {
        ctx.caller.check_every_project(Self::NAME)?;
        let Some(store) = ctx.store.hook_store() else {
            return Err(OpError::InvalidArgument(
                "verify checks this machine's own store: run aletheia verify on the machine."
                    .into(),
            ));
        };
        store.verify().map_err(|e| match e {
            crate::store::StoreError::History(why) => OpError::StoreUnavailable(why),
            e => e.into(),
        })
    }
}
