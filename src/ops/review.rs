//! Facts that disagree: review_list, review_accept, review_reject (also `aletheia review`).
//!
//! Two facts about one subject and predicate that started at the same moment cannot be ordered,
//! so the store keeps both, lowers their confidence and asks the user. These operations show
//! those pairs and record the user's answer. A fact in a project the caller may not touch is as
//! unknown to it as a fact that waits in no review.

use super::{Access, Context, OpError, Operation};
use crate::recall::facts::Review;
use crate::redact::Redacted;
use crate::store::facts::{Accepted, Rejected};
use crate::store::state::{AuditEntry, ItemType};
use schemars::JsonSchema;
use serde::Deserialize;

/// `review_list`: the facts that wait for review.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ReviewList {
    /// Project key. Omitted: every project.
    pub project: Option<String>,
}

impl Operation for ReviewList {
    const NAME: &'static str = "review_list";
    const DESCRIPTION: &'static str = "List the pairs of facts that started at the same moment and wait for the user to keep one.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Vec<Review>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Vec<Review>, OpError> {
        let project = ctx
            .caller
            .project_filter(self.project.as_deref(), ctx.redactor)?;
        Ok(ctx.store.open_fact_reviews(project.as_deref())?)
    }
}

/// `review_accept`: keep a fact under review.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ReviewAccept {
    /// A fact id from review_list.
    pub fact_id: i64,
}

impl Operation for ReviewAccept {
    const NAME: &'static str = "review_accept";
    const DESCRIPTION: &'static str =
        "Keep a fact under review: the fact it disagreed with is closed and kept as history.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Accepted;

    fn run(self, ctx: &mut Context<'_>) -> Result<Accepted, OpError> {
        let entry = visible_entry(ctx, self.fact_id)?;
        ctx.store
            .accept_fact(self.fact_id, &entry, ctx.clock.now())?
            .ok_or_else(|| not_under_review(self.fact_id))
    }
}

/// `review_reject`: dismiss a fact under review.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ReviewReject {
    /// A fact id from review_list.
    pub fact_id: i64,
}

impl Operation for ReviewReject {
    const NAME: &'static str = "review_reject";
    const DESCRIPTION: &'static str =
        "Dismiss a fact under review: the fact it disagreed with stays current.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Rejected;

    fn run(self, ctx: &mut Context<'_>) -> Result<Rejected, OpError> {
        let entry = visible_entry(ctx, self.fact_id)?;
        ctx.store
            .reject_fact(self.fact_id, &entry, ctx.clock.now())?
            .ok_or_else(|| not_under_review(self.fact_id))
    }
}

fn not_under_review(id: i64) -> OpError {
    OpError::NotFound(format!(
        "Fact #{id} is not waiting for review; run `aletheia review list` to see those that are."
    ))
}

/// The audit entry for deciding on fact `id`, once the caller is known to see its project.
fn visible_entry(ctx: &Context<'_>, id: i64) -> Result<Redacted<AuditEntry>, OpError> {
    match ctx.store.item_project(ItemType::Fact, id)? {
        Some(project) if ctx.caller.may_see(&project) => {}
        _ => return Err(not_under_review(id)),
    }
    let entry = AuditEntry {
        actor: ctx.caller.name.clone(),
        reason: None,
    };
    Ok(Redacted::new(entry, ctx.redactor))
}
