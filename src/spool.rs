//! The fail-open spool: where a hook puts what it could not store, and how the next run brings
//! it back.
//!
//! Lines are JSON, one event each, already redacted, appended under an exclusive file lock so
//! concurrent hooks never interleave. Draining takes the same lock, stores every line in one
//! transaction and only then empties the file: a crash before the commit leaves the spool as it
//! was, a crash after it replays lines the store's content-hash dedupe ignores. A line that does
//! not parse is moved (redacted) to `rejected-<time>.jsonl` beside the spool, never dropped.

use crate::config::Paths;
use crate::model::{Kind, MemoryType, NewMemory};
use crate::redact::{Redacted, Redactor};
use crate::store::{Store, StoreError, enqueue_tx, insert_tx, touch_capture};
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

/// The spool's size cap when `ALETHEIA_SPOOL_MAX_MB` does not set one. A week of heavy use
/// spools a few megabytes; the cap is there so a store that stays unreachable for months cannot
/// fill the disk.
pub const DEFAULT_CAP_MB: f64 = 256.0;

/// The cap on each spool file, in bytes: `ALETHEIA_SPOOL_MAX_MB` (a positive number of MB,
/// fractions allowed), else [`DEFAULT_CAP_MB`].
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
}

/// The record of refused events, if any event was ever refused.
pub fn refused(paths: &Paths) -> Option<Refused> {
    let text = std::fs::read_to_string(refused_path(&paths.spool)).ok()?;
    serde_json::from_str(&text).ok()
}

fn refused_path(spool: &Path) -> PathBuf {
    spool.with_file_name("refused.json")
}

/// Count `events` more refused events. Called with the spool's lock held, so two hooks never
/// lose each other's count; written aside and renamed, so a crash leaves the old count.
fn count_refused(spool: &Path, events: u64) -> std::io::Result<()> {
    let path = refused_path(spool);
    let now = crate::time::now_ms();
    let mut r: Refused = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Refused {
            first_at: now,
            ..Refused::default()
        });
    r.events += events;
    r.last_at = now;
    let aside = path.with_extension("json.new");
    std::fs::write(&aside, serde_json::to_vec(&r).expect("a count serializes"))?;
    std::fs::rename(&aside, &path)
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
    let events = lines.len() as u64;
    match append_to(&paths.spool, &buf, until, cap, events) {
        Ok(()) => Ok(paths.spool.clone()),
        // The cap is the user's limit on the whole spool: the temporary spool is for a data
        // directory that cannot be written, not a second allowance.
        Err(full) if full.source.kind() == std::io::ErrorKind::StorageFull => Err(full),
        Err(first) => {
            // The fallback spool is rarely contended: give it a moment even past `until`.
            append_to(
                &paths.fallback_spool,
                &buf,
                until.max(Instant::now() + Duration::from_millis(200)),
                cap,
                events,
            )
            .map_err(|_| first)?;
            Ok(paths.fallback_spool.clone())
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

fn append_to(
    path: &Path,
    buf: &[u8],
    until: Instant,
    cap: u64,
    events: u64,
) -> Result<(), SpoolError> {
    let err = |source| SpoolError {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        create_private_dir(dir).map_err(err)?;
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
                    let e = std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the spool stayed locked",
                    );
                    return Err(err(e));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(err(e)),
            }
        }
    };
    // A crash mid-append can leave a last line without its newline; start on a fresh line so the
    // new event is not glued to it (the broken line is rejected on drain, this one survives).
    let len = f.metadata().map_err(err)?.len();
    if len + buf.len() as u64 + 1 > cap {
        let counted = count_refused(path, events);
        let e = std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!(
                "the spool is at its cap of {}, so this event was refused{} (ALETHEIA_SPOOL_MAX_MB raises the cap; `aletheia doctor` says why the store is unreachable)",
                megabytes(cap),
                if counted.is_ok() { " and counted" } else { "" }
            ),
        );
        return Err(err(e));
    }
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
    f.write_all(&out).and_then(|_| f.sync_data()).map_err(err)
}

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

/// The spool files that exist and hold something, main first.
pub fn pending_files(paths: &Paths) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = [&paths.spool, &paths.fallback_spool]
        .into_iter()
        .filter(|p| std::fs::metadata(p).map(|m| m.len() > 0).unwrap_or(false))
        .cloned()
        .collect();
    // Files a drain took aside and did not finish (it was killed, or ran out of time).
    for spool in [&paths.spool, &paths.fallback_spool] {
        if let Some(dir) = spool.parent()
            && let Ok(entries) = std::fs::read_dir(dir)
        {
            for e in entries.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("draining-") && name.ends_with(".jsonl") {
                    out.push(e.path());
                }
            }
        }
    }
    out
}

/// Events waiting in the spool: how many, and since when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub events: usize,
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
            "Aletheia could not reach its store: {} event(s){since} wait in the spool. Run `aletheia doctor` to fix it.",
            self.events
        )
    }
}

/// What waits in the spool, or `None` when nothing does. Reads each file's first line (the
/// oldest: lines are appended) and counts newlines, so even a spool near its cap is read in a
/// few tens of milliseconds.
pub fn waiting(paths: &Paths) -> Option<Waiting> {
    use std::io::BufRead;
    let mut w = Waiting {
        events: 0,
        since: None,
    };
    for path in pending_files(paths) {
        let Ok(f) = File::open(&path) else { continue };
        let mut reader = std::io::BufReader::with_capacity(64 * 1024, f);
        let mut first = String::new();
        if reader.read_line(&mut first).is_err() {
            continue;
        }
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&first)
            && let Some(at) = v["at"].as_i64()
        {
            w.since = Some(w.since.map_or(at, |s| s.min(at)));
        }
        let mut lines = usize::from(first.ends_with('\n'));
        loop {
            let chunk = match reader.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(chunk) => chunk,
            };
            lines += chunk.iter().filter(|&&b| b == b'\n').count();
            let n = chunk.len();
            reader.consume(n);
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

/// Like [`drain`], but stops between chunks once `budget` has passed (the hook has a deadline).
/// A file that was not finished is left whole: the next drain stores its lines again and the
/// store's dedupe skips those already in, so each drain gets further.
pub fn drain_until(
    paths: &Paths,
    store: &mut Store,
    redactor: &Redactor,
    budget: Option<std::time::Instant>,
) -> Result<DrainReport, DrainError> {
    let mut report = DrainReport::default();
    for path in pending_files(paths) {
        if !drain_file(&path, store, redactor, budget, &mut report)? {
            break;
        }
    }
    Ok(report)
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
    // `draining-` files are spools a drain took aside; nothing appends to them again.
    let taken_aside = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("draining-"));
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
        let aside = path.with_file_name(format!(
            "draining-{}-{}.jsonl",
            std::process::id(),
            crate::time::now_ms()
        ));
        std::fs::rename(path, &aside).map_err(err)?;
        aside
    };
    let path = path.as_path();
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
        let (stored, duplicates) = store.write(|tx| store_lines(tx, chunk, redactor))?;
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

/// Store parsed spool lines in one transaction; returns (stored, duplicates).
fn store_lines(
    tx: &rusqlite::Transaction<'_>,
    lines: &[SpoolLine],
    redactor: &Redactor,
) -> rusqlite::Result<(usize, usize)> {
    let (mut stored, mut dups) = (0, 0);
    for line in lines {
        match line {
            SpoolLine::Memory { memory, at } => {
                let m = Redacted::new(
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
                );
                if insert_tx(tx, &m, None, false)?.new {
                    stored += 1;
                } else {
                    dups += 1;
                }
                touch_capture(tx, &memory.host, *at)?;
            }
            SpoolLine::Queue { queue, at } => {
                enqueue_tx(tx, &queue.project, &queue.session_id, &queue.host, *at)?;
                stored += 1;
            }
        }
    }
    Ok((stored, dups))
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

/// Read a spool file's lines (for `doctor`), without locking.
pub fn read_lines(path: &Path) -> Vec<String> {
    let mut s = String::new();
    if let Ok(mut f) = File::open(path) {
        let _ = f.read_to_string(&mut s);
    }
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_a_person_writes_them() {
        assert_eq!(megabytes(256 * 1024 * 1024), "256 MB");
        assert_eq!(megabytes((0.002f64 * 1024.0 * 1024.0) as u64), "0.002 MB");
        assert_eq!(megabytes(1536 * 1024), "1.5 MB");
    }

    #[test]
    fn the_seed_spool_line_parses() {
        let line = r#"{"kind":"memory","memory":{"project":"shop","tool":"claude-code","sessionId":"s3","kind":"prompt","type":"note","title":"remember that the cache TTL is 60 seconds","narrative":"remember that the cache TTL is 60 seconds"},"at":1793304017358}"#;
        let parsed: SpoolLine = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), line);
    }
}
