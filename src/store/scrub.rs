//! Redacting again what the memories' own scrub (title, text, files) leaves: the tool and session
//! names memories, captures and the queue carry, rules (and their evidence), work-state lists,
//! facts and audit entries. `aletheia scrub` runs this after the memories, so a rule added to the
//! redaction rules reaches every stored type, as the gate does for new writes.

use super::{Store, StoreError};
use crate::redact::{Redact, Redactor};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Transaction, params_from_iter};

/// How a column's text is redacted: as free text, or as JSON (redacted so it stays JSON).
#[derive(Clone, Copy)]
enum Shape {
    Text,
    Json,
}

/// A table's text columns and how each is redacted.
type Columns = &'static [(&'static str, Shape)];

/// The text columns of each table, and the column that names a row.
const TABLES: &[(&str, &str, Columns)] = &[
    (
        "memories",
        "id",
        &[
            ("tool", Shape::Text),
            ("session_id", Shape::Text),
            ("edited_by", Shape::Text),
        ],
    ),
    ("captures", "rowid", &[("tool", Shape::Text)]),
    (
        "session_queue",
        "id",
        &[("session_id", Shape::Text), ("tool", Shape::Text)],
    ),
    (
        "rules",
        "id",
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
        "rowid",
        &[("name", Shape::Text), ("items", Shape::Json)],
    ),
    (
        "facts",
        "id",
        &[
            ("subject", Shape::Text),
            ("predicate", Shape::Text),
            ("object", Shape::Text),
        ],
    ),
    (
        "audit",
        "id",
        &[("reason", Shape::Text), ("actor", Shape::Text)],
    ),
    (
        "proposals",
        "id",
        &[
            ("args", Shape::Json),
            ("client", Shape::Text),
            ("summary", Shape::Text),
            ("reference", Shape::Text),
            ("why", Shape::Text),
            ("decided_by", Shape::Text),
            ("outcome", Shape::Json),
        ],
    ),
    ("client_trust", "rowid", &[("client", Shape::Text)]),
    (
        "memory_versions",
        "id",
        &[
            ("title", Shape::Text),
            ("text", Shape::Text),
            ("source", Shape::Text),
        ],
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

/// How many rows redacting everything again changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rescrubbed {
    pub memories: usize,
    /// Rules, work-state lists, facts, audit entries, and the tool and session names memories,
    /// captures and the queue carry.
    pub records: usize,
    /// Rows moved to their project's redacted key, or merged where two projects became one.
    pub projects: usize,
}

impl Store {
    /// Redact every memory, record and project key again with `r`, erasing what it replaced
    /// (see [`Store::erasing`]).
    pub fn rescrub(&mut self, r: &Redactor) -> Result<Rescrubbed, StoreError> {
        self.erasing(|store| {
            Ok(Rescrubbed {
                memories: store.scrub(|s| r.redact(s))?,
                records: store.scrub_records(r)?,
                projects: store.scrub_projects(r)?,
            })
        })
    }

    /// Run `scrub` so that what it replaces leaves the files too: SQLite zeroes the space of
    /// what it deletes or rewrites (`secure_delete`), the full-text index is rewritten into one
    /// segment (its old segments kept the replaced words), and the WAL, which held the pages
    /// as they were, is checkpointed and emptied. Otherwise anyone reading the file's bytes
    /// would still find the secret a scrub removed from every row.
    pub fn erasing<T, E: From<StoreError>>(
        &mut self,
        scrub: impl FnOnce(&mut Store) -> Result<T, E>,
    ) -> Result<T, E> {
        self.conn
            .pragma_update(None, "secure_delete", true)
            .map_err(|e| self.err(e))?;
        let out = scrub(self);
        let erase = |s: &mut Store| -> rusqlite::Result<()> {
            if out.is_ok() {
                s.conn.execute(
                    "INSERT INTO memories_fts (memories_fts) VALUES ('optimize')",
                    [],
                )?;
                // Answers with a row (busy, frames); a reader still open elsewhere only keeps
                // the WAL from shrinking now, and the next checkpoint writes over it.
                s.conn
                    .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            }
            s.conn.pragma_update(None, "secure_delete", false)
        };
        erase(self).map_err(|e| self.err(e))?;
        out
    }

    /// Move every row to its project's stored key (see [`super::rekey`]); returns how many rows
    /// moved or merged.
    pub fn scrub_projects(&mut self, r: &Redactor) -> Result<usize, StoreError> {
        self.write(|tx| super::rekey::rekey_projects(tx, r))
    }

    /// Redact those columns again; returns how many rows changed. A
    /// row that becomes identical to another under a unique key (two rules that differed only
    /// by a secret) is merged into it.
    pub fn scrub_records(&mut self, r: &Redactor) -> Result<usize, StoreError> {
        self.write(|tx| {
            let mut changed = 0;
            for (table, key, columns) in TABLES {
                changed += scrub_table(tx, table, key, columns, r)?;
            }
            Ok(changed)
        })
    }
}

fn scrub_table(
    tx: &Transaction<'_>,
    table: &str,
    key: &str,
    columns: &[(&str, Shape)],
    r: &Redactor,
) -> rusqlite::Result<usize> {
    let names: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
    let mut rewrites: Vec<(SqlValue, Vec<Option<String>>)> = Vec::new();
    {
        let mut stmt = tx.prepare(&format!("SELECT {key}, {} FROM {table}", names.join(", ")))?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: SqlValue = row.get(0)?;
            let mut any = false;
            let mut values = Vec::with_capacity(columns.len());
            for (i, (_, shape)) in columns.iter().enumerate() {
                let old: Option<String> = row.get(i + 1)?;
                let new = old.as_deref().map(|t| redact(r, *shape, t));
                any |= new != old;
                values.push(new);
            }
            if any {
                rewrites.push((id, values));
            }
        }
    }
    let sets: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{c} = ?{}", i + 2))
        .collect();
    let update = format!("UPDATE {table} SET {} WHERE {key} = ?1", sets.join(", "));
    for (id, values) in &rewrites {
        let mut args = vec![id.clone()];
        args.extend(
            values
                .iter()
                .map(|v| v.clone().map_or(SqlValue::Null, SqlValue::Text)),
        );
        match tx.execute(&update, params_from_iter(args)) {
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
                tx.execute(&format!("DELETE FROM {table} WHERE {key} = ?1"), [id])?;
            }
            other => {
                other?;
            }
        }
    }
    Ok(rewrites.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;

    #[test]
    fn rules_lists_facts_and_audit_are_redacted_again_and_twins_merge() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let key = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        // Rows as an older version, or a looser rule set, left them.
        s.conn()
            .execute_batch(&format!(
                "INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source, evidence, created_at, confirmed_at)
                   VALUES ('r_a', 'always', 'use {key}', 'everywhere', '', 'cli', '{{\"note\":\"{key}\"}}', 1, 1),
                          ('r_b', 'always', 'use [redacted:github-token]', 'everywhere', '', 'cli', '{{}}', 2, 2);
                 INSERT INTO work_lists (project, name, memory_id, items, updated_at)
                   VALUES ('shop', 'todo', 1, '[\"rotate {key}\",{{\"password\":\"hunter2hunter2\"}}]', 1);
                 INSERT INTO facts (project, subject, predicate, object, valid_from, created_at)
                   VALUES ('shop', 'ci', 'uses token', '{key}', 1, 1);
                 INSERT INTO audit (at, action, item_type, item_id, reason) VALUES (1, 'dismiss', 'memory', '1', 'leaked {key}');
                 INSERT INTO memory_versions (memory_id, version, title, text, source, written_at, replaced_at)
                   VALUES (1, 1, 'token', 'the old text had {key}', 'cli', 1, 2);"
            ))
            .unwrap();
        let r = Redactor::builtin();
        assert_eq!(s.scrub_records(&r).unwrap(), 5);
        assert_eq!(
            s.scrub_records(&r).unwrap(),
            0,
            "a second scrub changes nothing"
        );
        let all: String = s
            .conn()
            .query_row(
                "SELECT group_concat(t, ' | ') FROM (
                   SELECT then_text || evidence AS t FROM rules UNION ALL SELECT items FROM work_lists
                   UNION ALL SELECT object FROM facts UNION ALL SELECT reason FROM audit
                   UNION ALL SELECT text FROM memory_versions)",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert!(
            !all.contains(key) && !all.contains("hunter2hunter2"),
            "{all}"
        );
        let rules: i64 = s
            .conn()
            .query_row("SELECT count(*) FROM rules", [], |row| row.get(0))
            .unwrap();
        assert_eq!(
            rules, 1,
            "the rule that became identical to another merged into it"
        );
        let items: String = s
            .conn()
            .query_row("SELECT items FROM work_lists", [], |row| row.get(0))
            .unwrap();
        serde_json::from_str::<serde_json::Value>(&items).expect("the list is still JSON");
    }
}
