//! Timeline: the memories just before and after one memory, in time order.

use super::search::{SearchQuery, search};
use crate::model::Memory;
use crate::store::{COLUMNS, Store, StoreError, from_row};
use rusqlite::params;

/// What to anchor on and how far to look.
#[derive(Debug, Clone, Default)]
pub struct TimelineQuery {
    pub anchor: Option<i64>,
    pub query: Option<String>,
    pub project: Option<String>,
    pub before: usize,
    pub after: usize,
}

/// The rows in time order and which one is the anchor; `None` when nothing matches.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Timeline {
    pub rows: Vec<Memory>,
    pub anchor: i64,
}

/// Build a timeline.
pub fn timeline(store: &Store, q: &TimelineQuery) -> Result<Option<Timeline>, StoreError> {
    let anchor = match (q.anchor, q.query.as_deref()) {
        (Some(id), _) => store
            .get_many(&[id])?
            .into_iter()
            .find(|m| !m.dismissed && q.project.as_ref().is_none_or(|p| *p == m.project)),
        (None, Some(text)) if !text.trim().is_empty() => search(
            store,
            &SearchQuery {
                query: Some(text.to_owned()),
                project: q.project.clone(),
                limit: 1,
                ..Default::default()
            },
        )?
        .hits
        .into_iter()
        .next()
        .map(|h| h.memory),
        _ => None,
    };
    let Some(anchor) = anchor else {
        return Ok(None);
    };
    let side = |sql: &str, n: usize| -> Result<Vec<Memory>, StoreError> {
        let mut stmt = store.conn().prepare_cached(sql).map_err(|e| store.err(e))?;
        let rows = stmt
            .query_map(
                params![anchor.created_at, anchor.id, q.project, n as i64],
                from_row,
            )
            .map_err(|e| store.err(e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| store.err(e))
    };
    let mut before = side(
        &format!(
            "SELECT {COLUMNS} FROM memories WHERE dismissed = 0 AND (?3 IS NULL OR project = ?3)
               AND (created_at < ?1 OR (created_at = ?1 AND id < ?2))
             ORDER BY created_at DESC, id DESC LIMIT ?4"
        ),
        q.before,
    )?;
    let after = side(
        &format!(
            "SELECT {COLUMNS} FROM memories WHERE dismissed = 0 AND (?3 IS NULL OR project = ?3)
               AND (created_at > ?1 OR (created_at = ?1 AND id > ?2))
             ORDER BY created_at, id LIMIT ?4"
        ),
        q.after,
    )?;
    before.reverse();
    let id = anchor.id;
    before.push(anchor);
    before.extend(after);
    Ok(Some(Timeline {
        rows: before,
        anchor: id,
    }))
}
