//! The hub's side of sync on PostgreSQL: take a machine's push, settle versions that did not
//! see each other, and serve what the hub gained after a machine's cursor, by the hub's own
//! sequence. What is taken, refused, settled and served is the SQLite hub's
//! (`store::sync::hub_side`, item by item as `store::sync::items` writes them); what differs is
//! how it holds up when several hub processes share the database.
//!
//! # The sequence is handed out in commit order
//!
//! A puller asks for everything after the sequence number it has read up to. Were two pushes
//! to number their rows at once, the one holding the smaller numbers could commit second, and a
//! puller that read in between would have moved its cursor past rows it never saw. So every
//! transaction that takes numbers from `sync_seq` (a push, and the hub stamping its own edits)
//! first takes one advisory lock, [`SYNC_LOCK`], and holds it to its commit: the numbers of one
//! transaction all come after those of every transaction that committed before it, and a
//! reader's snapshot always holds a prefix of the sequence. Pulls read without the lock, in
//! one repeatable-read snapshot, so they wait for no push.
//!
//! # The hub's own edits
//!
//! The schema's triggers mark an edit made on the hub (an MCP client pinning, saving a list) in
//! `sync_dirty`, and a memory stored on the hub in `sync_new_memories`; [`absorb`] gives them a
//! revision and a number. A push locks the rows of the items it names before it absorbs, so an
//! edit made through another connection is either absorbed first (and settled against the
//! push as a concurrent version, as on SQLite) or waits until the push has committed (and is
//! then an edit on top of it): it is never overwritten unseen.

use super::PgStore;
use super::rows::{MEMORY_COLUMNS, memory};
use crate::model::{Kind, MemoryType};
use crate::redact::Redacted;
use crate::store::StoreError;
use crate::store::contract::SyncHub;
use crate::store::memories::content_hash;
use crate::store::sync::{Conflict, LIST_KEY_SEP, Pusher, Received};
use crate::sync::hlc::{self, Clock};
use crate::sync::item::{
    Batch, Change, EpisodeItem, FactItem, Item, ListItem, MemoryItem, RuleItem,
};
use postgres::types::ToSql;
use postgres::{Error, IsolationLevel, Row, Statement, Transaction};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The advisory lock every taker of sync sequence numbers holds to its commit (any fixed
/// number no other single-key lock uses).
const SYNC_LOCK: i64 = 0x616c_6574_6873_796e;

/// The most item text one pull answers with (the client reads up to 64 MiB), as on SQLite.
const MAX_PULL_BYTES: usize = 8 * 1024 * 1024;

/// The most an item may weigh on the wire, as on SQLite.
const MAX_ITEM_BYTES: usize = 1024 * 1024;

/// The losing versions kept per item, as on SQLite.
const CONFLICTS_KEPT: i64 = 10;

/// How many sequence rows a pull reads items for at once: one query per kind each time, and
/// little read past the 8 MiB cap.
const PULL_CHUNK: usize = 256;

/// The keys of `sync_meta` a hub uses.
const MACHINE: &str = "machine";
const CLOCK: &str = "clock";

type Params<'p> = [&'p (dyn ToSql + Sync)];

/// One transaction on the hub's sync state, with the statements it has prepared (a push runs
/// the same few for every item) and the project names it has looked up.
struct Tx<'a, 't> {
    tx: &'a mut Transaction<'t>,
    prepared: HashMap<String, Statement>,
    /// Local project -> the identity it travels under.
    identities: HashMap<String, String>,
    /// (identity, sender's name) -> the local project it was made.
    projects: HashMap<(String, String), String>,
    /// Memories this transaction stored from a push: they have their revision already.
    inserted: Vec<i64>,
}

impl<'a, 't> Tx<'a, 't> {
    fn new(tx: &'a mut Transaction<'t>) -> Tx<'a, 't> {
        Tx {
            tx,
            prepared: HashMap::new(),
            identities: HashMap::new(),
            projects: HashMap::new(),
            inserted: Vec::new(),
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.tx.prepare(sql)?;
        self.prepared.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    fn query(&mut self, sql: &str, params: &Params<'_>) -> Result<Vec<Row>, Error> {
        let s = self.statement(sql)?;
        self.tx.query(&s, params)
    }

    fn query_opt(&mut self, sql: &str, params: &Params<'_>) -> Result<Option<Row>, Error> {
        let s = self.statement(sql)?;
        self.tx.query_opt(&s, params)
    }

    fn query_one(&mut self, sql: &str, params: &Params<'_>) -> Result<Row, Error> {
        let s = self.statement(sql)?;
        self.tx.query_one(&s, params)
    }

    fn execute(&mut self, sql: &str, params: &Params<'_>) -> Result<u64, Error> {
        let s = self.statement(sql)?;
        self.tx.execute(&s, params)
    }
}

/// Take [`SYNC_LOCK`] until the transaction ends.
fn lock(tx: &mut Tx<'_, '_>) -> Result<(), Error> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SYNC_LOCK])?;
    Ok(())
}

fn get_meta(tx: &mut Tx<'_, '_>, key: &str) -> Result<Option<String>, Error> {
    Ok(tx
        .query_opt("SELECT value FROM sync_meta WHERE key = $1", &[&key])?
        .map(|r| r.get(0)))
}

fn set_meta(tx: &mut Tx<'_, '_>, key: &str, value: &str) -> Result<(), Error> {
    tx.execute(
        "INSERT INTO sync_meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&key, &value],
    )?;
    Ok(())
}

/// The hub's machine id, made on first use. Two processes making it at once both read the
/// one that was stored first.
fn machine_id(tx: &mut Tx<'_, '_>) -> Result<String, Error> {
    if let Some(id) = get_meta(tx, MACHINE)?.filter(|id| !id.is_empty()) {
        return Ok(id);
    }
    let id = uuid::Uuid::now_v7().simple().to_string();
    tx.execute(
        "INSERT INTO sync_meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE sync_meta.value = ''",
        &[&MACHINE, &id],
    )?;
    Ok(get_meta(tx, MACHINE)?.unwrap_or(id))
}

/// The clock, read for a run of revisions and written back with [`save_clock`] (both under
/// [`SYNC_LOCK`], so no two runs interleave).
fn clock(tx: &mut Tx<'_, '_>) -> Result<Clock, Error> {
    Ok(Clock::parse(&get_meta(tx, CLOCK)?.unwrap_or_default()))
}

fn save_clock(tx: &mut Tx<'_, '_>, c: Clock) -> Result<(), Error> {
    set_meta(tx, CLOCK, &c.stored())
}

/// `n` numbers of the hub's sequence, in order (under [`SYNC_LOCK`]).
fn next_seqs(tx: &mut Tx<'_, '_>, n: usize) -> Result<Vec<i64>, Error> {
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    let mut seqs: Vec<i64> = tx
        .query(
            "SELECT nextval('sync_seq') FROM generate_series(1, $1::bigint)",
            &[&n],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    seqs.sort_unstable();
    Ok(seqs)
}

/// The order kinds travel in, as SQLite's stamp orders them: what others hang on first.
fn rank(kind: &str) -> i64 {
    match kind {
        "memory" => 0,
        "episode" => 1,
        "fact" => 2,
        "rule" => 3,
        _ => 4,
    }
}

/// Give each item marked dirty a revision and a sequence number; how many. The marks are
/// taken with the same statement that deletes them, so an edit committed meanwhile through
/// another connection keeps its mark for the next call rather than losing it.
fn stamp(tx: &mut Tx<'_, '_>, c: &mut Clock, me: &str) -> Result<usize, Error> {
    let mut dirty: Vec<(String, String, i64)> = tx
        .query("DELETE FROM sync_dirty RETURNING kind, key, at", &[])?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    if dirty.is_empty() {
        return Ok(0);
    }
    dirty.sort_by(|a, b| (a.2, rank(&a.0), &a.1).cmp(&(b.2, rank(&b.0), &b.1)));
    let now = crate::time::now_ms();
    let seqs = next_seqs(tx, dirty.len())?;
    let (mut kinds, mut keys, mut revs) = (Vec::new(), Vec::new(), Vec::new());
    for (kind, key, at) in &dirty {
        // Seeded items carry no time of change: they are stamped now.
        revs.push(c.tick(if *at > 0 { *at } else { now }, me));
        kinds.push(kind.as_str());
        keys.push(key.as_str());
    }
    // A revision replaced here was the hub's own, never pending: it becomes the base.
    tx.execute(
        "INSERT INTO sync_revs (kind, key, rev, base, origin, pending, seq)
         SELECT k, y, r, NULL, $4::text, false, s FROM unnest($1::text[], $2::text[], $3::text[], $5::bigint[]) AS t(k, y, r, s)
         ON CONFLICT (kind, key) DO UPDATE SET rev = EXCLUDED.rev,
             base = CASE WHEN sync_revs.pending THEN sync_revs.base ELSE sync_revs.rev END,
             origin = EXCLUDED.origin, pending = false, seq = EXCLUDED.seq",
        &[&kinds, &keys, &revs, &me, &seqs],
    )?;
    Ok(dirty.len())
}

/// Give every memory stored on the hub itself (over MCP) since the last call a revision and a
/// sequence number, and stamp the hub's own edits, so machines pull them. Under [`SYNC_LOCK`].
///
/// SQLite finds the new memories by a cursor on their id; here a memory's id is taken when it
/// is inserted, not when it commits, so one stored by a transaction still open when a later id
/// was absorbed would fall behind the cursor for good. The schema's trigger lists each new
/// memory in `sync_new_memories` instead, and each is taken from there once committed.
fn absorb(tx: &mut Tx<'_, '_>, c: &mut Clock, me: &str) -> Result<(), Error> {
    let fresh: Vec<(String, i64)> = tx
        .query(
            "WITH fresh AS (DELETE FROM sync_new_memories RETURNING memory_id)
             SELECT m.uid, m.created_at FROM memories m JOIN fresh ON fresh.memory_id = m.id
             WHERE NOT EXISTS (SELECT 1 FROM work_lists w WHERE w.memory_id = m.id)
               AND NOT EXISTS (SELECT 1 FROM sync_revs r WHERE r.kind = 'memory' AND r.key = m.uid)
             ORDER BY m.id",
            &[],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    if !fresh.is_empty() {
        let seqs = next_seqs(tx, fresh.len())?;
        let uids: Vec<&str> = fresh.iter().map(|(uid, _)| uid.as_str()).collect();
        let revs: Vec<String> = fresh.iter().map(|(_, at)| hlc::first(*at, me)).collect();
        tx.execute(
            "INSERT INTO sync_revs (kind, key, rev, base, origin, pending, seq)
             SELECT 'memory', k, r, NULL, $3::text, false, s FROM unnest($1::text[], $2::text[], $4::bigint[]) AS t(k, r, s)",
            &[&uids, &revs, &me, &seqs],
        )?;
    }
    // After the new memories, so an episode or fact made with one is numbered after it.
    stamp(tx, c, me)?;
    Ok(())
}

/// The identity a local project travels under (a hub ties none of its own).
fn identity_of(tx: &mut Tx<'_, '_>, project: &str) -> Result<String, Error> {
    if let Some(identity) = tx.identities.get(project) {
        return Ok(identity.clone());
    }
    let identity = tx
        .query_opt(
            "SELECT identity FROM sync_projects WHERE project = $1",
            &[&project],
        )?
        .map_or_else(|| project.to_owned(), |r| r.get(0));
    tx.identities.insert(project.to_owned(), identity.clone());
    Ok(identity)
}

/// The local project for an identity from elsewhere, named `name` there, tying them now if
/// the hub has not seen the identity and `tie` allows it (SQLite's `project_for`).
fn project_for(
    tx: &mut Tx<'_, '_>,
    identity: &str,
    name: &str,
    tie: bool,
) -> Result<String, Error> {
    let cache_key = (identity.to_owned(), name.to_owned());
    if let Some(p) = tx.projects.get(&cache_key) {
        return Ok(p.clone());
    }
    let found: Option<String> = tx
        .query_opt(
            "SELECT project FROM sync_projects WHERE identity = $1",
            &[&identity],
        )?
        .map(|r| r.get(0));
    let project = match found {
        Some(project) => project,
        None if !tie => if name.is_empty() { identity } else { name }.to_owned(),
        None => {
            let mut project = if name.is_empty() { identity } else { name }.to_owned();
            if taken(tx, &project, identity)? {
                project = identity.to_owned();
                let mut n = 1;
                while taken(tx, &project, identity)? {
                    n += 1;
                    project = format!("{identity}~{n}");
                }
            }
            // Neither the project nor the identity is tied (both were just looked up, under
            // the lock): a plain insert is SQLite's `INSERT OR REPLACE`.
            tx.execute(
                "INSERT INTO sync_projects (project, identity) VALUES ($1, $2)",
                &[&project, &identity],
            )?;
            tx.identities.insert(project.clone(), identity.to_owned());
            project
        }
    };
    tx.projects.insert(cache_key, project.clone());
    Ok(project)
}

/// Whether `project` is another identity's already, or holds memories of a project that is
/// not `identity`'s.
fn taken(tx: &mut Tx<'_, '_>, project: &str, identity: &str) -> Result<bool, Error> {
    Ok(tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM sync_projects WHERE project = $1)
                 OR ($1 <> $2::text AND EXISTS (SELECT 1 FROM memories WHERE project = $1))",
            &[&project, &identity],
        )?
        .get(0))
}

/// An item from elsewhere with its identities made the hub's projects.
fn localise(
    tx: &mut Tx<'_, '_>,
    item: Item,
    names: &BTreeMap<String, String>,
    tie: bool,
) -> Result<Item, Error> {
    let mut failed = None;
    let item = item.map_projects(|identity| {
        let name = names.get(identity).map_or(identity, String::as_str);
        project_for(tx, identity, name, tie).unwrap_or_else(|e| {
            failed = Some(e);
            identity.to_owned()
        })
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(item),
    }
}

/// A local item as it travels: each project named by its identity, and `names` told the
/// hub's name for it.
fn named(
    tx: &mut Tx<'_, '_>,
    item: Item,
    names: &mut BTreeMap<String, String>,
) -> Result<Item, Error> {
    let mut failed = None;
    let item = item.map_projects(|project| match identity_of(tx, project) {
        Ok(identity) => {
            names.insert(identity.clone(), project.to_owned());
            identity
        }
        Err(e) => {
            failed = Some(e);
            project.to_owned()
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(item),
    }
}

/// The key the hub knows a local item by (SQLite's `items::key_of`).
fn key_of(item: &Item) -> String {
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

/// A list's key split into its project and name.
fn list_keys(keys: &[String]) -> (Vec<&str>, Vec<&str>) {
    keys.iter()
        .filter_map(|k| k.split_once(LIST_KEY_SEP))
        .unzip()
}

/// A local item, with (for an episode) its memory's project, which decides who may reach it.
type Found = (Item, Option<String>);

/// The items of `kind` among `keys` that the hub holds, naming its own projects, by key.
fn read_items(
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
fn read_local(tx: &mut Tx<'_, '_>, kind: &str, key: &str) -> Result<Option<Found>, Error> {
    Ok(read_items(tx, kind, &[key.to_owned()])?.remove(key))
}

/// Lock the rows of the items a push names, so that no other connection edits them until it
/// commits (see the module's comment). Items not stored yet have no row to lock.
fn lock_items<'i>(tx: &mut Tx<'_, '_>, items: impl Iterator<Item = &'i Item>) -> Result<(), Error> {
    let mut by_kind: BTreeMap<i64, (&'static str, Vec<String>)> = BTreeMap::new();
    for item in items {
        by_kind
            .entry(rank(item.kind()))
            .or_insert_with(|| (item.kind(), Vec::new()))
            .1
            .push(key_of(item));
    }
    for (kind, mut keys) in by_kind.into_values() {
        keys.sort_unstable();
        keys.dedup();
        match kind {
            "memory" => tx.execute(
                "SELECT 1 FROM memories WHERE uid = ANY($1) ORDER BY id FOR UPDATE",
                &[&keys],
            )?,
            "episode" => tx.execute(
                "SELECT 1 FROM episodes e JOIN memories m ON m.id = e.memory_id
                 WHERE m.uid = ANY($1) ORDER BY e.memory_id FOR UPDATE OF e",
                &[&keys],
            )?,
            "fact" => tx.execute(
                "SELECT 1 FROM facts f JOIN sync_fact_uids u ON u.fact_id = f.id
                 WHERE u.uid = ANY($1) ORDER BY f.id FOR UPDATE OF f",
                &[&keys],
            )?,
            "rule" => tx.execute(
                "SELECT 1 FROM rules WHERE id = ANY($1) ORDER BY id FOR UPDATE",
                &[&keys],
            )?,
            _ => {
                let (projects, names) = list_keys(&keys);
                tx.execute(
                    "SELECT 1 FROM work_lists w JOIN unnest($1::text[], $2::text[]) AS k(project, name)
                       ON w.project = k.project AND w.name = k.name
                     ORDER BY w.memory_id FOR UPDATE OF w",
                    &[&projects, &names],
                )?
            }
        };
    }
    Ok(())
}

/// The project of the memory an episode hangs on, which decides who may reach the episode.
fn episode_project(tx: &mut Tx<'_, '_>, item: &Item) -> Result<Option<String>, Error> {
    let Item::Episode(e) = item else {
        return Ok(None);
    };
    Ok(tx
        .query_opt(
            "SELECT project FROM memories WHERE uid = $1",
            &[&e.memory_uid],
        )?
        .map(|r| r.get(0)))
}

/// Whether every project `item` names (for an episode, its memory's `memory_project`) passes
/// `allowed`.
fn allowed_item(item: &Item, memory_project: Option<&str>, allowed: &dyn Fn(&str) -> bool) -> bool {
    match item {
        Item::Episode(_) => memory_project.is_some_and(allowed),
        // A rule for everywhere reaches every project.
        Item::Rule(r) if r.scope_tier != "project" => allowed("\u{0}every project"),
        _ => item.projects().iter().all(|p| allowed(p)),
    }
}

/// Whether `held` (what the hub has under an item's key) is the same item as `incoming` in
/// the same place (SQLite's `same_place`).
fn same_place(held: &Item, incoming: &Item) -> bool {
    match (held, incoming) {
        (Item::Memory(a), Item::Memory(b)) => a.project == b.project,
        (Item::Fact(a), Item::Fact(b)) => a.project == b.project,
        (Item::Rule(a), Item::Rule(b)) => {
            (&a.when, &a.then, &a.scope_tier, &a.scope_name)
                == (&b.when, &b.then, &b.scope_tier, &b.scope_name)
        }
        (Item::List(_), Item::List(_)) | (Item::Episode(_), Item::Episode(_)) => true,
        _ => false,
    }
}

/// The revision the hub holds `kind`/`key` at, and where it came from.
fn held(tx: &mut Tx<'_, '_>, kind: &str, key: &str) -> Result<Option<(String, String)>, Error> {
    Ok(tx
        .query_opt(
            "SELECT rev, origin FROM sync_revs WHERE kind = $1 AND key = $2",
            &[&kind, &key],
        )?
        .map(|r| (r.get(0), r.get(1))))
}

/// What writing an item came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    Stored,
    /// It hangs on a memory the hub does not hold: nothing written.
    Orphan,
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

/// Insert a memory (SQLite's `insert_fields`): its id, or the id of the one already holding
/// its content (or its uid).
fn insert_memory(tx: &mut Tx<'_, '_>, m: &NewRow<'_>) -> Result<i64, Error> {
    let hash = content_hash(m.title, m.text);
    let uid = m
        .uid
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    let files = serde_json::to_string(m.files).unwrap_or_else(|_| "[]".into());
    let id: Option<i64> = tx
        .query_opt(
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                                   pinned, dismissed, created_at, content_hash)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             ON CONFLICT DO NOTHING RETURNING id",
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
        insert_memory(
            tx,
            &NewRow {
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
            },
        )?;
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
    if let Some(id) = fact_id(tx, &f.uid)? {
        // A known fact keeps when it was first stored.
        tx.execute(
            "UPDATE facts SET project = $2, subject = $3, predicate = $4, object = $5, confidence = $6,
                 source = $7, memory_id = $8, valid_from = $9, valid_to = $10, superseded_by = $11,
                 superseded_at = $12, dismissed = $13
             WHERE id = $1",
            &[
                &id,
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
            ],
        )?;
        return Ok(Written::Stored);
    }
    let id: i64 = tx
        .query_one(
            "INSERT INTO facts (project, subject, predicate, object, confidence, source, memory_id,
                                valid_from, valid_to, superseded_by, superseded_at, dismissed, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             RETURNING id",
            &[
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
                &f.created_at,
            ],
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
fn store_at(tx: &mut Tx<'_, '_>, change: &Change) -> Result<Written, Error> {
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
fn store_new_memory(
    tx: &mut Tx<'_, '_>,
    change: &Change,
    m: &MemoryItem,
) -> Result<Written, Error> {
    let hash = content_hash(&m.title, &m.text);
    let kind = m.kind.parse().unwrap_or(Kind::Note);
    let mtype = m.mtype.parse().unwrap_or(MemoryType::Note);
    let files = serde_json::to_string(&m.files).unwrap_or_else(|_| "[]".into());
    let id: Option<i64> = tx
        .query_opt(
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, session_id, files,
                                   pinned, dismissed, created_at, content_hash)
             SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text,
                    $9::text, $10::boolean, $11::boolean, $12::bigint, $13::text
             WHERE NOT EXISTS (SELECT 1 FROM memories
                               WHERE project = $2 AND kind = $3 AND content_hash = $13)
             ON CONFLICT DO NOTHING RETURNING id",
            &[
                &m.uid,
                &m.project,
                &kind.as_str(),
                &mtype.as_str(),
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
    let Some(id) = id else {
        return store_at(tx, change);
    };
    if !m.files.is_empty() {
        tx.execute(
            "INSERT INTO memory_files (path, memory_id) SELECT unnest($1::text[]), $2::bigint
             ON CONFLICT DO NOTHING",
            &[&m.files, &id],
        )?;
    }
    tx.inserted.push(id);
    record(tx, "memory", &m.uid, change)?;
    Ok(Written::Stored)
}

/// The memory uids among a push's items that the hub has no trace of: no row, no alias, no
/// revision. Under [`SYNC_LOCK`], after [`absorb`], only this push can give one a trace, and
/// only by writing that same uid; so until it does, each needs none of the reads the full
/// path makes to find out what the hub holds.
fn unknown_memories<'i>(
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

/// Why a whole push is refused, before anything in it is written (SQLite's `refuse_push`).
fn refuse_push(
    tx: &mut Tx<'_, '_>,
    batch: &Batch,
    token: i64,
    now: i64,
) -> Result<Option<String>, Error> {
    let machine = batch.machine.as_str();
    if !hlc::is_machine_id(machine) {
        return Ok(Some(
            "a push must name its machine (1 to 64 lowercase letters and digits)".to_owned(),
        ));
    }
    let bound: Option<i64> = tx
        .query_opt(
            "SELECT token FROM sync_machines WHERE machine = $1",
            &[&machine],
        )?
        .map(|r| r.get(0));
    match bound {
        Some(t) if t != token => {
            return Ok(Some(format!(
                "machine {machine} syncs with another token: use that one, or give this store a new machine id"
            )));
        }
        Some(_) => {}
        None => {
            tx.execute(
                "INSERT INTO sync_machines (machine, token) VALUES ($1, $2)",
                &[&machine, &token],
            )?;
        }
    }
    for change in &batch.changes {
        if change.origin != machine {
            return Ok(Some(
                "every change in a push must be the pushing machine's own".to_owned(),
            ));
        }
        if let Err(why) = hlc::check(&change.rev, machine, now) {
            return Ok(Some(why));
        }
        if change.base.as_deref().is_some_and(|b| !hlc::well_formed(b)) {
            return Ok(Some("a change's base is not a revision".to_owned()));
        }
    }
    Ok(None)
}

/// Keep a losing version, unless it is kept already, and only the newest few per item.
fn keep_conflict(
    tx: &mut Tx<'_, '_>,
    kind: &str,
    key: &str,
    winner: &Change,
    loser: &Change,
    now: i64,
) -> Result<bool, Error> {
    let loser_json = serde_json::to_string(&loser.item).unwrap_or_default();
    let kept = tx.execute(
        "INSERT INTO sync_conflicts (at, kind, key, winner_rev, winner_origin, loser_rev, loser_origin, loser)
         SELECT $1::bigint, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text
         WHERE NOT EXISTS (SELECT 1 FROM sync_conflicts WHERE kind = $2 AND key = $3 AND loser_rev = $6)",
        &[
            &now,
            &kind,
            &key,
            &winner.rev,
            &winner.origin,
            &loser.rev,
            &loser.origin,
            &loser_json,
        ],
    )?;
    if kept == 0 {
        return Ok(false);
    }
    tx.execute(
        "DELETE FROM sync_conflicts WHERE kind = $1 AND key = $2 AND id NOT IN
           (SELECT id FROM sync_conflicts WHERE kind = $1 AND key = $2 ORDER BY id DESC LIMIT $3)",
        &[&kind, &key, &CONFLICTS_KEPT],
    )?;
    Ok(true)
}

/// Take `batch` for `pusher`, holding [`SYNC_LOCK`] to the commit.
fn receive(tx: &mut Tx<'_, '_>, batch: &Batch, pusher: &Pusher<'_>) -> Result<Received, Error> {
    lock(tx)?;
    let me = machine_id(tx)?;
    let mut c = clock(tx)?;
    let mut out = Received::default();
    if let Some(why) = refuse_push(tx, batch, pusher.token, pusher.now)? {
        // SQLite absorbs before it refuses; so does this, so a refused push leaves the same.
        absorb(tx, &mut c, &me)?;
        save_clock(tx, c)?;
        out.rejected = Some(why);
        return Ok(out);
    }
    // Each change's item with the hub's projects, or `None` when it is too big to take.
    let mut local = Vec::with_capacity(batch.changes.len());
    for change in &batch.changes {
        local.push(
            if serde_json::to_string(&change.item).map_or(usize::MAX, |s| s.len()) > MAX_ITEM_BYTES
            {
                None
            } else {
                Some(localise(
                    tx,
                    change.item.clone(),
                    &batch.projects,
                    pusher.may_tie,
                )?)
            },
        );
    }
    // The hub's own edits first, so a push that races one is settled against it; and the
    // items' rows locked before them, so an edit committed through another connection before
    // the lock is absorbed now, and one after it waits for this commit.
    lock_items(tx, local.iter().flatten())?;
    absorb(tx, &mut c, &me)?;
    let mut unknown = unknown_memories(tx, local.iter().flatten())?;
    let allowed = pusher.allowed;
    for (change, item) in batch.changes.iter().zip(local) {
        let Some(item) = item else {
            out.refused += 1;
            continue;
        };
        // A memory new to the hub, the bulk of most pushes: nothing held to settle against.
        // Taken from the set at its first change, so a second change of it in this push takes
        // the full path and meets the first.
        if let Item::Memory(m) = &item
            && allowed_item(&item, None, allowed)
            && unknown.remove(&m.uid)
        {
            c.observe(&change.rev);
            let incoming = Change {
                item: item.clone(),
                ..change.clone()
            };
            if store_new_memory(tx, &incoming, m)? == Written::Stored {
                out.accepted += 1;
            } else {
                out.orphans += 1;
            }
            continue;
        }
        let owner = episode_project(tx, &item)?;
        if !allowed_item(&item, owner.as_deref(), allowed) {
            out.refused += 1;
            continue;
        }
        let kind = item.kind();
        let key = key_of(&item);
        let held_item = read_local(tx, kind, &key)?;
        if let Some((h, owner)) = &held_item
            && (!same_place(h, &item) || !allowed_item(h, owner.as_deref(), allowed))
        {
            out.refused += 1;
            continue;
        }
        let held_item = held_item.map(|(h, _)| h);
        c.observe(&change.rev);
        let incoming = Change {
            item,
            ..change.clone()
        };
        let raw_held = held(tx, kind, &key)?;
        let settled = match raw_held.clone().filter(|_| held_item.is_some()) {
            None => Some(incoming),
            Some((rev, _)) if rev == change.rev => {
                out.unchanged += 1;
                None
            }
            Some((rev, origin))
                if change.base.as_deref() == Some(rev.as_str())
                    || (origin == change.origin && rev < change.rev) =>
            {
                Some(incoming)
            }
            // An older revision of the hub's copy from the same machine: a resent batch that a
            // later push has already passed.
            Some((_, origin)) if origin == change.origin => {
                out.unchanged += 1;
                None
            }
            Some((rev, origin)) => {
                let mine = Change {
                    rev: rev.clone(),
                    base: None,
                    origin: origin.clone(),
                    item: held_item.clone().unwrap_or_else(|| incoming.item.clone()),
                };
                let (winner, loser) = if change.rev > rev {
                    (incoming, mine)
                } else {
                    (mine, incoming)
                };
                if keep_conflict(tx, kind, &key, &winner, &loser, pusher.now)? {
                    out.conflicts += 1;
                }
                let merged = winner.item.clone().with_tombstones_of(&loser.item);
                if merged != winner.item {
                    let rev = c.tick(pusher.now, &me);
                    Some(Change {
                        rev,
                        base: None,
                        origin: me.clone(),
                        item: merged,
                    })
                } else if winner.rev == rev && winner.origin == origin {
                    None
                } else {
                    Some(winner)
                }
            }
        };
        let mut now_held = raw_held;
        if let Some(settled) = settled {
            let taken_as_sent = settled.rev == change.rev;
            match store_at(tx, &settled)? {
                Written::Stored => {
                    if taken_as_sent {
                        out.accepted += 1;
                    }
                    now_held = Some((settled.rev, settled.origin));
                }
                Written::Orphan => out.orphans += 1,
            }
        }
        // The hub's version of each item it did not take as sent.
        if let Some((rev, origin)) = now_held.filter(|(rev, _)| *rev != change.rev)
            && let Some((item, _)) = read_local(tx, kind, &key)?
        {
            let item = named(tx, item, &mut out.current.projects)?;
            out.current.changes.push(Change {
                rev,
                base: None,
                origin,
                item,
            });
        }
    }
    save_clock(tx, c)?;
    // The memories this push stored were marked new by the trigger; they have their
    // revision, so the next pull need not take the lock to find that out.
    if !tx.inserted.is_empty() {
        let inserted = std::mem::take(&mut tx.inserted);
        tx.execute(
            "DELETE FROM sync_new_memories WHERE memory_id = ANY($1)",
            &[&inserted],
        )?;
    }
    Ok(out)
}

/// Up to `limit` items after `after` in the hub's sequence, as SQLite's `sync_changes_since`
/// serves them, read in one snapshot.
fn serve(
    tx: &mut Tx<'_, '_>,
    after: i64,
    limit: usize,
    machine: &str,
    allowed: &dyn Fn(&str) -> bool,
) -> Result<(Batch, i64, i64), Error> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows: Vec<(String, String, String, String, i64)> = tx
        .query(
            "SELECT kind, key, rev, origin, seq FROM sync_revs WHERE seq > $1 ORDER BY seq LIMIT $2",
            &[&after, &limit],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    let mut batch = Batch::default();
    let mut next = after;
    let mut bytes = 0;
    'rows: for chunk in rows.chunks(PULL_CHUNK) {
        let mut wanted: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (kind, key, _, origin, _) in chunk {
            if origin != machine {
                wanted.entry(kind).or_default().push(key.clone());
            }
        }
        let mut found: HashMap<(String, String), Found> = HashMap::new();
        for (kind, keys) in wanted {
            for (key, item) in read_items(tx, kind, &keys)? {
                found.insert((kind.to_owned(), key), item);
            }
        }
        for (kind, key, rev, origin, seq) in chunk {
            if bytes >= MAX_PULL_BYTES {
                break 'rows;
            }
            next = *seq;
            if origin == machine {
                continue;
            }
            let Some((local, owner)) = found.remove(&(kind.clone(), key.clone())) else {
                continue;
            };
            if !allowed_item(&local, owner.as_deref(), allowed) {
                continue;
            }
            let item = named(tx, local, &mut batch.projects)?;
            bytes += serde_json::to_string(&item).map_or(0, |s| s.len());
            batch.changes.push(Change {
                rev: rev.clone(),
                base: None,
                origin: origin.clone(),
                item,
            });
        }
    }
    let left = tx
        .query_one("SELECT count(*) FROM sync_revs WHERE seq > $1", &[&next])?
        .get(0);
    Ok((batch, next, left))
}

impl SyncHub for PgStore {
    /// The schema made the sync state with the hub; what is left is the machine id.
    fn enable_sync(&mut self) -> Result<String, StoreError> {
        self.write(|tx| machine_id(&mut Tx::new(tx)))
    }

    fn sync_receive(
        &mut self,
        batch: &Redacted<Batch>,
        pusher: &Pusher<'_>,
    ) -> Result<Received, StoreError> {
        let batch = batch.get();
        self.write(|tx| receive(&mut Tx::new(tx), batch, pusher))
    }

    /// The hub's own edits are absorbed first, in a short transaction under [`SYNC_LOCK`]
    /// taken only when there are some; the items are then read in one repeatable-read
    /// snapshot without the lock, so a pull waits for no push and sees each item as one
    /// moment left it.
    fn sync_changes_since(
        &mut self,
        after: i64,
        limit: usize,
        machine: &str,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Result<(Batch, i64, i64), StoreError> {
        let edited: bool = self.with(|c| {
            c.query_one(
                "SELECT EXISTS (SELECT 1 FROM sync_dirty) OR EXISTS (SELECT 1 FROM sync_new_memories)",
                &[],
            )
            .map(|r| r.get(0))
        })?;
        if edited {
            self.write(|tx| {
                let mut tx = Tx::new(tx);
                lock(&mut tx)?;
                let me = machine_id(&mut tx)?;
                let mut c = clock(&mut tx)?;
                absorb(&mut tx, &mut c, &me)?;
                save_clock(&mut tx, c)
            })?;
        }
        self.with(|c| {
            let mut t = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let out = serve(&mut Tx::new(&mut t), after, limit, machine, allowed)?;
            t.commit()?;
            Ok(out)
        })
    }

    fn sync_conflicts(&self, limit: usize) -> Result<Vec<Conflict>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            c.query(
                "SELECT id, at, kind, key, winner_rev, winner_origin, loser_rev, loser_origin, loser
                 FROM sync_conflicts ORDER BY id DESC LIMIT $1",
                &[&limit],
            )
            .map(|rows| {
                rows.iter()
                    .map(|r| {
                        let loser: String = r.get(8);
                        Conflict {
                            id: r.get(0),
                            at: r.get(1),
                            kind: r.get(2),
                            key: r.get(3),
                            winner_rev: r.get(4),
                            winner_origin: r.get(5),
                            loser_rev: r.get(6),
                            loser_origin: r.get(7),
                            loser: serde_json::from_str(&loser).unwrap_or_default(),
                        }
                    })
                    .collect()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::redact::Redactor;
    use crate::store::{OpenOptions, Store};
    use crate::sync::hlc::{first, rev};
    use std::collections::HashSet;
    use std::sync::{Arc, Barrier};

    /// A time before every wall clock the tests run at: the hub's own edits, stamped at the
    /// wall clock, come after every pushed revision.
    const BASE: i64 = 1_700_000_000_000;
    /// The hub's clock for pushes.
    const NOW: i64 = BASE + 1_000_000;

    fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
        Redacted::new(v, &Redactor::builtin())
    }

    fn all(_: &str) -> bool {
        true
    }

    fn pusher(token: i64) -> Pusher<'static> {
        Pusher {
            token,
            allowed: &all,
            may_tie: true,
            now: NOW,
        }
    }

    const SHOP: &str = "github.com/acme/shop";
    const PAYROLL: &str = "github.com/acme/payroll";

    fn memory(uid: &str, project: &str, text: &str) -> MemoryItem {
        MemoryItem {
            uid: uid.into(),
            project: project.into(),
            kind: "note".into(),
            mtype: "note".into(),
            title: "t".into(),
            text: text.into(),
            tool: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            dismissed: false,
            created_at: BASE,
        }
    }

    fn change(rev: String, base: Option<String>, item: Item) -> Change {
        let origin = rev.rsplit('-').next().unwrap_or_default().to_owned();
        Change {
            rev,
            base,
            origin,
            item,
        }
    }

    fn batch(machine: &str, changes: Vec<Change>) -> Redacted<Batch> {
        redacted(Batch {
            machine: machine.into(),
            projects: [
                (SHOP.to_owned(), "shop".to_owned()),
                (PAYROLL.to_owned(), "payroll".to_owned()),
            ]
            .into(),
            changes,
        })
    }

    /// `a_push_taken_twice_changes_nothing_and_is_served_once` of the hub contract
    /// (`contract::tests::HUB_CASES`), over the one part it uses: the contract's runner takes
    /// `&mut dyn HubStorage`, which `PgStore` is once every part has landed.
    fn a_push_taken_twice_changes_nothing_and_is_served_once(s: &mut dyn SyncHub) {
        s.enable_sync().unwrap();
        let change = Change {
            rev: first(1_000, "m1"),
            base: None,
            origin: "m1".into(),
            item: Item::Memory(MemoryItem {
                created_at: 1_000,
                text: "the cache is warm".into(),
                ..memory("u1", SHOP, "")
            }),
        };
        let batch = Batch {
            machine: "m1".into(),
            projects: [(SHOP.to_owned(), "shop".to_owned())].into(),
            changes: vec![change],
        };
        let pusher = Pusher {
            token: 1,
            allowed: &all,
            may_tie: true,
            now: 2_000,
        };
        let first = s.sync_receive(&redacted(batch.clone()), &pusher).unwrap();
        let again = s.sync_receive(&redacted(batch.clone()), &pusher).unwrap();
        let other = Pusher { token: 2, ..pusher };
        let stolen = s.sync_receive(&redacted(batch), &other).unwrap();
        assert!(
            stolen.rejected.is_some(),
            "a machine id is its first token's"
        );
        assert_eq!((first.accepted, again.accepted, again.unchanged), (1, 0, 1));
        let (served, next, left) = s.sync_changes_since(0, 10, "m2", &all).unwrap();
        assert_eq!((served.changes.len(), left), (1, 0));
        assert_eq!(served.projects.get(SHOP).map(String::as_str), Some("shop"));
        let (own, _, _) = s.sync_changes_since(0, 10, "m1", &all).unwrap();
        assert!(
            own.changes.is_empty(),
            "a machine is not served its own revisions"
        );
        let (after, _, _) = s.sync_changes_since(next, 10, "m2", &all).unwrap();
        assert!(after.changes.is_empty());
        assert!(s.sync_conflicts(10).unwrap().is_empty());
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn the_hub_contract_push_case_holds_on_postgresql_as_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let mut sqlite =
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        a_push_taken_twice_changes_nothing_and_is_served_once(&mut sqlite);
        a_push_taken_twice_changes_nothing_and_is_served_once(&mut testing::fresh());
    }

    /// One hub of either engine, with a way to edit it as its own MCP tools would.
    enum Hub {
        Sqlite(Store),
        Pg(PgStore),
    }

    impl Hub {
        fn sync(&mut self) -> &mut dyn SyncHub {
            match self {
                Hub::Sqlite(s) => s,
                Hub::Pg(s) => s,
            }
        }

        fn edit(&mut self, sql: &str) {
            match self {
                Hub::Sqlite(s) => s.conn.execute_batch(sql).unwrap(),
                Hub::Pg(s) => s.with(|c| c.batch_execute(sql)).unwrap(),
            }
        }
    }

    /// `s` with each revision the hub made (its machine id, and for its own edits the wall
    /// clock) and each other mention of its id replaced by one word, so that two hubs compare.
    fn normalised(s: &str, hub: &str) -> String {
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find(hub) {
            let before = &rest[..i];
            let head = before.len().checked_sub(23).and_then(|h| before.get(h..));
            let is_rev = head.is_some_and(|h| {
                let b = h.as_bytes();
                b[..15].iter().all(u8::is_ascii_digit)
                    && b[15] == b'-'
                    && b[16..22].iter().all(u8::is_ascii_digit)
                    && b[22] == b'-'
            });
            if is_rev {
                out.push_str(&before[..before.len() - 23]);
                out.push_str("<the hub's revision>");
            } else {
                out.push_str(before);
                out.push_str("<the hub>");
            }
            rest = &rest[i + hub.len()..];
        }
        out.push_str(rest);
        out
    }

    /// Every page a machine pulls from 0, `limit` items at a time.
    fn pull_all(
        hub: &mut dyn SyncHub,
        machine: &str,
        limit: usize,
        allowed: &dyn Fn(&str) -> bool,
    ) -> Vec<(Batch, i64, i64)> {
        let mut pages = Vec::new();
        let mut after = 0;
        loop {
            let page = hub
                .sync_changes_since(after, limit, machine, allowed)
                .unwrap();
            after = page.1;
            let done = page.2 == 0;
            pages.push(page);
            if done {
                return pages;
            }
        }
    }

    /// The same pushes, edits and pulls on a hub: everything each step answered.
    fn script(hub: &mut Hub) -> Vec<String> {
        let me = hub.sync().enable_sync().unwrap();
        let mut log = Vec::new();
        let mut note = |what: &str, v: &dyn std::fmt::Debug| {
            log.push(normalised(&format!("{what}: {v:#?}"), &me));
        };
        let rule = |tier: &str, scope: &str, enabled: bool| RuleItem {
            when: "always".into(),
            then: format!("run the linter ({tier})"),
            scope_tier: tier.into(),
            scope_name: scope.into(),
            source: "cli".into(),
            enabled,
            recheck: None,
            evidence: serde_json::json!({"seen": 2}),
            created_at: BASE,
            confirmed_at: BASE,
        };
        let fact = |uid: &str, object: &str| FactItem {
            uid: uid.into(),
            project: SHOP.into(),
            subject: "db".into(),
            predicate: "is".into(),
            object: object.into(),
            confidence: 0.75,
            source: "rules".into(),
            memory_uid: Some("u1".into()),
            valid_from: BASE,
            valid_to: None,
            superseded_by: None,
            superseded_at: None,
            dismissed: false,
            created_at: BASE,
        };
        let list = |items: serde_json::Value| ListItem {
            project: SHOP.into(),
            name: "todo".into(),
            items,
            updated_at: BASE,
        };
        let episode = |uid: &str| EpisodeItem {
            memory_uid: uid.into(),
            title: "ran tests".into(),
            text: "the whole long output".into(),
            replaced_at: BASE,
            dismissed: false,
        };
        let m1_first = vec![
            change(
                first(BASE + 1, "m1"),
                None,
                Item::Memory(MemoryItem {
                    files: vec!["src/deploy.rs".into(), "src/deploy.rs".into()],
                    ..memory("u1", SHOP, "deploys go through staging")
                }),
            ),
            change(
                first(BASE + 2, "m1"),
                None,
                Item::Memory(memory("u2", SHOP, "the cache is warm")),
            ),
            change(
                first(BASE + 3, "m1"),
                None,
                Item::Memory(memory("u3", PAYROLL, "salaries on the 25th")),
            ),
            change(rev(BASE + 4, 0, "m1"), None, Item::Episode(episode("u1"))),
            // On a memory the hub does not hold: it has no project, so it is refused.
            change(
                rev(BASE + 5, 0, "m1"),
                None,
                Item::Episode(episode("nobody")),
            ),
            change(
                rev(BASE + 6, 0, "m1"),
                None,
                Item::Fact(fact("fa", "postgres 15")),
            ),
            change(
                rev(BASE + 7, 0, "m1"),
                None,
                Item::Fact(FactItem {
                    valid_to: Some(BASE + 1),
                    superseded_by: Some("fa".into()),
                    superseded_at: Some(BASE + 1),
                    memory_uid: None,
                    ..fact("fb", "mysql")
                }),
            ),
            change(
                rev(BASE + 8, 0, "m1"),
                None,
                Item::Rule(rule("everywhere", "", true)),
            ),
            change(
                rev(BASE + 9, 0, "m1"),
                None,
                Item::Rule(rule("project", SHOP, true)),
            ),
            change(
                rev(BASE + 10, 0, "m1"),
                None,
                Item::List(list(serde_json::json!(["one"]))),
            ),
            change(
                first(BASE + 11, "m1"),
                None,
                Item::Memory(memory("big", SHOP, &"x".repeat(1_100_000))),
            ),
        ];
        let got = hub
            .sync()
            .sync_receive(&batch("m1", m1_first.clone()), &pusher(1))
            .unwrap();
        note("m1's first push", &got);
        note("a pull", &pull_all(hub.sync(), "m9", 100, &all));

        let m2 = vec![
            // The same text as u2 under another uid: one memory.
            change(
                first(BASE + 20, "m2"),
                None,
                Item::Memory(memory("u4", SHOP, "the cache is warm")),
            ),
            change(
                rev(BASE + 21, 0, "m2"),
                Some(first(BASE + 1, "m1")),
                Item::Memory(memory(
                    "u1",
                    SHOP,
                    "deploys go through staging, then canary",
                )),
            ),
            // Concurrent, and later: m2's list wins.
            change(
                rev(BASE + 22, 0, "m2"),
                None,
                Item::List(list(serde_json::json!(["one", "two"]))),
            ),
            // Concurrent, and older: the hub's rule wins but stays disabled.
            change(
                rev(BASE + 5, 1, "m2"),
                None,
                Item::Rule(rule("everywhere", "", false)),
            ),
            change(
                rev(BASE + 23, 0, "m2"),
                Some(rev(BASE + 6, 0, "m1")),
                Item::Fact(FactItem {
                    dismissed: true,
                    ..fact("fa", "postgres 15")
                }),
            ),
            // On u4, which is u2 on the hub: refused as on SQLite, which asks for u4's project.
            change(rev(BASE + 24, 0, "m2"), None, Item::Episode(episode("u4"))),
            // Two memories new to the hub with one text in one push, and one of them changed
            // again later in the same push.
            change(
                first(BASE + 25, "m2"),
                None,
                Item::Memory(memory("u7", SHOP, "retries back off")),
            ),
            change(
                first(BASE + 26, "m2"),
                None,
                Item::Memory(memory("u8", SHOP, "retries back off")),
            ),
            change(
                rev(BASE + 27, 0, "m2"),
                Some(first(BASE + 25, "m2")),
                Item::Memory(memory("u7", SHOP, "retries back off, twice")),
            ),
        ];
        let got = hub
            .sync()
            .sync_receive(&batch("m2", m2), &pusher(2))
            .unwrap();
        note("m2's push", &got);
        let got = hub
            .sync()
            .sync_receive(&batch("m1", m1_first), &pusher(1))
            .unwrap();
        note("m1's first push again", &got);

        let scratch = |p: &str| p == "scratch";
        let limited = Pusher {
            token: 3,
            allowed: &scratch,
            may_tie: false,
            now: NOW,
        };
        let m3 = Batch {
            machine: "m3".into(),
            projects: [(PAYROLL.to_owned(), "scratch".to_owned())].into(),
            changes: vec![
                change(
                    first(BASE + 30, "m3"),
                    None,
                    Item::Memory(memory("u3", PAYROLL, "overwritten")),
                ),
                change(
                    first(BASE + 31, "m3"),
                    None,
                    Item::Memory(memory("u5", "scratch", "scratch notes")),
                ),
                change(rev(BASE + 32, 0, "m3"), None, Item::Episode(episode("u3"))),
                change(
                    rev(BASE + 33, 0, "m3"),
                    None,
                    Item::Rule(rule("everywhere", "", true)),
                ),
            ],
        };
        let got = hub.sync().sync_receive(&redacted(m3), &limited).unwrap();
        note("a limited push", &got);
        for (what, machine, token, changes) in [
            ("another token's machine", "m2", 1, vec![]),
            (
                "a revision from the future",
                "m5",
                5,
                vec![change(
                    rev(NOW + 3_600_000, 0, "m5"),
                    None,
                    Item::Memory(memory("u6", SHOP, "soon")),
                )],
            ),
            (
                "another machine's change",
                "m6",
                6,
                vec![change(
                    first(BASE, "m1"),
                    None,
                    Item::Memory(memory("u7", SHOP, "not mine")),
                )],
            ),
            ("no machine", "", 7, vec![]),
        ] {
            let got = hub
                .sync()
                .sync_receive(&batch(machine, changes), &pusher(token))
                .unwrap();
            note(what, &got);
        }

        // The hub's own edits: a pin, and a memory saved through its MCP tools.
        hub.edit(
            "UPDATE memories SET pinned = true WHERE uid = 'u2';
             INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                 VALUES ('h1', 'shop', 'note', 'hub note', 'written on the hub', 'mcp', 1700000000500, 'hh');",
        );
        let got = hub
            .sync()
            .sync_receive(
                &batch(
                    "m1",
                    vec![change(
                        rev(BASE + 40, 0, "m1"),
                        Some(first(BASE + 2, "m1")),
                        Item::Memory(memory("u2", SHOP, "the cache is cold")),
                    )],
                ),
                &pusher(1),
            )
            .unwrap();
        note("a push racing the hub's pin", &got);
        note("m9 pulls 4 at a time", &pull_all(hub.sync(), "m9", 4, &all));
        note("m1 pulls", &pull_all(hub.sync(), "m1", 100, &all));
        note("a limited pull", &pull_all(hub.sync(), "m3", 100, &scratch));
        let shop_only = |p: &str| p == "shop";
        note("a shop pull", &pull_all(hub.sync(), "m3", 100, &shop_only));
        note("conflicts", &hub.sync().sync_conflicts(100).unwrap());
        note("two conflicts", &hub.sync().sync_conflicts(2).unwrap());
        log
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn the_same_pushes_come_to_the_same_on_postgresql_and_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = script(&mut Hub::Sqlite(
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap(),
        ));
        let pg = script(&mut Hub::Pg(testing::fresh()));
        assert_eq!(sqlite.len(), pg.len());
        for (s, p) in sqlite.iter().zip(&pg) {
            assert_eq!(p, s);
        }
        // The script reaches what it means to: every outcome of a push, and conflicts kept.
        let all = sqlite.join("\n");
        for seen in [
            "accepted: 9",
            "refused: 1",
            "refused: 3",
            "conflicts: 2",
            "ahead of the hub's clock",
            "another token",
            "<the hub's revision>",
        ] {
            assert!(all.contains(seen), "{seen} missing from\n{all}");
        }
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_pull_stops_past_8_mib_as_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let mut sqlite =
            Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut pg = testing::fresh();
        let changes: Vec<Change> = (0..12)
            .map(|i| {
                let text = format!("{i} {}", "lorem ipsum ".repeat(75_000));
                change(
                    first(BASE + i, "m1"),
                    None,
                    Item::Memory(memory(&format!("u{i}"), SHOP, &text)),
                )
            })
            .collect();
        let pushed = batch("m1", changes);
        let mut answers = Vec::new();
        for hub in [&mut sqlite as &mut dyn SyncHub, &mut pg] {
            assert_eq!(hub.sync_receive(&pushed, &pusher(1)).unwrap().accepted, 12);
            let (batch, next, left) = hub.sync_changes_since(0, 100, "m2", &all).unwrap();
            answers.push((batch.changes.len(), next, left));
        }
        assert_eq!(answers[0], answers[1]);
        assert_eq!(
            answers[1],
            (10, 10, 2),
            "each is 900 kB: the tenth passes 8 MiB"
        );
    }

    /// The (kind, key, rev) of each item `machine` pulls after `after` until nothing is left.
    fn drain(
        hub: &mut PgStore,
        machine: &str,
        after: &mut i64,
        limit: usize,
        seen: &mut Vec<(String, String, String)>,
    ) {
        loop {
            let (batch, next, left) = hub
                .sync_changes_since(*after, limit, machine, &all)
                .unwrap();
            for c in batch.changes {
                seen.push((c.item.kind().to_owned(), key_of(&c.item), c.rev));
            }
            *after = next;
            if left == 0 {
                return;
            }
        }
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn eight_machines_pushing_at_once_are_pulled_whole_and_once() {
        let url = testing::fresh_database();
        drop(PgStore::open(&url).unwrap());
        const MACHINES: i64 = 8;
        const BATCHES: i64 = 4;
        const PER_BATCH: i64 = 25;
        let start = Arc::new(Barrier::new(usize::try_from(MACHINES).unwrap() + 2));
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let pushers: Vec<_> = (0..MACHINES)
            .map(|m| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    let mut hub = PgStore::open(&url).unwrap();
                    let machine = format!("m{m}");
                    start.wait();
                    for b in 0..BATCHES {
                        let mut changes: Vec<Change> = (0..PER_BATCH)
                            .map(|i| {
                                let n = b * PER_BATCH + i;
                                let uid = format!("{machine}-{n}");
                                change(
                                    first(BASE + n, &machine),
                                    None,
                                    Item::Memory(memory(&uid, SHOP, &format!("{uid} was here"))),
                                )
                            })
                            .collect();
                        changes.push(change(
                            rev(BASE + 1_000 + b, 0, &machine),
                            None,
                            Item::List(ListItem {
                                project: SHOP.into(),
                                name: format!("{machine} {b}"),
                                items: serde_json::json!([b]),
                                updated_at: BASE,
                            }),
                        ));
                        let got = hub
                            .sync_receive(&batch(&machine, changes), &pusher(m + 1))
                            .unwrap();
                        assert_eq!(
                            got.accepted,
                            usize::try_from(PER_BATCH + 1).unwrap(),
                            "{got:?}"
                        );
                    }
                })
            })
            .collect();
        // The hub's own MCP saves meanwhile, each held open a little while another commits,
        // so their ids commit out of order.
        let saver = {
            let (url, start) = (url.clone(), start.clone());
            std::thread::spawn(move || {
                let mut a = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                let mut b = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                let insert = "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                              VALUES ($1, 'shop', 'note', 't', $1, 'mcp', 1700000000000, $1)";
                start.wait();
                for i in 0..20 {
                    let mut slow = a.transaction().unwrap();
                    slow.execute(insert, &[&format!("hub-slow-{i}")]).unwrap();
                    b.execute(insert, &[&format!("hub-fast-{i}")]).unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(15));
                    slow.commit().unwrap();
                }
            })
        };
        // A machine pulling in small pages all the while.
        let puller = {
            let (url, start, done) = (url.clone(), start.clone(), done.clone());
            std::thread::spawn(move || {
                let mut hub = PgStore::open(&url).unwrap();
                let (mut after, mut seen) = (0, Vec::new());
                start.wait();
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    drain(&mut hub, "puller", &mut after, 7, &mut seen);
                }
                drain(&mut hub, "puller", &mut after, 7, &mut seen);
                seen
            })
        };
        for p in pushers {
            p.join().unwrap();
        }
        saver.join().unwrap();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        let during = puller.join().unwrap();

        let mut hub = PgStore::open(&url).unwrap();
        let (mut after, mut afterwards) = (0, Vec::new());
        drain(&mut hub, "late", &mut after, 5, &mut afterwards);
        let expected = usize::try_from(MACHINES * BATCHES * (PER_BATCH + 1)).unwrap() + 40;
        let distinct: HashSet<_> = afterwards.iter().cloned().collect();
        assert_eq!(afterwards.len(), expected, "every item, each once");
        assert_eq!(distinct.len(), expected);
        let during_distinct: HashSet<_> = during.iter().cloned().collect();
        assert_eq!(
            during.len(),
            expected,
            "a puller during the pushes missed none and saw none twice"
        );
        assert_eq!(during_distinct, distinct);
        let memories = afterwards.iter().filter(|(k, _, _)| k == "memory").count();
        assert_eq!(
            memories,
            usize::try_from(MACHINES * BATCHES * PER_BATCH).unwrap() + 40
        );
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_hub_memory_committed_after_a_later_one_still_travels() {
        let url = testing::fresh_database();
        let mut hub = PgStore::open(&url).unwrap();
        let mut a = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut b = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let insert =
            "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                      VALUES ($1, 'shop', 'note', 't', $1, 'mcp', 5, $1) RETURNING id";
        let mut open = a.transaction().unwrap();
        let late: i64 = open.query_one(insert, &[&"late"]).unwrap().get(0);
        let early: i64 = b.query_one(insert, &[&"early"]).unwrap().get(0);
        assert!(late < early);
        let uids = |batch: &Batch| -> Vec<String> {
            batch
                .changes
                .iter()
                .map(|c| match &c.item {
                    Item::Memory(m) => m.uid.clone(),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let (got, next, _) = hub.sync_changes_since(0, 10, "m1", &all).unwrap();
        assert_eq!(uids(&got), ["early"]);
        open.commit().unwrap();
        let (got, next, left) = hub.sync_changes_since(next, 10, "m1", &all).unwrap();
        assert_eq!((uids(&got), left), (vec!["late".to_owned()], 0));
        let (got, _, _) = hub.sync_changes_since(next, 10, "m1", &all).unwrap();
        assert!(got.changes.is_empty());
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_hub_edit_committed_while_a_push_waits_is_settled_not_overwritten() {
        let url = testing::fresh_database();
        let mut hub = PgStore::open(&url).unwrap();
        let pushed = first(BASE, "m1");
        let got = hub
            .sync_receive(
                &batch(
                    "m1",
                    vec![change(
                        pushed.clone(),
                        None,
                        Item::Memory(memory("u1", SHOP, "v1")),
                    )],
                ),
                &pusher(1),
            )
            .unwrap();
        assert_eq!(got.accepted, 1);
        // An MCP client dismisses it; before that commits, m1 pushes an edit based on v1.
        let mut mcp = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut edit = mcp.transaction().unwrap();
        edit.execute("UPDATE memories SET dismissed = true WHERE uid = 'u1'", &[])
            .unwrap();
        let now = crate::time::now_ms();
        let push = {
            let url = url.clone();
            std::thread::spawn(move || {
                let mut hub = PgStore::open(&url).unwrap();
                let edited = change(
                    rev(now + 1_000, 0, "m1"),
                    Some(pushed),
                    Item::Memory(memory("u1", SHOP, "v2")),
                );
                let p = Pusher {
                    now: now + 2_000,
                    ..pusher(1)
                };
                hub.sync_receive(&batch("m1", vec![edited]), &p).unwrap()
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!push.is_finished(), "the push waits for the edit's row");
        edit.commit().unwrap();
        let got = push.join().unwrap();
        assert_eq!((got.accepted, got.conflicts), (0, 1), "{got:?}");
        let Some(Item::Memory(now_held)) = got.current.changes.first().map(|c| &c.item) else {
            panic!("{got:?}")
        };
        assert_eq!((now_held.text.as_str(), now_held.dismissed), ("v2", true));
        let (dismissed, text): (bool, String) = {
            let r = mcp
                .query_one("SELECT dismissed, text FROM memories WHERE uid = 'u1'", &[])
                .unwrap();
            (r.get(0), r.get(1))
        };
        assert_eq!(
            (dismissed, text.as_str()),
            (true, "v2"),
            "the later text, still dismissed"
        );
    }
}
