//! Just-in-time recall: as the agent is about to read or edit a file, the few memories about
//! that file this session has not been told yet.
//!
//! It runs in the hook, on every such tool call, so it does only what is cheap: an indexed
//! lookup of the memories that touched each file (the paths hosts record with tool events), a
//! check of what the session was already told, and one small write recording what it tells
//! now. Nothing is said when nothing is new, so most calls add nothing to the agent's context.

use crate::model::{Kind, Memory};
use crate::recall::provenance;
use crate::recall::wrap::{neutralise, wrap};
use crate::store::search::{DateOrder, FileMatch, Filter};
use crate::store::{Store, StoreError};

/// The most memories told about one tool call.
pub const MAX_LINES: usize = 3;

/// How many of each file's newest memories are looked at.
const LOOKED_AT: usize = 20;

/// What to tell the agent about `paths` in `project`, if anything is new to `session`; the
/// memories told are recorded, so the session is not told them again.
pub fn about_files(
    store: &mut Store,
    project: &str,
    session: Option<&str>,
    paths: &[String],
    now: i64,
) -> Result<Option<String>, StoreError> {
    let filter = Filter {
        project: Some(project),
        mtype: None,
        kind: None,
        since: None,
        until: None,
    };
    let mut found: Vec<Memory> = Vec::new();
    for path in paths {
        let file = FileMatch {
            path,
            suffix: false,
        };
        for m in store.touching_file(file, &filter, DateOrder::NewestFirst, LOOKED_AT, 0)? {
            // What this session itself did is in its context already (and the tool call that
            // runs this hook may just have been stored).
            let own = session.is_some() && m.session_id.as_deref() == session;
            if !own && !found.iter().any(|f| f.id == m.id) {
                found.push(m);
            }
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    // What people said and decided before the raw record of earlier tool calls; newest first
    // within each.
    found.sort_by_key(|m| {
        (
            matches!(m.kind, Kind::Event | Kind::Observation),
            -m.created_at,
            -m.id,
        )
    });
    let ids: Vec<i64> = found.iter().map(|m| m.id).collect();
    let new = match session {
        Some(s) => store.untold(s, &ids)?,
        None => ids,
    };
    let told: Vec<&Memory> = found
        .iter()
        .filter(|m| new.contains(&m.id))
        .take(MAX_LINES)
        .collect();
    if told.is_empty() {
        return Ok(None);
    }
    if let Some(s) = session {
        // A store too busy to record it still lets the agent hear it: telling twice is the
        // smaller harm than saying nothing.
        let ids: Vec<i64> = told.iter().map(|m| m.id).collect();
        let _ = store.tell(s, &ids, now, false);
    }
    let names: Vec<&str> = paths
        .iter()
        .map(|p| p.rsplit('/').next().unwrap_or(p))
        .collect();
    let mut lines = vec![format!("Remembered about {}:", names.join(", "))];
    lines.extend(told.iter().map(|m| {
        format!(
            "- #{} [{}] {} ({})",
            m.id,
            m.mtype,
            m.title.replace('\n', " "),
            provenance::brief(m, now)
        )
    }));
    Ok(Some(wrap(&neutralise(&lines.join("\n")))))
}

/// The memory ids a session-start block lists (its `- #ID` lines), to record as told.
pub fn listed_in(block: &str) -> Vec<i64> {
    block
        .lines()
        .filter_map(|l| l.strip_prefix("- #"))
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_blocks_memory_lines_are_read_back_and_nothing_else() {
        let block = "# Memory for shop\n## Pinned\n- #12 2026-11-01T10:00 [note] x (note by cli, 3 weeks ago)\n## Facts\n- cache ttl 30 s (confidence 0.80)\n## Rules\n- When always: test\n### 2026-11-02\n- #7 10:00 [note] y";
        assert_eq!(super::listed_in(block), vec![12, 7]);
    }
}
