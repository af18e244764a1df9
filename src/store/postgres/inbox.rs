//! The review inbox and trust levels on PostgreSQL, as the SQLite store keeps them (see
//! [`crate::store::inbox`]): one request waits once, even when two hub processes take it at the
//! same moment (the partial unique index settles it, and the loser reads the winner's id).

use super::PgStore;
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::contract::Inbox;
use crate::store::inbox::{
    ClientTrust, NewProposal, PROPOSAL_COLUMNS, Proposal, ProposalState, parse_args, request_hash,
};
use postgres::Row;

fn proposal(r: &Row) -> Proposal {
    Proposal {
        id: r.get(0),
        op: r.get(1),
        args: parse_args(r.get(2)),
        client: r.get(3),
        project: r.get(4),
        summary: r.get(5),
        reference: r.get(6),
        why: r.get(7),
        state: ProposalState::parse(r.get(8)),
        created_at: r.get(9),
        decided_at: r.get(10),
        decided_by: r.get(11),
        outcome: r.get(12),
    }
}

impl Inbox for PgStore {
    fn propose(&mut self, p: &Redacted<NewProposal>) -> Result<(i64, bool), StoreError> {
        let p = p.get();
        let hash = request_hash(p);
        let args = serde_json::Value::Object(p.args.clone()).to_string();
        self.write(|tx| {
            let inserted = tx.query_opt(
                "INSERT INTO proposals (op, args, client, project, summary, reference, why, request_hash, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (request_hash) WHERE state = 'pending' DO NOTHING RETURNING id",
                &[&p.op, &args, &p.client, &p.project, &p.summary, &p.reference, &p.why, &hash, &p.created_at],
            )?;
            if let Some(row) = inserted {
                return Ok((row.get(0), true));
            }
            let waiting = tx.query_one(
                "SELECT id FROM proposals WHERE request_hash = $1 AND state = 'pending'",
                &[&hash],
            )?;
            Ok((waiting.get(0), false))
        })
    }

    fn proposals(
        &self,
        project: Option<&str>,
        pending: bool,
        limit: usize,
    ) -> Result<Vec<Proposal>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "SELECT {PROPOSAL_COLUMNS} FROM proposals
             WHERE ($1::text IS NULL OR project = $1) AND (state = 'pending') = $2
             ORDER BY CASE WHEN $2 THEN created_at ELSE -coalesce(decided_at, 0) END, id
             LIMIT $3"
        );
        self.with(|c| {
            Ok(c.query(&sql, &[&project, &pending, &limit])?
                .iter()
                .map(proposal)
                .collect())
        })
    }

    fn proposal(&self, id: i64) -> Result<Option<Proposal>, StoreError> {
        let sql = format!("SELECT {PROPOSAL_COLUMNS} FROM proposals WHERE id = $1");
        self.with(|c| Ok(c.query_opt(&sql, &[&id])?.map(|r| proposal(&r))))
    }

    fn settle_proposal(
        &mut self,
        id: i64,
        accepted: bool,
        by: &str,
        outcome: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let state = if accepted { "accepted" } else { "rejected" };
        self.with(|c| {
            Ok(c.execute(
                "UPDATE proposals SET state = $2, decided_at = $3, decided_by = $4, outcome = $5
                 WHERE id = $1 AND state = 'pending'",
                &[&id, &state, &now, &by, &outcome],
            )? == 1)
        })
    }

    fn client_trust(&self, client: &str) -> Result<Option<String>, StoreError> {
        self.with(|c| {
            Ok(c.query_opt(
                "SELECT level FROM client_trust WHERE client = $1",
                &[&client],
            )?
            .map(|r| r.get(0)))
        })
    }

    fn set_client_trust(
        &mut self,
        client: &str,
        level: Option<&str>,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.with(|c| {
            Ok(match level {
                Some(level) => c.execute(
                    "INSERT INTO client_trust (client, level, set_at) VALUES ($1, $2, $3)
                     ON CONFLICT (client) DO UPDATE SET level = excluded.level, set_at = excluded.set_at
                     WHERE client_trust.level <> excluded.level",
                    &[&client, &level, &now],
                )?,
                None => c.execute("DELETE FROM client_trust WHERE client = $1", &[&client])?,
            } == 1)
        })
    }

    fn client_trusts(&self) -> Result<Vec<ClientTrust>, StoreError> {
        self.with(|c| {
            Ok(c.query(
                "SELECT client, level, set_at FROM client_trust ORDER BY client COLLATE \"C\"",
                &[],
            )?
            .iter()
            .map(|r| ClientTrust {
                client: r.get(0),
                level: r.get(1),
                set_at: r.get(2),
            })
            .collect())
        })
    }
}
