//! Named work-state lists and dismissing items on PostgreSQL, as the SQLite store keeps them
//! (see [`crate::store::state`]): a list is a note memory, rewritten in place, with its items
//! beside it in `work_lists`; a dismissal or restore writes its audit row in the statement that
//! makes it, so neither is ever kept without the other.
//!
//! SQLite's writers take the whole file, so two writes of one list never interleave. Here a
//! write first takes a transaction-level advisory lock on the list's project and name: two hub
//! processes writing the same list one after the other leave one memory, not an orphan each.

use super::PgStore;
use crate::redact::Redacted;
use crate::store::contract::Lists;
use crate::store::state::{AuditEntry, ItemType, NewList};
use crate::store::{StoreError, content_hash};

/// The first key of the advisory locks on a list (the second is its key's hash), so that they
/// share no lock with the single-key advisory locks other parts take.
const LIST_LOCK_CLASS: i32 = 0x6c69_7374; // "list"

impl Lists for PgStore {
    fn write_list(
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
        let hash = content_hash(&title, &text);
        self.write(|tx| {
            tx.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2 || chr(31) || $3))",
                &[&LIST_LOCK_CLASS, project, name],
            )?;
            let existing: Option<i64> = tx
                .query_opt(
                    "SELECT memory_id FROM work_lists WHERE project = $1 AND name = $2",
                    &[project, name],
                )?
                .map(|r| r.get(0));
            // SQLite's `UPDATE OR IGNORE`: a rewrite that would make the memory another one's
            // twin (same project, kind and content) leaves it, and the list moves to the twin.
            let rewritten = match existing {
                Some(id) => {
                    tx.execute(
                        "UPDATE memories m SET text = $2, content_hash = $3, created_at = $4
                         WHERE m.id = $1 AND NOT EXISTS (
                             SELECT 1 FROM memories o
                             WHERE o.project = m.project AND o.kind = m.kind
                               AND o.content_hash = $3 AND o.id <> m.id)",
                        &[&id, &text, &hash, &now],
                    )? == 1
                }
                None => false,
            };
            let memory_id = match existing {
                Some(id) if rewritten => id,
                // A note built from parts that are already redacted; one with this content
                // already stored is the list's memory, as the SQLite store's insert answers.
                _ => {
                    let uid = uuid::Uuid::now_v7().to_string();
                    let inserted = tx.query_opt(
                        "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                                               pinned, dismissed, created_at, content_hash)
                         VALUES ($1, $2, 'note', 'note', $3, $4, $5, NULL, '[]', false, false, $6, $7)
                         ON CONFLICT DO NOTHING RETURNING id",
                        &[&uid, project, &title, &text, &host, &now, &hash],
                    )?;
                    match inserted {
                        Some(row) => row.get(0),
                        None => tx
                            .query_one(
                                "SELECT id FROM memories WHERE project = $1 AND kind = 'note' AND content_hash = $2",
                                &[project, &hash],
                            )?
                            .get(0),
                    }
                }
            };
            tx.execute(
                "INSERT INTO work_lists (project, name, memory_id, items, updated_at) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (project, name) DO UPDATE SET memory_id = EXCLUDED.memory_id, items = EXCLUDED.items,
                     updated_at = EXCLUDED.updated_at",
                &[project, name, &memory_id, &text, &now],
            )?;
            Ok(memory_id)
        })
    }

    fn read_list(&self, project: &str, name: &str) -> Result<Option<String>, StoreError> {
        self.with(|c| {
            Ok(c.query_opt(
                "SELECT items FROM work_lists WHERE project = $1 AND name = $2",
                &[&project, &name],
            )?
            .map(|r| r.get(0)))
        })
    }

    fn set_dismissed(
        &mut self,
        item: ItemType,
        id: i64,
        dismissed: bool,
        entry: &Redacted<AuditEntry>,
        now: i64,
    ) -> Result<bool, StoreError> {
        let AuditEntry { actor, reason } = entry.get();
        let change = match item {
            ItemType::Memory => "UPDATE memories SET dismissed = $2 WHERE id = $1 RETURNING id",
            ItemType::Observation => {
                "UPDATE memories SET dismissed = $2 WHERE id = $1 AND kind = 'observation' RETURNING id"
            }
            ItemType::Fact => "UPDATE facts SET dismissed = $2 WHERE id = $1 RETURNING id",
            // An episode is a summary row's original message, keyed by that row's id.
            ItemType::Episode => {
                "UPDATE episodes SET dismissed = $2 WHERE memory_id = $1 RETURNING memory_id"
            }
        };
        let action = if dismissed { "dismiss" } else { "restore" };
        self.with(|c| {
            let audited = c.execute(
                &format!(
                    "WITH changed AS ({change})
                     INSERT INTO audit (at, action, item_type, item_id, reason, actor)
                     SELECT $3::bigint, $4::text, $5::text, $6::text, $7::text, $8::text FROM changed"
                ),
                &[
                    &id,
                    &dismissed,
                    &now,
                    &action,
                    &item.as_str(),
                    &id.to_string(),
                    reason,
                    actor,
                ],
            )?;
            Ok(audited > 0)
        })
    }

    fn item_project(&self, item: ItemType, id: i64) -> Result<Option<String>, StoreError> {
        let sql = match item {
            ItemType::Memory => "SELECT project FROM memories WHERE id = $1",
            ItemType::Observation => {
                "SELECT project FROM memories WHERE id = $1 AND kind = 'observation'"
            }
            ItemType::Fact => "SELECT project FROM facts WHERE id = $1",
            ItemType::Episode => {
                "SELECT m.project FROM episodes e JOIN memories m ON m.id = e.memory_id WHERE e.memory_id = $1"
            }
        };
        self.with(|c| Ok(c.query_opt(sql, &[&id])?.map(|r| r.get(0))))
    }
}

#[cfg(test)]
mod tests {
    use super::super::facts::parity::same_on_both;
    use super::*;
    use crate::model::Kind;
    use crate::redact::{Redact, Redactor};
    use crate::store::facts::NewFact;

    fn redacted<T: Redact>(v: T) -> Redacted<T> {
        Redacted::new(v, &Redactor::builtin())
    }

    fn list(project: &str, name: &str, items: serde_json::Value) -> Redacted<NewList> {
        redacted(NewList {
            project: project.into(),
            name: name.into(),
            items,
        })
    }

    fn entry(reason: Option<&str>) -> Redacted<AuditEntry> {
        redacted(AuditEntry {
            actor: "mcp".into(),
            reason: reason.map(Into::into),
        })
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_list_written_twice_keeps_one_memory_rewritten_in_place() {
        same_on_both(|s| {
            let first = s
                .write_list(&list("shop", "todo", serde_json::json!(["a"])), "cli", 1)
                .unwrap();
            let again = s
                .write_list(
                    &list("shop", "todo", serde_json::json!(["a", "b"])),
                    "codex",
                    2,
                )
                .unwrap();
            assert_eq!(first, again);
            let other_project = s
                .write_list(&list("blog", "todo", serde_json::json!(["a"])), "cli", 3)
                .unwrap();
            let other_name = s
                .write_list(&list("shop", "done", serde_json::json!([])), "cli", 4)
                .unwrap();
            assert!(other_project != first && other_name != first);
            assert_eq!(s.tables().memories.len(), 3);
            let reads = [
                s.read_list("shop", "todo").unwrap(),
                s.read_list("blog", "todo").unwrap(),
                s.read_list("shop", "done").unwrap(),
                s.read_list("blog", "done").unwrap(),
            ];
            assert_eq!(reads[0].as_deref(), Some(r#"["a","b"]"#));
            assert_eq!(reads[3], None);
            reads
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_list_rewritten_into_another_memorys_content_moves_to_that_memory() {
        same_on_both(|s| {
            let own = s
                .write_list(&list("shop", "x", serde_json::json!(["a"])), "cli", 1)
                .unwrap();
            // A note that holds exactly what list "x" will hold next.
            let twin = s.seed_memory("shop", Kind::Note, "Work state: x", "7", false, 2);
            let moved = s
                .write_list(&list("shop", "x", serde_json::json!(7)), "cli", 3)
                .unwrap();
            assert_eq!(moved, twin, "the list's own memory is left as it was");
            let kept = s
                .write_list(&list("shop", "x", serde_json::json!(["c"])), "cli", 4)
                .unwrap();
            assert_eq!(kept, twin);
            (own, twin)
        });
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn dismissing_and_restoring_each_item_type_is_audited() {
        same_on_both(|s| {
            let note = s.seed_memory("shop", Kind::Note, "note", "a note", false, 1);
            let seen = s.seed_memory("blog", Kind::Observation, "seen", "tests pass", false, 2);
            let summary = s.seed_memory("shop", Kind::Summary, "summary", "the session", false, 3);
            s.seed_episode(summary, 4);
            let fact = s
                .insert_fact(
                    &redacted(NewFact {
                        project: "shop".into(),
                        subject: "cache".into(),
                        predicate: "ttl".into(),
                        object: "30 s".into(),
                        confidence: 0.8,
                        source: "rules".into(),
                        memory_id: Some(note),
                        valid_from: 1,
                        job_id: None,
                    }),
                    5,
                )
                .unwrap()
                .id();
            let key = format!("ghp_{}", "a".repeat(36));
            let why = entry(Some(&format!("leaked {key} {}", "x".repeat(400))));
            let mut changed = Vec::new();
            for (item, id) in [
                (ItemType::Memory, note),
                (ItemType::Observation, seen),
                (ItemType::Observation, note),
                (ItemType::Fact, fact),
                (ItemType::Episode, summary),
                (ItemType::Episode, note),
                (ItemType::Memory, 999),
                (ItemType::Fact, 999),
            ] {
                let projects = s.item_project(item, id).unwrap();
                let dismissed = s.set_dismissed(item, id, true, &why, 10).unwrap();
                changed.push((item, id, projects, dismissed));
            }
            let t = s.tables();
            assert!(t.memories.iter().find(|m| m.0 == note).unwrap().7);
            assert!(t.memories.iter().find(|m| m.0 == seen).unwrap().7);
            assert!(!t.memories.iter().find(|m| m.0 == summary).unwrap().7);
            assert!(t.episodes[0].4);
            assert!(t.facts[0].dismissed);
            assert_eq!(t.audit.len(), 4, "one row per change: {:?}", t.audit);
            let reason = t.audit[0].5.as_deref().unwrap();
            assert!(!reason.contains(&key) && reason.ends_with('…'), "{reason}");
            // A dismissed fact is not listed; restored, it is again.
            assert!(s.trusted_facts("shop", 10).unwrap().is_empty());
            assert!(s.list_facts(None, None, false, 10).unwrap().is_empty());
            assert!(s.list_facts(None, None, true, 10).unwrap()[0].1);
            assert!(
                s.set_dismissed(ItemType::Fact, fact, false, &entry(None), 11)
                    .unwrap()
            );
            assert_eq!(s.trusted_facts("shop", 10).unwrap().len(), 1);
            assert!(
                s.set_dismissed(ItemType::Episode, summary, false, &entry(None), 12)
                    .unwrap()
            );
            // Dismissing what is dismissed already is still a change recorded.
            assert!(
                s.set_dismissed(ItemType::Memory, note, true, &entry(None), 13)
                    .unwrap()
            );
            let audit = s.tables().audit;
            assert_eq!(audit[4].2, "restore");
            assert_eq!(audit.len(), 7);
            changed
        });
    }
}
