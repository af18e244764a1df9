//! Standing rules: added by a user or a model, confirmed when re-checked, listed at session
//! start. An identical rule (same situation, text and scope) is stored once.

use super::{Store, StoreError};
use rusqlite::{OptionalExtension, params};

/// A rule to add.
#[derive(Debug, Clone)]
pub struct NewRule {
    pub when: String,
    pub then: String,
    pub scope_tier: String,
    pub scope_name: String,
    pub source: String,
    pub evidence: serde_json::Value,
}

/// The stable id of a rule: `r_` and ten hex digits of its content's hash.
pub fn rule_id(r: &NewRule) -> String {
    let hash = super::content_hash(
        &format!("{}\u{1}{}", r.when, r.then),
        &format!("{}\u{1}{}", r.scope_tier, r.scope_name),
    );
    format!("r_{}", &hash[..10])
}

impl Store {
    /// Add a rule; returns its id and whether it is new.
    pub fn add_rule(&mut self, r: &NewRule, now: i64) -> Result<(String, bool), StoreError> {
        let id = rule_id(r);
        self.write(|tx| {
            let existing: Option<String> = tx
                .query_row(
                    "SELECT id FROM rules WHERE when_text = ?1 AND then_text = ?2 AND scope_tier = ?3 AND scope_name = ?4",
                    params![r.when, r.then, r.scope_tier, r.scope_name],
                    |row| row.get(0),
                )
                .optional()?;
            if let Some(id) = existing {
                return Ok((id, false));
            }
            tx.execute(
                "INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source, evidence, created_at, confirmed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                params![id, r.when, r.then, r.scope_tier, r.scope_name, r.source, r.evidence.to_string(), now],
            )?;
            Ok((id.clone(), true))
        })
    }

    /// Record that a rule was re-checked; false when there is no such rule.
    pub fn confirm_rule(&mut self, id: &str, now: i64) -> Result<bool, StoreError> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE rules SET confirmed_at = ?2, recheck = NULL WHERE id = ?1",
                params![id, now],
            )? == 1)
        })
    }
}
