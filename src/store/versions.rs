//! A memory's earlier texts: an edit of a note (`aletheia edit`, the dashboard, the REST API)
//! keeps the title and text it replaces as a version, with who wrote it and when, so
//! `aletheia inspect` can show how a memory came to say what it says. The memory row names who
//! wrote its current text (`edited_by`, `edited_at`; the tool that stored it and its creation
//! time until someone edits it).
//!
//! Kept by the code that edits rather than by a trigger: redacting the store again rewrites
//! texts too, and a trigger would keep the unredacted text it replaced as a version. For the
//! same reason a text pulled by sync or brought by an import replaces the memory's without a
//! version here: it may be another machine's scrub of a secret, which a version would keep.
//! Versions stay on the machine where the edit was made.

use super::{Store, StoreError};
use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;

/// One text a memory held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryVersion {
    /// From 1, the text it was stored with.
    pub version: i64,
    pub title: String,
    pub text: String,
    /// Who wrote it: the tool or client that stored or edited it.
    pub source: String,
    /// `original` for the text it was stored with, `edit` for a later one.
    pub classification: &'static str,
    pub written_at: i64,
    /// When the next version replaced it; `None` for the current text.
    pub replaced_at: Option<i64>,
}

impl MemoryVersion {
    pub fn classify(version: i64) -> &'static str {
        if version == 1 { "original" } else { "edit" }
    }
}

/// The memory's text as it stands: (title, text, who wrote it, when).
type Current = (String, String, String, i64);

fn current(tx: &rusqlite::Connection, id: i64) -> rusqlite::Result<Option<Current>> {
    tx.prepare_cached(
        "SELECT title, text, ifnull(edited_by, tool), ifnull(edited_at, created_at)
         FROM memories WHERE id = ?1",
    )?
    .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
    .optional()
}

/// Replace memory `id`'s title and text, written by `by` at `at`, keeping the text it held as
/// a version; nothing when they are the same. Whether the memory changed; text another memory
/// of its project holds already is a constraint error, as any clash with stored data.
pub(super) fn edit(
    tx: &Transaction<'_>,
    id: i64,
    title: &str,
    text: &str,
    by: &str,
    at: i64,
) -> rusqlite::Result<bool> {
    let Some((old_title, old_text, source, written_at)) = current(tx, id)? else {
        return Ok(false);
    };
    if old_title == title && old_text == text {
        return Ok(false);
    }
    let changed = tx
        .prepare_cached(
            "UPDATE memories SET title = ?2, text = ?3, content_hash = ?4,
                 edited_by = ?5, edited_at = ?6 WHERE id = ?1",
        )?
        .execute(params![
            id,
            title,
            text,
            super::content_hash(title, text),
            by,
            at
        ])?;
    if changed == 0 {
        return Ok(false);
    }
    tx.prepare_cached(
        "INSERT INTO memory_versions (memory_id, version, title, text, source, written_at, replaced_at)
         VALUES (?1, (SELECT ifnull(max(version), 0) + 1 FROM memory_versions WHERE memory_id = ?1),
                 ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![id, old_title, old_text, source, written_at, at])?;
    Ok(true)
}

impl Store {
    /// When this store took memory `id` in.
    pub fn stored_at(&self, id: i64) -> Result<Option<i64>, StoreError> {
        self.conn
            .prepare_cached("SELECT stored_at FROM memories WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    /// Every text memory `id` held, the current one first; empty when there is no such memory.
    pub fn memory_versions(&self, id: i64) -> Result<Vec<MemoryVersion>, StoreError> {
        let err = |e| self.err(e);
        // One snapshot for both reads: an edit between them would show its text twice.
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let earlier: Vec<MemoryVersion> = tx
            .prepare_cached(
                "SELECT version, title, text, source, written_at, replaced_at FROM memory_versions
                 WHERE memory_id = ?1 ORDER BY version DESC, id DESC",
            )
            .map_err(err)?
            .query_map([id], |r| {
                let version: i64 = r.get(0)?;
                Ok(MemoryVersion {
                    version,
                    title: r.get(1)?,
                    text: r.get(2)?,
                    source: r.get(3)?,
                    classification: MemoryVersion::classify(version),
                    written_at: r.get(4)?,
                    replaced_at: Some(r.get(5)?),
                })
            })
            .map_err(err)?
            .collect::<Result<_, _>>()
            .map_err(err)?;
        let now = current(&tx, id).map_err(err)?;
        let Some((title, text, source, written_at)) = now else {
            return Ok(Vec::new());
        };
        let version = earlier.first().map_or(1, |v| v.version + 1);
        let mut all = vec![MemoryVersion {
            version,
            title,
            text,
            source,
            classification: MemoryVersion::classify(version),
            written_at,
            replaced_at: None,
        }];
        all.extend(earlier);
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Kind, MemoryType, NewMemory};
    use crate::redact::{Redacted, Redactor};
    use crate::store::{OpenOptions, Store};

    fn note(text: &str) -> Redacted<NewMemory> {
        let m = NewMemory {
            project: "shop".into(),
            kind: Kind::Note,
            mtype: MemoryType::Note,
            title: "deploy key".into(),
            text: text.into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: 1,
        };
        Redacted::new(m, &Redactor::builtin())
    }

    /// Two memories that a scrub makes one: the twin's earlier texts follow the kept memory's
    /// own, numbered on from them, and none of them keeps the secret.
    #[test]
    fn a_merged_twins_versions_are_numbered_after_the_kept_memorys() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let key = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
        let a = s.insert(&note("first draft")).unwrap().id;
        s.replace_text(a, &note("the key is here"), 10).unwrap();
        // As an older version, or looser rules, left it: the key in the text.
        s.conn()
            .execute(
                "UPDATE memories SET text = ?2 WHERE id = ?1",
                rusqlite::params![a, format!("the key is {key}")],
            )
            .unwrap();
        let b = s.insert(&note("second draft")).unwrap().id;
        s.replace_text(b, &note("the key is [redacted:github-token]"), 20)
            .unwrap();
        let r = Redactor::builtin();
        s.rescrub(&r).unwrap();
        let kept = if s.get_many(&[a]).unwrap().is_empty() {
            b
        } else {
            a
        };
        let versions = s.memory_versions(kept).unwrap();
        let numbers: Vec<i64> = versions.iter().map(|v| v.version).collect();
        assert_eq!(numbers, [3, 2, 1], "{versions:?}");
        assert!(
            versions.iter().all(|v| !v.text.contains(key)),
            "{versions:?}"
        );
    }
}
