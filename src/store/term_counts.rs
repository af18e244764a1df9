//! Per-row term counts from FTS5, so that recall can rank outside SQLite.
//!
//! FTS5's built-in `bm25()` finds each query term's document frequency by running that term over
//! the whole index, on every query: its cost grows with the store and with how common the words
//! are, not with the rows it scores (at a million memories it was most of a search). Recall ranks
//! in Rust instead, with document frequencies from a bounded window of recent rows. What it needs
//! from FTS5 for each candidate is what FTS5 already holds while it visits the row: how often
//! each phrase of the query occurs in the title and in the text, and the row's length. This
//! module registers that as the auxiliary function `aletheia_terms(memories_fts)`.
//!
//! Its value is a blob of little-endian u64: the index's row count, its total token count, the
//! row's token count (all columns, as `bm25()` counts it), then for each phrase of the query its
//! occurrences in column 0 (title) and column 1 (text).
//!
//! An optional second argument, a blob of ascending little-endian i64 rowids, limits the work to
//! those rows: any other row gets NULL without its counts being gathered. A search that already
//! knows which rows can still make its page walks a common word's matches this way at the cost
//! of the walk alone.

use super::fts5_api::{self, failure};
use rusqlite::{Connection, ffi};
use std::ffi::{c_int, c_void};
use std::ptr;

/// Register `aletheia_terms` on `conn`. FTS5 keeps the function until the connection closes;
/// registering it again would add a second entry, so callers do it once per connection.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: the API table is live while `conn` is, and used only within this call.
    unsafe {
        let api = fts5_api::api(conn)?;
        let Some(create) = (*api).xCreateFunction else {
            return Err(failure(ffi::SQLITE_ERROR, "this SQLite has no FTS5"));
        };
        let rc = create(
            api,
            c"aletheia_terms".as_ptr(),
            ptr::null_mut(),
            Some(term_counts),
            None,
        );
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "cannot register aletheia_terms"));
        }
    }
    Ok(())
}

/// The counts of one row, decoded from the function's blob.
#[derive(Debug, Clone, PartialEq)]
pub struct TermCounts {
    /// Rows in the whole index.
    pub index_rows: u64,
    /// Tokens in the whole index, all columns.
    pub index_tokens: u64,
    /// Tokens in this row, all columns.
    pub row_tokens: u64,
    /// Per query phrase: occurrences in the title and in the text.
    pub phrases: Vec<[u64; 2]>,
}

impl TermCounts {
    /// Decode the blob `aletheia_terms` returned; `None` if it is not one.
    pub fn decode(blob: &[u8]) -> Option<TermCounts> {
        if !blob.len().is_multiple_of(8)
            || blob.len() < 24
            || !(blob.len() / 8 - 3).is_multiple_of(2)
        {
            return None;
        }
        let words: Vec<u64> = blob
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8")))
            .collect();
        Some(TermCounts {
            index_rows: words[0],
            index_tokens: words[1],
            row_tokens: words[2],
            phrases: words[3..].chunks_exact(2).map(|p| [p[0], p[1]]).collect(),
        })
    }
}

/// The auxiliary function itself: called by FTS5 once per row it returns.
unsafe extern "C" fn term_counts(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_args: c_int,
    args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes a valid API table, context and `n_args` values for the call.
    if n_args >= 1 && unsafe { !wanted(api, fts, *args) } {
        // SAFETY: `ctx` is the live function context.
        unsafe { ffi::sqlite3_result_null(ctx) };
        return;
    }
    // SAFETY: FTS5 passes a valid API table and context for the duration of the call.
    let outcome = unsafe {
        api.as_ref()
            .map_or(Err(ffi::SQLITE_MISUSE), |a| collect(a, fts))
    };
    // SAFETY: `ctx` is the live function context; SQLITE_TRANSIENT makes SQLite copy the blob.
    unsafe {
        match outcome {
            Ok(words) => {
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                // The 64-bit length: SQLite answers SQLITE_TOOBIG past its limit, where an
                // `int` length could wrap negative.
                ffi::sqlite3_result_blob64(
                    ctx,
                    bytes.as_ptr().cast::<c_void>(),
                    bytes.len() as u64,
                    ffi::SQLITE_TRANSIENT(),
                );
            }
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// Whether the current row is among the rowids of `only` (NULL: every row is).
///
/// # Safety
/// `api`, `fts` and `only` must be what FTS5 passed to the function.
unsafe fn wanted(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    only: *mut ffi::sqlite3_value,
) -> bool {
    // SAFETY: per this function's contract; the blob stays valid until the value changes.
    unsafe {
        if ffi::sqlite3_value_type(only) != ffi::SQLITE_BLOB {
            return true;
        }
        let Some(rowid) = api.as_ref().and_then(|a| a.xRowid) else {
            return true;
        };
        let n = usize::try_from(ffi::sqlite3_value_bytes(only)).unwrap_or(0);
        let data = ffi::sqlite3_value_blob(only).cast::<u8>();
        if data.is_null() || n < 8 {
            return false;
        }
        let ids = std::slice::from_raw_parts(data, n);
        let id = rowid(fts);
        let at = |i: usize| i64::from_le_bytes(ids[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        let (mut lo, mut hi) = (0, n / 8);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match at(mid).cmp(&id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

/// The blob `aletheia_terms` takes as its second argument: `ids` ascending, little-endian.
pub fn rowid_set(ids: &mut [i64]) -> Vec<u8> {
    ids.sort_unstable();
    ids.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// Gather the row's counts through the extension API.
///
/// # Safety
/// `fts` must be the context FTS5 passed alongside `api`.
unsafe fn collect(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<Vec<u64>, c_int> {
    let ok = |rc: c_int| {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(rc)
        }
    };
    let (
        Some(phrase_count),
        Some(inst_count),
        Some(inst),
        Some(column_size),
        Some(row_count),
        Some(total_size),
    ) = (
        api.xPhraseCount,
        api.xInstCount,
        api.xInst,
        api.xColumnSize,
        api.xRowCount,
        api.xColumnTotalSize,
    )
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    // SAFETY: every call passes the context FTS5 gave us and pointers to locals.
    unsafe {
        let phrases = usize::try_from(phrase_count(fts)).unwrap_or(0);
        let mut words = vec![0u64; 3 + 2 * phrases];
        let mut rows: ffi::sqlite3_int64 = 0;
        ok(row_count(fts, &mut rows))?;
        let mut tokens: ffi::sqlite3_int64 = 0;
        ok(total_size(fts, -1, &mut tokens))?;
        let mut row_tokens: c_int = 0;
        ok(column_size(fts, -1, &mut row_tokens))?;
        // Counts: FTS5 never reports a negative one.
        words[0] = u64::try_from(rows).unwrap_or(0);
        words[1] = u64::try_from(tokens).unwrap_or(0);
        words[2] = u64::try_from(row_tokens).unwrap_or(0);
        let mut n: c_int = 0;
        ok(inst_count(fts, &mut n))?;
        for i in 0..n {
            let (mut phrase, mut col, mut off) = (0, 0, 0);
            ok(inst(fts, i, &mut phrase, &mut col, &mut off))?;
            if let (Ok(phrase), Ok(col)) = (usize::try_from(phrase), usize::try_from(col))
                && phrase < phrases
                && col < 2
            {
                words[3 + 2 * phrase + col] += 1;
            }
        }
        Ok(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(title, text, project, tokenize = 'porter unicode61');
             INSERT INTO t VALUES ('retry the worker', 'retrying with backoff; retry later', 'shop');
             INSERT INTO t VALUES ('cart', 'nothing here', 'shop');",
        )
        .unwrap();
        register(&conn).unwrap();
        conn
    }

    #[test]
    fn counts_each_phrase_per_column_with_the_row_length() {
        let conn = table();
        let blob: Vec<u8> = conn
            .query_row(
                "SELECT aletheia_terms(t) FROM t WHERE t MATCH '{title text} : (\"retry\" OR \"backoff\") AND project : shop'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let c = TermCounts::decode(&blob).unwrap();
        assert_eq!(c.index_rows, 2);
        assert_eq!(c.index_tokens, 3 + 5 + 1 + 1 + 2 + 1);
        assert_eq!(c.row_tokens, 3 + 5 + 1);
        // "retrying" stems to the same token as "retry"; the project phrase is counted in neither.
        assert_eq!(c.phrases, vec![[1, 2], [0, 1], [0, 0]]);
    }

    #[test]
    fn a_malformed_blob_is_refused() {
        assert_eq!(TermCounts::decode(&[0; 7]), None);
        assert_eq!(TermCounts::decode(&[0; 16]), None);
        assert_eq!(TermCounts::decode(&[0; 32]), None);
        assert!(TermCounts::decode(&[0; 24]).is_some());
    }
}
