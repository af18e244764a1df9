//! Reading an item as it travels, and writing one that arrived, for each kind that syncs.
//!
//! An item on the wire names projects by identity and other items by uid; here they become
//! this store's project keys and row ids. Each kind has one key per store: a memory's uid, an
//! episode's memory uid, a fact's uid (`sync_fact_uids`), a rule's id (from its content, so the
//! same rule written on two machines is one), and a list's project and name.

use super::{LIST_KEY_SEP, identity_of, project_for};
use crate::store::memories::{content_hash, insert_fields};
use crate::sync::item::{EpisodeItem, FactItem, Item, ListItem, MemoryItem, RuleItem};
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::BTreeMap;

/// The identities an item read here names, with this store's name for each: what a batch
/// carries so the other side can name a project it has not seen.
pub(super) type Names = BTreeMap<String, String>;

/// The item of `kind` with this store's `key`, as it travels; `None` when it is gone. `pin`
/// ties a project with no identity yet to its own key for good (a machine's push); a hub's
/// reads name such a project by its key and tie nothing.
pub(super) fn read(
    tx: &Transaction<'_>,
    kind: &str,
    key: &str,
    names: &mut Names,
    pin: bool,
) -> rusqlite::Result<Option<Item>> {
    let Some(item) = read_local(tx, kind, key)? else {
        return Ok(None);
    };
    try_map_projects(item, |project| {
        let identity = identity_of(tx, project, pin)?;
        names.insert(identity.clone(), project.to_owned());
        Ok(identity)
    })
    .map(Some)
}

/// The item of `kind` with this store's `key`, naming this store's projects.
pub(super) fn read_local(
    tx: &Transaction<'_>,
    kind: &str,
    key: &str,
) -> rusqlite::Result<Option<Item>> {
    Ok(match kind {
        "memory" => read_memory(tx, key)?.map(Item::Memory),
        "episode" => tx
            .prepare_cached(
                "SELECT e.title, e.text, e.replaced_at, e.dismissed FROM episodes e
                 JOIN memories m ON m.id = e.memory_id WHERE m.uid = ?1",
            )?
            .query_row([key], |r| {
                Ok(Item::Episode(EpisodeItem {
                    memory_uid: key.to_owned(),
                    title: r.get(0)?,
                    text: r.get(1)?,
                    replaced_at: r.get(2)?,
                    dismissed: r.get(3)?,
                }))
            })
            .optional()?,
        "fact" => tx
            .prepare_cached(
                "SELECT f.project, f.subject, f.predicate, f.object, f.confidence, f.source,
                        (SELECT uid FROM memories WHERE id = f.memory_id), f.valid_from, f.valid_to,
                        (SELECT uid FROM sync_fact_uids WHERE fact_id = f.superseded_by),
                        f.superseded_at, f.dismissed, f.created_at
                 FROM facts f JOIN sync_fact_uids u ON u.fact_id = f.id WHERE u.uid = ?1",
            )?
            .query_row([key], |r| {
                Ok(Item::Fact(FactItem {
                    uid: key.to_owned(),
                    project: r.get(0)?,
                    subject: r.get(1)?,
                    predicate: r.get(2)?,
                    object: r.get(3)?,
                    confidence: r.get(4)?,
                    source: r.get(5)?,
                    memory_uid: r.get(6)?,
                    valid_from: r.get(7)?,
                    valid_to: r.get(8)?,
                    superseded_by: r.get(9)?,
                    superseded_at: r.get(10)?,
                    dismissed: r.get(11)?,
                    created_at: r.get(12)?,
                }))
            })
            .optional()?,
        "rule" => tx
            .prepare_cached(
                "SELECT when_text, then_text, scope_tier, scope_name, source, enabled, recheck,
                        evidence, created_at, confirmed_at FROM rules WHERE id = ?1",
            )?
            .query_row([key], |r| {
                let evidence: String = r.get(7)?;
                Ok(Item::Rule(RuleItem {
                    when: r.get(0)?,
                    then: r.get(1)?,
                    scope_tier: r.get(2)?,
                    scope_name: r.get(3)?,
                    source: r.get(4)?,
                    enabled: r.get(5)?,
                    recheck: r.get(6)?,
                    evidence: serde_json::from_str(&evidence).unwrap_or_default(),
                    created_at: r.get(8)?,
                    confirmed_at: r.get(9)?,
                }))
            })
            .optional()?,
        "list" => {
            let Some((project, name)) = key.split_once(LIST_KEY_SEP) else {
                return Ok(None);
            };
            tx.prepare_cached(
                "SELECT items, updated_at FROM work_lists WHERE project = ?1 AND name = ?2",
            )?
            .query_row(params![project, name], |r| {
                let items: String = r.get(0)?;
                Ok(Item::List(ListItem {
                    project: project.to_owned(),
                    name: name.to_owned(),
                    items: serde_json::from_str(&items).unwrap_or_default(),
                    updated_at: r.get(1)?,
                }))
            })
            .optional()?
        }
        _ => None,
    })
}

fn read_memory(tx: &Transaction<'_>, uid: &str) -> rusqlite::Result<Option<MemoryItem>> {
    tx.prepare_cached(
        "SELECT uid, project, kind, type, title, text, tool, session_id, files, pinned, dismissed,
                created_at FROM memories WHERE uid = ?1",
    )?
    .query_row([uid], memory_from_row)
    .optional()
}

/// A memory row selected as [`read_memory`] selects it.
pub(super) fn memory_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MemoryItem> {
    let files: String = r.get(8)?;
    Ok(MemoryItem {
        uid: r.get(0)?,
        project: r.get(1)?,
        kind: r.get(2)?,
        mtype: r.get(3)?,
        title: r.get(4)?,
        text: r.get(5)?,
        tool: r.get(6)?,
        session_id: r.get(7)?,
        files: serde_json::from_str(&files).unwrap_or_default(),
        pinned: r.get(9)?,
        dismissed: r.get(10)?,
        created_at: r.get(11)?,
    })
}

/// An item from elsewhere with its identities made this store's projects (`names` gives the
/// other side's name for each). `tie` lets an identity this store has not seen become one of
/// its projects for good; without it such an item goes to the project of the sender's name,
/// and nothing is tied (a hub does not let a token limited to projects decide where another
/// machine's repository lands).
pub(super) fn localise(
    tx: &Transaction<'_>,
    item: Item,
    names: &BTreeMap<String, String>,
    tie: bool,
) -> rusqlite::Result<Item> {
    try_map_projects(item, |identity| {
        let name = names.get(identity).map_or(identity, String::as_str);
        project_for(tx, identity, name, tie)
    })
}

/// [`Item::map_projects`] with a mapping that can fail: the first failure, or the item.
pub(in crate::store) fn try_map_projects<E>(
    item: Item,
    mut f: impl FnMut(&str) -> Result<String, E>,
) -> Result<Item, E> {
    let mut failed = None;
    let item = item.map_projects(|project| {
        f(project).unwrap_or_else(|e| {
            failed = Some(e);
            project.to_owned()
        })
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(item),
    }
}

/// The key a store knows a local item by (a hub's, on either engine, too).
pub(in crate::store) fn key_of(item: &Item) -> String {
    match item {
        Item::Memory(m) => m.uid.clone(),
        Item::Episode(e) => e.memory_uid.clone(),
        Item::Fact(f) => f.uid.clone(),
        Item::Rule(r) => crate::store::rules::rule_id(&crate::store::rules::NewRule {
            when: r.when.clone(),
            then: r.then.clone(),
            scope_tier: r.scope_tier.clone(),
            scope_name: r.scope_name.clone(),
            source: String::new(),
            evidence: serde_json::Value::Null,
        }),
        Item::List(l) => format!("{}{LIST_KEY_SEP}{}", l.project, l.name),
    }
}

/// What writing an item came to, on either engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::store) enum Written {
    Stored,
    /// It hangs on a memory this store does not hold (an episode, say): nothing written.
    Orphan,
}

/// The row of a memory uid, or of the memory it was found to be (`sync_aliases`).
fn memory_id(tx: &Transaction<'_>, uid: &str) -> rusqlite::Result<Option<i64>> {
    tx.prepare_cached(
        "SELECT id FROM memories WHERE uid = ?1
         UNION ALL SELECT m.id FROM sync_aliases a JOIN memories m ON m.uid = a.target WHERE a.uid = ?1
         LIMIT 1",
    )?
    .query_row([uid], |r| r.get(0))
    .optional()
}

fn fact_id(tx: &Transaction<'_>, uid: &str) -> rusqlite::Result<Option<i64>> {
    tx.prepare_cached("SELECT fact_id FROM sync_fact_uids WHERE uid = ?1")?
        .query_row([uid], |r| r.get(0))
        .optional()
}

/// Write a local item (already redacted, projects already this store's) over what is here.
pub(super) fn write(tx: &Transaction<'_>, item: &Item) -> rusqlite::Result<Written> {
    match item {
        Item::Memory(m) => write_memory(tx, m),
        Item::Episode(e) => {
            let Some(id) = memory_id(tx, &e.memory_uid)? else {
                return Ok(Written::Orphan);
            };
            tx.prepare_cached(
                "INSERT INTO episodes (memory_id, title, text, replaced_at, dismissed) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (memory_id) DO UPDATE SET title = excluded.title, text = excluded.text,
                     replaced_at = excluded.replaced_at, dismissed = excluded.dismissed",
            )?
            .execute(params![id, e.title, e.text, e.replaced_at, e.dismissed])?;
            Ok(Written::Stored)
        }
        Item::Fact(f) => write_fact(tx, f),
        Item::Rule(r) => {
            tx.prepare_cached(
                "INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source, enabled, recheck,
                                    evidence, created_at, confirmed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT (id) DO UPDATE SET source = excluded.source, enabled = excluded.enabled,
                     recheck = excluded.recheck, evidence = excluded.evidence, confirmed_at = excluded.confirmed_at",
            )?
            .execute(params![
                key_of(item),
                r.when,
                r.then,
                r.scope_tier,
                r.scope_name,
                r.source,
                r.enabled,
                r.recheck,
                r.evidence.to_string(),
                r.created_at,
                r.confirmed_at
            ])?;
            Ok(Written::Stored)
        }
        Item::List(l) => write_list(tx, l),
    }
}

fn write_memory(tx: &Transaction<'_>, m: &MemoryItem) -> rusqlite::Result<Written> {
    let existing = match memory_id(tx, &m.uid)? {
        Some(id) => Some(id),
        // Two machines may have stored the same text under two uids: it is one memory, and
        // the other uid names it from now on, so a later edit under it changes this row.
        None => {
            let twin: Option<(i64, String)> = tx
                .prepare_cached(
                    "SELECT id, uid FROM memories WHERE project = ?1 AND kind = ?2 AND content_hash = ?3",
                )?
                .query_row(
                    params![m.project, m.kind, content_hash(&m.title, &m.text)],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            if let Some((_, target)) = &twin {
                tx.prepare_cached(
                    "INSERT OR IGNORE INTO sync_aliases (uid, target) VALUES (?1, ?2)",
                )?
                .execute([&m.uid, target])?;
            }
            twin.map(|(id, _)| id)
        }
    };
    let Some(id) = existing else {
        let new = crate::model::NewMemory {
            project: m.project.clone(),
            kind: m.kind.parse().unwrap_or(crate::model::Kind::Note),
            mtype: m.mtype.parse().unwrap_or(crate::model::MemoryType::Note),
            title: m.title.clone(),
            text: m.text.clone(),
            host: m.tool.clone(),
            session_id: m.session_id.clone(),
            files: m.files.clone(),
            pinned: m.pinned,
            created_at: m.created_at,
        };
        insert_fields(tx, &new, Some(&m.uid), m.dismissed)?;
        return Ok(Written::Stored);
    };
    let files = serde_json::to_string(&m.files).unwrap_or_else(|_| "[]".into());
    // OR IGNORE: text that another memory of the project already holds keeps its own.
    tx.prepare_cached(
        "UPDATE OR IGNORE memories SET title = ?2, text = ?3, content_hash = ?4, files = ?5
         WHERE id = ?1 AND (title != ?2 OR text != ?3 OR files != ?5)",
    )?
    .execute(params![
        id,
        m.title,
        m.text,
        content_hash(&m.title, &m.text),
        files
    ])?;
    tx.prepare_cached(
        "UPDATE memories SET pinned = ?2, dismissed = ?3 WHERE id = ?1 AND (pinned != ?2 OR dismissed != ?3)",
    )?
    .execute(params![id, m.pinned, m.dismissed])?;
    Ok(Written::Stored)
}

fn write_fact(tx: &Transaction<'_>, f: &FactItem) -> rusqlite::Result<Written> {
    // A fact hangs only on a memory of its own project.
    let memory = match &f.memory_uid {
        Some(uid) => memory_id(tx, uid)?.filter(|id| {
            tx.prepare_cached("SELECT 1 FROM memories WHERE id = ?1 AND project = ?2")
                .and_then(|mut s| s.exists(params![id, f.project]))
                .unwrap_or(false)
        }),
        None => None,
    };
    let superseded_by = match &f.superseded_by {
        Some(uid) => fact_id(tx, uid)?,
        None => None,
    };
    let held = fact_id(tx, &f.uid)?;
    // One statement for a new fact and a known one; a known one keeps when it was first stored.
    let id: i64 = tx
        .prepare_cached(
            "INSERT INTO facts (id, project, subject, predicate, object, confidence, source, memory_id,
                                valid_from, valid_to, superseded_by, superseded_at, dismissed, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
             ON CONFLICT (id) DO UPDATE SET project = excluded.project, subject = excluded.subject,
                 predicate = excluded.predicate, object = excluded.object, confidence = excluded.confidence,
                 source = excluded.source, memory_id = excluded.memory_id, valid_from = excluded.valid_from,
                 valid_to = excluded.valid_to, superseded_by = excluded.superseded_by,
                 superseded_at = excluded.superseded_at, dismissed = excluded.dismissed
             RETURNING id",
        )?
        .query_row(
            params![
                held,
                f.project,
                f.subject,
                f.predicate,
                f.object,
                f.confidence,
                f.source,
                memory,
                f.valid_from,
                f.valid_to,
                superseded_by,
                f.superseded_at,
                f.dismissed,
                f.created_at
            ],
            |r| r.get(0),
        )?;
    if held.is_none() {
        // The trigger gave the new row a uid of its own: it is the one it travelled as.
        tx.prepare_cached("DELETE FROM sync_dirty WHERE kind = 'fact' AND key = (SELECT uid FROM sync_fact_uids WHERE fact_id = ?1)")?
            .execute([id])?;
        tx.prepare_cached("UPDATE sync_fact_uids SET uid = ?2 WHERE fact_id = ?1")?
            .execute(params![id, f.uid])?;
    }
    Ok(Written::Stored)
}

fn write_list(tx: &Transaction<'_>, l: &ListItem) -> rusqlite::Result<Written> {
    let text = l.items.to_string();
    let title = format!("Work state: {}", l.name);
    let existing: Option<i64> = tx
        .prepare_cached("SELECT memory_id FROM work_lists WHERE project = ?1 AND name = ?2")?
        .query_row(params![l.project, l.name], |r| r.get(0))
        .optional()?;
    let updated = match existing {
        Some(id) => {
            tx.prepare_cached(
                "UPDATE OR IGNORE memories SET text = ?2, content_hash = ?3, created_at = ?4 WHERE id = ?1",
            )?
            .execute(params![id, text, content_hash(&title, &text), l.updated_at])?
                == 1
        }
        None => false,
    };
    let memory_id = match existing {
        Some(id) if updated => id,
        _ => {
            let new = crate::model::NewMemory {
                project: l.project.clone(),
                kind: crate::model::Kind::Note,
                mtype: crate::model::MemoryType::Note,
                title,
                text: text.clone(),
                host: "sync".to_owned(),
                session_id: None,
                files: vec![],
                pinned: false,
                created_at: l.updated_at,
            };
            insert_fields(tx, &new, None, false)?.id
        }
    };
    tx.prepare_cached(
        "INSERT INTO work_lists (project, name, memory_id, items, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (project, name) DO UPDATE SET memory_id = excluded.memory_id, items = excluded.items,
             updated_at = excluded.updated_at",
    )?
    .execute(params![l.project, l.name, memory_id, text, l.updated_at])?;
    Ok(Written::Stored)
}
