//! `aletheia hub migrate`: a SQLite hub copied into PostgreSQL, table by table, in batches that
//! each commit with a note of how far they got, so a copy that was stopped resumes where it
//! stopped and a batch is never copied twice. At the end each table's rows are counted on
//! both sides.
//!
//! The copy is generic over columns: each table's columns are read from PostgreSQL's catalogue
//! (its generated columns, the search vector and token count, are left to PostgreSQL), and
//! each SQLite value is bound as the type PostgreSQL declares, so SQLite's 0/1 flags arrive as
//! booleans. Ids are kept (facts, episodes and sync state refer to memories by id), and each
//! identity sequence is moved past the largest copied. The triggers that mark the hub's own
//! edits for sync are silenced for the copy (`aletheia.copying`), since the copied sync state
//! already says what travelled.

use super::PgStore;
use crate::store::{OpenOptions, Store, StoreError};
use postgres::types::{ToSql, Type};
use rusqlite::types::Value;
use std::path::Path;

/// Rows per batch: one transaction and one progress note each.
const BATCH: usize = 1000;

/// The tables copied, parents before the rows that refer to them. `facts.superseded_by` can
/// point at a later fact, so it is copied empty and filled in a second pass.
const TABLES: &[&str] = &[
    "memories",
    "memory_versions",
    "memory_files",
    "memory_links",
    "memory_feedback",
    "session_queue",
    "captures",
    "facts",
    "rules",
    "work_lists",
    "audit",
    "memory_vectors",
    "jobs",
    "extracted",
    "episodes",
    "fact_reviews",
    "provider_usage",
    "proposals",
    "client_trust",
    "history",
    "history_keys",
    "hub_tokens",
    "hub_audit",
    "sync_meta",
    "sync_dirty",
    "sync_revs",
    "sync_fact_uids",
    "sync_projects",
    "sync_aliases",
    "sync_machines",
    "sync_conflicts",
];

/// One table's outcome.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Copied {
    pub table: &'static str,
    /// Rows in the SQLite hub.
    pub source: i64,
    /// Rows copied by this run (0 when an earlier run had copied them all).
    pub copied: i64,
    /// Rows in PostgreSQL at the end.
    pub target: i64,
}

/// Why a migration could not finish.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "{0} is not a hub's store (it has no tokens table): give the file `aletheia hub --hub-db` serves"
    )]
    NotAHub(String),
    #[error(
        "{0} already holds a hub's memories: copy into a new, empty database (createdb), or run the hub on this one"
    )]
    NotEmpty(String),
    #[error(
        "after the copy, {table} has {target} rows in PostgreSQL and {source_rows} in the SQLite hub: was a hub writing to either while it ran? Stop the hubs and run it again"
    )]
    Counts {
        table: &'static str,
        source_rows: i64,
        target: i64,
    },
}

/// A column of a table on the PostgreSQL side.
struct Column {
    name: String,
    ty: Type,
}

impl PgStore {
    /// Copy the SQLite hub at `from` into this database; `each` hears each table as it ends.
    pub fn migrate_from(
        &self,
        from: &Path,
        each: &mut dyn FnMut(&Copied),
    ) -> Result<Vec<Copied>, MigrateError> {
        // Brings an older hub file to this version's schema, as the hub itself would.
        let source = Store::open_hub(from, OpenOptions::INTERACTIVE)?;
        let conn = source.connection();
        let is_hub = conn
            .query_row(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'hub_tokens'",
                [],
                |_| Ok(()),
            )
            .is_ok();
        if !is_hub {
            return Err(MigrateError::NotAHub(from.display().to_string()));
        }
        let name_of = std::fs::canonicalize(from)
            .unwrap_or_else(|_| from.to_owned())
            .display()
            .to_string();
        let name = name_of;
        self.refuse_another_hub(&name)?;
        let sqlite_err = |e: rusqlite::Error| StoreError::Engine {
            path: from.to_owned(),
            constraint: false,
            source: Box::new(e),
        };
        let mut out = Vec::new();
        for &table in TABLES {
            let columns = self.columns(table)?;
            let source_rows: i64 = conn
                .query_row(
                    &format!("SELECT count(*) FROM {table} {}", filter_of(table)),
                    [],
                    |r| r.get(0),
                )
                .map_err(sqlite_err)?;
            let mut done = self.progress(&name, table)?;
            let start = done;
            let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            let select = format!(
                "SELECT {} FROM {table} {} ORDER BY {} LIMIT ?1 OFFSET ?2",
                names.join(", "),
                filter_of(table),
                order_of(table)
            );
            let placeholders: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
            let insert = format!(
                "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT DO NOTHING",
                names.join(", "),
                placeholders.join(", ")
            );
            loop {
                let rows = read_batch(conn, &select, names.len(), done).map_err(sqlite_err)?;
                if rows.is_empty() {
                    break;
                }
                let n = i64::try_from(rows.len()).unwrap_or(i64::MAX);
                self.write(|tx| {
                    tx.batch_execute("SET LOCAL aletheia.copying = 'on'")?;
                    let stmt = tx.prepare(&insert)?;
                    for row in &rows {
                        let params = bind(row, &columns, table);
                        let refs: Vec<&(dyn ToSql + Sync)> = params
                            .iter()
                            .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                            .collect();
                        tx.execute(&stmt, &refs)?;
                    }
                    tx.execute(
                        "INSERT INTO hub_migration (source, part, done) VALUES ($1, $2, $3)
                         ON CONFLICT (source, part) DO UPDATE SET done = EXCLUDED.done",
                        &[&name, &table, &(done + n)],
                    )?;
                    Ok(())
                })?;
                done += n;
                crate::stall::at("migrate-batch");
            }
            if table == "facts" {
                self.link_superseded(conn, from)?;
            }
            let target: i64 = self.with(|c| {
                c.query_one(&format!("SELECT count(*) FROM {table}"), &[])
                    .map(|r| r.get(0))
            })?;
            let copied = Copied {
                table,
                source: source_rows,
                copied: done - start,
                target,
            };
            each(&copied);
            out.push(copied);
        }
        self.move_sequences()?;
        for c in &out {
            if c.source != c.target {
                return Err(MigrateError::Counts {
                    table: c.table,
                    source_rows: c.source,
                    target: c.target,
                });
            }
        }
        Ok(out)
    }

    /// A database that already holds a hub's memories is not copied into, unless they came
    /// from this same file (a copy being resumed): two hubs' ids would collide.
    fn refuse_another_hub(&self, source: &str) -> Result<(), MigrateError> {
        let (memories, resumed): (bool, bool) = self.with(|c| {
            let r = c.query_one(
                "SELECT EXISTS (SELECT 1 FROM memories),
                        EXISTS (SELECT 1 FROM hub_migration WHERE source = $1)",
                &[&source],
            )?;
            Ok((r.get(0), r.get(1)))
        })?;
        if memories && !resumed {
            return Err(MigrateError::NotEmpty(self.name().display().to_string()));
        }
        Ok(())
    }

    /// The table's columns that a copy writes (not the generated ones), in order.
    fn columns(&self, table: &str) -> Result<Vec<Column>, StoreError> {
        self.with(|c| {
            let rows = c.query(
                "SELECT a.attname, a.atttypid FROM pg_attribute a
                 WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped
                   AND a.attgenerated = ''
                 ORDER BY a.attnum",
                &[&table],
            )?;
            Ok(rows
                .iter()
                .map(|r| Column {
                    name: r.get(0),
                    ty: Type::from_oid(r.get(1)).unwrap_or(Type::TEXT),
                })
                .collect())
        })
    }

    /// How many rows of `table` earlier runs copied from `source`.
    fn progress(&self, source: &str, table: &str) -> Result<i64, StoreError> {
        self.with(|c| {
            c.query_opt(
                "SELECT done FROM hub_migration WHERE source = $1 AND part = $2",
                &[&source, &table],
            )
            .map(|r| r.map_or(0, |r| r.get(0)))
        })
    }

    /// The second pass over facts: each one's `superseded_by`, now that every fact is there.
    fn link_superseded(&self, conn: &rusqlite::Connection, from: &Path) -> Result<(), StoreError> {
        let sqlite_err = |e: rusqlite::Error| StoreError::Engine {
            path: from.to_owned(),
            constraint: false,
            source: Box::new(e),
        };
        let mut stmt = conn
            .prepare("SELECT id, superseded_by FROM facts WHERE superseded_by IS NOT NULL")
            .map_err(sqlite_err)?;
        let links: Vec<(i64, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(sqlite_err)?
            .collect::<Result<_, _>>()
            .map_err(sqlite_err)?;
        for chunk in links.chunks(BATCH) {
            let ids: Vec<i64> = chunk.iter().map(|l| l.0).collect();
            let by: Vec<i64> = chunk.iter().map(|l| l.1).collect();
            self.write(|tx| {
                tx.batch_execute("SET LOCAL aletheia.copying = 'on'")?;
                tx.execute(
                    "UPDATE facts f SET superseded_by = l.by
                     FROM unnest($1::bigint[], $2::bigint[]) AS l(id, by)
                     WHERE f.id = l.id AND f.superseded_by IS DISTINCT FROM l.by",
                    &[&ids, &by],
                )?;
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Move every identity sequence past the largest id copied, and the hub's sync sequence
    /// past the largest it handed out, so new rows never take a copied row's number; mark for
    /// sync the memories the SQLite hub had not stamped yet.
    fn move_sequences(&self) -> Result<(), StoreError> {
        self.write(|tx| {
            let identities = tx.query(
                "SELECT table_name::text, column_name::text FROM information_schema.columns
                 WHERE table_schema = current_schema() AND is_identity = 'YES'",
                &[],
            )?;
            for r in &identities {
                let (table, column): (String, String) = (r.get(0), r.get(1));
                tx.execute(
                    &format!(
                        "SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max({column}), 0) + 1, false) FROM {table}"
                    ),
                    &[&table, &column],
                )?;
            }
            tx.execute(
                "SELECT setval('sync_seq', coalesce(max(seq), 0) + 1, false) FROM sync_revs",
                &[],
            )?;
            // Memories the SQLite hub had not yet given a revision (saved through its tools
            // since its last sync) travel from here, as they would have from there.
            tx.execute(
                "INSERT INTO sync_new_memories (memory_id)
                 SELECT m.id FROM memories m
                 WHERE NOT EXISTS (SELECT 1 FROM sync_revs r WHERE r.kind = 'memory' AND r.key = m.uid)
                 ON CONFLICT DO NOTHING",
                &[],
            )?;
            Ok(())
        })
    }
}

/// The order a table is read in: by rowid where it has one, else by its primary key. The
/// source does not change while it is copied, so an offset into that order is a position.
fn order_of(table: &str) -> &'static str {
    match table {
        "memory_files" => "path, memory_id",
        "memory_links" => "older, newer",
        "provider_usage" => "day, provider",
        "sync_meta" | "sync_projects" => "1",
        "sync_dirty" | "sync_revs" => "kind, key",
        "sync_aliases" => "uid",
        "sync_machines" => "machine",
        "captures" => "tool",
        "rules" => "id",
        "work_lists" => "project, name",
        "history" => "arrival",
        "history_keys" => "machine",
        _ => "rowid",
    }
}

/// Which of a table's rows are the hub's to copy: of the histories, the entries it took from
/// machines and their keys. Its own chain (signed by its SQLite file's key, unnumbered) stays
/// with the file.
fn filter_of(table: &str) -> &'static str {
    match table {
        "history" => "WHERE arrival IS NOT NULL",
        "history_keys" => {
            "WHERE sync_machine <> ''
               OR machine IN (SELECT machine FROM history WHERE arrival IS NOT NULL)"
        }
        _ => "",
    }
}

/// Up to [`BATCH`] rows of `select` after the first `offset`.
fn read_batch(
    conn: &rusqlite::Connection,
    select: &str,
    width: usize,
    offset: i64,
) -> rusqlite::Result<Vec<Vec<Value>>> {
    let mut stmt = conn.prepare_cached(select)?;
    let rows = stmt.query_map(
        rusqlite::params![i64::try_from(BATCH).unwrap_or(i64::MAX), offset],
        |r| (0..width).map(|i| r.get::<_, Value>(i)).collect(),
    )?;
    rows.collect()
}

/// One SQLite row's values as the types PostgreSQL declares for them. `facts.superseded_by`
/// is left empty for the second pass.
fn bind(row: &[Value], columns: &[Column], table: &str) -> Vec<Box<dyn ToSql + Sync>> {
    row.iter()
        .zip(columns)
        .map(|(v, c)| -> Box<dyn ToSql + Sync> {
            if table == "facts" && c.name == "superseded_by" {
                return Box::new(None::<i64>);
            }
            match (v, &c.ty) {
                (Value::Null, t) if *t == Type::BOOL => Box::new(None::<bool>),
                (Value::Null, t) if *t == Type::INT8 => Box::new(None::<i64>),
                (Value::Null, t) if *t == Type::FLOAT8 => Box::new(None::<f64>),
                (Value::Null, t) if *t == Type::BYTEA => Box::new(None::<Vec<u8>>),
                (Value::Null, _) => Box::new(None::<String>),
                (Value::Integer(i), t) if *t == Type::BOOL => Box::new(*i != 0),
                (Value::Integer(i), t) if *t == Type::FLOAT8 =>
                {
                    #[allow(
                        clippy::cast_precision_loss,
                        reason = "a score stored as a whole number"
                    )]
                    Box::new(*i as f64)
                }
                (Value::Integer(i), t) if *t == Type::TEXT => Box::new(i.to_string()),
                (Value::Integer(i), _) => Box::new(*i),
                (Value::Real(f), _) => Box::new(*f),
                (Value::Text(s), _) => Box::new(s.clone()),
                (Value::Blob(b), _) => Box::new(b.clone()),
            }
        })
        .collect()
}
