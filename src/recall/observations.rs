//! Observations: the full record of memories by id: title, project, time, source, the text,
//! the facts drawn from it and the files it touched.

use crate::store::{Store, StoreError};

/// The full text of each known id, newest first, separated by `---`; unknown ids are skipped.
pub fn render(store: &Store, ids: &[i64]) -> Result<Option<String>, StoreError> {
    let mut found = store.get_many(ids)?;
    found.retain(|m| !m.dismissed);
    if found.is_empty() {
        return Ok(None);
    }
    found.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    let n = super::wrap::neutralise;
    let mut parts = Vec::new();
    for m in &found {
        let mut s = format!(
            "#{} [{}] {}\n{} · {} · source: {}{}\n{}",
            m.id,
            m.mtype,
            n(&m.title),
            n(&m.project),
            crate::time::iso(m.created_at),
            n(&m.tool),
            if m.pinned { " · pinned" } else { "" },
            n(&m.text)
        );
        let facts = super::facts::for_memory(store, m.id)?;
        if !facts.is_empty() {
            s.push_str("\nFacts:");
            for f in facts {
                s.push_str(&format!("\n- {}", f.line()));
            }
        }
        if !m.files.is_empty() {
            s.push_str(&format!("\nFiles: {}", n(&m.files.join(", "))));
        }
        parts.push(s);
    }
    Ok(Some(parts.join("\n---\n")))
}
