//! Dismissing and restoring items, named work-state lists, and the audit trail they leave.
//!
//! Dismissing hides an item from search and context without deleting it; every dismissal and
//! restore is recorded with its reason (cut to 300 characters).

use super::{Store, StoreError, insert_tx};
use crate::model::{Kind, MemoryType, NewMemory};
use crate::redact::{Redact, Redacted, Redactor};
use rusqlite::{OptionalExtension, params};

/// The longest reason kept in the audit trail.
pub const REASON_MAX_CHARS: usize = 300;

/// Who dismissed or restored an item and why, as the audit trail keeps it. The reason is
/// redacted, then cut to [`REASON_MAX_CHARS`] (cut after redaction, so a cut never hides a
/// secret's shape); the actor is a caller's name, which a client chooses, so it is redacted too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub actor: String,
    pub reason: Option<String>,
}

impl Redact for AuditEntry {
    fn redact(self, r: &Redactor) -> AuditEntry {
        AuditEntry {
            actor: r.redact(&self.actor),
            reason: self
                .reason
                .map(|why| crate::model::cut_chars(&r.redact(&why), REASON_MAX_CHARS)),
        }
    }
}

/// A named work-state list to write: its name and items are free text, its project a key.
#[derive(Debug, Clone, PartialEq)]
pub struct NewList {
    pub project: String,
    pub name: String,
    pub items: serde_json::Value,
}

impl Redact for NewList {
    fn redact(self, r: &Redactor) -> NewList {
        NewList {
            project: crate::project::stored_key(&self.project, r),
            name: r.redact(&self.name),
            items: self.items.redact(r),
        }
    }
}

/// What can be dismissed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemType {
    Memory,
    Observation,
    Fact,
    Episode,
}

impl std::str::FromStr for ItemType {
    type Err = String;
    fn from_str(s: &str) -> Result<ItemType, String> {
        match s {
            "memory" => Ok(ItemType::Memory),
            "observation" => Ok(ItemType::Observation),
            "fact" => Ok(ItemType::Fact),
            "episode" => Ok(ItemType::Episode),
            other => Err(format!(
                "unknown type \"{other}\": use memory, observation, fact or episode."
            )),
        }
    }
}

crate::serde_via_from_str!(ItemType, ["memory", "observation", "fact", "episode"]);

impl ItemType {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemType::Memory => "memory",
            ItemType::Observation => "observation",
            ItemType::Fact => "fact",
            ItemType::Episode => "episode",
        }
    }
}

impl Store {
    /// Set the dismissed flag of an item; false when there is no such item. Audited.
    pub fn set_dismissed(
        &mut self,
        item: ItemType,
        id: i64,
        dismissed: bool,
        entry: &Redacted<AuditEntry>,
        now: i64,
    ) -> Result<bool, StoreError> {
        let AuditEntry { actor, reason } = entry.get();
        self.write(|tx| {
            let changed = match item {
                ItemType::Memory => tx.execute("UPDATE memories SET dismissed = ?2 WHERE id = ?1", params![id, dismissed])?,
                ItemType::Observation => tx.execute(
                    "UPDATE memories SET dismissed = ?2 WHERE id = ?1 AND kind = 'observation'",
                    params![id, dismissed],
                )?,
                ItemType::Fact => tx.execute("UPDATE facts SET dismissed = ?2 WHERE id = ?1", params![id, dismissed])?,
                // An episode is a summary row's original message, keyed by that row's id.
                ItemType::Episode => tx.execute(
                    "UPDATE episodes SET dismissed = ?2 WHERE memory_id = ?1",
                    params![id, dismissed],
                )?,
            };
            if changed == 0 {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO audit (at, action, item_type, item_id, reason, actor) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![now, if dismissed { "dismiss" } else { "restore" }, item.as_str(), id.to_string(), reason, actor],
            )?;
            Ok(true)
        })
    }

    /// Replace a named list's items; returns the id of the memory that holds it.
    pub fn write_list(
        &mut self,
        list: &Redacted<NewList>,
        host: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        let NewList {
            project,
            name,
            items,
        } = list.get();
        let text = items.to_string();
        let title = format!("Work state: {name}");
        self.write(|tx| {
            let existing: Option<i64> = tx
                .query_row("SELECT memory_id FROM work_lists WHERE project = ?1 AND name = ?2", params![project, name], |r| r.get(0))
                .optional()?;
            let memory_id = match existing {
                Some(id)
                    if tx.execute(
                        "UPDATE OR IGNORE memories SET text = ?2, content_hash = ?3, created_at = ?4 WHERE id = ?1",
                        params![id, text, super::content_hash(&title, &text), now],
                    )? == 1 =>
                {
                    id
                }
                _ => {
                    // Built from parts that are already redacted.
                    let m = NewMemory {
                        project: project.clone(),
                        kind: Kind::Note,
                        mtype: MemoryType::Note,
                        title: title.clone(),
                        text: text.clone(),
                        host: host.into(),
                        session_id: None,
                        files: vec![],
                        pinned: false,
                        created_at: now,
                    };
                    insert_tx(tx, &Redacted::new(m, &Redactor::builtin()), None, false)?.id
                }
            };
            tx.execute(
                "INSERT INTO work_lists (project, name, memory_id, items, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (project, name) DO UPDATE SET memory_id = excluded.memory_id, items = excluded.items,
                     updated_at = excluded.updated_at",
                params![project, name, memory_id, text, now],
            )?;
            Ok(memory_id)
        })
    }

    /// A named list's items as stored, or `None`.
    pub fn read_list(&self, project: &str, name: &str) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row(
                "SELECT items FROM work_lists WHERE project = ?1 AND name = ?2",
                params![project, name],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// The project of an item, or `None` when there is no such item.
    pub fn item_project(&self, item: ItemType, id: i64) -> Result<Option<String>, StoreError> {
        let sql = match item {
            ItemType::Memory => "SELECT project FROM memories WHERE id = ?1",
            ItemType::Observation => {
                "SELECT project FROM memories WHERE id = ?1 AND kind = 'observation'"
            }
            ItemType::Fact => "SELECT project FROM facts WHERE id = ?1",
            ItemType::Episode => {
                "SELECT m.project FROM episodes e JOIN memories m ON m.id = e.memory_id WHERE e.memory_id = ?1"
            }
        };
        self.conn()
            .query_row(sql, [id], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))
    }
}
