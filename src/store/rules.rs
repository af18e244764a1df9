//! Standing rules: added by a user or a model, confirmed when re-checked, listed at session
//! start. An identical rule (same situation, text and scope) is stored once.

use super::{Store, StoreError};
use crate::model::Rule;
use crate::redact::{Redact, Redacted, Redactor};
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

impl Redact for NewRule {
    /// The situation, the rule, its scope's name and its evidence may quote what someone
    /// typed; the source is a caller's name, which a client chooses. A project scope's name is
    /// a project key, stored as every project key is.
    fn redact(self, r: &Redactor) -> NewRule {
        let scope_name = if self.scope_tier == "project" {
            crate::project::stored_key(&self.scope_name, r)
        } else {
            r.redact(&self.scope_name)
        };
        NewRule {
            when: r.redact(&self.when),
            then: r.redact(&self.then),
            scope_name,
            source: r.redact(&self.source),
            evidence: self.evidence.redact(r),
            ..self
        }
    }
}

/// The stable id of a rule: `r_` and ten hex digits of its content's hash.
pub fn rule_id(r: &NewRule) -> String {
    let hash = super::content_hash(
        &format!("{}\u{1}{}", r.when, r.then),
        &format!("{}\u{1}{}", r.scope_tier, r.scope_name),
    );
    format!("r_{}", &hash[..10])
}

/// The columns [`rule_from_row`] reads, in its order.
const RULE_COLUMNS: &str =
    "id, when_text, then_text, scope_tier, scope_name, source, recheck, created_at, confirmed_at";

/// Map a row selected with [`RULE_COLUMNS`] first.
fn rule_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Rule> {
    Ok(Rule {
        id: r.get(0)?,
        when: r.get(1)?,
        then: r.get(2)?,
        scope_tier: r.get(3)?,
        scope_name: r.get(4)?,
        source: r.get(5)?,
        recheck: r.get(6)?,
        created_at: r.get(7)?,
        confirmed_at: r.get(8)?,
    })
}

impl Store {
    /// Add a rule; returns its id and whether it is new.
    pub fn add_rule(
        &mut self,
        r: &Redacted<NewRule>,
        now: i64,
    ) -> Result<(String, bool), StoreError> {
        let r = r.get();
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

    /// A rule's scope tier and name, or `None` when there is no such rule.
    pub fn rule_scope(&self, id: &str) -> Result<Option<(String, String)>, StoreError> {
        self.conn
            .query_row(
                "SELECT scope_tier, scope_name FROM rules WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
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

    /// The enabled rules, oldest first. With a project: those for everywhere, for that project,
    /// and for situations (which apply wherever the situation arises).
    pub fn enabled_rules(&self, project: Option<&str>) -> Result<Vec<Rule>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {RULE_COLUMNS} FROM rules WHERE enabled = 1
                   AND (?1 IS NULL OR scope_tier != 'project' OR scope_name = ?1)
                 ORDER BY created_at, id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([project], rule_from_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Every rule, enabled or not, oldest first, each with its enabled flag. With a project:
    /// those for everywhere, for that project, and for situations.
    pub fn all_rules(&self, project: Option<&str>) -> Result<Vec<(Rule, bool)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {RULE_COLUMNS}, enabled
                 FROM rules WHERE (?1 IS NULL OR scope_tier != 'project' OR scope_name = ?1)
                 ORDER BY created_at, id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([project], |r| Ok((rule_from_row(r)?, r.get(9)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Enable or disable a rule (a disabled one is kept, but no longer listed or synced); false
    /// when there is no such rule.
    pub fn set_rule_enabled(&mut self, id: &str, enabled: bool) -> Result<bool, StoreError> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE rules SET enabled = ?2 WHERE id = ?1",
                params![id, enabled],
            )? == 1)
        })
    }
}
