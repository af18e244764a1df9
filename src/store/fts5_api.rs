//! FTS5's C API, reached from a connection: for registering auxiliary functions
//! (`term_counts`) and for running the store's own tokenizer outside a query (`keyword_index`).
//!
//! A search index kept in memory must split text into exactly the tokens FTS5 indexed, with the
//! same stemming, case folding and diacritics rules and the same lengths, or its scores drift
//! from the index's. Rather than copy those rules, it runs FTS5's tokenizer itself: the one the
//! schema names, found by name through `fts5_api.xFindTokenizer`.

use rusqlite::{Connection, ffi};
use std::ffi::{CString, c_char, c_int, c_void};
use std::ptr;

/// The connection's FTS5 API table. It belongs to the connection and lives as long as it.
///
/// # Safety
/// The pointer must not be used after `conn` closes.
pub(crate) unsafe fn api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    // SAFETY: the handle is live for as long as `conn`; the statement is finalized before
    // returning; `api` is written by FTS5 during the step and is owned by the connection.
    unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "cannot reach the FTS5 API"));
        }
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        if api.is_null() {
            return Err(failure(ffi::SQLITE_ERROR, "this SQLite has no FTS5"));
        }
        Ok(api)
    }
}

pub(crate) fn failure(rc: c_int, what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(what.to_owned()))
}

/// FTS5 keeps at most this many bytes of a token, in the index and in a query alike
/// (`FTS5_MAX_TOKEN_SIZE`): a longer run of letters is indexed by its first 32 KiB.
const MAX_TOKEN_BYTES: usize = 32_768;

/// Why text is tokenized: FTS5 tells its tokenizers, which may split a query differently.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Purpose {
    Document,
    Query,
}

/// One instance of an FTS5 tokenizer, with the connection that owns the module it came from.
pub(crate) struct Tokenizer {
    instance: *mut ffi::Fts5Tokenizer,
    module: ffi::fts5_tokenizer,
    /// Closed after `drop` deletes the instance: the tokenizer's module belongs to it.
    _owner: Connection,
}

// SAFETY: the instance and the connection are only used through `&mut self` (one thread at a
// time); neither refers to thread-local state.
unsafe impl Send for Tokenizer {}

impl Tokenizer {
    /// The tokenizer `name` with its arguments, as a table's `tokenize = '…'` option spells
    /// them (`porter unicode61 remove_diacritics 2`), on a private in-memory connection.
    pub(crate) fn new(spec: &str) -> rusqlite::Result<Tokenizer> {
        let owner = Connection::open_in_memory()?;
        let mut words = spec.split_whitespace();
        let name = CString::new(words.next().unwrap_or("unicode61"))
            .map_err(|_| failure(ffi::SQLITE_MISUSE, "a tokenizer name holds a NUL"))?;
        let args: Vec<CString> = words
            .map(CString::new)
            .collect::<Result<_, _>>()
            .map_err(|_| failure(ffi::SQLITE_MISUSE, "a tokenizer argument holds a NUL"))?;
        let mut argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: `api` is live while `owner` is; the name and arguments outlive the calls;
        // `module` and `instance` are written by FTS5.
        unsafe {
            let api = api(&owner)?;
            let find = (*api)
                .xFindTokenizer
                .ok_or_else(|| failure(ffi::SQLITE_ERROR, "this FTS5 cannot find tokenizers"))?;
            let mut user: *mut c_void = ptr::null_mut();
            let mut module: ffi::fts5_tokenizer = std::mem::zeroed();
            let rc = find(api, name.as_ptr(), &mut user, &mut module);
            if rc != ffi::SQLITE_OK {
                return Err(failure(rc, "FTS5 has no such tokenizer"));
            }
            let create = module
                .xCreate
                .ok_or_else(|| failure(ffi::SQLITE_ERROR, "the tokenizer cannot be created"))?;
            let mut instance: *mut ffi::Fts5Tokenizer = ptr::null_mut();
            let n = c_int::try_from(argv.len()).unwrap_or(c_int::MAX);
            let rc = create(user, argv.as_mut_ptr(), n, &mut instance);
            if rc != ffi::SQLITE_OK || instance.is_null() {
                return Err(failure(rc, "the tokenizer refused its arguments"));
            }
            Ok(Tokenizer {
                instance,
                module,
                _owner: owner,
            })
        }
    }

    /// Each token of `text` in order, as FTS5 would store it (at most 32 KiB of it), with
    /// whether it takes a position of its own (a colocated synonym does not, and is not counted
    /// in a row's length).
    pub(crate) fn tokens(
        &mut self,
        text: &str,
        purpose: Purpose,
        each: &mut dyn FnMut(&[u8], bool),
    ) -> rusqlite::Result<()> {
        let Some(tokenize) = self.module.xTokenize else {
            return Err(failure(ffi::SQLITE_MISUSE, "the tokenizer cannot tokenize"));
        };
        let flags = match purpose {
            Purpose::Document => ffi::FTS5_TOKENIZE_DOCUMENT,
            Purpose::Query => ffi::FTS5_TOKENIZE_QUERY,
        };
        let n = c_int::try_from(text.len())
            .map_err(|_| failure(ffi::SQLITE_TOOBIG, "text too long to tokenize"))?;
        let mut each = each;
        // SAFETY: `instance` came from this module's xCreate; the callback context is `each`,
        // alive for the whole call; FTS5 passes token pointers valid during the callback.
        let rc = unsafe {
            tokenize(
                self.instance,
                (&mut each as *mut &mut dyn FnMut(&[u8], bool)).cast::<c_void>(),
                flags,
                text.as_ptr().cast::<c_char>(),
                n,
                Some(one_token),
            )
        };
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(failure(rc, "the tokenizer failed"))
        }
    }
}

/// The tokenizer's callback: hands the token to the closure behind `ctx`.
unsafe extern "C" fn one_token(
    ctx: *mut c_void,
    flags: c_int,
    token: *const c_char,
    n: c_int,
    _start: c_int,
    _end: c_int,
) -> c_int {
    // SAFETY: `ctx` is the `&mut dyn FnMut` `tokens` passed; `token` holds `n` bytes.
    unsafe {
        let each = &mut *ctx.cast::<&mut dyn FnMut(&[u8], bool)>();
        let len = usize::try_from(n).unwrap_or(0).min(MAX_TOKEN_BYTES);
        let bytes = if token.is_null() || len == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(token.cast::<u8>(), len)
        };
        each(bytes, flags & ffi::FTS5_TOKEN_COLOCATED == 0);
    }
    ffi::SQLITE_OK
}

impl Drop for Tokenizer {
    fn drop(&mut self) {
        if let Some(delete) = self.module.xDelete {
            // SAFETY: the instance came from this module's xCreate and is deleted once.
            unsafe { delete(self.instance) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(t: &mut Tokenizer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        t.tokens(text, Purpose::Document, &mut |tok, _| {
            out.push(String::from_utf8_lossy(tok).into_owned());
        })
        .unwrap();
        out
    }

    #[test]
    fn the_store_s_tokenizer_stems_folds_and_strips_diacritics() {
        let mut t = Tokenizer::new("porter unicode61 remove_diacritics 2").unwrap();
        assert_eq!(
            tokens(&mut t, "Retrying the Café's deploys, foo_bar!"),
            ["retri", "the", "cafe", "s", "deploi", "foo", "bar"]
        );
        assert!(tokens(&mut t, " ,;- ").is_empty());
    }

    #[test]
    fn an_unknown_tokenizer_is_refused() {
        assert!(Tokenizer::new("nonesuch").is_err());
    }
}
