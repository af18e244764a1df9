//! The review inbox's proposals, and each client's trust level, on the SQLite store.
//!
//! A client trusted only to propose does not write: its request (the tool's name and its
//! arguments, redacted) waits here, out of search, context and rules sync, until the owner
//! accepts it (the operation then runs as that client would have run it) or rejects it. One
//! request proposed twice while it waits is one proposal. The trust levels the owner set live
//! beside them, keyed by the name a client is known by (`aletheia trust`).

use super::{Store, StoreError};
use crate::redact::{Redact, Redactor};
use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

/// A request that waits for the owner, as it is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct NewProposal {
    /// The operation to run when it is accepted (a tool's name).
    pub op: String,
    /// What makes two requests of `op` one proposal (its arguments, or what they make).
    pub key: String,
    /// Its arguments, as the client sent them.
    pub args: serde_json::Map<String, serde_json::Value>,
    /// Who proposed it: the client's name.
    pub client: String,
    /// The project it writes to.
    pub project: String,
    /// What it would do, in one line.
    pub summary: String,
    /// What it names once accepted (a rule's id, an item), when known now.
    pub reference: Option<String>,
    /// Why it waits: the client's level, and where the level came from.
    pub why: String,
    pub created_at: i64,
}

impl Redact for NewProposal {
    /// Every text a client sent or chose is redacted; the operation's name is one of ours.
    fn redact(self, r: &Redactor) -> NewProposal {
        let args = serde_json::Value::Object(self.args).redact(r);
        NewProposal {
            key: r.redact(&self.key),
            args: match args {
                serde_json::Value::Object(map) => map,
                _ => unreachable!("redacting an object keeps it an object"),
            },
            client: r.redact(&self.client),
            project: crate::project::stored_key(&self.project, r),
            summary: r.redact(&self.summary),
            reference: self.reference.map(|s| r.redact(&s)),
            why: r.redact(&self.why),
            ..self
        }
    }
}

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProposalState {
    Pending,
    Accepted,
    Rejected,
}

impl ProposalState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalState::Pending => "pending",
            ProposalState::Accepted => "accepted",
            ProposalState::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> ProposalState {
        match s {
            "accepted" => ProposalState::Accepted,
            "rejected" => ProposalState::Rejected,
            _ => ProposalState::Pending,
        }
    }
}

/// A stored proposal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposal {
    pub id: i64,
    pub op: String,
    pub args: serde_json::Map<String, serde_json::Value>,
    pub client: String,
    pub project: String,
    pub summary: String,
    pub reference: Option<String>,
    pub why: String,
    pub state: ProposalState,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    /// Who decided, and what accepting it did (the operation's answer) or why it was rejected.
    pub decided_by: Option<String>,
    pub outcome: Option<String>,
}

/// A client's trust level as the owner set it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClientTrust {
    pub client: String,
    /// `read`, `propose` or `write`.
    pub level: String,
    pub set_at: i64,
}

/// What identifies one request: the same tool, key, client and project.
pub fn request_hash(p: &NewProposal) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    // Each part ends with a NUL, which none of them holds, so parts cannot run together.
    for part in [&p.op, &p.key, &p.client, &p.project] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The columns [`proposal`] reads, in its order.
pub(in crate::store) const PROPOSAL_COLUMNS: &str = "id, op, args, client, project, summary, reference, why, state, created_at, decided_at, decided_by, outcome";

/// Arguments as stored: a JSON object (anything else reads as none).
pub fn parse_args(text: &str) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

fn proposal(r: &Row<'_>) -> rusqlite::Result<Proposal> {
    Ok(Proposal {
        id: r.get(0)?,
        op: r.get(1)?,
        args: parse_args(&r.get::<_, String>(2)?),
        client: r.get(3)?,
        project: r.get(4)?,
        summary: r.get(5)?,
        reference: r.get(6)?,
        why: r.get(7)?,
        state: ProposalState::parse(&r.get::<_, String>(8)?),
        created_at: r.get(9)?,
        decided_at: r.get(10)?,
        decided_by: r.get(11)?,
        outcome: r.get(12)?,
    })
}

impl Store {
    /// Store a proposal; one already waiting for the same request is returned instead: its id,
    /// and whether this one was new.
    pub fn propose(
        &mut self,
        p: &crate::redact::Redacted<NewProposal>,
    ) -> Result<(i64, bool), StoreError> {
        let p = p.get();
        let hash = request_hash(p);
        self.write(|tx| {
            let waiting: Option<i64> = tx
                .query_row(
                    "SELECT id FROM proposals WHERE request_hash = ?1 AND state = 'pending'",
                    [&hash],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(id) = waiting {
                return Ok((id, false));
            }
            tx.execute(
                "INSERT INTO proposals (op, args, client, project, summary, reference, why, request_hash, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    p.op,
                    serde_json::Value::Object(p.args.clone()).to_string(),
                    p.client,
                    p.project,
                    p.summary,
                    p.reference,
                    p.why,
                    hash,
                    p.created_at
                ],
            )?;
            Ok((tx.last_insert_rowid(), true))
        })
    }

    /// Proposals in `project` (every project when `None`) that are still waiting, oldest first,
    /// or (`pending` false) the decided ones, newest first; at most `limit`.
    pub fn proposals(
        &self,
        project: Option<&str>,
        pending: bool,
        limit: usize,
    ) -> Result<Vec<Proposal>, StoreError> {
        let sql = format!(
            "SELECT {PROPOSAL_COLUMNS} FROM proposals
             WHERE (?1 IS NULL OR project = ?1) AND (state = 'pending') = ?2
             ORDER BY CASE WHEN ?2 THEN created_at ELSE -ifnull(decided_at, 0) END, id
             LIMIT ?3"
        );
        let run = || -> rusqlite::Result<Vec<Proposal>> {
            let mut st = self.conn.prepare_cached(&sql)?;
            st.query_map(
                params![project, pending, super::sql_numbers::sql_int(limit)],
                proposal,
            )?
            .collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// One proposal by id.
    pub fn proposal(&self, id: i64) -> Result<Option<Proposal>, StoreError> {
        self.conn
            .query_row(
                &format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = ?1"),
                [id],
                proposal,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Settle a waiting proposal as accepted or rejected, by `by`, with what came of it;
    /// whether it was waiting.
    pub fn settle_proposal(
        &mut self,
        id: i64,
        accepted: bool,
        by: &str,
        outcome: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let state = if accepted { "accepted" } else { "rejected" };
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE proposals SET state = ?2, decided_at = ?3, decided_by = ?4, outcome = ?5
                 WHERE id = ?1 AND state = 'pending'",
                params![id, state, now, by, outcome],
            )? == 1)
        })
    }

    /// The level the owner set for `client`, if any.
    pub fn client_trust(&self, client: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .prepare_cached("SELECT level FROM client_trust WHERE client = ?1")
            .and_then(|mut st| st.query_row([client], |r| r.get(0)).optional())
            .map_err(|e| self.err(e))
    }

    /// Set `client`'s level, or (`None`) forget it so the defaults apply again; whether
    /// anything changed.
    pub fn set_client_trust(
        &mut self,
        client: &str,
        level: Option<&str>,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.write(|tx| {
            Ok(match level {
                Some(level) => tx.execute(
                    "INSERT INTO client_trust (client, level, set_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (client) DO UPDATE SET level = excluded.level, set_at = excluded.set_at
                     WHERE level <> excluded.level",
                    params![client, level, now],
                )?,
                None => tx.execute("DELETE FROM client_trust WHERE client = ?1", [client])?,
            } == 1)
        })
    }

    /// Every level the owner set, by client name.
    pub fn client_trusts(&self) -> Result<Vec<ClientTrust>, StoreError> {
        let run = || -> rusqlite::Result<Vec<ClientTrust>> {
            let mut st = self
                .conn
                .prepare_cached("SELECT client, level, set_at FROM client_trust ORDER BY client")?;
            st.query_map([], |r| {
                Ok(ClientTrust {
                    client: r.get(0)?,
                    level: r.get(1)?,
                    set_at: r.get(2)?,
                })
            })?
            .collect()
        };
        run().map_err(|e| self.err(e))
    }
}
