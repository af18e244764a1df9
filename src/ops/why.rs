//! `why`: where a memory or a fact came from, the whole way back (also `aletheia why`).
//!
//! A recalled line says its source in a few words; this is the chain behind it, with times: a
//! fact, the memory it was read from, the original message compression kept when it rewrote
//! that memory, the session the memory belongs to, and what stored it (a host's hook on one of
//! its events, or a client's call, with the review that let it in).

use super::{Access, Context, OpError, Operation};
use crate::model::{Fact, Kind, Memory};
use crate::store::inbox::{Proposal, ProposalState};
use crate::store::state::ItemType;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `why`: the chain behind one memory or fact.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Why {
    /// The memory's or fact's id.
    pub id: i64,
    /// memory or fact.
    #[serde(rename = "type")]
    #[schemars(extend("default" = "memory"))]
    pub item_type: Option<ItemType>,
}

/// A session as far as the chain needs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSeen {
    pub id: String,
    /// Memories of the session read (at most [`SESSION_READ`]).
    pub memories: usize,
    pub first_at: i64,
    pub last_at: i64,
    /// The session's first prompt, when it has one.
    pub first_prompt: Option<Memory>,
}

/// The most memories of one session read to describe it.
pub const SESSION_READ: usize = 500;

/// How many decided proposals are looked through for the one that brought a memory in.
const PROPOSALS_READ: usize = 1000;

/// The chain, from what was asked about back to what stored it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    /// The fact asked about, when it was a fact.
    pub fact: Option<Fact>,
    /// The memory asked about, or the fact's.
    pub memory: Option<Memory>,
    /// The original message compression kept when it rewrote the memory.
    pub episode: Option<String>,
    pub session: Option<SessionSeen>,
    /// The client's proposal that brought the memory in, once accepted.
    pub proposal: Option<Proposal>,
    /// The facts read from the memory.
    pub facts: Vec<Fact>,
}

impl Operation for Why {
    const NAME: &'static str = "why";
    const DESCRIPTION: &'static str = "Show where a memory or fact came from: the fact, the memory it was read from, the original message, the session, and the hook event or call that stored it, with times.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Chain;

    fn run(self, ctx: &mut Context<'_>) -> Result<Chain, OpError> {
        let item = self.item_type.unwrap_or(ItemType::Memory);
        let missing = || OpError::NotFound(format!("No {} #{}.", item.as_str(), self.id));
        let (fact, memory_id) = match item {
            ItemType::Fact => {
                let fact = ctx.store.fact_by_id(self.id)?.ok_or_else(missing)?;
                if !ctx.caller.may_see(&fact.project) {
                    return Err(missing());
                }
                let memory = fact.memory_id;
                (Some(fact), memory)
            }
            ItemType::Memory | ItemType::Observation | ItemType::Episode => (None, Some(self.id)),
        };
        let memory = match memory_id {
            Some(id) => ctx.store.get_many(&[id])?.pop(),
            None => None,
        };
        let memory = match memory {
            Some(m) if ctx.caller.may_see(&m.project) => Some(m),
            // A fact's memory may be gone (deleted, or from before a migration): the fact
            // still says what it can.
            _ if fact.is_some() => None,
            _ => return Err(missing()),
        };
        let Some(m) = memory else {
            return Ok(Chain {
                fact,
                memory: None,
                episode: None,
                session: None,
                proposal: None,
                facts: vec![],
            });
        };
        let episode = ctx.store.episode(m.id)?;
        let session = match m.session_id.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(sid) => {
                let rows = ctx.store.session_memories(&m.project, sid, SESSION_READ)?;
                Some(SessionSeen {
                    id: sid.to_owned(),
                    memories: rows.len(),
                    first_at: rows.first().map_or(m.created_at, |r| r.created_at),
                    last_at: rows.last().map_or(m.created_at, |r| r.created_at),
                    first_prompt: rows.into_iter().find(|r| r.kind == Kind::Prompt),
                })
            }
            None => None,
        };
        let proposal = if m.kind == Kind::Note {
            brought_in_by(ctx, &m)?
        } else {
            None
        };
        let facts = ctx.store.facts_of_memory(m.id)?;
        Ok(Chain {
            fact,
            memory: Some(m),
            episode,
            session,
            proposal,
            facts,
        })
    }
}

/// The accepted proposal whose run stored `m`, among the newest decided ones.
fn brought_in_by(ctx: &Context<'_>, m: &Memory) -> Result<Option<Proposal>, OpError> {
    let decided = ctx
        .store
        .proposals(Some(&m.project), false, PROPOSALS_READ)?;
    Ok(decided.into_iter().find(|p| {
        p.state == ProposalState::Accepted
            && matches!(p.op.as_str(), "save_memory" | "work_state_write")
            && p.outcome
                .as_deref()
                .and_then(|o| serde_json::from_str::<serde_json::Value>(o).ok())
                .and_then(|o| o["id"].as_i64())
                == Some(m.id)
    }))
}

/// What stored a memory, in words: the host's hook on which kind of event, or a call.
pub fn stored_by(m: &Memory) -> String {
    let host = m.host.replace(['\n', '\r'], " ");
    match m.kind {
        Kind::Prompt => format!("the {host} hook, on the user's prompt"),
        Kind::Observation => format!("the {host} hook, after a tool call"),
        Kind::Event => format!("the {host} hook, on a session event"),
        Kind::Summary => format!("the {host} hook, at the session's end"),
        Kind::Note => format!("{host} (a note saved, a list written or an import)"),
    }
}
