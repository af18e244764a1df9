//! Reading a memory's row: the columns every part that returns memories selects, and their
//! mapping, written once.

use crate::model::{Kind, Memory, MemoryType};
use postgres::Row;

/// The columns [`memory`] reads, in its order; `m.` qualifies them for joins.
pub(in crate::store) const MEMORY_COLUMNS: &str = "m.id, m.uid, m.project, m.kind, m.type, m.title, m.text, m.tool, \
     m.session_id, m.files, m.pinned, m.dismissed, m.created_at";

/// A memory from a row that selected [`MEMORY_COLUMNS`] first.
pub(in crate::store) fn memory(r: &Row) -> Memory {
    let kind: &str = r.get(3);
    let mtype: &str = r.get(4);
    let files: &str = r.get(9);
    Memory {
        id: r.get(0),
        uid: r.get(1),
        project: r.get(2),
        kind: kind.parse().unwrap_or(Kind::Note),
        mtype: mtype.parse().unwrap_or(MemoryType::Note),
        title: r.get(5),
        text: r.get(6),
        host: r.get(7),
        session_id: r.get(8),
        files: serde_json::from_str(files).unwrap_or_default(),
        pinned: r.get(10),
        dismissed: r.get(11),
        created_at: r.get(12),
    }
}
