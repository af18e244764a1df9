//! Reading the hub's items as they travel, and writing those that arrived, for each kind that
//! syncs, as SQLite's `store::sync::items` does; reads take many keys at once, for the page of
//! items a pull serves.

use super::super::rows::{MEMORY_COLUMNS, memory};
use super::Tx;
use crate::model::{Kind, MemoryType};
use crate::store::memories::content_hash;
use crate::store::sync::{LIST_KEY_SEP, Written, key_of};
use crate::sync::item::{Change, EpisodeItem, FactItem, Item, ListItem, MemoryItem, RuleItem};
use postgres::Error;
use postgres::types::ToSql;
use std::collections::{HashMap, HashSet};

/// A list's key split into its project and name.
pub(super) fn list_keys(keys: &[String]) -> (Vec<&str>, Vec<&str>) {
    keys.iter()
        .filter_map(|k| k.split_once(LIST_KEY_SEP))
        .unzip()
}

/// A local item, with (for an episode) its memory's project, which decides who may reach it.
pub(super) type Found = (Item, Option<String>);

/// The items of `kind` among `keys` that the hub holds, naming its own projects, by key.
pub(super) fn read_items(
    tx: &mut Tx<'_, '_>,
    kind: &str,
    keys: &[String],
) -> Result<HashMap<String, Found>, Error> {
    let mut found = HashMap::new();
    match kind {
        "memory" => {
            let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.uid = ANY($1)");
            for r in tx.query(&sql, &[&keys])? {
                let m = memory(&r);
                let item = MemoryItem {
                    uid: m.uid.clone(),
                    project: m.project,
                    kind: m.kind.as_str().to_owned(),
                    mtype: m.mtype.as_str().to_owned(),
                    title: m.title,
                    text: m.text,
                    tool: m.host,
                    session_id: m.session_id,
                    files: m.files,
                    pinned: m.pinned,
                    dismissed: m.dismissed,
                    created_at: m.created_at,
                };
                found.insert(m.uid, (Item::Memory(item), None));
            }
        }
        "episode" => {
            for r in tx.query(
                "SELECT m.uid, m.project, e.title, e.text, e.replaced_at, e.dismissed FROM episodes e
                 JOIN memories m ON m.id = e.memory_id WHERE m.uid = ANY($1)",
                &[&keys],
            )? {
                let uid: String = r.get(0);
                let item = Item::Episode(EpisodeItem {
                    memory_uid: uid.clone(),
                    title: r.get(2),
                    text: r.get(3),
                    replaced_at: r.get(4),
                    dismissed: r.get(5),
                });
                found.insert(uid, (item, Some(r.get(1))));
            }
        }
        "fact" => {
            for r in tx.query(
                "SELECT u.uid, f.project, f.subject, f.predicate, f.object, f.confidence, f.source,
                        (SELECT uid FROM memories WHERE id = f.memory_id), f.valid_from, f.valid_to,
                        (SELECT uid FROM sync_fact_uids WHERE fact_id = f.superseded_by),
                        f.superseded_at, f.dismissed, f.created_at
                 FROM facts f JOIN sync_fact_uids u ON u.fact_id = f.id WHERE u.uid = ANY($1)",
                &[&keys],
            )? {
                let uid: String = r.get(0);
                let item = Item::Fact(FactItem {
                    uid: uid.clone(),
                    project: r.get(1),
                    subject: r.get(2),
                    predicate: r.get(3),
                    object: r.get(4),
                    confidence: r.get(5),
                    source: r.get(6),
                    memory_uid: r.get(7),
                    valid_from: r.get(8),
                    valid_to: r.get(9),
                    superseded_by: r.get(10),
                    superseded_at: r.get(11),
                    dismissed: r.get(12),
                    created_at: r.get(13),
                });
                found.insert(uid, (item, None));
            }
        }
        "rule" => {
            for r in tx.query(
                "SELECT id, when_text, then_text, scope_tier, scope_name, source, enabled, recheck,
                        evidence, created_at, confirmed_at FROM rules WHERE id = ANY($1)",
                &[&keys],
            )? {
                let evidence: String = r.get(8);
                let item = Item::Rule(RuleItem {
                    when: r.get(1),
                    then: r.get(2),
                    scope_tier: r.get(3),
                    scope_name: r.get(4),
                    source: r.get(5),
                    enabled: r.get(6),
                    recheck: r.get(7),
                    evidence: serde_json::from_str(&evidence).unwrap_or_default(),
                    created_at: r.get(9),
                    confirmed_at: r.get(10),
                });
                found.insert(r.get(0), (item, None));
            }
        }
        "list" => {
            let (projects, names) = list_keys(keys);
            for r in tx.query(
                "SELECT w.project, w.name, w.items, w.updated_at FROM work_lists w
                 JOIN unnest($1::text[], $2::text[]) AS k(project, name)
                   ON w.project = k.project AND w.name = k.name",
                &[&projects, &names],
            )? {
                let (project, name): (String, String) = (r.get(0), r.get(1));
                let items: String = r.get(2);
                let key = format!("{project}{LIST_KEY_SEP}{name}");
                let item = Item::List(ListItem {
                    project,
                    name,
                    items: serde_json::from_str(&items).unwrap_or_default(),
                    updated_at: r.get(3),
                });
                found.insert(key, (item, None));
            }
        }
        _ => {}
    }
    Ok(found)
}

/// The item of `kind` with the hub's `key`, naming the hub's projects; `None` when it is gone.
pub(super) fn read_local(
    tx: &mut Tx<'_, '_>,
    kind: &str,
    key: &str,
) -> Result<Option<Found>, Error> {
    Ok(read_items(tx, kind, &[key.to_owned()])?.remove(key))
}

/// The row of a memory uid, or of the memory it was found to be (`sync_aliases`).
fn memory_id(tx: &mut Tx<'_, '_>, uid: &str) -> Result<Option<i64>, Error> {
    Ok(tx
        .query_one(
            "SELECT coalesce((SELECT id FROM memories WHERE uid = $1),
                             (SELECT m.id FROM sync_aliases a JOIN memories m ON m.uid = a.target WHERE a.uid = $1))",
            &[&uid],
        )?
        .get(0))
}

fn fact_id(tx: &mut Tx<'_, '_>, uid: &str) -> Result<Option<i64>, Error> {
    Ok(tx
        .query_opt("SELECT fact_id FROM sync_fact_uids WHERE uid = $1", &[&uid])?
        .map(|r| r.get(0)))
}

/// A memory's fields, for [`insert_memory`].
struct NewRow<'m> {
    uid: Option<&'m str>,
    project: &'m str,
    kind: Kind,
    mtype: MemoryType,
    title: &'m str,
    text: &'m str,
    tool: &'m str,
    session_id: Option<&'m str>,
    files: &'m [String],
    pinned: bool,
    dismissed: bool,
    created_at: i64,
}

impl NewRow<'_> {
    /// The row of a memory that travelled.
    fn of(m: &MemoryItem) -> NewRow<'_> {
        NewRow {
            uid: Some(&m.uid),
            project: &m.project,
            kind: m.kind.parse().unwrap_or(Kind::Note),
            mtype: m.mtype.parse().unwrap_or(MemoryType::Note),
            title: &m.title,
            text: &m.text,
            tool: &m.tool,
            session_id: m.session_id.as_deref(),
            files: &m.files,
            pinned: m.pinned,
            dismissed: m.dismissed,
            created_at: m.created_at,
        }
    }
}

/// Insert `m` under `uid` by `sql`, an insert of the thirteen columns as `$1` to `$13` that
/// returns the id of a row it took; that row's files go in with it, and it is noted as
/// stored by this transaction.
fn insert_row(
    tx: &mut Tx<'_, '_>,
    sql: &str,
    m: &NewRow<'_>,
    uid: &str,
    hash: &str,
) -> Result<Option<i64>, Error> {
    let files = serde_json::to_string(m.files).unwrap_or_else(|_| "[]".into());
    let id: Option<i64> = tx
        .query_opt(
            sql,
            &[
                &uid,
                &m.project,
                &m.kind.as_str(),
                &m.mtype.as_str(),
                &m.title,
                &m.text,
                &m.tool,
                &m.session_id,
                &files,
                &m.pinned,
                &m.dismissed,
                &m.created_at,
                &hash,
            ],
        )?
        .map(|r| r.get(0));
    if let Some(id) = id {
        if !m.files.is_empty() {
            tx.execute(
                "INSERT INTO memory_files (path, memory_id) SELECT unnest($1::text[]), $2::bigint
                 ON CONFLICT DO NOTHING",
                &[&m.files, &id],
            )?;
        }
        tx.inserted.push(id);
    }
    Ok(id)
}

/// Insert a memory (SQLite's `insert_fields`): its id, or the id of the one already holding
/// its content (or its uid).
fn insert_memory(tx: &mut Tx<'_, '_>, m: &NewRow<'_>) -> Result<i64, Error> {
    let hash = content_hash(m.title, m.text);
    let uid = m
        .uid
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    let inserted = insert_row(
        tx,
        "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                               pinned, dismissed, created_at, content_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT DO NOTHING RETURNING id",
        m,
        &uid,
        &hash,
    )?;
    if let Some(id) = inserted {
        return Ok(id);
    }
    let twin = tx
        .query_opt(
            "SELECT id FROM memories WHERE project = $1 AND kind = $2 AND content_hash = $3",
            &[&m.project, &m.kind.as_str(), &hash],
        )?
        .map(|r| r.get(0));
    match twin {
        Some(id) => Ok(id),
        // The conflict was on the uid: a row that is already here under other text.
        None => Ok(tx
            .query_one("SELECT id FROM memories WHERE uid = $1", &[&uid])?
            .get(0)),
    }
}

/// Write a local item (already redacted, projects already the hub's) over what is here
/// (SQLite's `items::write`).
fn write(tx: &mut Tx<'_, '_>, item: &Item) -> Result<Written, Error> {
    match item {
        Item::Memory(m) => write_memory(tx, m),
        Item::Episode(e) => {
            let Some(id) = memory_id(tx, &e.memory_uid)? else {
                return Ok(Written::Orphan);
            };
            tx.execute(
                "INSERT INTO episodes (memory_id, title, text, replaced_at, dismissed) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (memory_id) DO UPDATE SET title = EXCLUDED.title, text = EXCLUDED.text,
                     replaced_at = EXCLUDED.replaced_at, dismissed = EXCLUDED.dismissed",
                &[&id, &e.title, &e.text, &e.replaced_at, &e.dismissed],
            )?;
            Ok(Written::Stored)
        }
        Item::Fact(f) => write_fact(tx, f),
        Item::Rule(r) => {
            tx.execute(
                "INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source, enabled, recheck,
                                    evidence, created_at, confirmed_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (id) DO UPDATE SET source = EXCLUDED.source, enabled = EXCLUDED.enabled,
                     recheck = EXCLUDED.recheck, evidence = EXCLUDED.evidence, confirmed_at = EXCLUDED.confirmed_at",
                &[
                    &key_of(item),
                    &r.when,
                    &r.then,
                    &r.scope_tier,
                    &r.scope_name,
                    &r.source,
                    &r.enabled,
                    &r.recheck,
                    &r.evidence.to_string(),
                    &r.created_at,
                    &r.confirmed_at,
                ],
            )?;
            Ok(Written::Stored)
        }
        Item::List(l) => write_list(tx, l),
    }
}

fn write_memory(tx: &mut Tx<'_, '_>, m: &MemoryItem) -> Result<Written, Error> {
    let hash = content_hash(&m.title, &m.text);
    let existing = match memory_id(tx, &m.uid)? {
        Some(id) => Some(id),
        // Two machines may have stored the same text under two uids: it is one memory, and
        // the other uid names it from now on, so a later edit under it changes this row.
        None => {
            let twin: Option<(i64, String)> = tx
                .query_opt(
                    "SELECT id, uid FROM memories WHERE project = $1 AND kind = $2 AND content_hash = $3",
                    &[&m.project, &m.kind, &hash],
                )?
                .map(|r| (r.get(0), r.get(1)));
            if let Some((_, target)) = &twin {
                tx.execute(
                    "INSERT INTO sync_aliases (uid, target) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    &[&m.uid, target],
                )?;
            }
            twin.map(|(id, _)| id)
        }
    };
    let Some(id) = existing else {
        insert_memory(tx, &NewRow::of(m))?;
        return Ok(Written::Stored);
    };
    let files = serde_json::to_string(&m.files).unwrap_or_else(|_| "[]".into());
    // SQLite's `UPDATE OR IGNORE`: text that another memory of the project already holds
    // keeps its own.
    tx.execute(
        "UPDATE memories SET title = $2, text = $3, content_hash = $4, files = $5
         WHERE id = $1 AND (title <> $2 OR text <> $3 OR files <> $5)
           AND NOT EXISTS (SELECT 1 FROM memories o WHERE o.project = memories.project
                             AND o.kind = memories.kind AND o.content_hash = $4 AND o.id <> $1)",
        &[&id, &m.title, &m.text, &hash, &files],
    )?;
    tx.execute(
        "UPDATE memories SET pinned = $2, dismissed = $3 WHERE id = $1 AND (pinned <> $2 OR dismissed <> $3)",
        &[&id, &m.pinned, &m.dismissed],
    )?;
    Ok(Written::Stored)
}

fn write_fact(tx: &mut Tx<'_, '_>, f: &FactItem) -> Result<Written, Error> {
    // A fact hangs only on a memory of its own project.
    let memory: Option<i64> = match &f.memory_uid {
        Some(uid) => tx
            .query_opt(
                "SELECT m.id FROM memories m WHERE m.project = $2 AND m.id =
                   coalesce((SELECT id FROM memories WHERE uid = $1),
                            (SELECT t.id FROM sync_aliases a JOIN memories t ON t.uid = a.target WHERE a.uid = $1))",
                &[uid, &f.project],
            )?
            .map(|r| r.get(0)),
        None => None,
    };
    let superseded_by = match &f.superseded_by {
        Some(uid) => fact_id(tx, uid)?,
        None => None,
    };
    // The columns both statements below set, as $1 to $12.
    let fields: [&(dyn ToSql + Sync); 12] = [
        &f.project,
        &f.subject,
        &f.predicate,
        &f.object,
        &f.confidence,
        &f.source,
        &memory,
        &f.valid_from,
        &f.valid_to,
        &superseded_by,
        &f.superseded_at,
        &f.dismissed,
    ];
    if let Some(id) = fact_id(tx, &f.uid)? {
        // A known fact keeps when it was first stored.
        tx.execute(
            "UPDATE facts SET project = $1, subject = $2, predicate = $3, object = $4, confidence = $5,
                 source = $6, memory_id = $7, valid_from = $8, valid_to = $9, superseded_by = $10,
                 superseded_at = $11, dismissed = $12
             WHERE id = $13",
            &[&fields[..], &[&id]].concat(),
        )?;
        return Ok(Written::Stored);
    }
    let id: i64 = tx
        .query_one(
            "INSERT INTO facts (project, subject, predicate, object, confidence, source, memory_id,
                                valid_from, valid_to, superseded_by, superseded_at, dismissed, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             RETURNING id",
            &[&fields[..], &[&f.created_at]].concat(),
        )?
        .get(0);
    // The trigger gave the new row a uid of its own: it is the one it travelled as.
    tx.execute(
        "WITH made AS (SELECT uid FROM sync_fact_uids WHERE fact_id = $1),
              unmarked AS (DELETE FROM sync_dirty WHERE kind = 'fact' AND key IN (SELECT uid FROM made))
         UPDATE sync_fact_uids SET uid = $2 WHERE fact_id = $1",
        &[&id, &f.uid],
    )?;
    Ok(Written::Stored)
}

fn write_list(tx: &mut Tx<'_, '_>, l: &ListItem) -> Result<Written, Error> {
    let text = l.items.to_string();
    let title = format!("Work state: {}", l.name);
    let hash = content_hash(&title, &text);
    let existing: Option<i64> = tx
        .query_opt(
            "SELECT memory_id FROM work_lists WHERE project = $1 AND name = $2",
            &[&l.project, &l.name],
        )?
        .map(|r| r.get(0));
    let updated = match existing {
        // SQLite's `UPDATE OR IGNORE`: a list whose text another memory holds gets a row of
        // its own below.
        Some(id) => {
            tx.execute(
                "UPDATE memories SET text = $2, content_hash = $3, created_at = $4 WHERE id = $1
                   AND NOT EXISTS (SELECT 1 FROM memories o WHERE o.project = memories.project
                                     AND o.kind = memories.kind AND o.content_hash = $3 AND o.id <> $1)",
                &[&id, &text, &hash, &l.updated_at],
            )? == 1
        }
        None => false,
    };
    let memory_id = match existing {
        Some(id) if updated => id,
        _ => insert_memory(
            tx,
            &NewRow {
                uid: None,
                project: &l.project,
                kind: Kind::Note,
                mtype: MemoryType::Note,
                title: &title,
                text: &text,
                tool: "sync",
                session_id: None,
                files: &[],
                pinned: false,
                dismissed: false,
                created_at: l.updated_at,
            },
        )?,
    };
    tx.execute(
        "INSERT INTO work_lists (project, name, memory_id, items, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (project, name) DO UPDATE SET memory_id = EXCLUDED.memory_id, items = EXCLUDED.items,
             updated_at = EXCLUDED.updated_at",
        &[&l.project, &l.name, &memory_id, &text, &l.updated_at],
    )?;
    Ok(Written::Stored)
}

/// Write `change` (its projects already the hub's) at its revision, with the next number of
/// the hub's sequence, and record the revision as held and clean.
pub(super) fn store_at(tx: &mut Tx<'_, '_>, change: &Change) -> Result<Written, Error> {
    let written = write(tx, &change.item)?;
    let kind = change.item.kind();
    let key = key_of(&change.item);
    // The write's own triggers marked it changed here; it is not.
    if written == Written::Orphan {
        tx.execute(
            "DELETE FROM sync_dirty WHERE kind = $1 AND key = $2",
            &[&kind, &key],
        )?;
        return Ok(written);
    }
    record(tx, kind, &key, change)?;
    Ok(written)
}

/// Store a memory [`unknown_memories`] found the hub has never heard of, as [`store_at`]
/// would, in the two statements its usual case needs rather than six: the insert itself
/// checks that no memory of the project holds its content (so a twin draws no id), and when
/// one does (or another connection's just did), the full path settles it.
pub(super) fn store_new_memory(
    tx: &mut Tx<'_, '_>,
    change: &Change,
    m: &MemoryItem,
) -> Result<Written, Error> {
    let hash = content_hash(&m.title, &m.text);
    let inserted = insert_row(
        tx,
        "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                               pinned, dismissed, created_at, content_hash)
         SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text,
                $9::text, $10::boolean, $11::boolean, $12::bigint, $13::text
         WHERE NOT EXISTS (SELECT 1 FROM memories
                           WHERE project = $2 AND kind = $3 AND content_hash = $13)
         ON CONFLICT DO NOTHING RETURNING id",
        &NewRow::of(m),
        &m.uid,
        &hash,
    )?;
    if inserted.is_none() {
        return store_at(tx, change);
    }
    record(tx, "memory", &m.uid, change)?;
    Ok(Written::Stored)
}

/// The memory uids among a push's items that the hub has no trace of: no row, no alias, no
/// revision. Under [`SYNC_LOCK`](super::SYNC_LOCK), after [`absorb`](super::absorb::absorb),
/// only this push can give one a trace, and only by writing that same uid; so until it does,
/// each needs none of the reads the full path makes to find out what the hub holds.
pub(super) fn unknown_memories<'i>(
    tx: &mut Tx<'_, '_>,
    items: impl Iterator<Item = &'i Item>,
) -> Result<HashSet<String>, Error> {
    let uids: Vec<&str> = items
        .filter_map(|i| match i {
            Item::Memory(m) => Some(m.uid.as_str()),
            _ => None,
        })
        .collect();
    if uids.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(tx
        .query(
            "SELECT u FROM unnest($1::text[]) AS t(u)
             WHERE NOT EXISTS (SELECT 1 FROM memories WHERE uid = u)
               AND NOT EXISTS (SELECT 1 FROM sync_aliases WHERE uid = u)
               AND NOT EXISTS (SELECT 1 FROM sync_revs WHERE kind = 'memory' AND key = u)",
            &[&uids],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// Record `change`'s revision as the one the hub holds `kind`/`key` at, clean, with the next
/// number of the hub's sequence.
fn record(tx: &mut Tx<'_, '_>, kind: &str, key: &str, change: &Change) -> Result<(), Error> {
    tx.execute(
        "WITH unmarked AS (DELETE FROM sync_dirty WHERE kind = $1 AND key = $2)
         INSERT INTO sync_revs (kind, key, rev, base, origin, pending, seq)
         VALUES ($1, $2, $3, NULL, $4, false, nextval('sync_seq'))
         ON CONFLICT (kind, key) DO UPDATE SET rev = EXCLUDED.rev, base = NULL,
             origin = EXCLUDED.origin, pending = false, seq = EXCLUDED.seq",
        &[&kind, &key, &change.rev, &change.origin],
    )?;
    Ok(())
}
