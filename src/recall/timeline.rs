//! Timeline: the memories just before and after one memory, in time order.

use super::search::{SearchQuery, ranked};
use crate::embed::semantic::Semantic;
use crate::model::Memory;
use crate::store::{Storage, StoreError};

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

/// Build a timeline. A query finds its anchor as `search` would rank it: by words and, when
/// the model is loaded (`semantic`), by meaning too.
pub fn timeline(
    store: &dyn Storage,
    q: &TimelineQuery,
    semantic: Option<&Semantic>,
) -> Result<Option<Timeline>, StoreError> {
    let anchor = match (q.anchor, q.query.as_deref()) {
        (Some(id), _) => store
            .get_many(&[id])?
            .into_iter()
            .find(|m| !m.dismissed && q.project.as_ref().is_none_or(|p| *p == m.project)),
        (None, Some(text)) if !text.trim().is_empty() => ranked(
            store,
            &SearchQuery {
                query: Some(text.to_owned()),
                project: q.project.clone(),
                limit: 1,
                ..Default::default()
            },
            semantic,
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
    let (mut before, after) =
        store.memories_around(&anchor, q.project.as_deref(), q.before, q.after)?;
    let id = anchor.id;
    before.push(anchor);
    before.extend(after);
    Ok(Some(Timeline {
        rows: before,
        anchor: id,
    }))
}
