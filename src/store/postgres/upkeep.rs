//! Checking and scrubbing the hub's PostgreSQL store as a whole: what `aletheia doctor` and
//! `aletheia scrub` ask of it (the SQLite store's side is [`crate::store::health`],
//! [`crate::store::scrub`] and [`crate::store::rekey`]).
//!
//! # Erasing what a scrub replaced
//!
//! PostgreSQL never writes over a row: an `UPDATE` or `DELETE` leaves the old version in the
//! table's pages as a dead tuple until `VACUUM` reclaims it, and indexes keep entries for it
//! (a GIN index, such as the full-text one, keeps an old word as a key even after a plain
//! `VACUUM` has removed its row pointers). Statistics that `ANALYZE` sampled keep column values
//! in `pg_statistic`. So after the scrub commits, every table it changed is rewritten with
//! `VACUUM (FULL, ANALYZE)`: new files without the dead tuples, every index rebuilt, fresh
//! statistics; the old files are truncated at once. `VACUUM FULL pg_statistic` then drops the
//! statistics' old versions (PostgreSQL lets only a superuser or the database's owner do that;
//! for another role it warns and skips). `VACUUM` cannot run inside a transaction, so these run
//! after it, one statement each.
//!
//! What the store cannot reach: a transaction open elsewhere while the scrub ran still sees the
//! old versions, so `VACUUM FULL` keeps them (the hub holds no long transactions); the
//! write-ahead log keeps the old rows until its segments are recycled, and so do a WAL archive,
//! replicas and backups. Those are the database operator's to expire.

use super::PgStore;
use super::schema::{CURRENT_VERSION, version};
use crate::redact::{Redact, Redactor};
use crate::store::contract::Upkeep;
use crate::store::{Rescrubbed, StoreError, content_hash};
use postgres::Transaction;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use std::collections::BTreeSet;

/// The tables a scrub reads and rewrites. It locks them against other writers (readers go on),
/// as SQLite's write lock does, so that what it read is still there when it writes, and rows
/// can be named by their place (`ctid`) while it runs. `jobs` comes first: a finishing job holds
/// its row there while it writes to the others, so the scrub waits for it before holding any.
const LOCKED: &str = "jobs, memories, memory_files, memory_versions, memory_links, memory_feedback, episodes, extracted, captures, \
     session_queue, rules, work_lists, facts, fact_reviews, audit";

/// How a column's text is redacted: as free text, or as JSON (redacted so it stays JSON).
#[derive(Clone, Copy)]
enum Shape {
    Text,
    Json,
}

/// A table whose text columns are redacted again: its name, whether a unique key covers one
/// of them (a row that comes to equal another is then merged into it, as on SQLite), and the
/// columns with how each is redacted.
type Table = (&'static str, bool, &'static [(&'static str, Shape)]);

/// The SQLite store's list, and two more: an episode's original message and a job's session
/// and error. An episode holds the text a session summary replaced, and a job's session must
/// stay the name its memories carry (theirs is redacted here too), or the job finds none of
/// them.
const TABLES: &[Table] = &[
    (
        "memories",
        false,
        &[
            ("tool", Shape::Text),
            ("session_id", Shape::Text),
            ("edited_by", Shape::Text),
        ],
    ),
    ("captures", true, &[("tool", Shape::Text)]),
    (
        "session_queue",
        true,
        &[("session_id", Shape::Text), ("tool", Shape::Text)],
    ),
    (
        "rules",
        true,
        &[
            ("when_text", Shape::Text),
            ("then_text", Shape::Text),
            ("scope_name", Shape::Text),
            ("source", Shape::Text),
            ("evidence", Shape::Json),
        ],
    ),
    (
        "work_lists",
        true,
        &[("name", Shape::Text), ("items", Shape::Json)],
    ),
    (
        "facts",
        false,
        &[
            ("subject", Shape::Text),
            ("predicate", Shape::Text),
            ("object", Shape::Text),
        ],
    ),
    (
        "audit",
        false,
        &[("reason", Shape::Text), ("actor", Shape::Text)],
    ),
    (
        "episodes",
        false,
        &[("title", Shape::Text), ("text", Shape::Text)],
    ),
    (
        "memory_versions",
        false,
        &[
            ("title", Shape::Text),
            ("text", Shape::Text),
            ("source", Shape::Text),
        ],
    ),
    (
        "jobs",
        true,
        &[("session_id", Shape::Text), ("last_error", Shape::Text)],
    ),
];

fn redact(r: &Redactor, shape: Shape, text: &str) -> String {
    match shape {
        Shape::Text => r.redact(text),
        Shape::Json => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => v.redact(r).to_string(),
            Err(_) => r.redact(text),
        },
    }
}

/// Whether `e` is a write that clashed with stored data (class 23, as SQLite's constraint
/// violation).
fn is_constraint(e: &postgres::Error) -> bool {
    e.code().is_some_and(|c| c.code().starts_with("23"))
}

impl Upkeep for PgStore {
    fn schema_version(&self) -> Result<i64, StoreError> {
        version(self)
    }

    /// The checks PostgreSQL leaves to us: the connection answers, the schema is the one this
    /// binary writes, and no index of it was left unusable (a failed `CREATE INDEX
    /// CONCURRENTLY`, for one). Pages are the server's to check as it reads them (with checksums
    /// when the cluster was made with them); a full scan of every page, as SQLite's check does,
    /// would cost a team's hub minutes.
    fn quick_check(&self) -> Result<String, StoreError> {
        let (found, invalid): (i64, Vec<String>) = self.with(|c| {
            c.query_one(
                "SELECT (SELECT version FROM aletheia_schema),
                        array(SELECT c.relname::text FROM pg_index i
                                JOIN pg_class c ON c.oid = i.indexrelid
                                JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE n.nspname = current_schema() AND NOT (i.indisvalid AND i.indisready)
                              ORDER BY 1)",
                &[],
            )
            .map(|r| (r.get(0), r.get(1)))
        })?;
        let mut faults = Vec::new();
        if found != CURRENT_VERSION {
            faults.push(format!(
                "the schema is at version {found}, this aletheia writes version {CURRENT_VERSION}"
            ));
        }
        faults.extend(
            invalid
                .iter()
                .map(|i| format!("index {i} is not valid: rebuild it with REINDEX INDEX {i}")),
        );
        Ok(if faults.is_empty() {
            "ok".to_owned()
        } else {
            faults.join("; ")
        })
    }

    /// Always true: the search vector is a generated column of each memory, written by the
    /// database in the same statement as the memory's text, so it cannot drift from it.
    fn search_index_consistent(&self) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// Nothing to rebuild: the search vector is generated from each row (see
    /// [`Upkeep::search_index_consistent`]), and its GIN index is kept by the database.
    fn rebuild_search_index(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn last_captures(&self) -> Result<Vec<(String, i64)>, StoreError> {
        // COLLATE "C": SQLite orders text by its bytes.
        let rows = self.with(|c| {
            c.query(
                "SELECT tool, last_at FROM captures ORDER BY tool COLLATE \"C\"",
                &[],
            )
        })?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn rescrub(&mut self, r: &Redactor) -> Result<Rescrubbed, StoreError> {
        let mut changed = BTreeSet::new();
        let done = self.write(|tx| {
            tx.batch_execute(&format!("LOCK TABLE {LOCKED} IN EXCLUSIVE MODE"))?;
            Ok(Rescrubbed {
                memories: scrub_memories(tx, r, &mut changed)?,
                records: scrub_records(tx, r, &mut changed)?,
                projects: rekey_projects(tx, r, &mut changed)?,
            })
        })?;
        if !changed.is_empty() {
            let tables: Vec<&str> = changed.into_iter().collect();
            self.with(|c| {
                c.batch_execute(&format!("VACUUM (FULL, ANALYZE) {}", tables.join(", ")))?;
                c.batch_execute("VACUUM FULL pg_statistic")
            })?;
        }
        Ok(done)
    }
}

/// What a merged-away memory leaves behind (its row, file paths and episode), for the vacuum.
const MERGED: &[&str] = &["memories", "memory_files", "episodes"];

/// Redact every memory's title, text and file paths again; how many changed. A memory whose new
/// text is another's of the same project and kind is merged into it.
fn scrub_memories(
    tx: &mut Transaction<'_>,
    r: &Redactor,
    touched: &mut BTreeSet<&'static str>,
) -> Result<usize, postgres::Error> {
    // Streamed: only the rows that change are held, not the whole table.
    let mut changed = Vec::new();
    let mut rows = tx.query_raw(
        "SELECT id, project, kind, title, text, files FROM memories",
        std::iter::empty::<&dyn ToSql>(),
    )?;
    while let Some(row) = rows.next()? {
        let (title, text, files): (&str, &str, &str) = (row.get(3), row.get(4), row.get(5));
        let (t2, x2, f2) = (r.redact(title), r.redact(text), r.redact(files));
        if t2 != title || x2 != text || f2 != files {
            let (id, project, kind): (i64, String, String) = (row.get(0), row.get(1), row.get(2));
            changed.push((id, project, kind, t2, x2, f2));
        }
    }
    drop(rows);
    if changed.is_empty() {
        return Ok(0);
    }
    touched.extend(MERGED);
    let twin = tx.prepare(
        "SELECT id FROM memories WHERE project = $1 AND kind = $2 AND content_hash = $3 AND id <> $4",
    )?;
    let set_files = tx.prepare("UPDATE memories SET files = $2 WHERE id = $1")?;
    let clear_paths = tx.prepare("DELETE FROM memory_files WHERE memory_id = $1")?;
    let add_paths = tx.prepare(
        "INSERT INTO memory_files (path, memory_id) SELECT p, $2 FROM unnest($1::text[]) AS p
         ON CONFLICT DO NOTHING",
    )?;
    let set_text =
        tx.prepare("UPDATE memories SET title = $2, text = $3, content_hash = $4 WHERE id = $1")?;
    for (id, project, kind, title, text, files) in &changed {
        let hash = content_hash(title, text);
        let keep: Option<i64> = tx
            .query_opt(&twin, &[project, kind, &hash, id])?
            .map(|r| r.get(0));
        // The paths first: a row merged into its twin hands them on.
        tx.execute(&set_files, &[id, files])?;
        tx.execute(&clear_paths, &[id])?;
        let paths: Vec<String> = serde_json::from_str(files).unwrap_or_default();
        tx.execute(&add_paths, &[&paths, id])?;
        match keep {
            Some(keep) => merge_memory(tx, *id, keep)?,
            None => {
                tx.execute(&set_text, &[id, title, text, &hash])?;
            }
        }
    }
    Ok(changed.len())
}

/// Redact the text columns of [`TABLES`] again; how many rows changed.
fn scrub_records(
    tx: &mut Transaction<'_>,
    r: &Redactor,
    touched: &mut BTreeSet<&'static str>,
) -> Result<usize, postgres::Error> {
    let mut changed = 0;
    for &(table, clashes, columns) in TABLES {
        let n = scrub_table(tx, table, clashes, columns, r)?;
        if n > 0 {
            touched.insert(table);
        }
        changed += n;
    }
    Ok(changed)
}

fn scrub_table(
    tx: &mut Transaction<'_>,
    table: &str,
    clashes: bool,
    columns: &[(&str, Shape)],
    r: &Redactor,
) -> Result<usize, postgres::Error> {
    let names: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
    // A row is named by its place: the table is locked, so no other writer moves it, and this
    // scrub changes each row once.
    let mut rewrites: Vec<(String, Vec<Option<String>>)> = Vec::new();
    let mut rows = tx.query_raw(
        &format!("SELECT ctid::text, {} FROM {table}", names.join(", ")),
        std::iter::empty::<&dyn ToSql>(),
    )?;
    while let Some(row) = rows.next()? {
        let mut any = false;
        let mut values = Vec::with_capacity(columns.len());
        for (i, (_, shape)) in columns.iter().enumerate() {
            let old: Option<&str> = row.get(i + 1);
            let new = old.map(|t| redact(r, *shape, t));
            any |= new.as_deref() != old;
            values.push(new);
        }
        if any {
            rewrites.push((row.get(0), values));
        }
    }
    drop(rows);
    if rewrites.is_empty() {
        return Ok(0);
    }
    let sets: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{c} = ${}", i + 2))
        .collect();
    let update = tx.prepare(&format!(
        "UPDATE {table} SET {} WHERE ctid = $1::text::tid",
        sets.join(", ")
    ))?;
    let delete = tx.prepare(&format!("DELETE FROM {table} WHERE ctid = $1::text::tid"))?;
    for (place, values) in &rewrites {
        let mut args: Vec<&(dyn ToSql + Sync)> = vec![place];
        args.extend(values.iter().map(|v| v as &(dyn ToSql + Sync)));
        if !clashes {
            tx.execute(&update, &args)?;
            continue;
        }
        // A row that became identical to another under a unique key (two rules that differed
        // only by a secret) is merged into it: this one goes. The savepoint keeps the clash
        // from aborting the whole scrub.
        let mut sp = tx.transaction()?;
        match sp.execute(&update, &args) {
            Ok(_) => sp.commit()?,
            Err(e) if is_constraint(&e) => {
                sp.rollback()?;
                tx.execute(&delete, &[place])?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(rewrites.len())
}

/// Every project key stored, from every table that holds one, in byte order (as SQLite's UNION
/// hands them out): where two keys become one, the first moves and the second merges into it.
const KEYS: &str = "SELECT k FROM (
    SELECT project FROM memories UNION SELECT project FROM session_queue
    UNION SELECT project FROM facts UNION SELECT project FROM work_lists
    UNION SELECT project FROM jobs UNION SELECT project FROM fact_reviews
    UNION SELECT scope_name FROM rules WHERE scope_tier = 'project') AS keys(k)
    ORDER BY k COLLATE \"C\"";

/// The tables a project key moves in.
const KEYED: &[&str] = &[
    "memories",
    "memory_files",
    "episodes",
    "session_queue",
    "jobs",
    "work_lists",
    "rules",
    "facts",
    "fact_reviews",
];

/// Rewrite every project key to its stored form (see [`crate::store::rekey`]); how many rows
/// moved or merged.
fn rekey_projects(
    tx: &mut Transaction<'_>,
    r: &Redactor,
    touched: &mut BTreeSet<&'static str>,
) -> Result<usize, postgres::Error> {
    let keys: Vec<String> = tx.query(KEYS, &[])?.iter().map(|r| r.get(0)).collect();
    let mut changed = 0;
    for old in keys {
        let new = crate::project::stored_key(&old, r);
        if new != old {
            changed += rekey(tx, &old, &new)?;
        }
    }
    if changed > 0 {
        touched.extend(KEYED);
    }
    Ok(changed)
}

fn rekey(tx: &mut Transaction<'_>, old: &str, new: &str) -> Result<usize, postgres::Error> {
    let mut changed = 0;
    // Memories one at a time: each may have a twin (same kind and content) under the new key.
    let rows: Vec<(i64, String, String)> = tx
        .query(
            "SELECT id, kind, content_hash FROM memories WHERE project = $1 ORDER BY id",
            &[&old],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let twin = tx.prepare(
        "SELECT id FROM memories WHERE project = $1 AND kind = $2 AND content_hash = $3",
    )?;
    let mv = tx.prepare("UPDATE memories SET project = $2 WHERE id = $1")?;
    for (id, kind, hash) in rows {
        match tx.query_opt(&twin, &[&new, &kind, &hash])? {
            Some(keep) => merge_memory(tx, id, keep.get(0))?,
            None => {
                tx.execute(&mv, &[&id, &new])?;
            }
        }
        changed += 1;
    }
    // A list of the same name under both keys: the one written last is the list's state.
    changed += changed_rows(
        tx,
        "DELETE FROM work_lists n WHERE n.project = $2 AND EXISTS (SELECT 1 FROM work_lists o
           WHERE o.project = $1 AND o.name = n.name AND o.updated_at > n.updated_at)",
        &[&old, &new],
    )?;
    // A session queued under both keys is pending if either was.
    tx.execute(
        "UPDATE session_queue SET state = 'pending' WHERE project = $2 AND session_id IN
           (SELECT session_id FROM session_queue WHERE project = $1 AND state = 'pending')",
        &[&old, &new],
    )?;
    for sql in [
        "UPDATE facts SET project = $2 WHERE project = $1",
        "UPDATE fact_reviews SET project = $2 WHERE project = $1",
    ] {
        changed += changed_rows(tx, sql, &[&old, &new])?;
    }
    // What a unique key keeps from moving (SQLite's UPDATE OR IGNORE) is already there under
    // the new key (an identical queue entry, pending job or rule, or an older list), so what is
    // left behind goes.
    for (moved, left) in [
        (
            "UPDATE session_queue s SET project = $2 WHERE s.project = $1 AND NOT EXISTS
               (SELECT 1 FROM session_queue t WHERE t.project = $2 AND t.session_id = s.session_id)",
            "DELETE FROM session_queue WHERE project = $1",
        ),
        (
            "UPDATE jobs j SET project = $2 WHERE j.project = $1 AND NOT (j.state = 'pending' AND EXISTS
               (SELECT 1 FROM jobs k WHERE k.project = $2 AND k.state = 'pending' AND k.type = j.type
                  AND coalesce(k.session_id, '') = coalesce(j.session_id, '')))",
            "DELETE FROM jobs WHERE project = $1",
        ),
        (
            "UPDATE work_lists w SET project = $2 WHERE w.project = $1 AND NOT EXISTS
               (SELECT 1 FROM work_lists t WHERE t.project = $2 AND t.name = w.name)",
            "DELETE FROM work_lists WHERE project = $1",
        ),
        (
            "UPDATE rules r SET scope_name = $2 WHERE r.scope_name = $1 AND r.scope_tier = 'project'
               AND NOT EXISTS (SELECT 1 FROM rules t WHERE t.when_text = r.when_text
                 AND t.then_text = r.then_text AND t.scope_tier = r.scope_tier AND t.scope_name = $2)",
            "DELETE FROM rules WHERE scope_name = $1 AND scope_tier = 'project'",
        ),
    ] {
        changed += changed_rows(tx, moved, &[&old, &new])?;
        changed += changed_rows(tx, left, &[&old])?;
    }
    Ok(changed)
}

/// How many rows `sql` changed.
fn changed_rows(
    tx: &mut Transaction<'_>,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<usize, postgres::Error> {
    tx.execute(sql, params)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Fold memory `from` into its twin `keep` and delete it: its facts, file paths, list, episode
/// and extraction mark move to `keep` (where `keep` has none of its own), `keep` is pinned if
/// either was and dismissed only if both were.
fn merge_memory(tx: &mut Transaction<'_>, from: i64, keep: i64) -> Result<(), postgres::Error> {
    let gone = tx.query_one(
        "SELECT files, pinned, dismissed FROM memories WHERE id = $1",
        &[&from],
    )?;
    let (files_from, pinned, dismissed): (&str, bool, bool) =
        (gone.get(0), gone.get(1), gone.get(2));
    let kept = tx.query_one("SELECT files FROM memories WHERE id = $1", &[&keep])?;
    let mut files: Vec<String> = serde_json::from_str(kept.get(0)).unwrap_or_default();
    for f in serde_json::from_str::<Vec<String>>(files_from).unwrap_or_default() {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    let files = serde_json::to_string(&files).unwrap_or_else(|_| "[]".into());
    tx.execute(
        "UPDATE memories SET files = $2, pinned = pinned OR $3, dismissed = dismissed AND $4
         WHERE id = $1",
        &[&keep, &files, &pinned, &dismissed],
    )?;
    for sql in [
        "UPDATE facts SET memory_id = $2 WHERE memory_id = $1",
        "UPDATE work_lists SET memory_id = $2 WHERE memory_id = $1",
        "UPDATE memory_files f SET memory_id = $2 WHERE f.memory_id = $1
           AND NOT EXISTS (SELECT 1 FROM memory_files k WHERE k.memory_id = $2 AND k.path = f.path)",
        "UPDATE episodes SET memory_id = $2 WHERE memory_id = $1
           AND NOT EXISTS (SELECT 1 FROM episodes WHERE memory_id = $2)",
        "UPDATE extracted SET memory_id = $2 WHERE memory_id = $1
           AND NOT EXISTS (SELECT 1 FROM extracted WHERE memory_id = $2)",
        // As on SQLite: the twin's supersessions and feedback hold for the kept memory.
        "UPDATE memory_links l SET older = $2 WHERE l.older = $1 AND l.newer <> $2
           AND NOT EXISTS (SELECT 1 FROM memory_links k WHERE k.older = $2 AND k.newer = l.newer)
           AND NOT EXISTS (SELECT 1 FROM memory_links r WHERE r.older = l.newer AND r.newer = $2)",
        "UPDATE memory_links l SET newer = $2 WHERE l.newer = $1 AND l.older <> $2
           AND NOT EXISTS (SELECT 1 FROM memory_links k WHERE k.newer = $2 AND k.older = l.older)
           AND NOT EXISTS (SELECT 1 FROM memory_links r WHERE r.older = $2 AND r.newer = l.older)",
        "INSERT INTO memory_feedback (memory_id, favourite, positive, negative, updated_at)
             SELECT $2, favourite, positive, negative, updated_at FROM memory_feedback WHERE memory_id = $1
         ON CONFLICT (memory_id) DO UPDATE SET favourite = memory_feedback.favourite OR excluded.favourite,
             positive = memory_feedback.positive + excluded.positive,
             negative = memory_feedback.negative + excluded.negative,
             updated_at = greatest(memory_feedback.updated_at, excluded.updated_at)",
    ] {
        tx.execute(sql, &[&from, &keep])?;
    }
    // The twin's earlier texts come after the kept memory's own, numbered on from them (in one
    // statement, so the unique index sees only the final numbers).
    tx.execute(
        "UPDATE memory_versions SET memory_id = $2,
             version = version + (SELECT coalesce(max(version), 0) FROM memory_versions WHERE memory_id = $2)
         WHERE memory_id = $1",
        &[&from, &keep],
    )?;
    tx.execute("DELETE FROM memories WHERE id = $1", &[&from])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::store::{OpenOptions, Store};

    const KEY: &str = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    /// Another key: a project named after it becomes the same stored key as one named after
    /// [`KEY`].
    const KEY2: &str = "ghp_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210";
    /// What every copy of the key holds, as stored text or as a word of the search vector.
    const NEEDLE: &str = "abcdefghijklmnopqrstuvwxyz";

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_fresh_store_is_healthy_and_a_damaged_one_says_what_is_wrong() {
        let pg = testing::fresh();
        assert_eq!(pg.quick_check().unwrap(), "ok");
        assert!(pg.search_index_consistent().unwrap());
        pg.rebuild_search_index().unwrap();
        assert_eq!(pg.schema_version().unwrap(), CURRENT_VERSION);
        pg.with(|c| {
            c.batch_execute(
                "INSERT INTO captures (tool, last_at) VALUES ('codex', 3), ('Zed', 1), ('claude-code', 2)",
            )
        })
        .unwrap();
        // Byte order, as SQLite's.
        assert_eq!(
            pg.last_captures().unwrap(),
            [
                ("Zed".to_owned(), 1),
                ("claude-code".to_owned(), 2),
                ("codex".to_owned(), 3)
            ]
        );
        pg.with(|c| {
            c.batch_execute(
                "UPDATE aletheia_schema SET version = 0;
                 UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'jobs_by_state'::regclass",
            )
        })
        .unwrap();
        let found = pg.quick_check().unwrap();
        assert!(found.contains("version 0"), "{found}");
        assert!(
            found.contains("index jobs_by_state is not valid"),
            "{found}"
        );
    }

    /// Rows as an older version, or looser redaction rules, left them: the key in every text a
    /// scrub redacts, a project key, and rows that become twins once redacted. The same
    /// statements on both engines.
    fn seed() -> String {
        let twin_hash = content_hash("deploy key", "the key is [redacted:github-token]");
        format!(
            "INSERT INTO memories (id, uid, project, kind, type, title, text, tool, session_id, files, created_at, content_hash)
               VALUES (1, 'u1', 'shop', 'note', 'note', 'deploy key', 'the key is {KEY}', 'cli', 's1', '[\"src/{KEY}.rs\"]', 1, 'h1'),
                      (2, 'u2', 'shop', 'note', 'note', 'deploy key', 'the key is [redacted:github-token]', 'cli', 's1', '[]', 2, '{twin_hash}'),
                      (3, 'u3', 'acme-{KEY}', 'note', 'note', 'acme notes', 'acme ships on fridays', 'cli', 'sess-{KEY}', '[]', 3, 'h3'),
                      (4, 'u4', 'acme-{KEY2}', 'note', 'note', 'acme notes', 'acme ships on fridays', 'cli', NULL, '[\"a.rs\"]', 4, 'h3');
             INSERT INTO memory_files (path, memory_id) VALUES ('src/{KEY}.rs', 1);
             INSERT INTO episodes (memory_id, title, text, replaced_at) VALUES (3, 'acme', 'the first message said {KEY}', 4);
             INSERT INTO memory_versions (memory_id, version, title, text, source, written_at, replaced_at)
               VALUES (1, 1, 'deploy key', 'the old key was {KEY}', 'cli-{KEY}', 1, 2);
             INSERT INTO captures (tool, last_at) VALUES ('tool-{KEY}', 5);
             INSERT INTO session_queue (project, session_id, tool, enqueued_at, state)
               VALUES ('shop', 'sess-{KEY}', 'claude-code', 1, 'pending'), ('acme-{KEY}', 's9', 'cli', 1, 'pending'),
                      ('acme-{KEY2}', 's9', 'cli', 2, 'jobbed');
             INSERT INTO jobs (type, project, session_id, state, run_after, last_error, created_at, updated_at)
               VALUES ('extract_session', 'shop', 'sess-{KEY}', 'failed', 1, 'the provider quoted {KEY}', 1, 1),
                      ('extract_session', 'acme-{KEY}', NULL, 'pending', 1, NULL, 1, 1),
                      ('extract_session', 'acme-{KEY2}', NULL, 'pending', 1, NULL, 1, 1),
                      ('extract_session', 'acme-{KEY2}', NULL, 'done', 1, NULL, 1, 1);
             INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source, evidence, created_at, confirmed_at)
               VALUES ('r_a', 'always', 'use {KEY}', 'everywhere', '', 'cli', '{{\"note\":\"{KEY}\"}}', 1, 1),
                      ('r_b', 'always', 'use [redacted:github-token]', 'everywhere', '', 'cli', '{{}}', 2, 2),
                      ('r_c', 'always', 'ship on fridays', 'project', 'acme-{KEY}', 'cli', '{{}}', 3, 3),
                      ('r_d', 'always', 'ship on fridays', 'project', 'acme-{KEY2}', 'cli', '{{}}', 4, 4);
             INSERT INTO work_lists (project, name, memory_id, items, updated_at)
               VALUES ('shop', 'todo', 2, '[\"rotate {KEY}\"]', 1), ('acme-{KEY}', 'todo', 3, '[\"old\"]', 1),
                      ('acme-{KEY2}', 'todo', 4, '[\"newer\"]', 2);
             INSERT INTO facts (project, subject, predicate, object, valid_from, created_at)
               VALUES ('acme-{KEY}', 'ci', 'uses token', '{KEY}', 1, 1);
             INSERT INTO audit (at, action, item_type, item_id, reason) VALUES (1, 'dismiss', 'memory', '1', 'leaked {KEY}');"
        )
    }

    /// What both engines hold after the scrub, one line a row.
    const DUMP: &[&str] = &[
        "SELECT 'memory ' || id || ' ' || project || ' ' || title || ' ' || text || ' ' || files || ' ' || tool || ' ' || coalesce(session_id, '-') FROM memories",
        "SELECT 'path ' || path || ' ' || memory_id FROM memory_files",
        "SELECT 'capture ' || tool FROM captures",
        "SELECT 'queued ' || project || ' ' || session_id || ' ' || state FROM session_queue",
        "SELECT 'rule ' || id || ' ' || then_text || ' ' || scope_name || ' ' || evidence FROM rules",
        "SELECT 'list ' || project || ' ' || name || ' ' || memory_id || ' ' || items FROM work_lists",
        "SELECT 'fact ' || project || ' ' || object FROM facts",
        "SELECT 'audit ' || reason FROM audit",
        "SELECT 'job ' || id || ' ' || project || ' ' || state FROM jobs",
        "SELECT 'episode of ' || memory_id FROM episodes",
        "SELECT 'version ' || memory_id || ' ' || text || ' ' || source FROM memory_versions",
    ];

    fn dump_sqlite(s: &Store) -> Vec<String> {
        let mut rows: Vec<String> = DUMP
            .iter()
            .flat_map(|q| {
                let mut stmt = s.conn().prepare(q).unwrap();
                stmt.query_map([], |r| r.get::<_, String>(0))
                    .unwrap()
                    .collect::<Result<Vec<_>, _>>()
                    .unwrap()
            })
            .collect();
        rows.sort();
        rows
    }

    fn dump_pg(pg: &PgStore) -> Vec<String> {
        let mut rows: Vec<String> = DUMP
            .iter()
            .flat_map(|q| {
                pg.with(|c| c.query(*q, &[]))
                    .unwrap()
                    .iter()
                    .map(|r| r.get(0))
                    .collect::<Vec<String>>()
            })
            .collect();
        rows.sort();
        rows
    }

    /// The relations of the tables a scrub covers (their indexes and TOAST too) and of the
    /// planner's statistics whose files hold `NEEDLE`. A superuser reads the files, after a
    /// checkpoint has written every changed page out.
    fn files_holding_the_key(pg: &PgStore) -> Vec<String> {
        pg.with(|c| {
            c.batch_execute("CHECKPOINT")?;
            let tables: Vec<&str> = LOCKED.split(", ").map(str::trim).collect();
            c.query(
                "WITH t AS (SELECT oid, reltoastrelid FROM pg_class
                            WHERE relname = ANY($1) AND relnamespace = current_schema()::regnamespace
                            UNION SELECT 'pg_statistic'::regclass, (SELECT reltoastrelid FROM pg_class
                                                                     WHERE oid = 'pg_statistic'::regclass)),
                      r AS (SELECT oid FROM t UNION SELECT reltoastrelid FROM t WHERE reltoastrelid <> 0
                            UNION SELECT indexrelid FROM pg_index
                                  WHERE indrelid IN (SELECT oid FROM t UNION SELECT reltoastrelid FROM t))
                 SELECT r.oid::regclass::text FROM r
                 WHERE position(convert_to($2, 'UTF8') IN pg_read_binary_file(pg_relation_filepath(r.oid))) > 0
                 ORDER BY 1",
                &[&tables, &NEEDLE],
            )
        })
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn rescrub_replaces_a_secret_everywhere_it_was_stored() {
        let dir = tempfile::tempdir().unwrap();
        let mut lite =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut pg = testing::fresh();
        lite.conn().execute_batch(&seed()).unwrap();
        pg.with(|c| c.batch_execute(&seed())).unwrap();
        // The planner's statistics sample column values: they hold the key too.
        pg.with(|c| c.batch_execute(&format!("ANALYZE {LOCKED}")))
            .unwrap();
        let before = files_holding_the_key(&pg);
        for held in ["memories", "memories_search", "pg_statistic"] {
            assert!(before.iter().any(|f| f == held), "{held} not in {before:?}");
        }

        let r = Redactor::builtin();
        let expected = Upkeep::rescrub(&mut lite, &r).unwrap();
        let got = pg.rescrub(&r).unwrap();
        // PostgreSQL redacts two rows more: the episode and the job, which SQLite leaves.
        assert_eq!(
            (got.memories, got.records, got.projects),
            (expected.memories, expected.records + 2, expected.projects)
        );
        assert_eq!(dump_pg(&pg), dump_sqlite(&lite));
        assert_eq!(
            pg.rescrub(&r).unwrap(),
            Rescrubbed {
                memories: 0,
                records: 0,
                projects: 0
            },
            "a second scrub changes nothing"
        );

        let readable: i64 = pg
            .with(|c| {
                let tables: Vec<&str> = LOCKED.split(", ").map(str::trim).collect();
                let mut n = 0;
                for t in tables {
                    n += c
                        .query_one(
                            &format!(
                                "SELECT count(*) FROM {t} AS t WHERE t::text LIKE '%' || $1 || '%'"
                            ),
                            &[&NEEDLE],
                        )?
                        .get::<_, i64>(0);
                }
                Ok(n)
            })
            .unwrap();
        assert_eq!(readable, 0, "a row still holds the key");
        assert_eq!(files_holding_the_key(&pg), Vec::<String>::new());
        assert_eq!(pg.quick_check().unwrap(), "ok");
    }
}
