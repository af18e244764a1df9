//! A pull: the items after a machine's cursor in the hub's sequence, read a chunk of rows at
//! a time in one snapshot, as SQLite's `sync_changes_since` serves them.

use super::Tx;
use super::items::{Found, read_items};
use super::projects::named;
use crate::store::sync::hub_rules::{MAX_PULL_BYTES, allowed_item};
use crate::sync::item::{Batch, Change};
use postgres::Error;
use std::collections::{BTreeMap, HashMap};

/// How many sequence rows a pull reads items for at once: one query per kind each time, and
/// little read past the 8 MiB cap.
const PULL_CHUNK: usize = 256;

/// Up to `limit` items after `after` in the hub's sequence, as SQLite's `sync_changes_since`
/// serves them, read in one snapshot.
pub(super) fn serve(
    tx: &mut Tx<'_, '_>,
    after: i64,
    limit: usize,
    machine: &str,
    allowed: &dyn Fn(&str) -> bool,
) -> Result<(Batch, i64, i64), Error> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows: Vec<(String, String, String, String, i64)> = tx
        .query(
            "SELECT kind, key, rev, origin, seq FROM sync_revs WHERE seq > $1 ORDER BY seq LIMIT $2",
            &[&after, &limit],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    let mut batch = Batch::default();
    let mut next = after;
    let mut bytes = 0;
    'rows: for chunk in rows.chunks(PULL_CHUNK) {
        let mut wanted: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (kind, key, _, origin, _) in chunk {
            if origin != machine {
                wanted.entry(kind).or_default().push(key.clone());
            }
        }
        let mut found: HashMap<(String, String), Found> = HashMap::new();
        for (kind, keys) in wanted {
            for (key, item) in read_items(tx, kind, &keys)? {
                found.insert((kind.to_owned(), key), item);
            }
        }
        for (kind, key, rev, origin, seq) in chunk {
            if bytes >= MAX_PULL_BYTES {
                break 'rows;
            }
            next = *seq;
            if origin == machine {
                continue;
            }
            let Some((local, owner)) = found.remove(&(kind.clone(), key.clone())) else {
                continue;
            };
            if !allowed_item(&local, owner.as_deref(), allowed) {
                continue;
            }
            let item = named(tx, local, &mut batch.projects)?;
            bytes += serde_json::to_string(&item).map_or(0, |s| s.len());
            batch.changes.push(Change {
                rev: rev.clone(),
                base: None,
                origin: origin.clone(),
                item,
            });
        }
    }
    let left = tx
        .query_one("SELECT count(*) FROM sync_revs WHERE seq > $1", &[&next])?
        .get(0);
    Ok((batch, next, left))
}
