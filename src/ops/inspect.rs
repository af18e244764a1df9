//! `inspect`: one memory with every text it held, newest first (also `aletheia inspect`, the
//! REST API's `/v1/memories/{id}/versions` and the dashboard's memory page).

use super::{Access, Context, OpError, Operation};
use crate::model::Memory;
use crate::store::standing::{Feedback, Link};
use crate::store::versions::MemoryVersion;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `inspect`: a memory's versions.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Inspect {
    /// The memory's id.
    pub id: i64,
}

/// A memory and every text it held.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspected {
    pub memory: Memory,
    /// The current text first, then each it replaced: the version, who wrote it and when,
    /// `original` or `edit`, and when it was replaced.
    pub versions: Vec<MemoryVersion>,
    /// When this store took it in, apart from `memory.created_at`, when it was said or done
    /// (they differ for a back-fill or an import); absent when it is not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_at: Option<i64>,
    /// Its relationships: the memories it replaced and those that replaced it, oldest first.
    pub links: Vec<Link>,
    pub feedback: Feedback,
}

impl Operation for Inspect {
    const NAME: &'static str = "inspect";
    const DESCRIPTION: &'static str = "One memory with every text it held, newest first: each version's time, who wrote it, and whether it is the original or an edit; the memories it replaced or that replaced it; its feedback. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Inspected;

    fn run(self, ctx: &mut Context<'_>) -> Result<Inspected, OpError> {
        let missing = || OpError::NotFound(format!("No memory #{}.", self.id));
        let memory = ctx
            .store
            .get_many(&[self.id])?
            .into_iter()
            .next()
            .filter(|m| ctx.caller.may_see(&m.project))
            .ok_or_else(missing)?;
        let versions = ctx.store.memory_versions(self.id)?;
        let links = ctx.store.memory_links(self.id)?;
        let feedback = ctx.store.feedback_of(self.id)?;
        let stored_at = ctx.store.stored_at(self.id)?;
        Ok(Inspected {
            memory,
            stored_at,
            versions,
            links,
            feedback,
        })
    }
}
