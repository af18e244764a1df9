//! A store's sync state: which items changed here since they last travelled, the revision
//! each item is at, the cursors of an interrupted sync, and how this store's project keys map
//! to identities across machines.
//!
//! The tables and triggers are made by [`Store::enable_sync`] (by `aletheia sync setup`, the
//! first sync, or a hub's open), never by a store that does not sync, so the hook, which
//! parses the whole schema on every run, pays for them only where they are used. Triggers on
//! the items that travel (memory edits, facts, rules, work lists, episodes) put each changed
//! item in `sync_dirty` with the time of the change, so no write path, today's or a later
//! one, can change an item without the next sync seeing it. New memories need no trigger:
//! they are pushed by local id from a cursor, which keeps the hook's insert as it was.
//!
//! A machine ([`machine`]) stamps dirty items with revisions and pushes them; a hub
//! ([`hub_side`]) takes pushes, settles concurrent versions, and serves what it gained by its
//! own sequence number. Both write items through [`items`]. What a hub decides, apart from
//! how it stores it, is in [`hub_rules`], which the PostgreSQL hub decides by too.

pub(in crate::store) mod hub_rules;
mod hub_side;
mod items;
mod machine;

pub(in crate::store) use hub_side::another_tokens;
pub use hub_side::{Conflict, Pusher, Received};
// For the PostgreSQL hub, which writes items by the same keys and order.
#[cfg(feature = "server")]
pub(in crate::store) use items::{Written, key_of, try_map_projects};
#[cfg(feature = "server")]
pub(in crate::store) use machine::rank;
pub use machine::{Applied, Outgoing};

use super::{Store, StoreError};
use crate::sync::hlc::Clock;
use rusqlite::{OptionalExtension, Transaction, params};

/// The sync tables and triggers. `IF NOT EXISTS` throughout: run at each enabling.
///
/// Memories have no `AUTOINCREMENT`: when a scrub's merge deletes the newest one, the next
/// insert takes its id again, below the push cursor, so the cursor steps back with it.
///
/// A trigger's `INSERT OR REPLACE` takes the conflict policy of the statement that fired it
/// (an upsert's is ABORT), so each trigger deletes the item's dirty row before inserting it
/// rather than leaning on a conflict clause.
const SYNC_SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS sync_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_dirty (
    kind TEXT    NOT NULL,
    key  TEXT    NOT NULL,
    at   INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_revs (
    kind    TEXT    NOT NULL,
    key     TEXT    NOT NULL,
    rev     TEXT    NOT NULL,
    base    TEXT,
    origin  TEXT    NOT NULL,
    pending INTEGER NOT NULL DEFAULT 0,
    seq     INTEGER,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sync_revs_pending ON sync_revs (kind, key) WHERE pending = 1;
CREATE INDEX IF NOT EXISTS sync_revs_by_seq ON sync_revs (seq) WHERE seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS sync_fact_uids (
    fact_id INTEGER PRIMARY KEY REFERENCES facts (id) ON DELETE CASCADE,
    uid     TEXT    NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS sync_projects (
    project  TEXT PRIMARY KEY,
    identity TEXT NOT NULL UNIQUE
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_aliases (
    uid    TEXT PRIMARY KEY,
    target TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_machines (
    machine TEXT    PRIMARY KEY,
    token   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sync_conflicts (
    id            INTEGER PRIMARY KEY,
    at            INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    key           TEXT    NOT NULL,
    winner_rev    TEXT    NOT NULL,
    winner_origin TEXT    NOT NULL,
    loser_rev     TEXT    NOT NULL,
    loser_origin  TEXT    NOT NULL,
    loser         TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS sync_memory_edited AFTER UPDATE OF title, text, files, pinned, dismissed ON memories
WHEN new.id NOT IN (SELECT memory_id FROM work_lists) BEGIN
    DELETE FROM sync_dirty WHERE kind = 'memory' AND key = new.uid;
    INSERT INTO sync_dirty VALUES ('memory', new.uid, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER IF NOT EXISTS sync_memory_deleted AFTER DELETE ON memories BEGIN
    UPDATE sync_meta SET value = (SELECT coalesce(max(id), 0) FROM memories)
        WHERE key = 'pushed_memory' AND CAST(value AS INTEGER) > (SELECT coalesce(max(id), 0) FROM memories);
END;
CREATE TRIGGER IF NOT EXISTS sync_fact_added AFTER INSERT ON facts BEGIN
    INSERT INTO sync_fact_uids VALUES (new.id, lower(hex(randomblob(16))));
    DELETE FROM sync_dirty WHERE kind = 'fact' AND key IN (SELECT uid FROM sync_fact_uids WHERE fact_id = new.id);
    INSERT INTO sync_dirty SELECT 'fact', uid, CAST(unixepoch('subsec') * 1000 AS INTEGER)
        FROM sync_fact_uids WHERE fact_id = new.id;
END;
CREATE TRIGGER IF NOT EXISTS sync_fact_edited AFTER UPDATE ON facts BEGIN
    DELETE FROM sync_dirty WHERE kind = 'fact' AND key IN (SELECT uid FROM sync_fact_uids WHERE fact_id = new.id);
    INSERT INTO sync_dirty SELECT 'fact', uid, CAST(unixepoch('subsec') * 1000 AS INTEGER)
        FROM sync_fact_uids WHERE fact_id = new.id;
END;
CREATE TRIGGER IF NOT EXISTS sync_rule_added AFTER INSERT ON rules BEGIN
    DELETE FROM sync_dirty WHERE kind = 'rule' AND key = new.id;
    INSERT INTO sync_dirty VALUES ('rule', new.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER IF NOT EXISTS sync_rule_edited AFTER UPDATE ON rules BEGIN
    DELETE FROM sync_dirty WHERE kind = 'rule' AND key = new.id;
    INSERT INTO sync_dirty VALUES ('rule', new.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER IF NOT EXISTS sync_list_added AFTER INSERT ON work_lists BEGIN
    DELETE FROM sync_dirty WHERE kind = 'list' AND key = new.project || char(31) || new.name;
    INSERT INTO sync_dirty VALUES ('list', new.project || char(31) || new.name, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER IF NOT EXISTS sync_list_edited AFTER UPDATE ON work_lists BEGIN
    DELETE FROM sync_dirty WHERE kind = 'list' AND key = new.project || char(31) || new.name;
    INSERT INTO sync_dirty VALUES ('list', new.project || char(31) || new.name, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
CREATE TRIGGER IF NOT EXISTS sync_episode_added AFTER INSERT ON episodes BEGIN
    DELETE FROM sync_dirty WHERE kind = 'episode' AND key IN (SELECT uid FROM memories WHERE id = new.memory_id);
    INSERT INTO sync_dirty SELECT 'episode', uid, CAST(unixepoch('subsec') * 1000 AS INTEGER)
        FROM memories WHERE id = new.memory_id;
END;
CREATE TRIGGER IF NOT EXISTS sync_episode_edited AFTER UPDATE ON episodes BEGIN
    DELETE FROM sync_dirty WHERE kind = 'episode' AND key IN (SELECT uid FROM memories WHERE id = new.memory_id);
    INSERT INTO sync_dirty SELECT 'episode', uid, CAST(unixepoch('subsec') * 1000 AS INTEGER)
        FROM memories WHERE id = new.memory_id;
END;
"#;

/// Everything already stored when sync is first enabled, made dirty so the first sync sends it
/// (memories go by their id cursor instead, from the first).
const SEED_DIRTY: &str = r#"
INSERT OR IGNORE INTO sync_fact_uids SELECT id, lower(hex(randomblob(16))) FROM facts;
INSERT OR IGNORE INTO sync_dirty SELECT 'fact', uid, 0 FROM sync_fact_uids;
INSERT OR IGNORE INTO sync_dirty SELECT 'rule', id, 0 FROM rules;
INSERT OR IGNORE INTO sync_dirty SELECT 'list', project || char(31) || name, 0 FROM work_lists;
INSERT OR IGNORE INTO sync_dirty SELECT 'episode', m.uid, 0 FROM episodes e JOIN memories m ON m.id = e.memory_id;
"#;

/// The separator of a work list's key, between its project and its name.
pub(crate) const LIST_KEY_SEP: char = '\u{1f}';

/// Keys of [`SYNC_SCHEMA`]'s `sync_meta`.
mod meta {
    /// This store's id among the machines of a hub.
    pub const MACHINE: &str = "machine";
    /// The hybrid logical clock ([`crate::sync::hlc::Clock`]).
    pub const CLOCK: &str = "clock";
    /// The last local memory id a hub acknowledged.
    pub const PUSHED_MEMORY: &str = "pushed_memory";
    /// The hub's sequence number this store has pulled up to.
    pub const PULLED: &str = "pulled";
    /// On a hub: the last memory id given a sequence number.
    pub const ABSORBED_MEMORY: &str = "absorbed_memory";
    /// The hub this store syncs with (`aletheia sync setup`).
    pub const HUB_URL: &str = "hub_url";
    /// When the last sync ended, and how.
    pub const LAST_SYNC: &str = "last_sync";
}

pub(crate) fn get_meta(tx: &rusqlite::Connection, key: &str) -> rusqlite::Result<Option<String>> {
    tx.prepare_cached("SELECT value FROM sync_meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()
}

pub(crate) fn set_meta(tx: &Transaction<'_>, key: &str, value: &str) -> rusqlite::Result<()> {
    tx.prepare_cached("INSERT OR REPLACE INTO sync_meta (key, value) VALUES (?1, ?2)")?
        .execute(params![key, value])?;
    Ok(())
}

/// Move a cursor forward to `n`, never back: two syncs of one store at once (the server's
/// and one typed) each record how far they got, and the further stands.
pub(crate) fn advance_meta(tx: &Transaction<'_>, key: &str, n: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO sync_meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value
         WHERE CAST(excluded.value AS INTEGER) > CAST(value AS INTEGER)",
    )?
    .execute(params![key, n.to_string()])?;
    Ok(())
}

fn meta_int(tx: &rusqlite::Connection, key: &str) -> rusqlite::Result<i64> {
    Ok(get_meta(tx, key)?.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// The clock, read for a run of stamps and written back with [`save_clock`].
fn clock(tx: &Transaction<'_>) -> rusqlite::Result<Clock> {
    Ok(Clock::parse(
        &get_meta(tx, meta::CLOCK)?.unwrap_or_default(),
    ))
}

fn save_clock(tx: &Transaction<'_>, c: Clock) -> rusqlite::Result<()> {
    set_meta(tx, meta::CLOCK, &c.stored())
}

/// This store's machine id.
fn machine_id(tx: &rusqlite::Connection) -> rusqlite::Result<String> {
    Ok(get_meta(tx, meta::MACHINE)?.unwrap_or_default())
}

/// Where a sync stands, for `aletheia sync status`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Status {
    pub machine: String,
    pub hub: Option<String>,
    /// Memories stored here that no hub has acknowledged yet.
    pub memories_to_push: i64,
    /// Other changed items not yet pushed.
    pub changes_to_push: i64,
    /// The hub's sequence number pulled up to.
    pub pulled_up_to: i64,
    /// The last sync's end, as `aletheia sync` recorded it.
    pub last_sync: Option<String>,
    /// Local projects with the identity they travel under.
    pub projects: Vec<(String, String)>,
}

impl Store {
    /// Make the sync tables and triggers if they are not there, mark everything already
    /// stored to travel on the first sync, and give this store a machine id. Returns it.
    pub fn enable_sync(&mut self) -> Result<String, StoreError> {
        let exists = self.sync_enabled()?;
        self.write(|tx| {
            if !exists {
                tx.execute_batch(SYNC_SCHEMA)?;
                tx.execute_batch(SEED_DIRTY)?;
            }
            let id = machine_id(tx)?;
            if !id.is_empty() {
                return Ok(id);
            }
            let id = uuid::Uuid::now_v7().simple().to_string();
            set_meta(tx, meta::MACHINE, &id)?;
            Ok(id)
        })
    }

    /// Whether this store has been set up to sync.
    pub fn sync_enabled(&self) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sync_meta'",
                [],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(|e| self.err(e))
    }

    /// Record the hub to sync with (the token is kept outside the store).
    pub fn set_sync_hub(&mut self, url: &str) -> Result<(), StoreError> {
        self.write(|tx| set_meta(tx, meta::HUB_URL, url))
    }

    /// Record how the last sync ended.
    pub fn set_last_sync(&mut self, line: &str) -> Result<(), StoreError> {
        self.write(|tx| set_meta(tx, meta::LAST_SYNC, line))
    }

    /// Tie a local project to its identity across machines, unless it already travels under
    /// one; true when this recorded it. A project's first push ties it for good, so a
    /// remote learned later does not split it in two on the hub.
    pub fn note_project_identity(
        &mut self,
        project: &str,
        identity: &str,
    ) -> Result<bool, StoreError> {
        if !self.sync_enabled()? {
            return Ok(false);
        }
        let tied = self
            .conn
            .prepare_cached("SELECT 1 FROM sync_projects WHERE project = ?1")
            .and_then(|mut s| s.exists([project]))
            .map_err(|e| self.err(e))?;
        if tied {
            return Ok(false);
        }
        self.write(|tx| {
            Ok(tx.execute(
                "INSERT OR IGNORE INTO sync_projects (project, identity) VALUES (?1, ?2)",
                params![project, identity],
            )? == 1)
        })
    }

    /// Where sync stands on this store.
    pub fn sync_status(&self) -> Result<Status, StoreError> {
        let c = &self.conn;
        let run = || -> rusqlite::Result<Status> {
            let pushed = meta_int(c, meta::PUSHED_MEMORY)?;
            let me = machine_id(c)?;
            let memories_to_push = c.query_row(
                "SELECT count(*) FROM memories m WHERE m.id > ?1
                   AND m.id NOT IN (SELECT memory_id FROM work_lists)
                   AND NOT EXISTS (SELECT 1 FROM sync_revs r WHERE r.kind = 'memory' AND r.key = m.uid)",
                [pushed],
                |r| r.get(0),
            )?;
            let changes_to_push = c.query_row(
                "SELECT (SELECT count(*) FROM sync_dirty) + (SELECT count(*) FROM sync_revs WHERE pending = 1
                   AND NOT EXISTS (SELECT 1 FROM sync_dirty d WHERE d.kind = sync_revs.kind AND d.key = sync_revs.key))",
                [],
                |r| r.get(0),
            )?;
            let projects = c
                .prepare("SELECT project, identity FROM sync_projects ORDER BY project")?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok(Status {
                machine: me,
                hub: get_meta(c, meta::HUB_URL)?,
                memories_to_push,
                changes_to_push,
                pulled_up_to: meta_int(c, meta::PULLED)?,
                last_sync: get_meta(c, meta::LAST_SYNC)?,
                projects,
            })
        };
        run().map_err(|e| self.err(e))
    }

    /// Projects with memories here that have no identity on record yet: they travel under
    /// their folder-name key unless one is noted first.
    pub fn projects_without_identity(&self) -> Result<Vec<String>, StoreError> {
        let run = || -> rusqlite::Result<Vec<String>> {
            self.conn
                .prepare(
                    "SELECT DISTINCT project FROM memories
                     WHERE project NOT IN (SELECT project FROM sync_projects) ORDER BY project",
                )?
                .query_map([], |r| r.get(0))?
                .collect()
        };
        run().map_err(|e| self.err(e))
    }
}

/// The identity a local project travels under; with `pin`, one with none yet is tied now.
fn identity_of(tx: &Transaction<'_>, project: &str, pin: bool) -> rusqlite::Result<String> {
    let found: Option<String> = tx
        .prepare_cached("SELECT identity FROM sync_projects WHERE project = ?1")?
        .query_row([project], |r| r.get(0))
        .optional()?;
    if let Some(identity) = found {
        return Ok(identity);
    }
    if !pin {
        return Ok(project.to_owned());
    }
    // A key with no remote on record is its own identity; one already taken as another
    // project's identity (a folder named like a remote) gets a suffix so it stays apart.
    let mut identity = project.to_owned();
    let mut n = 1;
    while tx
        .prepare_cached("SELECT 1 FROM sync_projects WHERE identity = ?1")?
        .exists([&identity])?
    {
        n += 1;
        identity = format!("{project}~{n}");
    }
    tx.prepare_cached("INSERT INTO sync_projects (project, identity) VALUES (?1, ?2)")?
        .execute(params![project, identity])?;
    Ok(identity)
}

/// The local project for an identity from elsewhere, named `name` there, tying them now if
/// this store has not seen the identity. The same name here is the same project when it
/// travels under that identity or, with no identity of its own yet, when the identity is that
/// very folder name; otherwise the project is kept apart under its identity.
fn project_for(
    tx: &Transaction<'_>,
    identity: &str,
    name: &str,
    tie: bool,
) -> rusqlite::Result<String> {
    let found: Option<String> = tx
        .prepare_cached("SELECT project FROM sync_projects WHERE identity = ?1")?
        .query_row([identity], |r| r.get(0))
        .optional()?;
    if let Some(project) = found {
        return Ok(project);
    }
    if !tie {
        return Ok(if name.is_empty() { identity } else { name }.to_owned());
    }
    let taken = |p: &str| -> rusqlite::Result<bool> {
        Ok(tx
            .prepare_cached("SELECT 1 FROM sync_projects WHERE project = ?1")?
            .exists([p])?
            || (p != identity
                && tx
                    .prepare_cached("SELECT 1 FROM memories WHERE project = ?1 LIMIT 1")?
                    .exists([p])?))
    };
    let mut project = if name.is_empty() { identity } else { name }.to_owned();
    if taken(&project)? {
        project = identity.to_owned();
        let mut n = 1;
        while taken(&project)? {
            n += 1;
            project = format!("{identity}~{n}");
        }
    }
    tx.prepare_cached("INSERT OR REPLACE INTO sync_projects (project, identity) VALUES (?1, ?2)")?
        .execute(params![project, identity])?;
    Ok(project)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::{Redacted, Redactor};
    use crate::store::OpenOptions;

    fn open(dir: &std::path::Path, name: &str) -> Store {
        Store::open_path(&dir.join(name), OpenOptions::INTERACTIVE).unwrap()
    }

    /// What `aletheia sync` does, without the HTTP in between.
    fn sync(m: &mut Store, hub: &mut Store) {
        let r = &Redactor::builtin();
        let all = |_: &str| true;
        let pusher = Pusher {
            token: 1,
            allowed: &all,
            may_tie: true,
            now: crate::time::now_ms(),
        };
        let me = m.enable_sync().unwrap();
        m.sync_stamp().unwrap();
        loop {
            let out = m.sync_memories_out(1000, usize::MAX).unwrap();
            if out.batch.changes.is_empty() {
                break;
            }
            let got = hub
                .sync_receive(&Redacted::new(out.batch.clone(), r), &pusher)
                .unwrap();
            m.sync_pushed(&out, &Redacted::new(got.current, r)).unwrap();
        }
        let mut after = None;
        loop {
            let out = m
                .sync_changes_out(after.as_ref(), 1000, usize::MAX)
                .unwrap();
            let Some(last) = out.last_key.clone() else {
                break;
            };
            after = Some(last);
            let got = hub
                .sync_receive(&Redacted::new(out.batch.clone(), r), &pusher)
                .unwrap();
            m.sync_pushed(&out, &Redacted::new(got.current, r)).unwrap();
        }
        loop {
            let cursor = m.sync_pulled_up_to().unwrap();
            let (batch, next, left) = hub.sync_changes_since(cursor, 1000, &me, &all).unwrap();
            m.sync_pulled(&Redacted::new(batch, r), next).unwrap();
            if left == 0 {
                break;
            }
        }
    }

    fn rule() -> crate::store::rules::NewRule {
        crate::store::rules::NewRule {
            when: "always".into(),
            then: "run the linter before pushing".into(),
            scope_tier: "everywhere".into(),
            scope_name: String::new(),
            source: "cli".into(),
            evidence: serde_json::json!({}),
        }
    }

    fn facts(s: &Store) -> Vec<(String, String, Option<i64>, bool)> {
        s.conn
            .prepare(
                "SELECT subject, object, valid_to, dismissed FROM facts ORDER BY subject, object",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn an_item_changed_again_before_a_sync_is_one_change_and_no_write_fails() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = open(dir.path(), "a.db");
        a.enable_sync().unwrap();
        let r = &Redactor::builtin();
        let list = |items| {
            Redacted::new(
                crate::store::state::NewList {
                    project: "shop".into(),
                    name: "todo".into(),
                    items,
                },
                r,
            )
        };
        // Each statement below fires a trigger over a dirty row the one before left; an
        // upsert's conflict policy would turn a trigger's `OR REPLACE` into a failure.
        a.write_list(&list(serde_json::json!(["one"])), "cli", 1)
            .unwrap();
        a.write_list(&list(serde_json::json!(["two"])), "cli", 2)
            .unwrap();
        let (id, _) = a.add_rule(&Redacted::new(rule(), r), 1).unwrap();
        a.confirm_rule(&id, 2).unwrap();
        a.set_rule_enabled(&id, false).unwrap();
        a.conn
            .execute_batch(
                "INSERT INTO facts (project, subject, predicate, object, valid_from, created_at) VALUES ('shop', 'db', 'is', 'pg', 1, 1);
                 UPDATE facts SET confidence = 0.9; UPDATE facts SET dismissed = 1;",
            )
            .unwrap();
        assert_eq!(a.sync_stamp().unwrap(), 3, "the list, the rule, the fact");
        assert_eq!(a.sync_stamp().unwrap(), 0);
    }

    #[test]
    fn a_limited_pusher_reaches_nothing_outside_its_projects() {
        use crate::sync::item::{Batch, Change, Item};
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut hub) = (
            open(dir.path(), "a.db"),
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap(),
        );
        let r = &Redactor::builtin();
        a.conn
            .execute(
                "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                 VALUES ('u-pay', 'payroll', 'note', 'salaries', 'salaries are paid on the 25th', 'cli', 5, 'h')",
                [],
            )
            .unwrap();
        sync(&mut a, &mut hub);
        // A token limited to scratch: it reuses payroll's uid, and names payroll's repository.
        let scratch = |p: &str| p == "scratch";
        let limited = Pusher {
            token: 9,
            allowed: &scratch,
            may_tie: false,
            now: crate::time::now_ms(),
        };
        let now = crate::time::now_ms();
        let mut stolen = {
            let tx = a.conn.transaction().unwrap();
            items::read_local(&tx, "memory", "u-pay").unwrap().unwrap()
        };
        if let Item::Memory(m) = &mut stolen {
            m.project = "scratch".into();
            m.text = "overwritten".into();
            m.dismissed = true;
        }
        let batch = Batch {
            machine: "evil".into(),
            projects: [("github.com/acme/payroll".to_owned(), "scratch".to_owned())].into(),
            changes: vec![Change {
                rev: crate::sync::hlc::rev(now, 0, "evil"),
                base: None,
                origin: "evil".into(),
                item: stolen,
            }],
        };
        let got = hub
            .sync_receive(&Redacted::new(batch, r), &limited)
            .unwrap();
        assert_eq!((got.refused, got.accepted), (1, 0));
        assert!(
            got.current.changes.is_empty(),
            "nothing of payroll's comes back"
        );
        let (text, dismissed): (String, bool) = hub
            .conn
            .query_row(
                "SELECT text, dismissed FROM memories WHERE uid = 'u-pay'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            (text.as_str(), dismissed),
            ("salaries are paid on the 25th", false)
        );
        let tied: i64 = hub
            .conn
            .query_row(
                "SELECT count(*) FROM sync_projects WHERE identity = 'github.com/acme/payroll'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tied, 0, "a limited token ties no repository");
        // A revision from the far future is refused whole.
        let mut future = Batch {
            machine: "evil".into(),
            ..Batch::default()
        };
        future.changes.push(Change {
            rev: crate::sync::hlc::rev(now + 86_400_000, 0, "evil"),
            base: None,
            origin: "evil".into(),
            item: Item::List(crate::sync::item::ListItem {
                project: "scratch".into(),
                name: "todo".into(),
                items: serde_json::json!([]),
                updated_at: now,
            }),
        });
        let got = hub
            .sync_receive(&Redacted::new(future, r), &limited)
            .unwrap();
        assert!(got.rejected.unwrap().contains("ahead of the hub's clock"));
    }

    #[test]
    fn a_memory_that_takes_a_deleted_ones_id_is_still_pushed() {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut hub) = (
            open(dir.path(), "a.db"),
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap(),
        );
        let add = |s: &Store, uid: &str| {
            s.conn
                .execute(
                    "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                     VALUES (?1, 'shop', 'note', ?1, ?1, 'cli', 5, ?1)",
                    [uid],
                )
                .unwrap();
        };
        add(&a, "first");
        add(&a, "second");
        sync(&mut a, &mut hub);
        // A scrub's merge deletes the newest; the next memory gets its id.
        a.conn
            .execute("DELETE FROM memories WHERE uid = 'second'", [])
            .unwrap();
        add(&a, "third");
        sync(&mut a, &mut hub);
        let on_hub: i64 = hub
            .conn
            .query_row(
                "SELECT count(*) FROM memories WHERE uid = 'third'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(on_hub, 1);
    }

    #[test]
    fn facts_episodes_and_rules_travel_and_a_disabled_rule_stays_disabled() {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut b) = (open(dir.path(), "a.db"), open(dir.path(), "b.db"));
        let mut hub =
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let r = &Redactor::builtin();
        // Made before sync was enabled: the first sync sends them all the same.
        let (id, _) = a.add_rule(&Redacted::new(rule(), r), 1_000).unwrap();
        a.conn
            .execute_batch(
                "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                     VALUES ('u-obs', 'shop', 'observation', 'ran tests', 'summary of the run', 'cli', 5, 'h1');
                 INSERT INTO episodes (memory_id, title, text, replaced_at) VALUES (last_insert_rowid(), 'ran tests', 'the whole long output', 6);
                 INSERT INTO facts (project, subject, predicate, object, valid_from, created_at) VALUES ('shop', 'db', 'is', 'postgres 15', 1, 1);
                 INSERT INTO facts (project, subject, predicate, object, valid_from, valid_to, created_at) VALUES ('shop', 'db', 'is', 'mysql', 0, 1, 1);",
            )
            .unwrap();
        sync(&mut a, &mut hub);
        sync(&mut b, &mut hub);
        assert_eq!(facts(&b), facts(&a));
        assert_eq!(facts(&b).len(), 2);
        let episode: String = b
            .conn
            .query_row("SELECT e.text FROM episodes e JOIN memories m ON m.id = e.memory_id WHERE m.uid = 'u-obs'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(episode, "the whole long output");
        assert_eq!(b.all_rules(None).unwrap().len(), 1);

        // A disables the rule; B, not knowing, confirms it later. The rule stays disabled.
        a.set_rule_enabled(&id, false).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(3));
        b.confirm_rule(&id, 9_000).unwrap();
        sync(&mut a, &mut hub);
        sync(&mut b, &mut hub);
        sync(&mut a, &mut hub);
        for s in [&a, &b] {
            let rules = s.all_rules(None).unwrap();
            assert_eq!((rules.len(), rules[0].1), (1, false), "disabled on both");
            assert_eq!(
                rules[0].0.confirmed_at, 9_000,
                "the later edit kept otherwise"
            );
        }
        assert_eq!(hub.sync_conflicts(10).unwrap().len(), 1);
        // A fact dismissed on B reaches A; nothing is left to push on either side.
        b.conn
            .execute("UPDATE facts SET dismissed = 1 WHERE object = 'mysql'", [])
            .unwrap();
        sync(&mut b, &mut hub);
        sync(&mut a, &mut hub);
        assert_eq!(facts(&a), facts(&b));
        assert!(facts(&a).iter().any(|f| f.1 == "mysql" && f.3));
        for s in [&a, &b] {
            let st = s.sync_status().unwrap();
            assert_eq!((st.memories_to_push, st.changes_to_push), (0, 0));
        }
    }
}
