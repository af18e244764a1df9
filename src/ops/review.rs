//! The review inbox: everything that waits for the user (also `aletheia review`).
//!
//! Two kinds of thing wait. What a client trusted only to propose asked for (see
//! [`super::trust`]): `proposal_accept` runs it as that client would have run it, and
//! `proposal_reject` drops it. And facts that disagree: two facts about one subject and
//! predicate that started at the same moment cannot be ordered, so the store keeps both, lowers
//! their confidence and asks the user; `review_accept` and `review_reject` record the answer.
//! `review_list` shows both. Something in a project the caller may not touch is as unknown to it
//! as something that waits in no review.

use super::trust::check_owner;
use super::{Access, Caller, Context, OpError, Operation};
use crate::recall::facts::Review;
use crate::redact::Redacted;
use crate::store::facts::{Accepted, Rejected};
use crate::store::inbox::{Proposal, ProposalState};
use crate::store::state::{AuditEntry, ItemType};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `review_list`: everything that waits for review.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ReviewList {
    /// Project key. Omitted: every project.
    pub project: Option<String>,
}

/// The most proposals one list shows; the oldest come first, so none is starved.
pub const INBOX_MAX: usize = 500;

/// What waits: proposals oldest first, then the facts that disagree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inbox {
    pub proposals: Vec<Proposal>,
    pub facts: Vec<Review>,
}

impl Operation for ReviewList {
    const NAME: &'static str = "review_list";
    const DESCRIPTION: &'static str = "List what waits for the user: what clients proposed, and the pairs of facts that started at the same moment.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Inbox;

    fn run(self, ctx: &mut Context<'_>) -> Result<Inbox, OpError> {
        let project = ctx
            .caller
            .project_filter(self.project.as_deref(), ctx.redactor)?;
        let mut proposals = ctx.store.proposals(project.as_deref(), true, INBOX_MAX)?;
        // A rule for everywhere has no project: only a caller with every project sees it.
        proposals.retain(|p| {
            ctx.caller.may_see(&p.project)
                || (p.project.is_empty() && ctx.caller.projects.is_none())
        });
        Ok(Inbox {
            proposals,
            facts: ctx.store.open_fact_reviews(project.as_deref())?,
        })
    }
}

/// `proposal_accept`: run what a client proposed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ProposalAccept {
    /// A proposal id from review_list.
    pub id: i64,
}

/// `proposal_reject`: drop what a client proposed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ProposalReject {
    /// A proposal id from review_list.
    pub id: i64,
    /// Kept with the proposal, cut to 300 characters.
    pub reason: Option<String>,
}

/// A proposal once decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decided {
    pub proposal: Proposal,
    /// What running it answered (accepted), as JSON.
    pub result: Option<serde_json::Value>,
}

fn not_waiting(id: i64) -> OpError {
    OpError::NotFound(format!(
        "Proposal p{id} is not waiting for review; run `aletheia review list` to see those that are."
    ))
}

/// Proposal `id`, once it is known to wait. Only the owner, with every project, decides
/// ([`check_owner`]), so no project is hidden from the caller here.
fn waiting(ctx: &Context<'_>, id: i64) -> Result<Proposal, OpError> {
    match ctx.store.proposal(id)? {
        Some(p) if p.state == ProposalState::Pending => Ok(p),
        _ => Err(not_waiting(id)),
    }
}

impl Operation for ProposalAccept {
    const NAME: &'static str = "proposal_accept";
    const DESCRIPTION: &'static str =
        "Accept a client's proposal: it runs as the client asked, under the client's name.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Decided;

    fn run(self, ctx: &mut Context<'_>) -> Result<Decided, OpError> {
        check_owner(&ctx.caller, "accept a proposal")?;
        let p = waiting(ctx, self.id)?;
        // Only a write MCP offers can have been proposed; anything else in the row was not
        // written by the gate.
        let proposable = crate::mcp::tools::find(&p.op).is_some_and(|t| t.access() != Access::Read);
        let Some(op) = super::find(&p.op).filter(|_| proposable) else {
            return Err(OpError::Conflict(format!(
                "Proposal p{} asks for {}, which a client cannot propose: reject it.",
                p.id, p.op
            )));
        };
        // It runs as the client asked, in the project it was checked against, and is stored
        // under the client's name; the owner's standing is what lets it through. Every write a
        // client may propose is idempotent, so accepting again after a failure between running
        // it and settling it repeats nothing.
        let proposer = Caller {
            name: p.client.clone(),
            default_project: p.project.clone(),
            ..ctx.caller.clone()
        };
        let owner = std::mem::replace(&mut ctx.caller, proposer);
        let result = op.call_json(ctx, p.args.clone());
        ctx.caller = owner;
        let result = result?;
        let outcome = result.to_string();
        let now = ctx.clock.now();
        if !ctx
            .store
            .settle_proposal(p.id, true, &ctx.caller.name, &outcome, now)?
        {
            return Err(not_waiting(p.id));
        }
        let proposal = ctx.store.proposal(p.id)?.ok_or_else(|| not_waiting(p.id))?;
        Ok(Decided {
            proposal,
            result: Some(result),
        })
    }
}

impl Operation for ProposalReject {
    const NAME: &'static str = "proposal_reject";
    const DESCRIPTION: &'static str =
        "Reject a client's proposal: nothing it asked for is written; it is kept as decided.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Decided;

    fn run(self, ctx: &mut Context<'_>) -> Result<Decided, OpError> {
        check_owner(&ctx.caller, "reject a proposal")?;
        let p = waiting(ctx, self.id)?;
        let why = self
            .reason
            .map(|r| ctx.redactor.redact(r.trim()))
            .filter(|r| !r.is_empty())
            .map(|r| crate::model::cut_chars(&r, crate::store::state::REASON_MAX_CHARS))
            .unwrap_or_default();
        let now = ctx.clock.now();
        if !ctx
            .store
            .settle_proposal(p.id, false, &ctx.caller.name, &why, now)?
        {
            return Err(not_waiting(p.id));
        }
        let proposal = ctx.store.proposal(p.id)?.ok_or_else(|| not_waiting(p.id))?;
        Ok(Decided {
            proposal,
            result: None,
        })
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
