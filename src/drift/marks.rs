//! What recall says about stale memories: the files a memory names, and the mark its line
//! carries when one of them changed after it or went away.

use super::{Checker, Drift, paths_in_text};
use crate::model::Memory;
use std::collections::HashMap;
use std::path::Path;

/// The most paths of one memory checked: its `files` first, then those its words name.
const PATHS_MAX: usize = 20;

/// The most changes a mark names; the rest are counted.
const NAMED_MAX: usize = 2;

/// The files a memory names: its `files` list, then the paths in its title and text.
pub fn named_paths(m: &Memory) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let words = format!("{}\n{}", m.title, m.text);
    for p in m.files.iter().cloned().chain(paths_in_text(&words)) {
        if out.len() == PATHS_MAX {
            break;
        }
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// `stale: src/checkout.rs changed 2 days later; web/app.tsx was deleted (and 1 more)`.
pub fn mark(drifts: &[Drift], written_at_ms: i64) -> String {
    let named: Vec<String> = drifts
        .iter()
        .take(NAMED_MAX)
        .map(|d| d.describe(written_at_ms))
        .collect();
    let more = drifts.len().saturating_sub(NAMED_MAX);
    let more = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    format!("stale: {}{more}", named.join("; "))
}

/// For each of `memories` whose named files drifted in the project at `root`, its mark, by
/// memory id. One checker, one look at the history, for all of them.
pub fn stale_marks<'m>(
    root: &Path,
    memories: impl IntoIterator<Item = &'m Memory>,
) -> HashMap<i64, String> {
    let named: Vec<(&Memory, Vec<String>)> = memories
        .into_iter()
        .map(|m| (m, named_paths(m)))
        .filter(|(_, paths)| !paths.is_empty())
        .collect();
    if named.is_empty() {
        return HashMap::new();
    }
    let asks: Vec<(i64, &[String])> = named
        .iter()
        .map(|(m, paths)| (m.created_at, paths.as_slice()))
        .collect();
    let found = Checker::new(root).check_many(&asks);
    named
        .iter()
        .zip(found)
        .filter(|(_, drifts)| !drifts.is_empty())
        .map(|((m, _), drifts)| (m.id, mark(&drifts, m.created_at)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drift::{Change, How};
    use crate::model::{Kind, MemoryType};

    fn memory(files: &[&str], text: &str) -> Memory {
        Memory {
            id: 7,
            uid: "u".into(),
            project: "shop".into(),
            kind: Kind::Observation,
            mtype: MemoryType::Note,
            title: "Edit".into(),
            text: text.into(),
            host: "claude-code".into(),
            session_id: None,
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            pinned: false,
            dismissed: false,
            created_at: 0,
        }
    }

    #[test]
    fn a_memory_names_its_files_then_the_paths_in_its_words_once_each() {
        let m = memory(
            &["/home/dev/shop/src/checkout.rs"],
            "the bug is in src/cart.rs, not /home/dev/shop/src/checkout.rs",
        );
        assert_eq!(
            named_paths(&m),
            vec!["/home/dev/shop/src/checkout.rs", "src/cart.rs"]
        );
    }

    #[test]
    fn a_mark_names_two_changes_and_counts_the_rest() {
        let drift = |p: &str, change| Drift {
            path: p.into(),
            change,
        };
        let day = 86_400_000;
        let drifts = vec![
            drift(
                "src/checkout.rs",
                Change::Changed {
                    at_ms: 2 * day,
                    how: How::Commit("abc1234".into()),
                },
            ),
            drift("web/app.tsx", Change::Deleted),
            drift("README.md", Change::Deleted),
        ];
        assert_eq!(
            mark(&drifts, 0),
            "stale: src/checkout.rs changed 2 days later; web/app.tsx was deleted (and 1 more)"
        );
    }
}
