//! The fail-open spool: where a hook puts what it could not store, and how the next run brings
//! it back.
//!
//! Lines are JSON, one event each, already redacted, appended under an exclusive file lock so
//! concurrent hooks never interleave. Draining takes the same lock, stores every line in one
//! transaction and only then empties the file: a crash before the commit leaves the spool as it
//! was, a crash after it replays lines the store's content-hash dedupe ignores. A line that does
//! not parse is moved (redacted) to `rejected-<time>.jsonl` beside the spool, never dropped.
//!
//! A lock that stays busy past the hook's wait (on a machine so loaded that other hooks' fsyncs
//! queue behind it) never costs the event: it goes to a file of its own beside the spool,
//! `event-<id>.jsonl`, written under a hidden name and renamed into place whole, so it needs no
//! lock and a drain never reads half of it.

use crate::config::Paths;
use crate::model::{Kind, MemoryType, NewMemory};
use crate::redact::{Redacted, Redactor};
use crate::store::{Record, Store, StoreError};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One spooled event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SpoolLine {
    /// A memory to store.
    Memory { memory: SpoolMemory, at: i64 },
    /// A session to queue for compression.
    Queue { queue: SpoolQueue, at: i64 },
}

/// A memory as spooled (the field names other Aletheia versions write too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpoolMemory {
    pub project: String,
    #[serde(rename = "tool")]
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub kind: Kind,
    #[serde(rename = "type")]
    pub mtype: MemoryType,
    pub title: String,
    pub narrative: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

/// A queued session as spooled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpoolQueue {
    pub project: String,
    #[serde(rename = "tool")]
    pub host: String,
    pub session_id: String,
}

impl SpoolLine {
    /// The spool line for a redacted memory.
    pub fn memory(m: &Redacted<NewMemory>) -> SpoolLine {
        let m = m.get();
        SpoolLine::Memory {
            memory: SpoolMemory {
                project: m.project.clone(),
                host: m.host.clone(),
                session_id: m.session_id.clone(),
                kind: m.kind,
                mtype: m.mtype,
                title: m.title.clone(),
                narrative: m.text.clone(),
                files: m.files.clone(),
                pinned: m.pinned,
            },
            at: m.created_at,
        }
    }
}

/// Why spooling failed (both the data directory and the temporary directory refused).
#[derive(Debug, thiserror::Error)]
#[error("cannot write the spool {path}: {source}")]
pub struct SpoolError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl SpoolError {
    /// Whether the spool refused the event at its cap (not a failed write: a full disk is an
    /// I/O error like any other, and the event goes to the fallback spool).
    pub fn at_cap(&self) -> bool {
        self.source.get_ref().is_some_and(|e| e.is::<AtCap>())
    }
}

/// The refusal at the cap, as the source of a [`SpoolError`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct AtCap(String);

/// The spool's size cap when `ALETHEIA_SPOOL_MAX_MB` does not set one. A week of heavy use
/// spools a few megabytes; the cap is there so a store that stays unreachable for months cannot
/// fill the disk.
pub const DEFAULT_CAP_MB: f64 = 256.0;

/// The cap on everything spooled (both spools and the files a drain took aside), in bytes:
/// `ALETHEIA_SPOOL_MAX_MB` (a positive number of MB, fractions allowed), else
/// [`DEFAULT_CAP_MB`].
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "finite and positive; a cap past u64::MAX bytes saturates to u64::MAX, no cap at all"
)]
pub fn cap_bytes() -> u64 {
    let mb = std::env::var("ALETHEIA_SPOOL_MAX_MB")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|mb| mb.is_finite() && *mb > 0.0)
        .unwrap_or(DEFAULT_CAP_MB);
    (mb * 1024.0 * 1024.0) as u64
}

/// Events the spool refused because it was at its cap, kept in `refused.json` beside it: what
/// is already spooled is never dropped to make room, so the newest events are the ones refused,
/// and `aletheia doctor` says how many.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    pub events: u64,
    /// Epoch milliseconds of the first and the latest refusal.
    pub first_at: i64,
    pub last_at: i64,
    /// The cap in force at the latest refusal, in bytes (the hook's environment may set another
    /// than the one `aletheia doctor` runs with).
    #[serde(default)]
    pub cap_bytes: u64,
}

/// The record of refused events, if any event was ever refused: the data directory's, plus the
/// temporary directory's (kept there when the data directory's could not be written in time).
pub fn refused(paths: &Paths) -> Option<Refused> {
    let [main, fallback] = refused_paths(paths);
    let read = |path: &Path| first_record(&std::fs::read_to_string(path).ok()?);
    match (read(&main), read(&fallback)) {
        (Some(a), Some(b)) => Some(Refused {
            events: a.events + b.events,
            first_at: a.first_at.min(b.first_at),
            last_at: a.last_at.max(b.last_at),
            cap_bytes: if a.last_at >= b.last_at {
                a.cap_bytes
            } else {
                b.cap_bytes
            },
        }),
        (a, b) => a.or(b),
    }
}

/// Where refused events are counted: beside the data directory's spool, and beside the
/// temporary one.
pub fn refused_paths(paths: &Paths) -> [PathBuf; 2] {
    [
        refused_path(&paths.spool),
        refused_path(&paths.fallback_spool),
    ]
}

fn refused_path(spool: &Path) -> PathBuf {
    spool.with_file_name("refused.json")
}

/// Count one more refused event, whichever spool refused it, in the data directory's record, or
/// the temporary directory's when that one cannot be written in time.
fn count_refused(paths: &Paths, cap: u64, until: Instant) -> std::io::Result<()> {
    let [main, fallback] = refused_paths(paths);
    count_refused_in(&main, cap, until).or_else(|_| count_refused_in(&fallback, cap, until))
}

/// Add one to the record at `path` under its own lock (hooks refused by either spool hold
/// different spool locks), waiting for that lock until `until` at most. The record is rewritten
/// in place and read back as its first JSON value, so a hook killed mid-write leaves at worst a
/// stale tail that the next count overwrites, never an empty record.
fn count_refused_in(path: &Path, cap: u64, until: Instant) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir)?;
    }
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    loop {
        match f.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the count of refused events stayed locked",
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    let now = crate::time::now_ms();
    let mut r = first_record(&text).unwrap_or(Refused {
        first_at: now,
        ..Refused::default()
    });
    r.events += 1;
    r.last_at = now;
    r.cap_bytes = cap;
    let bytes = serde_json::to_vec(&r).expect("a count serializes");
    f.seek(SeekFrom::Start(0))?;
    f.write_all(&bytes)?;
    f.set_len(bytes.len() as u64)?;
    f.sync_data()
}

/// The first JSON value of a refused-events record, ignoring whatever follows it.
fn first_record(text: &str) -> Option<Refused> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Refused>()
        .next()?
        .ok()
}

/// Append lines to the spool in the data directory, or, when that cannot be written, to the
/// per-user spool in the temporary directory. Returns the file written. A spool at its cap
/// refuses the lines (and counts them) rather than drop anything it holds.
pub fn append(paths: &Paths, lines: &[SpoolLine]) -> Result<PathBuf, SpoolError> {
    append_until(paths, lines, Instant::now() + LOCK_WAIT)
}

/// How long an append waits for the spool's lock before trying the fallback spool.
const LOCK_WAIT: Duration = Duration::from_millis(400);

/// Like [`append`], waiting for each spool's lock until `until` at most, so a hook near its
/// deadline never hangs on a lock.
pub fn append_until(
    paths: &Paths,
    lines: &[SpoolLine],
    until: Instant,
) -> Result<PathBuf, SpoolError> {
    let mut buf = Vec::new();
    for line in lines {
        serde_json::to_writer(&mut buf, line).expect("spool lines always serialize");
        buf.push(b'\n');
    }
    let cap = cap_bytes();
    match append_to(paths, &paths.spool, &buf, until, cap) {
        Ok(written) => Ok(written),
        // The cap is the user's limit on the whole spool: the temporary spool is for a data
        // directory that cannot be written, not a second allowance.
        Err(full) if full.at_cap() => Err(full),
        Err(first) => {
            // The fallback spool is rarely contended: give it a moment even past `until`.
            append_to(
                paths,
                &paths.fallback_spool,
                &buf,
                until.max(Instant::now() + Duration::from_millis(200)),
                cap,
            )
            // The data directory's failure is the one to fix, unless the fallback refused the
            // event at the cap: that is what the person needs to hear.
            .map_err(|second| if second.at_cap() { second } else { first })
        }
    }
}

/// Whether the open file is still the one at `path` (a drain renames the spool away).
fn still_at(f: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
        _ => false,
    }
}

/// Append `buf` to the spool at `path`, or to a file of its own beside it when the spool's lock
/// stays busy until `until`; returns the file written.
fn append_to(
    paths: &Paths,
    path: &Path,
    buf: &[u8],
    until: Instant,
    cap: u64,
) -> Result<PathBuf, SpoolError> {
    let err = |source| SpoolError {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        match path == paths.fallback_spool {
            true => create_fallback_dir(dir),
            false => create_private_dir(dir),
        }
        .map_err(err)?;
    }
    let mut f = 'open: loop {
        let f = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(err)?;
        loop {
            match f.try_lock() {
                Ok(()) if still_at(&f, path) => break 'open f,
                // A drain took this file aside: append to the new one.
                Ok(()) => continue 'open,
                Err(std::fs::TryLockError::WouldBlock) if !still_at(&f, path) => continue 'open,
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return write_alone(paths, path, buf, cap);
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(err(e)),
            }
        }
    };
    crate::stall::at("spool-locked");
    // A crash mid-append can leave a last line without its newline; start on a fresh line so the
    // new event is not glued to it (the broken line is rejected on drain, this one survives).
    let len = f.metadata().map_err(err)?.len();
    refuse_past_cap(paths, path, len + buf.len() as u64 + 1, cap, until)?;
    let mut out = Vec::with_capacity(buf.len() + 1);
    if len > 0 {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::Start(len - 1)).map_err(err)?;
        f.read_exact(&mut last).map_err(err)?;
        if last[0] != b'\n' {
            out.push(b'\n');
        }
    }
    out.extend_from_slice(buf);
    f.write_all(&out).and_then(|_| f.sync_data()).map_err(err)?;
    Ok(path.to_owned())
}

/// Refuse (and count) an event when the spool at `path`, grown to `size` bytes, and the rest of
/// the spool (the other spool, files a drain took aside, events in files of their own) would
/// pass `cap`. A drain running now only moves or removes bytes, so this never undercounts by
/// more than one event.
fn refuse_past_cap(
    paths: &Paths,
    path: &Path,
    size: u64,
    cap: u64,
    until: Instant,
) -> Result<(), SpoolError> {
    let elsewhere: u64 = pending_files(paths)
        .iter()
        .filter(|p| p.as_path() != path)
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    if elsewhere + size <= cap {
        return Ok(());
    }
    // One hook run is one event, whether it spools a memory, a queued session or both.
    let counted = count_refused(
        paths,
        cap,
        until.max(Instant::now() + Duration::from_millis(100)),
    );
    let e = std::io::Error::other(AtCap(format!(
        "the spool is at its cap of {}, so this event was refused{}: run `aletheia doctor` to see why the store is unreachable, or raise ALETHEIA_SPOOL_MAX_MB",
        megabytes(cap),
        if counted.is_ok() { " and counted" } else { "" }
    )));
    Err(SpoolError {
        path: path.to_owned(),
        source: e,
    })
}

/// Event files this process has begun under their hidden names and not yet renamed (see
/// [`abandon_unfinished`]).
static UNFINISHED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn unfinished() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Remove the event files this process began and did not finish. A hook's watchdog calls it
/// once it has spooled its own copy of the event, just before it ends the process: the run's
/// own write, cut short there, would otherwise leave a hidden file for a later drain to adopt
/// (a second copy of an event already spooled).
pub fn abandon_unfinished() {
    for part in unfinished().drain(..) {
        let _ = std::fs::remove_file(part);
    }
}

/// Put `buf` in a file of its own beside the spool at `spool`: written and synced under a hidden
/// name, then renamed to `event-<id>.jsonl`, so a drain sees all of it or none.
fn write_alone(paths: &Paths, spool: &Path, buf: &[u8], cap: u64) -> Result<PathBuf, SpoolError> {
    let dir = spool.parent().unwrap_or(Path::new("."));
    let name = format!("event-{}.jsonl", uuid::Uuid::now_v7().simple());
    let (part, done) = (dir.join(format!(".{name}.part")), dir.join(name));
    let err = |source| SpoolError {
        path: done.clone(),
        source,
    };
    refuse_past_cap(paths, &done, buf.len() as u64, cap, Instant::now())?;
    unfinished().push(part.clone());
    crate::stall::at("spool-alone");
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&part)
        .and_then(|mut f| f.write_all(buf).and_then(|_| f.sync_data()))
        .and_then(|_| std::fs::rename(&part, &done));
    unfinished().retain(|p| *p != part);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&part);
        return Err(err(e));
    }
    // The new name must outlive a power cut as the event's bytes do; a folder that cannot be
    // synced still holds the file, which is all a crash of this process needs.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(done)
}

/// An event file whose writer died between its write and its rename is adopted once it is this
/// old: no live writer takes so long, and a half-written last line is kept aside on drain.
const STALE_PART: Duration = Duration::from_secs(60);

/// A size in MB as a person writes it: `256 MB`, `0.002 MB`.
pub fn megabytes(bytes: u64) -> String {
    let mb = bytes as f64 / (1024.0 * 1024.0);
    let text = format!("{mb:.3}");
    format!("{} MB", text.trim_end_matches('0').trim_end_matches('.'))
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Create the temporary spool's folder, refusing one that is not this user's alone.
fn create_fallback_dir(dir: &Path) -> std::io::Result<()> {
    create_private_dir(dir)?;
    if is_private(dir) {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!(
            "{} is not a folder of this user's that only this user can open: remove it",
            dir.display()
        ),
    ))
}

/// Whether `dir` is a real folder (not a link) owned by this user and closed to everyone else.
/// The temporary spool's folder sits in a directory every user can write: one made by another
/// user could feed this user's store lines of their choosing, or read what a drain sets aside.
fn is_private(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == me && m.mode() & 0o077 == 0)
}

/// The spool files that exist and hold something, main first.
pub fn pending_files(paths: &Paths) -> Vec<PathBuf> {
    // The temporary spool only from a folder that is this user's alone (see `is_private`).
    let spools: Vec<&PathBuf> = [&paths.spool, &paths.fallback_spool]
        .into_iter()
        .filter(|p| *p != &paths.fallback_spool || p.parent().is_some_and(is_private))
        .collect();
    let mut out: Vec<PathBuf> = spools
        .iter()
        .filter(|p| std::fs::metadata(p).map(|m| m.len() > 0).unwrap_or(false))
        .map(|p| (*p).clone())
        .collect();
    // Files a drain took aside and did not finish (it was killed, or ran out of time), and
    // events that found the spool's lock busy.
    for spool in spools {
        if let Some(dir) = spool.parent()
            && let Ok(entries) = std::fs::read_dir(dir)
        {
            for e in entries.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if is_closed_file(&name) && ready(&name, &e) {
                    out.push(e.path());
                }
            }
        }
    }
    out
}

/// Whether a spool file's name is one nothing appends to any more: a file a drain took aside, or
/// an event written in a file of its own.
fn is_closed_file(name: &str) -> bool {
    (name.starts_with("draining-") || name.starts_with("event-")) && name.ends_with(".jsonl")
        || name.starts_with(".event-") && name.ends_with(".jsonl.part")
}

/// Whether a closed file's entry `e` may be drained now: an event file still under its hidden
/// name only once it is older than [`STALE_PART`] (before that its writer may still rename it).
fn ready(name: &str, e: &std::fs::DirEntry) -> bool {
    !name.starts_with(".event-")
        || e.metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age >= STALE_PART))
}

/// Events waiting in the spool: how many, and since when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub events: usize,
    /// Whether `events` is estimated (a spool too large to count within a hook's time).
    pub approximate: bool,
    /// Epoch milliseconds of the oldest, when its line says.
    pub since: Option<i64>,
}

impl Waiting {
    /// The one line a session start shows while events wait: the store is unreachable, and
    /// the person should hear it before a week of memories is missing.
    pub fn notice(&self) -> String {
        let since = self
            .since
            .map(|at| format!(" since {}", crate::time::iso_utc(at)))
            .unwrap_or_default();
        format!(
            "Aletheia could not reach its store: {}{} event(s){since} wait in the spool. Run `aletheia doctor` to fix it.",
            if self.approximate { "about " } else { "" },
            self.events
        )
    }
}

/// A spool file up to this size is counted line by line; past it, the count is estimated from
/// its first part, so the notice costs a hook a few milliseconds even with a spool at its cap.
const COUNTED_BYTES: u64 = 4 * 1024 * 1024;

/// What waits in the spool, or `None` when nothing does. The first line of each file is its
/// oldest (lines are appended).
pub fn waiting(paths: &Paths) -> Option<Waiting> {
    let mut w = Waiting {
        events: 0,
        approximate: false,
        since: None,
    };
    for path in pending_files(paths) {
        let Ok(f) = File::open(&path) else { continue };
        let size = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut head = Vec::new();
        if f.take(COUNTED_BYTES).read_to_end(&mut head).is_err() || head.is_empty() {
            continue;
        }
        let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(first)
            && let Some(at) = v["at"].as_i64()
        {
            w.since = Some(w.since.map_or(at, |s| s.min(at)));
        }
        let mut lines = head.iter().filter(|&&b| b == b'\n').count();
        if size > head.len() as u64 {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "finite, non-negative and at most `size` (the head has no more lines than bytes); `as` saturates where usize is narrower"
            )]
            let estimate = (lines as f64 * size as f64 / head.len() as f64).round() as usize;
            lines = estimate;
            w.approximate = true;
        }
        w.events += lines;
    }
    (w.events > 0).then_some(w)
}

/// What a drain did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DrainReport {
    /// Lines stored as new memories or queue entries.
    pub stored: usize,
    /// Lines whose memory was already stored.
    pub duplicates: usize,
    /// Lines moved to a rejected file.
    pub rejected: usize,
}

/// Why a drain failed. The spool is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum DrainError {
    #[error(transparent)]
    Spool(#[from] SpoolError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Store everything spooled, then empty the spool files.
pub fn drain(
    paths: &Paths,
    store: &mut Store,
    redactor: &Redactor,
) -> Result<DrainReport, DrainError> {
    drain_until(paths, store, redactor, None)
}

/// Lines stored per transaction while draining.
const DRAIN_CHUNK: usize = 500;

/// Like [`drain`], but stops between chunks and between files once `budget` has passed (the hook
/// has a deadline).
/// A file that was not finished is left whole: the next drain stores its lines again and the
/// store's dedupe skips those already in, so each drain gets further.
pub fn drain_until(
    paths: &Paths,
    store: &mut Store,
    redactor: &Redactor,
    budget: Option<std::time::Instant>,
) -> Result<DrainReport, DrainError> {
    let mut report = DrainReport::default();
    let mut unreadable = None;
    for (i, path) in pending_files(paths).into_iter().enumerate() {
        // Between files too: a loaded machine can leave hundreds of event files.
        if i > 0 && budget.is_some_and(|b| Instant::now() >= b) {
            break;
        }
        match drain_file(&path, store, redactor, budget, &mut report) {
            Ok(true) => {}
            Ok(false) => break,
            // One file this drain cannot read or move (another user's, a folder by that name)
            // must not hold back the rest; it is named once the others are in.
            Err(DrainError::Spool(e)) => {
                unreadable.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    match unreadable {
        Some(e) => Err(e.into()),
        None => Ok(report),
    }
}

/// Drain one file; false when the budget ran out first.
fn drain_file(
    path: &Path,
    store: &mut Store,
    redactor: &Redactor,
    budget: Option<std::time::Instant>,
    report: &mut DrainReport,
) -> Result<bool, DrainError> {
    let err = |source| SpoolError {
        path: path.to_owned(),
        source,
    };
    // Nothing appends to a file a drain took aside or an event's own file.
    let taken_aside = path
        .file_name()
        .is_some_and(|n| is_closed_file(&n.to_string_lossy()));
    let mut f = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        // Another drain finished it first.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(err(e).into()),
    };
    let path: PathBuf = if taken_aside {
        // A file another drain took aside: if that drain still holds it, leave it to it.
        match f.try_lock() {
            Ok(()) if path.exists() => path.to_owned(),
            Ok(()) => return Ok(true),
            Err(std::fs::TryLockError::WouldBlock) => return Ok(true),
            Err(std::fs::TryLockError::Error(e)) => return Err(err(e).into()),
        }
    } else {
        // Take the spool aside under its lock, so appends go on to a fresh file and never wait
        // for this drain's SQLite writes.
        f.lock().map_err(err)?;
        if !still_at(&f, path) {
            return Ok(true);
        }
        // Unique even for two drains of one process in one millisecond (the server's worker
        // and a drain request): a rename onto another drain's file would replace it.
        let aside = path.with_file_name(format!(
            "draining-{}-{}.jsonl",
            std::process::id(),
            uuid::Uuid::now_v7().simple()
        ));
        std::fs::rename(path, &aside).map_err(err)?;
        aside
    };
    let path = path.as_path();
    crate::stall::at("drain");
    let mut raw = Vec::new();
    f.read_to_end(&mut raw).map_err(err)?;
    let mut good = Vec::new();
    let mut bad: Vec<&[u8]> = Vec::new();
    for line in raw
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
    {
        match serde_json::from_slice::<SpoolLine>(line) {
            Ok(parsed) => good.push(parsed),
            Err(_) => bad.push(line),
        }
    }
    for (i, chunk) in good.chunks(DRAIN_CHUNK).enumerate() {
        if i > 0 && budget.is_some_and(|b| std::time::Instant::now() >= b) {
            return Ok(false);
        }
        let (stored, duplicates) = store.record_all(&records(chunk, redactor))?;
        report.stored += stored;
        report.duplicates += duplicates;
    }
    if !bad.is_empty() {
        let dir = path.parent().unwrap_or(Path::new("."));
        let rejected = dir.join(format!("rejected-{}.jsonl", crate::time::now_ms()));
        let rerr = |source| SpoolError {
            path: rejected.clone(),
            source,
        };
        let mut out = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&rejected)
            .map_err(rerr)?;
        // Kept for a person to read, so redacted like everything else written to disk.
        let mut buf = Vec::new();
        for line in &bad {
            buf.extend_from_slice(redactor.redact(&String::from_utf8_lossy(line)).as_bytes());
            buf.push(b'\n');
        }
        out.write_all(&buf)
            .and_then(|_| out.sync_data())
            .map_err(rerr)?;
        report.rejected += bad.len();
    }
    std::fs::remove_file(path).map_err(err)?;
    Ok(true)
}

/// Parsed spool lines as the store records them. Spooled text was redacted when it was
/// written; it passes the gate again on its way in, as everything the store writes does.
fn records(lines: &[SpoolLine], redactor: &Redactor) -> Vec<Record> {
    lines
        .iter()
        .map(|line| match line {
            SpoolLine::Memory { memory, at } => Record::Memory(Redacted::new(
                NewMemory {
                    project: memory.project.clone(),
                    kind: memory.kind,
                    mtype: memory.mtype,
                    title: memory.title.clone(),
                    text: memory.narrative.clone(),
                    host: memory.host.clone(),
                    session_id: memory.session_id.clone(),
                    files: memory.files.clone(),
                    pinned: memory.pinned,
                    created_at: *at,
                },
                redactor,
            )),
            SpoolLine::Queue { queue, at } => {
                let session = crate::store::QueuedSession {
                    project: queue.project.clone(),
                    session_id: queue.session_id.clone(),
                    host: queue.host.clone(),
                };
                Record::Queue(Redacted::new(session, redactor), *at)
            }
        })
        .collect()
}

/// The rejected files beside the spools, oldest first.
pub fn rejected_files(paths: &Paths) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        paths.spool_dir(),
        paths.fallback_spool.parent().unwrap_or(Path::new("/")),
    ] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("rejected-") && name.ends_with(".jsonl") {
                    out.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_a_person_writes_them() {
        assert_eq!(megabytes(256 * 1024 * 1024), "256 MB");
        // 0.002 MB is 2097.152 bytes.
        assert_eq!(megabytes(2_097), "0.002 MB");
        assert_eq!(megabytes(1536 * 1024), "1.5 MB");
    }

    #[test]
    fn only_the_cap_counts_as_a_refusal_not_a_full_disk() {
        let disk_full = SpoolError {
            path: PathBuf::from("spool.jsonl"),
            source: std::io::Error::from(std::io::ErrorKind::StorageFull),
        };
        assert!(
            !disk_full.at_cap(),
            "a full disk must go on to the fallback spool"
        );
        let refused = SpoolError {
            path: PathBuf::from("spool.jsonl"),
            source: std::io::Error::other(AtCap("at its cap".into())),
        };
        assert!(refused.at_cap());
    }

    fn spool_of(paths: &Paths, lines: usize, text: &str) {
        std::fs::create_dir_all(paths.spool.parent().unwrap()).unwrap();
        let line = |i: usize| {
            let m = NewMemory {
                project: "shop".into(),
                host: "claude-code".into(),
                session_id: None,
                kind: Kind::Prompt,
                mtype: MemoryType::Note,
                title: format!("{text} {i}"),
                text: format!("{text} {i}"),
                files: vec![],
                pinned: false,
                created_at: 1_000 + i64::try_from(i).unwrap(),
            };
            serde_json::to_string(&SpoolLine::memory(&Redacted::new(m, Redactor::global())))
                .unwrap()
        };
        let all: String = (0..lines).map(|i| line(i) + "\n").collect();
        std::fs::write(&paths.spool, all).unwrap();
    }

    #[test]
    fn a_small_spool_is_counted_a_large_one_estimated() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        spool_of(&paths, 300, "a prompt");
        let w = waiting(&paths).unwrap();
        assert_eq!(
            (w.events, w.approximate, w.since),
            (300, false, Some(1_000))
        );
        assert!(
            w.notice().contains(": 300 event(s) since 1970"),
            "{}",
            w.notice()
        );

        // Past the counted part: within a few percent, and said to be an estimate.
        let n = 60_000;
        spool_of(
            &paths,
            n,
            "a prompt about the checkout cache and its retries",
        );
        assert!(std::fs::metadata(&paths.spool).unwrap().len() > COUNTED_BYTES);
        let w = waiting(&paths).unwrap();
        assert!(w.approximate);
        assert!(w.events.abs_diff(n) < n / 20, "{} for {n}", w.events);
        assert!(w.notice().contains(": about "), "{}", w.notice());
    }

    #[test]
    fn the_cap_covers_files_a_drain_took_aside() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        spool_of(&paths, 40, "a prompt spooled before a drain was cut short");
        let aside = paths.spool.with_file_name("draining-1.jsonl");
        std::fs::rename(&paths.spool, &aside).unwrap();
        let held = std::fs::metadata(&aside).unwrap().len();
        let line = |t: &str| SpoolLine::Queue {
            queue: SpoolQueue {
                project: "shop".into(),
                host: "claude-code".into(),
                session_id: t.into(),
            },
            at: 1,
        };
        // A cap above what the set-aside file holds, but not above it and one more event.
        let cap = held + 40;
        let buf = serde_json::to_vec(&line("s1")).unwrap();
        let e = append_to(&paths, &paths.spool, &buf, Instant::now(), cap).unwrap_err();
        assert!(e.at_cap(), "{e}");
        assert_eq!(refused(&paths).unwrap().events, 1);
        assert_eq!(
            std::fs::metadata(&aside).unwrap().len(),
            held,
            "nothing held is dropped"
        );
        assert!(append_to(&paths, &paths.spool, &buf, Instant::now(), held + 4096).is_ok());
    }

    /// A data directory whose spool folder exists, and where its refused-events record goes.
    fn record_in(dir: &Path) -> (Paths, PathBuf) {
        let paths = Paths::within(dir);
        let record = refused_path(&paths.spool);
        std::fs::create_dir_all(record.parent().unwrap()).unwrap();
        (paths, record)
    }

    #[test]
    fn a_refusal_record_left_with_a_stale_tail_keeps_its_count() {
        let dir = tempfile::tempdir().unwrap();
        let (paths, record) = record_in(dir.path());
        // A longer record cut short by a kill between the rewrite and the truncation.
        std::fs::write(
            &record,
            r#"{"events":41,"first_at":5,"last_at":9,"cap_bytes":1024}1234,"cap_bytes":99}"#,
        )
        .unwrap();
        let soon = Instant::now() + Duration::from_millis(100);
        count_refused_in(&record, 2048, soon).unwrap();
        let r = refused(&paths).unwrap();
        assert_eq!((r.events, r.first_at, r.cap_bytes), (42, 5, 2048));
        assert!(r.last_at > 9);
        assert_eq!(
            std::fs::read_to_string(&record).unwrap(),
            serde_json::to_string(&r).unwrap(),
            "the stale tail is gone"
        );
    }

    #[test]
    fn a_refusal_count_never_waits_past_its_time_for_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let (_, record) = record_in(dir.path());
        let held = File::create(&record).unwrap();
        held.lock().unwrap();
        let e =
            count_refused_in(&record, 1, Instant::now() + Duration::from_millis(20)).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
    }

    /// A memory line for `title`, as the hook spools it.
    fn line_of(title: &str) -> String {
        format!(
            r#"{{"kind":"memory","memory":{{"project":"shop","tool":"claude-code","kind":"prompt","type":"note","title":"{title}","narrative":"{title}"}},"at":1}}"#
        ) + "\n"
    }

    fn stored_titles(store: &Store) -> Vec<String> {
        let conn = rusqlite::Connection::open(store.path()).unwrap();
        let mut q = conn
            .prepare("SELECT title FROM memories ORDER BY title")
            .unwrap();
        q.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn a_temporary_spool_folder_another_user_could_open_is_neither_read_nor_written() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        let shared = paths.fallback_spool.parent().unwrap();
        std::fs::create_dir_all(shared).unwrap();
        std::fs::set_permissions(shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::fs::write(shared.join("event-planted.jsonl"), line_of("planted")).unwrap();
        std::fs::write(&paths.fallback_spool, line_of("planted too")).unwrap();
        assert_eq!(pending_files(&paths), Vec::<PathBuf>::new());
        let e = append_to(
            &paths,
            &paths.fallback_spool,
            b"{}\n",
            Instant::now(),
            1 << 20,
        )
        .unwrap_err();
        assert!(e.to_string().contains("remove it"), "{e}");
        std::fs::set_permissions(shared, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(pending_files(&paths).len(), 2);
    }

    #[test]
    fn a_drain_goes_past_a_file_it_cannot_read_and_then_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        let mut store = Store::open(&paths, crate::store::OpenOptions::HOOK).unwrap();
        let spool_dir = paths.spool.parent().unwrap();
        std::fs::create_dir_all(spool_dir.join("event-0-a-folder.jsonl")).unwrap();
        std::fs::write(spool_dir.join("event-1.jsonl"), line_of("after the folder")).unwrap();
        std::fs::write(&paths.spool, line_of("in the spool")).unwrap();
        let e = drain(&paths, &mut store, Redactor::global()).unwrap_err();
        assert!(e.to_string().contains("event-0-a-folder.jsonl"), "{e}");
        assert_eq!(stored_titles(&store), ["after the folder", "in the spool"]);
    }

    #[test]
    fn a_drain_out_of_time_stops_between_files() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        let mut store = Store::open(&paths, crate::store::OpenOptions::HOOK).unwrap();
        let spool_dir = paths.spool.parent().unwrap();
        std::fs::create_dir_all(spool_dir).unwrap();
        for i in 0..3 {
            std::fs::write(spool_dir.join(format!("event-{i}.jsonl")), line_of("one")).unwrap();
        }
        let spent = Instant::now();
        drain_until(&paths, &mut store, Redactor::global(), Some(spent)).unwrap();
        assert_eq!(pending_files(&paths).len(), 2, "one file, then the budget");
    }

    #[test]
    fn an_event_file_left_under_its_hidden_name_is_brought_in_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        let spool_dir = paths.spool.parent().unwrap();
        std::fs::create_dir_all(spool_dir).unwrap();
        let fresh = spool_dir.join(".event-fresh.jsonl.part");
        let stale = spool_dir.join(".event-stale.jsonl.part");
        std::fs::write(&fresh, line_of("still being written")).unwrap();
        std::fs::write(&stale, line_of("its writer died before the rename")).unwrap();
        let old = std::time::SystemTime::now() - STALE_PART - Duration::from_secs(1);
        File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(pending_files(&paths), [stale]);
        let mut store = Store::open(&paths, crate::store::OpenOptions::HOOK).unwrap();
        drain(&paths, &mut store, Redactor::global()).unwrap();
        assert_eq!(stored_titles(&store), ["its writer died before the rename"]);
        assert!(fresh.exists());
    }

    #[test]
    fn the_seed_spool_line_parses() {
        let line = r#"{"kind":"memory","memory":{"project":"shop","tool":"claude-code","sessionId":"s3","kind":"prompt","type":"note","title":"remember that the cache TTL is 60 seconds","narrative":"remember that the cache TTL is 60 seconds"},"at":1793304017358}"#;
        let parsed: SpoolLine = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), line);
    }
}
