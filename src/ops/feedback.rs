//! `feedback`: what a person says of one memory (also `aletheia feedback`, the REST API's
//! `POST /v1/memories/{id}/feedback` and the dashboard's buttons). A favourite or a helpful
//! vote lifts the memory a little in search, within `recall::rank::FEEDBACK_MAX`; a not-helpful
//! majority lowers it and leaves it out of the session-start block.

use super::{Access, Context, OpError, Operation};
use crate::store::standing::{Feedback, Vote};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The vote, as the request names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VoteName {
    Favourite,
    Unfavourite,
    Positive,
    Negative,
}

impl From<VoteName> for Vote {
    fn from(v: VoteName) -> Vote {
        match v {
            VoteName::Favourite => Vote::Favourite,
            VoteName::Unfavourite => Vote::Unfavourite,
            VoteName::Positive => Vote::Positive,
            VoteName::Negative => Vote::Negative,
        }
    }
}

/// `feedback`: record a vote on a memory.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GiveFeedback {
    /// The memory's id.
    pub id: i64,
    /// favourite, unfavourite, positive (helpful) or negative (not helpful).
    pub vote: VoteName,
}

/// The memory's feedback after the vote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FeedbackGiven {
    pub id: i64,
    #[serde(flatten)]
    pub feedback: Feedback,
    /// Whether the session-start block leaves it out now.
    pub hidden_from_context: bool,
}

impl Operation for GiveFeedback {
    const NAME: &'static str = "feedback";
    const DESCRIPTION: &'static str = "Say what a memory is worth: favourite, unfavourite, positive (helpful) or negative (not helpful). It moves the memory a little in search, never past a clearly better match; more negative than positive votes leave it out of the session-start block. Write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = false;
    type Output = FeedbackGiven;

    fn run(self, ctx: &mut Context<'_>) -> Result<FeedbackGiven, OpError> {
        let missing = || OpError::NotFound(format!("No memory #{}.", self.id));
        let visible = ctx
            .store
            .get_many(&[self.id])?
            .into_iter()
            .next()
            .is_some_and(|m| ctx.caller.may_see(&m.project));
        if !visible {
            return Err(missing());
        }
        let feedback = ctx
            .store
            .give_feedback(self.id, self.vote.into(), ctx.clock.now())?
            .ok_or_else(missing)?;
        Ok(FeedbackGiven {
            id: self.id,
            feedback,
            hidden_from_context: feedback.hides(),
        })
    }
}
