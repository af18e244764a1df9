//! The keyword index held in a long-running process's memory: what a relevance search reads
//! of FTS5 (each term's rows with its counts in the title and the text, each row's length, the
//! index's totals, and the row traits the ranking checks), answered from memory.
//!
//! Answered by FTS5, a search walks each term's doclist from the file and asks FTS5, row by
//! row, for the row's length and position lists; in the server that was most of a search, and
//! the page reads went through the kernel each time (no memory map, see `OpenOptions::SERVING`).
//! Held here, the same walk is a scan of a sorted array.
//!
//! Exact, not approximate: tokens come from FTS5's own tokenizer (`fts5_api::Tokenizer`), so a
//! row's tokens and length are the index's; and before it answers, the index catches up with
//! the store. New memories are the rows with an id above the largest the store held at the last
//! catch-up (SQLite gives a new row the largest id plus one); edits, pins, dismissals and
//! deletes are in `memory_changes`, which triggers fill (migration v5), read from the last
//! sequence number applied. Each connection catches up when the store changed since its last
//! look (`PRAGMA data_version` and its own changes), so a search sees every commit it would see
//! through FTS5.
//!
//! One index per store file and process, shared by every pooled connection to it. It is built
//! in a background thread, and caught up there too when it falls far behind (an import of
//! thousands of memories); until then, searches go to FTS5, which answers the same.

use super::fts5_api::{Purpose, Tokenizer};
use super::search::{CandidateRow, Candidates, Eligible, TermSample};
use super::term_counts::TermCounts;
use crate::model::{Kind, MemoryType};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, RwLock, RwLockReadGuard, Weak};
use std::time::Duration;

/// Whether the server and the hub keep the index (`ALETHEIA_KEYWORD_INDEX`: `on`, the default,
/// or `off`): it trades memory (0.7 to 0.9 KB a memory) for searches several times faster, and `off` leaves every search to FTS5 with the same results.
pub fn setting() -> Result<bool, String> {
    match std::env::var("ALETHEIA_KEYWORD_INDEX")
        .unwrap_or_default()
        .trim()
    {
        "" | "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!(
            "ALETHEIA_KEYWORD_INDEX={other}: give on (keep the keyword index in memory) or off (search FTS5 alone)"
        )),
    }
}

/// Where the index of one connection stands, for `/v1/health`.
pub(crate) fn state_name(index: Option<&KeywordIndex>) -> &'static str {
    match index {
        None => "off",
        Some(i) if i.disabled.load(Ordering::Relaxed) => "off",
        Some(i) if i.as_is().is_some() => "ready",
        Some(_) => "building",
    }
}

/// The tokenizer the schema gives `memories_fts` (migration v1).
const TOKENIZER: &str = "porter unicode61 remove_diacritics 2";

/// A catch-up of more rows than this (new or changed) is left to the background thread, and
/// FTS5 answers meanwhile: a search waits for a few milliseconds of tokenizing at most.
const IN_SEARCH: usize = 500;

/// The background thread reads and applies a long catch-up in batches of this many rows, so
/// the index is write-locked for a batch's apply at a time.
const BATCH: usize = 10_000;

/// Ids above this are not held; such a store is searched by FTS5. Rows are kept in an array by
/// id, so one row given a huge id by hand must not ask for gigabytes: 2^26 ids are 67 million
/// memories, far past any store, and the array's worst case stays near 3 GB.
const MAX_ID: i64 = 1 << 26;

/// One row holding a term: its id and how often the term occurs in its title and its text.
#[derive(Debug, Clone, Copy)]
struct Posting {
    id: u32,
    title: u32,
    text: u32,
}

/// What a search needs of one memory besides its words.
#[derive(Debug, Clone)]
struct Row {
    created_at: i64,
    /// Tokens over title, text and project, as FTS5 counts a row's length.
    tokens: u32,
    project: u32,
    pinned: bool,
    dismissed: bool,
    mtype: MemoryType,
    kind: Kind,
    /// The terms it holds in its title or text, for taking it out of their postings.
    terms: Box<[u32]>,
}

/// The index proper: postings per term, rows by id, and the cursors of the last catch-up.
#[derive(Default)]
pub(crate) struct Held {
    /// Whether it has been caught up with the store at least once (else it answers nothing).
    ready: bool,
    vocabulary: HashMap<Box<[u8]>, u32>,
    postings: Vec<Vec<Posting>>,
    rows: Vec<Option<Row>>,
    projects: Vec<Box<str>>,
    project_ids: HashMap<Box<str>, u32>,
    /// Rows in the index and their tokens: FTS5's `xRowCount` and `xColumnTotalSize`.
    total_rows: u64,
    total_tokens: u64,
    /// The store's largest id at the last catch-up: newer rows have larger ones.
    max_id: i64,
    /// The last `memory_changes` entry applied.
    seq: i64,
}

impl Held {
    /// The store's largest id when the index last caught up (see `Store::indexed_rows`).
    pub(crate) fn indexed_rows(&self) -> u64 {
        u64::try_from(self.max_id).unwrap_or(0)
    }

    /// How many of the newest `sample` rows hold `token`, and the oldest of them.
    pub(crate) fn term_sample(&self, token: &[u8], sample: u64) -> TermSample {
        let list = self.list(token);
        let hits = list
            .len()
            .min(usize::try_from(sample).unwrap_or(usize::MAX));
        TermSample {
            hits: hits as u64,
            oldest: if hits == 0 {
                0
            } else {
                u64::from(list[list.len() - hits].id)
            },
        }
    }

    fn list(&self, token: &[u8]) -> &[Posting] {
        self.vocabulary
            .get(token)
            .map_or(&[][..], |&t| &self.postings[t as usize])
    }

    fn row(&self, id: u32) -> Option<&Row> {
        self.rows.get(id as usize).and_then(Option::as_ref)
    }

    /// What a ranking reads of the row `id`.
    pub(crate) fn candidate(&self, id: i64) -> Option<CandidateRow> {
        let row = self.row(u32::try_from(id).ok()?)?;
        Some(CandidateRow {
            created_at: row.created_at,
            pinned: row.pinned,
            mtype: row.mtype,
            kind: row.kind,
            dismissed: row.dismissed,
            project: self.projects[row.project as usize].to_string(),
        })
    }

    /// What ranking reads of the row `id` when it can be a result (see
    /// `CandidateReader::eligible`): its project is compared where it is held, not copied.
    pub(crate) fn eligible(&self, id: i64, project: Option<&str>) -> Option<Eligible> {
        let row = self.row(u32::try_from(id).ok()?)?;
        let in_project = project.is_none_or(|p| *self.projects[row.project as usize] == *p);
        (!row.dismissed && in_project).then_some(Eligible {
            created_at: row.created_at,
            pinned: row.pinned,
            mtype: row.mtype,
            kind: row.kind,
        })
    }

    /// Walk the rows holding any of `tokens` that pass `screen` (exactly in its project and its
    /// filter's, never dismissed), in id order, with their counts (one phrase per token). With
    /// `only` (in any order), other rows are not visited.
    pub(crate) fn each_match(
        &self,
        tokens: &[&[u8]],
        screen: Candidates<'_>,
        only: Option<&[i64]>,
        each: &mut dyn FnMut(i64, &TermCounts),
    ) {
        // The walk's project and the filter's, each exact: a project no memory has passes
        // nothing.
        let mut projects = [screen.project, screen.filter.and_then(|f| f.project)]
            .into_iter()
            .flatten()
            .map(|p| self.project_ids.get(p).copied());
        let [a, b] = [projects.next(), projects.next()];
        if a == Some(None) || b == Some(None) {
            return;
        }
        let (a, b) = (a.flatten(), b.flatten());
        let passes = |row: &Row| {
            !row.dismissed
                && a.is_none_or(|p| p == row.project)
                && b.is_none_or(|p| p == row.project)
                && screen.filter.is_none_or(|f| {
                    f.mtype.is_none_or(|t| t == row.mtype)
                        && f.kind.is_none_or(|k| k == row.kind)
                        && f.since.is_none_or(|s| row.created_at >= s)
                        && f.until.is_none_or(|u| row.created_at < u)
                })
        };
        let mut counts = TermCounts {
            index_rows: self.total_rows,
            index_tokens: self.total_tokens,
            row_tokens: 0,
            phrases: vec![[0, 0]; tokens.len()],
        };
        let only = only.map(|ids| Only::new(ids, self.rows.len()));
        if let [token] = tokens {
            // The search's own case, one term at a time: no allocation per row.
            let list = self.list(token);
            let mut visit = |p: &Posting| {
                if let Some(row) = self.row(p.id).filter(|r| passes(r)) {
                    counts.row_tokens = u64::from(row.tokens);
                    counts.phrases[0] = [u64::from(p.title), u64::from(p.text)];
                    each(i64::from(p.id), &counts);
                }
            };
            match &only {
                Some(Only::Sorted(ids)) => {
                    let mut rest = list;
                    for &id in ids {
                        let at = rest.partition_point(|p| p.id < id);
                        rest = &rest[at..];
                        if let Some(p) = rest.first().filter(|p| p.id == id) {
                            visit(p);
                        }
                    }
                }
                Some(marked) => list.iter().filter(|p| marked.holds(p.id)).for_each(visit),
                None => list.iter().for_each(visit),
            }
            return;
        }
        let mut rows: BTreeMap<u32, Vec<[u64; 2]>> = BTreeMap::new();
        for (i, token) in tokens.iter().enumerate() {
            for p in self.list(token) {
                if only.as_ref().is_some_and(|o| !o.holds(p.id)) {
                    continue;
                }
                rows.entry(p.id)
                    .or_insert_with(|| vec![[0, 0]; tokens.len()])[i] =
                    [u64::from(p.title), u64::from(p.text)];
            }
        }
        for (id, phrases) in rows {
            if let Some(row) = self.row(id).filter(|r| passes(r)) {
                counts.row_tokens = u64::from(row.tokens);
                counts.phrases = phrases;
                each(i64::from(id), &counts);
            }
        }
    }

    fn term_id(&mut self, token: &[u8]) -> u32 {
        if let Some(&t) = self.vocabulary.get(token) {
            return t;
        }
        let t = u32::try_from(self.postings.len()).expect("fewer than 2^32 distinct terms");
        self.vocabulary.insert(token.into(), t);
        self.postings.push(Vec::new());
        t
    }

    fn project_id(&mut self, project: &str) -> u32 {
        if let Some(&p) = self.project_ids.get(project) {
            return p;
        }
        let p = u32::try_from(self.projects.len()).expect("fewer than 2^32 projects");
        self.projects.push(project.into());
        self.project_ids.insert(project.into(), p);
        p
    }

    /// Take the rows `ids` out of the index, those it holds: each of their terms' lists is
    /// filtered once, however many of them leave it, so that a delta costs at most one pass over
    /// the postings (an edit of a memory holding a common word shifts a long list; a thousand
    /// edits must not shift it a thousand times).
    fn remove(&mut self, ids: impl Iterator<Item = u32>) {
        let mut leaving: HashMap<u32, Vec<u32>> = HashMap::new();
        for id in ids {
            let Some(row) = self.rows.get_mut(id as usize).and_then(Option::take) else {
                continue;
            };
            self.total_rows -= 1;
            self.total_tokens -= u64::from(row.tokens);
            for &t in &row.terms {
                leaving.entry(t).or_default().push(id);
            }
        }
        for (t, mut ids) in leaving {
            ids.sort_unstable();
            self.postings[t as usize].retain(|p| ids.binary_search(&p.id).is_err());
        }
    }

    /// Put a row read from the store into the index (once any earlier version of it is
    /// removed). A posting that belongs before the end of its list (an edited row's) is left in
    /// `late`, for [`Held::merge`]; a new row's comes after every other and is pushed.
    fn put(&mut self, doc: Doc, late: &mut HashMap<u32, Vec<Posting>>) {
        let project = self.project_id(&doc.project);
        let mut terms = Vec::with_capacity(doc.terms.len());
        for (token, [title, text]) in doc.terms {
            let t = self.term_id(&token);
            terms.push(t);
            let list = &mut self.postings[t as usize];
            let posting = Posting {
                id: doc.id,
                title,
                text,
            };
            match list.last() {
                Some(last) if last.id > doc.id => late.entry(t).or_default().push(posting),
                _ => list.push(posting),
            }
        }
        let slot = doc.id as usize;
        if self.rows.len() <= slot {
            self.rows.resize(slot + 1, None);
        }
        self.total_rows += 1;
        self.total_tokens += u64::from(doc.tokens);
        self.rows[slot] = Some(Row {
            created_at: doc.created_at,
            tokens: doc.tokens,
            project,
            pinned: doc.pinned,
            dismissed: doc.dismissed,
            mtype: doc.mtype,
            kind: doc.kind,
            terms: terms.into_boxed_slice(),
        });
    }

    /// Merge the postings `put` left aside into their lists, one pass over each list.
    fn merge(&mut self, late: HashMap<u32, Vec<Posting>>) {
        for (t, mut adds) in late {
            adds.sort_unstable_by_key(|p| p.id);
            let list = &mut self.postings[t as usize];
            let old = std::mem::take(list);
            let mut merged = Vec::with_capacity(old.len() + adds.len());
            let mut adds = adds.into_iter().peekable();
            for p in old {
                while let Some(a) = adds.next_if(|a| a.id < p.id) {
                    merged.push(a);
                }
                merged.push(p);
            }
            merged.extend(adds);
            *list = merged;
        }
    }

    /// Give back what the lists grew by beyond their length: a build appends row by row, and a
    /// list that doubled to fit its last posting can hold nearly twice what it needs.
    fn shrink(&mut self) {
        for list in &mut self.postings {
            list.shrink_to_fit();
        }
        self.rows.shrink_to_fit();
    }

    /// Change what the ranking reads of a held row whose words did not change.
    fn retrait(&mut self, id: u32, traits: &Doc) {
        let project = self.project_id(&traits.project);
        if let Some(Some(row)) = self.rows.get_mut(id as usize) {
            row.created_at = traits.created_at;
            row.pinned = traits.pinned;
            row.dismissed = traits.dismissed;
            row.mtype = traits.mtype;
            row.kind = traits.kind;
            row.project = project;
        }
    }
}

/// The rows a walk is limited to. A few are looked up in each list by binary search; many (a
/// search that holds most of a common word's rows) are marked in a bitmap the walk checks,
/// which costs a bit per memory rather than sorting them.
enum Only {
    Sorted(Vec<u32>),
    Marked(Vec<u64>),
}

impl Only {
    /// Below this many ids, sorting them costs less than a bitmap of the whole store.
    const FEW: usize = 4_096;

    fn new(ids: &[i64], slots: usize) -> Only {
        if ids.len() <= Self::FEW {
            // An id beyond 32 bits is not held, so it matches nothing.
            let mut sorted: Vec<u32> = ids
                .iter()
                .filter_map(|&id| u32::try_from(id).ok())
                .collect();
            sorted.sort_unstable();
            sorted.dedup();
            return Only::Sorted(sorted);
        }
        let mut bits = vec![0u64; slots.div_ceil(64)];
        for id in ids.iter().filter_map(|&id| usize::try_from(id).ok()) {
            if let Some(word) = bits.get_mut(id / 64) {
                *word |= 1 << (id % 64);
            }
        }
        Only::Marked(bits)
    }

    fn holds(&self, id: u32) -> bool {
        match self {
            Only::Sorted(ids) => ids.binary_search(&id).is_ok(),
            Only::Marked(bits) => {
                let id = id as usize;
                bits.get(id / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
            }
        }
    }
}

/// A memory read from the store, tokenized: what `Held::put` takes.
struct Doc {
    id: u32,
    project: String,
    created_at: i64,
    pinned: bool,
    dismissed: bool,
    mtype: MemoryType,
    kind: Kind,
    tokens: u32,
    /// Each distinct term of the title and the text with its count in each.
    terms: Vec<(Vec<u8>, [u32; 2])>,
}

/// What one catch-up read from the store, to apply in one go.
struct Delta {
    /// The cursors it started from: it applies only to an index still at them.
    from: (i64, i64),
    /// The cursors it brings the index to.
    to: (i64, i64),
    /// Rebuild from nothing (the change log no longer reaches back to the index's cursor).
    afresh: bool,
    gone: Vec<u32>,
    retraits: Vec<Doc>,
    docs: Vec<Doc>,
    /// Whether it read everything up to `to` (else the next batch follows).
    complete: bool,
}

/// The index of one store file, shared by the process's connections to it.
pub(crate) struct KeywordIndex {
    path: PathBuf,
    held: RwLock<Held>,
    tokenizer: Mutex<Option<Tokenizer>>,
    /// Whether the background thread is building or catching up.
    busy: AtomicBool,
    /// Set when the index cannot be kept (an id past `MAX_ID`, no tokenizer): FTS5 answers.
    disabled: AtomicBool,
}

static SHARED: LazyLock<Mutex<HashMap<PathBuf, Weak<KeywordIndex>>>> =
    LazyLock::new(Mutex::default);

/// The index of the store at `path`, shared with this process's other connections to it,
/// building in the background if it is new.
pub(crate) fn shared(path: &Path) -> Arc<KeywordIndex> {
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let mut all = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    all.retain(|_, w| w.strong_count() > 0);
    if let Some(index) = all.get(&key).and_then(Weak::upgrade) {
        return index;
    }
    let index = Arc::new(KeywordIndex {
        path: key.clone(),
        held: RwLock::default(),
        tokenizer: Mutex::new(Tokenizer::new(TOKENIZER).ok()),
        busy: AtomicBool::new(false),
        disabled: AtomicBool::new(false),
    });
    all.insert(key, Arc::downgrade(&index));
    index.catch_up_in_background();
    index
}

/// Read-only, so that the background thread never writes or migrates the store.
fn background_connection(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    Ok(conn)
}

impl KeywordIndex {
    /// Catch up on `conn` and read the index: `None` while it is not ready (building, far
    /// behind, or disabled), when the search goes to FTS5.
    pub(crate) fn caught_up(
        self: &Arc<Self>,
        conn: &Connection,
    ) -> Option<RwLockReadGuard<'_, Held>> {
        if self.disabled.load(Ordering::Relaxed) {
            return None;
        }
        if self.busy.load(Ordering::Acquire) {
            return None;
        }
        let caught = match self.tokenizer.lock() {
            Ok(mut guard) => match guard.as_mut() {
                Some(tokenizer) => self.catch_up(conn, false, tokenizer),
                None => Err(no_tokenizer()),
            },
            Err(_) => Err(poisoned()),
        };
        match caught {
            Ok(true) => {}
            Ok(false) => {
                self.catch_up_in_background();
                return None;
            }
            Err(e) => {
                log_fallback("the keyword index could not catch up", &e);
                return None;
            }
        }
        let held = self.held.read().ok()?;
        self.answers(held)
    }

    /// The index as it stands, without catching up: for a connection that saw no change since
    /// its last catch-up. `None` while it is not ready.
    pub(crate) fn as_is(&self) -> Option<RwLockReadGuard<'_, Held>> {
        let held = self.held.read().ok()?;
        self.answers(held)
    }

    /// `held` when it may answer: ready, and not part-way through a background catch-up. The
    /// flags are read with the guard held: the background thread applies a batch (which can
    /// leave the index between two commits) only under the write lock and while `busy`, so
    /// checking before the guard was taken could let a batch slip in between.
    fn answers<'a>(&self, held: RwLockReadGuard<'a, Held>) -> Option<RwLockReadGuard<'a, Held>> {
        let away = self.disabled.load(Ordering::Relaxed) || self.busy.load(Ordering::Acquire);
        (held.ready && !away).then_some(held)
    }

    /// The one token a query term stands for in the index, `None` when it is not exactly one
    /// (a term FTS5 reads as a phrase of several, which FTS5 itself then answers).
    pub(crate) fn query_token(&self, term: &str) -> Option<Vec<u8>> {
        let mut guard = self.tokenizer.lock().ok()?;
        let tokenizer = guard.as_mut()?;
        let mut out: Vec<Vec<u8>> = Vec::new();
        tokenizer
            .tokens(&term.replace('"', ""), Purpose::Query, &mut |t, _| {
                out.push(t.to_vec());
            })
            .ok()?;
        (out.len() == 1).then(|| out.remove(0))
    }

    fn catch_up_in_background(self: &Arc<Self>) {
        if self.disabled.load(Ordering::Relaxed) || self.busy.swap(true, Ordering::AcqRel) {
            return;
        }
        let index = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("keyword-index".into())
            .spawn(move || {
                let outcome =
                    background_connection(&index.path).and_then(|conn| while_behind(&index, &conn));
                if let Err(e) = outcome {
                    log_fallback("the keyword index could not be built", &e);
                    index.disabled.store(true, Ordering::Relaxed);
                }
                index.busy.store(false, Ordering::Release);
            });
        if spawned.is_err() {
            self.busy.store(false, Ordering::Release);
        }
    }

    /// One catch-up: read what changed since the index's cursors, then apply it if no other
    /// connection moved them meanwhile (else read again). With `batches`, a long backlog is
    /// read and applied a batch at a time; without, it is refused (`Ok(false)`).
    fn catch_up(
        &self,
        conn: &Connection,
        batches: bool,
        tokenizer: &mut Tokenizer,
    ) -> rusqlite::Result<bool> {
        loop {
            let from = {
                let held = self.held.read().map_err(|_| poisoned())?;
                (held.max_id, held.seq)
            };
            let Some(delta) = read_delta(conn, from, batches, tokenizer)? else {
                return Ok(false);
            };
            let mut held = self.held.write().map_err(|_| poisoned())?;
            if (held.max_id, held.seq) != delta.from {
                continue;
            }
            if delta.to.0 > MAX_ID {
                self.disabled.store(true, Ordering::Relaxed);
                return Ok(false);
            }
            let complete = delta.complete;
            apply(&mut held, delta);
            if complete {
                held.ready = true;
                return Ok(true);
            }
        }
    }
}

/// What changed in the store since `from` (largest id, last change applied), read in one
/// transaction. `None` when it is more than a search should wait for and `batches` is off.
fn read_delta(
    conn: &Connection,
    from: (i64, i64),
    batches: bool,
    tokenizer: &mut Tokenizer,
) -> rusqlite::Result<Option<Delta>> {
    let own = conn.is_autocommit();
    if own {
        conn.execute_batch("BEGIN")?;
    }
    let delta = read_delta_in(conn, from, batches, tokenizer);
    if own {
        conn.execute_batch("COMMIT")?;
    }
    delta
}

fn read_delta_in(
    conn: &Connection,
    (max_id, seq): (i64, i64),
    batches: bool,
    tokenizer: &mut Tokenizer,
) -> rusqlite::Result<Option<Delta>> {
    let (top, last_seq, first_seq): (i64, i64, i64) = conn
        .prepare_cached(
            "SELECT (SELECT coalesce(max(id), 0) FROM memories),
                        (SELECT coalesce(max(seq), 0) FROM memory_changes),
                        (SELECT coalesce(min(seq), 0) FROM memory_changes)",
        )?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    let from = (max_id, seq);
    let fresh = max_id == 0 && seq == 0;
    // The log is trimmed (see migration v5): an index whose cursor it no longer reaches, or
    // one ahead of it (another file at the same path), starts afresh.
    let afresh = !fresh && (seq > last_seq || (seq + 1 < first_seq && first_seq > 1));
    let (max_id, seq) = if afresh { (0, 0) } else { from };
    // Every change up to `last_seq` is either read below or already in the rows read
    // with it, in this one transaction: the change cursor moves to it even when the new
    // rows take several batches.
    let mut delta = Delta {
        from,
        to: (top, last_seq),
        afresh,
        gone: vec![],
        retraits: vec![],
        docs: vec![],
        complete: true,
    };
    if max_id > 0 && seq < last_seq {
        let changed: Vec<(i64, bool)> = conn
            .prepare_cached(
                "SELECT memory_id, max(words) FROM memory_changes
                     WHERE seq > ?1 AND memory_id <= ?2 GROUP BY memory_id",
            )?
            .query_map([seq, max_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        if changed.len() > IN_SEARCH && !batches {
            return Ok(None);
        }
        let mut stmt = conn.prepare_cached(&format!("{ROW_SQL} WHERE id = ?1"))?;
        for (id, words) in changed {
            let Ok(id32) = u32::try_from(id) else {
                continue;
            };
            match stmt.query_row([id], read_row).optional()? {
                None => delta.gone.push(id32),
                Some(raw) if words => delta.docs.push(raw.tokenize(tokenizer)?),
                Some(raw) => delta.retraits.push(raw.untokenized()),
            }
        }
    }
    if top > max_id {
        if !batches && top - max_id > i64::try_from(IN_SEARCH).unwrap_or(i64::MAX) {
            return Ok(None);
        }
        let mut stmt =
            conn.prepare_cached(&format!("{ROW_SQL} WHERE id > ?1 ORDER BY id LIMIT ?2"))?;
        let raws: Vec<RawRow> = stmt
            .query_map(rusqlite::params![max_id, BATCH.cast_signed()], read_row)?
            .collect::<rusqlite::Result<_>>()?;
        if raws.len() == BATCH
            && let Some(last) = raws.last()
            && last.id < top
        {
            // More follow: this batch brings the index up to its last row.
            delta.to.0 = last.id;
            delta.complete = false;
        }
        for raw in raws {
            if raw.id > MAX_ID {
                delta.to.0 = raw.id;
                break;
            }
            delta.docs.push(raw.tokenize(tokenizer)?);
        }
    }
    Ok(Some(delta))
}

/// Catch up a batch at a time until the index is ready and current, with a tokenizer of its
/// own (searches keep theirs for their query words), then give back what the lists grew by.
fn while_behind(index: &KeywordIndex, conn: &Connection) -> rusqlite::Result<()> {
    let mut tokenizer = Tokenizer::new(TOKENIZER)?;
    while !index.catch_up(conn, true, &mut tokenizer)? {
        if index.disabled.load(Ordering::Relaxed) {
            return Ok(());
        }
    }
    index.held.write().map_err(|_| poisoned())?.shrink();
    Ok(())
}

fn apply(held: &mut Held, delta: Delta) {
    if delta.afresh {
        *held = Held::default();
    }
    // The deleted rows leave, and so do the earlier versions of those read again.
    held.remove(
        delta
            .gone
            .iter()
            .copied()
            .chain(delta.docs.iter().map(|d| d.id)),
    );
    for doc in delta.retraits {
        let id = doc.id;
        held.retrait(id, &doc);
    }
    let mut late = HashMap::new();
    for doc in delta.docs {
        held.put(doc, &mut late);
    }
    held.merge(late);
    held.max_id = delta.to.0;
    held.seq = delta.to.1;
}

/// Why the index stepped aside and FTS5 answers, in the process's log: only the server and the
/// hub keep an index, and only their build has one.
fn log_fallback(what: &str, e: &rusqlite::Error) {
    #[cfg(feature = "server")]
    tracing::warn!(error = %e, "{what}; searching the store");
    #[cfg(not(feature = "server"))]
    let _ = (what, e);
}

fn poisoned() -> rusqlite::Error {
    super::fts5_api::failure(
        rusqlite::ffi::SQLITE_INTERNAL,
        "the keyword index was left mid-change",
    )
}

fn no_tokenizer() -> rusqlite::Error {
    super::fts5_api::failure(
        rusqlite::ffi::SQLITE_ERROR,
        "FTS5's tokenizer is not available",
    )
}

const ROW_SQL: &str =
    "SELECT id, title, text, project, created_at, pinned, dismissed, type, kind FROM memories";

/// A memory's row as read, before tokenizing.
struct RawRow {
    id: i64,
    title: String,
    text: String,
    project: String,
    created_at: i64,
    pinned: bool,
    dismissed: bool,
    mtype: MemoryType,
    kind: Kind,
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        id: r.get(0)?,
        title: r.get(1)?,
        text: r.get(2)?,
        project: r.get(3)?,
        created_at: r.get(4)?,
        pinned: r.get(5)?,
        dismissed: r.get(6)?,
        mtype: r.get::<_, String>(7)?.parse().unwrap_or(MemoryType::Note),
        kind: r.get::<_, String>(8)?.parse().unwrap_or(Kind::Note),
    })
}

impl RawRow {
    fn untokenized(self) -> Doc {
        Doc {
            id: u32::try_from(self.id).unwrap_or(u32::MAX),
            project: self.project,
            created_at: self.created_at,
            pinned: self.pinned,
            dismissed: self.dismissed,
            mtype: self.mtype,
            kind: self.kind,
            tokens: 0,
            terms: vec![],
        }
    }

    /// Split the title, text and project as FTS5 indexed them: counts per term in the title
    /// and the text, and the row's length over all three columns.
    fn tokenize(self, tokenizer: &mut Tokenizer) -> rusqlite::Result<Doc> {
        let mut counts: HashMap<Vec<u8>, [u32; 2]> = HashMap::new();
        let mut tokens: u32 = 0;
        for (column, text) in [&self.title, &self.text, &self.project]
            .into_iter()
            .enumerate()
        {
            tokenizer.tokens(text, Purpose::Document, &mut |token, positioned| {
                if positioned {
                    tokens = tokens.saturating_add(1);
                }
                if column < 2 {
                    match counts.get_mut(token) {
                        Some(c) => c[column] += 1,
                        None => {
                            let mut c = [0, 0];
                            c[column] = 1;
                            counts.insert(token.to_vec(), c);
                        }
                    }
                }
            })?;
        }
        let mut doc = self.untokenized();
        doc.tokens = tokens;
        doc.terms = counts.into_iter().collect();
        Ok(doc)
    }
}

#[cfg(test)]
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    reason = "test data: small counters and seeded random numbers, far inside every range"
)]
mod tests {
    use super::*;
    use crate::store::search::Filter;
    use crate::store::{OpenOptions, Store};

    /// A small deterministic generator (xorshift), so every run writes the same stores.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
        /// Words FTS5 splits, stems and folds in every way it can: plain and inflected forms
        /// of the same stem, capitals, diacritics, a word joined by an underscore, a skewed
        /// frequency so some words sit in most rows.
        fn words(&mut self, n: u64) -> String {
            const WORDS: &[&str] = &[
                "retry",
                "retrying",
                "Retried",
                "deploy",
                "deploys",
                "café",
                "Cafe",
                "naïve",
                "cache_key",
                "the",
                "edit",
                "home",
                "dev",
                "staging",
                "vpn",
                "migration",
                "ÜBER",
                "über",
                "worker",
                "queue",
            ];
            (0..1 + self.below(n))
                .map(|_| {
                    let skewed = self
                        .below(WORDS.len() as u64)
                        .min(self.below(WORDS.len() as u64));
                    if self.below(4) == 0 {
                        format!("w{}", self.below(300))
                    } else {
                        WORDS[skewed as usize].to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    const KINDS: [&str; 3] = ["note", "event", "prompt"];
    const TYPES: [&str; 3] = ["note", "decision", "gotcha"];

    fn insert(w: &Connection, rng: &mut Rng, n: usize) {
        let mut stmt = w
            .prepare(
                "INSERT INTO memories (uid, project, kind, type, title, text, tool, created_at,
                                       content_hash, pinned, dismissed)
                 VALUES (lower(hex(randomblob(16))), ?1, ?2, ?3, ?4, ?5, 't', ?6,
                         lower(hex(randomblob(16))), ?7, ?8)",
            )
            .unwrap();
        for _ in 0..n {
            stmt.execute(rusqlite::params![
                format!("shop-{}", rng.below(3)),
                KINDS[rng.below(3) as usize],
                TYPES[rng.below(3) as usize],
                rng.words(5),
                rng.words(30),
                rng.below(1_000_000) as i64,
                rng.below(20) == 0,
                rng.below(20) == 0,
            ])
            .unwrap();
        }
    }

    /// One round of every write a store sees after its rows are first stored, by another
    /// connection: new rows, edited words, a moved project, pins, dismissals, a changed type,
    /// kind or date, deletes, and the top row deleted with its id then given to a new row.
    fn writes(w: &Connection, rng: &mut Rng, new_rows: usize) {
        let top: i64 = w
            .query_row("SELECT max(id) FROM memories", [], |r| r.get(0))
            .unwrap();
        let pick = |rng: &mut Rng| 1 + rng.below(top.cast_unsigned()) as i64;
        for _ in 0..10 {
            let id = pick(rng);
            let statement = match rng.below(8) {
                0 => format!(
                    "UPDATE memories SET title = '{}' WHERE id = {id}",
                    rng.words(4)
                ),
                1 => format!(
                    "UPDATE memories SET text = '{}' WHERE id = {id}",
                    rng.words(20)
                ),
                2 => format!(
                    "UPDATE memories SET project = 'shop-{}' WHERE id = {id}",
                    rng.below(4)
                ),
                3 => format!("UPDATE memories SET pinned = 1 - pinned WHERE id = {id}"),
                4 => format!("UPDATE memories SET dismissed = 1 - dismissed WHERE id = {id}"),
                5 => format!(
                    "UPDATE memories SET type = '{}', kind = '{}', created_at = {} WHERE id = {id}",
                    TYPES[rng.below(3) as usize],
                    KINDS[rng.below(3) as usize],
                    rng.below(1_000_000)
                ),
                6 => format!("DELETE FROM memories WHERE id = {id}"),
                _ => "DELETE FROM memories WHERE id = (SELECT max(id) FROM memories)".to_owned(),
            };
            w.execute_batch(&statement).unwrap();
        }
        insert(w, rng, new_rows);
    }

    /// A store of `n` memories written by `insert`: the folder holding it, its file, a
    /// connection that searches it through FTS5, a plain connection that writes it, and the
    /// generator, to go on with.
    struct Fixture {
        _dir: tempfile::TempDir,
        path: PathBuf,
        plain: Store,
        w: Connection,
        rng: Rng,
    }

    fn fixture(seed: u64, n: usize) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hub.db");
        let plain = Store::open_path(&path, OpenOptions::INTERACTIVE).unwrap();
        let w = Connection::open(&path).unwrap();
        let mut rng = Rng(seed);
        insert(&w, &mut rng, n);
        Fixture {
            _dir: dir,
            path,
            plain,
            w,
            rng,
        }
    }

    fn served(path: &Path) -> Store {
        let store = Store::open_path(path, OpenOptions::SEARCH_SERVING).unwrap();
        store.wait_for_keywords();
        store
    }

    fn counted(store: &Store, terms: &[String], filter: &Filter<'_>) -> Vec<(i64, TermCounts)> {
        let mut out = Vec::new();
        let candidates = Candidates {
            project: filter.project,
            filter: Some(filter),
        };
        store
            .each_match_counted(terms, candidates, None, &mut |id, c| {
                // FTS5 counts the project's phrase too, which no score reads.
                let mut c = c.clone();
                c.phrases.truncate(terms.len());
                out.push((id, c));
            })
            .unwrap();
        // FTS5 walks in id order, or in the filter's order when one narrows it.
        out.sort_by_key(|m| m.0);
        out
    }

    /// Everything a ranking reads, through the index and through FTS5, is the same.
    fn same_answers(served: &Store, plain: &Store, rng: &mut Rng) {
        assert!(served.keywords_ready());
        assert_eq!(
            served.indexed_rows().unwrap(),
            plain.indexed_rows().unwrap()
        );
        for _ in 0..12 {
            let terms: Vec<String> = rng.words(3).split(' ').map(str::to_owned).collect();
            let project = format!("shop-{}", rng.below(4));
            let filter = match rng.below(4) {
                0 => Filter::default(),
                1 => Filter {
                    project: Some(&project),
                    ..Filter::default()
                },
                2 => Filter {
                    project: Some(&project),
                    mtype: Some(MemoryType::Decision),
                    since: Some(200_000),
                    ..Filter::default()
                },
                _ => Filter {
                    kind: Some(Kind::Event),
                    until: Some(600_000),
                    ..Filter::default()
                },
            };
            let (got, want) = (
                counted(served, &terms, &filter),
                counted(plain, &terms, &filter),
            );
            assert_eq!(got.len(), want.len(), "{terms:?} with {filter:?}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g, w, "{terms:?} with {filter:?}");
            }
            for term in &terms {
                for sample in [20, 2_000] {
                    let (g, w) = (
                        served.term_sample(term, sample).unwrap(),
                        plain.term_sample(term, sample).unwrap(),
                    );
                    assert_eq!(
                        (g.hits, g.oldest),
                        (w.hits, w.oldest),
                        "{term} in the newest {sample}"
                    );
                }
            }
            let (mut g, mut w) = (
                served.candidate_rows().unwrap(),
                plain.candidate_rows().unwrap(),
            );
            for (id, _) in want.iter().take(20) {
                assert_eq!(g.get(*id).unwrap(), w.get(*id).unwrap(), "row {id}");
                for scope in [None, Some(project.as_str())] {
                    assert_eq!(
                        g.eligible(*id, scope).unwrap(),
                        w.eligible(*id, scope).unwrap()
                    );
                }
            }
        }
    }

    #[test]
    fn the_index_answers_as_fts5_does_through_every_kind_of_write() {
        let Fixture {
            _dir,
            path,
            plain,
            w,
            mut rng,
        } = fixture(7, 3_000);
        let served = served(&path);
        same_answers(&served, &plain, &mut rng);
        for round in 0..25 {
            // Mostly a few new rows, caught up inside the search; now and then more than a
            // search catches up itself, left to the background thread.
            let new_rows = if round % 8 == 7 {
                IN_SEARCH + 100
            } else {
                rng.below(40) as usize
            };
            writes(&w, &mut rng, new_rows);
            served.wait_for_keywords();
            same_answers(&served, &plain, &mut rng);
        }
    }

    #[test]
    fn a_write_on_the_serving_connection_itself_is_seen_by_its_next_search() {
        let fixture = fixture(3, 50);
        let mut served = served(&fixture.path);
        let terms = vec!["zeppelin".to_owned()];
        assert!(counted(&served, &terms, &Filter::default()).is_empty());
        served
            .write(|tx| tx.execute("UPDATE memories SET title = 'zeppelin' WHERE id = 7", []))
            .unwrap();
        let found = counted(&served, &terms, &Filter::default());
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [7]);
        assert_eq!(found[0].1.phrases, [[1, 0]]);
    }

    #[test]
    fn a_change_log_trimmed_past_the_index_rebuilds_it() {
        let Fixture {
            _dir,
            path,
            plain,
            w,
            mut rng,
        } = fixture(11, 200);
        let served = served(&path);
        // As if the log had been trimmed while the process slept: the entries after the
        // index's cursor are gone, so it cannot tell what changed and must read everything.
        w.execute_batch(
            "UPDATE memories SET title = 'moved' WHERE id = 5;
             UPDATE memories SET title = 'moved again' WHERE id = 6;
             DELETE FROM memory_changes WHERE seq < (SELECT max(seq) FROM memory_changes);",
        )
        .unwrap();
        served.wait_for_keywords();
        same_answers(&served, &plain, &mut rng);
        let moved = counted(&served, &["moved".to_owned()], &Filter::default());
        assert_eq!(moved.iter().map(|m| m.0).collect::<Vec<_>>(), [5, 6]);
    }

    #[test]
    fn searches_while_another_connection_writes_stay_exact() {
        // The folder lives as long as its binding; the writer below opens a connection of its own.
        let Fixture {
            _dir,
            path,
            plain,
            w: _,
            mut rng,
        } = fixture(5, 2_000);
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let w = Connection::open(&path).unwrap();
                w.busy_timeout(Duration::from_secs(10)).unwrap();
                let mut rng = Rng(99);
                for _ in 0..60 {
                    let new_rows = 1 + rng.below(30) as usize;
                    writes(&w, &mut rng, new_rows);
                }
            })
        };
        let served = served(&path);
        let terms = vec!["retry".to_owned(), "deploy".to_owned()];
        while !writer.is_finished() {
            // Each answer is a snapshot FTS5 could have given: every row it names holds a term.
            for (id, counts) in counted(&served, &terms, &Filter::default()) {
                assert!(counts.phrases.iter().any(|p| p[0] + p[1] > 0), "row {id}");
            }
        }
        writer.join().unwrap();
        served.wait_for_keywords();
        same_answers(&served, &plain, &mut rng);
    }

    #[test]
    fn a_term_fts5_reads_as_several_tokens_goes_to_fts5() {
        let Fixture {
            _dir, path, plain, ..
        } = fixture(13, 300);
        let served = served(&path);
        let index = served.keywords.as_ref().unwrap();
        assert_eq!(
            index.query_token("Retrying").as_deref(),
            Some(&b"retri"[..])
        );
        assert_eq!(index.query_token("cache_key"), None);
        let terms = vec!["cache_key".to_owned(), "retry".to_owned()];
        let (got, want) = (
            counted(&served, &terms, &Filter::default()),
            counted(&plain, &terms, &Filter::default()),
        );
        assert!(!want.is_empty());
        assert_eq!(got, want);
    }
}
