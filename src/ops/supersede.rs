//! Supersession at save time: a memory just saved is compared with the older memories of its
//! project that share its words, and each one it replaces ([`crate::supersession::judge`]) is
//! marked as replaced by it. Runs where a person or an agent saves a note, never in the hook:
//! a captured prompt or tool event is compared later, by compression, through its facts.

use crate::model::{Kind, Memory};
use crate::recall::search::{SearchQuery, search};
use crate::store::{Storage, StoreError};

/// How many of the best keyword matches are compared: a memory a note replaces shares its
/// subject's words, so it ranks near the top of a search for the note's own text.
const COMPARED: usize = 20;

/// How much of the note's text the search for older memories reads.
const QUERY_CHARS: usize = 1_000;

/// Mark every older memory of `m`'s project that `m` replaces, at `now`: their ids. A memory
/// that only records what happened (a prompt, a tool event) replaces nothing.
pub(crate) fn link_replaced(
    store: &mut dyn Storage,
    m: &Memory,
    now: i64,
) -> Result<Vec<i64>, StoreError> {
    if matches!(m.kind, Kind::Event | Kind::Prompt) {
        return Ok(Vec::new());
    }
    let q = SearchQuery {
        // The opening of a long note names its subject; all of it would cost a search of
        // hundreds of words.
        query: Some(crate::model::cut_chars(&m.text, QUERY_CHARS)),
        project: Some(m.project.clone()),
        limit: COMPARED,
        ..SearchQuery::default()
    };
    let older: Vec<Memory> = search(store, &q)?
        .hits
        .into_iter()
        .map(|h| h.memory)
        .filter(|o| {
            o.id != m.id
                && o.created_at <= m.created_at
                // Raw captures are not statements, and a session's summary holds many: one
                // changed sentence does not replace the rest.
                && !matches!(o.kind, Kind::Event | Kind::Prompt | Kind::Summary)
        })
        .collect();
    let mut replaced = Vec::new();
    for o in older {
        if let Some(cause) = crate::supersession::judge_in(&o.text, &m.text, &m.project)
            && store.link_superseded(o.id, m.id, cause, now)?
        {
            replaced.push(o.id);
        }
    }
    Ok(replaced)
}
